"""What ``/healthz`` says about this process, and what it watches to say it.

- **Redis's trouble**: a command refused because Redis cannot run commands
  now (out of memory, a read-only replica, loading, busy with a script, a
  lost connection, a cluster without a master: :data:`server.store.batch.TROUBLE`)
  is answered ``unavailable``, counted in ``klondike_redis_errors_total{kind}``
  and logged once per *episode*: ``redis_trouble`` when it starts (and once
  for each other kind that shows up in it), ``redis_recovered`` once Redis
  has refused nothing for ``QUIET`` seconds.
- **Redis's memory**, read from ``INFO`` every ``WATCH_EVERY`` seconds: past
  ``CREATION_SHARE`` of its ``maxmemory`` no room or tournament is created
  (``server_full``), so that the races and tournaments under way keep the
  memory they still need; at ``maxmemory`` (Redis refuses writes: its policy
  is ``noeviction``), and while it loads its data or is a replica, the
  process is degraded.
- **Faults**: an exception caught in a loop that must go on (the channel
  subscriber, a room's or a tournament's hub) is logged with its traceback
  where it happened and counted in ``klondike_faults_total{where}``; the
  process is degraded for ``FAULT_WINDOW`` seconds after the last one.

:meth:`Health.report` is ``/healthz``: ``(True, {"status": "ok", …})``, or
``(False, {"status": "degraded", "reasons": [...], …})`` answered with 503.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Final

import structlog

from ...protocol import Reason
from ...race import RaceError
from ...store import Channels, Store
from .metrics import Metrics

log = structlog.get_logger("app.ground.health")

QUIET: Final = 5.0  # s without a refused command: Redis's episode of trouble is over
WATCH_EVERY: Final = 2.0  # s between two reads of Redis's INFO
CREATION_SHARE: Final = 0.9  # of maxmemory: no creation past it
FAULT_WINDOW: Final = 30.0  # s: degraded after a fault


@dataclass(slots=True)
class Episode:
    """Redis's trouble, from its first refused command to ``QUIET`` seconds after its last."""

    kinds: dict[str, str]  # kind -> the first error of that kind
    started: float
    last: float
    commands: int = 0


@dataclass(slots=True)
class Memory:
    """What Redis's INFO said last (the fullest node's figures)."""

    used: int = 0
    limit: int = 0  # maxmemory; 0: none
    states: list[str] = field(default_factory=list)  # oom, loading, readonly: as INFO says

    @property
    def share(self) -> float:
        return self.used / self.limit if self.limit else 0.0


