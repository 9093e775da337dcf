"""Rated races over two server processes with real Redis: a quick race is
rated and its players need a key; each result moves every rated player's
rating once, as openskill's Plackett–Luce computes it here independently;
a race whose ending process died before its ratings were applied is
finished by the other process's sweeper, applying what was missing and
nothing twice; the top list and the player's page; a forgotten player
leaves the top list; bad input gets a 4xx JSON answer."""

from __future__ import annotations

import asyncio
import itertools
import json
import time
import urllib.error
import urllib.request
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from typing import Any

import pytest
from harness import Client, RedisServer, ServerProcess, Servers, eventually
from openskill.models import PlackettLuce
from support.player import identify, public, refused

from server.app.ground.config import Config
from server.app.players.ratings import Ratings
from server.app.rooms.room_service import Rooms
from server.race.rating import Rating, placings
from server.store import Store, keys

ARGS = ["--quick-wait", "1", "--proxy-header", "X-Forwarded-For"]
_addresses = itertools.count(1)


@pytest.fixture(scope="module")
def two(module_redis: RedisServer, tmp_path_factory: pytest.TempPathFactory
        ) -> Iterator[tuple[ServerProcess, ServerProcess]]:
    group = Servers(tmp_path_factory.mktemp("ratings"))
    a = group.start(module_redis.url, args=ARGS, name="a")
    b = group.start(module_redis.url, args=ARGS, name="b")
    yield a, b
    problems = group.close()
    assert not problems, "server logged errors:\n" + "\n".join(problems)


@pytest.fixture
async def clients() -> AsyncIterator[Callable[..., Awaitable[Client]]]:
    """``await clients(server, "name")``: a client from an address of its own
    (``address=``: a given one), closed after the test."""
    opened: list[Client] = []

    async def open_(server: ServerProcess, name: str, address: str | None = None) -> Client:
        where = address or f"2001:db8:{next(_addresses):x}::1"
        client = await Client.open(server.ws_url, name, address=where)
        opened.append(client)
        return client

    yield open_
    for client in opened:
        await client.close()


async def get(server: ServerProcess, path: str) -> tuple[int, dict[str, Any]]:
    def fetch() -> tuple[int, dict[str, Any]]:
        try:
            with urllib.request.urlopen(f"{server.http_url}{path}", timeout=5) as resp:
                return int(resp.status), json.loads(resp.read())
        except urllib.error.HTTPError as exc:
            with exc:
                return exc.code, json.loads(exc.read())
    return await asyncio.to_thread(fetch)


def expected(results: list[dict[str, Any]], players: dict[int, str],
             before: dict[str, tuple[float, float]]) -> dict[str, tuple[float, float]]:
    """openskill's ratings after a race, by the rules: places from the
    results (a give-up last), each player one team."""
    lines = [(players[r["seat"]], r["status"], r["rank"]) for r in results if r["seat"] in players]
    placed = placings(lines)
    model = PlackettLuce()
    teams = [[model.rating(mu=before[p][0], sigma=before[p][1])] for p, _ in placed]
    after = model.rate(teams, ranks=[place for _, place in placed])
    return {p: (t[0].mu, t[0].sigma) for (p, _), t in zip(placed, after, strict=True)}


def stored(r: Any, player: str, family: str = "d1") -> tuple[float, float, int]:
    mu, sigma, races, _ = r.hget(keys.player(player), f"r:{family}").decode().split()
    return float(mu), float(sigma), int(races)


async def test_a_rated_race_needs_player_keys(two: tuple[ServerProcess, ServerProcess],
                                              clients: Any) -> None:
    a, _ = two
    anon: Client = await clients(a, "anon")
    assert (await refused(anon, "quick", {"nickname": "x", "draw": 1}))["code"] == "not_identified"
    assert (await refused(anon, "create", {"nickname": "x", "settings": {"public": True, "rated": True}})
            )["code"] == "not_identified"
    host: Client = await clients(a, "host")
    await identify(host, nickname="host")
    for settings, why in (({"rated": True}, "public"), ({"rated": 1, "public": True}, "true or false"),
                          ({"rated": True, "public": True, "code": "KL1-D1N-AAAAAAG"}, "no code"),
                          ({"rated": True, "public": True, "max_players": 17}, "at most")):
        reject = await refused(host, "create", {"nickname": "h", "settings": settings})
        assert reject["code"] == "bad_settings" and why in reject["msg"]
    await host.create("host", public=True, rated=True, max_players=4)
    assert (await refused(anon, "join", {"room": host.room, "nickname": "x"}))["code"] == "not_identified"


