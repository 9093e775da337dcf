"""The daily deal over two server processes on one Redis, its days brought
by moving the servers' clock (``--clock-offset-file``): one ranked attempt
per player and day and mode (a second refused, from another device, on the
other process, even once seated), the field's places, the result so far
and the streak at once, the day's end revealing the code and the replays
and recording the final places, streaks across days (kept, then broken),
the attempts per address, the public JSON API (and its 400s and 404s), and
every frame and every API answer scanned for cards unseen and codes not
yet revealed (docs/protocol.md, "The daily deal")."""

from __future__ import annotations

import asyncio
import json
import random
import re
import time
import urllib.error
import urllib.request
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import orjson
import pytest
from harness import Client, RedisServer, ServerProcess, Servers, eventually
from support.challenge import TestClock
from support.edge import flat
from support.player import history_of, identify, public, refused
from support.race import CARD_TOKEN, FAST_ARGS, Racer, scan_racer

from server.app.rooms.ids import daily_room_id
from server.klondike import DealCode
from server.klondike.codes import KL2 as KL2_FORMAT
from server.klondike.solver import certify
from server.race.daily import DAY_MS, day_bounds, day_of
from server.store import keys

DAILY_ARGS = ["--daily-modes", "D1N,D3N", "--daily-time-limit", "600"]
#: every test's players connect from one address: ranked as many, however new
#: (the ranking per address has a test of its own)
MANY = ["--daily-ranked-per-address", "100", "--daily-fresh", "0"]
KL2 = re.compile(r"KL2-D[13][NV]-[A-Z2-7]{13}")

Open = Callable[[ServerProcess, str], Awaitable[Client]]


#: the deal numbers the tests try, the same every run (a run plays the same
#: deals: none depends on how fast the machine certifies a random one)
_NUMBERS = random.Random(20261207)


def winnable(mode: str) -> tuple[str, list[str]]:
    """A KL2 deal of ``mode`` the solver certifies within a budget of
    positions (not of seconds), and its winning line; a new one each call."""
    draw, scoring = int(mode[1]), mode[2]
    while True:
        code = str(DealCode(_NUMBERS.getrandbits(KL2_FORMAT.bits), draw, scoring, KL2_FORMAT))  # type: ignore[arg-type]
        found = certify(code, seconds=None, nodes=50_000)
        if found is not None and found.notation is not None:
            return code, found.notation


class Days:
    """The servers' days: the clock set to a moment of a day, and each
    day's deals put in the winnable pool (one per mode: that day's)."""

    def __init__(self, redis: RedisServer, clock: TestClock) -> None:
        self.redis, self.clock = redis, clock
        self.codes: dict[tuple[str, str], tuple[str, list[str]]] = {}  # (day, mode) -> deal

    def deal(self, day: str, *modes: str) -> None:
        """Put one certified deal of each mode in the pool: the day's (dealt
        once the servers are on that day, or while the day before has its
        deals open: else the servers' day would take them)."""
        r = self.redis.client()
        for mode in modes:
            self.codes[(day, mode)] = winnable(mode)
            r.sadd(keys.winnable(mode), self.codes[(day, mode)][0])

    async def opened(self, modes: tuple[str, ...], *clients: Client) -> None:
        """Wait until the process of each client has today's deals of
        ``modes`` open (a process remembers for a few seconds that one could
        not be opened for want of a deal: it may have looked before
        :meth:`deal`)."""
        for client in clients:
            async def open_now(client: Client = client) -> bool:
                seen = await daily(client)
                return all(mode_of(seen, m)["room"] is not None for m in modes)
            await eventually(open_now, timeout=30, what=f"today's {modes} open")

    async def go(self, day: str, seconds: int, *clients: Client) -> int:
        """The servers' time: ``seconds`` into ``day``; the time read."""
        target = day_bounds(day)[0] + seconds * 1000
        self.clock.move(target - (int(time.time() * 1000) + self.clock.offset))
        return await self.clock.seen(*clients)


