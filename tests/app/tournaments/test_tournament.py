"""Tournaments end to end with real processes: rounds played as races on
fixed codes from the vectors, the standings, CSV and replays checked against
each player's game replayed on the test side, the codes kept secret until
each round ends, a process killed mid-round and between rounds, the
organizer's and players' refusals, spectators (docs/protocol.md, "Tournaments").
"""

from __future__ import annotations

import asyncio
import types
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any, Final

import pytest
import redis
from harness import Client, RedisServer, ServerProcess, Servers, load_kl1, load_wins
from support.race import (
    FAST_ARGS,
    Clock,
    Racer,
    Served,
    app_on,
    line_stats,
    scan_racer,
    scan_spectator,
    seen_or_next,
    stats,
)
from support.tournament import (
    Entrant,
    Organizer,
    answer,
    assert_round_code_kept,
    assert_text_keeps,
    commit_as_crashed,
    http_get,
    replay_of,
    results,
    results_csv,
    t_seen,
    whole_replay,
)

from server.app.rooms.ids import round_room_id
from server.klondike import KL2, DealCode, Game, Move, replay
from server.race.standings import CSV_FIELDS
from server.race.tournament import Tournament
from server.store import keys
from server.store.store import Store

WINS: Final = {w["code"]: w for w in load_wins()}
KL1: Final = {g["code"]: g for g in load_kl1()["games"]}
# two won games of wins.json (a Vegas and a Normal deal) and a kl1.json game (with undos);
# the first typed as its KL2 code (the same deal: KL1 number N is KL2 number N)
CODES: Final = ["KL2-D1V-AAAAAAACT552B", "KL1-D3N-AA3VMOQ", "KL1-D1V-BCDEFGH"]
SCRIPTS: Final = [WINS["KL1-D1V-ACT552B"]["script"], WINS[CODES[1]]["script"],
                  KL1[CODES[2]]["script"]]
TIME_LIMIT: Final = 600  # seconds: round 2 waits for it (a player never shows up): the test's clock brings it


class Clients:
    """``await clients(server, "name")``: a client of that server; all are
    kept (``opened``) to scan their frames, and closed after the test."""

    def __init__(self) -> None:
        self.opened: list[Client] = []

    async def __call__(self, server: ServerProcess | Served, name: str) -> Client:
        client = await Client.open(server.ws_url, name)
        self.opened.append(client)
        return client


@pytest.fixture
async def clients() -> AsyncIterator[Clients]:
    group = Clients()
    yield group
    for client in group.opened:
        await client.close()


def fast(servers: Servers, redis: RedisServer, *names: str) -> list[ServerProcess]:
    return [servers.start(redis.url, args=FAST_ARGS, name=n) for n in names]


async def watch_room(client: Client, room: str) -> dict[str, Any]:
    await client.send("watch", {"room": room, "since": 0})
    await client.expect("watching")
    return await client.expect("sync")


async def refused(client: Client, t: str, d: dict[str, Any]) -> dict[str, Any]:
    """Send a command; its reject (anything else fails)."""
    after = len(client.frames)
    await client.send(t, d)
    reply = await client.expect("reject", lambda r: r["cmd"] == t)
    assert not any(f["t"] in ("t_created", "t_registered") for f in client.frames[after:])
    return reply


# ---------------------------------------------------------------------- a whole tournament

async def test_three_rounds_six_players_standings_csv_replays_and_secrecy(
        own_redis: RedisServer, tmp_path: Path, clients: Clients) -> None:
    """ann wins round 1, dan withdraws during it, fay misses round 2 (it ends
    by its time limit), bob wins round 2; round 3 is a kl1.json game played
    with its undos. Everything the server says is checked against the games
    replayed here, and no frame or HTTP answer names a round's code before
    that round has ended. Two servers in the test's process share a clock
    that the test moves on to round 2's limit once its players are done."""
    clock = Clock()
    async with (app_on(own_redis, tmp_path / "a", clock) as a,
                app_on(own_redis, tmp_path / "b", clock) as b):
        await three_rounds(a, b, clients, clock)


