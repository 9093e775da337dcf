"""Big tournaments (more than 16 players) with a few players each: the
organizer's features and the standings' lookups, one at a time
(docs/protocol.md, "Big tournaments"). The 60-player tournament is in
test_big_tournament_60.py."""

from __future__ import annotations

import csv
import io
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Final

import orjson
import pytest
import redis
from harness import Client, RedisServer, ServerProcess, load_wins
from race_support import Clock, app_on, start_fast_server
from tournament_support import (
    Entrant,
    Organizer,
    http_get,
    reject_of,
    replay_of,
    t_seen,
    whole_replay,
)

from server.app.rooms.ids import round_room_id
from server.race.ranking import standing_score
from server.race.tokens import hash_token
from server.store import Store, keys

CODE: Final = "KL1-D1V-ACT552B"
SCRIPT: Final = next(w["script"] for w in load_wins() if w["code"] == CODE)
TICK: Final = "0.3"


@pytest.fixture(scope="module")
def server(redis_server: RedisServer, tmp_path_factory: pytest.TempPathFactory
           ) -> Iterator[ServerProcess]:
    yield from start_fast_server(redis_server, tmp_path_factory, "--tick", TICK)


@pytest.fixture
def clients(connect: type[Client]) -> type[Client]:
    """``await clients("name")``: the module's opener (conftest's ``connect``)."""
    return connect


async def big(clients: Any, *names: str, url: str | None = None,
              **settings: Any) -> tuple[Organizer, list[Entrant]]:
    org = Organizer(await clients("org", url))
    sync = await org.create("Big night", **{"codes": [CODE, CODE], "time_limit": 600,
                                            "max_players": 100, **settings})
    assert sync["tournament"]["settings"]["big"] is True
    entrants = [Entrant(await clients(n, url), n) for n in names]
    for e in entrants:
        await e.register(org.id)
    return org, entrants


async def test_a_round_is_one_big_room_and_ends_when_every_player_who_may_play_is_done(
        clients: Any) -> None:
    org, (ann, bob, cat) = await big(clients, "ann", "bob", "cat")
    room = await org.start(1)
    await ann.enter(room, CODE)
    await ann.play(SCRIPT)  # ann finishes first: the round goes on for bob and cat
    await bob.enter(room, CODE)
    await bob.resign()
    await cat.enter(room, CODE)
    await cat.play(SCRIPT[:5])
    await cat.resign()
    ended = await t_seen(org.client, "round_ended", 1)
    top = ended["tournament"]["top"]
    assert [line["nickname"] for line in top] == ["ann", "cat", "bob"]
    assert [line["rank"] for line in top] == [1, 2, 3]
    me = await cat.client.expect("t_me", lambda d: d["line"]["rounds"])
    assert (me["rank"], me["of"], me["above"]["nickname"], me["below"]["nickname"]) == (
        2, 3, "ann", "bob")


async def test_registrations_are_counted_not_announced(clients: Any) -> None:
    org, _ = await big(clients, "ann")
    watcher = await clients("watcher")
    await watcher.send("t_watch", {"id": org.id})
    sync = await watcher.expect("t_sync")
    assert sync["tournament"]["field"]["players"] == 1 and "players" not in sync["tournament"]
    for name in ("bob", "cat"):
        await Entrant(await clients(name), name).register(org.id)
    field = await watcher.expect("t_field", lambda d: d["field"]["players"] == 3)
    assert field == {"id": org.id, "field": {"players": 3, "withdrawn": 0, "kicked": 0}}
    assert not [f for f in watcher.frames if f["t"] == "t_event"]


