"""An embedded Redis: a ``redis-server`` child on a unix socket in the data
directory, append-only file on (fsynced at every write with ``--durability
fsync``), no TCP port, restarted if it dies, stopped with the server.

Its ``maxmemory`` is ``MEMORY_SHARE`` of the memory this machine (or its
container's cgroup) has, unless ``--redis-maxmemory`` says otherwise, with
the policy ``noeviction``: a full Redis refuses writes (answered
``unavailable``), it never drops a race's keys on its own. The rest is left
for the server processes, the solver's workers and the copy-on-write pages
of the child Redis forks to rewrite its append-only file. Creations stop
before it is full (:mod:`.health`)."""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import fcntl
import os
import shutil
import signal
from collections.abc import Callable
from pathlib import Path
from typing import IO, Final

import structlog
from redis.asyncio import Redis
from redis.exceptions import RedisError

from ..ground.config import Config, ConfigError

log = structlog.get_logger("app.root.embedded_redis")

_SUN_PATH_MAX = 107
_FIRST_BACKOFF: Final = 0.1
_MAX_BACKOFF: Final = 5.0
_RESTART_TIMEOUT: Final = 15.0
MEMORY_SHARE: Final = 0.4  # of the machine's memory: the embedded Redis's maxmemory
MIN_MEMORY: Final = 64 * 2**20
_CGROUP_LIMITS: Final = ("/sys/fs/cgroup/memory.max",  # cgroup v2
                         "/sys/fs/cgroup/memory/memory.limit_in_bytes")  # v1


def machine_memory() -> int:
    """Bytes of memory this process may use: the machine's, or its
    container's limit when lower."""
    total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    for path in _CGROUP_LIMITS:
        with contextlib.suppress(OSError, ValueError):
            total = min(total, int(Path(path).read_text().strip()))  # ("max": no limit)
    return total


def default_maxmemory() -> int:
    """The embedded Redis's ``maxmemory`` when none is given."""
    return max(MIN_MEMORY, int(machine_memory() * MEMORY_SHARE))


def _die_with_parent() -> None:  # pragma: no cover - runs in the child
    """Linux: the child gets SIGTERM if the server dies, even by SIGKILL."""
    with contextlib.suppress(OSError):
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG


class EmbeddedRedis:
    """The child ``redis-server``, supervised: if it dies, it is started again
    on the same data directory (backing off from 0.1 s to 5 s between tries),
    with a log line each time, and ``on_change`` called (``up`` and
    ``restarts`` say what became of it: for the metrics). Meanwhile commands
    fail ``unavailable`` and ``/healthz`` says 503; the append-only file
    brings the data back."""

    def __init__(self, data_dir: Path, *, fsync: bool = False, maxmemory: int | None = None,
                 on_change: Callable[[], None] | None = None) -> None:
        self.data_dir = data_dir.resolve()
        self.socket = self.data_dir / "redis.sock"
        self.fsync = fsync
        self.maxmemory = default_maxmemory() if maxmemory is None else maxmemory
        self._on_change = on_change
        self._proc: asyncio.subprocess.Process | None = None
        self._lock: IO[str] | None = None
        self._binary = ""
        self._supervisor: asyncio.Task[None] | None = None
        self._stopping = False
        self.up = False
        self.restarts = 0  # times it died and was started again

    @classmethod
    def configured(cls, config: Config, on_change: Callable[[], None]) -> EmbeddedRedis:
        """The embedded Redis that ``config`` asks for."""
        return cls(config.data_dir, fsync=config.durability == "fsync",
                   maxmemory=config.redis_maxmemory, on_change=on_change)

    @property
    def url(self) -> str:
        return f"unix://{self.socket}"

    @property
    def pid(self) -> int | None:
        proc = self._proc
        return proc.pid if proc is not None and proc.returncode is None else None

    async def start(self, timeout: float = 15.0) -> str:
        binary = shutil.which("redis-server")
        if binary is None:
            raise ConfigError("redis-server not found: install it (apt-get install redis-server) "
                              "or give --redis-url")
        self._binary = binary
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
                              "processes, give one server --workers, or share one Redis with "
                              "--redis-url") from None
        why = await self._spawn(timeout)
        if why is not None:
            raise ConfigError(why)
        self.up = True
        log.info("embedded_redis_started", socket=str(self.socket), pid=self.pid,
                 appendfsync="always" if self.fsync else "everysec", maxmemory=self.maxmemory)
        self._supervisor = asyncio.create_task(self._supervise(), name="embedded-redis")
        return self.url

    async def _spawn(self, timeout: float) -> str | None:
        """Start the child and wait until it answers; ``None``, or why it did not."""
        try:
            return await self._spawn_once(timeout)
        except OSError as exc:  # the socket's path taken by a folder, the binary gone, ...
            return f"cannot start redis-server: {exc}"

    async def _spawn_once(self, timeout: float) -> str | None:
        if self.socket.exists():
            self.socket.unlink()
        self._proc = await asyncio.create_subprocess_exec(
            self._binary, "--port", "0", "--unixsocket", str(self.socket),
            "--unixsocketperm", "700", "--dir", str(self.data_dir), "--appendonly", "yes",
            "--appendfsync", "always" if self.fsync else "everysec",
            "--save", "", "--daemonize", "no", "--logfile", str(self.data_dir / "redis.log"),
            "--maxmemory", str(self.maxmemory), "--maxmemory-policy", "noeviction",
            stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.DEVNULL,
            stderr=asyncio.subprocess.DEVNULL, preexec_fn=_die_with_parent,
            # a session of its own: Ctrl-C in a terminal reaches the server, which
            # drains its sockets (commands still reach Redis) and then stops it
            start_new_session=True,
        )
        loop = asyncio.get_running_loop()
        until = loop.time() + timeout
        while loop.time() < until:
            if self._proc.returncode is not None:
                return f"redis-server exited at start: see {self.data_dir / 'redis.log'}"
            if self.socket.exists():
                client = Redis(unix_socket_path=str(self.socket))
                try:
                    if await client.ping():
                        return None
                except RedisError:
                    pass
                finally:
                    await client.aclose()
            await asyncio.sleep(0.05)
        self._proc.kill()
        await self._proc.wait()
        return f"redis-server did not start within {timeout:.0f} s"

    async def _supervise(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            proc = self._proc
            assert proc is not None
            code = await proc.wait()
            if self._stopping:
                return
            died_at = loop.time()
            self.up = False
            log.warning("embedded_redis_died", pid=proc.pid, code=code,
                        log=str(self.data_dir / "redis.log"))
            if self._on_change is not None:
                self._on_change()
            delay, attempt = _FIRST_BACKOFF, 0
            while True:
                attempt += 1
                await asyncio.sleep(delay)
                why = await self._spawn(_RESTART_TIMEOUT)
                if why is None:
                    break
                log.warning("embedded_redis_restart_failed", attempt=attempt, error=why,
                            retry_in=min(delay * 2, _MAX_BACKOFF))
                delay = min(delay * 2, _MAX_BACKOFF)
            self.up = True
            self.restarts += 1
            log.info("embedded_redis_restarted", pid=self.pid, attempt=attempt,
                     down_s=round(loop.time() - died_at, 2))
            if self._on_change is not None:
                self._on_change()

    async def stop(self) -> None:
        self._stopping = True
        if self._supervisor is not None:
            self._supervisor.cancel()
            await asyncio.gather(self._supervisor, return_exceptions=True)
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
        self.up = False
        if self._lock is not None:
            self._lock.close()
            self._lock = None


__all__ = ["EmbeddedRedis"]