async def three_rounds(a: Served, b: Served, clients: Clients, clock: Clock) -> None:
    org = Organizer(await clients(b, "org"))
    created = await org.create("Club night", codes=CODES, time_limit=TIME_LIMIT)
    assert created["tournament"]["settings"] == {
        "time_limit": TIME_LIMIT, "max_players": 8, "undo": True, "hints": False, "boards": "after",
        "delay": 0, "rounds": 3, "modes": ["D1V", "D3N", "D1V"], "typed": True}
    watcher = await clients(a, "watcher")
    await watcher.send("t_watch", {"id": org.id.lower()})
    assert (await watcher.expect("t_sync"))["tournament"]["registration"] is True

    names = ("ann", "bob", "cat", "dan", "eve", "fay")
    people = [Entrant(await clients((a, b)[i % 2], name), name) for i, name in enumerate(names)]
    for e in people:
        await e.register(org.id)
    ann, bob, cat, dan, eve, fay = people
    assert [e.player for e in people] == [0, 1, 2, 3, 4, 5]
    registered = await t_seen(watcher, "registered")
    assert registered["player"] == 0 and registered["nickname"] == "ann"

    server_said: list[tuple[int, str, str]] = []  # answers while round n runs: (n, what, text)

    async def http_before(n: int) -> None:
        """Results, CSV and standings while round ``n`` has not ended; replays refused."""
        for path in ("results", "results.csv"):
            reply = await http_get(a, f"/api/tournaments/{org.id}/{path}")
            assert reply.status == 200
            server_said.append((n, path, reply.text))
        await org.client.send("t_standings", {"id": org.id})
        server_said.append((n, "t_standings", str(await org.client.expect("t_standings"))))
        for n_later in range(n, 4):
            refusal = await replay_of(b, org.id, n_later, 0)
            assert refusal.status == 404 and refusal.json()["error"] == "not_ended", refusal

    await http_before(1)
    rooms: list[str] = []
    games: dict[tuple[int, int], Game] = {}  # (round, player) -> the game as played
    commands: dict[tuple[int, int], list[str]] = {}
    histories: dict[tuple[int, int], list[dict[str, Any]]] = {}
    statuses: dict[tuple[int, int], str] = {}
    spectators: list[tuple[Client, dict[int, Racer]]] = []

    def keep(n: int, e: Entrant, status: str) -> None:
        assert e.racer is not None
        games[n, e.player], commands[n, e.player] = e.racer.game, list(e.commands)
        histories[n, e.player], statuses[n, e.player] = e.racer.history, status

    async def play_then_resign(e: Entrant, moves: list[str]) -> None:
        await e.play(moves)
        await e.resign()

    # ---- round 1: ann wins; dan withdraws half way through his game
    rooms.append(await org.start(1))
    spec = await clients(b, "spec 1")
    sync = await watch_room(spec, rooms[0])
    assert sync["room"]["settings"]["tournament"] == org.id and sync["room"]["settings"]["round"] == 1
    assert [p["seat"] for p in sync["room"]["players"]] == [0, 1, 2, 3, 4, 5]
    await asyncio.gather(*(e.enter(rooms[0], CODES[0]) for e in people))
    await http_before(1)
    script = SCRIPTS[0]

    async def dan_withdraws() -> None:
        await dan.play(script[:30])
        await dan.client.send("t_withdraw", {"id": org.id, "token": dan.token})
        withdrawn = await t_seen(dan.client, "withdrawn")
        assert withdrawn["player"] == 3
        assert withdrawn["tournament"]["players"][3] == {"player": 3, "nickname": "dan", "withdrawn": True}
        left = await dan.client.expect("event", lambda d: d["kind"] == "left" and d["seat"] == 3)
        assert left["racing"] is True and left["entries"][0]["status"] == "left"
        refusal = await dan.client.move(script[30])  # out of the round
        assert refusal["t"] == "reject" and refusal["d"]["code"] == "not_playing"

    await asyncio.gather(ann.play(script), play_then_resign(bob, script[:80]),
                         play_then_resign(cat, script[:40]), dan_withdraws(),
                         play_then_resign(eve, script[:60]), play_then_resign(fay, script[:10]))
    assert ann.racer is not None and ann.racer.game.is_won
    ended = await t_seen(org.client, "round_ended", 1)
    assert ended["code"] == CODES[0]
    for e, status in zip(people, ("finished", "resigned", "resigned", "left", "resigned", "resigned"),
                         strict=True):
        keep(1, e, status)
    spectators.append((spec, {e.player: e.racer for e in people if e.racer is not None}))

    # ---- round 2: dan is out, fay never shows up, eve stops playing: the time limit ends it
    await http_before(2)
    rooms.append(await org.start(2))
    started = await t_seen(watcher, "round_started", 2)
    assert started["tournament"]["rounds"][1]["seats"] == [0, 1, 2, 4, 5]
    late_dan = await clients(a, "dan again")
    await late_dan.send("resume", {"room": rooms[1], "token": dan.token, "since": 0})
    assert (await late_dan.expect("reject"))["code"] == "bad_token"
    spec = await clients(a, "spec 2")
    await watch_room(spec, rooms[1])
    await asyncio.gather(ann.enter(rooms[1], CODES[1]), cat.enter(rooms[1], CODES[1]),
                         bob.enter(rooms[1], CODES[1], client=await clients(a, "bob 2")),
                         eve.enter(rooms[1], CODES[1], client=await clients(b, "eve 2")))
    await http_before(2)
    script = SCRIPTS[1]
    await asyncio.gather(ann.resign(), bob.play(script), play_then_resign(cat, script[:70]),
                         eve.play(script[:20]))
    clock.ahead += TIME_LIMIT  # the limit has come
    ended = await t_seen(org.client, "round_ended", 2, timeout=20)
    room2 = ended["tournament"]["rounds"][1]
    assert ended["code"] == room2["code"] == CODES[1]
    room_end = await seen_or_next(spec, "event", lambda d: d["kind"] == "ended")
    assert room_end["room"]["ended_at"] >= room_end["room"]["deadline"] == (
        room_end["room"]["start_at"] + TIME_LIMIT * 1000)
    for e, status in ((ann, "resigned"), (bob, "finished"), (cat, "resigned"), (eve, "unfinished")):
        keep(2, e, status)
    fay_absent = Racer(fay.client, CODES[1], progress=False)  # her game never moved
    games[2, 5], commands[2, 5], histories[2, 5] = fay_absent.game, [], fay_absent.history
    statuses[2, 5] = "unfinished"
    spectators.append((spec, {0: ann.racer, 1: bob.racer, 2: cat.racer, 4: eve.racer,  # type: ignore[dict-item]
                              5: fay_absent}))

    # ---- round 3: a kl1.json game with its undos; everyone resigns at some point
    await http_before(3)
    rooms.append(await org.start(3))
    spec = await clients(b, "spec 3")
    await watch_room(spec, rooms[2])
    playing = (ann, bob, cat, eve, fay)
    await asyncio.gather(ann.enter(rooms[2], CODES[2]), bob.enter(rooms[2], CODES[2]),
                         cat.enter(rooms[2], CODES[2], client=await clients(b, "cat 3")),
                         eve.enter(rooms[2], CODES[2]),
                         fay.enter(rooms[2], CODES[2], client=await clients(a, "fay 3")))
    await http_before(3)
    script = SCRIPTS[2]
    await asyncio.gather(*(play_then_resign(e, script[:k]) for e, k in zip(
        playing, (len(script), 60, 25, len(script), 90), strict=True)))
    ended = await t_seen(org.client, "round_ended", 3)
    for e in playing:
        keep(3, e, "resigned")
    spectators.append((spec, {e.player: e.racer for e in playing}))  # type: ignore[misc]
    final = ended["tournament"]
    assert [r["status"] for r in final["rounds"]] == ["ended"] * 3

    # ---- each round's results are the games played
    seats = {1: [0, 1, 2, 3, 4, 5], 2: [0, 1, 2, 4, 5], 3: [0, 1, 2, 4, 5]}
    finish: dict[tuple[int, int], int | None] = {}
    rank_in: dict[tuple[int, int], int] = {}
    for n, r in enumerate(final["rounds"], start=1):
        assert (r["n"], r["room"], r["code"], r["seats"]) == (n, rooms[n - 1], CODES[n - 1], seats[n])
        assert [e["rank"] for e in r["results"]] == list(range(1, len(seats[n]) + 1))
        assert sorted(e["seat"] for e in r["results"]) == seats[n]
        for entry in r["results"]:
            key = (n, entry["seat"])
            assert entry["nickname"] == names[entry["seat"]]
            assert entry["status"] == statuses[key], key
            assert line_stats(entry) == stats(games[key]), key
            finish[key], rank_in[key] = entry["finish_ms"], entry["rank"]
            if entry["status"] == "finished":
                assert 0 <= entry["finish_ms"] <= TIME_LIMIT * 1000
            else:
                assert entry["finish_ms"] is None
    assert final["rounds"][0]["results"][0]["nickname"] == "ann"
    assert games[1, 0].vegas == games[2, 1].vegas == 208  # the winners' +208 $
    assert final["rounds"][1]["results"][0]["nickname"] == "bob"

    # ---- the standings: sums over the replayed games, -52 $ for a round not
    # played (a seat that stored no command, like fay's in round 2, was not played)
    came = {key for key, g in games.items() if g.moves or statuses[key] in ("finished", "resigned")}
    expected = []
    for p, name in enumerate(names):
        played = [(n, games[n, p]) for n in (1, 2, 3) if (n, p) in came]
        won = [n for n, g in played if g.is_won]
        expected.append({
            "player": p, "nickname": name, "withdrawn": name == "dan",
            "vegas": sum(g.vegas for _, g in played) - 52 * (3 - len(played)),
            "foundation": sum(g.foundation_cards for _, g in played),
            "wins": len(won), "time_ms": sum(finish[n, p] or 0 for n in won),
            "rounds": [{"round": n, "played": True, "vegas": games[n, p].vegas,
                        "foundation": games[n, p].foundation_cards, "finish_ms": finish[n, p],
                        "status": statuses[n, p], "moves": games[n, p].moves} if (n, p) in came
                       else {"round": n, "played": False, "vegas": -52, "foundation": 0,
                             "finish_ms": None} for n in (1, 2, 3)]})
    expected.sort(key=lambda e: (-e["vegas"], -e["foundation"], e["time_ms"], e["player"]))
    for rank, e in enumerate(expected, start=1):
        e["rank"] = rank
    assert final["standings"] == expected
    table = {e["nickname"]: e for e in expected}
    assert table["dan"]["vegas"] == games[1, 3].vegas - 104 and table["dan"]["withdrawn"]
    assert table["fay"]["rounds"][1] == {"round": 2, "played": False, "vegas": -52,
                                         "foundation": 0, "finish_ms": None}

    # ---- JSON results, t_standings and the watcher agree; the CSV says the same
    got = await results(a, org.id)
    assert got == {"id": org.id, "name": "Club night", "rounds": final["rounds"],
                   "standings": expected}
    await watcher.send("t_standings", {"id": org.id})
    assert await watcher.expect("t_standings") == {"id": org.id, "standings": expected}
    assert (await t_seen(watcher, "round_ended", 3))["tournament"]["standings"] == expected
    rows = await results_csv(b, org.id)
    assert tuple(rows[0]) == CSV_FIELDS
    want = []
    for p, name in enumerate(names):
        for n in (1, 2, 3):
            if (n, p) in came:
                g, fms = games[n, p], finish[n, p]
                want.append([str(p), name, str(n), CODES[n - 1], "1", statuses[n, p], str(g.vegas),
                             str(g.foundation_cards), str(g.moves), "" if fms is None else str(fms),
                             str(rank_in[n, p])])
            else:
                want.append([str(p), name, str(n), CODES[n - 1], "0", "missed", "-52", "0", "0", "", ""])
    for e in expected:
        want.append([str(e["player"]), e["nickname"], "total", "", str(sum(
            1 for r in e["rounds"] if r["played"])), "withdrawn" if e["withdrawn"] else "",
            str(e["vegas"]), str(e["foundation"]), "", str(e["time_ms"]), str(e["rank"])])
    assert rows[1:] == want

    # ---- replays: the stored commands and the board after each
    for (n, p), cmds in commands.items():
        body = await whole_replay(a if p % 2 else b, org.id, n, p)
        assert (body["tournament"], body["round"], body["player"], body["code"]) == (
            org.id, n, p, CODES[n - 1])
        steps = body["steps"]
        assert [s["command"] for s in steps] == [None, *cmds], (n, p)
        assert [s.get("s") for s in steps] == [None, *range(1, len(cmds) + 1)]
        assert [s["view"] for s in steps] == histories[n, p], (n, p)
    assert len(commands[1, 0]) == len(SCRIPTS[0]) and commands[2, 0] == ["resign"]
    assert "undo" in commands[3, 0]
    for n, p, error in ((2, 3, "unknown_seat"), (3, 3, "unknown_seat"), (1, 6, "unknown_seat"),
                        (4, 0, "not_ended"), (0, 0, "not_ended")):
        refusal = await replay_of(a, org.id, n, p)
        assert refusal.status == 404 and refusal.json()["error"] == error, (n, p, refusal)

    # ---- no frame named a round's code before that round ended, nor did HTTP
    assert len(clients.opened) == 16  # organizer, watcher, 6 players + 5 new connections, 3 spectators
    for client in clients.opened:
        assert sum(assert_round_code_kept(client, n, rooms[n - 1], CODES[n - 1])
                   for n in (1, 2, 3)) > 0, client.name
    assert len(server_said) == 3 * 6
    for n, what, text in server_said:
        assert_text_keeps(text, CODES[n - 1:], f"{what} before round {n} ended")
    # the spectators of each round's room saw no board before its end, then every board
    for spec, racers in spectators:
        await seen_or_next(spec, "boards", lambda d, r=racers: {int(s) for s in d["boards"]} == set(r))
        assert scan_spectator(spec, racers, boards="after") >= len(racers)