async def test_pages_of_the_standings_a_nickname_and_each_players_own_place(clients: Any) -> None:
    names = [f"p{i:02d}" for i in range(12)]
    org, people = await big(clients, *names, top=3)
    room = await org.start(1)
    for i, e in enumerate(people):  # p00 plays most, p11 least
        await e.enter(room, CODE)
        await e.play(SCRIPT[:24 - 2 * i])
        await e.resign()
    ended = await t_seen(org.client, "round_ended", 1)
    games = {e.nickname: e.racer.game for e in people if e.racer is not None}
    order = sorted(names, key=lambda n: (-games[n].vegas, -games[n].foundation_cards, n))
    assert [line["nickname"] for line in ended["tournament"]["top"]] == order[:3]
    client = org.client
    await client.send("t_page", {"id": org.id, "first": 4, "count": 5})
    page = await client.expect("t_page")
    assert (page["id"], page["first"], page["of"]) == (org.id, 4, 12)
    assert [(line["rank"], line["nickname"]) for line in page["lines"]] == list(
        enumerate(order[3:8], start=4))
    for line in page["lines"]:
        game = games[line["nickname"]]
        assert (line["vegas"], line["foundation"], line["played"]) == (
            game.vegas, game.foundation_cards, 1)
    assert (await reject_of(client, "t_page", {"id": org.id, "count": 51}))["code"] == "bad_field"
    await client.send("t_find", {"id": org.id, "nickname": "P1O"})  # folded: 1 and 0 look alike
    found = await client.expect("t_found")
    assert (found["player"], found["rank"], found["line"]["nickname"]) == (
        10, order.index("p10") + 1, "p10")
    assert (await reject_of(client, "t_find", {"id": org.id, "nickname": "nobody"}))[
        "code"] == "unknown_seat"
    for e in people:
        me = await e.client.expect("t_me", lambda d: d["line"]["rounds"])
        rank = order.index(e.nickname) + 1
        assert (me["id"], me["rank"], me["of"], me["line"]["nickname"]) == (org.id, rank, 12,
                                                                            e.nickname)
        assert (me["above"] or {}).get("nickname") == (order[rank - 2] if rank > 1 else None)
        assert (me["below"] or {}).get("nickname") == (order[rank] if rank < 12 else None)
        game = games[e.nickname]
        status, vegas, cards, finish_ms, moves, round_rank = me["line"]["rounds"][0]
        assert (status, vegas, cards, finish_ms, moves) == (
            "resigned", game.vegas, game.foundation_cards, None, game.moves)
        assert 1 <= round_rank <= 12


async def test_registering_needs_the_invite_code_and_codes_and_tokens_are_kept_hashed(
        clients: Any, redis_server: RedisServer) -> None:
    org = Organizer(await clients("org"))
    await org.client.send("t_create", {"name": "Invited", "settings": {
        "codes": [CODE], "max_players": 50, "invite": True}})
    created = await org.client.expect("t_created")
    org.id, org.admin, invite = created["id"], created["admin"], created["invite"]
    assert len(invite) == 8
    sync = await org.client.expect("t_sync")
    assert sync["tournament"]["settings"]["invite"] is True
    ann = await clients("ann")
    for d in ({}, {"invite": "WRONG123"}, {"invite": None}):
        reply = await reject_of(ann, "t_register", {"id": org.id, "nickname": "ann", **d})
        assert reply["code"] == "bad_invite", d
    await ann.send("t_register", {"id": org.id, "nickname": "ann", "invite": invite.lower()})
    registered = await ann.expect("t_registered")
    assert registered["player"] == 0
    small = await clients("small org")
    await small.send("t_create", {"name": "Small", "settings": {"codes": [CODE], "invite": True}})
    small_invite = (await small.expect("t_created"))["invite"]
    small_id = (await small.expect("t_sync"))["tournament"]["id"]
    assert (await reject_of(ann, "t_register", {"id": small_id, "nickname": "ann"}))[
        "code"] == "bad_invite"
    await ann.send("t_register", {"id": small_id, "nickname": "ann", "invite": small_invite})
    await ann.expect("t_registered")
    r = redis.Redis.from_url(redis_server.url)
    try:
        for tid, code in ((org.id, invite), (small_id, small_invite), (org.id, org.admin),
                          (org.id, registered["token"])):
            for key in r.scan_iter(f"kt:{{{tid}}}:*"):
                kind = r.type(key).decode()
                values = {"hash": lambda k: b"".join(r.hgetall(k).values()),
                          "list": lambda k: b"".join(r.lrange(k, 0, -1)),
                          "string": lambda k: r.get(k) or b"",
                          "set": lambda k: b"".join(r.smembers(k)),
                          "zset": lambda k: b"".join(r.zrange(k, 0, -1))}[kind](key)
                assert code.encode() not in values, key
    finally:
        r.close()