def get(server: ServerProcess, path: str) -> tuple[int, dict[str, Any], str]:
    """An API answer: status, JSON and its text."""
    try:
        with urllib.request.urlopen(server.http_url + path, timeout=10) as resp:
            text = resp.read().decode()
            if path.startswith("/api/daily"):  # any site's scripts may read them
                assert resp.headers["Access-Control-Allow-Origin"] == "*"
            return int(resp.status), json.loads(text), text
    except urllib.error.HTTPError as exc:
        with exc:
            text = exc.read().decode()
            return exc.code, json.loads(text), text


async def api(server: ServerProcess, path: str) -> tuple[int, dict[str, Any], str]:
    return await asyncio.to_thread(get, server, path)


async def daily(client: Client) -> dict[str, Any]:
    await client.send("daily")
    return await client.expect("daily")


async def play_daily(client: Client, mode: str, nickname: str) -> dict[str, Any]:
    await client.send("daily_play", {"mode": mode, "nickname": nickname})
    joined = await client.expect("joined")
    client.room, client.seat, client.token = joined["room"], joined["seat"], joined["token"]
    return joined


async def begin(client: Client) -> dict[str, Any]:
    await client.send("start")
    board = await client.expect("board")
    client.seq = 0
    return board


def mode_of(view: dict[str, Any], mode: str) -> dict[str, Any]:
    return next(m for m in view["modes"] if m["mode"] == mode)


def no_secret_codes(raws: list[str], secret: set[str], who: str) -> None:
    """No frame or answer names a deal code still secret."""
    for raw in raws:
        named = set(KL2.findall(raw)) & secret
        assert not named, f"{who}: a secret code {named}: {raw[:200]}"


@pytest.fixture
def days(own_redis: RedisServer, tmp_path: Path) -> Days:
    path = tmp_path / "clock"
    path.write_text("0")
    return Days(own_redis, TestClock(path))


def two_servers(servers: Servers, redis: RedisServer, days: Days, *more: str
                ) -> tuple[ServerProcess, ServerProcess]:
    args = [*FAST_ARGS, *DAILY_ARGS, "--clock-offset-file", str(days.clock.path), *MANY, *more]
    return (servers.start(redis.url, args=args, name="a"),
            servers.start(redis.url, args=args, name="b"))


