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
- **fuzz**: the campaign (``tests/support/fuzz.py``: malformed JSON,
  binary, oversize, deep nesting, wrong types, unknown types, huge/negative/
  fractional numbers, wrong-state commands, commands for the racers' seats),
  ``--frames`` frames from ``--workers`` sockets in a process of their own,
  each paced under the message credit, plus five sockets flooding ``hint`` at
  100 a second; the phase lasts as long as the campaign;
- **ping flood**: two sockets (another process) sending ``ping`` as fast as
  they can for ``--seconds``; a socket the server closes is opened again at
  once, so the flood lasts the whole phase;
- **http fuzz**: ``--http-requests`` hostile HTTP requests (paths, query
  strings, headers, methods, bodies: ``support.fuzz.http_request``) from 16
  connections at a time; every answer checked (no 5xx, every refusal JSON);
- **half-open**: 300 connections from one address each sending a request's
  head without its end, opened again as soon as the server closes one, for
  ``--seconds``;
- **invites**: 20 sockets sending wrong invite codes to an invite-only
  tournament as fast as the message credit lets them, for ``--seconds``;
- **registrations**: 20 sockets registering nicknames in a big tournament as
  fast as the message credit lets them, each opened again after 5 tries, for
  ``--seconds`` (the address's registrations a minute are the invites' too);
- **replays**: 16 clients fetching pages of a replay of the longest log a
  seat may store (2 000 commands of a random legal game, written into Redis
  for the run), each page at a random step with a random size (so that the
  cache seldom has it), for ``--seconds``.

Everything comes from 127.0.0.1, so the attacks meet the per-address caps
at their defaults, as a real attacker from one address would.

It prints, per phase, the medians over ``--repeat`` runs of the honest ack
p50 and p99 (ms), the p99 against the baseline's (the goal for the ping-flood
row: within 3x), and what the attack sent and got (frames, close codes,
statuses, refusals). A server that logged an ERROR line fails the run.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
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
from typing import Any, Final

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT))

import orjson  # noqa: E402
import redis  # noqa: E402
import support.fuzz as fz  # noqa: E402

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
        self.redis_url = f"redis://{HOST}:{rport}/0"
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
        self.port = int(line.rsplit(":", 1)[1].strip().rstrip("/"))
        self.url = f"ws://{HOST}:{self.port}/ws"

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


class Talker:
    """A websocket that sends commands and reads their answers, at most
    ``RATE`` a second (under the message credit: a frame over it is dropped
    unanswered, and an attacker gains nothing by being closed)."""

    RATE: Final = 15.0

    def __init__(self, ws: fz.ClientConnection) -> None:
        self.ws = ws
        self.sent = 0.0

    @classmethod
    async def open(cls, url: str) -> Talker:
        talker = cls(await fz.open_socket(url))
        await talker.answer("hello")
        return talker

    async def answer(self, *types: str) -> dict[str, Any]:
        """The next frame of one of ``types``, or a reject."""
        async with asyncio.timeout(30):
            while True:
                msg = orjson.loads(await self.ws.recv())
                if msg["t"] in types or msg["t"] == "reject":
                    return dict(msg)

    async def ask(self, t: str, d: dict[str, Any], *types: str) -> dict[str, Any]:
        await asyncio.sleep(max(0.0, self.sent + 1 / self.RATE - time.monotonic()))
        self.sent = time.monotonic()
        await self.ws.send(fz.j(t, d))
        return await self.answer(*types)


def _what(msg: dict[str, Any]) -> str:
    return str(msg["d"].get("code")) if msg["t"] == "reject" else str(msg["t"])


async def http_fuzz(url: str, tid: str, requests: int, seed: int) -> dict[str, Any]:
    port = int(url.rsplit(":", 1)[1].split("/")[0])
    statuses, problems = await fz.http_campaign(port, tid, requests, seed, workers=16)
    return {"sent": {"http": requests}, "statuses": {str(k): v for k, v in sorted(statuses.items())},
            "problems": len(problems), "examples": [p for _, p in problems[:3]]}


async def half_open(url: str, seconds: float, sockets: int = 300) -> dict[str, Any]:
    """``sockets`` connections that send a request's head without its end,
    each opened again once the server closes it: how many the server held
    (closed later, by its request timeout) and closed at once (over a cap)."""
    port = int(url.rsplit(":", 1)[1].split("/")[0])
    until = time.monotonic() + seconds
    tally: Counter[str] = Counter()
    longest = 0.0

    async def one() -> None:
        nonlocal longest
        while time.monotonic() < until:
            try:
                reader, writer = await asyncio.open_connection(HOST, port)
            except OSError:
                tally["refused"] += 1
                await asyncio.sleep(0.1)
                continue
            opened = time.monotonic()
            try:
                writer.write(b"GET / HTTP/1.1\r\nHost: x\r\n")
                async with asyncio.timeout(max(1.0, until - opened + 30)):
                    await reader.read()
            except (ConnectionError, TimeoutError):
                pass
            held = time.monotonic() - opened
            writer.close()
            if held < 0.5:
                tally["closed at once"] += 1
                await asyncio.sleep(0.1)
            else:
                tally["held, then closed"] += 1
                longest = max(longest, held)

    await asyncio.gather(*(one() for _ in range(sockets)))
    return {"sent": {"half-open": sum(tally.values())}, "outcomes": dict(tally),
            "longest_held_s": round(longest, 1)}