async def test_a_kick_takes_the_player_out_of_the_round_and_the_standings_and_a_ban_keeps_them_out(
        clients: Any) -> None:
    org, (ann, bob, cat) = await big(clients, "ann", "bob", "cat", late_until=2)
    room = await org.start(1)
    for e in (ann, bob, cat):
        await e.enter(room, CODE)
    await bob.play(SCRIPT[:10])
    refused = await reject_of(ann.client, "t_kick", {"id": org.id, "admin": ann.token, "player": 1})
    assert refused["code"] == "not_host"
    await org.client.send("t_kick", {"id": org.id, "admin": org.admin, "player": 1, "ban": True})
    kicked = await t_seen(org.client, "kicked")
    assert (kicked["player"], kicked["ban"]) == (1, True)
    assert await bob.client.closed() == 4001  # out of the round's room
    assert (await reject_of(org.client, "t_kick", {"id": org.id, "admin": org.admin,
                                                     "player": 1}))["code"] == "unknown_seat"
    again = await clients("bob again")
    assert (await reject_of(again, "t_resume", {"id": org.id, "token": bob.token}))[
        "code"] == "bad_token"
    for name in ("bob", "BOB", "b0b"):
        assert (await reject_of(again, "t_register", {"id": org.id, "nickname": name}))[
            "code"] == "banned", name
    await org.client.send("t_kick", {"id": org.id, "admin": org.admin, "player": 2})
    await t_seen(org.client, "kicked")  # cat, not banned: may come back as a new player
    assert await cat.client.closed() == 4001
    cat2 = Entrant(await clients("cat 2"), "cat")
    assert (await cat2.register(org.id))["player"] == 3
    await ann.play(SCRIPT)  # ann is the only one left who may play: the round ends
    ended = await t_seen(org.client, "round_ended", 1)
    assert [line["nickname"] for line in ended["tournament"]["top"]] == ["ann", "cat"]
    assert ended["tournament"]["field"] == {"players": 2, "withdrawn": 0, "kicked": 2}
    await org.client.send("t_page", {"id": org.id, "first": 1, "count": 50})
    page = await org.client.expect("t_page")
    assert [(line["player"], line["vegas"]) for line in page["lines"]] == [(0, 208), (3, -52)]


async def test_the_admin_key_moves_to_another_device_with_a_one_time_code(clients: Any) -> None:
    org, (ann,) = await big(clients, "ann")
    refused = await reject_of(ann.client, "t_handoff", {"id": org.id, "admin": ann.token})
    assert refused["code"] == "not_host"
    await org.client.send("t_handoff", {"id": org.id, "admin": org.admin})
    handoff = await org.client.expect("t_handoff")
    code = handoff["code"]
    hello = next(f["d"] for f in org.client.frames if f["t"] == "hello")
    assert len(code) == 10 and handoff["until"] >= hello["now"] + 9 * 60 * 1000
    phone = await clients("phone")
    assert (await reject_of(phone, "t_claim", {"id": org.id, "code": code[::-1]}))[
        "code"] == "bad_handoff"
    await phone.send("t_claim", {"id": org.id, "code": code.lower()})
    claimed = await phone.expect("t_claimed")
    assert claimed["id"] == org.id and claimed["admin"] not in (org.admin, code)
    await phone.expect("t_sync")
    other = await clients("other")
    assert (await reject_of(other, "t_claim", {"id": org.id, "code": code}))[
        "code"] == "bad_handoff"  # used
    # the new key organizes; the old one still does
    await phone.send("t_start", {"id": org.id, "admin": claimed["admin"]})
    room = (await t_seen(phone, "round_started", 1))["room"]
    await ann.enter(room, CODE)
    await org.client.send("t_end", {"id": org.id, "admin": org.admin})
    await t_seen(phone, "round_ended", 1)


async def server_now(client: Client) -> int:
    await client.send("ping")
    return int((await client.expect("pong"))["now"])


