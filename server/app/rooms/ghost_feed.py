"""A challenge's ghosts, sent to its players as they play (docs/protocol.md,
"Ghosts"; the pure half is :mod:`server.race.ghosts`).

A hub of a challenge keeps a *pool* of at most :data:`POOL` ghosts at hand:
every one while they are few, else the :data:`TOP` best and the rest spread
evenly over the field (:func:`~server.race.ghosts.pool_ranks`), read from
Redis (one ``ghosts`` script) when their count changed, looked at every
:data:`POOL_EVERY` seconds and for each player's first frame. Every
:data:`STEP` second it looks at its players whose own game runs: each gets,
:data:`LEAD` seconds before it is needed, one ``ghosts`` frame for the next
:data:`SPAN` seconds of their own clock: the :data:`TOP` best ghosts and the
:data:`NEAR` whose cards home at that moment of their game are closest to
the player's own, each a point a second at most
(:meth:`~server.race.ghosts.Ghost.shown`).

So what one socket receives of the ghosts is bounded whatever the field:
one frame every :data:`SPAN` seconds (and one when the player comes back
to their game), of at most ``TOP + NEAR`` ghost lines of at most
``SPAN + 1`` points each: under 2.5 KB per 20 s, about 120 bytes a second
at worst. What a process does for it: per challenge, one ``ZCARD`` every
:data:`POOL_EVERY` seconds and, when the count moved, one script reading
:data:`POOL` ghosts; per player, one pick among the pool per :data:`SPAN`
seconds (a bisection per ghost).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Iterable
from typing import Final, Protocol

import structlog

from ...protocol import frame
from ...race.ghosts import Ghost, pick, pool_ranks
from ...store import Store, StoreUnavailable
from ..ground.tasks import spawn
from .listener import Listener

log = structlog.get_logger("app.rooms.ghost_feed")

POOL: Final = 64  # ghosts a hub keeps at hand
TOP: Final = 3  # the best ghosts every player sees
NEAR: Final = 4  # and those nearest each player at the same moment of their game
SPAN: Final = 20  # seconds of a player's own clock one frame covers
LEAD: Final = 5  # seconds before it begins that a frame is sent
STEP: Final = 1.0  # seconds between two looks at the players
POOL_EVERY: Final = 5.0  # seconds between two looks at the ghosts' count


class GhostRoom(Protocol):
    """What the ghosts need of their room's hub."""

    room_id: str
    store: Store
    now_ms: Callable[[], int]
    sessions: set[Listener]

    def send(self, sessions: Iterable[Listener], data: bytes, *, essential: bool) -> None: ...

    def fault(self) -> None: ...


class GhostFeed:
    """The ghosts of one challenge's hub (see the module's docstring)."""

    def __init__(self, hub: GhostRoom) -> None:
        self.hub = hub
        self.pool: list[Ghost] = []
        self.count = -1  # ghosts in Redis when the pool was read (-1: not yet)
        self._looked = 0.0  # when their count was last looked at (monotonic)
        self._next: dict[Listener, int] = {}  # a player -> the first second of their next frame
        self._task: asyncio.Task[None] | None = None
        self._bad: set[int] = set()  # seats whose trace could not be read (logged once)

    def start(self) -> None:
        self._task = asyncio.create_task(self._run(), name=f"ghosts-{self.hub.room_id}")

    def close(self) -> None:
        if self._task is not None:
            self._task.cancel()

    def forget(self, session: Listener) -> None:
        self._next.pop(session, None)

    def again(self, session: Listener) -> None:
        """The player's game begins: their first frame goes at once."""
        self._next.pop(session, None)
        spawn(self._send_due([session]))

    async def _run(self) -> None:
        while True:
            try:
                await self._send_due(list(self.hub.sessions))
            except StoreUnavailable:
                pass  # the next step tries again
            except Exception:
                log.exception("ghosts_failed", room=self.hub.room_id)
                self.hub.fault()
            await asyncio.sleep(STEP)

    async def _refresh(self) -> None:
        """Read the pool again if the ghosts' count changed (looked at every
        :data:`POOL_EVERY` seconds)."""
        now = time.monotonic()
        if self.count >= 0 and now - self._looked < POOL_EVERY:
            return
        self._looked = now
        store, room_id = self.hub.store, self.hub.room_id
        count = await store.challenges.ghost_count(room_id)
        if count == self.count:
            return
        count, records = await store.challenges.ghosts(room_id, pool_ranks(count, POOL, TOP))
        pool = []
        for record in records:
            try:
                pool.append(Ghost.of(record.line, record.trace))
            except (ValueError, KeyError, TypeError):
                if record.seat not in self._bad:
                    self._bad.add(record.seat)
                    log.warning("ghost_unreadable", room=room_id, seat=record.seat)
        self.pool, self.count = pool, count

    async def _send_due(self, sessions: list[Listener]) -> None:
        """A frame to each of ``sessions`` whose own game runs and whose next
        stretch is due (:data:`LEAD` seconds before it begins)."""
        playing = [(s, own) for s in sessions if (own := s.own_game()) is not None]
        if not playing:
            return
        if any(s not in self._next for s, _ in playing):
            self._looked = 0.0  # a player's first frame: the ghosts as they are now
        await self._refresh()
        now = self.hub.now_ms()
        for session, (started, foundation) in playing:
            second = max(0, (now - started) // 1000)
            first = self._next.get(session)
            if first is not None and second < first - LEAD:
                continue
            if first is None or first < second:  # new here, or late: from now
                first = second
            end = first + SPAN
            ghosts = pick(self.pool, second, foundation, top=TOP, near=NEAR, skip=session.seat)
            self._next[session] = end
            self.hub.send((session,), frame("ghosts", {
                "from": first, "to": end, "lines": [g.shown(first, end) for g in ghosts]}),
                essential=False)
