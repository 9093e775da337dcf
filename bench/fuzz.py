"""The fuzz campaign at full size: hostile frames of every class beside an
honest race, and the honest players' ack latency without it, with it, and
during a ping flood from two sockets.

Run from the project's root::

    .venv/bin/python bench/fuzz.py                         # 100 000 frames, 3 runs
    .venv/bin/python bench/fuzz.py --frames 20000 --repeat 1
    .venv/bin/python bench/fuzz.py --server-root /tmp/old  # another checkout's server

Each run starts its own ``redis-server`` (free port, a /tmp directory) and one
server process with the default options (message credit, caps; countdown
0.2 s, log level warning) from ``--server-root`` (default: this repository),
then an honest race of two players on one fixed deal, each sending ``draw``
and ``undo`` in turn, eight commands a second, and timing each from send to
``ack``. Three phases follow, each measured on the honest acks only:

- **baseline**: the honest race alone, ``--seconds`` long;
- **fuzz**: the campaign (``tests/app/fuzz_support.py``: malformed JSON,
  binary, oversize, deep nesting, wrong types, unknown types, huge/negative/
  fractional numbers, wrong-state commands, commands for the racers' seats),
  ``--frames`` frames from ``--workers`` sockets in a process of their own,
  each paced under the message credit, plus five sockets flooding ``hint`` at
  100 a second; the phase lasts as long as the campaign;
- **ping flood**: two sockets (another process) sending ``ping`` as fast as
  they can for ``--seconds``; a socket the server closes is opened again at
  once, so the flood lasts the whole phase.

It prints, per phase, the medians over ``--repeat`` runs of the honest ack
p50 and p99 (ms), the p99 against the baseline's (the goal for the ping-flood
row: within 3x), how many frames were sent, and how the flooding sockets
ended (close codes). A server that logged an ERROR line fails the run.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "app"))

import fuzz_support as fz  # noqa: E402

HOST = "127.0.0.1"


def out(text: str = "") -> None:
    sys.stdout.write(text + "\n")


def note(text: str) -> None:
    sys.stderr.write(f"[{time.strftime('%H:%M:%S')}] {text}\n")
    sys.stderr.flush()


def free_port() -> int:
    with socket.socket() as s:
        s.bind((HOST, 0))
        return int(s.getsockname()[1])


class Stack:
    """A redis-server and one server process, stopped by PID."""

    def __init__(self, server_root: Path, workdir: Path) -> None:
        self.workdir = workdir
        rport = free_port()
        self.redis = subprocess.Popen(
            ["redis-server", "--port", str(rport), "--bind", HOST, "--save", "", "--appendonly",
             "no", "--dir", str(workdir), "--daemonize", "no", "--maxclients", "10000"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.log = workdir / "server.log"
        env = {**os.environ, "KLONDIKE_COUNTDOWN": "0.2", "KLONDIKE_LOG_LEVEL": "warning",
               "PYTHONPATH": str(server_root),
               "KLONDIKE_WORKERS": "1"}  # one process, as measured before (an older server ignores it)
        time.sleep(0.3)
        with open(self.log, "wb") as log:
            self.server = subprocess.Popen(
                [sys.executable, "-m", "server", "serve", "--host", HOST, "--port", "0",
                 "--redis-url", f"redis://{HOST}:{rport}/0"],
                cwd=server_root, env=env, stdout=subprocess.PIPE, stderr=log)
        assert self.server.stdout is not None
        line = self.server.stdout.readline().decode()
        if "open http://" not in line:
            self.stop()
            raise RuntimeError(f"server did not start: {line!r}\n{self.log.read_text()[-2000:]}")
        port = int(line.rsplit(":", 1)[1].strip().rstrip("/"))
        self.url = f"ws://{HOST}:{port}/ws"

    def errors(self) -> list[str]:
        out = []
        for raw in self.log.read_text().splitlines():
            try:
                level = json.loads(raw).get("level")
            except ValueError:
                level = "raw"
            if level in ("error", "critical", "raw"):
                out.append(raw[:300])
        return out

    def stop(self) -> None:
        for proc in (self.server, self.redis):
            if proc.poll() is None:
                proc.send_signal(signal.SIGTERM)
                try:
                    proc.wait(20)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait()
        if self.server.stdout is not None:
            self.server.stdout.close()


# ---------------------------------------------------------------------- roles (subprocesses)

async def campaign(url: str, room: str, nicknames: list[str], frames: int, workers: int,
                   seed: int) -> dict[str, Any]:
    tally = fz.Tally()
    per = [frames // workers + (1 if i < frames % workers else 0) for i in range(workers)]
    flood = fz.j("hint")
    tasks = [fz.hostile_worker(url, room, nicknames, n, seed * 1000 + i, tally)
             for i, n in enumerate(per)]
    floods = [fz.flooder(url, flood, 10.0, tally, per_tick=1, tick=0.01) for _ in range(5)]
    results = await asyncio.gather(*tasks, *floods)
    return {"sent": dict(tally.sent), "answers": dict(tally.answers),
            "closes": {str(k): v for k, v in tally.closes.items()},
            "connections": tally.connections, "refused": tally.refused_handshakes,
            "flood_closes": [r for r in results[len(tasks):]]}


async def ping_flood(url: str, seconds: float) -> dict[str, Any]:
    """Two sockets pinging flat out for ``seconds``; one closed is opened
    again at once (a flooder comes back), so the flood lasts the whole phase."""
    tally = fz.Tally()
    until = time.monotonic() + seconds

    async def one() -> list[int | None]:
        codes = []
        while time.monotonic() < until:
            try:
                codes.append(await fz.flooder(url, fz.j("ping"), until - time.monotonic(), tally,
                                              per_tick=200, tick=0))
            except (OSError, fz.InvalidHandshake, TimeoutError):
                await asyncio.sleep(0.1)
        return codes

    codes = await asyncio.gather(one(), one())
    closes = [c for each in codes for c in each]
    return {"sent": dict(tally.sent), "flood_closes": dict(Counter(str(c) for c in closes)),
            "connections": tally.connections}


def role_main(a: argparse.Namespace) -> int:
    if a.role == "campaign":
        result = asyncio.run(campaign(a.url, a.room, a.nicknames.split(","), a.frames, a.workers,
                                      a.seed))
    else:
        result = asyncio.run(ping_flood(a.url, a.seconds))
    out(json.dumps(result))
    return 0


# ---------------------------------------------------------------------- one run

async def _phase(players: list[fz.Honest], seconds: float | None,
                 side: subprocess.Popen[bytes] | None) -> list[float]:
    for p in players:
        p.latencies = []
    if side is None:
        assert seconds is not None
        await asyncio.gather(*(p.play(seconds) for p in players))
    else:
        while side.poll() is None:
            await asyncio.gather(*(p.play(1.0) for p in players))
    return [x for p in players for x in p.latencies]


def _side(args: list[str]) -> subprocess.Popen[bytes]:
    return subprocess.Popen([sys.executable, __file__, *args], stdout=subprocess.PIPE)


async def one_run(a: argparse.Namespace, rep: int, workdir: Path) -> dict[str, Any]:
    stack = Stack(Path(a.server_root).resolve(), workdir)
    try:
        players = await fz.honest_race(stack.url)
        room = players[0].room
        rows: dict[str, Any] = {}
        rows["baseline"] = {"lat": await _phase(players, a.seconds, None)}
        side = _side(["--role", "campaign", "--url", stack.url, "--room", room, "--nicknames",
                      "ann,bob", "--frames", str(a.frames), "--workers", str(a.workers),
                      "--seed", str(rep + 1)])
        started = time.monotonic()
        lat = await _phase(players, None, side)
        out = json.loads(side.communicate()[0] or b"{}")
        rows["fuzz"] = {"lat": lat, "side": out, "s": time.monotonic() - started}
        side = _side(["--role", "ping-flood", "--url", stack.url, "--seconds", str(a.seconds)])
        lat = await _phase(players, None, side)
        rows["ping flood"] = {"lat": lat, "side": json.loads(side.communicate()[0] or b"{}")}
        rejects = sum(len(p.rejects) for p in players)
        for p in players:
            await p.close()
        errors = stack.errors()
        rows["errors"], rows["honest_rejects"] = errors, rejects
        return rows
    finally:
        stack.stop()


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--frames", type=int, default=100_000)
    p.add_argument("--workers", type=int, default=80)
    p.add_argument("--seconds", type=float, default=15.0, help="baseline and ping-flood phases")
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--server-root", default=str(ROOT), help="the source tree whose server to run")
    p.add_argument("--json", help="write the raw figures here")
    p.add_argument("--role", choices=["campaign", "ping-flood"], help=argparse.SUPPRESS)
    p.add_argument("--url", help=argparse.SUPPRESS)
    p.add_argument("--room", help=argparse.SUPPRESS)
    p.add_argument("--nicknames", help=argparse.SUPPRESS)
    p.add_argument("--seed", type=int, default=1, help=argparse.SUPPRESS)
    a = p.parse_args(argv)
    if a.role:
        return role_main(a)
    # stopped by a signal: unwind, so that each run's finally stops its processes
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    if shutil.which("redis-server") is None:
        note("redis-server is not installed (.ci/bootstrap server installs it)")
        return 2
    runs = []
    for rep in range(a.repeat):
        with tempfile.TemporaryDirectory(prefix="kr-fuzz-") as d:
            note(f"run {rep + 1}/{a.repeat}: {a.frames} frames, server from {a.server_root}")
            runs.append(asyncio.run(one_run(a, rep, Path(d))))
            r = runs[-1]
            sent = sum(r["fuzz"]["side"].get("sent", {}).values())
            note(f"  fuzz phase {r['fuzz']['s']:.0f} s, sent {sent}"
                 f" frames, floods closed {r['fuzz']['side'].get('flood_closes')},"
                 f" ping floods closed {r['ping flood']['side'].get('flood_closes')},"
                 f" server errors {len(r['errors'])}, honest rejects {r['honest_rejects']}")
    out(f"\nhonest ack latency (ms), medians of {a.repeat} run(s); server: {a.server_root}")
    out(f"{'phase':<12} {'p50':>8} {'p99':>9} {'p99/base':>9} {'acks':>6}  notes")
    base99 = statistics.median(fz.quantiles(r["baseline"]["lat"])[1] for r in runs)
    for phase in ("baseline", "fuzz", "ping flood"):
        p50 = statistics.median(fz.quantiles(r[phase]["lat"])[0] for r in runs)
        p99 = statistics.median(fz.quantiles(r[phase]["lat"])[1] for r in runs)
        acks = statistics.median(len(r[phase]["lat"]) for r in runs)
        side = runs[-1][phase].get("side", {})
        extra = ""
        if side:
            extra = (f"sent {sum(side.get('sent', {}).values())}, "
                     f"flooders' close codes {side.get('flood_closes')}")
        out(f"{phase:<12} {p50:>8.1f} {p99:>9.1f} {p99 / base99:>8.1f}x {acks:>6.0f}  {extra}")
    bad = [e for r in runs for e in r["errors"]]
    out(f"server ERROR lines: {len(bad)}; honest commands refused: "
          f"{sum(r['honest_rejects'] for r in runs)}")
    for line in bad[:5]:
        out(f"   {line}")
    if a.json:
        Path(a.json).write_text(json.dumps(runs))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