async def test_rounds_start_at_a_set_time_then_an_interval_after_the_last_ended_and_late_players_join(
        clients: Any) -> None:
    """Round 1 starts by itself at its set time, round 2 two seconds after
    round 1 ended; registration stays open until round 2 starts: a player
    who registers during round 1 missed it (−52 $) and plays round 2. Once
    it is closed, a banned name is still told it is banned."""
    org = Organizer(await clients("org"))
    at = await server_now(org.client) + 4000
    await org.create("Scheduled", codes=[CODE, CODE], time_limit=600, max_players=40,
                     starts=[at], interval=2, late_until=2)
    ann, cat = Entrant(await clients("ann"), "ann"), Entrant(await clients("cat"), "cat")
    await ann.register(org.id)
    await cat.register(org.id)
    await org.client.send("t_kick", {"id": org.id, "admin": org.admin, "player": 1, "ban": True})
    await t_seen(org.client, "kicked")
    starting = await t_seen(org.client, "round_starting", 1, timeout=15)
    assert starting["start_at"] == at
    room1 = (await t_seen(org.client, "round_started", 1))["room"]
    late = Entrant(await clients("late"), "late")
    await late.register(org.id)  # during round 1: it counts as missed
    await late.client.send("resume", {"room": room1, "token": late.token, "since": 0})
    assert (await late.client.expect("reject"))["code"] == "bad_token"
    await ann.enter(room1, CODE)
    await ann.resign()
    ended = await t_seen(org.client, "round_ended", 1)
    room2_start = await t_seen(org.client, "round_starting", 2, timeout=15)
    assert room2_start["start_at"] >= ended["tournament"]["rounds"][0]["ended_at"] + 2000
    room2 = (await t_seen(org.client, "round_started", 2))["room"]
    assert room2_start["tournament"]["registration"] is False  # round 2 started: closed
    for name, code in (("zed", "race_started"), ("CAT", "banned")):
        assert (await reject_of(late.client, "t_register", {"id": org.id, "nickname": name}))[
            "code"] == code, name
    assert room2_start["tournament"]["rounds"][1]["players"] is None
    started2 = await t_seen(org.client, "round_started", 2)
    assert started2["tournament"]["rounds"][1]["players"] == 3  # numbers 0-2: cat's seat closed
    for e in (ann, late):
        await e.enter(room2, CODE)
    await late.play(SCRIPT)
    await ann.resign()
    final = await t_seen(org.client, "round_ended", 2)
    top = {line["nickname"]: line for line in final["tournament"]["top"]}
    assert top["late"]["rounds"][0] == ["missed", -52, 0, None, 0, None]
    assert top["late"]["vegas"] == -52 + 208 and top["ann"]["vegas"] == -104
    assert [r["played"] for r in final["tournament"]["rounds"]] == [1, 2]


async def test_a_withdrawal_is_answered_not_announced_and_a_no_show_holds_the_round_to_its_limit(
        clients: Any, own_redis: RedisServer, tmp_path: Path) -> None:
    """On a server of the test's process whose clock the test moves on to the
    round's limit once the others are done (however long they took)."""
    clock = Clock()
    async with app_on(own_redis, tmp_path, clock, tick=float(TICK)) as served:
        await a_no_show_holds_the_round_to_its_limit(clients, served.ws_url, clock)


async def a_no_show_holds_the_round_to_its_limit(clients: Any, url: str, clock: Clock) -> None:
    org, (ann, bob, _cat) = await big(clients, "ann", "bob", "cat", url=url)
    room = await org.start(1)
    await ann.enter(room, CODE)
    await ann.play(SCRIPT[:20])
    await bob.client.send("t_withdraw", {"id": org.id, "token": bob.token})  # never came
    withdrawn = await bob.client.expect("t_withdrawn")
    assert withdrawn == {"id": org.id, "player": 1}
    assert (await reject_of(bob.client, "t_withdraw", {"id": org.id, "token": bob.token}))[
        "code"] == "not_playing"
    spare = await clients("bob in round 1", url)
    await spare.send("resume", {"room": room, "token": bob.token, "since": 0})
    assert (await spare.expect("reject"))["code"] == "bad_token"  # his seat was closed
    await ann.resign()  # cat never comes: the round waits for its time limit
    clock.ahead += 600
    ended = await t_seen(org.client, "round_ended", 1, timeout=20)
    r = ended["tournament"]["rounds"][0]
    assert r["ended_at"] >= r["start_at"] + 600_000
    assert not [f for f in org.client.frames if f["t"] == "t_event" and f["d"]["kind"] == "withdrawn"]
    lines = {line["nickname"]: line for line in ended["tournament"]["top"]}
    assert lines["bob"]["withdrawn"] is True and lines["bob"]["vegas"] == -52
    assert lines["cat"]["rounds"] == [["missed", -52, 0, None, 0, None]]
    assert ended["tournament"]["rounds"][0]["played"] == 1
    assert ended["tournament"]["field"]["withdrawn"] == 1


