"""``serve --workers N``: N server processes on one port, started, watched
and stopped together by this one.

The supervisor serves nothing itself. It

1. chooses the port once (``--port 0``: a free one) and holds it with a
   socket bound but not listening (``SO_REUSEPORT``; the kernel hands
   connections to listening sockets only), so that no other program takes
   it while a worker restarts; a port another server already has, even
   another ``klondike-race``, is refused (:func:`reserve`);
2. starts the embedded Redis, when no ``--redis-url`` is given, and owns it:
   one for all the workers, supervised and stopped as a single server's is;
3. starts the workers (:mod:`.worker`), each a whole server process that
   listens on the port with ``SO_REUSEPORT`` (the kernel spreads new
   connections over them), and prints the address once every one is ready;
   a worker that fails to start stops the start (its line, its status);
4. restarts a worker that dies (``worker_died``, then ``worker_restarted``),
   after ``FIRST_BACKOFF`` seconds, doubling up to ``MAX_BACKOFF`` while it
   keeps dying within ``STABLE`` seconds of its start, so a crash loop
   does not spin;
5. on SIGTERM or SIGINT sends each worker SIGTERM (each closes its sockets
   with 1001 after the commands in flight, as a single server does), waits
   for them, then stops the embedded Redis.

Only the first worker refills the winnable deals (the sets are shared in
Redis; N refills would search N times for one missing code).
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import multiprocessing
import shutil
import signal
import socket
import tempfile
import time
from collections.abc import Callable
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess
from pathlib import Path
from typing import Any, Final

import structlog

from ..ground.config import Config, ConfigError
from .embedded_redis import EmbeddedRedis
from .lifespan import shown_url
from .siblings import WorkerSpec
from .worker import FAILED, READY, REDIS, worker_main

log = structlog.get_logger("app.root.supervisor")

FIRST_BACKOFF: Final = 0.5  # s before a dead worker is started again
MAX_BACKOFF: Final = 30.0
STABLE: Final = 60.0  # s a worker must have run for its next death to restart it at once
START_TIMEOUT: Final = 120.0  # s a worker has to listen, or it is killed and counted failed
STOP_TIMEOUT: Final = 60.0  # s the workers have to drain, then they are killed
_SUN_PATH_MAX: Final = 107  # bytes of a unix socket's path


class StartFailed(Exception):
    """A worker could not start: ``status`` to exit with, ``line`` to print."""

    def __init__(self, status: int, line: str) -> None:
        super().__init__(line)
        self.status = status


def reserve(host: str, port: int) -> tuple[int, list[socket.socket]]:
    """Bind (without listening) every address of ``host`` on ``port``, or on
    one free port when ``port`` is 0, with ``SO_REUSEPORT``: the port, and
    the sockets that hold it. Each address is first bound without
    ``SO_REUSEPORT``, which fails while anyone listens there: a port in use,
    even by another server of ours, is refused (``OSError``)."""
    held: list[socket.socket] = []
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
        for family, kind, proto, _, address in dict.fromkeys(
                (i[0], i[1], i[2], "", i[4]) for i in infos):
            address = (address[0], port, *address[2:])
            with socket.socket(family, kind, proto) as probe:
                _options(probe, family, reuse_port=False)
                _bind(probe, address)
                port = probe.getsockname()[1]
            sock = socket.socket(family, kind, proto)
            held.append(sock)
            _options(sock, family, reuse_port=True)
            _bind(sock, (address[0], port, *address[2:]))
    except BaseException:
        for sock in held:
            sock.close()
        raise
    return port, held


def _options(sock: socket.socket, family: int, *, reuse_port: bool) -> None:
    """As asyncio's ``create_server`` sets them (the workers' sockets)."""
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    if reuse_port:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
    if family == socket.AF_INET6:
        sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)


def _bind(sock: socket.socket, address: Any) -> None:
    try:
        sock.bind(address)
    except OSError as exc:  # worded as asyncio words it for a single server
        raise OSError(exc.errno, f"error while attempting to bind on address {address[:2]!r}: "
                                 f"{(exc.strerror or str(exc)).lower()}") from None


@dataclasses.dataclass(slots=True)
class _Child:
    """One running worker process and its link."""

    index: int
    process: BaseProcess
    link: Connection
    started: float
    exited: asyncio.Future[int]
    messages: asyncio.Queue[tuple[Any, ...]]


class Supervisor:
    """The workers of one server, and what they share."""

    def __init__(self, config: Config) -> None:
        self.config = config
        self.count = config.workers
        self.url = ""
        self._context = multiprocessing.get_context("spawn")
        self._held: list[socket.socket] = []
        self._rundir: Path | None = None
        self._embedded: EmbeddedRedis | None = None
        self._configs: list[Config] = []
        self._children: dict[int, _Child] = {}
        self._keepers: list[asyncio.Task[None]] = []
        self._stopping = False

    async def run_until_signal(self, on_ready: Callable[[str], None] | None = None) -> None:
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, stop.set)
        try:
            starting = asyncio.ensure_future(self.start())
            stopped = asyncio.ensure_future(stop.wait())
            await asyncio.wait((starting, stopped), return_when=asyncio.FIRST_COMPLETED)
            if not starting.done():  # a signal during the start
                starting.cancel()
                await asyncio.gather(starting, return_exceptions=True)
                return
            stopped.cancel()
            starting.result()
            if on_ready is not None:
                on_ready(self.url)
            await stop.wait()
            log.info("shutting_down", workers=self.count)
        finally:
            await self.stop()

    async def start(self) -> None:
        config = self.config
        port, self._held = reserve(config.host, config.port)
        self.url = shown_url(self._held[0].getsockname()[0], port)
        self._rundir = Path(tempfile.mkdtemp(prefix="klondike-race-"))  # mode 700
        if len(str(self._rundir / f"worker-{self.count}.sock")) > _SUN_PATH_MAX:
            raise ConfigError(f"the temporary folder's path is too long for the workers' unix "
                              f"sockets ({self._rundir}): set TMPDIR to a shorter one")
        url = config.redis_url
        if url is None:
            self._embedded = EmbeddedRedis.configured(config, self._tell_redis)
            url = await self._embedded.start()
        self._configs = [
            dataclasses.replace(config, port=port, redis_url=url, redis_maxmemory=None,
                                winnable_pool=config.winnable_pool if i == 0 else 0)
            for i in range(self.count)]
        loop = asyncio.get_running_loop()
        firsts: list[asyncio.Future[StartFailed | None]] = [
            loop.create_future() for _ in range(self.count)]
        self._keepers = [asyncio.create_task(self._keep(i, first), name=f"worker-{i}")
                         for i, first in enumerate(firsts)]
        pending = set(firsts)
        while pending:  # the first failure stops the start
            done, pending = await asyncio.wait(pending, return_when=asyncio.FIRST_COMPLETED)
            for first in done:
                failure = first.result()
                if failure is not None:
                    raise failure
        log.info("workers_ready", url=self.url, workers=self.count,
                 pids=[self._children[i].process.pid for i in range(self.count)])

    # ------------------------------------------------------------------ one worker

    async def _keep(self, index: int, first: asyncio.Future[StartFailed | None]) -> None:
        """Run worker ``index`` until the server stops, starting it again
        when it dies. ``first``: its first start's outcome."""
        delay, attempt, died_at = FIRST_BACKOFF, 0, 0.0
        while not self._stopping:
            child = self._spawn(index)
            failure = await self._until_ready(child)
            if not first.done():
                first.set_result(failure)
                if failure is not None:
                    return
            elif self._stopping:
                return
            elif failure is not None:
                log.warning("worker_start_failed", worker=index, error=str(failure),
                            retry_in=delay)
            else:
                log.info("worker_restarted", worker=index, pid=child.process.pid,
                         attempt=attempt, down_s=round(time.monotonic() - died_at, 2))
            if failure is None:
                code = await child.exited
                if self._stopping:
                    return
                ran = time.monotonic() - child.started
                delay = FIRST_BACKOFF if ran >= STABLE else delay
                died_at, attempt = time.monotonic(), 0
                log.warning("worker_died", worker=index, pid=child.process.pid, **_exit(code),
                            ran_s=round(ran, 1), restart_in=delay)
            attempt += 1
            await asyncio.sleep(delay)
            delay = min(delay * 2, MAX_BACKOFF)

    def _spawn(self, index: int) -> _Child:
        assert self._rundir is not None
        spec = WorkerSpec(index=index, count=self.count, rundir=self._rundir,
                          embedded=self._embedded is not None)
        ours, theirs = self._context.Pipe()
        process = self._context.Process(target=worker_main, name=f"klondike-worker-{index}",
                                        args=(self._configs[index], spec, theirs))
        process.start()
        theirs.close()
        loop = asyncio.get_running_loop()
        child = _Child(index, process, ours, time.monotonic(), loop.create_future(),
                       asyncio.Queue())
        self._children[index] = child

        def heard() -> None:
            try:
                while ours.poll():
                    child.messages.put_nowait(ours.recv())
            except (EOFError, OSError):
                loop.remove_reader(ours.fileno())

        def ended() -> None:
            loop.remove_reader(process.sentinel)
            process.join()
            with contextlib.suppress(OSError, ValueError):
                heard()  # what it said last (a failed start's line)
                loop.remove_reader(ours.fileno())
            ours.close()
            child.exited.set_result(process.exitcode or 0)

        loop.add_reader(ours.fileno(), heard)
        loop.add_reader(process.sentinel, ended)
        if self._embedded is not None:
            self._send(child, (REDIS, self._embedded.up, self._embedded.restarts))
        return child

    async def _until_ready(self, child: _Child) -> StartFailed | None:
        """``None`` once the worker listens; why it will not, otherwise."""
        word = asyncio.ensure_future(child.messages.get())
        await asyncio.wait((word, child.exited), timeout=START_TIMEOUT,
                           return_when=asyncio.FIRST_COMPLETED)
        if not word.done():
            word.cancel()
            await asyncio.gather(word, return_exceptions=True)
        said = word.result() if word.done() and not word.cancelled() else None
        if said is None and not child.messages.empty():
            said = child.messages.get_nowait()
        if said is not None and said[0] == READY:
            return None
        if said is None and not child.exited.done():
            child.process.kill()
            await child.exited
            return StartFailed(1, f"worker {child.index} did not listen within "
                                  f"{START_TIMEOUT:.0f} s: see the log")
        code = await child.exited
        if said is not None and said[0] == FAILED:
            return StartFailed(int(said[1]), str(said[2]))
        how = ", ".join(f"{k} {v}" for k, v in _exit(code).items())
        return StartFailed(1, f"worker {child.index} ended before it listened ({how}): "
                              "see the log")

    def _tell_redis(self) -> None:
        """The embedded Redis died or was restarted: tell every worker."""
        if self._embedded is not None:
            for child in list(self._children.values()):
                self._send(child, (REDIS, self._embedded.up, self._embedded.restarts))

    @staticmethod
    def _send(child: _Child, message: tuple[Any, ...]) -> None:
        if not child.exited.done():
            with contextlib.suppress(OSError, ValueError):
                child.link.send(message)

    # ------------------------------------------------------------------ stopping

    async def stop(self) -> None:
        self._stopping = True
        live = [c for c in self._children.values() if not c.exited.done()]
        for child in live:
            with contextlib.suppress(OSError):
                child.process.terminate()
        if live:
            _, late = await asyncio.wait([c.exited for c in live], timeout=STOP_TIMEOUT)
            for child in live:
                if not child.exited.done():
                    log.error("worker_killed", worker=child.index, pid=child.process.pid,
                              detail=f"not stopped within {STOP_TIMEOUT:.0f} s of SIGTERM")
                    child.process.kill()
            if late:
                await asyncio.wait(late)
        for keeper in self._keepers:
            keeper.cancel()
        await asyncio.gather(*self._keepers, return_exceptions=True)
        if self._embedded is not None:
            await self._embedded.stop()
        for sock in self._held:
            sock.close()
        if self._rundir is not None:
            shutil.rmtree(self._rundir, ignore_errors=True)
        log.info("stopped")


def _exit(code: int) -> dict[str, Any]:
    """How a process ended, for a log line: its exit status or its signal."""
    if code < 0:
        with contextlib.suppress(ValueError):
            return {"signal": signal.Signals(-code).name}
        return {"signal": -code}
    return {"code": code}


__all__ = ["ConfigError", "StartFailed", "Supervisor", "reserve"]
