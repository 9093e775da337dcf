"""Redis Cluster: which master holds which slot, and each command sent there.

Given any one node, the router reads the slot map (``CLUSTER SLOTS``) and keeps
one :class:`~.batch.Batcher` per master, so that commands are still batched
one round trip per batch, per node: a move's script goes to the master of its
room's slot, and concurrent commands for the same master share a pipeline.

What a node may answer instead of running a command, and what the router does
(each of these means the command was *not* run, so sending it again is safe):

- ``MOVED slot host:port``: the slot lives on that node now (a migration
  finished, a replica was promoted). The slot is remembered at once, the
  whole map is read again soon, the command is sent there.
- ``ASK slot host:port``: the slot is being migrated and this key is already
  on the target: the command goes there once, right behind ``ASKING``.
- ``TRYAGAIN`` (a script whose keys are split between the two nodes of a
  migration) and ``CLUSTERDOWN`` (a failover in progress): sent again after a
  short wait, for up to ``retry_for`` seconds, then :class:`StoreUnavailable`.

A lost connection is not retried (the command may have run): the caller gets
:class:`StoreUnavailable` as with one Redis, and the map is read again. The
map is also read every ``refresh_every`` seconds; listeners (the sharded
subscriber) hear of every change.
"""

from __future__ import annotations

import asyncio
import contextlib
import math
from collections.abc import Callable, Sequence
from typing import Any, Final
from urllib.parse import urlsplit, urlunsplit

import structlog
from redis.asyncio.connection import AbstractConnection, ConnectionPool
from redis.exceptions import AskError, ClusterDownError, MovedError, RedisError, TryAgainError

from .batch import Batcher, StoreUnavailable
from .slots import SLOTS, slot

log = structlog.get_logger("store.cluster")

Addr = tuple[str, int]
#: how long TRYAGAIN and CLUSTERDOWN are waited out, and how often the map is read anyway
RETRY_FOR: Final = 3.0
REFRESH_EVERY: Final = 5.0
_MIN_REFRESH_GAP: Final = 0.2
_MAX_REDIRECTS: Final = 16


def node_url(seed_url: str, addr: Addr) -> str:
    """``seed_url`` (scheme, password, options) pointed at another node.

    >>> node_url("redis://:pw@10.0.0.1:7000/0", ("redis-2", 7001))
    'redis://:pw@redis-2:7001/0'
    """
    parts = urlsplit(seed_url)
    userinfo = parts.netloc.rpartition("@")[0]
    host = f"[{addr[0]}]" if ":" in addr[0] else addr[0]
    netloc = f"{userinfo}@{host}:{addr[1]}" if userinfo else f"{host}:{addr[1]}"
    return urlunsplit((parts.scheme, netloc, parts.path, parts.query, parts.fragment))


def parse_slots(reply: Sequence[Any], asked: Addr) -> dict[int, Addr]:
    """The masters of ``CLUSTER SLOTS``' ranges: ``{first slot: (host, port)}``
    of each range, ``asked`` standing for a node that named no endpoint
    (``""``). A master whose endpoint is unknown (``"?"``) is left out."""
    starts: dict[int, Addr] = {}
    for entry in reply:
        first, _last, master = int(entry[0]), int(entry[1]), entry[2]
        host = master[0].decode() if isinstance(master[0], bytes) else str(master[0] or "")
        if host == "?":
            continue
        starts[first] = (host or asked[0], int(master[1]))
    return starts


def slot_map(reply: Sequence[Any], asked: Addr) -> list[Addr | None]:
    """Slot -> its master, from a ``CLUSTER SLOTS`` reply (``None``: no master known)."""
    out: list[Addr | None] = [None] * SLOTS
    masters = parse_slots(reply, asked)
    for entry in reply:
        first, last = int(entry[0]), int(entry[1])
        if first in masters:
            out[first:last + 1] = [masters[first]] * (last - first + 1)
    return out


def replicas_of(reply: Sequence[Any], asked: Addr) -> set[Addr]:
    """Every replica named in a ``CLUSTER SLOTS`` reply (to ask when masters fail)."""
    out = set()
    for entry in reply:
        for node in entry[3:]:
            host = node[0].decode() if isinstance(node[0], bytes) else str(node[0] or "")
            if host != "?":
                out.add((host or asked[0], int(node[1])))
    return out


