"""A big tournament's Redis side: what registering, seating and recording a
round of N players cost (docs/architecture.md, "Tournaments").

In one process, against a redis-server of its own: N players register, the
organizer starts round 1 (its big room is created), every player is seated
in it as their first `resume` would, each gets a final line as their last
move would have left it, the round ends and is recorded into the standings.
Printed per step (medians of --repeat runs): wall time, what it is per
player, Redis round trips and Redis CPU; and Redis memory per player.

    .venv/bin/python bench/tournament.py
    .venv/bin/python bench/tournament.py --players 10000 --repeat 3
"""

from __future__ import annotations

import argparse
import asyncio
import random
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import orjson  # noqa: E402

from server.app.ground import logs  # noqa: E402
from server.app.ground.config import Config, pick  # noqa: E402
from server.app.ground.metrics import Metrics  # noqa: E402
from server.app.rooms.room_config import RoomConfig  # noqa: E402
from server.app.rooms.room_service import Rooms  # noqa: E402
from server.app.root.wiring import connect  # noqa: E402
from server.app.solver.pool import SolverPool  # noqa: E402
from server.app.solver.winnable_deals import WinnableDeals  # noqa: E402
from server.app.tournaments.rounds import TournamentConfig  # noqa: E402
from server.app.tournaments.tournament_service import Tournaments  # noqa: E402
from server.race.ranking import rank_score, seat_member  # noqa: E402
from server.store import Store, keys  # noqa: E402

CODE = "KL1-D1V-ACT552B"
BATCH = 500  # commands in flight at once, as many connections would send them


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Redis:
    def __init__(self) -> None:
        self.dir = Path(tempfile.mkdtemp(prefix="kr-bench-t-"))
        self.port = free_port()
        binary = shutil.which("redis-server")
        if binary is None:
            sys.exit("redis-server is not installed")
        self.proc = subprocess.Popen(
            [binary, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
             "--appendonly", "yes", "--appendfsync", "everysec", "--dir", str(self.dir)],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        until = time.monotonic() + 10
        while time.monotonic() < until:
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.2):
                    return
            except OSError:
                time.sleep(0.05)
        raise RuntimeError("redis-server did not start")

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait(10)
        shutil.rmtree(self.dir, ignore_errors=True)


async def redis_cpu(store: Store) -> float:
    info = await store.call("INFO", "cpu")
    fields = dict(line.split(":", 1) for line in info.decode().split("\r\n") if ":" in line)
    return float(fields["used_cpu_sys"]) + float(fields["used_cpu_user"])


async def redis_memory(store: Store) -> int:
    info = await store.call("INFO", "memory")
    fields = dict(line.split(":", 1) for line in info.decode().split("\r\n") if ":" in line)
    return int(fields["used_memory"])


async def run(players: int, seed: int) -> dict[str, dict[str, float]]:
    redis = Redis()
    trips = [0]

    class Trips:  # the store's observer: only round trips are counted here
        def redis_batch(self, size: int, seconds: float) -> None:
            trips[0] += 1

        def redis_redirect(self, kind: str) -> None:
            pass

        def replica_unconfirmed(self) -> None:
            pass

        def redis_trouble(self, kind: str, error: str, commands: int) -> None:
            pass

    try:  # (whatever fails, the Redis started here is stopped)
        store = await Store.open(redis.url, observer=Trips())
        try:
            return await _steps(store, players, seed, trips)
        finally:
            await store.close()
    finally:
        redis.stop()


async def _steps(store: Store, players: int, seed: int, trips: list[int]) -> dict[str, dict[str, float]]:
    """Register, seat and record a round of ``players``: what each step cost."""
    config = Config(countdown=0.0)

    def now_ms() -> int:
        return int(time.time() * 1000)

    rooms = Rooms(store, pick(config, RoomConfig), now_ms,
                  WinnableDeals(store, SolverPool(0, 0), 0, Metrics()))
    tournaments = Tournaments(store, rooms, pick(config, TournamentConfig), now_ms)
    connect(rooms, tournaments=tournaments)
    out: dict[str, dict[str, float]] = {}

    async def step(name: str, work: Any) -> None:
        cpu, before, start = await redis_cpu(store), trips[0], time.perf_counter()
        await work()
        wall = time.perf_counter() - start
        out[name] = {"wall_ms": wall * 1000, "us_per_player": wall * 1e6 / players,
                     "trips": trips[0] - before,
                     "redis_cpu_ms": (await redis_cpu(store) - cpu) * 1000}

    memory0 = await redis_memory(store)
    t, admin, _ = await tournaments.create("Bench", {
        "codes": [CODE, CODE], "max_players": max(players, 17), "time_limit": 3600})
    tokens: dict[int, str] = {}

    async def register() -> None:
        for i in range(0, players, BATCH):
            got = await asyncio.gather(*(tournaments.register(t.id, f"p{j}")
                                         for j in range(i, min(players, i + BATCH))))
            tokens.update((player, token) for _, player, token in got)

    await step("register", register)
    out["memory"] = {"bytes_per_player": (await redis_memory(store) - memory0) / players}
    started = await tournaments.start_round(t.id, admin, None)
    room = started.rounds[0].room
    assert room is not None

    async def seat() -> None:  # as each player's first resume in the round's room does
        for i in range(0, players, BATCH):
            chunk = range(i, min(players, i + BATCH))
            seated = await asyncio.gather(*(rooms.seat_of(room, tokens[j]) for j in chunk))
            assert list(seated) == list(chunk)

    await step("seat", seat)
    rng = random.Random(seed)
    start_at = now_ms()

    async def finish_lines() -> None:  # what each player's last move left
        for i in range(0, players, BATCH):
            writes = []
            for j in range(i, min(players, i + BATCH)):
                cards = rng.randint(0, 52)
                line = {"seat": j, "nickname": f"p{j}",
                        "status": "finished" if cards == 52 else "resigned",
                        "foundation": cards, "vegas": -52 + 5 * cards, "moves": rng.randint(1, 200),
                        "finish_ms": rng.randint(60_000, 600_000) if cards == 52 else None}
                writes.append(store.call("HSET", keys.board(room), j, orjson.dumps(line)))
                writes.append(store.call("ZADD", keys.ranking(room),
                                         rank_score(line, start_at, start_at + 1000),
                                         seat_member(j)))
            await asyncio.gather(*writes)

    await finish_lines()

    async def record() -> None:
        await rooms.end_race(room, now_anyway=True)  # ends the race, then records the round

    await step("end and record", record)
    data = await store.tournaments.load_tournament_data(t.id)
    assert data is not None and data.t.rounds[0].status == "ended", "the round was not recorded"
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    logs.setup("warning")
    runs = [asyncio.run(run(args.players, seed)) for seed in range(args.repeat)]
    lines = [f"big tournament, {args.players} players, medians of {args.repeat} runs",
             f"{'step':<16}{'wall ms':>10}{'µs/player':>11}{'round trips':>13}{'redis CPU ms':>14}"]
    for name in ("register", "seat", "end and record"):
        cells = {k: statistics.median(r[name][k] for r in runs)
                 for k in ("wall_ms", "us_per_player", "trips", "redis_cpu_ms")}
        lines.append(f"{name:<16}{cells['wall_ms']:>10.0f}{cells['us_per_player']:>11.0f}"
                     f"{cells['trips']:>13.0f}{cells['redis_cpu_ms']:>14.0f}")
    memory = statistics.median(r["memory"]["bytes_per_player"] for r in runs)
    lines.append(f"Redis memory per registered player: {memory:.0f} bytes")
    print("\n".join(lines))  # noqa: T201

if __name__ == "__main__":
    main()