async def test_a_rated_race_seats_one_player_per_address(
        two: tuple[ServerProcess, ServerProcess], clients: Any) -> None:
    """Same address (an IPv6 /64): a second seat in a rated room is refused,
    free again once the first leaves before the race; a second quick player
    from it lands in another quick race."""
    a, b = two
    home = "2001:db8:ffff:1::5"
    host: Client = await clients(a, "host", home)
    alt: Client = await clients(b, "alt", "2001:db8:ffff:1:abcd::9")  # the same /64
    for c in (host, alt):
        await identify(c)
    await host.create("host", public=True, rated=True, max_players=4)
    reject = await refused(alt, "join", {"room": host.room, "nickname": "alt"})
    assert reject["code"] == "address_full"
    other: Client = await clients(b, "other", "198.51.100.20")
    await identify(other)
    await other.join(host.room, "other")
    await other.send("leave")
    await other.expect("left")
    again: Client = await clients(a, "again", "198.51.100.20")
    await identify(again)
    await again.join(host.room, "again")  # its address's seat was given up before the race
    mode = {"draw": 1, "scoring": "N"}
    q1: Client = await clients(a, "q1", "198.51.100.7")
    q2: Client = await clients(b, "q2", "198.51.100.7")
    for c in (q1, q2):
        await identify(c)
    await q1.send("quick", {"nickname": "q1", **mode})
    await q1._joined()
    await q2.send("quick", {"nickname": "q2", **mode})
    await q2._joined()
    assert q1.room != q2.room


async def test_a_quick_race_over_two_processes_is_rated_once(
        two: tuple[ServerProcess, ServerProcess], clients: Any, module_redis: RedisServer) -> None:
    a, b = two
    ann: Client = await clients(a, "ann")
    bob: Client = await clients(b, "bob")
    me = await identify(ann, nickname="ann")
    newcomer = {"rating": 1500, "provisional": True, "races": 0}
    assert me["ratings"] == {"d1": newcomer, "d3": newcomer}  # the lobby's, from the server
    ids = {"ann": me["id"], "bob": (await identify(bob, nickname="bob"))["id"]}
    await ann.send("quick", {"nickname": "ann", "draw": 3, "scoring": "V"})
    await ann._joined()
    # the wait says whom the race accepts: ann's 1500, ±100 when it opened, 20 more a second
    pairing = (await ann.expect("sync"))["room"]["pairing"]
    assert (pairing["rating"], pairing["base"], pairing["widen"]) == (1500, 100, 20)
    assert pairing["anyone_at"] - pairing["opened"] == 30_000 and not pairing["anyone"]
    assert pairing["low"] <= 1400 and pairing["high"] >= 1600
    assert pairing["high"] - 1500 == 1500 - pairing["low"]
    await bob.send("quick", {"nickname": "bob", "draw": 3, "scoring": "V"})
    await bob._joined()
    assert ann.room == bob.room
    await ann.event("start", timeout=15)
    await ann.expect("board")
    assert (await ann.move("draw"))["t"] == "ack"
    assert (await bob.command("resign"))["t"] == "ack"
    assert (await ann.command("resign"))["t"] == "ack"
    ended = await ann.event("ended")
    rated = await ann.event("rated")
    seats = {ann.seat: ids["ann"], bob.seat: ids["bob"]}
    want = expected(ended["room"]["results"], seats, {p: (25.0, 25 / 3) for p in ids.values()})
    r = module_redis.client()
    try:
        for seat, player in seats.items():
            mu, sigma, races = stored(r, player, "d3")
            assert (mu, sigma, races) == (*want[player], 1)
            view = rated["ratings"][str(seat)]
            assert view["rating"] == round(60 * mu) and view["provisional"] and view["races"] == 1
            assert view["change"] == round(60 * mu) - 1500
        line = {e["seat"]: e for e in rated["room"]["results"]}
        assert line[bob.seat]["rating"] == rated["ratings"][str(bob.seat)]["rating"]
        # beside each name: the rating the race began with, then the one it left
        assert {p["seat"]: p["rating"] for p in ended["room"]["players"]} == {
            ann.seat: "1500?", bob.seat: "1500?"}
        assert {p["seat"]: p["rating"] for p in rated["room"]["players"]} == {
            seat: f"{round(60 * want[player][0])}?" for seat, player in seats.items()}
    finally:
        r.close()
    status, page = await public(b, ids["ann"])
    assert status == 200 and page["ratings"]["d3"]["races"] == 1
    assert page["ratings"]["d1"] == {"rating": 1500, "provisional": True, "races": 0}
    assert [(x["family"], x["place"], x["of"]) for x in page["rated"]] == [
        ("d3", dict(placings([(ids["ann"], "resigned", 1), (ids["bob"], "resigned", 2)]))[ids["ann"]],
         2)]