async def test_drawn_rounds_are_kl2_deals_and_the_exports_carry_their_codes(
        redis_server: RedisServer, servers: Servers, clients: Clients) -> None:
    """A tournament of random rounds deals 64-bit KL2 codes; once each round
    ends, its code in the JSON results, the CSV and the replay is that code."""
    (a,) = fast(servers, redis_server, "a")
    org = Organizer(await clients(a, "org"))
    await org.create("Drawn", rounds=2, draw=3, scoring="V", time_limit=600)
    ann = Entrant(await clients(a, "ann"), "ann")
    await ann.register(org.id)
    codes, boards = [], []
    for n in (1, 2):
        room = await org.start(n)
        if ann.client.room:
            await ann.client.send("leave")
            await ann.client.expect("left")
        ann.client.seq = 0
        await ann.client.resume(room, ann.token)
        boards.append((await ann.client.expect("board"))["view"])
        assert (await ann.client.command("resign"))["t"] == "ack"
        codes.append((await t_seen(org.client, "round_ended", n))["code"])
    assert codes[0] != codes[1]
    for code, view in zip(codes, boards, strict=True):
        parsed = DealCode.parse(code)
        assert (parsed.format, parsed.mode, str(parsed)) == (KL2, "D3V", code)
        assert Game(code).view() == view  # the deal revealed is the deal played
    assert [r["code"] for r in (await results(a, org.id))["rounds"]] == codes
    rows = await results_csv(a, org.id)
    assert [r[3] for r in rows[1:] if r[2] != "total"] == codes
    for n in (1, 2):
        assert (await replay_of(a, org.id, n, 0)).json()["code"] == codes[n - 1]


# ---------------------------------------------------------------------- withdrawing

