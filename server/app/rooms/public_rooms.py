"""The public rooms' list, kept in step with the rooms' phases.

A public room is listed waiting when it is created (or dealt again), moved
to the running races when its race starts, and taken off when the race
ends. The list lives under one hash tag of its own (``kl:{pub}:…``, see
:mod:`server.store.public_rooms`), so on a Redis Cluster it is in another
slot than any room's keys and no room script can write it: each change is
one call made right after the room's own commit (before it, for a new room,
so that a refusal creates nothing). Every call is idempotent, and what a
process killed in between leaves behind is mended by the readers: a lobby
that finds a listed room gone, ended, emptied or in another phase than its
place says unlists or moves it (:mod:`.lobby_hub`).

One address lists at most ``--public-per-address`` rooms at once (counted
by the same script that lists them, across every process); the public rooms
count against the per-address creation caps like any room.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

from ...protocol import Reason
from ...race import RaceError, Room
from ...store import Store

#: a listed room whose document is not there yet is being created, for this long
PENDING_MS: Final = 30_000


class PublicRooms:
    """Listing, moving and unlisting public rooms."""

    def __init__(self, store: Store, per_address: int, now_ms: Callable[[], int]) -> None:
        self.store, self.per_address, self.now_ms = store, per_address, now_ms

    async def claim(self, room_id: str, address: str) -> None:
        """List a room about to be created, waiting; ``too_many`` if its
        address has as many public rooms listed as it may (nothing listed)."""
        if not await self.store.lobby.list_public(room_id, False, self.now_ms(), address,
                                            self.per_address):
            raise RaceError(Reason.TOO_MANY, f"at most {self.per_address} public rooms listed "
                                             "at once from one address: end one, or make this "
                                             "one private")

    async def follow(self, room: Room, address: str = "") -> bool:
        """Put a public room where its phase says (nothing for a private one):
        waiting, running, or off the list once its race has ended. ``False``
        if it could not be listed again (its address's cap, after a rematch)."""
        if not room.settings.listed:
            return True
        if room.phase == "ended":
            await self.store.lobby.unlist_public(room.id)
            return True
        running = room.phase == "racing"
        score = (room.start_at or 0) if running else self.now_ms()
        return await self.store.lobby.list_public(room.id, running, score, address or "?",
                                            self.per_address)

    async def drop(self, room_id: str) -> None:
        """Off the list (a room never made, gone, or emptied)."""
        await self.store.lobby.unlist_public(room_id)