async def test_a_day_of_the_daily_deal_one_attempt_each_streaks_across_days_and_no_secret_sent(
        own_redis: RedisServer, servers: Servers, days: Days, clients: Open) -> None:
    today = day_of(int(time.time() * 1000))
    d1 = day_of(day_bounds(today)[1] + 1)  # tomorrow, then the days after it
    d2, d3, d4 = (day_of(day_bounds(d1)[0] + n * DAY_MS) for n in (1, 2, 3))
    a, b = two_servers(servers, own_redis, days)
    ann, bob = await clients(a, "ann"), await clients(b, "bob")
    ann_me = await identify(ann, nickname="ann")
    bob_me = await identify(bob, nickname="bob")
    await days.go(d1, 3600, ann, bob)  # (before its deals: they are d1's, not today's)
    days.deal(d1, "D1N", "D3N")
    await days.opened(("D1N", "D3N"), ann, bob)
    code1, line1 = days.codes[(d1, "D1N")]
    first_day = {code1, days.codes[(d1, "D3N")][0]}

    # the day's deals, opened by whichever process came first, the same for both
    seen_a, seen_b = await daily(ann), await daily(bob)
    assert seen_a["day"] == seen_b["day"] == d1
    assert [m["mode"] for m in seen_a["modes"]] == ["D1N", "D3N"]
    assert mode_of(seen_a, "D1N")["room"] == mode_of(seen_b, "D1N")["room"]
    assert seen_a["ends_at"] == day_bounds(d1)[1]
    assert 0 < seen_a["time_left_ms"] <= 23 * 3600 * 1000
    assert mode_of(seen_a, "D1N")["mine"] is None and seen_a["streak"]["days"] == 0

    # no player, no attempt
    nobody = await clients(a, "nobody")
    assert (await refused(nobody, "daily_play", {"mode": "D1N", "nickname": "x"}))["code"] == (
        "not_identified")
    assert (await refused(ann, "daily_play", {"mode": "D3V", "nickname": "ann"}))["code"] == (
        "no_daily")

    # ann plays D1N on a and wins it
    await play_daily(ann, "D1N", "ann")
    room1 = ann.room
    await begin(ann)
    racer = Racer(ann, code1)
    ack = await racer.play(line1[:-1])
    before_win = await days.clock.now(ann)
    ack = await racer.play(line1[-1:])
    assert ack["d"]["view"]["state"] == "won"
    [r] = await history_of(ann, 1)  # recorded as soon as her game is over
    assert (r["kind"], r["day"], r["status"], r["place"], r["code"]) == (
        "daily", d1, "finished", 1, None)
    # when her game ended (docs/protocol.md, "p_history"): not 0, not the day's end
    assert before_win <= r["at"] <= await days.clock.now(ann)
    assert (await daily(ann))["streak"]["days"] == 1

    # a second attempt: refused, on either process, from another device too
    phone = await clients(b, "ann's phone")
    await identify(phone, ann_me["key"])
    assert (await refused(phone, "daily_play", {"mode": "D1N", "nickname": "ann"}))["code"] == (
        "daily_played")
    assert (await refused(phone, "join", {"room": room1, "nickname": "ann"}))["code"] == (
        "daily_played")

    # bob takes two seats (two devices) before beginning: only one may begin
    bob_tab = await clients(a, "bob's tab")
    await identify(bob_tab, bob_me["key"])
    await play_daily(bob, "D1N", "bob")
    await play_daily(bob_tab, "D1N", "bob")
    assert bob_tab.seat != bob.seat
    await begin(bob)
    assert (await refused(bob_tab, "start"))["code"] == "daily_played"
    # bob sees ann as a ghost, plays a little and resigns
    ghosts = await bob.expect("ghosts", timeout=10)
    assert [g["nickname"] for g in ghosts["lines"]] == ["ann"]
    bob_racer = Racer(bob, code1)
    await bob_racer.play(line1[:3])
    await bob_racer.resign()

    # another mode is another room; a nickname already in a field gets a number
    cat = await clients(b, "cat")
    await identify(cat, nickname="cat")
    await play_daily(cat, "D3N", "cat")
    assert cat.room == mode_of(seen_a, "D3N")["room"] != room1

    # the field: ann first, bob second (bob's second seat, never begun, not counted)
    async def bob_second() -> dict[str, Any] | None:
        mine = mode_of(await daily(bob), "D1N")["mine"]
        return mine if mine and mine.get("rank") == 2 else None
    mine = await bob_second()
    assert mine is not None and mine["of"] == 2 and mine["line"]["status"] == "resigned"
    assert mine["above"]["nickname"] == "ann"
    status, page, text = await api(a, f"/api/daily/{d1}/D1N?first=1&count=10")
    assert status == 200 and page["open"] and page["code"] is None
    assert [(x["rank"], x["nickname"], x["status"]) for x in page["lines"]][:2] == [
        (1, "ann", "finished"), (2, "bob", "resigned")]
    assert all("replay" not in x for x in page["lines"])
    assert (page["played"], page["finished"]) == (2, 1)
    status, found, _ = await api(b, f"/api/daily/{d1}/D1N?find=BOB")
    assert status == 200 and found["found"]["rank"] == 2 and found["found"]["above"]["rank"] == 1
    status, found, _ = await api(b, f"/api/daily/{d1}/D1N?find=bob%202")
    assert found["found"]["seat"] == bob_tab.seat and found["found"]["line"]["status"] == "lobby"
    assert page["players"] == 3
    status, today_api, today_text = await api(b, "/api/daily")
    assert status == 200 and mode_of(today_api, "D1N")["played"] == 2
    assert "mine" not in mode_of(today_api, "D1N") and "streak" not in today_api
    answers = [text, today_text]

    # the day ends: the code, the replays, the final places
    before_d2 = {c.name: len(c.raw) for c in (ann, bob, cat, phone, bob_tab, nobody)}
    days.deal(d2, "D1N", "D3N")
    await days.go(d2, 60, ann, bob)
    ended = await ann.event("ended", timeout=60)  # (the sweepers end it: a busy machine is slow)
    assert ended["code"] == code1
    status, page, text = await api(b, f"/api/daily/{d1}/D1N")
    answers.append(text)
    assert status == 200 and not page["open"] and page["code"] == code1
    assert page["lines"][0]["replay"] == f"/api/rooms/{room1}/replay/{page['lines'][0]['seat']}"
    status, replay, _ = await api(a, page["lines"][0]["replay"])
    assert status == 200 and replay["nickname"] == "ann" and replay["of"] == len(line1) + 1
    status, _, _ = await api(a, f"/api/daily/{d1}/D3N")
    assert status == 200

    async def final_place() -> dict[str, Any] | None:
        results = await history_of(ann, 1)
        return results[0] if results[0]["code"] == code1 else None
    for _ in range(100):
        final = await final_place()
        if final is not None:
            break
        await asyncio.sleep(0.1)
    assert final is not None and (final["place"], final["of"]) == (1, 2)
    assert final["at"] == r["at"]  # still when her game ended, not when the day did

    # the next day: ann plays again and her streak is 2; bob's, who resigned, is 0
    seen = await daily(ann)
    assert seen["day"] == d2 and mode_of(seen, "D1N")["room"] != room1
    [yesterday] = [p for p in seen["past"] if p["day"] == d1]
    assert {"mode": "D1N", "room": room1, "code": code1} in yesterday["modes"]
    assert mode_of(seen, "D1N")["mine"] is None
    ann2 = await clients(b, "ann, day 2")
    await identify(ann2, ann_me["key"])
    code2, line2 = days.codes[(d2, "D1N")]
    secret = {code2, days.codes[(d2, "D3N")][0]}
    await play_daily(ann2, "D1N", "ann")
    await begin(ann2)
    racer2 = Racer(ann2, code2)
    await racer2.play(line2)
    await history_of(ann2, 2)
    assert (await daily(ann2))["streak"] == {"days": 2, "best": 2}
    before_d3 = len(ann2.raw)
    assert (await daily(bob))["streak"]["days"] == 0
    status, shown, _ = await api(a, f"/api/players/{ann_me['id']}")
    assert shown["streak"] == {"days": 2, "best": 2}

    # a day without an attempt breaks it
    days.deal(d3, "D1N", "D3N")
    await days.go(d3, 60, ann2)
    days.deal(d4, "D1N", "D3N")
    await days.go(d4, 60, ann2)
    assert (await daily(ann2))["streak"] == {"days": 0, "best": 2}

    # what everyone received: no card unseen, no code before its day's end
    assert scan_racer(racer) > 0 and scan_racer(racer2) > 0 and scan_racer(bob_racer) > 0
    for client in (ann, bob, cat, phone, bob_tab, nobody):
        no_secret_codes(client.raw[:before_d2[client.name]], first_day, client.name)
        if client not in (ann, bob):
            for raw in client.raw:
                assert not CARD_TOKEN.findall(raw), f"{client.name}: {raw[:200]}"
    no_secret_codes(ann2.raw[:before_d3], secret, ann2.name)
    no_secret_codes(answers[:2], first_day, "the API")
    for text in answers:
        assert not CARD_TOKEN.findall(text), text[:200]