async def test_a_withdrawn_players_next_move_is_refused_and_their_connection_stays(
        redis_server: RedisServer, servers: Servers, clients: Clients) -> None:
    """Regression: withdrawing takes the player out of the round's race (status
    left, the seat no longer held), but their connection still sat in the
    room; its next move was answered by closing it with 4000 ("the seat was
    opened by another connection": do not reconnect) instead of not_playing."""
    (a,) = fast(servers, redis_server, "a")
    org = Organizer(await clients(a, "org"))
    await org.create("Withdrawals", codes=CODES[:1], time_limit=TIME_LIMIT)
    ann, bob = [Entrant(await clients(a, name), name) for name in ("ann", "bob")]
    for e in (ann, bob):
        await e.register(org.id)
    room = await org.start(1)
    for e in (ann, bob):
        await e.enter(room, CODES[0])
    await ann.play(SCRIPTS[0][:5])
    await ann.client.send("t_withdraw", {"id": org.id, "token": ann.token})
    await t_seen(ann.client, "withdrawn")
    refusal = await ann.client.move(SCRIPTS[0][5])
    assert refusal["t"] == "reject" and refusal["d"]["code"] == "not_playing", refusal
    resign = await ann.client.command("resign")
    assert resign["t"] == "reject" and resign["d"]["code"] == "not_playing", resign
    await ann.client.send("ping")
    await ann.client.expect("pong")
    await bob.resign()
    ended = await t_seen(ann.client, "round_ended", 1)  # still following the tournament
    assert ann.client.close_code is None
    lines = {e["nickname"]: e for e in ended["tournament"]["rounds"][0]["results"]}
    assert lines["ann"]["status"] == "left" and lines["ann"]["moves"] == 5
    assert ann.racer is not None and line_stats(lines["ann"]) == stats(ann.racer.game)


# ---------------------------------------------------------------------- processes killed

def views_of(code: str, commands: list[str]) -> list[dict[str, Any]]:
    """The public view at the start and after each stored command."""
    game = Game(code)
    views = [game.public_view()]
    for command in commands:
        if command == "undo":
            game.pop()
        elif command != "resign":
            game.push(command)
        views.append(game.public_view())
    return views


async def play(client: Client, code: str, before: list[str], moves: list[str]) -> dict[str, Any]:
    """Play ``moves`` after ``before``, each acknowledged with the engine's view."""
    view: dict[str, Any] = {}
    for i, m in enumerate(moves, start=1):
        reply = await client.move(m)
        assert reply["t"] == "ack", (client.name, m, reply)
        view = reply["d"]["view"]
        assert view == replay(code, [*before, *moves[:i]]).view()
    return view


async def t_resume(client: Client, tid: str, token: str) -> dict[str, Any]:
    """Back into the tournament with the player's token; its ``t_sync``."""
    await client.send("t_resume", {"id": tid, "token": token})
    got = await client.expect("t_registered")
    assert got["token"] == token
    return await client.expect("t_sync")


async def test_processes_killed_during_registration_mid_round_and_between_rounds_lose_nothing(
        redis_server: RedisServer, servers: Servers, clients: Clients) -> None:
    """x is killed while players register, a in the middle of round 1 (with
    ann's moves in flight), b between the rounds: each time the others carry
    on from Redis, and every acknowledged move is in the results and replays."""
    x, a, b = fast(servers, redis_server, "x", "a", "b")
    code1, script1 = CODES[0], SCRIPTS[0]
    code2, script2 = CODES[2], SCRIPTS[2]
    org = Organizer(await clients(x, "org"))
    await org.create("Hard night", codes=[code1, code2], time_limit=600)
    ann = Entrant(await clients(x, "ann"), "ann")
    await ann.register(org.id)

    # ---- x dies during registration: nothing registered is lost
    x.kill()
    assert await ann.client.closed() == 1006
    ann.client = await clients(a, "ann on a")
    sync = await t_resume(ann.client, org.id, ann.token)
    assert sync["tournament"]["registration"] is True
    assert sync["tournament"]["players"] == [{"player": 0, "nickname": "ann", "withdrawn": False}]
    bob, cat = Entrant(await clients(a, "bob"), "bob"), Entrant(await clients(b, "cat"), "cat")
    await bob.register(org.id)
    await cat.register(org.id)
    assert (bob.player, cat.player) == (1, 2)
    org.client = await clients(b, "org on b")
    await org.client.send("t_watch", {"id": org.id})
    assert [p["nickname"] for p in (await org.client.expect("t_sync"))["tournament"]["players"]] == [
        "ann", "bob", "cat"]

    # ---- round 1: a dies with ann's moves in flight
    room1 = await org.start(1)
    for e in (ann, bob, cat):
        await e.enter(room1, code1)
    await play(ann.client, code1, [], script1[:40])
    await play(bob.client, code1, [], script1[:20])
    for m in script1[40:60]:
        ann.client.seq += 1
        await ann.client.send("move", {"s": ann.client.seq, "m": m})
    await ann.client.expect("ack", lambda d: d["s"] == 41)
    a.kill()
    assert await ann.client.closed() == 1006 and await bob.client.closed() == 1006
    acked = {f["d"]["s"]: f["d"]["view"] for f in ann.client.frames if f["t"] == "ack"}
    last = max(acked)
    assert sorted(acked) == list(range(1, last + 1)) and acked[last] == replay(code1, script1[:last]).view()

    since = ann.client.v
    ann.client = await clients(b, "ann on b")
    sync = await t_resume(ann.client, org.id, ann.token)
    assert sync["tournament"]["rounds"][0]["status"] == "running"
    assert "code" not in sync["tournament"]["rounds"][0]
    joined = await ann.client.resume(room1, ann.token, since=since)
    assert joined["seat"] == 0
    assert (await ann.client.expect("events"))["from"] == since
    board = await ann.client.expect("board")
    stored = board["s"]
    assert last <= stored <= 60, "an acknowledged move was lost, or a move never sent was stored"
    assert board["view"] == replay(code1, script1[:stored]).view()
    bob.client = await clients(b, "bob on b")
    await t_resume(bob.client, org.id, bob.token)
    await bob.client.resume(room1, bob.token)
    board = await bob.client.expect("board")
    assert board["s"] == 20 and board["view"] == replay(code1, script1[:20]).view()

    ann.client.seq, bob.client.seq = stored, 20
    assert (await play(ann.client, code1, script1[:stored], script1[stored:]))["state"] == "won"
    await play(bob.client, code1, script1[:20], script1[20:50])
    assert (await bob.client.command("resign"))["t"] == "ack"
    assert (await cat.client.command("resign"))["t"] == "ack"
    ended = await t_seen(org.client, "round_ended", 1)
    lines = {e["nickname"]: e for e in ended["tournament"]["rounds"][0]["results"]}
    assert (lines["ann"]["status"], lines["bob"]["status"], lines["cat"]["status"]) == (
        "finished", "resigned", "resigned")
    assert line_stats(lines["ann"]) == stats(replay(code1, script1))
    assert line_stats(lines["bob"]) == stats(replay(code1, script1[:50]))

    # ---- b dies between the rounds: a fresh process takes over
    b.kill()
    for client in (org.client, ann.client, bob.client, cat.client):
        assert await client.closed() == 1006
    (c,) = fast(servers, redis_server, "c")
    org.client = await clients(c, "org on c")
    await org.client.send("t_watch", {"id": org.id})
    sync = await org.client.expect("t_sync")
    assert [r["status"] for r in sync["tournament"]["rounds"]] == ["ended", "pending"]
    assert sync["tournament"]["standings"] == ended["tournament"]["standings"]
    room2 = await org.start(2)
    for e in (ann, bob, cat):
        e.client = await clients(c, f"{e.nickname} on c")
        await t_resume(e.client, org.id, e.token)
        await e.enter(room2, code2)
    await asyncio.gather(*(e.play(script2[:k]) for e, k in ((ann, 30), (bob, 60), (cat, len(script2)))))
    for e in (ann, bob, cat):
        await e.resign()
    await t_seen(org.client, "round_ended", 2)

    got = await results(c, org.id)
    table = {e["nickname"]: e for e in got["standings"]}
    games1 = {"ann": replay(code1, script1), "bob": replay(code1, script1[:50]), "cat": Game(code1)}
    for e in (ann, bob, cat):
        assert e.racer is not None
        assert table[e.nickname]["vegas"] == games1[e.nickname].vegas + e.racer.game.vegas
        assert table[e.nickname]["foundation"] == (games1[e.nickname].foundation_cards
                                                   + e.racer.game.foundation_cards)
    # the replays hold every stored command of both rounds, the in-flight ones included
    commands1 = {0: [str(Move.parse(m)) for m in script1], 1: [
        *(str(Move.parse(m)) for m in script1[:50]), "resign"], 2: ["resign"]}
    for p, cmds in commands1.items():
        body = await whole_replay(c, org.id, 1, p)
        assert [s["command"] for s in body["steps"]] == [None, *cmds]
        assert [s["view"] for s in body["steps"]] == views_of(code1, cmds)
    for e in (ann, bob, cat):
        body = await whole_replay(c, org.id, 2, e.player)
        assert [s["command"] for s in body["steps"]] == [None, *e.commands]
        assert [s["view"] for s in body["steps"]] == views_of(code2, e.commands)


