"""What a room change writes besides the room's document and its events.

A :class:`Changes` is built by the caller of :meth:`~.store.Store.commit`
(one method per kind of write, each naming what it means) and run by the
``commit`` script in the same atomic call as the document: the keys it names
go into the script's KEYS after the document's three, the writes into one
JSON argument.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, Final

import orjson

from ..race import Entry
from ..race.ranking import seat_member
from . import keys

#: KEYS[1..3] of the commit script are the document, its events and its channel
DOCUMENT_KEYS: Final = 3
#: what a room's hashed seats are kept in, in the order ``reset_seats`` names them
_SEAT_HASH_KEYS: Final = (keys.players, keys.board, keys.ranking, keys.histogram, keys.ready,
                          keys.left, keys.room)


def player_record(nickname: str, fold: str, token_hash: str) -> bytes:
    """A hashed seat's record of its player (the scripts read ``fold`` and ``token``)."""
    return orjson.dumps({"nickname": nickname, "fold": fold, "token": token_hash})


def room_keys(r: str) -> tuple[str, ...]:
    """Every key of a room but its seats' (those of a room with hashed seats too)."""
    return (keys.room(r), keys.events(r), keys.board(r), keys.online(r), keys.ranking(r),
            keys.histogram(r), keys.players(r), keys.nicknames(r), keys.tokens(r), keys.ready(r),
            keys.left(r), keys.top(r), keys.seat_players(r), keys.ghost_traces(r), keys.ghosts(r))


class Changes:
    """The writes of one room change (or a tournament's: see :meth:`expire_keys`
    and :meth:`set_fields`), in order."""

    __slots__ = ("_keys", "_ops", "_room_id")

    def __init__(self, room_id: str) -> None:
        self._room_id = room_id
        self._keys: list[str] = []
        self._ops: list[list[Any]] = []

    @property
    def keys(self) -> list[str]:
        """The keys the writes name, after the document's three in the script's KEYS."""
        return list(self._keys)

    def ops_json(self) -> bytes:
        """The writes as the ``commit`` script reads them."""
        return orjson.dumps(self._ops)

    def _key(self, key: str) -> int:
        if key not in self._keys:
            self._keys.append(key)
        return DOCUMENT_KEYS + 1 + self._keys.index(key)

    def _op(self, command: str, key: str, *args: object) -> None:
        self._ops.append([command, self._key(key), *map(str, args)])

    # ------------------------------------------------------------------ any document

    def expire_keys(self, names: Iterable[str], ttl_ms: int) -> Changes:
        """Let these keys expire in ``ttl_ms``."""
        for key in names:
            self._op("PEXPIRE", key, ttl_ms)
        return self

    def set_fields(self, key: str, fields: dict[str, Any]) -> Changes:
        """Set fields of a hash (a header's, beside its document)."""
        if fields:
            self._op("HSET", key, *(x for kv in fields.items() for x in kv))
        return self

    # ------------------------------------------------------------------ a room

    def set_entry(self, entry: Entry, score: int | None = None) -> Changes:
        """The seat's leaderboard line; with ``score``, its place in the ranking too."""
        self._op("HSET", keys.board(self._room_id), entry["seat"], orjson.dumps(entry).decode())
        if score is not None:
            self._op("ZADD", keys.ranking(self._room_id), score, seat_member(entry["seat"]))
        return self

    def hashed_seats(self, max_players: int, late: str) -> Changes:
        """A new room whose seats live in hashes: what its ``join`` script checks."""
        self._op("HSET", keys.room(self._room_id), "big", 1, "players", 0, "next", 0,
                 "max", max_players, "late", late)
        return self

    def first_seat(self, nickname: str, fold: str, token_hash: str) -> Changes:
        """Seat 0, its host's, in a new room whose seats live in hashes."""
        r = self._room_id
        self._op("HSET", keys.room(r), "players", 1, "next", 1)
        self._op("HSET", keys.players(r), 0, player_record(nickname, fold, token_hash).decode())
        self._op("HSET", keys.nicknames(r), fold, 0)
        self._op("HSET", keys.tokens(r), token_hash, 0)
        return self

    def racers_to_come(self, racers: int, race: int) -> Changes:
        """A room created racing whose players are seated as they come (a
        tournament's round): ``race`` accepts moves and counts ``racers``
        from the start, so that an early finisher does not end it for those
        not seated yet."""
        self._op("HSET", keys.room(self._room_id), "live", race, "active", racers)
        return self

    def reset_seats(self, tail: bytes, score: int, race: int, ttl_ms: int) -> Changes:
        """Every player of a room with hashed seats gets a fresh line
        (``tail``: the JSON after its nickname) and, with a ``race``, a place
        in it; those who left the last race are gone."""
        r = self._room_id
        self._ops.append(["RESET_SEATS", *(self._key(k(r)) for k in _SEAT_HASH_KEYS),
                          tail.decode(), str(score), str(race), str(ttl_ms)])
        return self

    def drop_seat(self, seat: int) -> Changes:
        """The seat is gone from the room: its line and its presence."""
        self._op("HDEL", keys.board(self._room_id), seat)
        self._op("HDEL", keys.online(self._room_id), seat)
        return self

    def drop_presence(self, seat: int) -> Changes:
        """Nobody holds the seat any more (its line stays)."""
        self._op("HDEL", keys.online(self._room_id), seat)
        return self

    def reset_board(self) -> Changes:
        self._op("DEL", keys.board(self._room_id))
        return self

    def reset_ghosts(self) -> Changes:
        """A new race of a challenge: the last race's ghosts are gone."""
        self._op("DEL", keys.ghost_traces(self._room_id))
        self._op("DEL", keys.ghosts(self._room_id))
        return self

    def start_race(self, race: int, seats: Sequence[int]) -> Changes:
        """Fresh seats for ``race``; the room accepts its moves."""
        for s in seats:
            key = keys.seat(self._room_id, race, s)
            self._op("DEL", key)
            self._op("HSET", key, "ver", 0, "seq", 0, "done", 0)
        self._op("HSET", keys.room(self._room_id), "live", race, "active", len(seats))
        return self

    def late_seat(self, race: int, seat: int) -> Changes:
        """A fresh seat in the running ``race`` for a player admitted late."""
        key = keys.seat(self._room_id, race, seat)
        self._op("DEL", key)
        self._op("HSET", key, "ver", 0, "seq", 0, "done", 0)
        self._op("HINCRBY", keys.room(self._room_id), "active", 1)
        return self

    def seat_done(self, race: int, seat: int) -> Changes:
        """The seat stops playing (it left the race)."""
        self._op("HSET", keys.seat(self._room_id, race, seat), "done", 1)
        self._op("HINCRBY", keys.room(self._room_id), "active", -1)
        return self

    def stop_race(self) -> Changes:
        self._op("HSET", keys.room(self._room_id), "live", 0, "active", 0)
        return self

    def expire(self, ttl_ms: int, race: int | None = None, seats: Iterable[int] = ()) -> Changes:
        """Let the room's keys (and a race's seat keys) expire in ``ttl_ms``."""
        r = self._room_id
        self.expire_keys(room_keys(r), ttl_ms)
        if race is not None:
            for s in seats:
                self._op("PEXPIRE", keys.seat(r, race, s), ttl_ms)
                self._op("PEXPIRE", keys.log(r, race, s), ttl_ms)
        return self