async def test_the_attempts_per_address_and_day_are_capped_and_the_api_answers_bad_requests(
        own_redis: RedisServer, servers: Servers, days: Days, clients: Open) -> None:
    today = day_of(int(time.time() * 1000))
    d1 = day_of(day_bounds(today)[1] + 1)
    a, b = two_servers(servers, own_redis, days, "--daily-per-address", "3")
    probe = await clients(a, "probe")
    await days.go(d1, 600, probe)
    days.deal(d1, "D1N", "D3N")
    players = []
    for i, server in enumerate((a, b, a, b)):
        client = await clients(server, f"p{i}")
        await identify(client, nickname=f"p{i}")
        players.append(client)
    await days.opened(("D1N", "D3N"), *players[:2])
    for client in players[:3]:
        await play_daily(client, "D1N", client.name)
    assert (await refused(players[3], "daily_play", {"mode": "D3N", "nickname": "p3"})
            )["code"] == "too_many"
    # the next day the address may play again
    days.deal(day_of(day_bounds(d1)[1]), "D1N")
    await days.go(day_of(day_bounds(d1)[1]), 60, players[3])
    await play_daily(players[3], "D1N", "p3")

    # the API: 404 for a day or mode there is none of, 400 for what is malformed
    for path, want in ((f"/api/daily/{d1}/D3V", 404), (f"/api/daily/{d1}/D9Z", 404),
                       ("/api/daily/2001-01-01/D1N", 404), ("/api/daily/2999-01-01/D1N", 404),
                       ("/api/daily/2026-13-45/D1N", 400), ("/api/daily/yesterday/D1N", 400),
                       (f"/api/daily/{d1}/D1N?count=0", 400), (f"/api/daily/{d1}/D1N?count=101", 400),
                       (f"/api/daily/{d1}/D1N?first=x", 400),
                       (f"/api/daily/{d1}/D1N?find=%00", 400)):
        status, body, _ = await api(b, path)
        assert (status, set(body)) == (want, {"error", "message"}), (path, body)