async def rated_room_of_four(a: ServerProcess, b: ServerProcess, clients: Any
                             ) -> tuple[list[Client], dict[int, str]]:
    """A public rated room of four (two players on each process), racing."""
    names = ("ann", "bob", "cat", "dan")
    players = [await clients(a if i % 2 == 0 else b, n) for i, n in enumerate(names)]
    ids = [(await identify(c, nickname=n))["id"] for c, n in zip(players, names, strict=True)]
    await players[0].create("ann", public=True, rated=True, max_players=4)
    for c, n in zip(players[1:], names[1:], strict=True):
        await c.join(players[0].room, n)
        await c.send("ready", {"ready": True})
    await eventually(lambda: sum(1 for f in players[0].frames if f["t"] == "event"
                                 and f["d"].get("kind") == "ready") >= 3, what="ready")
    await players[0].send("start")
    for c in players:
        await c.expect("board", timeout=15)
    return players, {c.seat: p for c, p in zip(players, ids, strict=True)}


async def test_a_rated_race_whose_process_died_at_its_end_is_rated_once_by_the_other(
        two: tuple[ServerProcess, ServerProcess], clients: Any, module_redis: RedisServer) -> None:
    """Four racers over two processes; the race ends as a process that dies
    right then would leave it: its end committed, its outcome recorded and
    applied to two of the four, the room still in the sweepers' index.
    A live process's sweeper applies the rest; nobody's rating moves twice."""
    a, b = two
    (ann, bob, cat, dan), seats = await rated_room_of_four(a, b, clients)
    assert (await ann.move("draw"))["t"] == "ack"
    assert (await ann.move("draw"))["t"] == "ack"
    assert (await bob.move("draw"))["t"] == "ack"
    assert (await cat.command("resign"))["t"] == "ack"
    await dan.send("leave")
    await eventually(lambda: any(f["t"] == "event" and f["d"].get("kind") == "left"
                                 for f in ann.frames), what="dan gone")
    room_id = ann.room
    store = await Store.open(module_redis.url)
    try:
        rooms = Rooms(store, Config(), lambda: int(time.time() * 1000), None)  # type: ignore[arg-type]
        doomed = Ratings(store, rooms, rooms.now_ms, rooms.ttl_ms)
        # the dying process: ends the race (no hooks), records the outcome, applies two, dies
        assert await rooms.end_race(room_id, now_anyway=True)
        data = await store.rooms.load(room_id)
        assert data is not None
        outcome = await store.ratings.outcome(room_id, data.room.race,
                                              await doomed._compute(data.room), ttl_ms=60_000)
        for player, _, place, read, mu, sigma in outcome["p"][:2]:
            await store.ratings.apply(player, "d1", f"{room_id}/{data.room.race}", read=read,
                                      after=Rating(mu, sigma), at=outcome["at"], place=place,
                                      of=outcome["of"])
        await store.indexes.due_add(room_id, 0)  # it never left the sweepers' index
        results = data.room.results
        assert results is not None
    finally:
        await store.close()
    rated = await ann.event("rated", timeout=15)
    want = expected(results, seats, {p: (25.0, 25 / 3) for p in seats.values()})
    assert len(want) == 4
    r = module_redis.client()
    try:
        for player, (mu, sigma) in want.items():
            assert stored(r, player) == (mu, sigma, 1)
            assert r.llen(keys.rating_history(player)) == 1
        later = r.zscore(keys.DUE, room_id)  # the race's end swept (a later deadline may follow)
        assert later is None or later > time.time() * 1000
    finally:
        r.close()
    assert set(rated["ratings"]) == {str(s) for s in seats}
    status = {e["seat"]: e["status"] for e in results}
    assert (status[cat.seat], status[dan.seat]) == ("resigned", "left")
    assert rated["ratings"][str(cat.seat)]["change"] < 0  # a give-up ranks last


async def test_the_top_list_pages_and_refuses_bad_input_and_forgets(
        two: tuple[ServerProcess, ServerProcess], clients: Any, module_redis: RedisServer) -> None:
    a, b = two
    eve: Client = await clients(a, "eve")
    me = await identify(eve, nickname="eve")
    r = module_redis.client()
    try:
        r.zadd(keys.rating_top("d1"), {me["id"]: 2100, "NOSUCHPLYR": 2200})
    finally:
        r.close()
    status, top = await get(b, "/api/ratings/d1?first=1&count=100")
    assert status == 200 and top["family"] == "d1"
    assert top["lines"][0] == {"place": 2, "id": me["id"], "nickname": "eve", "rating": 2100}
    for path, code in (("/api/ratings/d2", 404), ("/api/ratings/d1?count=0", 400),
                       ("/api/ratings/d1?count=101", 400), ("/api/ratings/d1?first=x", 400),
                       ("/api/ratings/d1?first=0", 400)):
        status, body = await get(b, path)
        assert status == code and body["error"] and body["message"], path
    await eve.send("p_forget")
    await eve.expect("p_forgotten")
    status, top = await get(a, "/api/ratings/d1")
    assert me["id"] not in [line["id"] for line in top["lines"]]
