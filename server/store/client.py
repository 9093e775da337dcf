"""The store's way to Redis: one node, or a Redis Cluster, and what an ack means.

Every command and script goes through :meth:`RedisClient.execute` with the
key that routes it: on one Redis the key is ignored and the command joins
the next batch of the one :class:`~.batch.Batcher`; on a cluster it goes to
the batcher of the master of the key's slot (:mod:`.cluster`). A script is
routed by its first key, and run in the rendering of the mode (``PUBLISH`` or
``SPUBLISH``, see :mod:`.scripts`).

Durability (``--durability``), what an acknowledged command has survived:

======== ===================================================================
os       Redis has run it, and its append-only file reaches the disk within
         about a second (``appendfsync everysec``): survives a crash of the
         server process or of Redis, not of the machine.
fsync    Redis has written it to its append-only file and fsynced it
         (``appendfsync always``) before answering: survives a machine crash.
replica  a replica has it too (``WAIT 1`` once per batch): survives losing
         the master (its replica is promoted).
======== ===================================================================
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import Any, Final, Protocol

from redis.asyncio.connection import ConnectionPool
from redis.exceptions import NoScriptError, RedisError

from . import scripts
from .batch import Batcher, StoreUnavailable
from .cluster import Cluster
from .pubsub import Channels, ShardedSubscriber, Subscriber

DURABILITIES: Final = ("os", "fsync", "replica")
#: how long a batch waits for its replica (``--durability replica``) before it fails
REPLICA_TIMEOUT_MS: Final = 1000


class Observer(Protocol):
    """What the store reports (the app's metrics)."""

    def redis_batch(self, size: int, seconds: float) -> None: ...
    def redis_redirect(self, kind: str) -> None: ...
    def replica_unconfirmed(self) -> None: ...
    def redis_trouble(self, kind: str, error: str, commands: int) -> None:
        """``commands`` were refused ``unavailable`` for Redis's ``kind`` of
        trouble (:data:`.batch.TROUBLE`, a lost connection, …): once per
        batch and kind, with the first error's text."""


class RedisClient:
    """Commands to one Redis or to a Redis Cluster, batched per node."""

    def __init__(self, url: str, *, cluster: bool = False, durability: str = "os", lanes: int = 2,
                 timeout: float = 5.0, replica_timeout_ms: int = REPLICA_TIMEOUT_MS,
                 observer: Observer | None = None) -> None:
        if durability not in DURABILITIES:
            raise ValueError(f"durability {durability!r}: expected one of {', '.join(DURABILITIES)}")
        self.url = url
        self.durability = durability
        self.sharded = cluster
        self.mode = scripts.SHARDED if cluster else scripts.CLASSIC
        replicas = 1 if durability == "replica" else 0
        on_batch = observer.redis_batch if observer else None
        on_unconfirmed = observer.replica_unconfirmed if observer else None
        on_trouble = observer.redis_trouble if observer else None
        self._cluster: Cluster | None = None
        self._batcher: Batcher | None = None
        self.pool: ConnectionPool | None = None
        if cluster:
            self._cluster = Cluster(url, lanes=lanes, timeout=timeout, replicas=replicas,
                                    replica_timeout_ms=replica_timeout_ms, on_batch=on_batch,
                                    on_unconfirmed=on_unconfirmed, on_trouble=on_trouble,
                                    on_redirect=observer.redis_redirect if observer else None)
        else:
            self.pool = ConnectionPool.from_url(url, socket_timeout=None,
                                                socket_connect_timeout=timeout)
            self._batcher = Batcher(self.pool, lanes=lanes, timeout=timeout, replicas=replicas,
                                    replica_timeout_ms=replica_timeout_ms, on_batch=on_batch,
                                    on_unconfirmed=on_unconfirmed, on_trouble=on_trouble)

    async def start(self) -> None:
        """On a cluster: read the slot map (if a node answers) and keep it fresh."""
        if self._cluster is not None:
            await self._cluster.refresh()
            self._cluster.start()

    async def close(self) -> None:
        if self._cluster is not None:
            await self._cluster.close()
        if self._batcher is not None:
            await self._batcher.close()
        if self.pool is not None:
            await self.pool.disconnect()

    def execute(self, key: str | bytes, *args: Any) -> Awaitable[Any]:
        """Run one command; ``key`` (its first key) routes it on a cluster."""
        if self._batcher is not None:
            return self._batcher.execute(*args)
        assert self._cluster is not None
        return self._cluster.execute(key, *args)

    async def run(self, script: scripts.Script, keys: Sequence[str], args: Sequence[Any]) -> Any:
        """Run a script on the node of its first key."""
        mode, batcher = self.mode, self._batcher
        try:
            if batcher is not None:  # (the hot path of one Redis: no routing at all)
                return await batcher.execute("EVALSHA", script.shas[mode], len(keys), *keys, *args)
            return await self.execute(keys[0], "EVALSHA", script.shas[mode], len(keys), *keys, *args)
        except NoScriptError:  # a new or restarted node: EVAL runs it and caches it there
            return await self.execute(keys[0], "EVAL", script.rendered[mode], len(keys), *keys,
                                      *args)

    async def each_node(self, *args: Any) -> dict[str, Any]:
        """A keyless command that writes nothing (``PING``, ``CONFIG GET``) on the
        one Redis, or on every master of the cluster: ``"host:port"`` (or the
        URL) -> the reply, or the exception raised."""
        if self._batcher is not None:
            try:
                return {self.url: await self._batcher.execute_unconfirmed(*args)}
            except (RedisError, StoreUnavailable) as exc:
                return {self.url: exc}
        assert self._cluster is not None
        if not self._cluster.complete:
            await self._cluster.refresh()
        replies = await self._cluster.each_master(*args)
        return {f"{host}:{port}": reply for (host, port), reply in replies.items()}

    async def scan(self, pattern: str) -> list[str]:
        """The names of the keys that match ``pattern`` on the one Redis or on
        every master of the cluster (``SCAN``: Redis is never held long)."""
        if self._batcher is not None:
            return await _scan(self._batcher.execute_unconfirmed, pattern)
        assert self._cluster is not None
        if not self._cluster.complete:
            await self._cluster.refresh()
        found: list[str] = []
        for addr in self._cluster.masters:
            found += await _scan(self._cluster.node(addr).execute_unconfirmed, pattern)
        return found

    async def ping(self) -> bool:
        """The one Redis answers; on a cluster, every slot has a master and every
        master answers."""
        if self._cluster is not None and not self._cluster.complete:
            await self._cluster.refresh()
            if not self._cluster.complete:
                return False
        replies = await self.each_node("PING")
        return bool(replies) and all(r is True or r == b"PONG" for r in replies.values())

    def subscriber(self, on_message: Callable[[str, bytes], None],
                   on_reconnect: Callable[[], None],
                   on_fault: Callable[[str], None] | None = None) -> Channels:
        """The room channels' subscriber for this mode (start it with ``start``);
        ``on_fault`` hears of each exception it survived (:mod:`.pubsub`)."""
        if self._cluster is not None:
            return ShardedSubscriber(self._cluster, on_message, on_reconnect, on_fault)
        assert self.pool is not None
        return Subscriber(self.pool, on_message, on_reconnect, on_fault=on_fault)

    async def infos(self) -> dict[str, dict[str, str] | BaseException]:
        """``INFO`` (its default sections: memory, persistence, replication…)
        of the one Redis or of every master, as dicts of its fields; the
        exception raised for a node that did not answer."""
        return {node: answer if isinstance(answer, BaseException) else _info(answer)
                for node, answer in (await self.each_node("INFO")).items()}

    async def version_problems(self) -> list[str] | None:
        """On a cluster, masters older than Redis 7 (no sharded pub/sub), as
        sentences; ``None`` if a node could not be asked."""
        if self._cluster is None:
            return []
        problems = []
        for node, answer in (await self.each_node("INFO", "server")).items():
            if isinstance(answer, BaseException):
                return None
            version = _info(answer).get("redis_version", "0")
            if int(version.split(".")[0]) < 7:
                problems.append(f"{node} runs Redis {version}: --redis-cluster needs Redis 7 or "
                                "newer (sharded pub/sub)")
        return problems

    async def durability_problems(self) -> list[str] | None:
        """What keeps Redis from keeping this client's durability promise, as
        sentences (empty: none); ``None`` if it could not be checked (a node
        unreachable, or ``CONFIG``/``INFO`` refused)."""
        if self.durability == "os":
            return []
        if self.durability == "fsync":
            answers = await self.each_node("CONFIG", "GET", "append*")
        else:
            answers = await self.each_node("INFO", "replication")
        problems: list[str] = []
        for node, answer in answers.items():
            if isinstance(answer, BaseException):
                return None
            if self.durability == "fsync":
                conf = _pairs(answer)
                if conf.get("appendonly") != "yes" or conf.get("appendfsync") != "always":
                    problems.append(
                        f"{node} has appendonly {conf.get('appendonly', '?')}, appendfsync "
                        f"{conf.get('appendfsync', '?')}: --durability fsync needs appendonly yes "
                        "and appendfsync always")
            elif int(_info(answer).get("connected_slaves", "0")) < 1:
                problems.append(f"{node} has no replica connected: acks wait for one "
                                "(--durability replica)")
        return problems


async def _scan(execute: Callable[..., Awaitable[Any]], pattern: str) -> list[str]:
    found: list[str] = []
    cursor: Any = 0
    while True:
        cursor, names = await execute("SCAN", cursor, "MATCH", pattern, "COUNT", 1000)
        found += [n.decode() if isinstance(n, bytes) else str(n) for n in names]
        if int(cursor) == 0:
            return found


def _info(reply: Any) -> dict[str, str]:
    """``INFO``'s answer (text ``field:value`` lines) as a dict."""
    text = reply.decode() if isinstance(reply, bytes) else str(reply)
    return dict(line.strip().split(":", 1) for line in text.splitlines() if ":" in line)


def _pairs(reply: Any) -> dict[str, str]:
    """``CONFIG GET``'s answer (a flat list on RESP2, a map on RESP3) as a dict."""
    if isinstance(reply, dict):
        items = list(reply.items())
    else:
        items = list(zip(reply[::2], reply[1::2], strict=True))
    return {(k.decode() if isinstance(k, bytes) else str(k)): (v.decode() if isinstance(v, bytes)
                                                                else str(v)) for k, v in items}
