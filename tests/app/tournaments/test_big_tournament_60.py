"""A 60-player tournament over 3 rounds on two server processes, one of
them killed in the middle of round 1: players register with the invite
code, two register late (during round 1), one is kicked and banned, one
withdraws, one never shows up for a round (the organizer ends it), rounds 2
and 3 start by themselves a set interval after the round before ended. The standings are
checked against standings computed here from what each player did (their
games replayed with the engine); every frame of every client is scanned for
each round's code before that round ended, and nothing pushed to a socket
grows with the tournament (docs/protocol.md, "Big tournaments")."""

from __future__ import annotations

import asyncio
import csv
import io
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, Final

import pytest
from harness import Client, RedisServer, ServerProcess, Servers, load_wins
from support.race import FAST_ARGS
from support.tournament import assert_round_code_kept, http_get, t_seen

from server.klondike import Game, Move, replay
from server.race.ranking import standing_key

WINS: Final = {w["code"]: w["script"] for w in load_wins()}
CODES: Final = ["KL1-D1V-ACT552B", "KL1-D1V-ABYI5NK", "KL1-D3N-AA3VMOQ"]
PLAYERS: Final = 58  # registered before round 1; two more register during it
TIME_LIMIT: Final = 120  # seconds: the organizer ends round 2 (a player never shows up)
INTERVAL: Final = 2  # seconds from a round's end to the next one's start
WINNERS: Final = frozenset({0, 11, 20, 31, 40, 51})
KICKED: Final = 7  # kicked and banned during round 1
WITHDRAWS: Final = 13  # withdraws during round 2
NO_SHOW: Final = 21  # never comes to round 2
STAYS: Final = 22  # plays a little of round 2, then stops: unfinished
IN_FLIGHT: Final = (11, 3)  # their moves are in flight when process a is killed
LATE: Final = (58, 59)

pytestmark = pytest.mark.slow


@pytest.fixture
def two_servers(redis_server: RedisServer, servers: Servers) -> Iterator[list[ServerProcess]]:
    yield [servers.start(redis_server.url, args=[*FAST_ARGS, "--tick", "0.3"], name=n)
           for n in ("a", "b")]


@dataclass
class Player:
    i: int  # what the player does: see the constants above
    client: Client
    token: str = ""
    number: int = -1  # their player number (registration order)
    played: dict[int, list[str]] = field(default_factory=dict)  # round -> stored commands
    status: dict[int, str] = field(default_factory=dict)  # round -> status in its results

    @property
    def name(self) -> str:
        return f"p{self.i:02d}"


def moves_of(i: int, n: int) -> list[str]:
    """What player ``i`` plays of round ``n`` before resigning (a winner: all of it)."""
    script = WINS[CODES[n - 1]]
    if i in WINNERS:
        return list(script)
    return list(script[:(i * 7 + n * 5) % 29 + 2])


class Clients:
    def __init__(self) -> None:
        self.opened: list[Client] = []

    async def open(self, server: ServerProcess, name: str) -> Client:
        client = await Client.open(server.ws_url, name)
        self.opened.append(client)
        return client


async def register(player: Player, tid: str, invite: str) -> None:
    client = player.client
    await client.send("t_register", {"id": tid, "nickname": player.name, "invite": invite})
    got = await client.expect("t_registered")
    await client.expect("t_sync")
    player.token, player.number = str(got["token"]), int(got["player"])


async def enter(player: Player, room: str, since: int = 0) -> dict[str, Any]:
    """Take the player's seat in a round's room; the board as stored."""
    client = player.client
    if client.room and client.close_code is None:
        await client.send("leave")
        await client.expect("left")
    joined = await client.resume(room, player.token, since=since)
    assert joined["seat"] == player.number, (player.name, joined)
    board = await client.expect("board")
    client.seq = board["s"]
    return board


async def play(player: Player, n: int, moves: list[str]) -> None:
    """Play ``moves`` after those stored, each ack checked against the engine."""
    code, client = CODES[n - 1], player.client
    done = player.played.setdefault(n, [])
    for m in moves:
        reply = await client.move(m)
        assert reply["t"] == "ack", (player.name, n, m, reply)
        done.append(str(Move.parse(m)))
        assert reply["d"]["view"] == replay(code, done).view(), (player.name, n)
        assert reply["d"]["of"] >= 1 and 1 <= reply["d"]["rank"] <= reply["d"]["of"]


