"""One day's leaderboard of the daily deal filled over two server processes
(docs/architecture.md, "The daily deal"; issue 18, item 8).

Against a redis-server and two server processes of its own (each with
``--daily-modes D1N``; the servers' clock set to noon UTC of today with
``--clock-offset-file``, so that no midnight comes during the run), one
certified winnable KL2 deal put in the pool: the day's D1N deal. Then
--players players, each a new player on a connection of their own to one
process or the other in turn, started at a steady --rate a second: each
identifies (a new player), takes a seat (``daily_play``), begins
(``start``), plays 0 to 6 moves of the winning line and resigns, or (one in
--finish) plays the whole line and finishes. Measured while the field fills:

- **result submission**: from sending a player's last command (the
  resign, or the last move) to its ack: the result stored and ranked;
- **own place**: every 10th player, right after their result, ``daily``
  (each mode's counts and the player's place and the lines around it);
- **a leaderboard page**: ``GET /api/daily/{day}/D1N?first=R&count=100``
  at a random rank, four times a second.

Then: Redis memory per result (``MEMORY USAGE`` of every key of the day's
room, over the results; and ``used_memory`` over the run, players' profiles
included, per player); and what one player receives with the whole field
behind them as ghosts: --viewers players begin and play nothing for
--seconds, every frame counted.

    .venv/bin/python bench/daily.py                          # 99 997 players, 3 viewers
    .venv/bin/python bench/daily.py --players 20000 --rate 300

Targets (issue 18): submission and own-place p99 at most 50 ms, at most
200 bytes of Redis per result, ghosts at most 1 KB a second per player.

``--bytes N`` measures only what a result costs in Redis, everything
included (issue 24, item 7: at most 700 B): N + --warmup players are made
and identified first, the --warmup play (what is paid once: scripts
loaded, the room's hashes grown past their compact encoding), then the N
each take a seat, begin, play 0 to 6 moves and resign (one in --finish
finishes); ``used_memory`` before and after, over N, and ``MEMORY USAGE``
of every key by kind of key, before and after.

    .venv/bin/python bench/daily.py --bytes 200
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import re
import statistics
import subprocess
import sys
import time
import urllib.request
from collections.abc import Awaitable, Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import orjson  # noqa: E402
import redis  # noqa: E402
from ghosts import Peer, own_redis, say  # noqa: E402

from server.klondike import DealCode  # noqa: E402
from server.klondike.solver import certify  # noqa: E402
from server.race.daily import DAILY_SEATS, DAY_MS, day_of  # noqa: E402
from server.store import keys  # noqa: E402

MODE = "D1N"


def quantile(xs: list[float], q: float) -> float:
    if not xs:
        return float("nan")
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))]


class Figures:
    def __init__(self) -> None:
        self.submit: list[float] = []
        self.place: list[float] = []
        self.page: list[float] = []
        self.failed = 0


async def one_player(url: str, i: int, line: list[str], finish: bool, rng: random.Random,
                     figures: Figures) -> None:
    p = await Peer.open(url)
    try:
        await p.send("identify", {"nickname": f"p{i}"})
        await p.expect("player")
        await p.send("daily_play", {"mode": MODE, "nickname": f"p{i}"})
        await p.expect("joined")
        await p.send("start")
        await p.expect("board")
        moves = line if finish else line[:rng.randint(0, 6)]
        for s, m in enumerate(moves[:-1] if finish else moves, start=1):
            await p.send("move", {"s": s, "m": m})
            await p.expect("ack")
        last = len(moves) if finish else len(moves) + 1
        began = time.perf_counter()
        if finish:
            await p.send("move", {"s": last, "m": moves[-1]})
        else:
            await p.send("resign", {"s": last})
        await p.expect("ack")
        figures.submit.append(time.perf_counter() - began)
        if i % 10 == 0:
            began = time.perf_counter()
            await p.send("daily")
            await p.expect("daily")
            figures.place.append(time.perf_counter() - began)
    finally:
        await p.close()


async def pages(http: str, day: str, stop: asyncio.Event, figures: Figures,
                rng: random.Random) -> None:
    """A page of the leaderboard at a random rank, four times a second."""
    def get(first: int) -> int:
        with urllib.request.urlopen(f"{http}/api/daily/{day}/{MODE}?first={first}&count=100",
                                    timeout=30) as resp:
            return int(orjson.loads(resp.read())["played"])
    played = 1
    while not stop.is_set():
        began = time.perf_counter()
        played = await asyncio.to_thread(get, rng.randint(1, max(1, played)))
        figures.page.append(time.perf_counter() - began)
        await asyncio.sleep(0.25)


def start_server(env: dict[str, str], rport: int, clock: Path) -> tuple[subprocess.Popen[bytes], int]:
    proc = subprocess.Popen([sys.executable, "-m", "server", "serve", "--host", "127.0.0.1",
                             "--port", "0", "--redis-url", f"redis://127.0.0.1:{rport}/0",
                             "--msg-burst", "100000", "--msg-rate", "100000",
                             "--daily-modes", MODE, "--clock-offset-file", str(clock)],
                            cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    assert proc.stdout is not None
    line = proc.stdout.readline().decode()
    if "open http://" not in line:
        raise RuntimeError(f"the server did not start: {line!r}")
    return proc, int(line.rsplit(":", 1)[1].strip().rstrip("/"))


def room_memory(r: redis.Redis, room: str) -> tuple[int, int, dict[str, int]]:
    """Bytes of every key of a room (``MEMORY USAGE``, exact), how many keys,
    and the bytes by kind of key (a seat's game hash and its log: one each)."""
    total = count = 0
    kinds: dict[str, int] = {}
    prefix = f"kr:{{{room}}}:"
    for key in r.scan_iter(match=f"{prefix}*", count=1000):
        size = int(r.memory_usage(key, samples=0) or 0)
        name = key.decode()[len(prefix):]
        kind = re.sub(r"^r\d+:s\d+", "r{n}:s{seat}", name)
        kinds[kind] = kinds.get(kind, 0) + size
        total += size
        count += 1
    return total, count, kinds


def key_kind(key: str) -> str:
    """A key with its ids left out: every room's, player's or address's the same."""
    kind = re.sub(r"\{[^}]*\}", "{*}", key)
    kind = re.sub(r"r\d+:s\d+", "r{n}:s{seat}", kind)
    kind = re.sub(r"\d{4}-\d\d-\d\d", "{day}", kind)
    return re.sub(r":[0-9a-f]{16,}$|:[0-9.]+$", ":{id}", kind)


def memory_by_kind(r: redis.Redis) -> dict[str, int]:
    """``MEMORY USAGE`` of every key but the heartbeats, summed by :func:`key_kind`."""
    kinds: dict[str, int] = {}
    for raw in r.scan_iter(count=1000):
        key = raw.decode()
        if key.startswith("kr:proc:"):
            continue
        kind = key_kind(key)
        kinds[kind] = kinds.get(kind, 0) + int(r.memory_usage(key, samples=0) or 0)
    return kinds


def flat_stats(r: redis.Redis) -> dict[str, float]:
    """``MEMORY STATS`` as flat numbers (``db.0.overhead.hashtable.main``, ...)."""
    raw = r.execute_command("MEMORY", "STATS")
    pairs = dict(zip(raw[::2], raw[1::2], strict=True)) if isinstance(raw, list) else raw
    out: dict[str, float] = {}
    for k, v in pairs.items():
        name = k.decode() if isinstance(k, bytes) else str(k)
        if isinstance(v, list):
            for kk, vv in zip(v[::2], v[1::2], strict=True):
                inner = kk.decode() if isinstance(kk, bytes) else str(kk)
                if isinstance(vv, int | float):
                    out[f"{name}.{inner}"] = float(vv)
        elif isinstance(v, int | float):
            out[name] = float(v)
    return out


def winnable_code() -> tuple[str, list[str]]:
    """A draw-one Normal code the solver wins within 2 s, and its winning line."""
    while True:
        code = str(DealCode.random(1, "N"))
        found = certify(code, seconds=2)
        if found is not None and found.notation:
            return code, found.notation


Bench = Callable[[argparse.Namespace, redis.Redis, int, Path], Awaitable[None]]


async def on_own_redis(prefix: str, bench: Bench, args: argparse.Namespace) -> None:
    """Run ``bench`` against a redis-server of its own (no AOF), with a client to it."""
    with own_redis(prefix, "--appendonly", "no") as (rport, workdir):
        r = redis.Redis(port=rport)
        try:
            await bench(args, r, rport, workdir)
        finally:
            r.close()


async def bytes_bench(args: argparse.Namespace, r: redis.Redis, rport: int, workdir: Path) -> None:
    code, line = winnable_code()
    r.sadd(keys.winnable(MODE), code)
    now = int(time.time() * 1000)
    clock = workdir / "clock"
    clock.write_text(str(now // DAY_MS * DAY_MS + DAY_MS // 2 - now))  # noon UTC
    env = {**os.environ, "KLONDIKE_MAX_CONNECTIONS_PER_ADDRESS": "1000000",
           "KLONDIKE_PLAYERS_PER_HOUR": "100000000", "KLONDIKE_DAILY_PER_ADDRESS": "100000000",
           "KLONDIKE_DAILY_RANKED_PER_ADDRESS": "100000000", "KLONDIKE_DAILY_FRESH": "0",
           "KLONDIKE_WINNABLE_POOL": "0",
           "KLONDIKE_LOG_LEVEL": "warning"}
    n = args.bytes
    peers: list[Peer] = []
    proc = None
    try:
        proc, port = start_server(env, rport, clock)
        url = f"ws://127.0.0.1:{port}/ws"
        players: list[str] = []  # their keys: each made now, and identified again to play
        for i in range(n + args.warmup):
            p = await Peer.open(url)
            await p.send("identify", {"nickname": f"player {i}"})
            players.append((await p.expect("player"))["key"])
            await p.close()
        rng = random.Random(24)

        async def play(i: int, key: str) -> None:
            p = await Peer.open(url)
            peers.append(p)
            await p.send("identify", {"key": key})
            await p.expect("player")
            await p.send("daily_play", {"mode": MODE, "nickname": f"player {i}"})
            await p.expect("joined")
            await p.send("start")
            await p.expect("board")
            finish = i % args.finish == 0
            moves = line if finish else line[:rng.randint(0, 6)]
            for s, m in enumerate(moves, start=1):
                await p.send("move", {"s": s, "m": m})
                await p.expect("ack")
            if not finish:
                await p.send("resign", {"s": len(moves) + 1})
                await p.expect("ack")
            await p.close()
            peers.remove(p)

        for i, key in enumerate(players[n:]):  # first uses (scripts loaded, hashes grown) left out
            await play(n + i, key)
        await asyncio.sleep(2.0)
        info_before, stats_before = r.info("memory"), flat_stats(r)
        before, kinds_before = int(info_before["used_memory"]), memory_by_kind(r)
        for i, key in enumerate(players[:n]):
            await play(i, key)
        await asyncio.sleep(2.0)  # the results recorded in the players' histories
        info_after, stats_after = r.info("memory"), flat_stats(r)
        after, kinds_after = int(info_after["used_memory"]), memory_by_kind(r)
        say(f"{n} daily results after {args.warmup} (one in {args.finish} finished), load average "
            f"{os.getloadavg()[0]:.1f}: used_memory grew {after - before} B, "
            f"{(after - before) / n:.0f} B per result (target <= 700)")
        say("  of which (INFO memory, per result): " + ", ".join(
            f"{k[len('used_memory_'):]} {(int(info_after[k]) - int(info_before[k])) / n:.0f}"
            for k in ("used_memory_dataset", "used_memory_overhead", "used_memory_scripts")
            if k in info_after))
        say("  MEMORY STATS grown, per result: " + ", ".join(
            f"{k} {(stats_after[k] - stats_before.get(k, 0)) / n:.0f}" for k in stats_after
            if abs(stats_after[k] - stats_before.get(k, 0)) / n >= 5))
        grown = {k: kinds_after.get(k, 0) - kinds_before.get(k, 0)
                 for k in set(kinds_after) | set(kinds_before)}
        say(f"MEMORY USAGE of every key: {sum(grown.values()) / n:.0f} B per result; by key:")
        for kind, size in sorted(grown.items(), key=lambda kv: -kv[1]):
            if abs(size) / n >= 1:
                say(f"  {kind}: {size / n:.0f}")
    finally:
        for p in peers:
            await p.close()
        if proc is not None:
            proc.terminate()
            proc.wait(30)


async def daily_bench(args: argparse.Namespace, r: redis.Redis, rport: int, workdir: Path) -> None:
    code, line = winnable_code()
    r.sadd(keys.winnable(MODE), code)
    now = int(time.time() * 1000)
    day = day_of(now)
    clock = workdir / "clock"
    clock.write_text(str(now // DAY_MS * DAY_MS + DAY_MS // 2 - now))  # noon UTC
    env = {**os.environ, "KLONDIKE_MAX_CONNECTIONS_PER_ADDRESS": "1000000",
           "KLONDIKE_PLAYERS_PER_HOUR": "100000000", "KLONDIKE_DAILY_PER_ADDRESS": "100000000",
           "KLONDIKE_DAILY_RANKED_PER_ADDRESS": "100000000", "KLONDIKE_DAILY_FRESH": "0",
           "KLONDIKE_WINNABLE_POOL": "0", "KLONDIKE_LOG_LEVEL": "warning"}
    servers: list[subprocess.Popen[bytes]] = []
    viewers: list[Peer] = []
    try:
        ports = []
        for _ in range(2):
            proc, port = start_server(env, rport, clock)
            servers.append(proc)
            ports.append(port)
        urls = [f"ws://127.0.0.1:{p}/ws" for p in ports]
        http = f"http://127.0.0.1:{ports[0]}"
        memory_before = int(r.info("memory")["used_memory"])
        figures = Figures()
        rng = random.Random(18)
        stop = asyncio.Event()
        pager = asyncio.create_task(pages(http, day, stop, figures, random.Random(2)))
        limit = asyncio.Semaphore(args.concurrency)
        say(f"{args.players} players at {args.rate:.0f}/s over two processes; the deal's winning "
            f"line {len(line)} moves, one player in {args.finish} plays it")
        began = time.monotonic()

        async def player(i: int) -> None:
            async with limit:
                try:
                    await one_player(urls[i % 2], i, line, i % args.finish == 0, rng, figures)
                except Exception as exc:
                    figures.failed += 1
                    if figures.failed <= 3:
                        say(f"player {i} failed: {exc!r}")

        tasks = []
        for i in range(args.players):
            due = began + i / args.rate
            wait = due - time.monotonic()
            if wait > 0:
                await asyncio.sleep(wait)
            tasks.append(asyncio.create_task(player(i)))
            if i and i % 10000 == 0:
                say(f"  {i} started, {time.monotonic() - began:.0f} s")
        await asyncio.gather(*tasks)
        filled = time.monotonic() - began
        stop.set()
        await pager
        room = orjson.loads(urllib.request.urlopen(f"{http}/api/daily", timeout=30).read()
                            )["modes"][0]
        results = int(room["played"])
        say(f"filled in {filled:.0f} s ({results / filled:.0f} results/s achieved), "
            f"{results} results, {room['finished']} finished, {figures.failed} players failed")
        used, count, kinds = room_memory(r, room["room"])
        memory_after = int(r.info("memory")["used_memory"])
        ms = 1000
        say("")
        say("| figure | p50 | p99 | target |")
        say("|---|---|---|---|")
        say(f"| result submission (last command to its ack) | {quantile(figures.submit, .5) * ms:.1f} ms "
            f"| {quantile(figures.submit, .99) * ms:.1f} ms | p99 <= 50 ms |")
        say(f"| own place (`daily`) | {quantile(figures.place, .5) * ms:.1f} ms | "
            f"{quantile(figures.place, .99) * ms:.1f} ms | p99 <= 50 ms |")
        say(f"| a leaderboard page of 100 (HTTP) | {quantile(figures.page, .5) * ms:.1f} ms | "
            f"{quantile(figures.page, .99) * ms:.1f} ms | |")
        say("")
        say(f"Redis: the day's room {used / results:.0f} bytes per result ({count} keys, "
            f"{used / 1e6:.1f} MB; target <= 200); everything, players' profiles and keys "
            f"included, {(memory_after - memory_before) / args.players:.0f} bytes per player")
        say("  per result, by key: " + ", ".join(
            f"{k} {v / results:.0f}" for k, v in sorted(kinds.items(), key=lambda kv: -kv[1])
            if v / results >= 1))

        for i in range(args.viewers):
            v = await Peer.open(urls[i % 2])
            viewers.append(v)
            await v.send("identify", {"nickname": f"v{i}"})
            await v.expect("player")
            await v.send("daily_play", {"mode": MODE, "nickname": f"v{i}"})
            await v.expect("joined")
        for v in viewers:
            v.frames.clear()
            await v.send("start")
        watched = time.monotonic()
        await asyncio.sleep(args.seconds)
        elapsed = time.monotonic() - watched
        say("")
        say(f"{args.viewers} players, each {elapsed:.0f} s of their own clock with {results} "
            "ghosts behind them:")
        say("| per player | ghosts frames/s | ghosts bytes/s | all frames/s | all bytes/s |")
        say("|---|---|---|---|---|")
        for i, v in enumerate(viewers):
            ghosts = [f for f in v.frames if f.startswith('{"t":"ghosts"')]
            say(f"| v{i} | {len(ghosts) / elapsed:.2f} | {sum(map(len, ghosts)) / elapsed:.0f} | "
                f"{len(v.frames) / elapsed:.2f} | {sum(map(len, v.frames)) / elapsed:.0f} |")
        say(f"(target: ghosts <= 1 KB/s per player; submissions measured {len(figures.submit)}, "
            f"places {len(figures.place)}, pages {len(figures.page)}; "
            f"mean submission {statistics.mean(figures.submit or [0]) * ms:.1f} ms)")
    finally:
        for v in viewers:
            await v.close()
        for proc in servers:
            proc.terminate()
            proc.wait(30)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, default=None,
                        help="results in the day's field (default: the field's cap less the viewers, "
                             "who take the last seats)")
    parser.add_argument("--rate", type=float, default=500, help="players starting a second")
    parser.add_argument("--concurrency", type=int, default=400, help="players at once, at most")
    parser.add_argument("--finish", type=int, default=200, help="one player in this many finishes")
    parser.add_argument("--viewers", type=int, default=3, help="players measured for ghosts")
    parser.add_argument("--seconds", type=float, default=60, help="of each viewer's own clock")
    parser.add_argument("--bytes", type=int, default=0, metavar="N",
                        help="measure only the Redis bytes of N results, everything included")
    parser.add_argument("--warmup", type=int, default=100,
                        help="results before those measured (first uses: scripts, hashes grown)")
    args = parser.parse_args()
    if args.bytes:
        asyncio.run(on_own_redis("kr-bench-bytes-", bytes_bench, args))
        return
    if args.players is None:
        args.players = DAILY_SEATS - args.viewers
    if args.players + args.viewers > DAILY_SEATS:
        parser.error(f"--players and --viewers take at most {DAILY_SEATS} seats (the field's cap): "
                     "the viewers would be refused room_full")
    asyncio.run(on_own_redis("kr-bench-daily-", daily_bench, args))


if __name__ == "__main__":
    main()