async def test_a_daily_game_going_on_shows_nothing_per_move_over_http_to_the_field_or_a_follower(
        own_redis: RedisServer, servers: Servers, days: Days, clients: Open) -> None:
    """Observers of a daily game going on watch 20 of its moves and learn
    nothing per move: anyone over HTTP (its line, found by nickname, the
    same answer after every move), a seated player who has not begun (no
    tick, no place of their own changes), a spectator following it (no
    follow frame); once it is over its line shows its final figures
    (docs/protocol.md, "What each client may see")."""
    today = day_of(int(time.time() * 1000))
    d1 = day_of(day_bounds(today)[1] + 1)
    args = [*FAST_ARGS, *DAILY_ARGS, "--clock-offset-file", str(days.clock.path), *MANY]
    a = servers.start(own_redis.url, args=args, name="a")
    ann, bob, spec = await clients(a, "ann"), await clients(a, "bob"), await clients(a, "spec")
    await identify(ann, nickname="ann")
    await identify(bob, nickname="bob")
    await days.go(d1, 3600, ann, bob)
    days.deal(d1, "D1N")
    code, line = days.codes[(d1, "D1N")]
    await play_daily(ann, "D1N", "ann")
    await play_daily(bob, "D1N", "bob")
    await spec.send("watch", {"room": ann.room, "since": 0})
    await spec.expect("sync")
    await begin(ann)
    await spec.send("follow", {"nickname": "ann"})
    following = await spec.expect("following")
    assert set(following["line"]) <= {"seat", "nickname", "status", "started", "rank"}
    path = f"/api/daily/{d1}/D1N?find=ann"

    async def racing_over_http() -> dict[str, Any] | None:
        status, body, _ = await api(a, path)
        assert status == 200, body
        return body if body["found"]["line"]["status"] == "racing" else None

    before = await eventually(racing_over_http, what="ann racing over HTTP")
    shown = [x for x in before["lines"] if x["nickname"] == "ann"]
    assert [set(x) for x in shown] == [{"seat", "nickname", "status", "rank"}]
    assert set(before["found"]["line"]) == {"seat", "nickname", "status", "rank"}
    await bob.expect("top", lambda d: [x["status"] for x in d["top"]] == ["racing", "lobby"])
    await spec.expect("follow", lambda d: d["line"]["status"] == "racing")
    marks = {c.name: len(c.frames) for c in (bob, spec)}
    racer = Racer(ann, code)
    for m in line[:20]:
        await racer.play([m])
        assert (await api(a, path))[1] == before  # the same answer after every move
    await racer.resign()

    async def over_over_http() -> dict[str, Any] | None:
        body = (await api(a, path))[1]
        return body if body["found"]["line"]["status"] == "resigned" else None

    after = await eventually(over_over_http, what="ann's game over over HTTP")
    assert after["found"]["line"]["moves"] == 20 and "vegas" in after["found"]["line"]
    assert "started" not in after["found"]["line"]  # (nor when she played)
    top = await bob.expect("top", lambda d: d["top"][0]["status"] == "resigned")
    assert top["top"][0]["moves"] == 20
    await spec.expect("follow", lambda d: d["line"]["status"] == "resigned")
    for c in (bob, spec):
        during = c.frames[marks[c.name]:]
        first = next(i for i, f in enumerate(during) if "resigned" in orjson.dumps(f).decode())
        assert during[:first] == [], f"{c.name} got frames while ann played: {during[:first]}"
    # her seat is packed (issue 24, item 7: no snapshot, no list once the game
    # is over); back on another socket she gets her board as it ended, rebuilt
    # from the deal and her log
    r = own_redis.client()
    assert not r.hexists(keys.seat(ann.room, 1, ann.seat), "snap")
    assert not r.exists(keys.log(ann.room, 1, ann.seat))
    back = await clients(a, "ann back")
    await back.resume(ann.room, ann.token)
    board = await back.expect("board")
    assert board["done"] is True and board["view"] == racer.game.view(progress=True)


