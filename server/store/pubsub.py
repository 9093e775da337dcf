"""Room channels: one subscriber connection per process, kept alive.

Redis pub/sub forgets subscriptions when the connection drops (a Redis
restart, a network cut). The subscriber reconnects with backoff, subscribes
again to every room it had, and calls ``on_reconnect`` so that each room's
hub fetches what it may have missed.
"""

from __future__ import annotations

import asyncio
import contextlib
import math
from collections.abc import Callable

import structlog
from redis.asyncio.connection import AbstractConnection, ConnectionPool
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

log = structlog.get_logger("store.pubsub")


class Subscriber:
    """Delivers ``(channel, data)`` of every message on subscribed channels
    (names from :meth:`Store.room_channel` and :meth:`Store.tournament_channel`)."""

    def __init__(self, pool: ConnectionPool, on_message: Callable[[str, bytes], None],
                 on_reconnect: Callable[[], None]) -> None:
        self._pool = pool
        self._on_message = on_message
        self._on_reconnect = on_reconnect
        self._channels: set[str] = set()
        self._conn: AbstractConnection | None = None
        self._connected = asyncio.Event()
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self._task = asyncio.create_task(self._run(), name="redis-subscriber")

    async def subscribe(self, channel: str) -> None:
        """Start receiving a channel (returns once Redis was asked)."""
        if channel in self._channels:
            return
        self._channels.add(channel)
        await self._send("SUBSCRIBE", channel)

    async def unsubscribe(self, channel: str) -> None:
        if channel not in self._channels:
            return
        self._channels.discard(channel)
        await self._send("UNSUBSCRIBE", channel)

    async def _send(self, command: str, channel: str) -> None:
        conn = self._conn
        if conn is None or not self._connected.is_set():
            return  # (re)subscribed when the connection comes back
        with contextlib.suppress(RedisConnectionError, RedisTimeoutError, OSError):
            # on failure the reader notices, reconnects and resubscribes
            await conn.send_command(command, channel, check_health=False)

    async def wait_connected(self, timeout: float) -> bool:
        try:
            async with asyncio.timeout(timeout):
                await self._connected.wait()
        except TimeoutError:
            return False
        return True

    async def _run(self) -> None:
        delay = 0.05
        first = True
        while True:
            conn: AbstractConnection = self._pool.make_connection()  # type: ignore[no-untyped-call]
            self._conn = conn
            try:
                await conn.connect()  # type: ignore[no-untyped-call]
                if self._channels:
                    await conn.send_command("SUBSCRIBE", *self._channels, check_health=False)
                self._connected.set()
                if not first:
                    log.info("redis_subscriber_reconnected", channels=len(self._channels))
                    self._on_reconnect()
                first = False
                delay = 0.05
                while True:
                    msg = await conn.read_response(timeout=math.inf, push_request=True)
                    if isinstance(msg, list) and len(msg) == 3 and msg[0] == b"message":
                        self._on_message(msg[1].decode(), msg[2])
            except asyncio.CancelledError:
                await conn.disconnect(nowait=True)
                raise
            except (RedisConnectionError, RedisTimeoutError, OSError) as exc:
                if self._connected.is_set():
                    log.warning("redis_subscriber_lost", error=str(exc))
                self._connected.clear()
                await conn.disconnect(nowait=True)
                await asyncio.sleep(delay)
                delay = min(delay * 2, 1.0)

    async def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)
