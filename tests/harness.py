"""Real processes for tests: redis-server, klondike-race servers, websocket clients.

Everything binds to 127.0.0.1 on a free port and is stopped by the fixture
that started it. A server process that logs at ERROR level fails the test
that ran it (unless the test says which errors it expects).
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import json
import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, Final

import orjson
import redis
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from server.klondike.views import apply_change

ROOT = Path(__file__).resolve().parents[1]
VECTORS = ROOT / "tests" / "vectors"
SUBPROTOCOL = "klondike-race.v2"


_GIVEN: set[int] = set()
#: where free ports are looked for: below the kernel's ephemeral ports (Linux's
#: default starts at 32768), which it gives any outgoing connection or bind to
#: port 0 — the browser's, the servers' — and so could take between the choice
#: of a port and redis-server's bind
PORTS: Final = range(20_000, 32_768)


def free_port() -> int:
    """A port free now and never handed out before by this process: a test
    that picks several ports before it starts anything (a cluster's nodes and
    their buses) must not be given the same one twice."""
    while True:
        port = random.choice(PORTS)
        if port in _GIVEN:
            continue
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
        _GIVEN.add(port)
        return port


def wait_until(check: Callable[[], bool], timeout: float = 10.0, what: str = "condition") -> None:
    until = time.monotonic() + timeout
    while time.monotonic() < until:
        if check():
            return
        time.sleep(0.02)
    raise TimeoutError(f"timed out waiting for {what}")


async def eventually(check: Callable[[], Any], timeout: float = 10.0, what: str = "condition") -> Any:
    """Poll ``check`` (sync or async) until it returns something truthy; that."""
    async with asyncio.timeout(timeout):
        while True:
            result = check()
            if asyncio.iscoroutine(result):
                result = await result
            if result:
                return result
            await asyncio.sleep(0.02)
    raise AssertionError(what)  # pragma: no cover - the timeout raises first


def load_wins() -> list[dict[str, Any]]:
    return list(json.loads((VECTORS / "wins.json").read_text()))


def load_kl1() -> dict[str, Any]:
    return dict(json.loads((VECTORS / "kl1.json").read_text()))


# ---------------------------------------------------------------------- redis

class RedisServer:
    """A redis-server of the test's own, on a free TCP port, with an append-only
    file (``appendfsync`` as given); ``args`` are more redis-server options."""

    def __init__(self, workdir: Path, *, appendfsync: str = "everysec",
                 args: list[str] | None = None) -> None:
        binary = shutil.which("redis-server")
        assert binary, "redis-server is not installed (the README's test command installs it)"
        self.binary = binary
        self.dir = workdir
        self.port = free_port()
        self.appendfsync = appendfsync
        self.args = list(args or [])
        self.proc: subprocess.Popen[bytes] | None = None
        self._started = False  # once started, a restart keeps the port

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    @property
    def addr(self) -> str:
        return f"127.0.0.1:{self.port}"

    def start(self) -> RedisServer:
        """Start redis-server and wait until it answers, itself and not some
        other process on its port. A port free when chosen may be taken before
        redis-server binds it (by another test run on this machine, say):
        redis-server exits, and it is started on other ports. A restart keeps
        its port (its clients know it), or fails."""
        self.dir.mkdir(parents=True, exist_ok=True)
        for _ in range(5):
            proc = self.proc = subprocess.Popen(
                [self.binary, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
                 "--appendonly", "yes", "--appendfsync", self.appendfsync, "--dir", str(self.dir),
                 "--daemonize", "no", "--logfile", str(self.dir / "redis.log"),
                 "--repl-diskless-sync-delay", "0", *self.args],  # a replica syncs at once
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            wait_until(lambda p=proc: p.poll() is not None or self._serves(p.pid), timeout=60,
                       what="redis-server to answer")
            if proc.poll() is None:
                self._started = True
                return self
            if self._started:
                break
            self.port = free_port()
            if "--cluster-port" in self.args:  # its bus's port may have been the one taken
                self.args[self.args.index("--cluster-port") + 1] = str(free_port())
        log = self.dir / "redis.log"
        tail = log.read_text(errors="replace")[-2000:] if log.exists() else ""
        raise RuntimeError(f"redis-server did not start on port {self.port}:\n{tail}")

    def _serves(self, pid: int) -> bool:
        """The process ``pid`` answers on our port."""
        r = redis.Redis(host="127.0.0.1", port=self.port, socket_timeout=5)
        try:
            return int(r.info("server")["process_id"]) == pid
        except (redis.RedisError, OSError):
            return False
        finally:
            r.close()

    def client(self) -> redis.Redis:
        """A plain redis-py client of this server (close it)."""
        return redis.Redis(host="127.0.0.1", port=self.port, socket_timeout=10)

    def kill(self) -> None:
        """SIGKILL: nothing flushed, as in a crash of the process."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        self.proc = None

    @property
    def running(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def ping(self) -> bool:
        return self.answers(self.port)

    @staticmethod
    def answers(port: int) -> bool:
        """A Redis on 127.0.0.1:``port`` answers PING."""
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5) as s:
                s.sendall(b"PING\r\n")
                return s.recv(16).startswith(b"+PONG")
        except OSError:
            return False

    def stop(self) -> None:
        """Shut down cleanly (the append-only file is flushed). SIGTERM again
        every half second: Redis refuses it while it writes its first
        append-only file (right after a replica's sync)."""
        if self.proc is not None and self.proc.poll() is None:
            until = time.monotonic() + 10
            while self.proc.poll() is None and time.monotonic() < until:
                self.proc.terminate()
                with contextlib.suppress(subprocess.TimeoutExpired):
                    self.proc.wait(0.5)
            if self.proc.poll() is None:
                self.proc.kill()
            self.proc.wait()
        self.proc = None

    def restart(self) -> None:
        self.stop()
        self.start()


