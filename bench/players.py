"""What a player costs Redis (docs/architecture.md, "Players").

In one process, against a redis-server of its own: --players new players
(a profile and one key each), then each given --results results (a race's:
a code, a place, a time), the history capped as the server caps it.
Printed: Redis memory per player (``used_memory`` before and after, over
the players; and ``MEMORY USAGE`` of one player's keys), per result, and
how long a result's recording and a key's identifying take (p50, p99, one
call at a time: the script's own work and a round trip).

    .venv/bin/python bench/players.py
    .venv/bin/python bench/players.py --players 500 --results 0,100
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from tournament import Redis, redis_memory  # noqa: E402

from server.race.profile import HISTORY_CAP, GameResult  # noqa: E402
from server.race.tokens import hash_token  # noqa: E402
from server.store import Store, keys  # noqa: E402

TTL = 365 * 86_400_000


def result(n: int) -> GameResult:
    return GameResult(ref=f"R{n:07d}ABC/1/3", kind="race", at=1_796_000_000_000 + n, mode="D1N",
                      nickname="a nickname", status="finished", place=2, of=8, time_ms=263_000,
                      vegas=-12, points=85, code="KL2-D1N-AAAAAAAAAAAAG", room=f"R{n:07d}",
                      race=1)


def quantile(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))]


class QuietRedis(Redis):
    """A Redis of its own without an append-only file: its buffer would be
    counted in ``used_memory`` as if players cost it."""

    def __init__(self) -> None:
        super().__init__()
        self.proc.terminate()
        self.proc.wait(10)
        binary = shutil.which("redis-server")
        assert binary is not None
        self.proc = subprocess.Popen(
            [binary, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
             "--appendonly", "no", "--dir", str(self.dir)],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        until = time.monotonic() + 10
        while time.monotonic() < until:
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.2):
                    return
            except OSError:
                time.sleep(0.05)
        raise RuntimeError("redis-server did not start")


async def run(players: int, results: int) -> dict[str, float]:
    redis = QuietRedis()
    try:
        store = await Store.open(redis.url, lanes=1)
        try:
            base = await redis_memory(store)
            ids = [f"P{n:09d}" for n in range(players)]
            for start in range(0, players, 500):
                await asyncio.gather(*(store.players.create_player(p, "a nickname", hash_token(f"k{p}"),
                                                           now_ms=1, ttl_ms=TTL)
                                       for p in ids[start:start + 500]))
            made = await redis_memory(store)
            timings: list[float] = []
            for r in range(results):
                batch = ids if r else ids[1:]
                for start in range(0, len(batch), 500):
                    await asyncio.gather(*(store.players.record_result(p, result(r), cap=HISTORY_CAP,
                                                               ttl_ms=TTL)
                                           for p in batch[start:start + 500]))
                began = time.perf_counter()
                await store.players.record_result(ids[0], result(r), cap=HISTORY_CAP, ttl_ms=TTL)
                timings.append(time.perf_counter() - began)
            full = await redis_memory(store)
            found: list[float] = []
            for p in ids[:200]:
                began = time.perf_counter()
                await store.players.identify_player(hash_token(f"k{p}"), now_ms=2, ttl_ms=TTL)
                found.append(time.perf_counter() - began)
            one = sum([int(await store.call("MEMORY", "USAGE", k, "SAMPLES", "0") or 0)
                       for k in (keys.player(ids[0]), keys.player_history(ids[0]),
                                 keys.key_index(hash_token(f"k{ids[0]}")))])
        finally:
            await store.close()
    finally:
        redis.stop()
    kept = min(results, HISTORY_CAP)
    return {
        "results": results, "per_player": (full - base) / players, "new_player": (made - base) / players,
        "per_result": (full - made) / players / kept if kept else 0.0, "one_player": one,
        "record_p50_ms": statistics.median(timings) * 1000 if timings else 0.0,
        "record_p99_ms": quantile(timings, 0.99) * 1000 if timings else 0.0,
        "identify_p50_ms": statistics.median(found) * 1000,
        "identify_p99_ms": quantile(found, 0.99) * 1000,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, default=1000)
    parser.add_argument("--results", default="0,20,100,150",
                        help="results each player gets, one run per figure (comma-separated)")
    args = parser.parse_args()
    lines = [f"{args.players} players; the history keeps the last {HISTORY_CAP} results",
             f"{'results':>8} {'B/player':>9} {'B new':>7} {'B/result':>9} {'one player':>11} "
             f"{'record p50/p99 ms':>18} {'identify p50/p99 ms':>20}"]
    for n in (int(x) for x in args.results.split(",")):
        f = asyncio.run(run(args.players, n))
        lines.append(f"{n:>8} {f['per_player']:>9.0f} {f['new_player']:>7.0f} "
                     f"{f['per_result']:>9.0f} {f['one_player']:>11.0f} "
                     f"{f['record_p50_ms']:>8.2f} / {f['record_p99_ms']:<7.2f} "
                     f"{f['identify_p50_ms']:>9.2f} / {f['identify_p99_ms']:<7.2f}")
    print("\n".join(lines))  # noqa: T201

if __name__ == "__main__":
    main()
