"""Room channels: one subscriber connection per process (per node on a
Redis Cluster), kept alive.

Redis pub/sub forgets subscriptions when the connection drops (a Redis
restart, a network cut). The subscriber reconnects with backoff, subscribes
again to every room it had, and calls ``on_reconnect`` so that each room's
hub fetches what it may have missed.

Nothing ends the subscriber but :meth:`Subscriber.close`: an exception
raised by ``on_message`` is logged with its traceback and reported to
``on_fault``, and the next message is read as usual; any other exception
in the loop (a reply it cannot read, a bug) is logged and reported too, and
the subscriber starts again from a new connection, as after a lost one.

On a Redis Cluster the channels are sharded (``SSUBSCRIBE``: a channel lives
on the shard that owns its slot, the room's), so :class:`ShardedSubscriber`
keeps one :class:`Subscriber` per master and moves a channel when its slot
moves: a node unsubscribes its clients from the channels of a slot migrated
away (``sunsubscribe``), answers ``MOVED`` to a subscription for a slot it no
longer has, and the slot map changes after a failover. Each of these
re-homes the channel on its slot's master and calls ``on_reconnect``
(messages may have been missed in between).
"""

from __future__ import annotations

import asyncio
import contextlib
import math
from collections.abc import Callable, Coroutine
from typing import Any, Protocol

import structlog
from redis.asyncio.connection import AbstractConnection, ConnectionPool
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import MovedError, ResponseError
from redis.exceptions import TimeoutError as RedisTimeoutError

from .cluster import Addr, Cluster, node_url
from .slots import slot

log = structlog.get_logger("store.pubsub")

#: How long ``subscribe`` waits for Redis to confirm a subscription.
CONFIRM_TIMEOUT = 5.0


class Channels(Protocol):
    """What the app needs of a subscriber (:meth:`Store.subscriber` makes one)."""

    def start(self) -> None: ...
    async def subscribe(self, channel: str) -> None: ...
    async def unsubscribe(self, channel: str) -> None: ...
    async def wait_connected(self, timeout: float) -> bool: ...
    async def close(self) -> None: ...


class Subscriber:
    """Delivers ``(channel, data)`` of every message on subscribed channels
    (names from ``store.rooms.room_channel`` and ``store.rooms.tournament_channel``)
    of one Redis node; ``sharded``: shard channels (``SSUBSCRIBE``)."""

    def __init__(self, pool: ConnectionPool, on_message: Callable[[str, bytes], None],
                 on_reconnect: Callable[[], None], *, sharded: bool = False,
                 on_evicted: Callable[[str], None] | None = None,
                 on_moved: Callable[[MovedError], None] | None = None,
                 on_fault: Callable[[str], None] | None = None) -> None:
        self._pool = pool
        self._on_message = on_message
        self._on_reconnect = on_reconnect
        self._on_fault = on_fault
        self._on_evicted = on_evicted
        self._on_moved = on_moved
        self._sub, self._unsub = ("SSUBSCRIBE", "SUNSUBSCRIBE") if sharded else ("SUBSCRIBE",
                                                                                "UNSUBSCRIBE")
        self._kind = b"smessage" if sharded else b"message"
        self._sharded = sharded
        self._channels: set[str] = set()
        self._confirming: dict[str, asyncio.Future[None]] = {}  # asked, not yet confirmed
        self._subscribed = b"ssubscribe" if sharded else b"subscribe"
        self._conn: AbstractConnection | None = None
        self._connected = asyncio.Event()
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self._task = asyncio.create_task(self._run(), name="redis-subscriber")

    @property
    def channels(self) -> set[str]:
        return set(self._channels)

    async def subscribe(self, channel: str) -> None:
        """Start receiving a channel; returns once Redis confirmed it (so
        that what the caller reads next is followed by every later message),
        or after ``CONFIRM_TIMEOUT`` seconds (the connection is down: it
        subscribes when it comes back, and ``on_reconnect`` says so)."""
        if channel in self._channels:
            waiter = self._confirming.get(channel)
        else:
            self._channels.add(channel)
            waiter = self._confirming[channel] = asyncio.get_running_loop().create_future()
            await self._send(self._sub, channel)
        if waiter is None:
            return
        try:
            await asyncio.wait_for(asyncio.shield(waiter), CONFIRM_TIMEOUT)
        except TimeoutError:
            log.warning("redis_subscribe_unconfirmed", channel=channel)

    async def unsubscribe(self, channel: str) -> None:
        if channel not in self._channels:
            return
        self._channels.discard(channel)
        self._confirmed(channel)
        await self._send(self._unsub, channel)

    def _confirmed(self, channel: str) -> None:
        waiter = self._confirming.pop(channel, None)
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    def forget(self, channel: str) -> None:
        """Drop a channel Redis refused (it is subscribed elsewhere)."""
        self._channels.discard(channel)
        self._confirmed(channel)

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

    async def _resubscribe(self, conn: AbstractConnection) -> None:
        if not self._channels:
            return
        if self._sharded:  # one command per channel: channels of different slots can't share one
            await conn.send_packed_command(
                conn.pack_commands([(self._sub, ch) for ch in self._channels]), check_health=False)
        else:
            await conn.send_command(self._sub, *self._channels, check_health=False)

    def _dispatch(self, msg: object) -> None:
        if not isinstance(msg, list) or len(msg) != 3:
            return
        kind = msg[0]
        if kind == self._kind:
            channel = msg[1].decode()
            try:
                self._on_message(channel, msg[2])
            except Exception:  # one message's trouble: the next ones still come
                log.exception("channel_message_failed", channel=channel,
                              message=bytes(msg[2][:200]))
                self._fault()
        elif kind == self._subscribed:
            self._confirmed(msg[1].decode())
        elif kind == b"sunsubscribe" and self._on_evicted is not None:
            channel = msg[1].decode()
            if channel in self._channels:  # not asked for: the slot left this node
                self._channels.discard(channel)
                self._on_evicted(channel)

    async def _run(self) -> None:
        delay = 0.05
        first = True
        while True:
            conn: AbstractConnection = self._pool.make_connection()  # type: ignore[no-untyped-call]
            self._conn = conn
            try:
                await conn.connect()  # type: ignore[no-untyped-call]
                await self._resubscribe(conn)
                self._connected.set()
                if not first:
                    log.info("redis_subscriber_reconnected", channels=len(self._channels))
                    self._on_reconnect()
                first = False
                delay = 0.05
                while True:
                    try:
                        msg = await conn.read_response(timeout=math.inf, push_request=True)
                    except MovedError as exc:  # a subscription sent to a node without the slot
                        if self._on_moved is not None:
                            self._on_moved(exc)
                        continue
                    except ResponseError as exc:
                        log.warning("redis_subscribe_refused", error=str(exc))
                        continue
                    self._dispatch(msg)
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
            except Exception:  # anything else: start again from a new connection
                log.exception("redis_subscriber_failed", channels=len(self._channels))
                self._fault()
                self._connected.clear()
                first = False  # (the hubs catch up once it is back)
                await conn.disconnect(nowait=True)
                await asyncio.sleep(delay)
                delay = min(delay * 2, 1.0)

    def _fault(self) -> None:
        if self._on_fault is not None:
            self._on_fault("subscriber")

    async def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)