class RedisCluster:
    """A Redis Cluster of the test's own: ``masters`` masters with ``replicas``
    replicas each, every node a :class:`RedisServer` on free ports (its
    cluster bus too), made with ``redis-cli --cluster create``. Helpers to
    find a key's master, migrate a slot, and kill a master and wait for its
    replica to take over: each waits by polling the nodes' own view of the
    cluster, never by sleeping."""

    def __init__(self, workdir: Path, *, masters: int = 3, replicas: int = 1,
                 node_timeout_ms: int = 2000) -> None:
        self.dir = workdir
        self.masters_count, self.replicas_count = masters, replicas
        self.nodes = [
            RedisServer(workdir / f"node{i}", args=[
                "--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf",
                "--cluster-node-timeout", str(node_timeout_ms), "--cluster-port", str(free_port())])
            for i in range(masters * (1 + replicas))]

    @property
    def url(self) -> str:
        """The first node's URL: the server is given any one node."""
        return self.nodes[0].url

    def start(self) -> RedisCluster:
        for node in self.nodes:
            node.start()
        cli = shutil.which("redis-cli")
        assert cli, "redis-cli is not installed (it comes with redis-server)"
        done = subprocess.run(
            [cli, "--cluster", "create", *(n.addr for n in self.nodes),
             "--cluster-replicas", str(self.replicas_count), "--cluster-yes"],
            capture_output=True, timeout=60)
        assert done.returncode == 0, done.stdout.decode() + done.stderr.decode()
        self.wait_ready()
        return self

    def stop(self) -> None:
        for node in self.nodes:
            node.stop()

    # ------------------------------------------------------------------ what the nodes say

    def ask(self, node: RedisServer, *args: Any) -> Any:
        r = node.client()
        try:
            return r.execute_command(*args)
        finally:
            r.close()

    def info(self, node: RedisServer, section: str) -> dict[str, str]:
        text = self.ask(node, "INFO", section)
        if isinstance(text, dict):
            return {k: str(v) for k, v in text.items()}
        return dict(line.split(":", 1) for line in text.decode().splitlines() if ":" in line)

    def node_id(self, node: RedisServer) -> str:
        return str(self.ask(node, "CLUSTER", "MYID").decode())

    def slot_owners(self, node: RedisServer) -> list[str]:
        """``host:port`` of each slot's master, as ``node`` sees it ("" if none)."""
        owners = [""] * 16384
        for entry in self.ask(node, "CLUSTER", "SLOTS"):
            host = entry[2][0].decode() or "127.0.0.1"
            owners[entry[0]:entry[1] + 1] = [f"{host}:{entry[2][1]}"] * (entry[1] - entry[0] + 1)
        return owners

    def by_addr(self, addr: str) -> RedisServer:
        return next(n for n in self.nodes if n.addr == addr)

    def masters(self) -> list[RedisServer]:
        live = next(n for n in self.nodes if n.running)
        return [self.by_addr(a) for a in dict.fromkeys(self.slot_owners(live)) if a]

    def master_of(self, key: str) -> RedisServer:
        live = next(n for n in self.nodes if n.running)
        slot = int(self.ask(live, "CLUSTER", "KEYSLOT", key))
        return self.by_addr(self.slot_owners(live)[slot])

    def replica_of(self, master: RedisServer) -> RedisServer:
        master_id = self.node_id(master)
        for node in self.nodes:
            if node is not master and node.running:
                info = self.info(node, "replication")
                if info.get("role") == "slave" and int(info["master_port"]) == master.port:
                    return node
        raise AssertionError(f"no replica of {master.addr} ({master_id})")

    def ready(self) -> bool:
        """Every running node says the cluster is ok, they agree on every slot's
        master, and every replica's link to its master is up."""
        live = [n for n in self.nodes if n.running]
        try:
            views = [self.slot_owners(n) for n in live]
            if any(v != views[0] or "" in v for v in views):
                return False
            for node in live:
                if "cluster_state:ok" not in self.ask(node, "CLUSTER", "INFO").decode():
                    return False
                info = self.info(node, "replication")
                if info.get("role") == "slave" and info.get("master_link_status") != "up":
                    return False
        except (redis.RedisError, OSError):
            return False
        return True

    def wait_ready(self, timeout: float = 60.0) -> None:
        wait_until(self.ready, timeout=timeout, what="the cluster to be ready")

    # ------------------------------------------------------------------ changing it

    def kill_master(self, master: RedisServer, timeout: float = 60.0) -> RedisServer:
        """SIGKILL a master; the replica that took its slots over, once every
        other node agrees."""
        replica = self.replica_of(master)
        master.kill()

        def promoted() -> bool:
            try:
                return (self.info(replica, "replication").get("role") == "master"
                        and self.ready_without(master))
            except (redis.RedisError, OSError):
                return False
        wait_until(promoted, timeout=timeout, what=f"{replica.addr} to replace {master.addr}")
        return replica

    def ready_without(self, gone: RedisServer) -> bool:
        live = [n for n in self.nodes if n.running and n is not gone]
        views = [self.slot_owners(n) for n in live]
        return (all(v == views[0] and "" not in v and gone.addr not in v for v in views)
                and all("cluster_state:ok" in self.ask(n, "CLUSTER", "INFO").decode() for n in live))

    def restart(self, node: RedisServer, timeout: float = 60.0) -> None:
        """Start a stopped node again on its files: it rejoins (a replaced
        master as a replica); returns once the cluster is ready."""
        node.start()
        self.wait_ready(timeout)

    def migrate_slot(self, slot: int, target: RedisServer, *,
                     before_handover: Callable[[], None] | None = None) -> None:
        """Move a slot to ``target`` the way ``redis-cli --cluster reshard`` does:
        IMPORTING/MIGRATING, MIGRATE its keys, then SETSLOT NODE everywhere.
        ``before_handover`` runs once the keys are on the target and the source
        still owns the slot (commands then get ASK)."""
        source = self.begin_migration(slot, target)
        self.move_keys(source, target, slot)
        if before_handover is not None:
            before_handover()
        self.finish_migration(slot, target)

    def begin_migration(self, slot: int, target: RedisServer) -> RedisServer:
        """The slot's owner MIGRATING to ``target``, IMPORTING there; the owner."""
        live = next(n for n in self.nodes if n.running)
        source = self.by_addr(self.slot_owners(live)[slot])
        assert source is not target
        self.ask(target, "CLUSTER", "SETSLOT", slot, "IMPORTING", self.node_id(source))
        self.ask(source, "CLUSTER", "SETSLOT", slot, "MIGRATING", self.node_id(target))
        return source

    def move_keys(self, source: RedisServer, target: RedisServer, slot: int,
                  names: list[str] | None = None) -> None:
        """MIGRATE ``names`` (default: every key of the slot) to ``target``."""
        if names is not None:
            self.ask(source, "MIGRATE", "127.0.0.1", target.port, "", 0, 5000, "KEYS", *names)
            return
        while True:
            found = self.ask(source, "CLUSTER", "GETKEYSINSLOT", slot, 100)
            if not found:
                return
            self.ask(source, "MIGRATE", "127.0.0.1", target.port, "", 0, 5000, "KEYS", *found)

    def finish_migration(self, slot: int, target: RedisServer) -> None:
        """SETSLOT NODE on the target, the source, then every other master;
        returns once every node sees the slot on ``target``."""
        live = next(n for n in self.nodes if n.running)
        source = self.by_addr(self.slot_owners(live)[slot])
        target_id = self.node_id(target)
        for node in dict.fromkeys((target, source, *self.masters())):
            self.ask(node, "CLUSTER", "SETSLOT", slot, "NODE", target_id)

        def agreed() -> bool:
            return all(self.slot_owners(n)[slot] == target.addr for n in self.nodes if n.running)
        wait_until(agreed, timeout=30, what=f"every node to see slot {slot} on {target.addr}")