def commands(r: Any) -> int:
    """Commands Redis has run (``INFO commandstats``), the INFO calls left out."""
    stats = r.info("commandstats")
    return sum(int(v["calls"]) for k, v in stats.items() if k not in ("cmdstat_info",))


async def test_an_empty_pool_is_answered_from_memory_without_polling(
        own_redis: RedisServer, servers: Servers) -> None:
    """Regression (issue 24, item 4): while a mode had no certified deal,
    each ``/api/daily`` request polled Redis 40 times over 2 s (500 to 800
    commands). "Not open yet" is remembered per day and mode for a few
    seconds; a request never polls."""
    server = servers.start(own_redis.url, args=[*FAST_ARGS, "--daily-modes", "D1N,D3V",
                                                "--solver-workers", "0"])
    today = day_of(int(time.time() * 1000))
    r = own_redis.client()
    status, _, _ = await api(server, f"/api/daily/{today}/D1N")
    assert status == 404
    before = commands(r)
    for _ in range(10):
        status, view, _ = await api(server, "/api/daily")
        assert status == 200 and [m["room"] for m in view["modes"]] == [None, None]
        for mode in ("D1N", "D3V"):
            status, body, _ = await api(server, f"/api/daily/{today}/{mode}")
            assert (status, body["error"]) == (404, "no_daily"), body
    spent = commands(r) - before
    assert spent < 100, f"30 answers cost {spent} Redis commands"


async def test_a_flood_of_refused_daily_seats_stores_nothing(
        own_redis: RedisServer, servers: Servers, days: Days, clients: Open) -> None:
    """Regression (issue 24, item 1): a refused ``daily_play`` added 116 B
    kept a day (583 a second from one address: 5.4 GiB a day)."""
    a, _ = two_servers(servers, own_redis, days, "--daily-per-address", "2")
    today = day_of(int(time.time() * 1000))
    d1 = day_of(day_bounds(today)[1] + 1)
    probe = await clients(a, "probe")
    await days.go(d1, 600, probe)
    days.deal(d1, "D1N")
    players = []
    for i in range(3):
        client = await clients(a, f"p{i}")
        await identify(client, nickname=f"p{i}")
        players.append(client)
    await days.opened(("D1N",), probe)
    for client in players[:2]:
        await play_daily(client, "D1N", client.name)
    # the room's first leaderboard tick since (its writes are not the flood's)
    r = own_redis.client()
    await eventually(lambda: r.exists(keys.top(players[0].room)), what="the room's tick")

    async def flood() -> None:
        for _ in range(40):
            got = await refused(players[2], "daily_play", {"mode": "D1N", "nickname": "p2"})
            assert got["code"] == "too_many", got
    await flat(r, flood, "daily seats")


