"""The Store: every read and write of Klondike Race's state, by meaning.

Callers never see a Redis command: they load a room, commit a room change
with the :class:`Changes` it implies, apply a seat's game command, and so on.
Each write is one Lua script (see :mod:`.scripts`), run atomically.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

import orjson

from ..race import Entry, Room
from ..race.tournament import Tournament
from . import keys, scripts
from .batch import StoreUnavailable
from .client import Observer, RedisClient
from .pubsub import Channels

RECENT: Final = 64  # log entries loaded with a seat, to recognise resent commands


@dataclass(frozen=True, slots=True)
class RoomData:
    """A room as stored, read at one instant."""

    room: Room
    rv: int  # room version: room commits check it
    ev: int  # version of the room's latest event
    live: int  # the race accepting moves, or 0
    active: int  # seats still playing the live race
    entries: dict[int, Entry]
    online: dict[int, str]  # seat -> connection holding it


@dataclass(frozen=True, slots=True)
class SeatData:
    ver: int  # commands in the seat's log
    seq: int  # the last client sequence number applied
    snap: bytes | None  # engine snapshot after the last command (None: none yet)
    done: bool
    recent: list[tuple[int, str]]  # (seq, command) of the latest log entries


@dataclass(frozen=True, slots=True)
class Applied:
    """The outcome of :meth:`Store.apply`: ``ok`` or why not."""

    status: str  # ok, not_playing, taken_over, seq, version
    v: int = 0  # event version recorded (ok)
    active: int = -1  # seats still playing, when this command ended the seat's race
    seq: int = 0  # the seat's last seq (status seq)
    ver: int = -1  # the seat's version in Redis (status version: below the caller's, a rollback)


@dataclass(frozen=True, slots=True)
class Committed:
    ok: bool
    v: int = 0
    rv: int = 0
    active: int = 0
    gone: bool = False  # the room does not exist (any more)


SeatKeys = tuple[str, str, str, str, str, str, str]


@dataclass(slots=True)
class Changes:
    """What a room change writes besides the room's state and its events."""

    _room_id: str
    _keys: list[str] = field(default_factory=list)
    _ops: list[list[Any]] = field(default_factory=list)

    def _key(self, key: str) -> int:
        if key not in self._keys:
            self._keys.append(key)
        return 4 + self._keys.index(key)  # KEYS[1..3] are room, ev, channel

    def _op(self, command: str, key: str, *args: object) -> None:
        self._ops.append([command, self._key(key), *map(str, args)])

    def set_entry(self, entry: Entry) -> Changes:
        self._op("HSET", keys.board(self._room_id), entry["seat"], orjson.dumps(entry).decode())
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

    def start_race(self, race: int, seats: Sequence[int]) -> Changes:
        """Fresh seats for ``race``; the room accepts its moves."""
        for s in seats:
            key = keys.seat(self._room_id, race, s)
            self._op("DEL", key)
            self._op("HSET", key, "ver", 0, "seq", 0, "done", 0)
        self._op("HSET", keys.room(self._room_id), "live", race, "active", len(seats))
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
        for key in (keys.room(r), keys.events(r), keys.board(r), keys.online(r)):
            self._op("PEXPIRE", key, ttl_ms)
        if race is not None:
            for s in seats:
                self._op("PEXPIRE", keys.seat(r, race, s), ttl_ms)
                self._op("PEXPIRE", keys.log(r, race, s), ttl_ms)
        return self


def _body(event: dict[str, Any]) -> bytes:
    """An event's JSON without its opening brace: the script adds the version."""
    return orjson.dumps(event)[1:]


