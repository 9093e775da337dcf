"""One Redis round trip for many concurrent commands.

Commands issued while a batch is in flight wait in a queue; each free lane
(one connection) sends everything queued as one pipeline and reads the
replies in order. Under load a round trip carries many commands, and
redis-py's per-command cost (pool checkout, parsing setup) is paid once per
batch instead of once per command. Nothing waits for a connection slot, so
thousands of commands may be in flight.
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Callable
from typing import Any

from redis.asyncio.connection import AbstractConnection, ConnectionPool
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import ResponseError
from redis.exceptions import TimeoutError as RedisTimeoutError

from .resp import pack


class StoreUnavailable(Exception):
    """Redis could not be reached, or did not answer in time. The command may
    or may not have been applied: callers reload before going on."""


Args = tuple[Any, ...]
Pending = tuple[Args, "asyncio.Future[Any]"]


class Batcher:
    """Sends commands over ``lanes`` connections, batched per round trip."""

    def __init__(self, pool: ConnectionPool, *, lanes: int = 2, max_batch: int = 1024,
                 timeout: float = 5.0,
                 on_batch: Callable[[int, float], None] | None = None) -> None:
        self._pool = pool
        self._queue: list[Pending] = []
        self._wake = asyncio.Event()
        self._max_batch = max_batch
        self._timeout = timeout
        self._on_batch = on_batch
        self._conns: list[AbstractConnection] = []
        self._tasks = [asyncio.create_task(self._lane(i), name=f"redis-lane-{i}")
                       for i in range(lanes)]
        self._closed = False

    def execute(self, *args: Any) -> asyncio.Future[Any]:
        """Queue one command; the future gets its reply, a ``ResponseError``
        raised by Redis, or :class:`StoreUnavailable`."""
        fut: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        if self._closed:
            fut.set_exception(StoreUnavailable("the store is closed"))
            return fut
        self._queue.append((args, fut))
        self._wake.set()
        return fut

    async def _lane(self, index: int) -> None:
        conn: AbstractConnection = self._pool.make_connection()  # type: ignore[no-untyped-call]
        self._conns.append(conn)
        loop = asyncio.get_running_loop()
        while True:
            await self._wake.wait()
            batch = self._queue[: self._max_batch]
            del self._queue[: self._max_batch]
            if not self._queue:
                self._wake.clear()
            if not batch:
                continue
            started = loop.time()
            try:
                async with asyncio.timeout(self._timeout):
                    if not conn.is_connected:
                        await conn.connect()  # type: ignore[no-untyped-call]
                    await conn.send_packed_command(pack([args for args, _ in batch]),
                                                   check_health=False)
                    for _, fut in batch:
                        try:
                            reply = await conn.read_response(timeout=math.inf)
                        except ResponseError as exc:
                            if not fut.done():
                                fut.set_exception(exc)
                            continue
                        if not fut.done():
                            fut.set_result(reply)
            except (RedisConnectionError, RedisTimeoutError, OSError, TimeoutError) as exc:
                await conn.disconnect(nowait=True)
                for _, fut in batch:
                    if not fut.done():
                        fut.set_exception(StoreUnavailable(f"redis unavailable: {exc}"))
            except asyncio.CancelledError:
                for _, fut in batch:
                    if not fut.done():
                        fut.set_exception(StoreUnavailable("the store is closing"))
                raise
            if self._on_batch is not None:
                self._on_batch(len(batch), loop.time() - started)

    async def close(self) -> None:
        self._closed = True
        loop = asyncio.get_running_loop()
        until = loop.time() + self._timeout
        while self._queue and loop.time() < until:  # let queued commands finish
            await asyncio.sleep(0.01)
        for task in self._tasks:
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        for conn in self._conns:
            await conn.disconnect()