async def test_a_round_start_or_end_cut_short_by_a_crash_is_finished_by_a_fresh_process(
        redis_server: RedisServer, servers: Servers, clients: Clients) -> None:
    """A process that committed a round's start and died before creating its
    room, or whose round room ended and died before recording the round:
    the next process that follows the tournament finishes the job."""
    (a,) = fast(servers, redis_server, "a")
    org = Organizer(await clients(a, "org"))
    await org.create("Crashes", codes=CODES[:2], time_limit=600)
    ann, bob = [Entrant(await clients(a, name), name) for name in ("ann", "bob")]
    for e in (ann, bob):
        await e.register(org.id)

    # ---- the round's start committed, then the process died before its room existed
    room1 = round_room_id(org.id, 1)
    await commit_as_crashed(redis_server.url, org.id, lambda t, now, counts: t.start_round(
        now=now, start_at=now + 500, room_id=room1, entrants=counts["players"]))
    assert (await t_seen(org.client, "round_starting", 1))["tournament"]["rounds"][0]["status"] == "starting"
    a.kill()
    (d,) = fast(servers, redis_server, "d")
    spare = await clients(d, "spare")
    await spare.send("resume", {"room": room1, "token": ann.token, "since": 0})
    assert (await spare.expect("reject"))["code"] == "unknown_room"  # no room yet
    org.client = await clients(d, "org on d")
    await org.client.send("t_watch", {"id": org.id})
    sync = await org.client.expect("t_sync")
    assert sync["tournament"]["rounds"][0]["room"] == room1
    started = await t_seen(org.client, "round_started", 1)
    assert started["room"] == room1 and started["tournament"]["rounds"][0]["seats"] == [0, 1]
    for e in (ann, bob):
        e.client = await clients(d, f"{e.nickname} on d")
        await t_resume(e.client, org.id, e.token)
        await e.enter(room1, CODES[0])
    await ann.play(SCRIPTS[0])
    await bob.play(SCRIPTS[0][:10])
    await bob.resign()
    ended = await t_seen(org.client, "round_ended", 1)
    recorded = ended["tournament"]["rounds"][0]
    assert [(e["nickname"], e["status"]) for e in recorded["results"]] == [
        ("ann", "finished"), ("bob", "resigned")]

    # ---- the room's race ended, then the process died before recording the round
    d.kill()

    def unrecorded(t: Tournament, now: int, counts: dict[str, int]) -> None:
        r = t.rounds[0]
        r.status, r.ended_at, r.played = "running", None, None

    await commit_as_crashed(redis_server.url, org.id, unrecorded)
    assert await stored_round(redis_server.url, org.id, 1) == ("running", None)
    (fresh,) = fast(servers, redis_server, "e")
    # Two roads finish it, and either may come first: the fresh process's
    # sweep (the tournament is due a look) or the organiser's watch.
    org.client = await clients(fresh, "org on e")
    await org.client.send("t_watch", {"id": org.id})
    again = (await org.client.expect("t_sync"))["tournament"]
    if again["rounds"][0]["status"] != "ended":
        again = (await t_seen(org.client, "round_ended", 1))["tournament"]
    assert again["rounds"][0]["code"] == CODES[0]
    assert again["rounds"][0]["results"] == recorded["results"]
    assert again["standings"] == ended["tournament"]["standings"]
    assert await stored_round(redis_server.url, org.id, 1) == ("ended", 2)
    assert (await results(fresh, org.id))["standings"] == ended["tournament"]["standings"]
    room2 = await org.start(2)  # and the tournament goes on
    assert room2 == round_room_id(org.id, 2)


async def stored_round(url: str, tid: str, n: int) -> tuple[str, int | None]:
    """Round ``n``'s status and how many played it, as Redis holds them."""
    store = await Store.open(url)
    try:
        data = await store.tournaments.load_tournament_data(tid)
    finally:
        await store.close()
    assert data is not None
    r = data.t.rounds[n - 1]
    return r.status, r.played


# ---------------------------------------------------------------------- rejections

