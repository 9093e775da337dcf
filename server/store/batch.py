"""One Redis round trip for many concurrent commands.

Commands issued while a batch is in flight wait in a queue; each free lane
(one connection) sends everything queued as one pipeline and reads the
replies in order. Under load a round trip carries many commands, and
redis-py's per-command cost (pool checkout, parsing setup) is paid once per
batch instead of once per command. Nothing waits for a connection slot, so
thousands of commands may be in flight.

One batcher talks to one Redis node; on a Redis Cluster the store keeps one
per master (:mod:`.cluster`). A command sent after ``ASKING`` (a slot being
migrated) travels in the same pipeline right behind it.

With ``replicas`` (``--durability replica``) each pipeline ends with
``WAIT replicas timeout``, and no reply of the batch is handed out before a
replica confirmed it has everything the batch wrote: one more command per
round trip, not one per command. A batch that is not confirmed fails with
:class:`StoreUnavailable` (its writes may be on the master only). Until a
later batch is confirmed, the node is in doubt: each batch then starts with
a ``PUBLISH`` of nothing to nobody, a write that orders it after every
earlier write, so that its confirmation also covers those earlier writes
(and a command resent after the failure is never acknowledged from an
unconfirmed write).
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Callable
from typing import Any, Final

from redis.asyncio.connection import AbstractConnection, ConnectionPool
from redis.exceptions import AuthenticationError, BusyLoadingError, ResponseError
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

from .keys import ORDER_CHANNEL
from .resp import pack


class StoreUnavailable(Exception):
    """Redis could not be reached, did not answer in time, or refused the
    command for a reason of its own (out of memory, a read-only replica,
    loading its data, …; or, with ``--durability replica``, no replica
    confirmed in time). The command may or may not have been applied:
    callers reload before going on. ``kind`` names Redis's trouble (see
    :func:`trouble_of`); ``None`` when the store gave up for a reason of the
    data (a room that kept changing)."""

    def __init__(self, message: str, kind: str | None = None) -> None:
        super().__init__(message)
        self.kind = kind


#: Error replies that say Redis cannot run commands now, not that a command is
#: wrong: each is answered ``unavailable``, never ``internal``. (NOSCRIPT is
#: answered by sending the script itself, :meth:`.client.RedisClient.run`;
#: MOVED, ASK, TRYAGAIN and CLUSTERDOWN are the cluster router's, :mod:`.cluster`.)
TROUBLE: Final = {
    "OOM": "oom",  # used memory over maxmemory (noeviction)
    "READONLY": "readonly",  # a replica: a failover, or the wrong node
    "LOADING": "loading",  # reading its data at start
    "MASTERDOWN": "masterdown",  # a replica that lost its master and serves no stale data
    "BUSY": "busy",  # a script running past busy-reply-threshold
    "MISCONF": "misconf",  # its last save failed and stop-writes-on-bgsave-error is on
    "NOREPLICAS": "noreplicas",  # min-replicas-to-write not met
    "NOAUTH": "auth",
    "WRONGPASS": "auth",
    "NOPERM": "auth",  # an ACL that forbids a command we need
}
_REDIRECTS: Final = frozenset({"MOVED", "ASK", "TRYAGAIN", "CLUSTERDOWN"})


def trouble_of(exc: BaseException) -> str | None:
    """The kind of Redis trouble an exception from redis-py is, or ``None``
    for an error reply that is a bug (a wrong type, a script's own error) or
    a cluster redirection.

    >>> from redis.exceptions import OutOfMemoryError, ResponseError, TimeoutError
    >>> trouble_of(OutOfMemoryError("command not allowed", status_code="OOM"))
    'oom'
    >>> trouble_of(ResponseError("BUSY Redis is busy running a script."))
    'busy'
    >>> trouble_of(ResponseError("WRONGTYPE Operation against a key holding the wrong kind of value"))
    >>> trouble_of(TimeoutError("Timeout reading from socket"))
    'timeout'
    """
    if isinstance(exc, BusyLoadingError):
        return "loading"
    if isinstance(exc, AuthenticationError):
        return "auth"
    if isinstance(exc, RedisTimeoutError | TimeoutError):
        return "timeout"
    if isinstance(exc, RedisConnectionError | OSError):
        return "maxclients" if "max number of clients" in str(exc) else "connection"
    if isinstance(exc, ResponseError):
        code = getattr(exc, "status_code", None) or str(exc).split(" ", 1)[0]
        if code in _REDIRECTS:
            return None
        return TROUBLE.get(code)
    return None


Args = tuple[Any, ...]
Pending = tuple[Args, "asyncio.Future[Any]", int]  # command, its future, flags:
ASKING: Final = 1  # sent right after an ASKING
UNCONFIRMED: Final = 2  # answered without waiting for the replica (PING, settings)

_ASKING: Final = ("ASKING",)
_ORDER: Final = ("PUBLISH", ORDER_CHANNEL, "")  # in doubt: a write ordered after the earlier ones


class Batcher:
    """Sends commands to one Redis over ``lanes`` connections, batched per round trip."""

    def __init__(self, pool: ConnectionPool, *, lanes: int = 2, max_batch: int = 1024,
                 timeout: float = 5.0, replicas: int = 0, replica_timeout_ms: int = 1000,
                 on_batch: Callable[[int, float], None] | None = None,
                 on_unconfirmed: Callable[[], None] | None = None,
                 on_trouble: Callable[[str, str, int], None] | None = None) -> None:
        self._pool = pool
        self._queue: list[Pending] = []
        self._wake = asyncio.Event()
        self._max_batch = max_batch
        self._timeout = timeout
        self._wait: Args | None = ("WAIT", replicas, replica_timeout_ms) if replicas else None
        self._replicas = replicas
        self._doubt = False
        self._on_batch = on_batch
        self._on_unconfirmed = on_unconfirmed
        self._on_trouble = on_trouble  # (kind, error, commands refused): once per batch and kind
        self._troubles: dict[str, tuple[str, int]] = {}  # this batch's, reported after it
        self._conns: list[AbstractConnection] = []
        self._tasks = [asyncio.create_task(self._lane(i), name=f"redis-lane-{i}")
                       for i in range(lanes)]
        self._closed = False

    def execute(self, *args: Any) -> asyncio.Future[Any]:
        """Queue one command; the future gets its reply, a ``ResponseError``
        raised by Redis (a bug: a wrong type, a script's error), or
        :class:`StoreUnavailable` (Redis's trouble, see :data:`TROUBLE`). (:meth:`queue` inlined:
        every command of every move comes through here.)"""
        fut: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        if self._closed:
            fut.set_exception(StoreUnavailable("the store is closing", "closing"))
            return fut
        self._queue.append((args, fut, 0))
        self._wake.set()
        return fut

    def execute_asking(self, *args: Any) -> asyncio.Future[Any]:
        """Like :meth:`execute`, right after an ``ASKING`` on the same connection."""
        return self.queue(args, ASKING)

    def execute_unconfirmed(self, *args: Any) -> asyncio.Future[Any]:
        """Like :meth:`execute`, answered as soon as Redis answers, whatever the
        replica says (for ``PING`` and reading settings, which write nothing)."""
        return self.queue(args, UNCONFIRMED)

    def queue(self, args: Args, flags: int) -> asyncio.Future[Any]:
        fut: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        if self._closed:
            fut.set_exception(StoreUnavailable("the store is closing", "closing"))
            return fut
        self._queue.append((args, fut, flags))
        self._wake.set()
        return fut

    def _pipeline(self, batch: list[Pending], ordered: bool) -> bytes:
        commands: list[Args] = [_ORDER] if ordered else []
        for args, _, flags in batch:
            if flags & ASKING:
                commands.append(_ASKING)
            commands.append(args)
        if self._wait is not None:
            commands.append(self._wait)
        return pack(commands)

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
            ordered = self._doubt
            try:
                async with asyncio.timeout(self._timeout):
                    if not conn.is_connected:
                        await conn.connect()  # type: ignore[no-untyped-call]
                    await conn.send_packed_command(self._pipeline(batch, ordered), check_health=False)
                    if ordered:
                        await _reply(conn)
                    if self._wait is None:
                        for _, fut, flags in batch:
                            if flags & ASKING:
                                await _reply(conn)
                            try:
                                reply = await conn.read_response(timeout=math.inf)
                            except ResponseError as exc:
                                if not fut.done():
                                    fut.set_exception(self._refused(exc))
                                continue
                            if not fut.done():
                                fut.set_result(reply)
                    else:
                        replies = []
                        for _, fut, flags in batch:
                            if flags & ASKING:
                                await _reply(conn)
                            reply = await _reply(conn)
                            if isinstance(reply, ResponseError):
                                reply = self._refused(reply)
                            if flags & UNCONFIRMED:
                                _settle(fut, reply)
                            replies.append(reply)
                        confirmed = await _reply(conn)
                        if isinstance(confirmed, int) and confirmed >= self._replicas:
                            self._doubt = self._doubt and not ordered
                            for (_, fut, _), reply in zip(batch, replies, strict=True):
                                _settle(fut, reply)
                        else:
                            self._unconfirmed(batch, confirmed)
            except (RedisConnectionError, RedisTimeoutError, OSError, TimeoutError) as exc:
                await conn.disconnect(nowait=True)
                self._doubt = self._wait is not None
                kind = trouble_of(exc) or "connection"
                error = str(exc) or type(exc).__name__
                failed = 0
                for _, fut, _ in batch:
                    if not fut.done():
                        fut.set_exception(StoreUnavailable(f"redis unavailable: {error}", kind))
                        failed += 1
                self._noted(kind, error, failed)
            except asyncio.CancelledError:
                for _, fut, _ in batch:
                    if not fut.done():
                        fut.set_exception(StoreUnavailable("the store is closing", "closing"))
                raise
            if self._on_batch is not None:
                self._on_batch(len(batch), loop.time() - started)
            if self._troubles:
                troubles, self._troubles = self._troubles, {}
                if self._on_trouble is not None:
                    for kind, (error, count) in troubles.items():
                        self._on_trouble(kind, error, count)

    def _refused(self, exc: ResponseError) -> Exception:
        """What a command's caller gets for an error reply: Redis's trouble
        as :class:`StoreUnavailable` (noted for this batch's report), a bug
        as the error itself."""
        kind = trouble_of(exc)
        if kind is None:
            return exc
        code = getattr(exc, "status_code", None)
        error = f"{code} {exc}" if code else str(exc)
        self._noted(kind, error, 1)
        return StoreUnavailable(f"redis refused: {error}", kind)

    def _noted(self, kind: str, error: str, count: int) -> None:
        if count:
            known = self._troubles.get(kind)
            self._troubles[kind] = (known[0] if known else error, (known[1] if known else 0) + count)

    def _unconfirmed(self, batch: list[Pending], answer: object) -> None:
        self._doubt = True
        if self._on_unconfirmed is not None:
            self._on_unconfirmed()
        why = (f"WAIT failed: {answer}" if isinstance(answer, Exception) else
               f"{answer} of {self._replicas} replica(s) confirmed the write in time")
        for _, fut, _ in batch:
            if not fut.done():
                fut.set_exception(StoreUnavailable(f"not confirmed by a replica: {why}", "replica"))

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


async def _reply(conn: AbstractConnection) -> Any:
    """The next reply on ``conn``, or the error Redis answered."""
    try:
        return await conn.read_response(timeout=math.inf)
    except ResponseError as exc:
        return exc


def _settle(fut: asyncio.Future[Any], reply: Any) -> None:
    if fut.done():
        return
    if isinstance(reply, ResponseError | StoreUnavailable):
        fut.set_exception(reply)
    else:
        fut.set_result(reply)


__all__ = ["Batcher", "StoreUnavailable"]
