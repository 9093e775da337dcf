"""Load benchmark of the Klondike Race server: real rooms, real legal moves.

Run from the project's root::

    .venv/bin/python bench/race.py                          # closed 64/512 + open 1000/2000/3000
    .venv/bin/python bench/race.py --mode closed --limit    # closed loop, beside ../shared/limit (c)
    .venv/bin/python bench/race.py --mode open --players 3000 --duration 20
    .venv/bin/python bench/race.py --repeat 3 --limit --json out.json
    .venv/bin/python bench/race.py --mode closed --players 64 --profile py-spy
    .venv/bin/python bench/race.py --cluster --durability all --players 64 512 --repeat 3
    .venv/bin/python bench/race.py --workers 1 2 --case closed:512 --case open:5000 --load-procs 2

Each case starts its own ``redis-server`` (free port, a /tmp directory,
append-only file with ``appendfsync everysec``, as the embedded one) and one
server process (``python -m server serve``, high message credit, 0.2 s
countdown, log level warning), then 1-2 load-generator processes
(``bench/race_client.py``) that open the players' sockets, make rooms of 8
over the protocol (create, join, ready, start) and play real games: each
player sends one of the legal moves of its last ``ack`` (see the client's
docstring). Nothing is measured while rooms are made.

Per case it prints accepted moves/s; ack latency p50/p95/p99 (client side,
send -> ack); leaderboard delivery p99 (from a move's ack at the mover to the
first ``lb`` frame at another player of the room whose line shows the mover's
new move count); server CPU per 1 000 accepted moves (utime+stime of the
server process over the window); Redis round trips per accepted move and
commands per round trip (``/metrics`` deltas); server memory per idle
connection (VmRSS before the players connect and once they have joined
their rooms, divided by their number). ``--limit`` also runs configuration
(c) of ``../shared/limit`` (websockets + orjson + one EVALSHA + fan-out to 8)
at the same connection counts, back to back with the closed-loop cases, and
prints race/limit.

Where the state lives: by default one Redis with ``--durability os``.
``--durability MODE...`` (or ``all``) runs every case on one Redis with each
mode: ``fsync`` (that Redis with ``appendfsync always``), ``replica`` (a
replica beside it; the server waits for it once per batch). ``--cluster``
also runs every case on a Redis Cluster of three masters (made like the
tests' fixture, ``redis-cli --cluster create``), the server given one node
and ``--redis-cluster``; Redis CPU is then the sum of the nodes', and a round
trip is one batch to one node. Every process started here is stopped at the
end, also on Ctrl-C or SIGTERM.

Server processes: ``--workers N...`` runs every case with each of these
``serve --workers`` counts (default 1: one process), back to back in each
repeat; with more than one, the server's CPU is the supervisor's and its
workers' (solver processes apart), its memory their sum, its ``/metrics``
summed over the ``worker`` label, and the summary compares each count's
moves/s with one worker's of the same repeat (targets: closed 512 with 2
workers ≥ 1.6 × one worker, open 5 000 with 2 workers at p99 ≤ 50 ms).
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import json
import math
import multiprocessing as mp
import os
import re
import resource
import select
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from array import array
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any, Final

import big_client
import race_client
import race_profile

ROOT: Final = Path(__file__).resolve().parents[1]
#: the team's stack-limit scripts, beside the repository (optional): ``../shared/limit``,
#: or from a worktree one level further down, ``../../shared/limit`` (``--limit-dir``)
LIMIT_DIRS: Final = (ROOT.parent / "shared" / "limit", ROOT.parent.parent / "shared" / "limit")
CLK_TCK: Final = os.sysconf("SC_CLK_TCK")
PAGE_KB: Final = os.sysconf("SC_PAGE_SIZE") // 1024
HOST: Final = "127.0.0.1"
CLOSED_PLAYERS: Final = (64, 512)
OPEN_PLAYERS: Final = (1000, 2000, 3000)
CLOSED_TARGET: Final = 0.8  # of the limit's configuration (c)
CLUSTER_MASTERS: Final = 3
DURABILITIES: Final = ("os", "fsync", "replica")
SETUP_ORDER: Final = ("single/os", "cluster/os", "single/fsync", "single/replica")
OPEN_P99_TARGET_MS: Final = 25.0  # open 3 000: ack p99 (issue 29)
OPEN_TARGET_PLAYERS: Final = 3000
WORKERS_OPEN_P99_TARGET_MS: Final = 50.0  # open 5 000 over 2 workers: ack p99
CPU_TARGET: Final = 1.0  # closed 64: the limit's server CPU per message over the race's per move
CPU_TARGET_512: Final = 1.3  # closed 512: the same, at least
OPEN_CPU_TARGET_US: Final = 200.0  # open 3 000: server CPU per move
LB_P50_TARGET_MS: Final = 250.0  # open 3 000: a rival's move in a racer's leaderboard
LB_P99_TARGET_MS: Final = 600.0
BEFORE: Final = "before:"  # the label's prefix for a case run with --baseline's server
WORKERS_TARGET: Final = 1.6  # closed 512 with 2 workers, × one worker's moves/s
WORKERS_CLOSED_PLAYERS: Final = 512
WORKERS_OPEN_PLAYERS: Final = 5000
METRICS_TRIES: Final = 5  # /metrics answers that miss a worker, asked again
now = time.monotonic


def out(text: str = "") -> None:
    sys.stdout.write(text + "\n")
    sys.stdout.flush()


def note(text: str) -> None:
    sys.stderr.write(f"[{time.strftime('%H:%M:%S')}] {text}\n")
    sys.stderr.flush()


# ---------------------------------------------------------------------- processes

class Procs:
    """Every process this bench starts, stopped by PID (TERM, then KILL)."""

    def __init__(self) -> None:
        self.popen: list[subprocess.Popen[bytes]] = []
        self.mp: list[mp.process.BaseProcess] = []

    def start(self, args: Sequence[str], **kwargs: Any) -> subprocess.Popen[bytes]:
        proc = subprocess.Popen(list(args), **kwargs)
        self.popen.append(proc)
        return proc

    def stop(self, proc: subprocess.Popen[bytes], timeout: float = 15.0) -> int:
        if proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(timeout)
            except subprocess.TimeoutExpired:
                note(f"pid {proc.pid} ignored SIGTERM: SIGKILL")
                proc.kill()
                proc.wait()
        for stream in (proc.stdout, proc.stderr):
            if stream is not None:
                stream.close()
        if proc in self.popen:
            self.popen.remove(proc)
        return proc.returncode

    def stop_mp(self, proc: mp.process.BaseProcess) -> None:
        proc.join(5)
        if proc.is_alive():
            proc.terminate()
            proc.join(5)
        if proc.is_alive():
            proc.kill()
            proc.join()
        if proc in self.mp:
            self.mp.remove(proc)

    def stop_all(self) -> None:
        for p in list(self.mp):
            p.terminate()
            self.stop_mp(p)
        for proc in reversed(list(self.popen)):
            self.stop(proc, 10.0)


PROCS = Procs()


def free_port() -> int:
    with socket.socket() as s:
        s.bind((HOST, 0))
        return int(s.getsockname()[1])


def cpu_s(pid: int) -> float:
    """utime + stime of a process (all its threads), in seconds."""
    with open(f"/proc/{pid}/stat") as f:
        s = f.read()
    fields = s[s.rfind(")") + 2:].split()
    return (int(fields[11]) + int(fields[12])) / CLK_TCK


def children_cpu_s(pid: int) -> float:
    """utime + stime of the live child processes of ``pid`` (a server's
    solver workers), in seconds."""
    total = 0.0
    for _, fields in _children(pid):
        total += (int(fields[11]) + int(fields[12])) / CLK_TCK
    return total


@functools.cache
def _serve_help(root: Path) -> bytes:
    """``serve --help`` of the server of this checkout: the options a
    ``--baseline`` of before knows."""
    return subprocess.run([sys.executable, "-m", "server", "serve", "--help"], cwd=root,
                          capture_output=True, timeout=60).stdout


def _knows_workers(root: Path) -> bool:
    """Whether the server of this checkout has ``serve --workers`` (a
    ``--baseline`` from before it had not; one from after it runs as many
    workers as cores unless told)."""
    return b"--workers" in _serve_help(root)


def child_pids(pid: int) -> list[int]:
    """The live child processes of ``pid`` (a supervisor's workers)."""
    return sorted(child for child, _ in _children(pid))


def _cmdline(pid: int) -> bytes:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return f.read()
    except OSError:
        return b""


def _children(pid: int) -> Iterator[tuple[int, list[str]]]:
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                s = f.read()
        except OSError:
            continue
        fields = s[s.rfind(")") + 2:].split()
        if int(fields[1]) == pid and fields[0] not in ("Z", "X"):
            yield int(entry), fields


def rss_kb(pid: int) -> int:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def machine_cpu() -> tuple[int, int]:
    with open("/proc/stat") as f:
        v = [int(x) for x in f.readline().split()[1:9]]
    return sum(v) - v[3] - v[4], sum(v)


def wait_quiet(limit_s: float, quiet_pct: float) -> float:
    """Wait (up to ``limit_s``) for a 1 s slice with the machine under ``quiet_pct``
    CPU (100 = one core); the last slice's figure."""
    ncpu = os.cpu_count() or 1
    until = now() + limit_s
    while True:
        b0, t0 = machine_cpu()
        time.sleep(1.0)
        b1, t1 = machine_cpu()
        busy = 100.0 * ncpu * (b1 - b0) / max(1, t1 - t0)
        if busy < quiet_pct or now() >= until:
            return round(busy, 1)


class Redis:
    """One redis-server of the bench's, on a free port (``appendfsync`` as
    given; ``replica_of``: a replica of that port)."""

    def __init__(self, workdir: Path, *, appendfsync: str = "everysec",
                 replica_of: int | None = None) -> None:
        self.dir = workdir / f"redis-{time.monotonic_ns()}"
        self.dir.mkdir(parents=True)
        self.port = free_port()
        extra = ["--replicaof", HOST, str(replica_of)] if replica_of else []
        self.proc = PROCS.start(
            ["redis-server", "--port", str(self.port), "--bind", HOST, "--save", "",
             "--appendonly", "yes", "--appendfsync", appendfsync, "--dir", str(self.dir),
             "--daemonize", "no", "--logfile", str(self.dir / "redis.log"), "--maxclients", "10000",
             "--repl-diskless-sync-delay", "0", *extra],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        until = now() + 15
        while not self._ping():
            if self.proc.poll() is not None or now() > until:
                raise RuntimeError(f"redis-server did not start (see {self.dir / 'redis.log'})")
            time.sleep(0.05)

    @property
    def url(self) -> str:
        return f"redis://{HOST}:{self.port}/0"

    def _ping(self) -> bool:
        try:
            with socket.create_connection((HOST, self.port), timeout=0.5) as s:
                s.sendall(b"PING\r\n")
                return s.recv(16).startswith(b"+PONG")
        except OSError:
            return False

    def info(self, section: str) -> str:
        with socket.create_connection((HOST, self.port), timeout=5) as s:
            s.sendall(f"INFO {section}\r\n".encode())
            data = b""
            while not data.endswith(b"\r\n") or data.count(b"\r\n") < 2:
                data += s.recv(65536)
            return data.decode(errors="replace")

    def stop(self) -> None:
        PROCS.stop(self.proc)
        shutil.rmtree(self.dir, ignore_errors=True)


@dataclass(frozen=True)
class Setup:
    """Where a case's state lives: one Redis (with a durability mode) or a
    Redis Cluster of 3 masters."""

    redis: str  # "single" or "cluster"
    durability: str = "os"
    workers: int = 1  # serve --workers

    @property
    def label(self) -> str:
        return f"{self.redis}/{self.durability}" + (f"/w{self.workers}" if self.workers > 1 else "")


class Backend:
    """The Redis processes of one case, started for it and stopped after it."""

    def __init__(self, setup: Setup, workdir: Path) -> None:
        self.setup = setup
        self.nodes: list[Redis] = []
        self._cluster: Any = None
        if setup.redis == "cluster":
            sys.path.insert(0, str(ROOT / "tests"))
            import harness  # the tests' cluster maker: redis-cli --cluster create, waits by polling

            self._cluster = harness.RedisCluster(workdir / f"cluster-{time.monotonic_ns()}",
                                                 masters=CLUSTER_MASTERS, replicas=0)
            try:
                self._cluster.start()
            finally:  # every node is stopped by PID with the rest, whatever happens
                PROCS.popen.extend(n.proc for n in self._cluster.nodes if n.proc is not None)
            self.url = self._cluster.url
            self.pids = [n.proc.pid for n in self._cluster.nodes if n.proc is not None]
            return
        primary = Redis(workdir, appendfsync="always" if setup.durability == "fsync" else "everysec")
        self.nodes.append(primary)
        if setup.durability == "replica":
            replica = Redis(workdir, replica_of=primary.port)
            self.nodes.append(replica)
            until = now() + 30
            while "master_link_status:up" not in replica.info("replication"):
                if now() > until:
                    raise RuntimeError("the replica did not sync")
                time.sleep(0.05)
        self.url = primary.url
        self.pids = [n.proc.pid for n in self.nodes]

    @property
    def server_env(self) -> list[str]:
        env = [f"KLONDIKE_DURABILITY={self.setup.durability}"]
        if self.setup.redis == "cluster":
            env.append("KLONDIKE_REDIS_CLUSTER=1")
        return env

    def stop(self) -> None:
        for node in self.nodes:
            node.stop()
        if self._cluster is not None:
            for node in self._cluster.nodes:
                if node.proc is not None:
                    PROCS.stop(node.proc)
            shutil.rmtree(self._cluster.dir, ignore_errors=True)


#: ``--gc-stats``: the server started through this, which times every garbage
#: collection (gc.callbacks) and writes the totals to a file twice a second,
#: and applies ``--gc-threshold`` (an experiment); the server's code is untouched.
GC_BOOT: Final = """
import gc, json, os, runpy, sys, threading, time
out, st, t0 = sys.argv.pop(1), {"n": [0, 0, 0], "s": [0.0, 0.0, 0.0], "max": [0.0, 0.0, 0.0]}, [0.0]
def cb(phase, info):
    if phase == "start":
        t0[0] = time.perf_counter()
        return
    g, d = info["generation"], time.perf_counter() - t0[0]
    st["n"][g] += 1; st["s"][g] += d; st["max"][g] = max(st["max"][g], d)
def dump():
    while True:
        time.sleep(0.5)
        with open(out + ".tmp", "w") as f:
            json.dump(st, f)
        os.replace(out + ".tmp", out)
if os.environ.get("BENCH_GC_THRESHOLD"):
    gc.set_threshold(*map(int, os.environ["BENCH_GC_THRESHOLD"].split(",")))
gc.callbacks.append(cb)
threading.Thread(target=dump, daemon=True).start()
sys.argv[0] = "server"
runpy.run_module("server", run_name="__main__", alter_sys=True)
"""


class Server:
    """``python -m server serve --workers N`` on a free port, against ``redis_url``."""

    def __init__(self, redis_url: str, workdir: Path, *, gc_stats: bool = False,
                 extra_env: Sequence[str] = (), root: Path = ROOT, workers: int = 1) -> None:
        self.log = workdir / f"server-{time.monotonic_ns()}.log"
        env = {**os.environ, "KLONDIKE_MSG_RATE": "100000", "KLONDIKE_MSG_BURST": "100000",
               # every simulated player comes from 127.0.0.1: lift the per-address caps
               "KLONDIKE_MAX_CONNECTIONS_PER_ADDRESS": "100000",
               "KLONDIKE_CREATIONS_PER_MINUTE": "100000",
               "KLONDIKE_REGISTRATIONS_PER_MINUTE": "100000",
               "KLONDIKE_ADDRESS_SHARE": "100",
               "KLONDIKE_COUNTDOWN": "0.2", "KLONDIKE_LOG_LEVEL": "warning", "PYTHONUNBUFFERED": "1",
               # no winnable deals kept ready: the solver workers stay idle (--server-env to change)
               "KLONDIKE_WINNABLE_POOL": "0",
               **dict(kv.split("=", 1) for kv in extra_env)}
        self.gc_file = workdir / f"gc-{time.monotonic_ns()}.json" if gc_stats else None
        # /metrics on an address of its own, where the server has one (an older checkout
        # compared against may answer it on the players' port)
        self.metrics_port = free_port() if b"--metrics-address" in _serve_help(root) else 0
        start = ["-c", GC_BOOT, str(self.gc_file)] if self.gc_file else ["-m", "server"]
        with open(self.log, "wb") as log:
            self.proc = PROCS.start(
                [sys.executable, *start, "serve", "--host", HOST, "--port", "0",
                 *(("--workers", str(workers)) if _knows_workers(root) else ()),
                 *(("--metrics-address", f"{HOST}:{self.metrics_port}") if self.metrics_port
                   else ()),
                 "--redis-url", redis_url], cwd=root, env=env, stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE, stderr=log)
        assert self.proc.stdout is not None
        ready, _, _ = select.select([self.proc.stdout], [], [], 30)
        line = self.proc.stdout.readline().decode() if ready else ""
        m = re.search(r"open http://[^:]+:(\d+)/", line)
        if m is None:
            PROCS.stop(self.proc)
            raise RuntimeError(f"server did not start: {line!r}\n{self.log.read_text()[-2000:]}")
        self.port = int(m.group(1))
        self.pid = self.proc.pid
        # the processes that run event loops: this one, or its workers
        self.loops = [self.pid] if workers == 1 else [
            p for p in child_pids(self.pid) if b"spawn_main" in _cmdline(p)]  # (not its tracker)
        if len(self.loops) != workers:
            raise RuntimeError(f"{workers} workers asked for, {len(self.loops)} found")
        self.pids = [self.pid] if workers == 1 else [self.pid, *self.loops]
        self.workers = workers

    def metrics(self) -> dict[str, float]:
        """Every sample by name and labels, summed over the workers' ``worker`` label.

        The worker that answers leaves out a sibling that did not answer it in
        time (``server/app/root/siblings.py``, 2 s), so a busy server of
        workers can answer for some of them only: the sums would then drop by
        that worker's whole count and a window's deltas come out doubled or
        negative. Such an answer is asked again, a few times, then it is an error."""
        for _ in range(METRICS_TRIES):
            try:
                port = self.metrics_port or self.port
                with urllib.request.urlopen(f"http://{HOST}:{port}/metrics", timeout=10) as r:
                    text = r.read().decode()
            except OSError as exc:
                raise RuntimeError(f"the server's /metrics did not answer within 10 s ({exc}): "
                                   "it is far behind") from None
            values: dict[str, float] = {}
            seen: set[str] = set()
            for line in text.splitlines():
                if line.startswith("klondike_") and " " in line:
                    name, _, value = line.rpartition(" ")
                    seen.update(re.findall(r'worker="(\d+)"', name))
                    name = re.sub(r',?worker="\d+"', "", name).replace("{,", "{").replace("{}", "")
                    values[name] = values.get(name, 0.0) + float(value)
            if self.workers == 1 or len(seen) == self.workers:
                return values
            time.sleep(0.2)
        raise RuntimeError(f"/metrics answered for {len(seen)} of {self.workers} workers "
                           f"{METRICS_TRIES} times running: the server is far behind")

    def gc(self) -> dict[str, list[float]] | None:
        """Collections, seconds and longest pause so far, by generation (``--gc-stats``)."""
        if self.gc_file is None:
            return None
        time.sleep(0.6)  # the next dump
        try:
            data: dict[str, list[float]] = json.loads(self.gc_file.read_text())
        except (OSError, ValueError):
            return None
        return data

    def problems(self) -> list[str]:
        """Log lines at error level or worse (the server logs JSON lines), and
        whole tracebacks printed outside the log (the lines up to the next
        JSON one), so that the note says what went wrong."""
        bad: list[str] = []
        raw = False
        for line in self.log.read_text(errors="replace").splitlines():
            if raw and not line.startswith("{"):
                bad[-1] += "\n" + line[:300]
                continue
            raw = line.startswith("Traceback")
            if raw or '"level": "error"' in line or '"level":"error"' in line:
                bad.append(line[:300] if raw else line[:2000])
        return bad

    def stop(self) -> int:
        return PROCS.stop(self.proc, 30.0)


# ---------------------------------------------------------------------- one race case

@dataclass
class Result:
    kind: str  # race or limit
    mode: str
    players: int
    figures: dict[str, float]
    notes: list[str] = field(default_factory=list)
    setup: str = "single/os"  # where the state lived: Setup.label


def pct(sorted_vals: Sequence[float], q: float) -> float:
    if not sorted_vals:
        return float("nan")
    k = max(0, min(len(sorted_vals) - 1, int(q * len(sorted_vals) + 0.999999) - 1))
    return sorted_vals[k]


def _recv(pipe: Connection, expect: str, timeout: float) -> tuple[Any, ...]:
    if not pipe.poll(timeout):
        raise RuntimeError(f"load generator: no {expect!r} within {timeout:.0f} s")
    msg: tuple[Any, ...] = pipe.recv()
    if msg[0] != expect:
        raise RuntimeError(f"load generator: {msg[1] if msg[0] == 'error' else msg!r}")
    return msg


@contextlib.contextmanager
def _workers(port: int, players: int, procs: int) -> Iterator[list[tuple[mp.process.BaseProcess,
                                                                          Connection]]]:
    ctx = mp.get_context("spawn")
    n_rooms = (players + race_client.ROOM_SIZE - 1) // race_client.ROOM_SIZE
    sizes = [min(race_client.ROOM_SIZE, players - r * race_client.ROOM_SIZE) for r in range(n_rooms)]
    workers: list[tuple[mp.process.BaseProcess, Connection]] = []
    try:
        for i in range(procs):
            rooms = [(r, sizes[r]) for r in range(i, n_rooms, procs)]
            parent, child = ctx.Pipe()
            proc = ctx.Process(target=race_client.worker_main, args=(child, HOST, port, rooms, n_rooms),
                               daemon=True, name=f"race-load-{i}")
            proc.start()
            PROCS.mp.append(proc)
            workers.append((proc, parent))
        yield workers
    finally:
        for _proc, pipe in workers:
            with contextlib.suppress(OSError):
                pipe.send(("close",))
        for worker, pipe in workers:
            with contextlib.suppress(OSError, EOFError):
                if pipe.poll(30):
                    pipe.recv()
            PROCS.stop_mp(worker)


def run_race(mode: str, players: int, a: argparse.Namespace, workdir: Path,
             setup: Setup = Setup("single"), root: Path = ROOT) -> Result:
    """One race case; ``root``: the checkout whose server runs it (``--baseline``)."""
    redis = Backend(setup, workdir)
    server: Server | None = None
    spy: subprocess.Popen[bytes] | None = None
    try:
        env = [*redis.server_env, *a.server_env,
               *([f"BENCH_GC_THRESHOLD={a.gc_threshold}"] if a.gc_threshold else [])]
        server = Server(redis.url, workdir, gc_stats=a.gc_stats, extra_env=env, root=root,
                        workers=setup.workers)
        time.sleep(0.5)
        rss0 = _rss(server)
        with _workers(server.port, players, a.load_procs) as workers:
            t0 = now()
            for _, pipe in workers:
                pipe.send(("join",))
            wpids = [_recv(pipe, "joined", 600)[1] for _, pipe in workers]
            t_joined = now() - t0
            time.sleep(1.0)
            rss1 = _rss(server)
            for _, pipe in workers:
                pipe.send(("start",))
            for _, pipe in workers:
                _recv(pipe, "started", 600)
            t_setup = now() - t0
            t_start = now() + a.warmup
            t_end = t_start + a.duration
            for _, pipe in workers:
                pipe.send(("go", mode, t_start, t_end, 3.0))
            if a.profile.startswith("py-spy"):
                spy = _start_py_spy(server.pid, t_start, a.duration, workdir, a.profile == "py-spy-native",
                                    subprocesses=setup.workers > 1)
            gc0 = server.gc() if a.gc_stats and t_start - now() > 0.7 else None
            time.sleep(max(0.0, t_start - now()))
            m0, c0 = server.metrics(), _cpu(server, redis.pids, wpids)
            w0 = now()
            time.sleep(max(0.0, t_end - now()))
            c1, m1 = _cpu(server, redis.pids, wpids), server.metrics()
            window = now() - w0
            gc1 = server.gc()
            stats = [_recv(pipe, "done", 120)[1] for _, pipe in workers]
            rss2 = _rss(server)
        before = "before-" if root != ROOT else ""
        profile = _finish_py_spy(spy, a, f"{before}{mode}{players}") if spy is not None else None
        code = server.stop()
        problems = server.problems()
        server = None
        result = _race_result(mode, players, a, stats, m0, m1, c0, c1, window)
        result.setup = (BEFORE if root != ROOT else "") + setup.label
        f = result.figures
        f["setup_s"], f["join_s"] = round(t_setup, 1), round(t_joined, 1)
        f["mem_kb_per_conn"] = round((rss1 - rss0) / players, 1)
        f["rss_mb"] = round(rss2 / 1024, 1)
        if window < 0.5 * a.duration:  # /metrics took most of the window (asked again, far behind)
            for k in ("moves_s_server", "cpu_ms_per_1k", "trips_per_move", "cmds_per_trip",
                      "server_cpu_pct", "redis_cpu_pct", "load_cpu_pct", "solver_cpu_pct"):
                f[k] = float("nan")
            result.notes.append(f"the server's figures were sampled over {window:.1f} s of the "
                                f"{a.duration:g} s window (/metrics was slow): left out")
        if gc0 is not None and gc1 is not None:
            f["gc_ms_per_s"] = round(1e3 * (sum(gc1["s"]) - sum(gc0["s"])) / window, 1)
            f["gc2_per_s"] = round((gc1["n"][2] - gc0["n"][2]) / window, 2)
            result.notes.append(
                f"gc: {f['gc_ms_per_s']:g} ms/s in collections; per generation, collections in the "
                f"window {[int(b - a_) for a_, b in zip(gc0['n'], gc1['n'], strict=True)]}, seconds "
                f"{[round(b - a_, 3) for a_, b in zip(gc0['s'], gc1['s'], strict=True)]}, "
                f"longest pause so far (ms) {[round(1e3 * x, 1) for x in gc1['max']]}")
        if code != 0:
            result.notes.append(f"server exit code {code}")
        if problems:
            result.notes.append(f"{len(problems)} error lines in the server log, first: {problems[0]}")
        if profile:
            result.notes.append("profile:\n" + profile)
        return result
    except RuntimeError as exc:
        if server is not None:
            tail = server.log.read_text(errors="replace").splitlines()[-5:]
            raise RuntimeError(f"{exc}; server log tail: {tail}") from None
        raise
    finally:
        if spy is not None and spy.poll() is None:
            PROCS.stop(spy)
        if server is not None:
            server.stop()
        redis.stop()


def _cpu(server: Server | int, redis: list[int], workers: list[int]) -> dict[str, float]:
    """CPU seconds so far: the server's processes (a supervisor and its
    workers), their solver processes, Redis, the load generators, the machine."""
    busy, total = machine_cpu()
    pids, loops = (server.pids, server.loops) if isinstance(server, Server) else ([server], [server])
    return {"server": sum(cpu_s(p) for p in pids), "redis": sum(cpu_s(p) for p in redis),
            "load": sum(cpu_s(p) for p in workers), "solver": sum(children_cpu_s(p) for p in loops),
            "busy": busy / CLK_TCK, "total": total / CLK_TCK}


def _rss(server: Server) -> int:
    return sum(rss_kb(p) for p in server.pids)


def _race_result(mode: str, players: int, a: argparse.Namespace, stats: list[dict[str, Any]],
                 m0: dict[str, float], m1: dict[str, float], c0: dict[str, float],
                 c1: dict[str, float], window: float) -> Result:
    ack, lb, lag = array("d"), array("d"), array("d")
    totals: dict[str, Any] = {"rejects": {}}
    for st in stats:
        ack.frombytes(st["ack_lat"])
        lb.frombytes(st["lb_lat"])
        lag.frombytes(st["lag"])
        for k, v in st.items():
            if isinstance(v, int):
                totals[k] = totals.get(k, 0) + v
        for k, v in st["rejects"].items():
            totals["rejects"][k] = totals["rejects"].get(k, 0) + v
    acks, lbs, lags = sorted(ack), sorted(lb), sorted(lag)

    def delta(name: str) -> float:
        return m1.get(name, 0.0) - m0.get(name, 0.0)

    moves_srv = delta("klondike_moves_accepted_total")
    trips = delta("klondike_redis_round_trips_total")
    cmds = delta("klondike_redis_commands_total")
    cpu = {k: c1[k] - c0[k] for k in c0}
    ncpu = os.cpu_count() or 1
    machine = 100.0 * ncpu * cpu["busy"] / cpu["total"] if cpu["total"] else float("nan")
    f: dict[str, float] = {
        "moves_s": round(totals["accepted"] / a.duration, 1),
        "moves_s_server": round(moves_srv / window, 1),
        "p50_ms": round(pct(acks, 0.50) * 1e3, 2), "p95_ms": round(pct(acks, 0.95) * 1e3, 2),
        "p99_ms": round(pct(acks, 0.99) * 1e3, 2), "max_ms": round((acks[-1] if acks else 0) * 1e3, 1),
        "lb_p50_ms": round(pct(lbs, 0.50) * 1e3, 1), "lb_p99_ms": round(pct(lbs, 0.99) * 1e3, 1),
        "lb_samples": len(lbs), "lb_unmatched": totals.get("lb_unmatched", 0),
        # the share of room flushes the server made at a stretched interval (busy process)
        "lb_stretched_pct": round(100 * delta("klondike_leaderboard_stretched_total")
                                  / max(1.0, delta("klondike_leaderboard_frames_total")), 1),
        "cpu_ms_per_1k": round(1e3 * cpu["server"] / moves_srv * 1e3, 1) if moves_srv else float("nan"),
        "server_cpu_pct": round(100 * cpu["server"] / window, 1),
        "redis_cpu_pct": round(100 * cpu["redis"] / window, 1),
        "load_cpu_pct": round(100 * cpu["load"] / window, 1),
        "machine_cpu_pct": round(machine, 1),
        "solver_cpu_pct": round(100 * cpu["solver"] / window, 1),
        "other_cpu_pct": round(machine - 100 * (cpu["server"] + cpu["redis"] + cpu["load"]
                                                + cpu["solver"]) / window, 1),
        "trips_per_move": round(trips / moves_srv, 3) if moves_srv else float("nan"),
        "cmds_per_trip": round(cmds / trips, 2) if trips else float("nan"),
        "srv_move_ms": round(1e3 * delta("klondike_move_seconds_sum") /
                             max(1.0, delta("klondike_move_seconds_count")), 2),
        "undos": totals.get("undos", 0), "errors": totals.get("errors", 0),
        "rejected": sum(totals["rejects"].values()), "stopped": totals.get("stopped", 0),
    }
    if mode == "open":
        f["late"] = totals.get("late", 0)
        f["lag_p99_ms"] = round(pct(lags, 0.99) * 1e3, 1)
        f["offered_s"] = float(players)
    notes = []
    if totals["rejects"]:
        notes.append(f"rejects: {totals['rejects']}")
    if totals.get("errors"):
        notes.append(f"{totals['errors']} connections lost")
    return Result("race", mode, players, f, notes)


def _start_py_spy(pid: int, t_start: float, duration: float, workdir: Path,
                  native: bool, *, subprocesses: bool = False) -> subprocess.Popen[bytes]:
    spy_bin = shutil.which("py-spy", path=str(Path(sys.executable).parent)) or shutil.which("py-spy")
    if spy_bin is None:
        raise RuntimeError("py-spy is not installed: .venv/bin/pip install py-spy")
    time.sleep(max(0.0, t_start - now()))
    out_file = workdir / f"py-spy-{pid}.txt"
    return PROCS.start([spy_bin, "record", "--pid", str(pid), "--duration", str(int(duration)),
                        "--rate", "200", "--format", "raw", "--full-filenames",
                        *(["--native"] if native else []),
                        *(["--subprocesses"] if subprocesses else []), "--output", str(out_file)],
                       stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


def _finish_py_spy(spy: subprocess.Popen[bytes], a: argparse.Namespace, label: str) -> str:
    with contextlib.suppress(subprocess.TimeoutExpired):
        spy.wait(a.duration + 30)
    args = spy.args if isinstance(spy.args, list) else []
    path = Path(str(args[args.index("--output") + 1])) if "--output" in args else None
    err = spy.stderr.read().decode(errors="replace") if spy.stderr else ""
    PROCS.stop(spy)
    if path is None or not path.exists():
        return f"py-spy wrote nothing: {err.strip()[-500:]}"
    if a.profile_out:  # one file per case: NAME-closed64.txt ...
        keep = Path(a.profile_out)
        shutil.copy(path, keep.with_name(f"{keep.stem}-{label}{keep.suffix or '.txt'}"))
    return race_profile.report(path.read_text(), top=a.profile_top)


# ---------------------------------------------------------------------- the limit

def run_limit(players: int, a: argparse.Namespace, workdir: Path) -> Result:
    """../shared/limit configuration (c) at ``players`` connections."""
    redis = Redis(workdir)
    server: subprocess.Popen[bytes] | None = None
    try:
        port, ready = free_port(), workdir / f"limit-ready-{time.monotonic_ns()}"
        with open(workdir / "limit-server.log", "ab") as log:
            server = PROCS.start(
                [sys.executable, str(a.limit_dir / "limit_echo_server.py"), "--port", str(port),
                 "--redis-port", str(redis.port), "--fanout", str(race_client.ROOM_SIZE),
                 "--ready-file", str(ready)], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                stderr=log)
        until = now() + 30
        while not (ready.exists() and ready.stat().st_size):
            if server.poll() is not None or now() > until:
                raise RuntimeError("limit_echo_server.py did not start (see limit-server.log)")
            time.sleep(0.05)
        load = PROCS.start(
            [sys.executable, str(a.limit_dir / "limit_load.py"), "--port", str(port), "--conns",
             str(players), "--duration", str(a.duration), "--warmup", str(a.warmup), "--procs",
             str(a.load_procs), "--watch", f"server={server.pid}", "--watch", f"redis={redis.proc.pid}",
             "--label", f"limit-c-{players}"], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE)
        try:
            stdout, stderr = load.communicate(timeout=a.duration + a.warmup + 300)
        finally:
            PROCS.stop(load)
        lines = [ln for ln in stdout.decode().splitlines() if ln.startswith("{")]
        if not lines:
            raise RuntimeError(f"limit_load.py printed no result: {stderr.decode()[-1000:]}")
        r = json.loads(lines[-1])
        c = r["cpu_pct"]
        f = {"moves_s": float(r["msgs_per_s"]), "p50_ms": r["p50_ms"], "p95_ms": r["p95_ms"],
             "p99_ms": r["p99_ms"], "server_cpu_pct": c.get("server") or float("nan"),
             "redis_cpu_pct": c.get("redis") or float("nan"), "load_cpu_pct": c.get("loadgen"),
             "machine_cpu_pct": c.get("machine"), "other_cpu_pct": c.get("other"),
             "errors": r["errors"] + r["bad_ack"]}
        if r["msgs_per_s"] and c.get("server") is not None:
            f["cpu_ms_per_1k"] = round(10.0 * c["server"] / r["msgs_per_s"] * 1e3, 1)
        return Result("limit", "closed", players, f)
    finally:
        if server is not None:
            PROCS.stop(server)
        redis.stop()


# ---------------------------------------------------------------------- one big room

BIG_PLAYERS: Final = 10_000
BIG_PERIOD: Final = 5.0  # seconds between two commands of a player: 2 000 moves/s from 10 000
BIG_SAMPLE: Final = 200  # acks whose rank is compared with Redis's, moves played one at a time
BIG_TARGETS: Final = {"p99_ms": 100.0, "fresh_p99_ms": 2000.0, "frames_s": 2.0, "kb_s": 2.0,
                      "cpu_vs_rooms": 1.2}


def _server_tick(a: argparse.Namespace) -> float:
    """The servers' ``--tick``: ``KLONDIKE_TICK`` if ``--server-env`` sets it."""
    for item in a.server_env:
        key, _, value = item.partition("=")
        if key == "KLONDIKE_TICK":
            return float(value)
    return 1.25


def run_big(players: int, a: argparse.Namespace, workdir: Path) -> Result:
    """One room of ``players`` over ``a.big_servers`` server processes and one
    Redis, each player sending a command every ``a.big_period`` seconds."""
    redis = Redis(workdir)
    servers: list[Server] = []
    ctx = mp.get_context("spawn")
    workers: list[tuple[mp.process.BaseProcess, Connection]] = []
    try:
        env = [*a.server_env]
        servers = [Server(redis.url, workdir, gc_stats=a.gc_stats, extra_env=env)
                   for _ in range(a.big_servers)]
        ports = [s.port for s in servers]
        time.sleep(0.5)
        rss0 = sum(rss_kb(s.pid) for s in servers)
        procs = max(1, a.load_procs)
        share = (players + procs - 1) // procs
        for i in range(procs):
            parent, child = ctx.Pipe()
            proc = ctx.Process(target=big_client.worker_main, daemon=True, name=f"big-load-{i}",
                               args=(child, HOST, ports, i * share, min(players, (i + 1) * share),
                                     players, redis.port, _server_tick(a)))
            proc.start()
            PROCS.mp.append(proc)
            workers.append((proc, parent))
        t0 = now()
        workers[0][1].send(("create", {"max_players": players, "time_limit": 0, "boards": "after"}))
        room = _recv(workers[0][1], "created", 60)[1]
        for _, pipe in workers:
            pipe.send(("join", room))
        wpids = [_recv(pipe, "joined", 900)[1] for _, pipe in workers]
        t_joined = now() - t0
        time.sleep(1.0)
        rss1 = sum(rss_kb(s.pid) for s in servers)
        for i, (_, pipe) in enumerate(workers):
            pipe.send(("start", i == 0))
        for _, pipe in workers:
            _recv(pipe, "started", 900)
        t_setup = now() - t0
        t_start = now() + a.warmup
        t_end = t_start + a.duration
        for _, pipe in workers:
            pipe.send(("go", t_start, t_end, a.big_period))
        spy = (_start_py_spy(servers[0].pid, t_start, a.duration, workdir,
                             a.profile == "py-spy-native") if a.profile.startswith("py-spy") else None)
        gc0 = [s.gc() for s in servers] if a.gc_stats and t_start - now() > 1.5 else None
        time.sleep(max(0.0, t_start - now()))
        m0 = [s.metrics() for s in servers]
        c0 = [_cpu(s.pid, [redis.proc.pid], wpids) for s in servers]
        w0 = now()
        time.sleep(max(0.0, t_end - now()))
        c1 = [_cpu(s.pid, [redis.proc.pid], wpids) for s in servers]
        m1 = [s.metrics() for s in servers]
        window = now() - w0
        gc1 = [s.gc() for s in servers] if gc0 is not None else None
        stats = [_recv(pipe, "done", 120)[1] for _, pipe in workers]
        per = max(1, BIG_SAMPLE // len(workers))
        sampled = []
        for _, pipe in workers:
            pipe.send(("sample", per))
            sampled.append(_recv(pipe, "sampled", 300)[1])
        rss2 = sum(rss_kb(s.pid) for s in servers)
        profile = _finish_py_spy(spy, a, f"big{players}") if spy is not None else None
        for _, pipe in workers:
            with contextlib.suppress(OSError):
                pipe.send(("close",))
        for proc, pipe in workers:
            with contextlib.suppress(OSError, EOFError):
                if pipe.poll(60):
                    pipe.recv()
            PROCS.stop_mp(proc)
        workers = []
        codes = [s.stop() for s in servers]
        problems = [p for s in servers for p in s.problems()]  # (stopping included)
        servers = []
        result = _big_result(players, a, stats, m0, m1, c0, c1, window, sampled)
        f = result.figures
        f["setup_s"], f["join_s"] = round(t_setup, 1), round(t_joined, 1)
        f["mem_kb_per_conn"] = round((rss1 - rss0) / players, 1)
        f["rss_mb"] = round(rss2 / 1024, 1)
        if any(codes):
            result.notes.append(f"server exit codes {codes}")
        if problems:
            result.notes.append(f"{len(problems)} error lines in the server logs, first: {problems[0]}")
        if gc0 is not None and gc1 is not None:
            for i, (g0, g1) in enumerate(zip(gc0, gc1, strict=True)):
                if g0 is None or g1 is None:
                    continue
                result.notes.append(
                    f"gc of server {i + 1}: {1e3 * (sum(g1['s']) - sum(g0['s'])) / window:.1f} ms/s; "
                    f"collections by generation in the window "
                    f"{[int(b - a_) for a_, b in zip(g0['n'], g1['n'], strict=True)]}, longest pause "
                    f"so far (ms) {[round(1e3 * x, 1) for x in g1['max']]}")
        if profile:
            result.notes.append("profile of the first server process:\n" + profile)
        return result
    finally:
        for proc, pipe in workers:
            with contextlib.suppress(OSError):
                pipe.send(("close",))
            PROCS.stop_mp(proc)
        for s in servers:
            s.stop()
        redis.stop()


def _big_result(players: int, a: argparse.Namespace, stats: list[dict[str, Any]],
                m0: list[dict[str, float]], m1: list[dict[str, float]], c0: list[dict[str, float]],
                c1: list[dict[str, float]], window: float, sampled: list[tuple[int, int]]) -> Result:
    ack, fresh, lag, own = array("d"), array("d"), array("d"), array("d")
    rx: list[tuple[int, int]] = []
    totals: dict[str, Any] = {"rejects": {}}
    for st in stats:
        ack.frombytes(st["ack_lat"])
        fresh.frombytes(st["fresh"])
        own.frombytes(st["own_fresh"])
        lag.frombytes(st["lag"])
        rx += [tuple(x) for x in st["rx"]]
        for k, v in st.items():
            if isinstance(v, int):
                totals[k] = totals.get(k, 0) + v
        for k, v in st["rejects"].items():
            totals["rejects"][k] = totals["rejects"].get(k, 0) + v
    acks, fr = sorted(ack), sorted(fresh)
    moves = sum(m1[i].get("klondike_moves_accepted_total", 0.0)
                - m0[i].get("klondike_moves_accepted_total", 0.0) for i in range(len(m0)))
    trips = sum(m1[i].get("klondike_redis_round_trips_total", 0.0)
                - m0[i].get("klondike_redis_round_trips_total", 0.0) for i in range(len(m0)))
    server_cpu = sum(c1[i]["server"] - c0[i]["server"] for i in range(len(c0)))
    solver_cpu = sum(c1[i]["solver"] - c0[i]["solver"] for i in range(len(c0)))
    redis_cpu = c1[0]["redis"] - c0[0]["redis"]
    load_cpu = c1[0]["load"] - c0[0]["load"]
    busy = c1[0]["busy"] - c0[0]["busy"]
    total = c1[0]["total"] - c0[0]["total"]
    ncpu = os.cpu_count() or 1
    machine = 100.0 * ncpu * busy / total if total else float("nan")
    frames = sorted(f / window for f, _ in rx)
    kbs = sorted(b / window / 1024 for _, b in rx)
    agree, asked = (sum(x[0] for x in sampled), sum(x[1] for x in sampled))
    f: dict[str, float] = {
        "moves_s": round(totals["accepted"] / a.duration, 1),
        "offered_s": round((players + big_client.LEADERS * (big_client.LEADER_PACE - 1)) / a.big_period, 1),
        "p50_ms": round(pct(acks, 0.50) * 1e3, 2), "p95_ms": round(pct(acks, 0.95) * 1e3, 2),
        "p99_ms": round(pct(acks, 0.99) * 1e3, 2),
        "fresh_p50_ms": round(pct(fr, 0.50) * 1e3, 1), "fresh_p99_ms": round(pct(fr, 0.99) * 1e3, 1),
        "fresh_n": len(fr),
        "own_p99_ms": round(pct(sorted(own), 0.99) * 1e3, 1), "own_n": len(own),
        "rank_agree": agree, "rank_asked": asked,
        "frames_s": round(statistics.mean(frames), 2) if frames else float("nan"),
        "frames_s_max": round(frames[-1], 2) if frames else float("nan"),
        "kb_s": round(statistics.mean(kbs), 2) if kbs else float("nan"),
        "kb_s_max": round(kbs[-1], 2) if kbs else float("nan"),
        "cpu_ms_per_1k": round(1e3 * server_cpu / moves * 1e3, 1) if moves else float("nan"),
        "redis_ms_per_1k": round(1e3 * redis_cpu / moves * 1e3, 1) if moves else float("nan"),
        "trips_per_move": round(trips / moves, 3) if moves else float("nan"),
        "server_cpu_pct": round(100 * server_cpu / window, 1),
        "redis_cpu_pct": round(100 * redis_cpu / window, 1),
        "load_cpu_pct": round(100 * load_cpu / window, 1),
        "machine_cpu_pct": round(machine, 1),
        "solver_cpu_pct": round(100 * solver_cpu / window, 1),
        "other_cpu_pct": round(machine - 100 * (server_cpu + redis_cpu + load_cpu + solver_cpu)
                               / window, 1),
        "late": totals.get("late", 0), "errors": totals.get("errors", 0),
        "rejected": sum(totals["rejects"].values()),
        # where the tail is: the load generator's own loop (a command sent
        # this late after its time) and the servers' (arrival -> ack)
        "lag_p99_ms": round(pct(sorted(lag), 0.99) * 1e3, 1),
        "top_gap_ms": round(1e3 * max(st.get("top_gap", 0.0) for st in stats), 1),
        "srv_p99_ms": round(_hist_pct("klondike_move_seconds", m0, m1, 0.99) * 1e3, 1),
        "tick_p99_ms": round(_hist_pct("klondike_tick_seconds", m0, m1, 0.99) * 1e3, 1),
    }
    notes = [f"rejects: {totals['rejects']}"] if totals["rejects"] else []
    kinds: dict[str, int] = {}
    for st in stats:
        for k, v in st["kinds"].items():
            kinds[k] = kinds.get(k, 0) + v
    if kinds and rx:
        notes.append("frames a second per player (leaders apart), by type: " + ", ".join(
            f"{k} {v / len(rx) / window:.2f}" for k, v in sorted(kinds.items(), key=lambda kv: -kv[1])))
    phases = [sum(st["slow_phase"][i] for st in stats) for i in range(10)]
    if sum(phases):
        notes.append(f"acks over {1e3 * big_client.SLOW_ACK:g} ms, by the tenth of the tick their "
                     f"command was sent in (0: the tick's first 10 %): {phases}")
    gaps = [g for st in stats for g in st.get("top_gaps", [])]
    if gaps:
        notes.append("observers' waits over 2 s between two top frames (none is sent while the "
                     "top and the field stay the same; s into the window + s): " +
                     " ".join(f"{at:g}+{gap:g}" for at, gap in gaps))
    if 0 < len(fr) <= 60:  # few samples: all of them, to see what a p99 is made of
        notes.append("freshness samples (ms): " + " ".join(f"{1e3 * x:.0f}" for x in fr))
    return Result("big", "open", players, f, notes)


def _hist_pct(name: str, m0: list[dict[str, float]], m1: list[dict[str, float]], q: float) -> float:
    """The ``q`` quantile of a Prometheus histogram over the window, all
    servers summed, interpolated inside its bucket (so only as fine as the
    buckets)."""
    counts: dict[float, float] = {}
    for before, after in zip(m0, m1, strict=True):
        for key, value in after.items():
            if key.startswith(name + "_bucket{") and 'le="' in key:
                le = key.split('le="', 1)[1].split('"', 1)[0]
                bound = float("inf") if le == "+Inf" else float(le)
                counts[bound] = counts.get(bound, 0.0) + value - before.get(key, 0.0)
    if not counts or not counts.get(float("inf")):
        return float("nan")
    want, low, below = q * counts[float("inf")], 0.0, 0.0
    for bound in sorted(counts):
        if counts[bound] >= want:
            if bound == float("inf"):
                return low
            return low + (bound - low) * (want - below) / max(1e-9, counts[bound] - below)
        low, below = bound, counts[bound]
    return low


BIG_COLS: Final = (
    ("moves_s", "moves/s"), ("p50_ms", "ack p50 ms"), ("p95_ms", "p95 ms"), ("p99_ms", "p99 ms"),
    ("fresh_p99_ms", "fresh p99 ms"), ("frames_s", "frames/s/pl"), ("kb_s", "KiB/s/pl"),
    ("cpu_ms_per_1k", "srv CPU ms/1k mv"), ("redis_ms_per_1k", "redis CPU ms/1k mv"),
    ("mem_kb_per_conn", "KiB/conn"), ("trips_per_move", "trips/mv"),
)


def big_summary(results: list[Result]) -> list[str]:
    """The big room beside the rooms of 8 at the same offered rate, run by run."""
    big = _quiet([r for r in results if r.kind == "big"])
    if not big:
        return []
    rooms = _quiet([r for r in results if r.kind == "race" and r.mode == "open"])
    lines = ["## One big room (medians; spread min-max)", "",
             "| case | " + " | ".join(label for _, label in BIG_COLS) + " |",
             "|" + "---|" * (len(BIG_COLS) + 1)]
    for label, runs in ((f"big {big[0].players}", big),
                        (f"rooms of 8, open {rooms[0].players}" if rooms else "", rooms)):
        if not runs:
            continue
        cells = []
        for k, _ in BIG_COLS:
            med, lo, hi = _med([r.figures.get(k, float("nan")) for r in runs])
            cells.append(_fmt(med) + (f" ({_fmt(lo)}-{_fmt(hi)})" if len(runs) > 1 and lo != hi else ""))
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    t = BIG_TARGETS
    med = {k: _med([r.figures.get(k, float("nan")) for r in big])[0]
           for k in ("p99_ms", "fresh_p99_ms", "frames_s_max", "kb_s_max")}
    agree = sum(r.figures["rank_agree"] for r in big)
    asked = sum(r.figures["rank_asked"] for r in big)

    def verdict(ok: bool) -> str:
        return "met" if ok else "NOT met"

    lines += ["", f"- ack p99 ≤ {t['p99_ms']:g} ms: {verdict(med['p99_ms'] <= t['p99_ms'])}",
              f"- leaderboard freshness p99 ≤ {t['fresh_p99_ms'] / 1e3:g} s (movers in the top N): "
              + (verdict(med['fresh_p99_ms'] <= t['fresh_p99_ms']) if not math.isnan(med['fresh_p99_ms'])
                 else "no sample (no mover seen in the top in the window)"),
              f"- per player at most {t['frames_s']:g} frames and {t['kb_s']:g} KB a second (the "
              f"busiest player but the {big_client.LEADERS} leaders: {med['frames_s_max']:g} frames, "
              f"{med['kb_s_max']:g} KiB): "
              f"{verdict(med['frames_s_max'] <= t['frames_s'] and med['kb_s_max'] <= t['kb_s'])}",
              f"- the rank in an ack agrees with Redis: {agree:g} of {asked:g} sampled acks"]
    pairs = [(b, r) for b in big for r in rooms if b.figures["rep"] == r.figures["rep"]]
    if pairs:
        ratio = _med([b.figures["cpu_ms_per_1k"] / r.figures["cpu_ms_per_1k"] for b, r in pairs])[0]
        lines.append(f"- server CPU per move ≤ {t['cpu_vs_rooms']:g} × rooms of 8 in the same run: "
                     f"{ratio:.2f} × ({verdict(ratio <= t['cpu_vs_rooms'])})")
    return lines


# ---------------------------------------------------------------------- report

RACE_COLS: Final = (
    ("moves_s", "moves/s"), ("p50_ms", "p50 ms"), ("p95_ms", "p95 ms"), ("p99_ms", "p99 ms"),
    ("lb_p99_ms", "lb p99 ms"), ("cpu_ms_per_1k", "srv CPU µs/mv"), ("trips_per_move", "trips/mv"),
    ("cmds_per_trip", "cmds/trip"), ("mem_kb_per_conn", "KiB/idle conn"), ("server_cpu_pct", "srv %"),
    ("redis_cpu_pct", "redis %"), ("load_cpu_pct", "load %"), ("solver_cpu_pct", "solver %"),
    ("other_cpu_pct", "other %"),
)


def _line(r: Result) -> str:
    f = r.figures
    where = f" {r.setup}" if r.kind == "race" else ""
    head = f"{r.kind:5}{where} {r.mode:6} N={r.players:<5}" + (" (!noisy)" if f.get("noisy") else "")
    cols = " ".join(f"{label}={f[k]:g}" for k, label in RACE_COLS if k in f)
    extra = ""
    if r.mode == "open" and r.kind == "race":
        extra = f" late={f['late']:g} lag_p99_ms={f['lag_p99_ms']:g}"
    if r.kind == "big":
        cols = " ".join(f"{label}={f[k]:g}" for k, label in BIG_COLS if k in f)
        extra = (f" fresh_n={f['fresh_n']:g} frames_s_max={f['frames_s_max']:g}"
                 f" kb_s_max={f['kb_s_max']:g} rank_agree={f['rank_agree']:g}/{f['rank_asked']:g}"
                 f" late={f['late']:g} rejected={f['rejected']:g} errors={f['errors']:g}"
                 f" setup_s={f['setup_s']:g} join_s={f['join_s']:g} srv%={f['server_cpu_pct']:g}"
                 f" redis%={f['redis_cpu_pct']:g} load%={f['load_cpu_pct']:g}"
                 f" solver%={f['solver_cpu_pct']:g} other%={f['other_cpu_pct']:g}"
                 f" lag_p99_ms={f['lag_p99_ms']:g} srv_p99_ms={f['srv_p99_ms']:g}"
                 f" tick_p99_ms={f['tick_p99_ms']:g} top_gap_ms={f['top_gap_ms']:g}"
                 f" own_p99_ms={f['own_p99_ms']:g} own_n={f['own_n']:g}")
    if r.kind == "race":
        extra += (f" lb_p50_ms={f['lb_p50_ms']:g} lb_n={f['lb_samples']:g}"
                  f" lb_stretched_pct={f.get('lb_stretched_pct', float('nan')):g}"
                  f" lb_unmatched={f['lb_unmatched']:g} undos={f['undos']:g}"
                  f" rejected={f['rejected']:g} errors={f['errors']:g} srv_move_ms={f['srv_move_ms']:g}"
                  f" setup_s={f['setup_s']:g}")
    return f"{head} {cols}{extra}"


def _med(values: Sequence[float]) -> tuple[float, float, float]:
    vals = [v for v in values if v == v]  # drop NaN
    if not vals:
        return float("nan"), float("nan"), float("nan")
    return statistics.median(vals), min(vals), max(vals)


def _fmt(v: float, digits: int = 3) -> str:
    if v != v:
        return "-"
    return f"{v:,.0f}" if abs(v) >= 100 else f"{v:.{digits}g}"


def _quiet(runs: list[Result]) -> list[Result]:
    quiet = [r for r in runs if not r.figures.get("noisy")]
    return quiet or runs


def summary(results: list[Result], repeat: int) -> list[str]:
    noisy = sum(1 for r in results if r.figures.get("noisy"))
    lines = [f"## Medians of {repeat} run(s) (spread: min-max)"
             + (f"; {noisy} of {len(results)} runs were noisy (other processes over the threshold), "
                "left out where a case has quiet runs" if noisy else ""), ""]
    order = {label: i for i, label in enumerate(SETUP_ORDER)}
    cases = sorted({(r.setup, r.mode, r.players) for r in results if r.kind == "race"},
                   key=lambda c: (c[1] != "closed", c[2], order.get(_one_worker(_plain(c[0])), 99),
                                  not c[0].startswith(BEFORE), c[0]))
    head = ("| case | redis | " + " | ".join(label for _, label in RACE_COLS)
            + " | race/limit | target |")
    lines += [head, "|" + "---|" * (len(RACE_COLS) + 4)]
    for setup, mode, n in cases:
        runs = _quiet([r for r in results if r.kind == "race" and r.mode == mode and r.players == n
                       and r.setup == setup])
        lim = _quiet([r for r in results if r.kind == "limit" and r.players == n
                      and _plain(setup) == "single/os"])
        cells = []
        for k, _ in RACE_COLS:
            med, lo, hi = _med([r.figures.get(k, float("nan")) for r in runs])
            cells.append(_fmt(med) + (f" ({_fmt(lo)}-{_fmt(hi)})" if len(runs) > 1 and lo != hi else ""))
        ratio_txt, target = "-", ""
        if mode == "closed" and lim:
            pairs = [(r, m) for r in results for m in results
                     if r.kind == "race" and m.kind == "limit" and r.mode == mode and r.players == n
                     and r.setup == setup and m.players == n and r.figures["rep"] == m.figures["rep"]
                     and m.figures["moves_s"]]
            quiet = [(r, m) for r, m in pairs if not (r.figures.get("noisy") or m.figures.get("noisy"))]
            ratios = [r.figures["moves_s"] / m.figures["moves_s"] for r, m in (quiet or pairs)]
            ratio, rlo, rhi = _med(ratios)
            ratio_txt = f"{ratio:.2f} ({rlo:.2f}-{rhi:.2f})" if len(ratios) > 1 else f"{ratio:.2f}"
            eff = _med([m.figures.get("cpu_ms_per_1k", float("nan")) / r.figures["cpu_ms_per_1k"]
                        for r, m in (quiet or pairs)])[0]
            ratio_txt += f"; CPU/move: {eff:.2f}"
            want = CPU_TARGET_512 if n >= 512 else CPU_TARGET
            target = (f"≥ {CLOSED_TARGET} × limit: {'met' if ratio >= CLOSED_TARGET else 'NOT met'}; "
                      f"CPU/move ≥ {want:g}: {'met' if eff >= want else 'NOT met'}")
        elif mode == "closed" and _plain(setup) == "single/os":
            target = f"≥ {CLOSED_TARGET} × limit (run with --limit)"
        elif mode == "open":
            p99 = _med([r.figures["p99_ms"] for r in runs])[0]
            rate = _med([r.figures["moves_s"] for r in runs])[0]
            ok = p99 <= OPEN_P99_TARGET_MS and rate >= 0.97 * n
            target = f"p99 ≤ {OPEN_P99_TARGET_MS:g} ms at {n}/s offered: {'met' if ok else 'NOT met'}"
            if n == OPEN_TARGET_PLAYERS:
                cpu = _med([r.figures["cpu_ms_per_1k"] for r in runs])[0]
                lb50 = _med([r.figures["lb_p50_ms"] for r in runs])[0]
                lb99 = _med([r.figures["lb_p99_ms"] for r in runs])[0]
                stretched = _med([r.figures.get("lb_stretched_pct", float("nan")) for r in runs])[0]
                target += (f"; srv CPU ≤ {OPEN_CPU_TARGET_US:g} µs/mv: "
                           f"{'met' if cpu <= OPEN_CPU_TARGET_US else 'NOT met'}"
                           f"; lb p50 ≤ {LB_P50_TARGET_MS:g} / p99 ≤ {LB_P99_TARGET_MS:g} ms: "
                           f"{'met' if lb50 <= LB_P50_TARGET_MS and lb99 <= LB_P99_TARGET_MS else 'NOT met'}"
                           f" (flushes stretched for load: {stretched:g} %)")
            else:
                target = f"({target})"
        trips = _med([r.figures["trips_per_move"] for r in runs])[0]
        verdict = "not measured" if math.isnan(trips) else "met" if trips <= 1.0 else "NOT met"
        target += ("; " if target else "") + f"trips/mv ≤ 1: {verdict}"
        lines.append(f"| {mode} {n} | {setup} | " + " | ".join(cells) + f" | {ratio_txt} | {target} |")
    lines += baseline_summary(results)
    lines += workers_summary(results)
    lim_cases = sorted({r.players for r in results if r.kind == "limit"})
    if lim_cases:
        lines += ["", "Limit (c) (../shared/limit: websockets + orjson + 1 EVALSHA + fan-out to 8):",
                  "", "| N | msg/s | p50 ms | p95 ms | p99 ms | srv CPU ms/1k | srv % | redis % | load % |",
                  "|---|---|---|---|---|---|---|---|---|"]
        for n in lim_cases:
            runs = _quiet([r for r in results if r.kind == "limit" and r.players == n])
            cells = []
            for k in ("moves_s", "p50_ms", "p95_ms", "p99_ms", "cpu_ms_per_1k", "server_cpu_pct",
                      "redis_cpu_pct", "load_cpu_pct"):
                med, lo, hi = _med([r.figures.get(k, float("nan")) for r in runs])
                cells.append(_fmt(med) + (f" ({_fmt(lo)}-{_fmt(hi)})" if len(runs) > 1 and lo != hi else ""))
            lines.append(f"| {n} | " + " | ".join(cells) + " |")
    return lines


def _plain(label: str) -> str:
    """A setup's label without its ``before:`` (``--baseline``)."""
    return label.removeprefix(BEFORE)


def baseline_summary(results: list[Result]) -> list[str]:
    """Each case with ``--baseline``'s server against this checkout's, in the same repeats."""
    before = sorted({(r.setup, r.mode, r.players) for r in results
                     if r.kind == "race" and r.setup.startswith(BEFORE)},
                    key=lambda c: (c[1] != "closed", c[2], c[0]))
    if not before:
        return []
    lines = ["", "Before and after (--baseline's server, then this one's; medians of the same "
             "repeats, quiet runs where there are):", "",
             "| case | redis | srv CPU µs/mv | × | moves/s | × | p99 ms | lb p99 ms |",
             "|---|---|---|---|---|---|---|---|"]
    for setup, mode, n in before:
        old = _quiet([r for r in results if r.kind == "race" and r.setup == setup
                      and r.mode == mode and r.players == n])
        new = _quiet([r for r in results if r.kind == "race" and r.setup == _plain(setup)
                      and r.mode == mode and r.players == n])
        if not new:
            continue

        def pair(key: str, old: list[Result] = old, new: list[Result] = new) -> tuple[float, float]:
            return (_med([r.figures[key] for r in old])[0], _med([r.figures[key] for r in new])[0])

        cpu, rate, p99, lb = (pair(k) for k in ("cpu_ms_per_1k", "moves_s", "p99_ms", "lb_p99_ms"))

        def ratio(a: float, b: float) -> str:
            return f"{b / a:.2f}" if a else "-"

        lines.append(f"| {mode} {n} | {_plain(setup)} | {_fmt(cpu[0])} → {_fmt(cpu[1])} | "
                     f"{ratio(*cpu)} | {_fmt(rate[0])} → {_fmt(rate[1])} | "
                     f"{ratio(*rate)} | {_fmt(p99[0])} → {_fmt(p99[1])} | "
                     f"{_fmt(lb[0])} → {_fmt(lb[1])} |")
    return lines


def _one_worker(label: str) -> str:
    """The setup's label with one worker: ``single/os/w2`` -> ``single/os``."""
    return re.sub(r"/w\d+$", "", label)


def _workers_of(label: str) -> int:
    m = re.search(r"/w(\d+)$", label)
    return int(m.group(1)) if m else 1


def workers_summary(results: list[Result]) -> list[str]:
    """Each case with N workers against one worker in the same repeat."""
    many = sorted({(r.setup, r.mode, r.players) for r in results
                   if r.kind == "race" and _workers_of(r.setup) > 1},
                  key=lambda c: (c[1] != "closed", c[2], c[0]))
    if not many:
        return []
    lines = ["", "Workers (--workers N against one worker, same repeat; medians, min-max):", ""]
    for setup, mode, n in many:
        runs = [r for r in results if r.kind == "race" and r.setup == setup and r.mode == mode
                and r.players == n]
        pairs = [(r, o) for r in runs for o in results
                 if o.kind == "race" and o.setup == _one_worker(setup) and o.mode == mode
                 and o.players == n and o.figures["rep"] == r.figures["rep"] and o.figures["moves_s"]]
        quiet = [(r, o) for r, o in pairs if not (r.figures.get("noisy") or o.figures.get("noisy"))]
        used = quiet or pairs
        ratio, lo, hi = _med([r.figures["moves_s"] / o.figures["moves_s"] for r, o in used])
        cpu = _med([r.figures["cpu_ms_per_1k"] / o.figures["cpu_ms_per_1k"] for r, o in used])[0]
        p99 = _med([r.figures["p99_ms"] for r in _quiet(runs)])[0]
        rate = _med([r.figures["moves_s"] for r in _quiet(runs)])[0]
        text = (f"- {mode} {n}, {setup}: moves/s × {ratio:.2f} one worker's"
                + (f" ({lo:.2f}-{hi:.2f})" if len(used) > 1 else "")
                + f", server CPU per move × {cpu:.2f}; p99 {_fmt(p99)} ms")
        w = _workers_of(setup)
        if mode == "closed" and n == WORKERS_CLOSED_PLAYERS and w == 2:
            text += (f"; target ≥ {WORKERS_TARGET:g} × one worker: "
                     f"{'met' if ratio >= WORKERS_TARGET else 'NOT met'}")
        if mode == "open" and n == WORKERS_OPEN_PLAYERS and w == 2:
            ok = p99 <= WORKERS_OPEN_P99_TARGET_MS and rate >= 0.97 * n
            text += (f"; target p99 ≤ {WORKERS_OPEN_P99_TARGET_MS:g} ms at {n}/s offered: "
                     f"{'met' if ok else 'NOT met'}")
        if not pairs:
            text += " (no one-worker run to compare with: add 1 to --workers)"
        lines.append(text)
    return lines


# ---------------------------------------------------------------------- main

def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--mode", choices=("closed", "open", "all"), default="all")
    p.add_argument("--players", type=int, nargs="+", metavar="N",
                   help=f"player counts (default: closed {CLOSED_PLAYERS}, open {OPEN_PLAYERS})")
    p.add_argument("--duration", type=float, default=10.0, help="measured seconds per case")
    p.add_argument("--warmup", type=float, default=3.0, help="played but unmeasured seconds first")
    p.add_argument("--repeat", type=int, default=1, help="runs of every case: medians and spread")
    p.add_argument("--limit", action="store_true",
                   help="also run ../shared/limit configuration (c) beside each closed-loop case")
    p.add_argument("--limit-dir", type=Path, metavar="DIR",
                   default=next((d for d in LIMIT_DIRS if d.is_dir()), LIMIT_DIRS[0]),
                   help="where the limit's scripts are (default: ../shared/limit, or "
                        "../../shared/limit from a worktree)")
    p.add_argument("--baseline", type=Path, metavar="DIR",
                   help="also run every race case with the server of this checkout (the code "
                        "before a change: git worktree add ../before main), back to back with "
                        "this one's; its rows say before:, and a table compares the two")
    p.add_argument("--load-procs", type=int, default=1, choices=(1, 2), help="load-generator processes")
    p.add_argument("--profile", choices=("none", "py-spy", "py-spy-native"), default="none",
                   help="sample the server with py-spy over every measured window (native: with C frames)")
    p.add_argument("--profile-top", type=int, default=25, help="functions listed per profile table")
    p.add_argument("--profile-out", default="", metavar="FILE",
                   help="also keep py-spy's raw stacks, in FILE with the case inserted (FILE-closed64.txt)")
    p.add_argument("--gc-stats", action="store_true",
                   help="time the server's garbage collections (through a bootstrap; server code untouched)")
    p.add_argument("--gc-threshold", default="", metavar="G0,G1,G2",
                   help="experiment: gc.set_threshold(G0, G1, G2) in the server (implies --gc-stats)")
    p.add_argument("--server-env", action="append", default=[], metavar="KEY=VALUE",
                   help="extra environment for the server, e.g. KLONDIKE_REDIS_LANES=1 (repeatable)")
    p.add_argument("--cluster", action="store_true",
                   help=f"also run every case on a Redis Cluster of {CLUSTER_MASTERS} masters "
                        "(one server given one node, --redis-cluster), beside one Redis")
    p.add_argument("--durability", nargs="+", default=["os"], metavar="MODE",
                   choices=(*DURABILITIES, "all"),
                   help="run every case on one Redis with each of these --durability modes "
                        "(os, fsync: appendfsync always, replica: one replica, WAIT per batch; "
                        "all: the three); default os")
    p.add_argument("--case", action="append", default=[], metavar="MODE:N", dest="cases",
                   help="run exactly these cases (closed:512, open:5000; repeatable) instead of "
                        "--mode and --players")
    p.add_argument("--workers", type=int, nargs="+", default=[1], metavar="N",
                   help="run every case with a server of each of these --workers counts "
                        "(default 1: one process); beside 1, each is compared with one worker's "
                        "moves/s in the same repeat")
    p.add_argument("--big", action="store_true",
                   help=f"one room of --big-players (default {BIG_PLAYERS}) over --big-servers server "
                        "processes, each player sending a command every --big-period s; beside it "
                        "rooms of 8 at the same offered rate (open loop), run by run")
    p.add_argument("--big-players", type=int, default=BIG_PLAYERS, metavar="N")
    p.add_argument("--big-period", type=float, default=BIG_PERIOD, metavar="S")
    p.add_argument("--big-servers", type=int, default=2, choices=(1, 2, 3, 4))
    p.add_argument("--json", default="", help="write every run's figures to this file")
    p.add_argument("--wait-quiet", type=float, default=30.0, metavar="S",
                   help="before each run, wait up to S s for other load on the machine to calm down")
    p.add_argument("--noisy-pct", type=float, default=30.0,
                   help="a run during which other processes took more CPU (%% of a core) is noisy: "
                        "it is left out of the medians when quiet runs exist")
    p.add_argument("--retry-noisy", type=int, default=1, choices=(0, 1, 2, 3),
                   help="run a noisy case again up to this many times")
    a = p.parse_args(argv)
    a.quiet_pct = 25.0
    if not (0 < a.duration <= 600 and 0 <= a.warmup <= 60 and 1 <= a.repeat <= 20):
        p.error("--duration in (0, 600], --warmup in [0, 60], --repeat in [1, 20]")
    if a.gc_threshold:
        if not re.fullmatch(r"\d+,\d+,\d+", a.gc_threshold):
            p.error("--gc-threshold takes three integers: G0,G1,G2")
        a.gc_stats = True
    if any("=" not in kv for kv in a.server_env):
        p.error("--server-env takes KEY=VALUE")
    if a.players and any(not 1 <= n <= 5000 for n in a.players):
        p.error("--players: 1..5000 each")
    if a.baseline is not None:
        a.baseline = a.baseline.resolve()
        if not (a.baseline / "server" / "__main__.py").is_file():
            p.error(f"--baseline: {a.baseline} is not a checkout of this repository (no server/)")
    if "all" in a.durability:
        a.durability = list(DURABILITIES)
    a.durability = list(dict.fromkeys(a.durability))
    try:
        a.cases = [(m, int(n)) for m, n in (c.split(":", 1) for c in a.cases)]
    except ValueError:
        p.error("--case takes MODE:N, such as closed:512 or open:5000")
    if any(m not in ("closed", "open") or not 1 <= n <= 5000 for m, n in a.cases):
        p.error("--case: closed or open, 1..5000 players")
    if any(not 1 <= n <= 64 for n in a.workers):
        p.error("--workers: 1..64 each")
    a.workers = sorted(set(a.workers))
    return a


def setups(a: argparse.Namespace) -> list[Setup]:
    """Where each case runs: one Redis per durability mode, then the
    cluster; each with every ``--workers`` count."""
    out = [Setup("single", d, w) for d in a.durability for w in a.workers]
    if a.cluster:
        out += [Setup("cluster", "os", w) for w in a.workers]
    return out


def cases(a: argparse.Namespace) -> list[tuple[str, int]]:
    if a.big:  # the big room, and rooms of 8 at the same offered rate
        return [("big", a.big_players), ("open", round(a.big_players / a.big_period))]
    if a.cases:
        return list(a.cases)
    out_: list[tuple[str, int]] = []
    if a.mode in ("closed", "all"):
        out_ += [("closed", n) for n in (a.players or CLOSED_PLAYERS)]
    if a.mode in ("open", "all"):
        out_ += [("open", n) for n in (a.players or OPEN_PLAYERS)]
    return out_


def _raise_nofile(need: int) -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < hard:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))  # inherited by every child
    if hard < need:
        note(f"warning: RLIMIT_NOFILE is {hard}, {need} descriptors may be needed")


def _attempt(step: Callable[[], Result], a: argparse.Namespace, rep: int, label: str) -> Result | None:
    """Run a case once when the machine is quiet enough, twice if that run was noisy;
    ``None`` if it failed (why is printed)."""
    for attempt in range(1 + a.retry_noisy):
        idle = wait_quiet(a.wait_quiet, a.quiet_pct) if a.wait_quiet else 0.0
        try:
            r = step()
        except (RuntimeError, OSError) as exc:
            out(f"run {rep + 1}/{a.repeat}: {label}: FAILED: {exc}")
            return None
        r.figures["busy_before_pct"] = idle
        r.figures["rep"] = rep
        noisy = (r.figures.get("other_cpu_pct") or 0.0) > a.noisy_pct
        r.figures["noisy"] = float(noisy)
        if not noisy or attempt == a.retry_noisy:
            return r
        out(f"run {rep + 1}/{a.repeat}: (noisy, run again) {_line(r)}")
    return None


def _revision(root: Path = ROOT) -> str:
    """The commit the server code of ``root`` is at, and whether server/ has local changes."""
    try:
        head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=root, capture_output=True,
                              text=True, timeout=10).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--", "server"], cwd=root,
                               capture_output=True, text=True, timeout=10).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return "?"
    return head + (" (server/ has uncommitted changes)" if dirty else "")


