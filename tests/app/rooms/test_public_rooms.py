"""Races to find: public rooms listed in every lobby, on every process, and
quick races (docs/protocol.md, "Races to find"). Two server processes on a
Redis of this module's own: the list is shared by the whole deployment, so
no other module's rooms may show in it."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from harness import Client, RedisServer, ServerProcess, Servers, eventually
from support.challenge import TestClock
from support.player import identify
from support.tournament import http_get

from server.store import keys

INTERVAL = 0.2  # s between two lists to a lobby (the servers' --lobby-interval)
ARGS = ["--lobby-interval", str(INTERVAL), "--quick-wait", "1", "--public-per-address", "50",
        "--proxy-header", "X-Forwarded-For"]  # (a test names its clients' addresses)
# a quick race is rated: its players have keys, and one seat per address


@pytest.fixture(scope="module")
def two(module_redis: RedisServer, tmp_path_factory: pytest.TempPathFactory
        ) -> Iterator[tuple[ServerProcess, ServerProcess]]:
    group = Servers(tmp_path_factory.mktemp("public"))
    a = group.start(module_redis.url, args=ARGS, name="a")
    b = group.start(module_redis.url, args=ARGS, name="b")
    yield a, b
    group.check()


def rooms_frames(client: Client) -> list[dict[str, Any]]:
    return [f["d"] for f in client.frames if f["t"] == "rooms"]


def listed(client: Client) -> dict[str, dict[str, Any]]:
    """The rooms of the latest list the client received, by id."""
    frames = rooms_frames(client)
    return {r["id"]: r for r in frames[-1]["rooms"]} if frames else {}


async def lobby(server: ServerProcess, clients: Any, name: str = "looker") -> Client:
    client: Client = await clients(server, name)
    await client.send("lobby", {"on": True})
    return client


async def public_race(a: ServerProcess, b: ServerProcess, clients: Any) -> tuple[Client, Client]:
    """ann's public room on ``a``, bob's seat from ``b``, their race started."""
    ann: Client = await clients(a, "ann")
    await ann.create("ann", public=True, max_players=2)
    bob: Client = await clients(b, "bob")
    await bob.join(ann.room, "bob")
    await bob.send("ready", {"ready": True})
    await ann.event("ready")
    await ann.send("start")
    await ann.event("start")
    return ann, bob


async def test_a_public_room_is_listed_on_every_process_until_its_race_ends(
        two: tuple[ServerProcess, ServerProcess], clients: Any) -> None:
    a, b = two
    looker = await lobby(b, clients)
    ann: Client = await clients(a, "ann")
    await ann.create("ann", public=True, draw=3, scoring="V", time_limit=300, max_players=4)
    room = ann.room
    private: Client = await clients(a, "pia")
    await private.create("pia")  # a private room: in no list, ever

    entry = await eventually(lambda: listed(looker).get(room), what="the room listed on b")
    assert entry == {"id": room, "phase": "lobby", "mode": "D3V", "players": 1, "max": 4,
                     "host": "ann", "quick": False, "start_at": None, "time_limit": 300,
                     "undo": True, "assists": "basic", "boards": "after", "deal": "random",
                     "late": False, "rated": False}
    bob: Client = await clients(b, "bob")
    await bob.join(room, "bob")
    await eventually(lambda: listed(looker).get(room, {}).get("players") == 2,
                     what="bob counted")
    await bob.send("ready", {"ready": True})
    await ann.event("ready")
    await ann.send("start")
    started = await ann.event("start")
    running = await eventually(lambda: listed(looker).get(room, {}).get("phase") in (
        "countdown", "racing") and listed(looker)[room], what="listed as running")
    assert running["start_at"] == started["start_at"]
    for racer in (ann, bob):
        await racer.expect("board")
        assert (await racer.command("resign"))["t"] == "ack"
    ended = await ann.event("ended")
    await eventually(lambda: room not in listed(looker) and len(rooms_frames(looker)) > 0,
                     what="the room off the list")

    every = [f["d"] for f in looker.frames if f["t"] == "rooms"]
    assert all(private.room not in {r["id"] for r in d["rooms"]} for d in every)
    raw = "".join(looker.raw)
    assert ended["code"] not in raw and '"code"' not in raw  # never a code in a list
    assert "lobby" not in {f["t"] for f in ann.frames} and not rooms_frames(ann)  # a racer gets none


async def test_two_players_pressing_quick_race_at_once_on_two_processes_race_together(
        two: tuple[ServerProcess, ServerProcess], clients: Any) -> None:
    a, b = two
    looker = await lobby(a, clients)
    ann: Client = await clients(a, "ann", "198.51.100.1")
    bob: Client = await clients(b, "bob", "198.51.100.2")
    await asyncio.gather(identify(ann), identify(bob))  # a quick race is rated: players have keys
    await asyncio.gather(ann.send("quick", {"nickname": "ann", "draw": 1, "scoring": "V"}),
                         bob.send("quick", {"nickname": "bob", "draw": 1, "scoring": "V"}))
    joined = await asyncio.gather(ann._joined(), bob._joined())
    assert joined[0]["room"] == joined[1]["room"]
    assert sorted(j["seat"] for j in joined) == [0, 1]
    # it starts by itself, --quick-wait after its second player
    start = await ann.event("start")
    assert start["room"]["settings"]["quick"] == 1 and start["room"]["settings"]["public"]
    await bob.event("start")
    entry = await eventually(lambda: listed(looker).get(ann.room), what="the quick race listed")
    assert entry["quick"] and entry["rated"] and entry["mode"] == "D1V"
    # the next player of the mode opens the next quick race, as its host
    cat: Client = await clients(b, "cat")
    await identify(cat)
    await cat.send("quick", {"nickname": "cat", "draw": 1, "scoring": "V"})
    opened = await cat._joined()
    assert opened["room"] != ann.room and opened["seat"] == 0
    # nobody starts a quick race by hand
    await cat.send("start")
    refused = await cat.expect("reject")
    assert refused["code"] == "not_host" and "by itself" in refused["msg"]


async def test_a_racer_cannot_watch_their_own_race_from_the_list(
        two: tuple[ServerProcess, ServerProcess], clients: Any) -> None:
    a, b = two
    ann, bob = await public_race(a, b, clients)
    # bob's other tab, from the list, with the seat token the browser keeps
    tab: Client = await clients(b, "bob-tab")
    await tab.send("watch", {"room": ann.room, "token": bob.token})
    refused = await tab.expect("reject")
    assert refused["code"] == "own_race"


async def test_quick_races_asked_from_one_address_are_capped_a_minute_and_a_refusal_stores_nothing(
        own_redis: RedisServer, servers: Servers) -> None:
    server = servers.start(own_redis.url, args=[*ARGS, "--quick-per-minute", "2"])
    mine, other = "198.51.100.77", "198.51.100.78"
    opened = [await Client.open(server.ws_url, f"q{i}", address=mine) for i in range(4)]
    opened.append(await Client.open(server.ws_url, "elsewhere", address=other))
    for c in opened:
        await identify(c)  # a quick race is rated: its players have keys
    try:
        for c in opened[:2]:
            await c.send("quick", {"nickname": c.name, "draw": 1, "scoring": "N"})
            await c.expect("joined")
        window = keys.quick_joins(mine)
        for c in opened[2:4]:
            await c.send("quick", {"nickname": c.name, "draw": 1, "scoring": "N"})
            refused = await c.expect("reject")
            assert refused["code"] == "too_many" and "quick races" in refused["msg"]
            with own_redis.client() as r:
                assert r.zcard(window) == 2  # the refusal added nothing
        await opened[4].send("quick", {"nickname": "elsewhere", "draw": 1, "scoring": "N"})
        await opened[4].expect("joined")  # another address is another count
    finally:
        for c in opened:
            await c.close()


async def test_bad_quick_and_lobby_commands_are_refused_and_change_nothing(
        two: tuple[ServerProcess, ServerProcess], clients: Any) -> None:
    a, _ = two
    x: Client = await clients(a, "x")
    await identify(x)
    await x.send("quick", {"nickname": "x", "draw": 2})
    assert (await x.expect("reject"))["code"] == "bad_settings"
    await x.send("quick", {"nickname": "x", "scoring": "Q"})
    assert (await x.expect("reject"))["code"] == "bad_settings"
    await x.send("quick", {"nickname": "", "draw": 3})
    assert (await x.expect("reject"))["code"] == "bad_nickname"
    await x.send("create", {"nickname": "x", "settings": {"public": "yes"}})
    assert (await x.expect("reject"))["code"] == "bad_settings"
    await x.send("create", {"nickname": "x", "settings": {"quick": 5}})
    assert (await x.expect("reject"))["code"] == "bad_settings"
    await x.create("x")
    await x.send("lobby", {"on": True})
    assert (await x.expect("reject"))["code"] == "already_in_room"


async def test_one_address_lists_only_so_many_public_rooms(
        own_redis: RedisServer, servers: Servers, clients: Any) -> None:
    capped = servers.start(own_redis.url, args=["--public-per-address", "2"])
    made = []
    for name in ("p1", "p2"):
        c: Client = await clients(capped, name)
        await c.create(name, public=True)
        made.append(c)
    third: Client = await clients(capped, "p3")
    await third.send("create", {"nickname": "p3", "settings": {"public": True}})
    refused = await third.expect("reject")
    assert refused["code"] == "too_many" and "public rooms" in refused["msg"]
    await third.create("p3")  # a private room is another matter


async def test_a_lobby_gets_one_list_an_interval_at_most_however_many_rooms_change(
        two: tuple[ServerProcess, ServerProcess], clients: Any) -> None:
    a, b = two
    hosts = []
    for i in range(40):  # (from as many addresses: a list shows one room of each)
        host = await Client.open(a.ws_url, f"h{i}", address=f"198.51.100.{i + 1}")
        await host.create(f"h{i}", public=True, max_players=8)
        hosts.append(host)
    looker = await lobby(b, clients)
    await eventually(lambda: sum(r["phase"] == "lobby" for r in listed(looker).values()) == 12,
                     what="a full list")
    begun, before = time.monotonic(), len(rooms_frames(looker))
    for i, host in enumerate(hosts):  # every room changes, again and again
        guest: Client = await clients(b, f"g{i}")
        await guest.join(host.room, f"g{i}")
    elapsed = time.monotonic() - begun
    frames = rooms_frames(looker)[before:]
    assert len(frames) <= elapsed / INTERVAL + 2  # one list an interval, whatever changed
    sizes = [len(f) for f in looker.raw if f.startswith('{"t":"rooms"')]
    assert all(len(d["rooms"]) <= 20 for d in rooms_frames(looker))
    assert max(sizes) < 8000  # a list's size is bounded too
    assert rooms_frames(looker)[-1]["waiting"] >= 40
    for host in hosts:
        await host.close()


async def test_a_few_addresses_cannot_fill_the_list_and_lobbies_nobody_joins_leave_it(
        own_redis: RedisServer, servers: Servers, clients: Any, tmp_path: Path) -> None:
    """Four addresses list three idle rooms each: the list shows the newest
    room first, one room per address, so a real room is listed beside
    theirs; minutes later, with nobody joining them, theirs have left it
    (docs/protocol.md, "Races to find")."""
    clock = TestClock(tmp_path / "clock")
    clock.path.write_text("0")
    server = servers.start(own_redis.url, args=[*ARGS, "--clock-offset-file", str(clock.path)])
    opened = []
    for a in range(4):
        for k in range(3):
            squat = await Client.open(server.ws_url, f"s{a}{k}", address=f"198.51.100.{a + 1}")
            await squat.create(f"s{a}{k}", public=True)
            opened.append(squat)
    real = await Client.open(server.ws_url, "real", address="203.0.113.50")
    await real.create("real", public=True)
    guest = await Client.open(server.ws_url, "guest", address="203.0.113.51")
    opened += [real, guest]
    try:
        looker = await lobby(server, clients)
        latest = await eventually(lambda: rooms_frames(looker) and rooms_frames(looker)[-1][
            "waiting"] == 13 and rooms_frames(looker)[-1], what="every room listed")
        shown = latest["rooms"]
        assert shown[0]["id"] == real.room  # the newest first
        assert sorted(r["host"][:2] for r in shown[1:]) == ["s0", "s1", "s2", "s3"]  # one each
        assert [r["host"] for r in shown[1:]] == ["s32", "s22", "s12", "s02"]  # their newest
        clock.move(4 * 60_000)
        await clock.seen(looker)
        await guest.join(real.room, "guest")  # someone joins the real room
        clock.move(2 * 60_000)  # the others: six minutes with nobody coming
        await clock.seen(looker)
        await eventually(lambda: [r["id"] for r in rooms_frames(looker)[-1]["rooms"]] == [
            real.room] and rooms_frames(looker)[-1]["waiting"] == 1, timeout=30, what="the idle ones gone")
    finally:
        for c in opened:
            await c.close()


async def test_what_a_process_killed_mid_way_left_listed_is_mended_by_the_lobbies(
        two: tuple[ServerProcess, ServerProcess], module_redis: RedisServer,
        clients: Any) -> None:
    """A race listed whose room is gone, and a room listed as waiting whose
    race has started (its process died between the commit and the list)."""
    a, b = two
    redis = module_redis.client()
    redis.zadd(keys.PUBLIC_KEYS[1], {"GONEGONE": 1})
    redis.hset(keys.PUBLIC_KEYS[2], "GONEGONE", "10.0.0.9")
    redis.hset(keys.PUBLIC_KEYS[3], "10.0.0.9", 1)
    ann, _ = await public_race(a, a, clients)
    redis.zrem(keys.PUBLIC_KEYS[1], ann.room)  # as if listed before the start, never moved
    redis.zadd(keys.PUBLIC_KEYS[0], {ann.room: 1})
    looker = await lobby(b, clients)
    await eventually(lambda: redis.zscore(keys.PUBLIC_KEYS[1], "GONEGONE") is None
                     and redis.hget(keys.PUBLIC_KEYS[3], "10.0.0.9") is None, what="the gone race unlisted")
    await eventually(lambda: listed(looker).get(ann.room, {}).get("phase") in ("countdown",
                                                                              "racing"),
                     what="the started race moved")
    assert redis.zscore(keys.PUBLIC_KEYS[0], ann.room) is None


async def test_a_quick_player_refused_for_a_taken_nickname_gives_the_seat_back(
        two: tuple[ServerProcess, ServerProcess], clients: Any) -> None:
    a, b = two
    quick = {"draw": 3, "scoring": "N"}
    ann: Client = await clients(a, "ann", "198.51.100.1")
    await identify(ann)
    await ann.send("quick", {"nickname": "ann", **quick})
    await ann._joined()
    again: Client = await clients(b, "ann-too", "198.51.100.3")
    await identify(again)
    await again.send("quick", {"nickname": "ANN", **quick})
    assert (await again.expect("reject"))["code"] == "name_taken"
    bob: Client = await clients(b, "bob", "198.51.100.2")
    await identify(bob)
    await bob.send("quick", {"nickname": "bob", **quick})
    assert (await bob._joined())["room"] == ann.room  # the same quick race, its seat still there
    await ann.event("start")  # and it starts with its second player


async def test_a_quick_races_watcher_sees_each_racers_line_live_and_the_boards_after_the_race(
        two: tuple[ServerProcess, ServerProcess], clients: Any) -> None:
    """Issue 25, item 6: something to watch, and nothing to learn. Every
    racer of a quick race plays one deal, so a board of an opponent, even
    15 s late, shows cards still face down in the watcher's own game when
    the watcher is a racer's second tab (no token: not refused
    ``own_race``). So a quick race's watchers get each racer's line (status,
    cards home, dollars, moves) with every move, and no board until the race
    has ended (docs/protocol.md, "Races to find")."""
    a, b = two
    ann: Client = await clients(a, "ann", "198.51.100.11")
    bob: Client = await clients(b, "bob", "198.51.100.12")
    await asyncio.gather(identify(ann), identify(bob))
    await ann.send("quick", {"nickname": "ann", "draw": 3, "scoring": "N"})
    await ann._joined()
    await bob.send("quick", {"nickname": "bob", "draw": 3, "scoring": "N"})
    assert (await bob._joined())["room"] == ann.room
    start = await ann.event("start")
    assert start["room"]["settings"]["boards"] == "after"
    await bob.event("start")
    await asyncio.gather(ann.expect("board"), bob.expect("board"))  # dealt: the race runs
    tab: Client = await clients(a, "bob-second-tab", "198.51.100.12")  # bob's own address
    await tab.send("watch", {"room": ann.room, "since": 0})
    await tab.expect("watching")
    await tab.expect("sync")
    await ann.move("draw")
    await bob.move("draw")
    await bob.move("draw")
    lb = await tab.expect("lb", lambda d: {e["nickname"]: e["moves"] for e in d["entries"]}
                          == {"ann": 1, "bob": 2})
    assert all({"foundation", "vegas", "points", "status"} <= set(e) for e in lb["entries"])
    await ann.move("draw")
    await tab.expect("lb", lambda d: any(e["nickname"] == "ann" and e["moves"] == 2
                                         for e in d["entries"]))
    assert not any(f["t"] == "boards" for f in tab.frames)
    for racer in (ann, bob):
        await racer.command("resign")
    await tab.event("ended")
    boards = await tab.expect("boards")
    assert set(boards["boards"]) == {"0", "1"}


async def test_a_rooms_link_card_says_its_host_mode_and_players_and_nothing_of_its_deal(
        two: tuple[ServerProcess, ServerProcess], clients: Any) -> None:
    """Issue 25, item 6: a friend's link shows who hosts, the mode and how
    many have joined before one joins (``GET /api/rooms/{id}/card``: the room
    as the lobby lists public ones, a private room's too, for its link's
    holder). A bad or unknown id is a 404 with a JSON error."""
    a, b = two
    ann: Client = await clients(a, "ann")
    await ann.create("ann", code="KL1-D3V-AAPIVDJ", max_players=4)  # private, a chosen deal
    card = await http_get(b, f"/api/rooms/{ann.room.lower()}/card")
    assert card.status == 200
    assert {k: card.json()[k] for k in ("id", "host", "mode", "players", "max", "phase", "deal")} == {
        "id": ann.room, "host": "ann", "mode": "D3V", "players": 1, "max": 4, "phase": "lobby",
        "deal": "chosen"}
    bob: Client = await clients(b, "bob")
    await bob.join(ann.room, "bob")
    assert (await http_get(a, f"/api/rooms/{ann.room}/card")).json()["players"] == 2
    assert "AAPIVDJ" not in card.text
    for path in ("/api/rooms/ZZZZZZZZ/card", "/api/rooms/nope!/card"):
        missing = await http_get(a, path)
        assert (missing.status, missing.json()["error"]) == (404, "unknown_room")
