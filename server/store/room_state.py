"""The store's rooms: a room's document and events, loaded and committed.

A room is a hash (``kr:{R}:room``: its JSON document and versions) with its
events, its leaderboard lines and its holders (:mod:`.keys`). Every change is
one ``commit`` script: the document if its version is still the one read,
the :class:`~.changes.Changes` it implies, its events recorded and published.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import orjson

from ..race import Entry, Room
from . import keys, scripts
from .changes import Changes, room_keys
from .documents import Committed, Documents


@dataclass(frozen=True, slots=True)
class RoomData:
    """A room as stored, read at one instant. The lines and holders of a
    room whose seats live in hashes are not read (there may be thousands):
    ``counts`` says how many players it has and how many are ready."""

    room: Room
    rv: int  # room version: room commits check it
    ev: int  # version of the room's latest event
    live: int  # the race accepting moves, or 0
    active: int  # seats still playing the live race
    entries: dict[int, Entry]
    online: dict[int, str]  # seat -> connection holding it
    counts: dict[str, int] = field(default_factory=dict)  # hashed seats': players, ready

    def public(self, now: int) -> dict[str, Any]:
        """The room as anyone may see it now (with its counts, when it has them)."""
        return self.room.public(now, self.counts)


class RoomState(Documents):
    """Rooms' documents, events and race stops."""

    def changes(self, room_id: str) -> Changes:
        return Changes(room_id)

    async def commit(self, room: Room, rv: int | None, events: Sequence[dict[str, Any]],
                     changes: Changes | None = None) -> Committed:
        """Write ``room`` if its version is still ``rv`` (``None``: a new room),
        with ``changes`` and ``events``. Not ``ok``: reload and try again."""
        r = room.id
        return await self.commit_document((keys.room(r), keys.events(r), keys.channel(r)), rv,
                                          room.to_json(), events, changes or Changes(r),
                                          room.phase)

    async def load(self, room_id: str) -> RoomData | None:
        """The room now, or ``None`` if there is no such room."""
        head, board, online, ready = await self._run(
            scripts.LOAD, [keys.room(room_id), keys.board(room_id), keys.online(room_id),
                           keys.ready(room_id)], [])
        state, rv, ev, live, active, hashed, players = head
        if state is None:
            return None
        return RoomData(
            room=Room.from_json(state), rv=int(rv), ev=int(ev or 0), live=int(live or 0),
            active=int(active or 0),
            entries={int(board[i]): orjson.loads(board[i + 1]) for i in range(0, len(board), 2)},
            online={int(online[i]): online[i + 1].decode() for i in range(0, len(online), 2)},
            counts={"players": int(players or 0), "ready": int(ready)} if hashed == b"1" else {},
        )

    async def events_since(self, room_id: str, since: int) -> tuple[int, list[bytes] | None]:
        """The latest version and the events after ``since``, or ``None`` for
        them when they are no longer kept (the caller resyncs)."""
        v, evs = await self._run(scripts.SINCE, [keys.room(room_id), keys.events(room_id)], [since])
        return int(v), None if evs == b"resync" else list(evs)

    async def recent_events(self, room_id: str) -> list[bytes]:
        """Every event the room still keeps (the last ``event_cap``), oldest first."""
        return list(await self.call("LRANGE", keys.events(room_id), 0, -1))

    async def keep_room(self, room_id: str, race: int, seats: Iterable[int], ttl_ms: int) -> None:
        """Let a room's keys (and one race's seats) live ``ttl_ms`` from now."""
        r = room_id
        names = list(room_keys(r))
        for s in seats:
            names += [keys.seat(r, race, s), keys.log(r, race, s)]
        await asyncio.gather(*(self.call("PEXPIRE", k, ttl_ms) for k in names))

    async def stop_race(self, room_id: str, race: int, *, lines: bool = True) -> dict[int, Entry]:
        """No more moves in ``race``; the final leaderboard lines (none with
        ``lines=False``: a ranked room's are read a page at a time)."""
        board = await self._run(scripts.STOP, [keys.room(room_id), keys.board(room_id)],
                                [race, "1" if lines else "0"])
        return {int(board[i]): orjson.loads(board[i + 1]) for i in range(0, len(board), 2)}

    async def notice(self, room_id: str, body: bytes) -> None:
        """Publish a notice (``{"x": kind, ...}``: not stored, not versioned)
        on the room's channel (``SPUBLISH`` on a cluster, like the scripts)."""
        await self.call("SPUBLISH" if self.redis.sharded else "PUBLISH", keys.channel(room_id),
                        body)

    @staticmethod
    def room_channel(room_id: str) -> str:
        return keys.channel(room_id)

    @staticmethod
    def tournament_channel(tournament_id: str) -> str:
        return keys.tournament_channel(tournament_id)

    @staticmethod
    def is_tournament_channel(channel: str) -> bool:
        return keys.is_tournament_channel(channel)

    @staticmethod
    def id_of_channel(channel: str) -> str:
        return keys.id_of_channel(channel)
