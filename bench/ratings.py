"""Ratings' costs (issue 28): Redis bytes per rated player, rating updates
per second per core, and quick races' seating over two server processes.

1. In this process, against a redis-server of its own (no AOF): --players
   players, then rated races of six (a quick race's seats) until each has
   raced --races times: each race's ratings read, rated (openskill's
   Plackett–Luce) and applied (``r_apply``, the top list), as
   :mod:`server.app.players.ratings` does. Printed: ``used_memory`` per
   rated player (their profile's rating field, their rated races' list and
   their top-list line: everything the ratings add), and updates per CPU
   second of this process (one player's rating moved = one update) beside
   Redis's CPU per update.
2. Two server processes on one Redis: --queued players (each identified,
   each from an address of its own) press Quick race, spread over both;
   printed: p50/p99 from the request to the seat (``joined``).

    .venv/bin/python bench/ratings.py --players 200 --queued 60     # a small run
    .venv/bin/python bench/ratings.py                                # 2 000 and 2 000
"""

from __future__ import annotations

import argparse
import asyncio
import random
import resource
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(ROOT / "tests"))

from harness import Client, ServerProcess  # noqa: E402
from players import QuietRedis, quantile  # noqa: E402
from tournament import redis_memory  # noqa: E402

from server.race.rating import Rating, rate  # noqa: E402
from server.race.tokens import hash_token  # noqa: E402
from server.store import Store  # noqa: E402

TTL = 365 * 86_400_000
SEATS = 6


def cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


async def redis_cpu(store: Store) -> float:
    info = await store.call("INFO", "cpu")
    text = info.decode() if isinstance(info, bytes) else str(info)
    fields = dict(line.split(":", 1) for line in text.splitlines() if ":" in line)
    return float(fields["used_cpu_sys"]) + float(fields["used_cpu_user"])


async def rated_races(players: int, races: int) -> dict[str, float]:
    redis = QuietRedis()
    try:
        store = await Store.open(redis.url, lanes=1)
        try:
            ids = [f"P{n:09d}" for n in range(players)]
            for pid in ids:
                await store.players.create_player(pid, "a nickname", hash_token(pid), now_ms=1,
                                                  ttl_ms=TTL)
            before = await redis_memory(store)
            updates, started, redis_before = 0, cpu(), await redis_cpu(store)
            rng = random.Random(28)
            for round_ in range(races):
                order = ids[:]
                rng.shuffle(order)
                for n in range(0, len(order) - 1, SEATS):
                    field = order[n:n + SEATS]
                    read = await asyncio.gather(*(store.ratings.ratings(p, ["d1"]) for p in field))
                    after = rate([(r["d1"][0], place) for place, r in enumerate(read, start=1)])
                    ref = f"R{round_:04d}{n:06d}/1"

                    async def one(p: str, got: dict[str, tuple[Rating, str]], a: Rating,
                                  place: int, ref: str = ref, of: int = len(field)) -> None:
                        done = await store.ratings.apply(p, "d1", ref, read=got["d1"][1], after=a,
                                                         at=1_796_000_000_000, place=place, of=of)
                        assert done is not None
                        await store.ratings.rank("d1", p, done.rating.shown)

                    await asyncio.gather(*(one(p, g, a, i) for i, (p, g, a) in
                                           enumerate(zip(field, read, after, strict=True), 1)))
                    updates += len(field)
            spent, redis_spent = cpu() - started, await redis_cpu(store) - redis_before
            grown = await redis_memory(store) - before
        finally:
            await store.close()
    finally:
        redis.stop()
    return {"updates": updates, "per_cpu_s": updates / spent, "redis_cpu_us": 1e6 * redis_spent / updates,
            "bytes_per_player": grown / players}


async def quick_seating(queued: int) -> dict[str, float]:
    redis = QuietRedis()
    logs = Path(tempfile.mkdtemp(prefix="ratings-bench-"))
    env = {"KLONDIKE_QUICK_WAIT": "60"}
    args = ["--proxy-header", "X-Forwarded-For", "--quick-wait", "60"]
    servers = [ServerProcess(redis.url, logs, args=args, env=env, name=n).start() for n in "ab"]
    clients: list[Client] = []
    try:
        waits: list[float] = []

        async def one(n: int) -> None:
            server = servers[n % 2]
            address = f"2001:db8:{n // 65536:x}:{n % 65536:x}::1"
            client = await Client.open(server.ws_url, f"q{n}", address=address)
            clients.append(client)
            await client.send("identify", {"nickname": f"q{n}"})
            await client.expect("player")
            t0 = time.perf_counter()
            await client.send("quick", {"nickname": f"q{n}", "draw": 1, "scoring": "N"})
            await client._joined()
            waits.append(time.perf_counter() - t0)

        for start in range(0, queued, 100):
            await asyncio.gather(*(one(n) for n in range(start, min(queued, start + 100))))
    finally:
        for client in clients:
            await client.close()
        for server in servers:
            server.stop()
        redis.stop()
    return {"queued": len(waits), "p50_ms": 1000 * quantile(waits, 0.5),
            "p99_ms": 1000 * quantile(waits, 0.99)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--players", type=int, default=2000)
    parser.add_argument("--races", type=int, default=3, help="rated races per player")
    parser.add_argument("--queued", type=int, default=2000)
    a = parser.parse_args()
    rated: dict[str, Any] = asyncio.run(rated_races(a.players, a.races))
    lines = [f"rated: {rated['updates']} updates over {a.players} players, {a.races} races each: "
             f"{rated['per_cpu_s']:.0f} updates per CPU second of the rating process, "
             f"Redis {rated['redis_cpu_us']:.0f} µs CPU per update; "
             f"{rated['bytes_per_player']:.0f} B of Redis per rated player"]
    seated = asyncio.run(quick_seating(a.queued))
    lines.append(f"quick: {seated['queued']} players over two processes, request to seat "
                 f"p50 {seated['p50_ms']:.1f} ms, p99 {seated['p99_ms']:.1f} ms")
    print("\n".join(lines))  # noqa: T201


if __name__ == "__main__":
    main()