async def registrations(url: str, tid: str, seconds: float, *, invite: bool,
                        workers: int = 20) -> dict[str, Any]:
    """``workers`` sockets registering nicknames in a big tournament, 5 on a
    socket before it is opened again; or, with ``invite``, sending wrong
    invite codes to an invite-only one on the same socket. For ``seconds``."""
    until = time.monotonic() + seconds
    got: Counter[str] = Counter()
    tries = 10**9 if invite else 5

    async def one(i: int) -> None:
        n = 0
        while time.monotonic() < until:
            try:
                talker = await Talker.open(url)
            except (OSError, fz.InvalidHandshake, TimeoutError):
                got["handshake refused"] += 1
                await asyncio.sleep(0.5)
                continue
            try:
                for _ in range(tries):
                    if time.monotonic() >= until:
                        break
                    n += 1
                    d = {"id": tid, "nickname": f"r{i}x{n}"}
                    if invite:
                        d["invite"] = f"G{i:03d}{n:05d}"
                    got[_what(await talker.ask("t_register", d, "t_registered"))] += 1
            except fz.ConnectionClosed:
                got["closed"] += 1
            finally:
                await talker.ws.close()

    await asyncio.gather(*(one(i) for i in range(workers)))
    return {"sent": {"guesses" if invite else "t_register": sum(got.values())},
            "answers": dict(got)}


async def replays(url: str, path: str, seconds: float, seed: int, workers: int = 16
                  ) -> dict[str, Any]:
    port = int(url.rsplit(":", 1)[1].split("/")[0])
    until = time.monotonic() + seconds
    statuses: Counter[int] = Counter()
    sizes: list[int] = []
    took: list[float] = []

    async def one(rng: random.Random) -> None:
        while time.monotonic() < until:
            first, count = rng.randrange(0, 2001), rng.randrange(1, 101)
            started = time.perf_counter()
            answer = await fz.http_exchange(
                port, f"GET {path}?first={first}&count={count} HTTP/1.1\r\nHost: x\r\n\r\n"
                .encode())
            took.append(time.perf_counter() - started)
            statuses[fz.http_status(answer)] += 1
            sizes.append(len(answer))

    await asyncio.gather(*(one(random.Random(seed * 100 + i)) for i in range(workers)))
    p50 = fz.quantiles(took)[0] if took else float("nan")
    return {"sent": {"pages": len(took)}, "statuses": {str(k): v for k, v in statuses.items()},
            "bytes_per_page": round(statistics.mean(sizes)) if sizes else 0,
            "page_p50_ms": round(p50, 1)}


def role_main(a: argparse.Namespace) -> int:
    if a.role == "campaign":
        result = asyncio.run(campaign(a.url, a.room, a.nicknames.split(","), a.frames, a.workers,
                                      a.seed))
    elif a.role == "ping-flood":
        result = asyncio.run(ping_flood(a.url, a.seconds))
    elif a.role == "http-fuzz":
        result = asyncio.run(http_fuzz(a.url, a.room, a.http_requests, a.seed))
    elif a.role == "half-open":
        result = asyncio.run(half_open(a.url, a.seconds))
    elif a.role in ("registrations", "invites"):
        result = asyncio.run(registrations(a.url, a.room, a.seconds, invite=a.role == "invites"))
    else:
        result = asyncio.run(replays(a.url, a.room, a.seconds, a.seed))
    out(json.dumps(result))
    return 0


async def edge_targets(stack: Stack) -> dict[str, str]:
    """What each attack on the edge aims at, made before the fuzz campaign
    uses up the address's creations for a minute: role -> a tournament's id
    (the replays': the path of the longest replay)."""
    org = await Talker.open(stack.url)
    targets = {"replays": await longest_replay(stack)}
    for role, settings in (("http-fuzz", {}), ("invites", {"invite": True}),
                           ("registrations", {"max_players": 10_000})):
        created = await org.ask("t_create", {"name": role, "settings": settings}, "t_created")
        targets[role] = created["d"]["id"]
    await org.ws.close()
    targets["half-open"] = ""
    return targets