async def resign(player: Player, n: int) -> None:
    reply = await player.client.command("resign")
    assert reply["t"] == "ack", (player.name, n, reply)
    player.played.setdefault(n, []).append("resign")
    player.status[n] = "resigned"


async def finish(player: Player, n: int, moves: list[str]) -> None:
    """The rest of the player's round: their moves, then a resign unless they won."""
    await play(player, n, moves)
    if player.i in WINNERS:
        player.status[n] = "finished"
    else:
        await resign(player, n)


def game_of(player: Player, n: int) -> Game:
    return replay(CODES[n - 1], [c for c in player.played.get(n, []) if c != "resign"])


async def test_a_60_player_tournament_over_two_processes_one_killed_mid_round(
        two_servers: list[ServerProcess]) -> None:
    clients = Clients()
    try:
        await tournament(clients, *two_servers)
    finally:
        for client in clients.opened:
            await client.close()


async def tournament(clients: Clients, a: ServerProcess, b: ServerProcess) -> None:
    org = await clients.open(b, "org")
    await org.send("t_create", {"name": "Sixty", "settings": {
        "codes": CODES, "time_limit": TIME_LIMIT, "max_players": 100, "interval": INTERVAL,
        "late_until": 2, "invite": True, "top": 10}})
    created = await org.expect("t_created")
    tid, admin, invite = created["id"], created["admin"], created["invite"]
    await org.expect("t_sync")
    watcher = await clients.open(a, "watcher on a")
    await watcher.send("t_watch", {"id": tid})
    await watcher.expect("t_sync")

    # ---- registration: the invite code, numbered in order, counted not announced
    people = [Player(i, await clients.open((b, a)[i % 2], f"p{i:02d}")) for i in range(PLAYERS)]
    for batch in range(0, PLAYERS, 20):  # at once: numbered in the order they landed
        await asyncio.gather(*(register(p, tid, invite) for p in people[batch:batch + 20]))
    assert sorted(p.number for p in people) == list(range(PLAYERS))
    await org.send("t_page", {"id": tid, "first": 1, "count": 50})
    assert (await org.expect("t_page"))["of"] == PLAYERS
    field_now = await watcher.expect("t_field", lambda d: d["field"]["players"] == PLAYERS)
    assert field_now["field"] == {"players": PLAYERS, "withdrawn": 0, "kicked": 0}
    assert not [f for f in org.frames if f["t"] == "t_event" and f["d"]["kind"] != "created"]

    # ---- round 1, started by the organizer; process a dies half way through
    await org.send("t_start", {"id": tid, "admin": admin})
    rooms = [str((await t_seen(org, "round_started", 1))["room"])]
    limit = asyncio.Semaphore(30)

    async def first_half(p: Player) -> None:
        async with limit:
            await enter(p, rooms[0])
            moves = moves_of(p.i, 1)
            await play(p, 1, moves[:len(moves) // 2])

    await asyncio.gather(*(first_half(p) for p in people))
    kicked = people[KICKED]
    await org.send("t_kick", {"id": tid, "admin": admin, "player": kicked.number, "ban": True})
    assert (await t_seen(org, "kicked"))["player"] == kicked.number
    assert await kicked.client.closed() == 4001
    acked_before_kill = {}
    for i in IN_FLIGHT:  # moves sent, the process dies before some are answered
        p = people[i]
        rest = moves_of(i, 1)[len(p.played[1]):]
        for m in rest[:8]:
            p.client.seq += 1
            await p.client.send("move", {"s": p.client.seq, "m": m})
        await p.client.expect("ack", lambda d, s=p.client.seq - 7: d["s"] == s)
        acked_before_kill[i] = max(f["d"]["s"] for f in p.client.frames if f["t"] == "ack")
    a.kill()
    on_a = [p for p in people if p.i % 2 and p.i != KICKED]
    for p in on_a:
        assert await p.client.closed() == 1006

    async def second_half(p: Player) -> None:
        async with limit:
            moves = moves_of(p.i, 1)
            if p.i % 2:  # back on process b, from where Redis has the game
                since = p.client.v
                p.client = await clients.open(b, f"{p.name} on b")
                await p.client.send("t_resume", {"id": tid, "token": p.token})
                await p.client.expect("t_registered")
                board = await enter(p, rooms[0], since)
                stored = board["s"]
                if p.i in IN_FLIGHT:
                    assert acked_before_kill[p.i] <= stored <= acked_before_kill[p.i] + 7
                    p.played[1] = [str(Move.parse(m)) for m in moves[:stored]]
                assert stored == len(p.played[1]), (p.name, stored)  # nothing acked was lost
                assert board["view"] == game_of(p, 1).view()
            await finish(p, 1, moves[len(p.played[1]):])

    late: list[Player] = []

    async def register_late() -> None:
        for i in LATE:
            p = Player(i, await clients.open(b, f"p{i:02d}"))
            await register(p, tid, invite)
            assert p.number == i
            late.append(p)
            await p.client.send("resume", {"room": rooms[0], "token": p.token, "since": 0})
            assert (await p.client.expect("reject"))["code"] == "bad_token"  # not their round

    await asyncio.gather(register_late(), *(second_half(p) for p in people if p.i != KICKED))
    banned = await clients.open(b, "banned")
    for name in ("p07", "P07", "pO7"):
        await banned.send("t_register", {"id": tid, "nickname": name, "invite": invite})
        assert (await banned.expect("reject"))["code"] == "banned", name
    ended1 = await t_seen(org, "round_ended", 1, timeout=30)
    everyone = [p for p in people if p.i != KICKED] + late
    assert ended1["tournament"]["rounds"][0]["played"] == PLAYERS - 1
    watcher = await clients.open(b, "watcher on b")
    await watcher.send("t_watch", {"id": tid})
    await watcher.expect("t_sync")

    # ---- rounds 2 and 3 start by themselves, INTERVAL seconds after the round before
    for n in (2, 3):
        starting = await t_seen(org, "round_starting", n, timeout=INTERVAL + 15)
        previous = starting["tournament"]["rounds"][n - 2]
        assert starting["start_at"] >= previous["ended_at"] + INTERVAL * 1000
        rooms.append(str((await t_seen(org, "round_started", n))["room"]))
        assert starting["tournament"]["registration"] is False  # late_until: round 2

        async def round_n(p: Player, n: int = n) -> None:
            async with limit:
                if (n, p.i) == (2, NO_SHOW) or (n == 3 and p.i == WITHDRAWS):
                    return
                await enter(p, rooms[n - 1])
                moves = moves_of(p.i, n)
                if (n, p.i) == (2, STAYS):
                    await play(p, n, moves)
                    p.status[n] = "unfinished"
                elif (n, p.i) == (2, WITHDRAWS):
                    await play(p, n, moves)
                    await p.client.send("t_withdraw", {"id": tid, "token": p.token})
                    assert (await p.client.expect("t_withdrawn"))["player"] == p.number
                    p.status[n] = "left"
                else:
                    await finish(p, n, moves)

        await asyncio.gather(*(round_n(p) for p in everyone))
        if n == 2:  # everyone else is done: the no-show would hold the round to its time limit
            await org.send("t_end", {"id": tid, "admin": admin})
        await t_seen(org, "round_ended", n, timeout=30)
    final = await t_seen(watcher, "round_ended", 3)

    # ---- each round ended and was recorded once
    kinds = [(f["d"]["kind"], f["d"].get("round")) for f in org.frames if f["t"] == "t_event"]
    for n in (1, 2, 3):
        assert kinds.count(("round_ended", n)) == 1, kinds
    assert [r["status"] for r in final["tournament"]["rounds"]] == ["ended"] * 3
    assert [r["played"] for r in final["tournament"]["rounds"]] == [
        PLAYERS - 1, PLAYERS - 1 + 2 - 1, PLAYERS - 1 + 2 - 1]  # (1: no show / withdrawn)
    assert final["tournament"]["field"] == {"players": PLAYERS + 2 - 1, "withdrawn": 1,
                                            "kicked": 1}

    # ---- the standings: computed here from each player's games
    lines: list[dict[str, Any]] = []
    for first in range(1, 100, 50):
        await org.send("t_page", {"id": tid, "first": first, "count": 50})
        page = await org.expect("t_page", lambda d, f=first: d["first"] == f)
        assert page["of"] == len(everyone)
        lines += page["lines"]
    assert [line["rank"] for line in lines] == list(range(1, len(everyone) + 1))
    server_line = {line["player"]: line for line in lines}
    number = {p.i: p.number for p in people}
    expected = []
    for p in everyone:
        rounds, vegas, cards, wins, time_ms = [], 0, 0, 0, 0
        for n in (1, 2, 3):
            came = n in p.played or n in p.status
            g = game_of(p, n)
            if not came or (not g.moves and p.status.get(n) not in ("finished", "resigned")):
                rounds.append(["missed", -52, 0, None, 0, None])
                vegas -= 52
                continue
            got = server_line[p.number]["rounds"][n - 1]
            finish_ms = got[3]
            assert (finish_ms is not None) == (p.status[n] == "finished")
            rounds.append([p.status[n], g.vegas, g.foundation_cards, finish_ms, g.moves, got[5]])
            vegas, cards = vegas + g.vegas, cards + g.foundation_cards
            if p.status[n] == "finished":
                wins, time_ms = wins + 1, time_ms + finish_ms
        line = {"player": p.number, "nickname": p.name, "vegas": vegas, "foundation": cards,
                "wins": wins, "time_ms": time_ms,
                "played": sum(1 for r in rounds if r[0] != "missed"), "rounds": rounds}
        if p.i == WITHDRAWS:
            line["withdrawn"] = True
        expected.append(line)
    expected.sort(key=standing_key)
    for rank, line in enumerate(expected, start=1):
        line["rank"] = rank
    assert lines == expected
    for n in (1, 2, 3):  # each round's ranks: distinct, within the seated field
        ranks = [line["rounds"][n - 1][5] for line in lines if line["rounds"][n - 1][5]]
        assert len(set(ranks)) == len(ranks) and max(ranks) <= len(everyone)
    assert final["tournament"]["top"] == expected[:10]

    # ---- each player's own place, and a nickname looked up
    for p in everyone:
        if p.client.close_code is None:
            me = await seen_or_last(p.client, "t_me", lambda d: len(d["line"]["rounds"]) == 3)
            rank = next(line["rank"] for line in expected if line["player"] == p.number)
            assert (me["rank"], me["of"], me["line"]) == (rank, len(everyone),
                                                          {k: v for k, v in expected[rank - 1].items()
                                                           if k != "rank"})
    await org.send("t_find", {"id": tid, "nickname": "P51"})  # p51, case folded
    found = await org.expect("t_found")
    assert found["player"] == number[51] and found["line"]["rank"] == found["rank"]

    # ---- the HTTP results: the same standings, a page at a time, and the CSV
    body = (await http_get(b, f"/api/tournaments/{tid}/results?first=1&count=100")).json()
    assert body["standings"] == expected and body["of"] == len(everyone)
    rows = list(csv.reader(io.StringIO((await http_get(
        b, f"/api/tournaments/{tid}/results.csv?first=11&count=5")).text)))
    assert len(rows) == 1 + 5 * 4 and [r[-1] for r in rows[4::4]] == ["11", "12", "13", "14", "15"]

    # ---- secrecy, and nothing pushed to a socket grows with the field
    for client in clients.opened:
        for n in (1, 2, 3):
            assert_round_code_kept(client, n, rooms[n - 1], CODES[n - 1])
        pushed = [len(raw) for raw, msg in zip(client.raw, client.frames, strict=True)
                  if msg["t"] not in ("t_page", "t_found", "t_standings", "lb_page")]
        assert max(pushed) < 8192, client.name


async def seen_or_last(client: Client, t: str, pred: Any, timeout: float = 10.0) -> dict[str, Any]:
    """The last frame of type ``t`` matching ``pred`` received so far, or the next."""
    for msg in reversed(client.frames):
        if msg["t"] == t and pred(msg["d"]):
            return dict(msg["d"])
    return await client.expect(t, pred, timeout)