def main(argv: Sequence[str] | None = None) -> int:
    a = parse_args(argv)
    todo = cases(a)
    _raise_nofile(2 * max(n for _, n in todo) + 256)
    if shutil.which("redis-server") is None:
        sys.stderr.write("race: redis-server not found (apt-get install redis-server)\n")
        return 2
    if a.limit and not (a.limit_dir / "limit_echo_server.py").is_file():
        sys.stderr.write(f"race: --limit needs the team's stack-limit scripts in {a.limit_dir}, which "
                         "are not there (they live beside the repository, not in it); run without "
                         "--limit, or put them there\n")
        return 2

    def on_term(signum: int, frame: Any) -> None:
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, on_term)
    results: list[Result] = []
    failures = 0
    workdir = Path(tempfile.mkdtemp(prefix="race-bench-"))
    if a.baseline is not None:
        note(f"baseline server: {a.baseline}, at {_revision(a.baseline) or '(not a git checkout)'}")
    note(f"server at {_revision()}; {os.cpu_count()} cores; {a.repeat} run(s) of {todo} on "
         f"{[x.label for x in setups(a)]}; "
         f"duration {a.duration:g} s, warmup {a.warmup:g} s, {a.load_procs} load process(es); "
         f"work dir {workdir}")
    try:
        for rep in range(a.repeat):
            for mode, n in todo:
                steps: list[Callable[[], Result]] = [
                    functools.partial(run_big, n, a, workdir) if mode == "big" else
                    functools.partial(run_race, mode, n, a, workdir, setup)
                    for setup in (setups(a)[:1] if mode == "big" else setups(a))]
                if a.baseline is not None and mode != "big":
                    steps += [functools.partial(run_race, mode, n, a, workdir, setup, a.baseline)
                              for setup in setups(a)]
                if a.limit and mode == "closed":
                    steps.append(functools.partial(run_limit, n, a, workdir))
                if rep % 2:  # alternate the order (the limit first, too): drift hits all alike
                    steps.reverse()
                for step in steps:
                    r = _attempt(step, a, rep, f"{mode} N={n}")
                    if r is None:
                        failures += 1
                        continue
                    results.append(r)
                    out(f"run {rep + 1}/{a.repeat}: {_line(r)}")
                    for n_ in r.notes:
                        out("    " + n_.replace("\n", "\n    "))
                lim = [x for x in results if x.kind == "limit" and x.players == n
                       and x.figures["rep"] == rep]
                race = [x for x in results if x.kind == "race" and x.mode == mode and x.players == n
                        and _plain(x.setup) == "single/os" and x.figures["rep"] == rep]
                if lim and race and lim[-1].figures["moves_s"]:
                    out(f"    race/limit at N={n}: "
                        f"{race[-1].figures['moves_s'] / lim[-1].figures['moves_s']:.2f}")
    except KeyboardInterrupt:
        note("interrupted: stopping every process started")
        return 130
    finally:
        PROCS.stop_all()
        shutil.rmtree(workdir, ignore_errors=True)
        if a.json and results:
            Path(a.json).write_text(json.dumps([r.__dict__ for r in results], indent=1))
    out()
    for line in (big_summary(results) if a.big else summary(results, a.repeat)):
        out(line)
    out()
    if failures:
        out(f"{failures} case run(s) FAILED (see above)")
    out("race/limit: moves/s over the limit's msg/s in the same repeat; CPU/move: the limit's server CPU "
        "per message over the race server's CPU per move (less sensitive to other load on the machine).")
    out("moves/s: acks inside the window / duration (client side); p50-p99: send -> ack; lb p99: "
        "mover's ack -> first lb at another player showing the move; srv CPU: utime+stime of the "
        "server process per 1 000 accepted moves; trips/mv, cmds/trip: /metrics deltas; KiB/idle "
        "conn: server VmRSS growth once the players joined their rooms / players. CPU % are of one core.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