async def longest_replay(stack: Stack) -> str:
    """A one-round tournament whose player's log is as long as a seat may
    store (a random legal game, written into Redis), ended: its replay's path."""
    org = await Talker.open(stack.url)
    created = (await org.ask("t_create", {"name": "Long", "settings": {
        "codes": [fz.CODE], "max_players": 2, "time_limit": 14400}}, "t_created"))["d"]
    if "id" not in created:
        raise RuntimeError(f"the replay phase's tournament was refused: {created}")
    tid, admin = created["id"], created["admin"]
    ann = await Talker.open(stack.url)
    token = (await ann.ask("t_register", {"id": tid, "nickname": "ann"}, "t_registered"))["d"][
        "token"]
    await org.ws.send(fz.j("t_start", {"id": tid, "admin": admin, "at": 0}))
    while True:
        event = await org.answer("t_event")
        if event["d"].get("kind") == "round_started":
            room = event["d"]["room"]
            break
    await ann.ask("resume", {"room": room, "token": token, "since": 0}, "board")
    r = redis.Redis.from_url(stack.redis_url)
    try:
        commands = fz.walk(fz.CODE, 1999)
        r.rpush(f"kr:{{{room}}}:r1:s0:log", *(f"{i} {c}" for i, c in enumerate(commands, 1)))
    finally:
        r.close()
    await org.ws.send(fz.j("t_end", {"id": tid, "admin": admin}))
    while (await org.answer("t_event"))["d"].get("kind") != "round_ended":
        pass
    await org.ws.close()
    await ann.ws.close()
    return f"/api/tournaments/{tid}/rounds/1/replay/0"


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
        targets = await edge_targets(stack)
        rows: dict[str, Any] = {}
        rows["baseline"] = {"lat": await _phase(players, a.seconds, None)}
        side = _side(["--role", "campaign", "--url", stack.url, "--room", room, "--nicknames",
                      "ann,bob", "--frames", str(a.frames), "--workers", str(a.workers),
                      "--seed", str(rep + 1)])
        started = time.monotonic()
        lat = await _phase(players, None, side)
        out = json.loads(side.communicate()[0] or b"{}")
        rows["fuzz"] = {"lat": lat, "side": out, "s": time.monotonic() - started}
        for phase, role in EDGE_PHASES:
            side = _side(["--role", role, "--url", stack.url, "--seconds", str(a.seconds),
                          "--http-requests", str(a.http_requests), "--seed", str(rep + 1),
                          "--room", targets[role]])
            lat = await _phase(players, None, side)
            rows[phase] = {"lat": lat, "side": json.loads(side.communicate()[0] or b"{}")}
        # last: the pinging sockets closed over and over get their address barred for 30 s
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


#: the attacks on the edge (issue 16), each a phase: its row's name and the side's role
EDGE_PHASES: Final = (("http fuzz", "http-fuzz"), ("half-open", "half-open"),
                      ("invites", "invites"), ("registrations", "registrations"),
                      ("replays", "replays"))
PHASES: Final = ("baseline", "fuzz", *(p for p, _ in EDGE_PHASES), "ping flood")


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--frames", type=int, default=100_000)
    p.add_argument("--workers", type=int, default=80)
    p.add_argument("--seconds", type=float, default=15.0, help="baseline and ping-flood phases")
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--server-root", default=str(ROOT), help="the source tree whose server to run")
    p.add_argument("--json", help="write the raw figures here")
    p.add_argument("--http-requests", type=int, default=20_000, help="the http fuzz phase's")
    p.add_argument("--role", choices=["campaign", "ping-flood", *(r for _, r in EDGE_PHASES)],
                   help=argparse.SUPPRESS)
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
    out(f"machine load (1, 5, 15 min) at the end: {', '.join(f'{x:.2f}' for x in os.getloadavg())}"
        f"; {os.cpu_count()} cores")
    out(f"{'phase':<14} {'p50':>8} {'p99':>9} {'p99/base':>9} {'acks':>6}  notes")
    base99 = statistics.median(fz.quantiles(r["baseline"]["lat"])[1] for r in runs)
    for phase in PHASES:
        p50 = statistics.median(fz.quantiles(r[phase]["lat"])[0] for r in runs)
        p99 = statistics.median(fz.quantiles(r[phase]["lat"])[1] for r in runs)
        acks = statistics.median(len(r[phase]["lat"]) for r in runs)
        side = runs[-1][phase].get("side", {})
        extra = ""
        if side:
            told = {k: v for k, v in side.items() if k not in ("sent", "connections", "refused")}
            extra = f"sent {sum(side.get('sent', {}).values())}, {json.dumps(told)}"
        out(f"{phase:<14} {p50:>8.1f} {p99:>9.1f} {p99 / base99:>8.1f}x {acks:>6.0f}  {extra}")
    bad = [e for r in runs for e in r["errors"]]
    bad += [f"http fuzz: {p}" for r in runs for p in r["http fuzz"]["side"].get("examples", [])]
    out(f"server ERROR lines: {len(bad)}; honest commands refused: "
          f"{sum(r['honest_rejects'] for r in runs)}")
    for line in bad[:5]:
        out(f"   {line}")
    if a.json:
        Path(a.json).write_text(json.dumps(runs))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
