"""The store's players: profiles found by a key's digest, their results and
totals, device moves, forgetting; and which player each seat of a room
counts for.

A player's keys share the hash tag of their public id, so each change of a
profile is one script on one slot. A key (or a device-move code) is found
through an index keyed by its digest, in a slot of its own: written after
the profile's script, and trusted only as far as the profile agrees (the
profile's set of key digests is the truth), so an index entry left behind by
a process that died, or by a revoked key, finds nobody.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

import orjson

from ..race.profile import GameResult, day_number
from . import keys, scripts
from .section import Section, pairs

#: how long a new player's profile is kept while it has no result (at most)
EMPTY_TTL_MS: Final = 30 * 86_400_000


@dataclass(frozen=True, slots=True)
class Claimed:
    """A device-move code spent: the player and their nickname, now with one more key."""

    player: str
    nickname: str


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


#: a stored result: a JSON array of these fields, after its ref and flags
#: (1 if finished, plus 2 if won, plus 4 if typed, plus 8 if its place is so
#: far: see ``GameResult``),
#: trailing nulls left out: about half the bytes of the same result as an object
_STORED: Final = ("kind", "at", "mode", "nickname", "status", "place", "of", "time_ms", "vegas",
                  "points", "code", "room", "race", "tournament", "round", "day")


def _flags(result: GameResult) -> int:
    return (int(result.finished) + 2 * int(result.won) + 4 * int(result.typed)
            + 8 * int(result.so_far))


def stored_result(result: GameResult) -> bytes:
    """A result as a history keeps it (see :data:`_STORED`).

    >>> r = GameResult(ref="R/1/0", kind="solo", at=5, mode="D1V", nickname="ann",
    ...                status="finished", place=1, of=1, time_ms=9000, vegas=208)
    >>> stored_result(r)
    b'["R/1/0",1,"solo",5,"D1V","ann","finished",1,1,9000,208]'
    >>> result_of(stored_result(r)) == r
    True
    """
    values = [result.ref, _flags(result), *(getattr(result, f) for f in _STORED)]
    while values[-1] is None:
        values.pop()
    return orjson.dumps(values)


def result_of(raw: bytes) -> GameResult:
    """A stored result read back."""
    values = orjson.loads(raw)
    fields = dict(zip(_STORED, values[2:], strict=False))
    return GameResult(ref=values[0], typed=bool(values[1] & 4), so_far=bool(values[1] & 8), **fields)


class PlayerState(Section):
    """Players' profiles, keys, histories and seats."""

    # ------------------------------------------------------------------ keys

    async def create_player(self, player_id: str, nickname: str, key_digest: str, *, now_ms: int,
                            ttl_ms: int) -> bool:
        """A new profile with one key (``False``: the id is taken, draw another)."""
        ttl = min(ttl_ms, EMPTY_TTL_MS)
        made = await self._run(scripts.P_CREATE, [keys.player(player_id)],
                               [nickname, now_ms, key_digest, ttl])
        if not made:
            return False
        await self.call("SET", keys.key_index(key_digest), player_id, "PX", ttl)
        return True

    async def identify_player(self, key_digest: str, *, now_ms: int, ttl_ms: int
                              ) -> tuple[str, str] | None:
        """The player (id, nickname) whose key has this digest, seen now and
        kept another ``ttl_ms``; ``None``: no such player, or the key is no
        longer theirs."""
        index = keys.key_index(key_digest)
        found = await self.call("GET", index)
        if found is None:
            return None
        player_id = _text(found)
        nick = await self._run(scripts.P_IDENTIFY, [
            keys.player(player_id), keys.player_history(player_id), keys.rating_history(player_id)],
            [key_digest, now_ms, ttl_ms, min(ttl_ms, EMPTY_TTL_MS)])
        if not nick:
            await self.call("DEL", index)  # a key revoked or forgotten: its index goes too
            return None
        await self.call("PEXPIRE", index, ttl_ms)
        return player_id, _text(nick)

    async def rename_player(self, player_id: str, nickname: str) -> bool:
        return bool(await self._run(scripts.P_RENAME, [keys.player(player_id)], [nickname]))

    async def player_fields(self, player_id: str) -> dict[str, str] | None:
        """A profile's fields as stored (``None``: no such player)."""
        found = pairs(await self.call("HGETALL", keys.player(player_id)))
        if not found:
            return None
        return {_text(k): _text(v) for k, v in found}

    async def player_nickname(self, player_id: str) -> str | None:
        """A player's nickname (``None``: no such player)."""
        found = await self.call("HGET", keys.player(player_id), "nick")
        return None if found is None else _text(found)

    # ------------------------------------------------------------------ results

    async def record_result(self, player_id: str, result: GameResult, *, cap: int,
                            ttl_ms: int) -> str:
        """A result into the player's history and totals (see the
        ``p_record`` script): ``new``, ``replaced`` (the same ``ref`` was
        recorded before) or ``gone`` (no such player)."""
        entry = stored_result(result)
        prefix = b"[" + orjson.dumps(result.ref) + b","  # how the entry begins
        assert entry.startswith(prefix)
        outcome = await self._run(scripts.P_RECORD, [
            keys.player(player_id), keys.player_history(player_id)],
            [prefix, entry, _flags(result), "" if result.time_ms is None else result.time_ms,
             result.mode, cap, ttl_ms, "" if result.day is None else day_number(result.day)])
        return _text(outcome)

    async def player_history(self, player_id: str, first: int, count: int
                             ) -> tuple[int, list[GameResult]]:
        """How many results the history holds, and ``count`` of them from
        the ``first`` (1 is the newest)."""
        history = keys.player_history(player_id)
        total, found = await asyncio.gather(
            self.call("LLEN", history), self.call("LRANGE", history, first - 1, first + count - 2))
        return int(total), [result_of(bytes(e)) for e in found]

    # ------------------------------------------------------------------ moving to a device

    async def offer_move(self, player_id: str, code_digest: str, *, until_ms: int,
                         ttl_ms: int) -> bool:
        """A device-move code (its digest) valid until ``until_ms``, replacing
        any before; ``False``: no such player."""
        if not await self._run(scripts.P_MOVE, [keys.player(player_id)], [code_digest, until_ms]):
            return False
        await self.call("SET", keys.move_index(code_digest), player_id, "PX", ttl_ms)
        return True

    async def claim_move(self, code_digest: str, key_digest: str, *, now_ms: int,
                         max_keys: int, ttl_ms: int) -> Claimed | None:
        """Spend a device-move code: the new key becomes its player's
        (``None``: no such code, spent, expired or replaced)."""
        found = await self.call("GETDEL", keys.move_index(code_digest))
        if found is None:
            return None
        player_id = _text(found)
        reply = await self._run(scripts.P_CLAIM, [keys.player(player_id)],
                                [code_digest, now_ms, key_digest, max_keys])
        if _text(reply[0]) != "ok":
            return None
        await self.call("SET", keys.key_index(key_digest), player_id, "PX", ttl_ms)
        await self._drop_key_indexes([_text(d) for d in reply[2:]])
        return Claimed(player_id, _text(reply[1]))

    async def forget_player(self, player_id: str) -> bool:
        """Delete a player's profile, keys and history (whether there was one)."""
        digests = await self._run(scripts.P_FORGET, [
            keys.player(player_id), keys.player_history(player_id), keys.rating_history(player_id)],
            [])
        await self._drop_key_indexes([_text(d) for d in digests])
        return bool(digests)

    async def _drop_key_indexes(self, digests: Sequence[str]) -> None:
        await asyncio.gather(*(self.call("DEL", keys.key_index(d)) for d in digests))

    # ------------------------------------------------------------------ caps

    async def count_new_player(self, address: str, *, now_ms: int, window_ms: int,
                               cap: int) -> tuple[int, bool]:
        """One more new player from ``address`` unless the last ``window_ms``
        hold ``cap``: how many they hold, and whether this one was counted."""
        return await self._window(keys.new_players(address), now_ms, window_ms, cap)

    async def count_claim(self, address: str, *, now_ms: int, window_ms: int,
                          cap: int) -> tuple[int, bool]:
        """One more device-move code tried from ``address`` unless the last
        ``window_ms`` hold ``cap``: how many they hold, and whether this one
        was counted."""
        return await self._window(keys.move_claims(address), now_ms, window_ms, cap)

    # ------------------------------------------------------------------ seats

    async def link_seat(self, room_id: str, seat: int, player_id: str) -> str:
        """The seat counts for this player unless it counts for another
        already: the player it counts for."""
        found = await self._run(scripts.P_LINK, [keys.room(room_id), keys.seat_players(room_id)],
                                [seat, player_id])
        return _text(found)

    async def seat_players(self, room_id: str) -> tuple[dict[int, str], int]:
        """Which seat counts for which player, and the last race whose results
        they got (0: none)."""
        held = pairs(await self.call("HGETALL", keys.seat_players(room_id)))
        seats = {int(k): _text(v) for k, v in held if _text(k).isdigit()}
        recorded = next((int(v) for k, v in held if _text(k) == "rec"), 0)
        return seats, recorded

    async def seat_players_recorded(self, room_id: str, race: int) -> None:
        """The players of the room's seats got race ``race``'s results."""
        await self.call("HSET", keys.seat_players(room_id), "rec", race)
