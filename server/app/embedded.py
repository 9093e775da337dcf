"""An embedded Redis: a ``redis-server`` child on a unix socket in the data
directory, append-only file on, no TCP port, stopped with the server."""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import fcntl
import shutil
import signal
from pathlib import Path
from typing import IO

import structlog
from redis.asyncio import Redis
from redis.exceptions import RedisError

from .config import ConfigError

log = structlog.get_logger("app.embedded")

_SUN_PATH_MAX = 107


def _die_with_parent() -> None:  # pragma: no cover - runs in the child
    """Linux: the child gets SIGTERM if the server dies, even by SIGKILL."""
    with contextlib.suppress(OSError):
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG


class EmbeddedRedis:
    def __init__(self, data_dir: Path) -> None:
        self.data_dir = data_dir.resolve()
        self.socket = self.data_dir / "redis.sock"
        self._proc: asyncio.subprocess.Process | None = None
        self._lock: IO[str] | None = None

    @property
    def url(self) -> str:
        return f"unix://{self.socket}"

    async def start(self, timeout: float = 15.0) -> str:
        binary = shutil.which("redis-server")
        if binary is None:
            raise ConfigError("redis-server not found: install it (apt-get install redis-server) "
                              "or give --redis-url")
        if len(str(self.socket)) > _SUN_PATH_MAX:
            raise ConfigError(f"data directory path too long for a unix socket: {self.data_dir}")
        try:
            self.data_dir.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise ConfigError(f"cannot create the data directory {self.data_dir}: {exc}") from None
        self._lock = open(self.data_dir / "server.lock", "w")  # noqa: SIM115 - held while running
        try:
            fcntl.flock(self._lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            raise ConfigError(f"{self.data_dir} is in use by another server; to run several "
                              "processes, share one Redis with --redis-url") from None
        if self.socket.exists():
            self.socket.unlink()
        self._proc = await asyncio.create_subprocess_exec(
            binary, "--port", "0", "--unixsocket", str(self.socket), "--unixsocketperm", "700",
            "--dir", str(self.data_dir), "--appendonly", "yes", "--appendfsync", "everysec",
            "--save", "", "--daemonize", "no", "--logfile", str(self.data_dir / "redis.log"),
            stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.DEVNULL,
            stderr=asyncio.subprocess.DEVNULL, preexec_fn=_die_with_parent,
        )
        loop = asyncio.get_running_loop()
        until = loop.time() + timeout
        while loop.time() < until:
            if self._proc.returncode is not None:
                raise ConfigError(f"redis-server exited at start: see {self.data_dir / 'redis.log'}")
            if self.socket.exists():
                client = Redis(unix_socket_path=str(self.socket))
                try:
                    if await client.ping():
                        log.info("embedded_redis_started", socket=str(self.socket),
                                 pid=self._proc.pid)
                        return self.url
                except RedisError:
                    pass
                finally:
                    await client.aclose()
            await asyncio.sleep(0.05)
        raise ConfigError(f"redis-server did not start within {timeout:.0f} s")

    async def stop(self) -> None:
        proc = self._proc
        if proc is not None and proc.returncode is None:
            proc.terminate()  # redis-server writes its append-only file and exits
            try:
                async with asyncio.timeout(10):
                    await proc.wait()
            except TimeoutError:
                proc.kill()
                await proc.wait()
            log.info("embedded_redis_stopped")
        if self._lock is not None:
            self._lock.close()
            self._lock = None


__all__ = ["EmbeddedRedis"]