class Store:
    """Klondike Race's state in Redis. Open with :meth:`open`, then ``close``.

    Every command goes through :meth:`call` (routed by its first key, its
    first argument) or :meth:`_run` (a script, routed by its first key): on a
    Redis Cluster each reaches the master of its slot, so a new method only
    has to follow that and keep a room's keys under its hash tag.
    """

    def __init__(self, client: RedisClient, *, event_cap: int) -> None:
        self.redis = client
        self.event_cap = event_cap
        self._execute = client.execute
        self._due = keys.DUE_SHARD_KEYS if client.sharded else (keys.DUE,)

    @classmethod
    async def open(cls, url: str, *, cluster: bool = False, durability: str = "os",
                   lanes: int = 2, event_cap: int = 256, timeout: float = 5.0,
                   observer: Observer | None = None) -> Store:
        """A store on the Redis at ``url`` or, with ``cluster``, on the Redis
        Cluster that node belongs to (see :mod:`.client` for ``durability``)."""
        client = RedisClient(url, cluster=cluster, durability=durability, lanes=lanes,
                             timeout=timeout, observer=observer)
        await client.start()
        return cls(client, event_cap=event_cap)

    async def close(self) -> None:
        await self.redis.close()

    async def call(self, *args: Any) -> Any:
        """One command whose first argument after its name is its (first) key."""
        return await self._execute(args[1], *args)

    async def ping(self) -> bool:
        try:
            return await self.redis.ping()
        except StoreUnavailable:
            return False

    def subscriber(self, on_message: Callable[[str, bytes], None],
                   on_reconnect: Callable[[], None]) -> Channels:
        """The subscriber of room and tournament channels (call ``start``)."""
        return self.redis.subscriber(on_message, on_reconnect)

    async def _run(self, script: scripts.Script, keys_: Sequence[str], args: Sequence[Any]) -> Any:
        return await self.redis.run(script, keys_, args)

    # ------------------------------------------------------------------ rooms

    def changes(self, room_id: str) -> Changes:
        return Changes(room_id)

    async def commit(self, room: Room, rv: int | None, events: Sequence[dict[str, Any]],
                     changes: Changes | None = None) -> Committed:
        """Write ``room`` if its version is still ``rv`` (``None``: a new room),
        with ``changes`` and ``events``. Not ``ok``: reload and try again."""
        r = room.id
        return await self._commit((keys.room(r), keys.events(r), keys.channel(r)), rv,
                                  room.to_json(), events, changes or Changes(r))

    async def _commit(self, doc_keys: tuple[str, str, str], rv: int | None, state: bytes,
                      events: Sequence[dict[str, Any]], changes: Changes) -> Committed:
        reply = await self._run(scripts.COMMIT, [*doc_keys, *changes._keys], [
            "new" if rv is None else rv, state, self.event_cap, orjson.dumps(changes._ops),
            *(_body(e) for e in events),
        ])
        if reply[0] == b"ok":
            return Committed(True, v=reply[1], rv=reply[2], active=reply[3])
        return Committed(False, gone=reply[1] == b"gone")

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

    # ------------------------------------------------------------------ tournaments

    async def load_tournament(self, tournament_id: str) -> tuple[Tournament, int, int] | None:
        """A tournament, its version and its event version; ``None`` if unknown."""
        state, rv, ev = await self.call("HMGET", keys.tournament(tournament_id), "state", "rv", "ev")
        if state is None:
            return None
        return Tournament.from_json(state), int(rv), int(ev or 0)

    async def commit_tournament(self, t: Tournament, rv: int | None,
                                events: Sequence[dict[str, Any]], *, ttl_ms: int) -> Committed:
        """Like :meth:`commit`, for a tournament; its keys expire after ``ttl_ms``."""
        changes = Changes(t.id)
        for key in (keys.tournament(t.id), keys.tournament_events(t.id)):
            changes._op("PEXPIRE", key, ttl_ms)
        return await self._commit(
            (keys.tournament(t.id), keys.tournament_events(t.id), keys.tournament_channel(t.id)),
            rv, t.to_json(), events, changes)

    async def tournament_events_since(self, tournament_id: str, since: int
                                      ) -> tuple[int, list[bytes] | None]:
        v, evs = await self._run(scripts.SINCE, [keys.tournament(tournament_id),
                                                 keys.tournament_events(tournament_id)], [since])
        return int(v), None if evs == b"resync" else list(evs)

    async def load(self, room_id: str) -> RoomData | None:
        """The room now, or ``None`` if there is no such room."""
        head, board, online = await self._run(
            scripts.LOAD, [keys.room(room_id), keys.board(room_id), keys.online(room_id)], [])
        state, rv, ev, live, active = head
        if state is None:
            return None
        return RoomData(
            room=Room.from_json(state), rv=int(rv), ev=int(ev or 0), live=int(live or 0),
            active=int(active or 0),
            entries={int(board[i]): orjson.loads(board[i + 1]) for i in range(0, len(board), 2)},
            online={int(online[i]): online[i + 1].decode() for i in range(0, len(online), 2)},
        )

    async def events_since(self, room_id: str, since: int) -> tuple[int, list[bytes] | None]:
        """The latest version and the events after ``since``, or ``None`` for
        them when they are no longer kept (the caller resyncs)."""
        v, evs = await self._run(scripts.SINCE, [keys.room(room_id), keys.events(room_id)], [since])
        return int(v), None if evs == b"resync" else list(evs)

    async def keep_room(self, room_id: str, race: int, seats: Iterable[int], ttl_ms: int) -> None:
        """Let a room's keys (and one race's seats) live ``ttl_ms`` from now."""
        r = room_id
        names = [keys.room(r), keys.events(r), keys.board(r), keys.online(r)]
        for s in seats:
            names += [keys.seat(r, race, s), keys.log(r, race, s)]
        await asyncio.gather(*(self.call("PEXPIRE", k, ttl_ms) for k in names))

    async def recent_events(self, room_id: str) -> list[bytes]:
        """Every event the room still keeps (the last ``event_cap``), oldest first."""
        return list(await self.call("LRANGE", keys.events(room_id), 0, -1))

    async def stop_race(self, room_id: str, race: int) -> dict[int, Entry]:
        """No more moves in ``race``; the final leaderboard lines."""
        board = await self._run(scripts.STOP, [keys.room(room_id), keys.board(room_id)], [race])
        return {int(board[i]): orjson.loads(board[i + 1]) for i in range(0, len(board), 2)}

    # ------------------------------------------------------------------ seats

    @staticmethod
    def seat_keys(room_id: str, race: int, seat: int) -> SeatKeys:
        return (keys.room(room_id), keys.seat(room_id, race, seat), keys.log(room_id, race, seat),
                keys.board(room_id), keys.events(room_id), keys.online(room_id),
                keys.channel(room_id))

    async def load_seat(self, room_id: str, race: int, seat: int) -> SeatData:
        head, recent = await self._run(
            scripts.SEAT, [keys.seat(room_id, race, seat), keys.log(room_id, race, seat)], [RECENT])
        ver, seq, snap, done = head
        return SeatData(ver=int(ver or 0), seq=int(seq or 0), snap=snap or None,
                        done=done == b"1", recent=_log_entries(recent))

    async def apply(self, seat_keys: SeatKeys, *, race: int, seat: int, conn: str, ver: int,
                    seq: int, command: str, snap: bytes, entry: bytes, event: bytes,
                    done: bool) -> Applied:
        """Append one game command of a seat, if the seat is still at version
        ``ver`` and held by ``conn``; ``event`` is the body from :func:`event_body`."""
        reply = await self._run(scripts.MOVE, seat_keys, [
            race, seat, conn, ver, seq, f"{seq} {command}", snap, entry, event,
            "1" if done else "0", self.event_cap,
        ])
        status = reply[0].decode()
        if status == "ok":
            return Applied("ok", v=reply[1], active=reply[2])
        if status == "seq":
            return Applied("seq", seq=int(reply[1]))
        if status == "version":
            return Applied("version", ver=int(reply[1]) if len(reply) > 1 and reply[1] else 0)
        return Applied(status)

    async def log(self, room_id: str, race: int, seat: int) -> list[tuple[int, str]]:
        """A seat's whole command log: (seq, command) in order."""
        return _log_entries(await self.call("LRANGE", keys.log(room_id, race, seat), 0, -1))

    async def snapshots(self, room_id: str, race: int, seats: Iterable[int]) -> dict[int, bytes]:
        """The stored snapshot of each seat that has played a command."""
        seats = list(seats)
        replies = await asyncio.gather(
            *(self.call("HGET", keys.seat(room_id, race, s), "snap") for s in seats))
        return {s: snap for s, snap in zip(seats, replies, strict=True) if snap}

    # ------------------------------------------------------------------ presence

    async def attach(self, room_id: str, seat: int, conn: str, event: dict[str, Any]) -> bool:
        """``conn`` now holds ``seat``; another connection holding it is told to
        close. ``False`` if the room is gone."""
        reply = await self._run(scripts.ATTACH, [keys.room(room_id), keys.online(room_id),
                                                 keys.events(room_id), keys.channel(room_id)],
                                [seat, conn, _body(event), self.event_cap])
        return bool(reply[0] == b"ok")

    async def detach(self, room_id: str, seat: int, conn: str, event: dict[str, Any]) -> None:
        await self._run(scripts.DETACH, [keys.room(room_id), keys.online(room_id),
                                         keys.events(room_id), keys.channel(room_id)],
                        [seat, conn, _body(event), self.event_cap])

    async def holders(self, room_id: str) -> dict[int, str]:
        """Seat -> the connection holding it, in one room."""
        held = await self.call("HGETALL", keys.online(room_id))
        if isinstance(held, dict):  # RESP3 answers with a map, RESP2 with a flat list
            return {int(seat): conn.decode() for seat, conn in held.items()}
        return {int(held[i]): held[i + 1].decode() for i in range(0, len(held), 2)}

    async def alive(self, proc_ids: Iterable[str]) -> set[str]:
        """Which of these server processes still beat."""
        ids = list(proc_ids)
        found = await asyncio.gather(*(self.call("EXISTS", keys.proc(p)) for p in ids))
        return {p for p, n in zip(ids, found, strict=True) if n}

    async def heartbeat(self, proc_id: str, ttl_ms: int) -> None:
        await self.call("SET", keys.proc(proc_id), 1, "PX", ttl_ms)

    async def forget(self, proc_id: str) -> None:
        await self.call("DEL", keys.proc(proc_id))

    # ------------------------------------------------------------------ deadlines

    async def due_add(self, room_id: str, at_ms: int) -> None:
        await self.call("ZADD", keys.due(room_id, self._due), at_ms, room_id)

    async def due_remove(self, room_id: str) -> None:
        await self.call("ZREM", keys.due(room_id, self._due), room_id)

    async def claim_due(self, now_ms: int, *, lease_ms: int = 10_000, limit: int = 20) -> list[str]:
        """Rooms whose deadline has passed, each leased to this caller for a
        while (up to ``limit`` of each shard of the index)."""
        shards = await asyncio.gather(*(self._run(scripts.CLAIM_DUE, [key], [now_ms, lease_ms, limit])
                                        for key in self._due))
        return [i.decode() for ids in shards for i in ids]


def _log_entries(raw: Iterable[bytes]) -> list[tuple[int, str]]:
    """Log entries ``b"seq command"`` as (seq, command)."""
    out = []
    for item in raw:
        seq, _, command = item.decode().partition(" ")
        out.append((int(seq), command))
    return out


def event_body(event: dict[str, Any]) -> bytes:
    """The body of an event for :meth:`Store.apply`."""
    return _body(event)


__all__ = ["Applied", "Changes", "Committed", "RoomData", "SeatData", "Store", "StoreUnavailable",
           "event_body"]