# ---------------------------------------------------------------------- servers

class ServerProcess:
    """``python -m server serve`` in a process of its own."""

    def __init__(self, redis_url: str | None, logdir: Path, *, env: dict[str, str] | None = None,
                 args: list[str] | None = None, name: str = "server",
                 session: bool = False) -> None:
        self.redis_url = redis_url
        self.logfile = logdir / f"{name}-{time.monotonic_ns()}.log"
        # every test client comes from 127.0.0.1, and many tests share a
        # Redis: the per-address caps are lifted (the tests of the caps set them)
        self.env = {**os.environ, "KLONDIKE_COUNTDOWN": "0.3", "KLONDIKE_LOG_LEVEL": "info",
                    "KLONDIKE_MAX_CONNECTIONS_PER_ADDRESS": "100000",
                    "KLONDIKE_CREATIONS_PER_MINUTE": "1000000",
                    "KLONDIKE_REGISTRATIONS_PER_MINUTE": "1000000",
                    "KLONDIKE_ADDRESS_SHARE": "100",
                    "KLONDIKE_PLAYERS_PER_HOUR": "1000000", "KLONDIKE_CLAIMS_PER_MINUTE": "1000000",
                    "KLONDIKE_QUICK_PER_MINUTE": "1000000",
                    # no background search for winnable deals unless a test asks (CPU)
                    "KLONDIKE_WINNABLE_POOL": "0",
                    # one process per server unless a test asks for workers
                    "KLONDIKE_WORKERS": "1",
                    # no daily deals (each would take a winnable code) unless a test asks
                    "KLONDIKE_DAILY_MODES": "none",
                    "PYTHONUNBUFFERED": "1", **(env or {})}
        self.args = list(args or [])
        if not any(a.startswith("--metrics-address") for a in self.args):
            # a scrape address of its own (the default, 9108, is one per machine)
            self.args += ["--metrics-address", f"127.0.0.1:{free_port()}"]
        self.session = session  # a session (and process group) of its own, as under a terminal
        self.proc: subprocess.Popen[bytes] | None = None
        self.port = 0
        self.allowed_errors: set[str] = set()

    @property
    def ws_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/ws"

    @property
    def http_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def metrics_url(self) -> str:
        """Where its ``/metrics`` answers (``--metrics-address``: not the players' port)."""
        given = self.args[self.args.index("--metrics-address") + 1]
        return f"http://{given}/metrics"

    def start(self) -> ServerProcess:
        cmd = [sys.executable, "-m", "server", "serve", "--host", "127.0.0.1", "--port", "0",
               *self.args]
        if self.redis_url is not None:
            cmd += ["--redis-url", self.redis_url]
        self._log = open(self.logfile, "wb")  # noqa: SIM115 - closed in stop()
        self.proc = subprocess.Popen(cmd, cwd=ROOT, env=self.env, stdout=subprocess.PIPE,
                                     stderr=self._log, start_new_session=self.session)
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline().decode()
        if "open http://" not in line:
            self.proc.wait(5)
            raise RuntimeError(f"server did not start: {line!r}\n{self.logfile.read_text()}")
        self.port = int(line.rsplit(":", 1)[1].strip().rstrip("/"))
        return self

    def log_lines(self) -> list[dict[str, Any]]:
        out = []
        for raw in self.logfile.read_text().splitlines():
            try:
                out.append(json.loads(raw))
            except json.JSONDecodeError:
                out.append({"level": "raw", "event": raw})
        return out

    def errors(self) -> list[dict[str, Any]]:
        return [line for line in self.log_lines()
                if line.get("level") in ("error", "critical", "raw")
                and line.get("event") not in self.allowed_errors]

    def stop(self) -> int:
        """SIGTERM; returns the exit code."""
        code = 0
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                code = self.proc.wait(20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                code = self.proc.wait()
        elif self.proc is not None:
            code = self.proc.returncode
        self._close()
        return code

    def kill(self) -> None:
        """SIGKILL: no goodbye to anyone."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        self._close()

    def _close(self) -> None:
        if self.proc is not None and self.proc.stdout is not None:
            self.proc.stdout.close()
        if hasattr(self, "_log"):
            self._log.close()


class Servers:
    """Starts servers for a test and stops them all afterwards, checking their logs."""

    def __init__(self, logdir: Path) -> None:
        self.logdir = logdir
        self.started: list[ServerProcess] = []

    def start(self, redis_url: str | None, **kwargs: Any) -> ServerProcess:
        server = ServerProcess(redis_url, self.logdir, **kwargs).start()
        self.started.append(server)
        return server

    def close(self) -> list[str]:
        problems = []
        for server in self.started:
            server.stop()
            for line in server.errors():
                problems.append(f"{server.logfile.name}: {line}")
        return problems


# ---------------------------------------------------------------------- clients

class Client:
    """A websocket client that keeps every frame it received (for secrecy scans).

    Like the web client, it keeps its player's view (``view``): whole from a
    ``board`` or an ``ack`` that carries one, else the ``ack``'s ``change``
    applied to it (``klondike-race.v2``), and a ``status`` merged in. Such an
    ack is kept with that view beside its change (``d["view"]``), so that
    tests compare it with the engine's; ``raw`` keeps every frame as sent.
    """

    def __init__(self, ws: ClientConnection, name: str = "") -> None:
        self.ws = ws
        self.name = name
        self.frames: list[dict[str, Any]] = []  # everything, in order
        self.raw: list[str] = []
        self._queue: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self._held: collections.deque[dict[str, Any]] = collections.deque()  # see reply()
        self._reader = asyncio.create_task(self._read())
        self.seq = 0
        self.room = ""
        self.seat = -1
        self.token = ""
        self.v = 0
        self.close_code: int | None = None
        self.close_reason = ""
        self.view: dict[str, Any] | None = None  # the player's view, as the client made it

    @classmethod
    async def open(cls, url: str, name: str = "", *, protocol: str = SUBPROTOCOL,
                   address: str | None = None) -> Client:
        """``address``: the client's, as a trusted proxy names it (a server
        started with ``--proxy-header X-Forwarded-For``)."""
        headers = {"X-Forwarded-For": address} if address else None
        ws = await connect(url, subprotocols=[protocol], max_size=2**22,  # type: ignore[list-item]
                           additional_headers=headers)
        return cls(ws, name)

    def _own_view(self, msg: dict[str, Any]) -> None:
        """Keep the player's view as the web client does (see the class)."""
        d = msg.get("d")
        if not isinstance(d, dict):
            return
        if msg["t"] in ("board", "ack") and isinstance(d.get("view"), dict):
            self.view = d["view"]
        elif msg["t"] == "ack" and isinstance(d.get("change"), dict):
            self.view = d["view"] = None if self.view is None else apply_change(self.view,
                                                                                 d["change"])
        elif msg["t"] == "status" and self.view is not None:
            self.view = {**self.view, **{k: v for k, v in d.items() if k != "s"}}

    async def _read(self) -> None:
        try:
            async for raw in self.ws:
                text = raw if isinstance(raw, str) else raw.decode()
                self.raw.append(text)
                msg = orjson.loads(text)
                self._own_view(msg)
                self.frames.append(msg)
                d = msg.get("d") or {}
                if isinstance(d, dict) and isinstance(d.get("v"), int):
                    self.v = max(self.v, d["v"])
                if msg["t"] == "events":
                    self.v = max(self.v, d["to"])
                await self._queue.put(msg)
        except ConnectionClosed:
            pass
        finally:
            if self.ws.close_code is not None:
                self.close_code = self.ws.close_code
                self.close_reason = self.ws.close_reason or ""
            await self._queue.put({"t": "__closed__", "d": {}})

    async def send(self, t: str, d: dict[str, Any] | None = None) -> None:
        await self.ws.send(orjson.dumps({"t": t, "d": d or {}}).decode())

    async def send_raw(self, data: str | bytes) -> None:
        await self.ws.send(data)

    async def next_frame(self) -> dict[str, Any]:
        """The next frame not yet taken (``{"t": "__closed__"}`` once closed,
        and again after that)."""
        msg = self._held.popleft() if self._held else await self._queue.get()
        if msg["t"] == "__closed__":
            self._held.appendleft(msg)
        return msg

    async def expect(self, t: str, pred: Callable[[dict[str, Any]], bool] | None = None,
                     timeout: float = 10.0) -> dict[str, Any]:
        """The next frame of type ``t`` (matching ``pred``); others are skipped."""
        async with asyncio.timeout(timeout):
            while True:
                msg = await self.next_frame()
                if msg["t"] == "__closed__":
                    raise ConnectionError(f"{self.name}: closed ({self.close_code}) waiting for {t}")
                if msg["t"] == t and (pred is None or pred(msg["d"])):
                    return dict(msg["d"])

    async def reply(self, t: str, pred: Callable[[dict[str, Any]], bool] | None = None,
                    timeout: float = 10.0) -> dict[str, Any]:
        """The next frame of type ``t`` (matching ``pred``), every other frame
        left, in order, for the next :meth:`expect`: an answer awaited in
        passing (a ``pong`` read for the server's time) must not swallow the
        events that arrive around it."""
        skipped: list[dict[str, Any]] = []
        try:
            async with asyncio.timeout(timeout):
                while True:
                    msg = await self.next_frame()
                    if msg["t"] == "__closed__":
                        raise ConnectionError(f"{self.name}: closed ({self.close_code}) "
                                              f"waiting for {t}")
                    if msg["t"] == t and (pred is None or pred(msg["d"])):
                        return dict(msg["d"])
                    skipped.append(msg)
        finally:
            self._held.extendleft(reversed(skipped))

    async def event(self, kind: str, timeout: float = 10.0) -> dict[str, Any]:
        return await self.expect("event", lambda d: d.get("kind") == kind, timeout)

    async def closed(self, timeout: float = 10.0) -> int | None:
        async with asyncio.timeout(timeout):
            await self._reader
        return self.close_code

    async def command(self, t: str, d: dict[str, Any] | None = None,
                      timeout: float = 10.0) -> dict[str, Any]:
        """Send a game command with the next sequence number; its ack or reject."""
        self.seq += 1
        seq = self.seq
        await self.send(t, {**(d or {}), "s": seq})
        async with asyncio.timeout(timeout):
            while True:
                msg = await self.next_frame()
                if msg["t"] == "__closed__":
                    raise ConnectionError(f"{self.name}: closed waiting for ack {seq}")
                if msg["t"] in ("ack", "reject") and msg["d"].get("s") == seq:
                    return dict(msg)

    async def move(self, notation: str) -> dict[str, Any]:
        return await self.command("move", {"m": notation})

    # rooms
    async def create(self, nickname: str, **settings: Any) -> dict[str, Any]:
        await self.send("create", {"nickname": nickname, "settings": settings})
        return await self._joined()

    async def join(self, room: str, nickname: str) -> dict[str, Any]:
        await self.send("join", {"room": room, "nickname": nickname})
        return await self._joined()

    async def resume(self, room: str, token: str, since: int = 0) -> dict[str, Any]:
        await self.send("resume", {"room": room, "token": token, "since": since})
        return await self._joined()

    async def solo(self, **d: Any) -> dict[str, Any]:
        await self.send("solo", d)
        return await self._joined()

    async def _joined(self) -> dict[str, Any]:
        async with asyncio.timeout(10):
            while True:
                msg = await self.next_frame()
                if msg["t"] == "__closed__":
                    raise ConnectionError(f"{self.name}: closed before joining")
                if msg["t"] == "reject":
                    raise AssertionError(f"{self.name}: rejected: {msg['d']}")
                if msg["t"] == "joined":
                    d = msg["d"]
                    self.room, self.seat, self.token = d["room"], d["seat"], d["token"]
                    return dict(d)

    async def close(self) -> None:
        await self.ws.close()
        self._reader.cancel()
        await asyncio.gather(self._reader, return_exceptions=True)


def tmpdir(prefix: str) -> Iterator[Path]:
    with tempfile.TemporaryDirectory(prefix=prefix) as d:
        yield Path(d)
