"""Quick race pairs by rating (docs/protocol.md, "Races to find"): players
of known ratings over two processes are seated as a model of the window
computed here says — the open race nearest their rating that accepts them,
a race's window widening with the time it has been open, anyone after the
longest wait (the servers' clock moved, not waited for)."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from harness import Client, RedisServer, ServerProcess, Servers
from support.challenge import TestClock
from support.player import identify

from server.app.rooms.quick_races import PLAYERS, WINDOW_BASE, WINDOW_MAX_WAIT_MS, WINDOW_WIDEN
from server.store import keys

_addresses = itertools.count(1)


@pytest.fixture(scope="module")
def clock_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("clock") / "offset"


@pytest.fixture(scope="module")
def two(module_redis: RedisServer, tmp_path_factory: pytest.TempPathFactory, clock_file: Path
        ) -> Iterator[tuple[ServerProcess, ServerProcess]]:
    group = Servers(tmp_path_factory.mktemp("pairing"))
    args = ["--quick-wait", "120", "--proxy-header", "X-Forwarded-For",
            "--clock-offset-file", str(clock_file)]
    a = group.start(module_redis.url, args=args, name="a")
    b = group.start(module_redis.url, args=args, name="b")
    yield a, b
    problems = group.close()
    assert not problems, "server logged errors:\n" + "\n".join(problems)


@dataclass
class Open:
    """An open quick race as the model sees it."""

    room: str
    rating: int
    opened: int
    seats: int = 1


def model(races: list[Open], rating: int, now: int) -> Open | None:
    """The race a player of ``rating`` is sent to at ``now`` (None: a new one)."""
    best: Open | None = None
    for race in races:
        age, gap = now - race.opened, abs(rating - race.rating)
        accepts = age >= WINDOW_MAX_WAIT_MS or gap <= WINDOW_BASE + WINDOW_WIDEN * age / 1000
        if race.seats >= PLAYERS or not accepts:
            continue
        if best is None or gap < abs(rating - best.rating) or (
                gap == abs(rating - best.rating) and race.opened < best.opened):
            best = race
    return best


async def player(server: ServerProcess, clients: Any, name: str, rating: int,
                 redis: Any) -> Client:
    client: Client = await clients(server, name, f"2001:db8:{next(_addresses):x}::1")
    me = await identify(client, nickname=name)
    # a rating of the family as rated races leave it (a test's setting: known ratings)
    redis.hset(keys.player(me["id"]), "r:d1", f"{rating / 60!r} 3.0 12 1")
    return client


async def test_quick_race_pairs_by_rating_and_widens_with_the_wait(
        two: tuple[ServerProcess, ServerProcess], clients: Any, module_redis: RedisServer,
        clock_file: Path) -> None:
    a, b = two
    clock = TestClock(clock_file)
    redis = module_redis.client()
    races: list[Open] = []
    try:
        queue = [("p1", 1500), ("p2", 2400), ("p3", 1520), ("p4", 2350), ("p5", 1800),
                 ("p6", 3000)]
        for n, (name, rating) in enumerate(queue):
            if name == "p6":  # every open race has waited its longest: anyone is taken
                probe: Client = await clients(a, "probe")
                before = await clock.now(probe)
                clock.move(WINDOW_MAX_WAIT_MS + 1000)
                for server in (a, b):
                    probe = await clients(server, "probe")
                    assert await clock.seen(probe) >= before + WINDOW_MAX_WAIT_MS
            c = await player((a, b)[n % 2], clients, name, rating, redis)
            now = await clock.now(c)
            want = model(races, rating, now)
            await c.send("quick", {"nickname": name, "draw": 1, "scoring": "N"})
            joined = await c._joined()
            if want is None:
                assert joined["room"] not in [r.room for r in races], name
                races.append(Open(joined["room"], rating, now))
            else:
                assert joined["room"] == want.room, name
                want.seats += 1
        assert [r.seats for r in races] == [2, 3, 1]  # p1+p3, p2+p4+p6, p5 alone
        assert [r.rating for r in races] == [1500, 2400, 1800]
    finally:
        redis.close()
