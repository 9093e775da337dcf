"""The store's ratings: each player's rating per family (a field of the
profile, so it lives and dies with it), their rated races (a capped list
beside the profile), each family's top list (a sorted set of its own), and
each rated race's outcome as computed once (a hash in the room's slot).

A race's outcome is applied to each of its players by one script on that
player's slot (``r_apply``), which finds the race's ref in the player's
rating history when it was applied before: so applying an outcome again,
from any process, changes nothing, and the room's record of the outcome
(written first-come, :meth:`RatingState.outcome`) makes every process apply
the same one.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final

import orjson

from ..race.rating import MU, SIGMA, Rating
from . import keys, scripts
from .section import Section

HISTORY_CAP: Final = 50  # rated races a player's rating history keeps (the chart's)


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


def parse_rating(value: bytes | str | None) -> tuple[Rating, str]:
    """A profile's rating field: the rating and the field's "mu sigma" as
    read (``""``: none yet, the starting rating)."""
    if value is None:
        return Rating(), ""
    mu, sigma, races, *_ = _text(value).split()
    return Rating(float(mu), float(sigma), int(races)), f"{mu} {sigma}"


@dataclass(frozen=True, slots=True)
class Applied:
    """A race's outcome in one player's rating: whether this call applied it
    (``False``: applied before), the rating now and its ``mu`` before the race."""

    applied: bool
    rating: Rating
    mu_before: float


@dataclass(frozen=True, slots=True)
class RatedRace:
    """One entry of a player's rating history."""

    ref: str
    family: str
    at: int
    mu_before: float
    mu_after: float
    place: int
    of: int


class RatingState(Section):
    """Ratings, rating histories, top lists and rated races' outcomes."""

    async def ratings(self, player_id: str, families: Sequence[str]) -> dict[str, tuple[Rating, str]]:
        """The player's rating in each family and its field as read (see
        :func:`parse_rating`)."""
        found = await self.call("HMGET", keys.player(player_id), *(f"r:{f}" for f in families))
        return {f: parse_rating(v) for f, v in zip(families, found, strict=True)}

    async def outcome(self, room_id: str, race: int, computed: dict[str, Any], *, ttl_ms: int
                      ) -> dict[str, Any]:
        """The outcome of a room's rated race: ``computed`` if it is the
        first to be recorded, else the one recorded before (any process's)."""
        key = keys.race_ratings(room_id)
        await self.call("HSETNX", key, str(race), orjson.dumps(computed))
        await self.call("PEXPIRE", key, ttl_ms, "GT")
        await self.call("PEXPIRE", key, ttl_ms, "NX")
        stored = await self.call("HGET", key, str(race))
        out: dict[str, Any] = orjson.loads(stored)
        return out

    async def recorded(self, room_id: str, race: int) -> dict[str, Any] | None:
        """The outcome recorded for a room's race, if any."""
        stored = await self.call("HGET", keys.race_ratings(room_id), str(race))
        return None if stored is None else orjson.loads(stored)

    async def apply(self, player_id: str, family: str, ref: str, *, read: str, after: Rating,
                    at: int, place: int, of: int) -> Applied | None:
        """Apply a race's outcome to the player's rating (once: see
        ``r_apply``); ``None`` if the player is gone."""
        prefix = b"[" + orjson.dumps(ref) + b","
        reply = await self._run(scripts.R_APPLY, [
            keys.player(player_id), keys.rating_history(player_id)],
            [family, prefix, read, repr(after.mu), repr(after.sigma), at, f",{place},{of}]",
             HISTORY_CAP, repr(MU), repr(SIGMA)])
        if not reply:
            return None
        applied, value, before = reply
        rating, _ = parse_rating(value)
        return Applied(bool(int(applied)), rating, float(_text(before)))

    async def history(self, player_id: str, first: int, count: int) -> tuple[int, list[RatedRace]]:
        """How many rated races the player's history holds, and a page of
        them, newest first."""
        key = keys.rating_history(player_id)
        total = int(await self.call("LLEN", key))
        entries = await self.call("LRANGE", key, first, first + count - 1) if count > 0 else []
        out = []
        for entry in entries:
            ref, family, at, before, after, place, of = orjson.loads(entry)
            out.append(RatedRace(ref, family, int(at), float(before), float(after), int(place),
                                 int(of)))
        return total, out

    # ------------------------------------------------------------------ one seat per address

    async def claim_address(self, room_id: str, address: str) -> bool:
        """A seat of a rated room for ``address``: ``False`` if the address
        holds one there already (kept as long as the room)."""
        key = keys.rated_addresses(room_id)
        if not await self.call("HSETNX", key, address, 1):
            return False
        ttl = int(await self.call("PTTL", keys.room(room_id)))
        await self.call("PEXPIRE", key, ttl if ttl > 0 else 3_600_000)
        return True

    async def release_address(self, room_id: str, address: str) -> None:
        """The address's seat is given up before the race (or was never taken)."""
        await self.call("HDEL", keys.rated_addresses(room_id), address)

    # ------------------------------------------------------------------ top lists

    async def rank(self, family: str, player_id: str, shown: int | None) -> None:
        """The player's line in the family's top list: ``shown`` (``None``:
        not listed, a provisional rating)."""
        if shown is None:
            await self.call("ZREM", keys.rating_top(family), player_id)
        else:
            await self.call("ZADD", keys.rating_top(family), shown, player_id)

    async def unrank(self, families: Sequence[str], player_id: str) -> None:
        """The player leaves every top list (forgotten, or expired)."""
        for family in families:
            await self.call("ZREM", keys.rating_top(family), player_id)

    async def top(self, family: str, first: int, count: int) -> tuple[int, list[tuple[str, int]]]:
        """How many the family's top list holds and a page of it, best
        first: (player, shown rating) each."""
        key = keys.rating_top(family)
        total = int(await self.call("ZCARD", key))
        page = await self.call("ZRANGE", key, first, first + count - 1, "REV", "WITHSCORES")
        if page and not isinstance(page[0], list | tuple):
            page = list(zip(page[::2], page[1::2], strict=True))
        return total, [(_text(member), int(float(score))) for member, score in page]