class Health:
    """The process's health: Redis's trouble and memory, and faults. It is
    the store's observer (:class:`server.store.Observer`), counting into
    ``metrics`` as it goes."""

    def __init__(self, metrics: Metrics, *,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.metrics = metrics
        self._clock = clock
        self._episode: Episode | None = None
        self.memory = Memory()
        self._full = False  # creations refused for memory
        self._faults: dict[str, int] = {}
        self._last_fault: tuple[str, float] | None = None
        self._store: Store | None = None
        self._channels: Channels | None = None
        self._watcher: asyncio.Task[None] | None = None
        self._no_limit_logged = False

    # ------------------------------------------------------------------ the store's observer

    def redis_batch(self, size: int, seconds: float) -> None:
        self.metrics.redis_batch(size, seconds)

    def redis_redirect(self, kind: str) -> None:
        self.metrics.redis_redirect(kind)

    def replica_unconfirmed(self) -> None:
        self.metrics.replica_unconfirmed()

    def redis_trouble(self, kind: str, error: str, commands: int) -> None:
        """Commands refused for Redis's trouble: counted; logged once per
        episode and kind."""
        if kind == "closing":
            return
        self.metrics.redis_trouble(kind, error, commands)
        now = self._clock()
        episode = self._episode
        if episode is not None and now - episode.last > QUIET:
            self._recovered(episode, now)
            episode = None
        if episode is None:
            episode = self._episode = Episode({}, started=now, last=now)
        episode.last = now
        episode.commands += commands
        if kind not in episode.kinds:
            episode.kinds[kind] = error
            log.warning("redis_trouble", kind=kind, error=error[:200],
                        since_s=round(now - episode.started, 1))

    def _recovered(self, episode: Episode, now: float) -> None:
        log.info("redis_recovered", kinds=sorted(episode.kinds), commands=episode.commands,
                 seconds=round(episode.last - episode.started, 1))
        if self._episode is episode:
            self._episode = None

    # ------------------------------------------------------------------ faults

    def fault(self, where: str) -> None:
        """An exception was caught (and logged with its traceback) in a loop
        that goes on: ``room`` (a room's hub), ``tournament``, ``subscriber``."""
        self.metrics.faults.labels(where=where).inc()
        self._faults[where] = self._faults.get(where, 0) + 1
        self._last_fault = (where, self._clock())

    # ------------------------------------------------------------------ creations

    def creation(self, kind: str) -> None:
        """Refuse a creation while Redis is nearly full (``server_full``)."""
        if self._full:
            self.metrics.rejected.labels(reason=Reason.SERVER_FULL.value).inc()
            raise RaceError(Reason.SERVER_FULL, f"the server's storage is nearly full: no new "
                                                f"{kind} for now, try again later")

    # ------------------------------------------------------------------ watching Redis

    def start(self, store: Store, channels: Channels) -> None:
        self._store, self._channels = store, channels
        self._watcher = asyncio.create_task(self._watch(), name="redis-health")

    async def close(self) -> None:
        if self._watcher is not None:
            self._watcher.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._watcher

    async def _watch(self) -> None:
        while True:
            try:
                await self.look()
            except Exception:  # (a bug here must not end the watch)
                log.exception("health_watch_failed")
            await asyncio.sleep(WATCH_EVERY)

    async def look(self) -> None:
        """Read Redis's INFO now; end an episode Redis has recovered from."""
        assert self._store is not None
        infos = await self._store.redis.infos()
        answered = [i for i in infos.values() if not isinstance(i, BaseException)]
        if answered:
            self._read(answered)
        if len(answered) == len(infos):
            self._settle(self._clock())

    def _settle(self, now: float) -> None:
        """End the episode of trouble once Redis has refused nothing for ``QUIET`` s."""
        episode = self._episode
        if episode is not None and now - episode.last > QUIET:
            self._recovered(episode, now)

    def _read(self, infos: list[dict[str, str]]) -> None:
        memory = Memory()
        for info in infos:
            used, limit = int(info.get("used_memory", "0")), int(info.get("maxmemory", "0"))
            node = Memory(used, limit)
            if limit and (not memory.limit or node.share > memory.share):
                memory.used, memory.limit = used, limit
            if limit and used >= limit:
                memory.states.append("oom")
            if info.get("loading") == "1":
                memory.states.append("loading")
            if info.get("role") == "slave":
                memory.states.append("readonly")
        if not memory.limit:
            memory.used = max(int(i.get("used_memory", "0")) for i in infos)
            if not self._no_limit_logged:
                self._no_limit_logged = True
                log.warning("redis_no_maxmemory", used=memory.used,
                            detail="creations are not refused before Redis is full")
        self.memory = memory
        self.metrics.redis_memory.set(memory.share)
        full = memory.share >= CREATION_SHARE
        if full != self._full:
            self._full = full
            if full:
                log.warning("creations_refused", reason="memory", used=memory.used,
                            maxmemory=memory.limit, share=CREATION_SHARE)
            else:
                log.info("creations_allowed", used=memory.used, maxmemory=memory.limit)

    # ------------------------------------------------------------------ /healthz

    async def report(self) -> tuple[bool, dict[str, Any]]:
        """``/healthz``: whether this process is healthy, and why not."""
        reasons: list[dict[str, Any]] = []
        now = self._clock()
        store, channels = self._store, self._channels
        if store is not None and not await store.ping():
            reasons.append({"what": "redis", "kind": "unreachable"})
        else:
            self._settle(now)
            if channels is not None and not await channels.wait_connected(0):
                reasons.append({"what": "redis", "kind": "channels",
                                "detail": "the room channels' subscriber is not connected"})
        episode = self._episode
        if episode is not None and now - episode.last <= QUIET:
            for kind, error in episode.kinds.items():
                reasons.append({"what": "redis", "kind": kind, "detail": error[:200],
                                "since_s": round(now - episode.started, 1)})
        known = {r["kind"] for r in reasons}
        for state in self.memory.states:
            if state not in known:
                reasons.append({"what": "redis", "kind": state, "detail": "as its INFO says"})
        if self._last_fault is not None and now - self._last_fault[1] <= FAULT_WINDOW:
            where, at = self._last_fault
            reasons.append({"what": "fault", "kind": where,
                            "detail": "an exception in a loop that went on: see the log",
                            "ago_s": round(now - at, 1)})
        body: dict[str, Any] = {"status": "degraded" if reasons else "ok"}
        if reasons:
            body["reasons"] = reasons
        body["redis_memory"] = {"used": self.memory.used, "maxmemory": self.memory.limit,
                                "creations": "refused" if self._full else "open"}
        if self._faults:
            body["faults"] = dict(self._faults)
        return not reasons, body