async def test_results_csv_and_replays_of_a_big_tournament_come_a_page_at_a_time(
        clients: Any, server: ServerProcess) -> None:
    names = [f"p{i}" for i in range(5)]
    org, people = await big(clients, *names)
    room = await org.start(1)
    for i, e in enumerate(people[:4]):  # p4 never comes
        await e.enter(room, CODE)
        await e.play(SCRIPT if i == 0 else SCRIPT[:3 * i])
        if i:
            await e.resign()
    await org.client.send("t_end", {"id": org.id, "admin": org.admin})
    ended = await t_seen(org.client, "round_ended", 1)
    games = {e.player: e.racer.game for e in people if e.racer is not None}
    base = f"/api/tournaments/{org.id}"
    body = (await http_get(server, f"{base}/results?first=2&count=2")).json()
    assert (body["id"], body["name"], body["first"], body["of"]) == (org.id, "Big night", 2, 5)
    assert body["rounds"] == ended["tournament"]["rounds"]
    whole = (await http_get(server, f"{base}/results")).json()
    assert [line["rank"] for line in whole["standings"]] == [1, 2, 3, 4, 5]
    assert body["standings"] == whole["standings"][1:3]
    assert whole["standings"][0]["nickname"] == "p0" and whole["standings"][0]["wins"] == 1
    for first, count in (("0", "1"), ("1", "0"), ("1", "1001"), ("x", "1")):
        reply = await http_get(server, f"{base}/results?first={first}&count={count}")
        assert reply.status == 400 and reply.json()["error"] == "bad_field", (first, count)
    text = (await http_get(server, f"{base}/results.csv?first=1&count=2")).text
    rows = list(csv.reader(io.StringIO(text)))
    assert rows[0][0] == "player" and len(rows) == 1 + 2 * 2
    g = games[0]
    assert rows[1] == ["0", "p0", "1", CODE, "1", "finished", "208", "52", str(g.moves),
                       str(whole["standings"][0]["time_ms"]), "1"]
    assert rows[2][2] == "total" and rows[2][-1] == "1"
    steps = (await whole_replay(server, org.id, 1, 1))["steps"]
    assert [s["command"] for s in steps] == [None, *people[1].commands]
    missing = await replay_of(server, org.id, 1, 4)  # never came
    assert missing.status == 404 and missing.json()["error"] == "unknown_seat"


async def test_a_recording_cut_short_is_finished_once_by_the_next_settle(
        clients: Any, redis_server: RedisServer) -> None:
    """A process died while adding a round's results to the standings: some
    lines count the round, some do not, the round is still running. The
    next look (any process's sweeper) finishes it, and no line counts the
    round twice."""
    names = [f"p{i}" for i in range(6)]
    org, people = await big(clients, *names)
    room = await org.start(1)
    for i, e in enumerate(people):
        await e.enter(room, CODE)
        await e.play(SCRIPT[:2 + 3 * i])
        await e.resign()
    ended = await t_seen(org.client, "round_ended", 1)
    await org.client.send("t_page", {"id": org.id, "count": 50})
    counted = (await org.client.expect("t_page"))["lines"]
    r = redis.Redis.from_url(redis_server.url)
    store = await Store.open(redis_server.url)
    try:  # undo the round's end, and round 1 in players 0, 2, 4's lines
        for p in (0, 2, 4):
            line = orjson.loads(r.hget(keys.standings(org.id), p))
            line.update(vegas=0, foundation=0, played=0, rounds=[])
            r.hset(keys.standings(org.id), p, orjson.dumps(line))
            r.zadd(keys.standings_rank(org.id), {f"{p:05d}": standing_score(line)})
        loaded = await store.tournaments.load_tournament(org.id)
        assert loaded is not None
        t, rv, _ = loaded
        t.rounds[0].status, t.rounds[0].ended_at, t.rounds[0].played = "running", None, None
        assert (await store.tournaments.commit_tournament(t, rv, [], ttl_ms=86_400_000)).ok
        await store.indexes.tournament_due_add(org.id, int(time.time() * 1000))
    finally:
        await store.close()
    again = await org.client.expect("t_event", lambda d: d["kind"] == "round_ended", timeout=15)
    assert again["v"] > ended["v"] and again["tournament"]["rounds"][0]["played"] == 6
    await org.client.send("t_page", {"id": org.id, "count": 50})
    assert (await org.client.expect("t_page"))["lines"] == counted
    for p in range(6):
        assert len(orjson.loads(r.hget(keys.standings(org.id), p))["rounds"]) == 1
    r.close()


