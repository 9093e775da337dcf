"""What a challenge's player receives of its ghosts (docs/architecture.md,
"Challenges and ghosts"): the bytes and frames a second with N ghosts
behind them.

Against a redis-server and a server process of its own: a big challenge,
N players who join it, begin and resign through the server (so each is a
ghost, ranked as the server ranks them), whose ghost traces are then
replaced by made-up games of 1 to 7 minutes (0 to 52 cards home, now and
then one taken back), as traces of real games look. Then V players begin
and play nothing for --seconds of real time (their own clock runs with
it), and every frame they receive is counted. Printed: per player, the
ghosts frames and bytes a second, the largest frame, lines and points per
frame; and the same for everything they received.

    .venv/bin/python bench/ghosts.py
    .venv/bin/python bench/ghosts.py --ghosts 1000 --seconds 120 --viewers 10

Target (issue 18): at most 1 KB a second of ghosts per player with 1 000
ghosts behind them.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import random
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import orjson  # noqa: E402
import redis  # noqa: E402
from websockets.asyncio.client import ClientConnection, connect  # noqa: E402

from server.race.ghosts import encode, record  # noqa: E402
from server.store import keys  # noqa: E402

CODE = "KL1-D1V-ACT552B"


def say(text: str) -> None:
    sys.stdout.write(text + "\n")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextlib.contextmanager
def own_redis(prefix: str, *args: str) -> Iterator[tuple[int, Path]]:
    """A ``redis-server`` of the bench's own (no snapshots; ``args`` are more
    of its options) on a free port, in a temporary folder: its port and the
    folder, once it answers a PING; stopped and the folder removed after."""
    binary = shutil.which("redis-server")
    if binary is None:
        sys.exit("redis-server is not installed")
    workdir = Path(tempfile.mkdtemp(prefix=prefix))
    port = free_port()
    proc = subprocess.Popen([binary, "--port", str(port), "--bind", "127.0.0.1", "--save", "",
                             "--dir", str(workdir), *args],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        client = redis.Redis(port=port, socket_timeout=1)
        for _ in range(500):
            if proc.poll() is not None:
                sys.exit(f"redis-server exited with {proc.returncode}")
            with contextlib.suppress(redis.exceptions.ConnectionError):
                if client.ping():
                    break
            time.sleep(0.02)
        else:
            sys.exit("redis-server did not answer within 10 s")
        client.close()
        yield port, workdir
    finally:
        proc.terminate()
        proc.wait(10)
        shutil.rmtree(workdir, ignore_errors=True)


class Peer:
    """A websocket client that counts what it receives."""

    def __init__(self, ws: ClientConnection) -> None:
        self.ws = ws
        self.frames: list[str] = []
        self.queue: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self.reader = asyncio.create_task(self._read())

    @classmethod
    async def open(cls, url: str) -> Peer:
        return cls(await connect(url, subprotocols=["klondike-race.v1"],  # type: ignore[list-item]
                                 max_size=2**22))

    async def _read(self) -> None:
        try:
            async for raw in self.ws:
                text = raw if isinstance(raw, str) else raw.decode()
                self.frames.append(text)
                await self.queue.put(orjson.loads(text))
        except Exception:
            pass

    async def send(self, t: str, d: dict[str, Any] | None = None) -> None:
        await self.ws.send(orjson.dumps({"t": t, "d": d or {}}).decode())

    async def expect(self, t: str) -> dict[str, Any]:
        while True:
            msg = await asyncio.wait_for(self.queue.get(), 60)
            if msg["t"] == "reject":
                raise RuntimeError(f"refused: {msg['d']}")
            if msg["t"] == t:
                return dict(msg["d"])

    async def close(self) -> None:
        await self.ws.close()
        self.reader.cancel()


def made_up_trace(rng: random.Random) -> str:
    """A game's progress as a real one's looks: cards home now and then over
    1 to 7 minutes, one taken back now and then."""
    trace: list[tuple[int, int, int]] = []
    second, home, credited = 0, 0, 0
    target = rng.randint(5, 52)
    while home < target:
        second += rng.randint(1, 9)
        if home and rng.random() < 0.08:
            home -= 1
        else:
            home += 1
            credited = max(credited, home)
        trace = record(trace, second, home, credited)
    return encode(record(trace, second + rng.randint(1, 30), home, credited, end=True))


async def run(args: argparse.Namespace) -> None:
    with own_redis("kr-bench-ghosts-") as (rport, _):
        await ghosts_bench(args, rport)


async def ghosts_bench(args: argparse.Namespace, rport: int) -> None:
    env = {**os.environ, "KLONDIKE_MAX_CONNECTIONS_PER_ADDRESS": "100000",
           "KLONDIKE_CREATIONS_PER_MINUTE": "100000", "KLONDIKE_WINNABLE_POOL": "0",
           "KLONDIKE_LOG_LEVEL": "warning"}
    server = subprocess.Popen([sys.executable, "-m", "server", "serve", "--host", "127.0.0.1",
                               "--port", "0", "--redis-url", f"redis://127.0.0.1:{rport}/0",
                               "--msg-burst", "100000", "--msg-rate", "100000"],
                              cwd=ROOT, env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.DEVNULL)
    peers: list[Peer] = []
    try:
        assert server.stdout is not None
        line = server.stdout.readline().decode()
        port = int(line.rsplit(":", 1)[1].strip().rstrip("/"))
        url = f"ws://127.0.0.1:{port}/ws"
        host = await Peer.open(url)
        peers.append(host)
        await host.send("create", {"nickname": "host", "settings": {
            "code": CODE, "window": 86400, "max_players": 10000}})
        room = (await host.expect("joined"))["room"]
        started = time.monotonic()
        for chunk in range(0, args.ghosts, 100):
            group = [await Peer.open(url) for _ in range(min(100, args.ghosts - chunk))]

            async def ghost(p: Peer, i: int) -> None:
                await p.send("join", {"room": room, "nickname": f"g{i}"})
                await p.expect("joined")
                await p.send("start")
                await p.expect("board")
                await p.send("resign", {"s": 1})
                await p.expect("ack")
                await p.close()

            await asyncio.gather(*(ghost(p, chunk + i) for i, p in enumerate(group)))
        rng = random.Random(18)
        r = redis.Redis(port=rport)
        seats = [int(m) for m in r.zrange(keys.ghosts(room), 0, -1)]
        r.hset(keys.ghost_traces(room), mapping={s: made_up_trace(rng) for s in seats})
        say(f"{len(seats)} ghosts made in {time.monotonic() - started:.1f} s; "
              f"traces {statistics.mean(len(v) for v in r.hvals(keys.ghost_traces(room))):.0f} "
              "bytes on average")
        viewers = []
        for i in range(args.viewers):
            v = await Peer.open(url)
            peers.append(v)
            await v.send("join", {"room": room, "nickname": f"v{i}"})
            await v.expect("joined")
            viewers.append(v)
        for v in viewers:
            v.frames.clear()
            await v.send("start")
        begun = time.monotonic()
        await asyncio.sleep(args.seconds)
        elapsed = time.monotonic() - begun
        say(f"{args.viewers} players each {elapsed:.0f} s of their own clock, "
              f"{len(seats)} ghosts behind them:")
        say("| per player | ghosts frames/s | ghosts bytes/s | largest ghosts frame | lines/frame "
              "| points/frame | all frames/s | all bytes/s |")
        say("|---|---|---|---|---|---|---|---|")
        for i, v in enumerate(viewers):
            ghosts = [f for f in v.frames if f.startswith('{"t":"ghosts"')]
            parsed = [orjson.loads(f)["d"] for f in ghosts]
            lines = [len(d["lines"]) for d in parsed]
            points = [sum(len(x["p"]) for x in d["lines"]) for d in parsed]
            say(f"| v{i} | {len(ghosts) / elapsed:.2f} | {sum(map(len, ghosts)) / elapsed:.0f} | "
                  f"{max(map(len, ghosts), default=0)} | {max(lines, default=0)} | "
                  f"{max(points, default=0)} | {len(v.frames) / elapsed:.2f} | "
                  f"{sum(map(len, v.frames)) / elapsed:.0f} |")
        r.close()
    finally:
        for p in peers:
            await p.close()
        server.terminate()
        server.wait(20)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--ghosts", type=int, default=1000, help="players who played before")
    parser.add_argument("--viewers", type=int, default=5, help="players measured")
    parser.add_argument("--seconds", type=float, default=60, help="of each measured player's clock")
    asyncio.run(run(parser.parse_args()))


if __name__ == "__main__":
    main()