async def test_refusals_name_their_reason_and_change_nothing(
        redis_server: RedisServer, servers: Servers, clients: Clients) -> None:
    (a,) = fast(servers, redis_server, "a")
    org = Organizer(await clients(a, "org"))
    other = await clients(a, "other")

    # t_create: a bad code is named by its round; bad settings; a bad name
    reply = await refused(other, "t_create", {"name": "x", "settings": {
        "codes": [CODES[0], "KL1-D2V-ABYI5NK", CODES[1]]}})
    assert reply["code"] == "bad_code" and reply["msg"].startswith("round 2: "), reply
    assert "draw" in reply["msg"]
    reply = await refused(other, "t_create", {"name": "x", "settings": {"codes": [CODES[0], "nonsense"]}})
    assert reply["code"] == "bad_code" and reply["msg"].startswith("round 2: "), reply
    reply = await refused(other, "t_create", {"name": "x", "settings": {
        "codes": [CODES[1], CODES[0], "KL2-D1V-QAAAAAAAAAAAA"]}})
    assert reply["code"] == "bad_code" and reply["msg"].startswith("round 3: "), reply
    assert "2^64 or more" in reply["msg"]
    for settings in ({"time_limit": 5}, {"max_players": 10_001}, {"boards": "delayed"}, {"rounds": 0},
                     {"colour": "red"}):
        assert (await refused(other, "t_create", {"name": "x", "settings": settings}))["code"] == (
            "bad_settings"), settings
    assert (await refused(other, "t_create", {"name": " ", "settings": {}}))["code"] == "bad_settings"
    assert (await refused(other, "t_create", {"name": "x"}))["code"] == "bad_field"

    await org.create("Refusals", codes=CODES[:2], time_limit=600, max_players=3)
    watcher = await clients(a, "watcher")
    await watcher.send("t_watch", {"id": org.id})
    v0 = (await watcher.expect("t_sync"))["v"]
    ann, bob = [Entrant(await clients(a, name), name) for name in ("ann", "bob")]
    for e in (ann, bob):
        await e.register(org.id)
    state = await results(a, org.id)

    async def nothing_changed(events_since: int) -> None:
        """No tournament event came and the results are as they were."""
        assert await results(a, org.id) == state
        assert not [f for f in watcher.frames[events_since:] if f["t"] == "t_event"]

    mark = len(watcher.frames)
    # the organizer's commands need the admin token
    for admin in ("", ann.token, org.admin + "x"):
        for t in ("t_start", "t_close"):
            reply = await refused(ann.client, t, {"id": org.id, "admin": admin})
            assert reply["code"] == "not_host" and reply["cmd"] == t, reply
    assert (await refused(ann.client, "t_start", {"id": org.id}))["code"] == "bad_field"
    # registration: a nickname taken whatever its case, the tournament full
    assert (await refused(other, "t_register", {"id": org.id, "nickname": "ANN"}))["code"] == "name_taken"
    assert (await refused(other, "t_register", {"id": org.id, "nickname": "a<b"}))["code"] == "bad_nickname"
    # tokens that are no player's
    for t in ("t_resume", "t_withdraw"):
        for token in ("", org.admin, ann.token[:-1]):
            reply = await refused(other, t, {"id": org.id, "token": token})
            assert reply["code"] == "bad_token", (t, token, reply)
    # no such tournament: commands and HTTP
    for t, d in (("t_watch", {}), ("t_register", {"nickname": "zed"}), ("t_resume", {"token": ann.token}),
                 ("t_start", {"admin": org.admin}), ("t_close", {"admin": org.admin}),
                 ("t_withdraw", {"token": ann.token}), ("t_standings", {})):
        reply = await refused(other, t, {"id": "NOSUCHT1", **d})
        assert reply["code"] == "unknown_room", (t, reply)
    for path in ("results", "results.csv", "rounds/1/replay/0"):
        reply = await http_get(a, f"/api/tournaments/NOSUCHT1/{path}")
        assert reply.status == 404 and reply.json()["error"] == "unknown_room", (path, reply)
    await nothing_changed(mark)

    # full, then closed
    cat = Entrant(await clients(a, "cat"), "cat")
    await cat.register(org.id)
    assert (await refused(other, "t_register", {"id": org.id, "nickname": "dan"}))["code"] == "room_full"
    await org.client.send("t_close", {"id": org.id, "admin": org.admin})
    closed = await t_seen(watcher, "closed")
    assert closed["tournament"]["registration"] is False
    reply = await refused(org.client, "t_close", {"id": org.id, "admin": org.admin})
    assert reply["code"] == "not_lobby"
    await cat.client.send("t_withdraw", {"id": org.id, "token": cat.token})
    await t_seen(watcher, "withdrawn")
    reply = await refused(other, "t_register", {"id": org.id, "nickname": "dan"})
    assert reply["code"] == "race_started", reply  # closed, even with a place free
    reply = await refused(cat.client, "t_withdraw", {"id": org.id, "token": cat.token})
    assert reply["code"] == "not_playing"

    # a round running: no other starts
    room1 = await org.start(1)
    state = await results(a, org.id)
    mark = len(watcher.frames)
    reply = await refused(org.client, "t_start", {"id": org.id, "admin": org.admin})
    assert reply["code"] == "not_ended", reply
    spare = await clients(a, "cat in round 1")
    await spare.send("resume", {"room": room1, "token": cat.token, "since": 0})
    assert (await spare.expect("reject"))["code"] == "bad_token"  # withdrawn: no seat
    reply = await replay_of(a, org.id, 1, 0)
    assert reply.status == 404 and reply.json()["error"] == "not_ended"
    await nothing_changed(mark)

    for e in (ann, bob):
        await e.enter(room1, CODES[0])
        await e.resign()
    await t_seen(watcher, "round_ended", 1)
    await org.start(2)
    room2 = (await t_seen(watcher, "round_started", 2))["room"]
    for e in (ann, bob):
        await e.enter(room2, CODES[1])
        await e.resign()
    await t_seen(watcher, "round_ended", 2)
    state = await results(a, org.id)
    mark = len(watcher.frames)
    reply = await refused(org.client, "t_start", {"id": org.id, "admin": org.admin})
    assert reply["code"] == "not_lobby", reply  # every round played
    await nothing_changed(mark)
    # every event the watcher got came in order, none skipped
    versions = [f["d"]["v"] for f in watcher.frames if f["t"] == "t_event"]
    assert versions == list(range(v0 + 1, v0 + 1 + len(versions)))


async def test_watching_an_unknown_tournament_leaves_no_subscription_behind(
        redis_server: RedisServer, servers: Servers, clients: Clients) -> None:
    """Regression: a process subscribed to the channel of the tournament a
    t_watch named before finding there was no such tournament, and never
    unsubscribed: any client could grow its subscriptions without bound."""
    (a,) = fast(servers, redis_server, "a")
    client = await clients(a, "nosy")
    names = [f"NOSUCH{i:02d}" for i in range(5)]
    for name in names:
        assert (await refused(client, "t_watch", {"id": name}))["code"] == "unknown_room"
    r = redis.Redis.from_url(redis_server.url)
    try:
        async with asyncio.timeout(10):
            while True:
                counts = dict(r.pubsub_numsub(*(keys.tournament_channel(n) for n in names)))
                assert len(counts) == len(names)
                if not any(counts.values()):
                    break
                await asyncio.sleep(0.05)
    finally:
        r.close()


async def test_a_failed_t_watch_does_not_stop_following_the_tournament_followed(
        redis_server: RedisServer, servers: Servers, clients: Clients) -> None:
    """Regression: a t_watch naming no tournament left the one the
    connection followed before finding out; its events stopped coming."""
    (a,) = fast(servers, redis_server, "a")
    org = Organizer(await clients(a, "org"))
    await org.create("Followed", codes=CODES[:1], time_limit=600)
    other = Organizer(await clients(a, "other"))
    await other.create("Other", codes=CODES[1:2], time_limit=600)
    for wrong in ("NOSUCHT1", "", other.id + "X"):
        assert (await refused(org.client, "t_watch", {"id": wrong}))["code"] == "unknown_room"
    ann = Entrant(await clients(a, "ann"), "ann")
    await ann.register(org.id)
    assert (await t_seen(org.client, "registered"))["tournament"]["id"] == org.id
    # switching to another tournament that exists still works
    await org.client.send("t_watch", {"id": other.id})
    assert (await org.client.expect("t_sync"))["tournament"]["id"] == other.id
    bob = Entrant(await clients(a, "bob"), "bob")
    await bob.register(org.id)
    await bob.register(other.id)
    got = await org.client.expect("t_event")
    assert got["tournament"]["id"] == other.id and got["nickname"] == "bob"