async def test_a_big_round_left_starting_by_a_dead_process_is_opened_with_its_seats(
        redis_server: RedisServer, clients: Any) -> None:
    """The start committed, then the process died before the round's room
    existed, and a player withdrew meanwhile: a sweeper creates the room,
    closes the withdrawn player's seat, and the round ends when the others
    are done."""
    org, (ann, bob) = await big(clients, "ann", "bob")
    room = round_room_id(org.id, 1)
    store = await Store.open(redis_server.url)
    try:
        now = int(time.time() * 1000)
        await store.indexes.tournament_due_add(org.id, now)
        data = await store.tournaments.load_tournament_data(org.id)
        assert data is not None
        data.t.start_round(now=now, start_at=now + 500, room_id=room, entrants=2)
        assert (await store.tournaments.commit_tournament(data.t, data.rv, [], ttl_ms=86_400_000)).ok
        assert await store.tournaments.take_out_player(org.id, kind="withdrawn",
                                           token_hash=hash_token(bob.token)) == ("ok", 1)
    finally:
        await store.close()
    started = await t_seen(org.client, "round_started", 1, timeout=15)
    assert started["room"] == room and started["tournament"]["rounds"][0]["players"] == 2
    await ann.enter(room, CODE)
    await ann.resign()  # bob's seat is closed: ann was the last who could play
    ended = await t_seen(org.client, "round_ended", 1)
    assert ended["tournament"]["rounds"][0]["played"] == 1


async def test_a_small_tournament_has_the_organizers_features_too(clients: Any) -> None:
    """A tournament of up to 16 keeps its whole document and events, and
    gets the same organizer's features: late registration, a kick with a
    ban, a round starting by itself, the admin key handed to a phone."""
    org = Organizer(await clients("org"))
    sync = await org.create("Small club", codes=[CODE, CODE], time_limit=600, interval=2,
                            late_until=2)
    assert sync["tournament"]["settings"]["interval"] == 2 and "big" not in sync["tournament"][
        "settings"]
    ann, bob, cat = [Entrant(await clients(n), n) for n in ("ann", "bob", "cat")]
    for e in (ann, bob, cat):
        await e.register(org.id)
    room1 = await org.start(1)
    for e in (ann, bob, cat):
        await e.enter(room1, CODE)
    dan = Entrant(await clients("dan"), "dan")
    assert (await dan.register(org.id))["player"] == 3  # late: round 1 is under way
    await org.client.send("t_kick", {"id": org.id, "admin": org.admin, "player": 2, "ban": True})
    kicked = await t_seen(org.client, "kicked")
    assert kicked["tournament"]["players"][2] == {"player": 2, "nickname": "cat",
                                                  "withdrawn": False, "kicked": True}
    assert [line["nickname"] for line in kicked["tournament"]["standings"]] == ["ann", "bob", "dan"]
    assert (await reject_of(dan.client, "t_register", {"id": org.id, "nickname": "CAT"}))[
        "code"] == "banned"
    await ann.play(SCRIPT)
    await bob.resign()
    ended = await t_seen(org.client, "round_ended", 1)
    assert sorted(e["seat"] for e in ended["tournament"]["rounds"][0]["results"]) == [0, 1, 2]
    started = await t_seen(org.client, "round_started", 2, timeout=15)
    assert started["tournament"]["rounds"][1]["seats"] == [0, 1, 3]
    assert started["start_at"] >= ended["tournament"]["rounds"][0]["ended_at"] + 2000
    assert started["tournament"]["registration"] is False
    await org.client.send("t_handoff", {"id": org.id, "admin": org.admin})
    code = (await org.client.expect("t_handoff"))["code"]
    phone = await clients("phone")
    await phone.send("t_claim", {"id": org.id, "code": code})
    admin2 = (await phone.expect("t_claimed"))["admin"]
    await phone.send("t_end", {"id": org.id, "admin": admin2})
    final = await t_seen(phone, "round_ended", 2)
    table = {line["nickname"]: line for line in final["tournament"]["standings"]}
    assert set(table) == {"ann", "bob", "dan"}
    assert table["dan"]["rounds"][0] == {"round": 1, "played": False, "vegas": -52,
                                         "foundation": 0, "finish_ms": None}
    assert table["ann"]["vegas"] == 208 - 52 and table["dan"]["vegas"] == -104
    # over: the standings are final, nobody is taken out of them any more
    refused = await reject_of(phone, "t_kick", {"id": org.id, "admin": admin2, "player": 0,
                                                "ban": True})
    assert (refused["code"], refused["msg"]) == ("not_lobby",
                                                 "the tournament is over: its standings are final")