async def test_an_address_ranks_a_household_and_spare_keys_play_the_same_deal_as_practice(
        own_redis: RedisServer, servers: Servers, days: Days, clients: Open) -> None:
    """Regression (issue 24, item 3): one address made 60 keys in 4 s and took
    100 ranked seats; a spare key's attempt showed the main key the deal. Per
    address and day and mode, ``--daily-ranked-per-address`` players rank;
    a player made within ``--daily-fresh`` seconds ranks only while nobody of
    the address does. The others play the same deal in its practice room:
    never in the day's leaderboard, no streak, no win, no best."""
    a, b = two_servers(servers, own_redis, days, "--daily-ranked-per-address", "2",
                       "--daily-fresh", "3600")
    today = day_of(int(time.time() * 1000))
    d1 = day_of(day_bounds(today)[1] + 1)
    d2 = day_of(day_bounds(d1)[1])
    players = []
    for i, server in enumerate((a, b, a, b, a)):  # made now: hours before d1's 02:00
        client = await clients(server, f"p{i}")
        players.append((client, await identify(client, nickname=f"p{i}")))
    await days.go(d1, 7200, *(c for c, _ in players))
    days.deal(d1, "D1N")
    await days.opened(("D1N",), players[0][0], players[1][0])
    code, line = days.codes[(d1, "D1N")]
    ranked = mode_of(await daily(players[0][0]), "D1N")["room"]
    rooms = [(await play_daily(c, "D1N", c.name))["room"] for c, _ in players]
    assert rooms[:2] == [ranked] * 2
    practice = rooms[2]
    assert practice != ranked and rooms[3:] == [practice] * 2
    # the practice room is the same deal, shown as practice, its code a secret
    sync = await players[2][0].expect("sync")
    assert sync["room"]["settings"]["practice"] and sync["room"]["settings"]["daily"] == d1
    assert code not in json.dumps(sync)
    await begin(players[2][0])
    await Racer(players[2][0], code).play(line)
    await begin(players[0][0])
    await Racer(players[0][0], code).resign()
    # the day's leaderboard holds the two ranked players only
    status, page, _ = await api(a, f"/api/daily/{d1}/D1N")
    assert status == 200 and page["players"] == 2
    assert {line["nickname"] for line in page["lines"]} == {"p0", "p1"}
    assert all("started" not in line for line in page["lines"])  # when p0 began is hers
    # a new key from the address, once it has a ranked player today, plays as practice
    fresh = await clients(b, "fresh")
    await identify(fresh, nickname="fresh")
    assert (await play_daily(fresh, "D1N", "fresh"))["room"] == practice
    # the next day: a fresh key first ranks (its address has none yet), then old ones
    days.deal(d2, "D1N")
    await days.go(d2, 60, fresh)
    # d1's practice room ended with the day: p2's win there is a game played,
    # never a win, a best time or a day of a streak
    assert (await players[2][0].event("ended", timeout=60))["code"] == code
    [result] = await history_of(players[2][0], 1)
    assert (result["kind"], result["room"], result["code"]) == ("challenge", practice, code)
    status, shown = await public(a, players[2][1]["id"])
    assert status == 200 and (shown["games"], shown["wins"], shown["best"], shown["streak"]) == (
        1, 0, {}, {"days": 0, "best": 0})
    await days.opened(("D1N",), fresh)
    ranked2 = mode_of(await daily(fresh), "D1N")["room"]
    await fresh.send("leave")
    await fresh.expect("left")
    assert (await play_daily(fresh, "D1N", "fresh"))["room"] == ranked2
    spare = await clients(a, "spare")  # made now: a spare key, though the household has room
    await identify(spare, nickname="spare")
    assert (await play_daily(spare, "D1N", "spare"))["room"] == daily_room_id(d2, "D1N",
                                                                             practice=True)
    again = await clients(a, "p2 again")
    await identify(again, players[2][1]["key"])
    assert (await play_daily(again, "D1N", "p2"))["room"] == ranked2