async def test_concurrent_registrations_and_starts_on_two_processes(
        redis_server: RedisServer, servers: Servers, clients: Clients) -> None:
    """Registrations at once on two processes all land, numbered without a
    gap; of two at once with one nickname (in different case) one wins; of
    two starts at once one starts the round. The last player still racing
    withdrawing ends the round there and then."""
    a, b = fast(servers, redis_server, "a", "b")
    org = Organizer(await clients(a, "org"))
    await org.create("Rush", codes=CODES[:2], time_limit=600)
    names = ["ann", "bob", "cat", "dan", "eve", "fay"]
    people = [Entrant(await clients((a, b)[i % 2], n), n) for i, n in enumerate(names)]
    await asyncio.gather(*(e.register(org.id) for e in people))
    assert sorted(e.player for e in people) == list(range(6))
    assert len({e.token for e in people}) == 6

    zeds = [await clients(a, "zed"), await clients(b, "ZED")]
    marks = [len(z.frames) for z in zeds]
    await asyncio.gather(*(z.send("t_register", {"id": org.id, "nickname": n})
                           for z, n in zip(zeds, ("zed", "ZED"), strict=True)))
    replies = [await answer(z, m, "t_registered", "reject") for z, m in zip(zeds, marks, strict=True)]
    assert sorted(r["t"] for r in replies) == ["reject", "t_registered"], replies
    won = next(i for i, r in enumerate(replies) if r["t"] == "t_registered")
    assert replies[1 - won]["d"]["code"] == "name_taken" and replies[won]["d"]["player"] == 6
    state = await results(b, org.id)
    assert sorted(line["player"] for line in state["standings"]) == list(range(7))

    second = await clients(b, "org on b")
    await second.send("t_watch", {"id": org.id})
    await second.expect("t_sync")
    marks = [len(org.client.frames), len(second.frames)]
    await asyncio.gather(*(c.send("t_start", {"id": org.id, "admin": org.admin})
                           for c in (org.client, second)))
    for c in (org.client, second):  # answered in order: both starts are done once this comes
        await c.send("t_standings", {"id": org.id})
        await c.expect("t_standings")
    rejects = [f["d"] for c, m in zip((org.client, second), marks, strict=True)
               for f in c.frames[m:] if f["t"] == "reject"]
    assert [r["code"] for r in rejects] == ["not_ended"], rejects
    room = (await t_seen(second, "round_started", 1))["room"]
    state = await results(a, org.id)
    assert [r["status"] for r in state["rounds"]] == ["running", "pending"]
    assert state["rounds"][0]["seats"] == list(range(7))

    # everyone but ann resigns; ann withdraws: nobody is racing, the round ends
    zed = Entrant(zeds[won], "zed", tid=org.id, player=6, token=replies[won]["d"]["token"])
    ann = next(e for e in people if e.nickname == "ann")
    for e in [*people, zed]:
        await e.enter(room, CODES[0])
        if e is not ann:
            await e.resign()
    await ann.play(SCRIPTS[0][:3])
    await ann.client.send("t_withdraw", {"id": org.id, "token": ann.token})
    ended = await t_seen(org.client, "round_ended", 1)
    lines = {e["nickname"]: e for e in ended["tournament"]["rounds"][0]["results"]}
    assert lines["ann"]["status"] == "left" and lines["ann"]["moves"] == 3
    assert ended["tournament"]["rounds"][0]["ended_at"] < ended["tournament"]["rounds"][0][
        "start_at"] + 600_000


# ---------------------------------------------------------------------- spectators

def frames_between(client: Client, start: int, stop: int | None = None) -> Any:
    """A view of some of a client's frames, for the support.race scans."""
    return types.SimpleNamespace(name=client.name, raw=client.raw[start:stop],
                                 frames=client.frames[start:stop])


