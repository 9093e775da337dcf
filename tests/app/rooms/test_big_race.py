"""A 300-player race over two server processes, played to the end: some
players win with the vectors' winning script, some resign, some play a
while, some stay idle; once every rank has been checked, those still racing
give up and the race ends. Every rank a player is shown is checked against the
ranking computed here from each player's own game (replayed with the
engine), and every frame of every player and spectator is scanned for cards
they may not see and for the deal's code (docs/protocol.md, "Big rooms")."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any, Final

import pytest
from harness import Client, RedisServer, ServerProcess, Servers
from support.race import (
    FAST_ARGS,
    Racer,
    assert_code_kept,
    scan_racer,
    scan_spectator,
    stats,
    win,
)

CODE: Final = "KL1-D1V-ABYI5NK"  # a Vegas deal of wins.json
PLAYERS: Final = 300
WINNERS: Final = 5
RESIGNERS: Final = 40
PLAYING: Final = 160  # play a while, then stop; the others stay idle
TICK: Final = 0.3

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def two_servers(redis_server: RedisServer, tmp_path_factory: pytest.TempPathFactory
                ) -> Iterator[list[ServerProcess]]:
    group = Servers(tmp_path_factory.mktemp("servers"))
    procs = [group.start(redis_server.url, args=[*FAST_ARGS, "--tick", str(TICK)], name=f"s{i}")
             for i in range(2)]
    yield procs
    group.check()


def plan(i: int, script: list[str]) -> tuple[str, list[str]]:
    """What player ``i`` (``p{i}``) does: its kind and its moves (a prefix of
    the winning script; the winners' last move is played apart)."""
    if 1 <= i <= WINNERS:
        return "winner", script[:-1]
    if i <= WINNERS + RESIGNERS:
        return "resigner", script[:i % 37 + 3]
    if i <= WINNERS + RESIGNERS + PLAYING:
        return "player", script[:i % 61 + 1]
    return "idle", []


def expected_order(racers: list[Racer], finished: list[int], resigned: set[int]
                   ) -> list[list[int]]:
    """The ranking computed from each game: groups of seats in order; the
    server may order a group's seats any way (they tie on every figure but
    when they got there), except the idle ones, who tie on that too and go by
    seat."""
    groups: list[list[int]] = [[seat] for seat in finished]
    rest: dict[tuple[int, int, int], list[int]] = {}
    for racer in racers:
        if racer.seat in finished:
            continue
        s = stats(racer.game)
        rest.setdefault((-s["vegas"], -s["foundation"], s["moves"]), []).append(racer.seat)
    for key in sorted(rest):
        groups.append(sorted(rest[key]))
    return groups


def rank_range(groups: list[list[int]]) -> dict[int, tuple[int, int]]:
    """Each seat's possible ranks: its group's first and last."""
    out, first = {}, 1
    for group in groups:
        for seat in group:
            out[seat] = (first, first + len(group) - 1)
        first += len(group)
    return out


async def test_a_race_of_300_over_two_processes(two_servers: list[ServerProcess]) -> None:
    urls = [s.ws_url for s in two_servers]
    clients = [await Client.open(urls[i % 2], f"p{i}") for i in range(PLAYERS)]
    watchers = [await Client.open(url, f"watcher{i}") for i, url in enumerate(urls)]
    try:
        await race(clients, watchers)
    finally:
        for c in clients + watchers:
            await c.close()


async def race(clients: list[Client], watchers: list[Client]) -> None:
    host = clients[0]
    await host.create("p0", code=CODE, max_players=PLAYERS, boards="live")
    for batch in range(1, PLAYERS, 50):
        await asyncio.gather(*(c.join(host.room, c.name) for c in clients[batch:batch + 50]))
    for w in watchers:
        await w.send("watch", {"room": host.room})
        await w.expect("watching")
    await watchers[1].send("follow", {"nickname": "p3"})
    await watchers[1].expect("following")
    assert sorted(c.seat for c in clients) == list(range(PLAYERS))

    await host.send("start")
    await asyncio.gather(*(c.expect("board") for c in clients))
    script = win(CODE)["script"]
    racers = [Racer(c, CODE) for c in clients]
    plans = {r.seat: plan(i, script) for i, r in enumerate(racers)}

    # everyone plays at once (the winners all but their last move)
    limit = asyncio.Semaphore(60)

    async def play(racer: Racer) -> None:
        kind, moves = plans[racer.seat]
        async with limit:
            last = await racer.play(moves) if moves else None
            if kind == "resigner":
                last = await racer.resign()
        if last is not None:
            d = last["d"]
            assert d["of"] == PLAYERS and 1 <= d["rank"] <= PLAYERS, d

    await asyncio.gather(*(play(r) for r in racers))
    resigned = {s for s, (kind, _) in plans.items() if kind == "resigner"}

    # the winners finish one after another: each ack says the finishing order
    finished: list[int] = []
    for racer in racers[1:WINNERS + 1]:
        await asyncio.sleep(0.01)  # finishing times are in milliseconds: no two alike
        ack = await racer.play(script[-1:])
        finished.append(racer.seat)
        assert ack["d"]["view"]["state"] == "won"
        assert (ack["d"]["rank"], ack["d"]["of"]) == (len(finished), PLAYERS)

    groups = expected_order(racers, finished, resigned)
    ranks = rank_range(groups)
    order = [seat for group in groups for seat in group]

    # the shared tick shows the computed top; everyone's own frame their place
    top = await latest(host, "top", lambda d: [(line["seat"], line["status"]) for line in
                                                d["top"][:WINNERS]] == [(s, "finished") for s in finished])
    assert top["n"] == PLAYERS and sum(top["hist"]) == PLAYERS
    assert top["status"] == {"racing": PLAYERS - WINNERS - len(resigned),
                             "finished": WINNERS, "resigned": len(resigned)}
    check_lines(top["top"], 1, ranks, racers, finished, resigned)
    def placed(d: dict[str, Any]) -> bool:
        """An own frame that shows the final ranking: rank and neighbours."""
        return all(ranks[line["seat"]][0] <= d["rank"] + offset <= ranks[line["seat"]][1]
                   for offset, line in ((-1, d["above"]), (0, d["line"]), (1, d["below"]))
                   if line is not None)

    for racer in racers:  # (the last move reaches everyone's own frame within a tick or so)
        me = await latest(racer.client, "me", placed)
        assert me["line"]["seat"] == racer.seat and me["of"] == PLAYERS
        assert (me["above"] is None) == (me["rank"] == 1)
        assert (me["below"] is None) == (me["rank"] == PLAYERS)

    # the whole field, page by page, is the computed ranking
    field: list[dict[str, Any]] = []
    for first in range(1, PLAYERS + 1, 50):
        await host.send("lb_page", {"first": first, "count": 50})
        page = await host.expect("lb_page", lambda d, f=first: d["first"] == f)
        assert page["of"] == PLAYERS
        field += page["lines"]
    check_lines(field, 1, ranks, racers, finished, resigned)
    idle = [s for s, (kind, _) in plans.items() if kind == "idle" and s not in finished]
    assert [line["seat"] for line in field if line["seat"] in idle] == sorted(idle)
    assert sorted(line["seat"] for line in field) == sorted(order)

    # the watcher following p3 saw p3's line and board, as the room allows (live)
    followed = await latest(watchers[1], "follow", lambda d: d["line"]["status"] == "finished")
    assert followed["seat"] == clients[3].seat

    # the idle and those who stopped give up at last: the race ends, the code is revealed
    # (no time limit: on a busy machine the checks above may take a while)
    rest = [r for r in racers if r.seat not in finished and r.seat not in resigned]
    await asyncio.gather(*(r.resign() for r in rest))
    ended = await host.event("ended", timeout=30)
    assert ended["room"]["code"] == CODE
    results = ended["room"]["results"]
    assert [(line["seat"], line["status"]) for line in results[:WINNERS]] == [
        (s, "finished") for s in finished]
    assert {line["status"] for line in results[WINNERS:]} == {"resigned"}
    for c in clients + watchers:
        assert_code_kept(c, CODE)
    for racer in racers:
        scan_racer(racer)
    by_seat = {r.seat: r for r in racers}
    boards = sum(scan_spectator(w, by_seat, boards="live") for w in watchers)
    assert boards > 0, "the spectators saw the top players' boards"
    for c in clients:  # nothing pushed to each player grows with the room (a page asked for may)
        pushed = [(msg["t"], len(raw)) for raw, msg in zip(c.raw, c.frames, strict=True)
                  if msg["t"] not in ("lb_page", "lb_found")]
        assert max(size for _, size in pushed) < 4096, (c.name, max(pushed, key=lambda p: p[1]))


async def latest(client: Client, t: str, pred: Any, timeout: float = 20.0) -> dict[str, Any]:
    """The newest frame of type ``t`` once it satisfies ``pred`` (frames of a
    kind that only comes when it changed: the latest received says how things
    stand, unless a newer one is on its way)."""
    while True:
        newest = last_of(client, t)
        if pred(newest):
            return newest
        await client.expect(t, timeout=timeout)  # (a queued one, or a newer one)


def last_of(client: Client, t: str) -> dict[str, Any]:
    for msg in reversed(client.frames):
        if msg["t"] == t:
            return dict(msg["d"])
    raise AssertionError(f"{client.name} received no {t}")


def check_lines(lines: list[dict[str, Any]], first: int, ranks: dict[int, tuple[int, int]],
                racers: list[Racer], finished: list[int], resigned: set[int]) -> None:
    """Lines from rank ``first`` on: each where the computed ranking allows,
    with the figures of its player's game."""
    for rank, line in enumerate(lines, start=first):
        seat = line["seat"]
        low, high = ranks[seat]
        assert low <= rank <= high, (rank, line, (low, high))
        s = stats(next(r for r in racers if r.seat == seat).game)
        assert (line["vegas"], line["foundation"], line["moves"]) == (
            s["vegas"], s["foundation"], s["moves"]), line
        want = "finished" if seat in finished else "resigned" if seat in resigned else "racing"
        assert line["status"] == want, line