class Cluster:
    """Commands to a Redis Cluster, each to the master of its key's slot."""

    def __init__(self, seed_url: str, *, lanes: int = 2, timeout: float = 5.0,
                 replicas: int = 0, replica_timeout_ms: int = 1000,
                 retry_for: float = RETRY_FOR, refresh_every: float = REFRESH_EVERY,
                 on_batch: Callable[[int, float], None] | None = None,
                 on_unconfirmed: Callable[[], None] | None = None,
                 on_redirect: Callable[[str], None] | None = None,
                 on_trouble: Callable[[str, str, int], None] | None = None) -> None:
        self.seed_url = seed_url
        seed = urlsplit(seed_url)
        self._seed: Addr = (seed.hostname or "127.0.0.1", seed.port or 6379)
        self._lanes, self._timeout = lanes, timeout
        self._replicas, self._replica_timeout_ms = replicas, replica_timeout_ms
        self._retry_for, self._refresh_every = retry_for, refresh_every
        self._on_batch, self._on_unconfirmed = on_batch, on_unconfirmed
        self._on_redirect = on_redirect
        self._on_trouble = on_trouble
        self._slots: list[Addr | None] = [None] * SLOTS
        self._known: set[Addr] = {self._seed}  # nodes to ask for the map
        self._nodes: dict[Addr, Batcher] = {}
        self.listeners: list[Callable[[], None]] = []  # told when the map changed
        self._refresh_task: asyncio.Task[None] | None = None
        self._last_refresh = -math.inf
        self._last_ok = False
        self._ticker: asyncio.Task[None] | None = None
        self._closing: set[asyncio.Task[None]] = set()
        self._closed = False

    def start(self) -> None:
        self._ticker = asyncio.create_task(self._tick(), name="redis-cluster-map")

    # ------------------------------------------------------------------ the map

    @property
    def masters(self) -> list[Addr]:
        """The masters of the slot map, in slot order."""
        return list(dict.fromkeys(a for a in self._slots if a is not None))

    def master_of(self, key: str | bytes) -> Addr | None:
        return self._slots[slot(key)]

    @property
    def complete(self) -> bool:
        """Every slot has a master."""
        return None not in self._slots

    async def refresh(self) -> bool:
        """Read the slot map again now (one read at a time); ``True`` if a node answered."""
        if self._refresh_task is None or self._refresh_task.done():
            self._refresh_task = asyncio.create_task(self._refresh(), name="redis-cluster-refresh")
        await asyncio.shield(self._refresh_task)
        return self._last_ok

    def refresh_soon(self) -> None:
        """Read the map again, unless that was done a moment ago (or is under way)."""
        loop = asyncio.get_running_loop()
        if self._closed or loop.time() - self._last_refresh < _MIN_REFRESH_GAP:
            return
        if self._refresh_task is None or self._refresh_task.done():
            self._refresh_task = asyncio.create_task(self._refresh(), name="redis-cluster-refresh")

    async def _refresh(self) -> None:
        loop = asyncio.get_running_loop()
        self._last_refresh = loop.time()
        # masters first (they answer for sure when alive), then the seed, then the rest
        order = [*self.masters, self._seed, *sorted(self._known)]
        for addr in dict.fromkeys(order):
            try:
                reply = await self._ask(addr, "CLUSTER", "SLOTS")
            except (RedisError, OSError, TimeoutError) as exc:
                log.debug("cluster_node_unreachable", node=f"{addr[0]}:{addr[1]}", error=str(exc))
                continue
            if not reply:  # a node that is not (yet) part of a cluster
                continue
            self._apply(slot_map(reply, addr), replicas_of(reply, addr))
            self._last_ok = True
            return
        self._last_ok = False

    def _apply(self, slots: list[Addr | None], replicas: set[Addr]) -> None:
        changed = slots != self._slots
        self._slots = slots
        masters = set(self.masters)
        self._known = masters | replicas | {self._seed}
        for addr in [a for a in self._nodes if a not in masters]:
            batcher = self._nodes.pop(addr)  # no longer a master: its commands fail, resent elsewhere
            task = asyncio.create_task(batcher.close(), name="redis-node-close")
            self._closing.add(task)
            task.add_done_callback(self._closing.discard)
        if changed:
            log.info("cluster_map", masters=[f"{h}:{p}" for h, p in self.masters],
                     complete=self.complete)
            for listener in list(self.listeners):
                listener()

    def learn_moved(self, exc: AskError, addr: Addr) -> None:
        """A ``MOVED`` from the node ``addr``: its slot is elsewhere (read the map soon)."""
        new = (exc.host or addr[0], exc.port)
        if self._slots[exc.slot_id] != new:
            self._slots[exc.slot_id] = new
            self._known.add(new)
        self.refresh_soon()

    async def _ask(self, addr: Addr, *args: Any) -> Any:
        """One command on a connection of its own (the map, the settings of a node)."""
        conn: AbstractConnection = ConnectionPool.from_url(
            node_url(self.seed_url, addr), socket_timeout=None,
            socket_connect_timeout=min(self._timeout, 2.0)).make_connection()  # type: ignore[no-untyped-call]
        try:
            async with asyncio.timeout(min(self._timeout, 2.0)):
                await conn.connect()  # type: ignore[no-untyped-call]
                await conn.send_command(*args, check_health=False)
                return await conn.read_response(timeout=math.inf)
        finally:
            await conn.disconnect(nowait=True)

    async def each_master(self, *args: Any) -> dict[Addr, Any]:
        """One keyless command that writes nothing on every master, through its
        batcher (not waiting for replicas); each node's reply or the exception
        it raised."""
        masters = self.masters
        replies = await asyncio.gather(*(self.node(a).execute_unconfirmed(*args) for a in masters),
                                       return_exceptions=True)
        return dict(zip(masters, replies, strict=True))

    async def _tick(self) -> None:
        while True:
            await asyncio.sleep(self._refresh_every)
            with contextlib.suppress(Exception):
                await self.refresh()

    # ------------------------------------------------------------------ commands

    def node(self, addr: Addr) -> Batcher:
        """The batcher of a node, made on first use."""
        batcher = self._nodes.get(addr)
        if batcher is None:
            if self._closed:
                raise StoreUnavailable("the store is closing", "closing")
            pool = ConnectionPool.from_url(node_url(self.seed_url, addr), socket_timeout=None,
                                           socket_connect_timeout=self._timeout)
            batcher = self._nodes[addr] = Batcher(
                pool, lanes=self._lanes, timeout=self._timeout, replicas=self._replicas,
                replica_timeout_ms=self._replica_timeout_ms, on_batch=self._on_batch,
                on_unconfirmed=self._on_unconfirmed, on_trouble=self._on_trouble)
        return batcher

    async def execute(self, key: str | bytes, *args: Any) -> Any:
        """Run a command on the master of ``key``'s slot, following redirections."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self._retry_for
        home = slot(key)
        asking: Addr | None = None
        wait, redirects = 0.02, 0
        while redirects <= _MAX_REDIRECTS:  # waits (TRYAGAIN, CLUSTERDOWN) are bounded in time
            if asking is not None:
                addr, fut = asking, self.node(asking).execute_asking(*args)
                asking = None
            else:
                found = self._slots[home]
                if found is None:
                    await self.refresh()
                    found = self._slots[home]
                    if found is None:
                        raise self._gave_up("clusterdown", f"no master known for slot {home}")
                addr, fut = found, self.node(found).execute(*args)
            try:
                return await fut
            except MovedError as exc:  # (a subclass of AskError: first)
                self._count("moved")
                self.learn_moved(exc, addr)
                redirects += 1
            except AskError as exc:
                self._count("ask")
                asking = (exc.host or addr[0], exc.port)
                redirects += 1
            except (TryAgainError, ClusterDownError) as exc:
                self._count("tryagain" if isinstance(exc, TryAgainError) else "clusterdown")
                if isinstance(exc, ClusterDownError):
                    self.refresh_soon()
                if loop.time() + wait > deadline:
                    kind = "tryagain" if isinstance(exc, TryAgainError) else "clusterdown"
                    raise self._gave_up(kind, f"{kind.upper()} {exc}") from None
                await asyncio.sleep(wait)
                wait = min(wait * 2, 0.25)
            except StoreUnavailable:
                self.refresh_soon()  # a node gone: maybe a failover
                raise
        raise self._gave_up("redirects", f"too many redirections for slot {home}")

    def _gave_up(self, kind: str, error: str) -> StoreUnavailable:
        """The command was not run: Redis's trouble, reported like a batch's."""
        if self._on_trouble is not None:
            self._on_trouble(kind, error, 1)
        return StoreUnavailable(f"redis cluster: {error}", kind)

    def _count(self, kind: str) -> None:
        if self._on_redirect is not None:
            self._on_redirect(kind)

    async def close(self) -> None:
        self._closed = True
        for task in (self._ticker, self._refresh_task):
            if task is not None:
                task.cancel()
                await asyncio.gather(task, return_exceptions=True)
        await asyncio.gather(*self._closing, *(b.close() for b in self._nodes.values()))
        self._nodes.clear()

__all__ = ["Addr", "Cluster", "node_url", "parse_slots", "replicas_of", "slot_map"]