async def test_spectators_follow_the_tournament_and_watch_each_rounds_room(
        redis_server: RedisServer, servers: Servers, clients: Clients) -> None:
    """fan follows the tournament and, on the same connection, each round's
    room: t_sync, every t_event in order with the standings after each round,
    the leaderboard, and live boards (the tournament's setting) that are the
    players' games; a player sees no other board. late arrives at the end."""
    a, b = fast(servers, redis_server, "a", "b")
    org = Organizer(await clients(a, "org"))
    await org.create("Live", codes=[CODES[0], CODES[2]], time_limit=600, boards="live")
    fan = await clients(b, "fan")
    await fan.send("t_watch", {"id": org.id})
    first = await fan.expect("t_sync")
    assert first["tournament"]["settings"]["boards"] == "live"
    ann, bob = Entrant(await clients(a, "ann"), "ann"), Entrant(await clients(b, "bob"), "bob")
    for e in (ann, bob):
        await e.register(org.id)

    rooms, racers = [], []
    for n, (code, script) in enumerate(((CODES[0], SCRIPTS[0]), (CODES[2], SCRIPTS[2])), start=1):
        if n == 2:
            await fan.send("leave")
            await fan.expect("left")
            for e in (ann, bob):  # new connections: a round's frames apart for the scans
                e.client = await clients(a, f"{e.nickname} {n}")
        at = 0
        if n == 2:  # scheduled: two seconds from now on the server's clock
            await org.client.send("ping")
            at = (await org.client.expect("pong"))["now"] + 2000
        rooms.append(await org.start(n, at))
        started = await t_seen(fan, "round_started", n)
        assert started["room"] == rooms[-1]
        if at:
            assert started["start_at"] == at
        watch_from = len(fan.frames)
        sync = await watch_room(fan, rooms[-1])
        assert sync["room"]["phase"] in ("countdown", "racing") and "code" not in sync["room"]
        assert sync["room"]["start_at"] == started["start_at"]
        assert sync["room"]["deadline"] == started["start_at"] + 600_000
        assert [p["nickname"] for p in sync["room"]["players"]] == ["ann", "bob"]
        for e in (ann, bob):
            await e.enter(rooms[-1], code)
        await ann.play(script[:40])
        await bob.play(script[:20])
        assert ann.racer is not None and bob.racer is not None
        racers.append({0: ann.racer, 1: bob.racer})
        # live: the boards as they are now, and the leaderboard, before the race ends
        await seen_or_next(fan, "boards", lambda d, r=racers[-1]: d["boards"].get("0") == r[0].history[-1])
        await seen_or_next(fan, "boards", lambda d, r=racers[-1]: d["boards"].get("1") == r[1].history[-1])
        moves = [(0, ann.racer.game.moves), (1, bob.racer.game.moves)]
        lb = await seen_or_next(fan, "lb", lambda d, m=moves: sorted(
            (e["seat"], e["moves"]) for e in d["entries"]) == m)
        entries = sorted(lb["entries"], key=lambda e: e["seat"])
        assert [line_stats(e) for e in entries] == [stats(ann.racer.game), stats(bob.racer.game)]
        refusal = await fan.command("move", {"m": script[0]})
        assert refusal["t"] == "reject" and refusal["d"]["code"] == "spectator"
        if n == 1:
            assert (await ann.play(script[40:]))["d"]["view"]["state"] == "won"
        else:
            await ann.resign()
        await bob.resign()
        ended = await t_seen(fan, "round_ended", n)
        await seen_or_next(fan, "event", lambda d, r=rooms[-1]: d["kind"] == "ended" and d["room"]["id"] == r)
        assert ended["tournament"]["standings"] == (await results(b, org.id))["standings"]
        lines = {e["nickname"]: e for e in ended["tournament"]["rounds"][n - 1]["results"]}
        assert line_stats(lines["ann"]) == stats(ann.racer.game)
        assert line_stats(lines["bob"]) == stats(bob.racer.game)
        scanned = frames_between(fan, watch_from)
        assert scan_spectator(scanned, racers[-1], boards="live") >= 2
        for e in (ann, bob):
            assert scan_racer(e.racer) > 0  # cards of its own game only; no other board
        assert_round_code_kept(fan, n, rooms[-1], code)

    standings = (await results(a, org.id))["standings"]
    assert [line["nickname"] for line in standings] == ["ann", "bob"]  # ann won round 1
    kinds = [(f["d"]["kind"], f["d"].get("round")) for f in fan.frames if f["t"] == "t_event"]
    assert kinds == [("registered", None), ("registered", None),
                     ("round_starting", 1), ("round_started", 1), ("round_ended", 1),
                     ("round_starting", 2), ("round_started", 2), ("round_ended", 2)]
    versions = [f["d"]["v"] for f in fan.frames if f["t"] == "t_event"]
    assert versions == list(range(first["v"] + 1, first["v"] + 1 + len(versions)))

    # late: the whole tournament, codes and all, and a finished round's room with every board
    late = await clients(a, "late")
    await late.send("t_watch", {"id": org.id})
    sync = (await late.expect("t_sync"))["tournament"]
    assert [r["code"] for r in sync["rounds"]] == [CODES[0], CODES[2]]
    assert sync["standings"] == standings
    room = await watch_room(late, rooms[0])
    assert room["room"]["code"] == CODES[0] and room["room"]["phase"] == "ended"
    boards = await late.expect("boards")
    assert boards["boards"] == {"0": racers[0][0].history[-1], "1": racers[0][1].history[-1]}


# ---------------------------------------------------------------------- keeping rounds

async def test_a_rounds_replay_lasts_as_long_as_the_tournament_not_as_a_finished_room(
        redis_server: RedisServer, servers: Servers, clients: Clients) -> None:
    """Regression: a round's room expired like any finished room
    (--finished-ttl, an hour by default) while the tournament is kept for a
    month; the replay endpoint then answered 200 with the start of the game
    only, every move gone."""
    a = servers.start(redis_server.url, args=[*FAST_ARGS, "--finished-ttl", "1"], name="a")
    org = Organizer(await clients(a, "org"))
    await org.create("Keep", codes=CODES[:2], time_limit=600)
    ann = Entrant(await clients(a, "ann"), "ann")
    await ann.register(org.id)
    room = await org.start(1)
    await ann.enter(room, CODES[0])
    await ann.play(SCRIPTS[0][:12])
    await ann.resign()
    await t_seen(org.client, "round_ended", 1)
    # a room that is no round, ended after the round: once it has expired,
    # a round's room kept like it would be gone too
    solo = await clients(a, "solo")
    await solo.solo(nickname="solo", code=CODES[1])
    assert (await solo.command("resign"))["t"] == "ack"
    await solo.event("ended")
    r = redis.Redis.from_url(redis_server.url)
    try:
        async with asyncio.timeout(30):
            while r.exists(keys.room(solo.room)):
                await asyncio.sleep(0.1)
        assert not r.exists(keys.log(solo.room, 1, 0))
        # the seat's game is over: its log is packed into its hash, kept the tournament's month
        assert not r.exists(keys.log(room, 1, 0)) and r.hexists(keys.seat(room, 1, 0), "log")
        assert r.pttl(keys.seat(room, 1, 0)) > 29 * 24 * 3600 * 1000
    finally:
        r.close()
    body = (await replay_of(a, org.id, 1, 0)).json()
    assert [s["command"] for s in body["steps"]] == [None, *ann.commands]
    assert ann.racer is not None and [s["view"] for s in body["steps"]] == ann.racer.history
    # and the round's room is still there to watch, with its results and boards
    watcher = await clients(a, "watcher")
    sync = await watch_room(watcher, room)
    assert sync["room"]["code"] == CODES[0] and sync["room"]["results"][0]["moves"] == 12
    assert (await watcher.expect("boards"))["boards"] == {"0": ann.racer.history[-1]}


async def test_the_organizer_ends_a_round_held_open_by_a_no_show(
        redis_server: RedisServer, servers: Servers, clients: Clients) -> None:
    (a,) = fast(servers, redis_server, "a")
    org = Organizer(await clients(a, "org"))
    await org.create("No-shows", codes=CODES[:2], time_limit=3600)
    ann, bob = [Entrant(await clients(a, name), name) for name in ("ann", "bob")]
    for e in (ann, bob):
        await e.register(org.id)
    room = await org.start(1)
    await ann.enter(room, CODES[0])
    await ann.play(SCRIPTS[0][:7])  # bob never comes: the round would wait an hour
    mark = len(org.client.frames)
    await org.client.send("t_end", {"id": org.id, "admin": "not-the-admin"})
    refused = await answer(org.client, mark, "reject")
    assert refused["d"]["cmd"] == "t_end" and refused["d"]["code"] == "not_host"
    await org.client.send("t_end", {"id": org.id, "admin": org.admin})
    ended = await t_seen(org.client, "round_ended", 1)
    lines = {e["nickname"]: e for e in ended["tournament"]["rounds"][0]["results"]}
    assert lines["ann"]["status"] == lines["bob"]["status"] == "unfinished"
    assert ann.racer is not None and line_stats(lines["ann"]) == stats(ann.racer.game)
    assert lines["bob"]["moves"] == 0 and lines["bob"]["vegas"] == -52
    mark = len(org.client.frames)
    await org.client.send("t_end", {"id": org.id, "admin": org.admin})
    refused = await answer(org.client, mark, "reject")
    assert refused["d"]["code"] == "not_playing"  # no round is being played now
