"""Real processes for tests: redis-server, klondike-race servers, websocket clients.

Everything binds to 127.0.0.1 on a free port and is stopped by the fixture
that started it. A server process that logs at ERROR level fails the test
that ran it (unless the test says which errors it expects).
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import orjson
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

ROOT = Path(__file__).resolve().parents[1]
VECTORS = ROOT / "tests" / "vectors"
SUBPROTOCOL = "klondike-race.v1"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_until(check: Callable[[], bool], timeout: float = 10.0, what: str = "condition") -> None:
    until = time.monotonic() + timeout
    while time.monotonic() < until:
        if check():
            return
        time.sleep(0.02)
    raise TimeoutError(f"timed out waiting for {what}")


def load_wins() -> list[dict[str, Any]]:
    return list(json.loads((VECTORS / "wins.json").read_text()))


def load_kl1() -> dict[str, Any]:
    return dict(json.loads((VECTORS / "kl1.json").read_text()))


# ---------------------------------------------------------------------- redis

class RedisServer:
    """A redis-server of the test's own, on a free TCP port, with an append-only file."""

    def __init__(self, workdir: Path) -> None:
        binary = shutil.which("redis-server")
        assert binary, "redis-server is not installed (the README's test command installs it)"
        self.binary = binary
        self.dir = workdir
        self.port = free_port()
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> RedisServer:
        self.dir.mkdir(parents=True, exist_ok=True)
        self.proc = subprocess.Popen(
            [self.binary, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
             "--appendonly", "yes", "--appendfsync", "everysec", "--dir", str(self.dir),
             "--daemonize", "no", "--logfile", str(self.dir / "redis.log")],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wait_until(self.ping, what="redis-server to answer")
        return self

    def ping(self) -> bool:
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=0.5) as s:
                s.sendall(b"PING\r\n")
                return s.recv(16).startswith(b"+PONG")
        except OSError:
            return False

    def stop(self) -> None:
        """Shut down cleanly (the append-only file is flushed)."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.proc = None

    def restart(self) -> None:
        self.stop()
        self.start()


# ---------------------------------------------------------------------- servers

class ServerProcess:
    """``python -m server serve`` in a process of its own."""

    def __init__(self, redis_url: str | None, logdir: Path, *, env: dict[str, str] | None = None,
                 args: list[str] | None = None, name: str = "server") -> None:
        self.redis_url = redis_url
        self.logfile = logdir / f"{name}-{time.monotonic_ns()}.log"
        # every test client comes from 127.0.0.1, and many tests share a
        # Redis: the per-address caps are lifted (the tests of the caps set them)
        self.env = {**os.environ, "KLONDIKE_COUNTDOWN": "0.3", "KLONDIKE_LOG_LEVEL": "info",
                    "KLONDIKE_MAX_CONNECTIONS_PER_ADDRESS": "100000",
                    "KLONDIKE_CREATIONS_PER_MINUTE": "1000000",
                    "PYTHONUNBUFFERED": "1", **(env or {})}
        self.args = list(args or [])
        self.proc: subprocess.Popen[bytes] | None = None
        self.port = 0
        self.allowed_errors: set[str] = set()

    @property
    def ws_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/ws"

    @property
    def http_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> ServerProcess:
        cmd = [sys.executable, "-m", "server", "serve", "--host", "127.0.0.1", "--port", "0",
               *self.args]
        if self.redis_url is not None:
            cmd += ["--redis-url", self.redis_url]
        self._log = open(self.logfile, "wb")  # noqa: SIM115 - closed in stop()
        self.proc = subprocess.Popen(cmd, cwd=ROOT, env=self.env, stdout=subprocess.PIPE,
                                     stderr=self._log)
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
    """A websocket client that keeps every frame it received (for secrecy scans)."""

    def __init__(self, ws: ClientConnection, name: str = "") -> None:
        self.ws = ws
        self.name = name
        self.frames: list[dict[str, Any]] = []  # everything, in order
        self.raw: list[str] = []
        self._queue: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self._reader = asyncio.create_task(self._read())
        self.seq = 0
        self.room = ""
        self.seat = -1
        self.token = ""
        self.v = 0
        self.close_code: int | None = None
        self.close_reason = ""

    @classmethod
    async def open(cls, url: str, name: str = "") -> Client:
        ws = await connect(url, subprotocols=[SUBPROTOCOL], max_size=2**22)  # type: ignore[list-item]
        return cls(ws, name)

    async def _read(self) -> None:
        try:
            async for raw in self.ws:
                text = raw if isinstance(raw, str) else raw.decode()
                self.raw.append(text)
                msg = orjson.loads(text)
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

    async def expect(self, t: str, pred: Callable[[dict[str, Any]], bool] | None = None,
                     timeout: float = 10.0) -> dict[str, Any]:
        """The next frame of type ``t`` (matching ``pred``); others are skipped."""
        async with asyncio.timeout(timeout):
            while True:
                msg = await self._queue.get()
                if msg["t"] == "__closed__":
                    await self._queue.put(msg)
                    raise ConnectionError(f"{self.name}: closed ({self.close_code}) waiting for {t}")
                if msg["t"] == t and (pred is None or pred(msg["d"])):
                    return dict(msg["d"])

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
                msg = await self._queue.get()
                if msg["t"] == "__closed__":
                    await self._queue.put(msg)
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
                msg = await self._queue.get()
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
