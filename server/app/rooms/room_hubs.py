"""The room hubs of this process, by room id: a hub is made when a
connection enters its room and dropped when the last one leaves (and its
channel unsubscribed); heartbeats of dead processes release the seats they
held (:meth:`RoomHubs.reap`); messages of the rooms' channels reach their hub.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from typing import Any

import structlog

from ...store import Channels, Store
from ..ground.busyness import Busyness
from ..ground.health import Health
from ..ground.metrics import Metrics
from ..ground.tasks import spawn
from .listener import Listener
from .policy import FEW
from .room_hub import RoomHub

log = structlog.get_logger("app.rooms.room_hubs")


class RoomHubs:
    """The hubs of this process, by room id. ``end_race`` ends a room's race
    once nobody plays it any more (a hub may notice it first)."""

    def __init__(self, *, store: Store, subscriber: Channels, metrics: Metrics,
                 busyness: Busyness, now_ms: Callable[[], int],
                 end_race: Callable[[str], Coroutine[Any, Any, Any]], tick: float,
                 health: Health) -> None:
        self.store, self.subscriber, self.metrics = store, subscriber, metrics
        self.busyness, self.health = busyness, health
        self.now_ms, self.end_race = now_ms, end_race
        self.tick = tick  # seconds between a big room's leaderboard ticks
        self._hubs: dict[str, RoomHub] = {}

    def __len__(self) -> int:
        return len(self._hubs)

    def get(self, room_id: str) -> RoomHub | None:
        return self._hubs.get(room_id)

    def all(self) -> list[RoomHub]:
        return list(self._hubs.values())

    async def enter(self, room_id: str, session: Listener) -> RoomHub | None:
        """The room's hub with ``session`` in it; ``None`` if there is no such room."""
        hub = self._hubs.get(room_id)
        if hub is None:
            hub = self._hubs[room_id] = RoomHub(self, room_id)
            self.metrics.rooms.set(len(self._hubs))
            try:
                found = await hub.load()
            except BaseException as exc:
                self._drop(hub)
                hub.loaded.set_exception(exc)
                hub.loaded.exception()  # retrieved: callers get it by awaiting below
                raise
            if not found:
                self._drop(hub)
            hub.loaded.set_result(found)
        elif not await asyncio.shield(hub.loaded):
            return None
        if not hub.loaded.result():
            return None
        hub.sessions.add(session)
        return hub

    def leave(self, hub: RoomHub, session: Listener) -> None:
        hub.sessions.discard(session)
        hub.forget(session)
        if not hub.sessions and self._hubs.get(hub.room_id) is hub:
            self._drop(hub)

    def _drop(self, hub: RoomHub) -> None:
        hub.close()
        if self._hubs.get(hub.room_id) is hub:
            del self._hubs[hub.room_id]
            spawn(self.subscriber.unsubscribe(self.store.rooms.room_channel(hub.room_id)))
        self.metrics.rooms.set(len(self._hubs))

    async def reap(self) -> None:
        """Release the seats held by connections of server processes that died
        (they stopped beating their heartbeat), in every room with a hub here.
        Reads only who holds each seat, and asks once per process."""
        room_ids = list(self._hubs)
        store = self.store
        holders = await asyncio.gather(*(store.seats.holders(r) for r in room_ids))
        procs = {conn.split(".", 1)[0] for held in holders for conn in held.values()}
        if not procs:
            return
        alive = await store.indexes.alive(procs)
        for room_id, held in zip(room_ids, holders, strict=True):
            for seat, conn in held.items():
                if conn.split(".", 1)[0] not in alive:
                    log.info("seat_released", room=room_id, seat=seat, conn=conn)
                    policy = self._hubs[room_id].policy if room_id in self._hubs else FEW
                    await store.seats.detach(room_id, seat, conn,
                                       policy.seats.presence(seat, False, self.now_ms()))

    def on_message(self, room_id: str, data: bytes) -> None:
        hub = self._hubs.get(room_id)
        if hub is not None:
            hub.on_message(data)

    def on_reconnect(self) -> None:
        for hub in list(self._hubs.values()):
            hub.reconnected()
