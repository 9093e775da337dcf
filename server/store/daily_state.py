"""The store's daily deals: whose attempt a daily room's seat is, the one
ranked attempt of each player, the field's counts, and the attempts one
address makes in a day.

A daily deal is a challenge room (its keys are a room's, under its hash
tag); what it adds lives in the room's seat-to-player hash
(``kr:{R}:pp``, :mod:`.player_state`): ``d:{P}`` → the seat of player P's
ranked attempt, set once (``HSETNX``) and never changed, so that a second
attempt, from any device or process, finds the first.
"""

from __future__ import annotations

import asyncio

from ..race.ranking import FINISHED_BELOW, RACED_BELOW
from . import keys, scripts
from .section import Section


def _attempt(player_id: str) -> str:
    return f"d:{player_id}"


class DailyState(Section):
    """Daily deals' attempts and counts."""

    async def seat_player(self, room_id: str, seat: int) -> str | None:
        """The player a room's seat counts for, if any (``link_seat``)."""
        found = await self.call("HGET", keys.seat_players(room_id), seat)
        return None if found is None else _text(found)

    async def daily_attempt(self, room_id: str, player_id: str) -> int | None:
        """The seat of the player's ranked attempt in this daily room, if any."""
        found = await self.call("HGET", keys.seat_players(room_id), _attempt(player_id))
        return None if found is None else int(found)

    async def claim_daily_attempt(self, room_id: str, player_id: str, seat: int) -> int:
        """The player's ranked attempt is this seat's, unless it is another's
        already: the seat it is."""
        key, field = keys.seat_players(room_id), _attempt(player_id)
        if await self.call("HSETNX", key, field, seat):
            return seat
        return int(await self.call("HGET", key, field))

    async def daily_counts(self, room_id: str) -> tuple[int, int, int]:
        """How many lines a daily room ranks, how many of them played
        (began their game), and how many finished it."""
        rank = keys.ranking(room_id)
        ranked, played, finished = await asyncio.gather(
            self.call("ZCARD", rank), self.call("ZCOUNT", rank, "-inf", f"({RACED_BELOW}"),
            self.call("ZCOUNT", rank, "-inf", f"({FINISHED_BELOW}"))
        return int(ranked), int(played), int(finished)

    async def count_daily_attempt(self, day: str, address: str, *, left_ms: int,
                                  cap: int) -> tuple[int, bool]:
        """One more daily seat taken from ``address`` on ``day`` (which ends
        in ``left_ms``), unless it holds ``cap`` already: how many that day
        holds, and whether this one was counted (a refusal stores nothing;
        a day's count is one integer, not an entry per seat)."""
        return await self._counter(keys.daily_attempts(day, address), left_ms, cap)

    async def may_rank(self, day: str, mode: str, address: str, player_id: str, *, cap: int,
                       left_ms: int, fresh: bool) -> bool:
        """Whether the player's attempt at ``day``'s deal of ``mode`` ranks,
        from ``address`` (the ``ranked`` script: at most ``cap`` players of
        an address, a ``fresh`` one only while none is); a ranked place
        taken now, kept until the day's end."""
        return bool(await self._run(scripts.RANKED, [keys.daily_ranked(day, mode, address)],
                                    [player_id, cap, max(1, left_ms), "1" if fresh else "0"]))

def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value