class ShardedSubscriber:
    """Channels on a Redis Cluster: each subscribed on the master of its slot."""

    def __init__(self, cluster: Cluster, on_message: Callable[[str, bytes], None],
                 on_reconnect: Callable[[], None],
                 on_fault: Callable[[str], None] | None = None) -> None:
        self._cluster = cluster
        self._on_message = on_message
        self._on_reconnect = on_reconnect
        self._on_fault = on_fault
        self._wanted: set[str] = set()
        self._home: dict[str, Addr] = {}  # channel -> the node it is subscribed on
        self._nodes: dict[Addr, Subscriber] = {}
        self._tasks: set[asyncio.Task[None]] = set()
        self._closed = False

    def start(self) -> None:
        self._cluster.listeners.append(self._rehome)

    def _spawn(self, coro: Coroutine[Any, Any, None]) -> None:
        task = asyncio.create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def _node(self, addr: Addr) -> Subscriber:
        sub = self._nodes.get(addr)
        if sub is None:
            pool = ConnectionPool.from_url(node_url(self._cluster.seed_url, addr),
                                           socket_timeout=None, socket_connect_timeout=5.0)
            sub = self._nodes[addr] = Subscriber(
                pool, self._on_message, self._on_reconnect, sharded=True,
                on_evicted=self._evicted, on_moved=lambda exc: self._moved(exc, addr),
                on_fault=self._on_fault)
            sub.start()
        return sub

    async def subscribe(self, channel: str) -> None:
        self._wanted.add(channel)
        addr = self._cluster.master_of(channel)
        if addr is None and await self._cluster.refresh():
            addr = self._cluster.master_of(channel)
        if addr is None:
            return  # subscribed once the slot map is known (_rehome)
        for _ in range(3):  # a MOVED answer re-homes it meanwhile: wait for the new home
            self._home[channel] = addr
            await self._node(addr).subscribe(channel)
            home = self._home.get(channel)
            if home is None or home == addr or channel not in self._wanted:
                return
            addr = home

    async def unsubscribe(self, channel: str) -> None:
        self._wanted.discard(channel)
        addr = self._home.pop(channel, None)
        if addr is not None and addr in self._nodes:
            await self._nodes[addr].unsubscribe(channel)

    def _evicted(self, channel: str) -> None:
        self._home.pop(channel, None)
        self._cluster.refresh_soon()
        self._rehome()

    def _moved(self, exc: MovedError, addr: Addr) -> None:
        for channel in [c for c, a in self._home.items() if a == addr and slot(c) == exc.slot_id]:
            del self._home[channel]
            self._nodes[addr].forget(channel)
        self._cluster.learn_moved(exc, addr)
        self._rehome()

    def _rehome(self) -> None:
        """Subscribe every wanted channel on its slot's master; drop the
        subscribers of nodes that are no longer masters."""
        if self._closed:
            return
        moved = False
        for channel in self._wanted:
            addr = self._cluster.master_of(channel)
            old = self._home.get(channel)
            if addr is None or addr == old:
                continue
            moved = True
            if old is not None and old in self._nodes:
                self._spawn(self._nodes[old].unsubscribe(channel))
            self._home[channel] = addr
            self._spawn(self._node(addr).subscribe(channel))
        masters = set(self._cluster.masters)
        for addr in [a for a in self._nodes if a not in masters]:
            self._spawn(self._nodes.pop(addr).close())
        if moved:
            log.info("redis_channels_moved")
            self._on_reconnect()

    async def wait_connected(self, timeout: float) -> bool:
        """The slot map is known (channels are subscribed as rooms open)."""
        loop = asyncio.get_running_loop()
        until = loop.time() + timeout
        while not self._cluster.complete:
            if loop.time() >= until:
                return False
            await self._cluster.refresh()
            if not self._cluster.complete:
                await asyncio.sleep(min(0.1, max(0.0, until - loop.time())))
        return True

    async def close(self) -> None:
        self._closed = True
        with contextlib.suppress(ValueError):
            self._cluster.listeners.remove(self._rehome)
        for task in self._tasks:
            task.cancel()
        await asyncio.gather(*self._tasks, *(sub.close() for sub in self._nodes.values()),
                             return_exceptions=True)
        self._nodes.clear()
