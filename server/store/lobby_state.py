"""The store's lobby: the public rooms' list every lobby shows, and the quick races.

The list is four keys under one hash tag (``{pub}``, :data:`.keys.PUBLIC_KEYS`),
kept together by the ``list_public`` and ``unlist_public`` scripts: a room
waiting or racing, the address that listed it, and how many each address
has listed (capped). The open quick races of a mode are three keys under
the mode's hash tag (``kq:{MODE}:…``): the room a player is sent to, by
rating, is chosen atomically by the ``quick`` script.
"""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import Sequence
from dataclasses import dataclass

from . import keys, scripts
from .section import Section


@dataclass(frozen=True, slots=True)
class PublicPage:
    """What a lobby's list is made from (``public_page``): rooms with their
    scores, listed waiting last first and started last first."""

    waiting: list[tuple[str, int]]  # room -> when listed (ms)
    running: list[tuple[str, int]]  # room -> its race's start (ms)
    waiting_count: int
    running_count: int
    oldest_running: str | None
    listed_by: dict[str, str]  # a waiting room -> the address that listed it
    oldest_waiting: tuple[str, int] | None  # the room listed waiting longest, and when


def _scored(flat: Sequence[bytes]) -> list[tuple[str, int]]:
    return [(flat[i].decode(), int(float(flat[i + 1]))) for i in range(0, len(flat), 2)]


class LobbyState(Section):
    """The public rooms' list and the quick races."""

    async def list_public(self, room_id: str, running: bool, score: int, address: str,
                          cap: int) -> bool:
        """List a public room (waiting, or ``running`` since ``score``), or
        move it; ``False`` if ``address`` already listed ``cap`` rooms."""
        return bool(await self._run(scripts.LIST_PUBLIC, keys.PUBLIC_KEYS,
                                    [room_id, "run" if running else "wait", score, address, cap]))

    async def unlist_public(self, room_id: str) -> bool:
        """The room leaves the list (safe to repeat); whether it was listed."""
        return bool(await self._run(scripts.UNLIST_PUBLIC, keys.PUBLIC_KEYS, [room_id]))

    async def public_page(self, waiting: int, running: int) -> PublicPage:
        w, r, nw, nr, oldest, who, longest = await self._run(
            scripts.PUBLIC_PAGE, keys.PUBLIC_KEYS[:3], [waiting, running])
        listed = _scored(w)
        return PublicPage(listed, _scored(r), int(nw), int(nr),
                          oldest[0].decode() if oldest else None,
                          {room: by.decode() for (room, _), by in zip(listed, who, strict=True)},
                          _scored(longest)[0] if longest else None)

    async def room_heads(self, room_ids: Sequence[str]) -> dict[str, tuple[bytes, int | None]]:
        """Each room's document and, where its seats are counted outside it,
        how many players it has; rooms gone are left out. One ``HMGET`` per
        room (batched with the others in flight)."""
        found = await asyncio.gather(*(self.call("HMGET", keys.room(r), "state", "big", "players")
                                       for r in room_ids))
        out: dict[str, tuple[bytes, int | None]] = {}
        for room_id, (state, big, players) in zip(room_ids, found, strict=True):
            if state is not None:
                out[room_id] = (bytes(state), int(players or 0) if big == b"1" else None)
        return out

    async def quick_pick(self, mode: str, fresh: str, skip: str, *, now: int, seats: int,
                         offer_ms: int, ttl_ms: int, rating: int, window: tuple[int, int, int]
                         ) -> tuple[str, str]:
        """The quick race of ``mode`` to send a player of this ``rating`` to:
        ``("join", room)``, or ``("open", fresh)`` (the caller creates it).
        ``window``: (width when a race opens, its widening per second open,
        ms open after which it takes anyone) (see ``quick.lua``)."""
        verdict, room = await self._run(scripts.QUICK, keys.quick_races(mode),
                                        [now, fresh, skip, seats, offer_ms, ttl_ms, rating, *window])
        return verdict.decode(), room.decode()

    async def count_quick(self, address: str, *, now_ms: int, most: int) -> bool:
        """One more quick-race request from ``address``, unless the last
        minute holds ``most`` already (then nothing is added): whether it may."""
        _, added = await self._run(scripts.WINDOW, [keys.quick_joins(address)],
                                   [now_ms, 60_000, secrets.token_hex(8), most])
        return bool(added)

    async def quick_left(self, mode: str, room_id: str, *, forget: bool = False) -> None:
        """A player left a quick race's room before it started (``forget``:
        the room was never made)."""
        await self._run(scripts.QUICK_LEFT, keys.quick_races(mode), [room_id, "1" if forget else "0"])
