"""Tournament hubs: one per tournament with a connection on this process,
fanning its events out to those connections."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any, Protocol

import orjson
import structlog
from websockets.asyncio.server import ServerConnection, broadcast

from ..protocol import frame, wrap_raw
from ..store import Channels, Store
from .background import spawn
from .metrics import Metrics
from .tournaments import Tournaments

log = structlog.get_logger("app.thubs")


class Follower(Protocol):
    """What a tournament hub needs of a connection following it."""

    ws: ServerConnection
    syncing: bool  # catching up: frames wait in ``pending``
    pending: list[bytes]


class TournamentHub:
    """One tournament on this process: its connections and latest public state."""

    def __init__(self, hubs: TournamentHubs, tournament_id: str) -> None:
        self.hubs = hubs
        self.store = hubs.store
        self.id = tournament_id
        self.v = 0
        self.public: dict[str, Any] = {}
        self.sessions: set[Follower] = set()
        self.loading: asyncio.Future[bool] | None = None

    async def load(self) -> bool:
        await self.hubs.subscriber.subscribe(self.store.tournament_channel(self.id))
        loaded = await self.store.load_tournament(self.id)
        if loaded is None:
            return False
        t, _, ev = loaded
        self.v, self.public = ev, t.public(self.hubs.now_ms())
        spawn(self.hubs.tournaments.settle(t))
        return True

    def sync_frame(self, reason: str | None = None) -> bytes:
        public = dict(self.public)
        public["now"] = self.hubs.now_ms()
        d: dict[str, Any] = {"v": self.v, "tournament": public}
        if reason is not None:
            d["reason"] = reason
        return frame("t_sync", d)

    def on_message(self, data: bytes) -> None:
        event = orjson.loads(data)
        v = event["v"]
        if v <= self.v:
            return
        if v != self.v + 1:  # a gap: start again from the stored state
            spawn(self.resync())
            return
        self.v = v
        self.public = event["tournament"]
        self._send(wrap_raw("t_event", data))

    async def resync(self) -> None:
        loaded = await self.store.load_tournament(self.id)
        if loaded is None:
            return
        t, _, ev = loaded
        reason = None
        if ev < self.v:  # Redis came back with less than this process had seen
            log.warning("rollback", tournament=self.id, seen=self.v, stored=ev)
            if self.hubs.metrics is not None:
                self.hubs.metrics.rollbacks.labels(scope="tournament").inc()
            reason = "rollback"
        self.v, self.public = ev, t.public(self.hubs.now_ms())
        self._send(self.sync_frame(reason))

    def _send(self, data: bytes) -> None:
        sockets = [s.ws for s in self.sessions if not s.syncing]
        for s in self.sessions:
            if s.syncing:
                s.pending.append(data)
        if sockets:
            broadcast(sockets, data, text=True)


class TournamentHubs:
    def __init__(self, *, store: Store, subscriber: Channels, tournaments: Tournaments,
                 now_ms: Callable[[], int], metrics: Metrics | None = None) -> None:
        self.store, self.subscriber, self.tournaments = store, subscriber, tournaments
        self.now_ms, self.metrics = now_ms, metrics
        self._hubs: dict[str, TournamentHub] = {}

    def all(self) -> list[TournamentHub]:
        return list(self._hubs.values())

    async def enter(self, tournament_id: str, session: Follower) -> TournamentHub | None:
        """The tournament's hub with ``session`` in it; ``None`` if unknown.
        A hub is registered before it loads, so a session leaving meanwhile
        cannot unsubscribe the channel under a hub being built."""
        hub = self._hubs.get(tournament_id)
        if hub is None:
            hub = self._hubs[tournament_id] = TournamentHub(self, tournament_id)
            hub.loading = asyncio.ensure_future(hub.load())
        assert hub.loading is not None
        try:
            found = await asyncio.shield(hub.loading)
        except BaseException:
            self._forget(hub)
            raise
        if not found:
            self._forget(hub)
            return None
        hub.sessions.add(session)
        return hub

    def _forget(self, hub: TournamentHub) -> None:
        if not hub.sessions and self._hubs.get(hub.id) is hub:
            del self._hubs[hub.id]
            spawn(self.subscriber.unsubscribe(self.store.tournament_channel(hub.id)))

    def leave(self, hub: TournamentHub, session: Follower) -> None:
        hub.sessions.discard(session)
        if hub.loading is not None and hub.loading.done():
            self._forget(hub)

    def on_message(self, tournament_id: str, data: bytes) -> None:
        hub = self._hubs.get(tournament_id)
        if hub is not None:
            hub.on_message(data)

    def on_reconnect(self) -> None:
        for hub in self.all():
            spawn(hub.resync())
