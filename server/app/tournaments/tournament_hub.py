"""Tournament hubs: one per tournament with a connection on this process,
fanning its events out to those connections.

Its events carry the tournament as it shows itself (:mod:`.public_views`):
whole, or its header, counts and the top of its standings. Where it shows its
top, each of its players following it also gets their own place (``t_me``:
their rank and the lines just above and below theirs) when they start
following and after each round, and every follower the counts (``t_field``)
when they changed, at most once a tick.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable, Sequence
from typing import Any, Final, Protocol

import orjson
import structlog
from websockets.asyncio.server import ServerConnection, broadcast

from ...protocol import frame, place_frame, wrap_raw
from ...race import RaceError
from ...store import Channels, Store, StoreUnavailable
from ..ground.backpressure import Backpressure
from ..ground.health import Health
from ..ground.metrics import Metrics
from ..ground.tasks import spawn
from .public_views import EveryoneView, View
from .tournament_service import Tournaments

log = structlog.get_logger("app.tournaments.tournament_hub")

NEAR_CHUNK: Final = 400  # players per look at the standings around them


class Follower(Protocol):
    """What a tournament hub needs of a connection following it."""

    ws: ServerConnection
    syncing: bool  # catching up: frames wait in ``pending``
    pending: list[bytes]
    backpressure: Backpressure  # the socket's slow-consumer policy
    t_player: int  # the player of the tournament this connection is (-1: none)


class TournamentHub:
    """One tournament on this process: its connections and latest public state."""

    def __init__(self, hubs: TournamentHubs, tournament_id: str) -> None:
        self.hubs = hubs
        self.store = hubs.store
        self.id = tournament_id
        self.v = 0
        self.view: View = EveryoneView()  # the tournament's, once loaded
        self.public: dict[str, Any] = {}
        self.sessions: set[Follower] = set()
        self.loading: asyncio.Future[bool] | None = None
        self._counts: dict[str, int] = {}
        self._poll: asyncio.Task[None] | None = None
        self._closed = False

    async def load(self) -> bool:
        await self.hubs.subscriber.subscribe(self.store.rooms.tournament_channel(self.id))
        if not await self._read():
            return False
        if self.view.polls_counts:
            self._poll = asyncio.create_task(self._poll_counts(), name=f"t-field-{self.id}")
        return True

    async def _read(self) -> bool:
        try:
            data = await self.hubs.tournaments.load(self.id)
        except RaceError:  # no such tournament
            return False
        self.view = self.hubs.tournaments.view(data.t)
        self.v, self._counts = data.ev, data.counts
        self.public = await self.hubs.tournaments.public(data.t, data.counts)
        spawn(self.hubs.tournaments.settle(data.t))
        return True

    def sync_frame(self, counts: dict[str, int] | None = None, reason: str | None = None) -> bytes:
        """The tournament whole; ``reason`` ``rollback`` when Redis came back
        with less than this process had seen."""
        public = dict(self.public)
        public["now"] = self.hubs.now_ms()
        if counts:
            public["field"] = counts
        d: dict[str, Any] = {"v": self.v, "tournament": public}
        if reason is not None:
            d["reason"] = reason
        return frame("t_sync", d)

    async def sync_frame_now(self) -> bytes:
        """The sync frame, with the counts as they are now where they are
        polled (registrations are not events: the hub's may be a tick old)."""
        if not self.view.polls_counts:
            return self.sync_frame()
        try:
            return self.sync_frame(await self.store.tournaments.tournament_counts(self.id))
        except StoreUnavailable:
            return self.sync_frame()

    def on_message(self, data: bytes) -> None:
        event = orjson.loads(data)
        v = event["v"]
        if v <= self.v:
            return
        if v != self.v + 1:  # a gap: start again from the stored state
            spawn(self.recover())
            return
        self.v = v
        self.public = event["tournament"]
        if self.view.polls_counts:
            self._counts = dict(self.public.get("field") or self._counts)
        self._send(self.sessions, wrap_raw("t_event", data))
        kind = event["kind"]
        if kind == "kicked":
            for s in self.sessions:
                if s.t_player == event["player"]:
                    s.t_player = -1
        elif kind == "round_ended" and self.view.sends_places:
            spawn(self.send_me(list(self.sessions)))

    async def recover(self) -> None:
        """:meth:`resync` until it works: Redis unreachable, again (backing
        off); anything else, logged with its traceback, counted, again."""
        wait = 0.5
        while not self._closed:
            try:
                await self.resync()
                return
            except StoreUnavailable:
                pass
            except Exception:
                log.exception("tournament_resync_failed", tournament=self.id)
                self.hubs.fault()
            await asyncio.sleep(wait)
            wait = min(wait * 2, 5.0)

    async def resync(self) -> None:
        seen = self.v
        if not await self._read():
            return
        reason = None
        if self.v < seen:  # Redis came back with less than this process had seen
            log.warning("rollback", tournament=self.id, seen=seen, stored=self.v)
            if self.hubs.metrics is not None:
                self.hubs.metrics.rollbacks.labels(scope="tournament").inc()
            reason = "rollback"
        self._send(self.sessions, self.sync_frame(reason=reason))

    def _send(self, sessions: Iterable[Follower], data: bytes) -> None:
        sockets = []
        for s in sessions:
            if s.syncing:
                s.pending.append(data)
            elif s.backpressure.admit(essential=True):
                sockets.append(s.ws)
        if sockets:
            broadcast(sockets, data, text=True)

    async def send_me(self, followers: Sequence[Follower]) -> None:
        """Each player's own place in the standings (where they show their top)."""
        players = [f for f in followers if f.t_player >= 0]
        extra = b',"id":"%s"' % self.id.encode()
        for i in range(0, len(players), NEAR_CHUNK):
            chunk = players[i:i + NEAR_CHUNK]
            try:
                places = await self.hubs.tournaments.near(self.id, [p.t_player for p in chunk])
            except StoreUnavailable:
                return  # the next round's end (or a t_watch) sends it again
            for follower, place in zip(chunk, places, strict=True):
                if place is not None:
                    self._send((follower,), place_frame("t_me", place, extra))

    async def _poll_counts(self) -> None:
        """Every tick, the counts (registered, withdrawn, kicked) to every
        follower when they changed, where registrations are not events."""
        while True:
            await asyncio.sleep(self.hubs.tick)
            try:
                counts = await self.store.tournaments.tournament_counts(self.id)
            except StoreUnavailable:
                continue
            except Exception:  # (the next tick looks again)
                log.exception("tournament_counts_failed", tournament=self.id)
                self.hubs.fault()
                continue
            if counts and counts != self._counts:
                self._counts = counts
                self.public = {**self.public, "field": counts}
                self._send(self.sessions, frame("t_field", {"id": self.id, "field": counts}))

    def close(self) -> None:
        self._closed = True
        if self._poll is not None:
            self._poll.cancel()


class TournamentHubs:
    def __init__(self, *, store: Store, subscriber: Channels, tournaments: Tournaments,
                 now_ms: Callable[[], int], tick: float = 1.25,
                 metrics: Metrics | None = None, health: Health | None = None) -> None:
        self.store, self.subscriber, self.tournaments = store, subscriber, tournaments
        self.now_ms, self.metrics, self.health = now_ms, metrics, health
        self.tick = tick  # seconds between two looks at a tournament's counts
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
            hub.close()
            spawn(self.subscriber.unsubscribe(self.store.rooms.tournament_channel(hub.id)))

    def leave(self, hub: TournamentHub, session: Follower) -> None:
        hub.sessions.discard(session)
        if hub.loading is not None and hub.loading.done():
            self._forget(hub)

    def on_message(self, tournament_id: str, data: bytes) -> None:
        """A message of a tournament's channel; one that fails is logged,
        counted, and the tournament read again."""
        hub = self._hubs.get(tournament_id)
        if hub is None:
            return
        try:
            hub.on_message(data)
        except Exception:
            log.exception("tournament_message_failed", tournament=tournament_id,
                          message=data[:200])
            self.fault()
            spawn(hub.recover())

    def fault(self) -> None:
        if self.health is not None:
            self.health.fault("tournament")

    def on_reconnect(self) -> None:
        for hub in self.all():
            spawn(hub.recover())
