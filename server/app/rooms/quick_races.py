"""Quick race: join the next public race of a mode that starts soon, or open one.

Each mode (``D1N``, ``D3N``, ``D1V``, ``D3V``) has its open quick races in
Redis under the mode's hash tag (``kq:{MODE}:…``), each with its opener's
rating. The ``quick`` script sends a player to the open race nearest their
rating (in their family: race.rating) that accepts them — a race accepts
ratings within :data:`WINDOW_BASE` of its opener's when it opens, widening by
:data:`WINDOW_WIDEN` each second, anyone after :data:`WINDOW_MAX_WAIT_MS` —
while it has a seat left and its start is not too near, and otherwise makes
the player's fresh room id a new open race, which that player then creates
(and so hosts). The choice is one atomic call on the mode's keys, so two
players of near ratings pressing Quick race at once on two processes are
sent to the same room: one opens it, the other joins it (retrying for a
moment while its creation is on its way). Thousands queued cost a sorted
set's range, never a scan.

A quick race's room is an ordinary public room of :data:`PLAYERS` seats,
:data:`TIME_LIMIT` seconds, undo and hints, boards after the race, whose
settings say ``quick``: it starts by itself ``--quick-wait`` seconds after
its second player arrives, at once when it is full (:meth:`Room.join`), and
nobody starts it by hand. Every quick race is rated (race.rating): its
players need a player key. A player sent to a room that filled up, started
or went away meanwhile (it is public: others may join it from the list) is
sent again, passing that room over. Opening one counts as a creation
against the address's caps, like any room.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from typing import Final, TypeAlias

from ...protocol import Reason
from ...race import RaceError, Room
from ...race.rating import Rating
from ...store import Store, StoreUnavailable
from .ids import new_room_id
from .room_config import RoomConfig
from .room_service import Rooms

PLAYERS: Final = 6
TIME_LIMIT: Final = 600
OFFER_MARGIN_MS: Final = 3000  # a quick race is offered until this long before its start
ATTEMPTS: Final = 5  # rooms passed over before a player is told to try again
JOIN_TRIES: Final = 30  # a room being created: tries to join it, PAUSE apart
PAUSE: Final = 0.1
MODES: Final = {(1, "N"), (3, "N"), (1, "V"), (3, "V")}
#: pairing by rating: a quick race accepts a player whose shown rating is
#: within WINDOW_BASE of its opener's when it opens, WINDOW_WIDEN more each
#: second it stays open, and anyone once it has been open WINDOW_MAX_WAIT_MS
WINDOW_BASE: Final = 100
WINDOW_WIDEN: Final = 20
WINDOW_MAX_WAIT_MS: Final = 30_000

#: a creation counted against an address's caps: a block that keeps a place
#: while the room is made, and is told the room's id once it is
Opening: TypeAlias = Callable[[], contextlib.AbstractAsyncContextManager[Callable[[str], Awaitable[None]]]]


class QuickRaces:
    """Sending players to the quick races."""

    def __init__(self, rooms: Rooms, store: Store, config: RoomConfig,
                 now_ms: Callable[[], int]) -> None:
        self.rooms, self.store, self.config, self.now_ms = rooms, store, config, now_ms

    async def enter(self, nickname: str, draw: int, scoring: str, *,
                    creation: Opening, address: str,
                    rating: Rating) -> tuple[Room | None, str, int, str]:
        """A seat in a quick race of this mode: (the room if this player
        opened it, its id, the seat, its token). ``creation`` counts an
        opening against the address's caps (and refuses it): a block that
        keeps a place for the room while it is made, and gives it
        the room's id once it is."""
        if (draw, scoring) not in MODES:
            raise RaceError(Reason.BAD_SETTINGS, "a quick race is draw 1 or 3, scoring 'N' or 'V'")
        mode = f"D{draw}{scoring}"
        if not await self.store.lobby.count_quick(address, now_ms=self.now_ms(),
                                            most=self.config.quick_per_minute):
            raise RaceError(Reason.TOO_MANY, f"at most {self.config.quick_per_minute} quick races "
                                             "a minute from one address: try again in a moment")
        skip = ""
        wait_ms = self.config.quick_wait * 1000
        for _ in range(ATTEMPTS):
            verdict, room_id = await self.store.lobby.quick_pick(
                mode, new_room_id(), skip, now=self.now_ms(), seats=PLAYERS,
                offer_ms=max(0, wait_ms - OFFER_MARGIN_MS), ttl_ms=self.config.lobby_ttl * 1000,
                rating=rating.shown, window=(WINDOW_BASE, WINDOW_WIDEN, WINDOW_MAX_WAIT_MS))
            if verdict == "open":
                return await self._open(mode, room_id, nickname, draw, scoring, creation, address,
                                        rating)
            joined = await self._join(mode, room_id, nickname, address, rating.label())
            if joined is not None:
                return None, room_id, *joined
            skip = room_id
        raise StoreUnavailable("every quick race filled up meanwhile; try again")

    async def _open(self, mode: str, room_id: str, nickname: str, draw: int, scoring: str,
                    creation: Opening, address: str,
                    rating: Rating) -> tuple[Room | None, str, int, str]:
        settings = {"draw": draw, "scoring": scoring, "max_players": PLAYERS,
                    "time_limit": TIME_LIMIT, "public": True, "rated": True}
        try:
            if not await self.store.ratings.claim_address(room_id, address):  # rated: one an address
                raise RaceError(Reason.ADDRESS_FULL, "a rated race seats one player per address")
            async with creation() as made:
                room, token = await self.rooms.create(nickname, settings, address=address,
                                                      room_id=room_id, quick=self.config.quick_wait,
                                                      rating=rating.label(),
                                                      pairing=[rating.shown, WINDOW_BASE,
                                                               WINDOW_WIDEN, WINDOW_MAX_WAIT_MS])
                await made(room.id)
        except BaseException:
            await self.store.lobby.quick_left(mode, room_id, forget=True)  # the next one opens anew
            raise
        return room, room.id, 0, token

    async def _join(self, mode: str, room_id: str, nickname: str, address: str, label: str
                    ) -> tuple[int, str] | None:
        """A seat in the room; ``None`` if it is full, started or gone, or
        the address has a seat there already (a quick race is rated: one
        seat per address; the seat counted for this player is offered again).
        Refused for the player's own sake (a nickname taken there): the
        seat counted for them is offered again."""
        if not await self.store.ratings.claim_address(room_id, address):
            await self.store.lobby.quick_left(mode, room_id)
            return None
        try:
            joined = await self._join_seat(mode, room_id, nickname, address, label)
        except BaseException:
            await self.store.ratings.release_address(room_id, address)
            raise
        if joined is None:
            await self.store.ratings.release_address(room_id, address)
        return joined

    async def _join_seat(self, mode: str, room_id: str, nickname: str, address: str, label: str
                         ) -> tuple[int, str] | None:
        for _ in range(JOIN_TRIES):
            try:
                seat, token, _ = await self.rooms.join(room_id, nickname, address=address,
                                                       rating=label)
                return seat, token
            except RaceError as exc:
                if exc.reason is Reason.UNKNOWN_ROOM:  # being created: a moment
                    await asyncio.sleep(PAUSE)
                    continue
                if exc.reason in (Reason.ROOM_FULL, Reason.RACE_STARTED, Reason.NOT_LOBBY):
                    return None
                await self.store.lobby.quick_left(mode, room_id)
                raise
        return None
