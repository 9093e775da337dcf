"""The Store: every read and write of Klondike Race's state, by meaning.

Callers never see a Redis command: they load a room, commit a room change
with the :class:`Changes` it implies, apply a seat's game command, and so on.
Each write is one Lua script (see :mod:`.scripts`), run atomically.
"""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

import orjson

from ..race import Entry, Room
from ..race.leaderboard import seat_member
from ..race.tournament import Tournament
from . import keys, scripts
from .batch import StoreUnavailable
from .big_tournaments import BigTournamentStore
from .client import REPLICA_TIMEOUT_MS, Observer, RedisClient
from .pubsub import Channels

RECENT: Final = 64  # log entries loaded with a seat, to recognise resent commands


@dataclass(frozen=True, slots=True)
class RoomData:
    """A room as stored, read at one instant. A big room's lines and
    presence are not read (there may be thousands): ``counts`` says how many
    players it has and how many are ready."""

    room: Room
    rv: int  # room version: room commits check it
    ev: int  # version of the room's latest event
    live: int  # the race accepting moves, or 0
    active: int  # seats still playing the live race
    entries: dict[int, Entry]
    online: dict[int, str]  # seat -> connection holding it
    counts: dict[str, int] = field(default_factory=dict)  # a big room's: players, ready

    def public(self, now: int) -> dict[str, Any]:
        """The room as anyone may see it now (a big room's with its counts)."""
        return self.room.public(now, self.counts if self.room.settings.big else None)


@dataclass(frozen=True, slots=True)
class SeatData:
    ver: int  # commands in the seat's log
    seq: int  # the last client sequence number applied
    snap: bytes | None  # engine snapshot after the last command (None: none yet)
    done: bool
    recent: list[tuple[int, str]]  # (seq, command) of the latest log entries
    entry: Entry | None  # the seat's leaderboard line (None: not in this race)
    exists: bool  # the seat has a game in this race


@dataclass(frozen=True, slots=True)
class Applied:
    """The outcome of :meth:`Store.apply`: ``ok`` or why not."""

    status: str  # ok, not_playing, taken_over, seq, version
    v: int = 0  # event version recorded (ok; 0 in a big room, which records none)
    active: int = -1  # seats still playing, when this command ended the seat's race
    seq: int = 0  # the seat's last seq (status seq)
    rank: int = 0  # a big room's: the seat's rank after the command, of ``of``
    of: int = 0
    ver: int = -1  # the seat's version in Redis (status version: below the caller's, a rollback)


@dataclass(frozen=True, slots=True)
class Joined:
    """The outcome of :meth:`Store.join_big`: ``ok`` or why not."""

    status: str  # ok, gone, race_started, full, name_taken
    seat: int = -1
    phase: str = ""  # the room's phase when the player joined
    race: int = 0  # the race running then (0: none)


@dataclass(frozen=True, slots=True)
class Left:
    """The outcome of :meth:`Store.leave_big`."""

    status: str  # left, left_race (kept in the race's results), unknown, racing (no kick now)
    active: int = -1  # seats still playing, when leaving ended the seat's race
    host: int = -1  # the new host's seat, when the host left (-1: none or unchanged)


#: a big tournament's counts, kept in its header hash
_T_COUNTS: Final = ("players", "withdrawn", "kicked")


@dataclass(frozen=True, slots=True)
class TournamentData:
    """A tournament as stored; ``counts`` are a big one's: how many players
    registered (kicked ones not counted), withdrew and were kicked."""

    t: Tournament
    rv: int
    ev: int
    counts: dict[str, int]


@dataclass(frozen=True, slots=True)
class Committed:
    ok: bool
    v: int = 0
    rv: int = 0
    active: int = 0
    gone: bool = False  # the room does not exist (any more)


SeatKeys = tuple[str, str, str, str, str, str, str, str, str]
#: what a big room's seats are kept in, in the order the scripts name them
_FIELD_KEYS = (keys.players, keys.board, keys.ranking, keys.histogram, keys.ready, keys.left,
               keys.room)


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

    def set_entry(self, entry: Entry, score: int | None = None) -> Changes:
        """The seat's leaderboard line; with ``score``, its place in the ranking too."""
        self._op("HSET", keys.board(self._room_id), entry["seat"], orjson.dumps(entry).decode())
        if score is not None:
            self._op("ZADD", keys.ranking(self._room_id), score, seat_member(entry["seat"]))
        return self

    def big_room(self, max_players: int, late: str, host_nickname: str, fold: str,
                 token_hash: str) -> Changes:
        """A new big room: what its join script checks, and its first seat (0,
        the host's), kept outside its JSON."""
        r = self._room_id
        self._op("HSET", keys.room(r), "big", 1, "players", 1, "next", 1, "max", max_players,
                 "late", late)
        self._op("HSET", keys.players(r), 0, _player(host_nickname, fold, token_hash).decode())
        self._op("HSET", keys.nicknames(r), fold, 0)
        self._op("HSET", keys.tokens(r), token_hash, 0)
        return self

    def big_round(self, max_players: int, racers: int, race: int) -> Changes:
        """A big tournament round's room: racing, its players seated as they
        come (the ``round_seat`` script) and counted among its ``racers``
        from the start, so that an early finisher does not end the round for
        those not seated yet."""
        self._op("HSET", keys.room(self._room_id), "big", 1, "players", 0, "next", 0,
                 "max", max_players, "late", "refuse", "live", race, "active", racers)
        return self

    def field_reset(self, tail: bytes, score: int, race: int, ttl_ms: int) -> Changes:
        """Every player of a big room gets a fresh line (``tail``: the JSON
        after its nickname) and, with a ``race``, a fresh seat in it; those
        who left the last race are gone."""
        r = self._room_id
        self._ops.append(["FIELD_RESET", *(self._key(k(r)) for k in _FIELD_KEYS), tail.decode(),
                          str(score), str(race), str(ttl_ms)])
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
        for key in _room_keys(r):
            self._op("PEXPIRE", key, ttl_ms)
        if race is not None:
            for s in seats:
                self._op("PEXPIRE", keys.seat(r, race, s), ttl_ms)
                self._op("PEXPIRE", keys.log(r, race, s), ttl_ms)
        return self


def _player(nickname: str, fold: str, token_hash: str) -> bytes:
    """A big room's record of a player (its scripts read ``fold`` and ``token``)."""
    return orjson.dumps({"nickname": nickname, "fold": fold, "token": token_hash})


def _room_keys(r: str) -> tuple[str, ...]:
    """Every key of a room but its seats' (those of a big room too)."""
    return (keys.room(r), keys.events(r), keys.board(r), keys.online(r), keys.ranking(r),
            keys.histogram(r), keys.players(r), keys.nicknames(r), keys.tokens(r), keys.ready(r),
            keys.left(r), keys.top(r))


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

    #: run a script on the node of its first key (see :meth:`RedisClient.run`)
    _run: Callable[[scripts.Script, Sequence[str], Sequence[Any]], Awaitable[Any]]

    def __init__(self, client: RedisClient, *, event_cap: int) -> None:
        self.redis = client
        self.event_cap = event_cap
        self._execute = client.execute
        self._run = client.run
        def index(name: str) -> tuple[str, ...]:  # an index's keys: one, or its shards
            return keys.shards(name) if client.sharded else (name,)
        self._due = index(keys.DUE)
        self._tournaments_due = index(keys.TOURNAMENTS_DUE)
        self._live = {"room": index(keys.LIVE_ROOMS), "tournament": index(keys.LIVE_TOURNAMENTS)}
        self.big_tournaments = BigTournamentStore(self._run, self.call)

    @classmethod
    async def open(cls, url: str, *, cluster: bool = False, durability: str = "os",
                   lanes: int = 2, event_cap: int = 256, timeout: float = 5.0,
                   replica_timeout_ms: int = REPLICA_TIMEOUT_MS,
                   observer: Observer | None = None) -> Store:
        """A store on the Redis at ``url`` or, with ``cluster``, on the Redis
        Cluster that node belongs to (see :mod:`.client` for ``durability``;
        ``replica_timeout_ms``: how long a batch waits for its replica)."""
        client = RedisClient(url, cluster=cluster, durability=durability, lanes=lanes,
                             timeout=timeout, replica_timeout_ms=replica_timeout_ms,
                             observer=observer)
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
                   on_reconnect: Callable[[], None],
                   on_fault: Callable[[str], None] | None = None) -> Channels:
        """The subscriber of room and tournament channels (call ``start``);
        ``on_fault`` hears of each exception it survived."""
        return self.redis.subscriber(on_message, on_reconnect, on_fault)


    # ------------------------------------------------------------------ rooms

    def changes(self, room_id: str) -> Changes:
        return Changes(room_id)

    async def commit(self, room: Room, rv: int | None, events: Sequence[dict[str, Any]],
                     changes: Changes | None = None) -> Committed:
        """Write ``room`` if its version is still ``rv`` (``None``: a new room),
        with ``changes`` and ``events``. Not ``ok``: reload and try again."""
        r = room.id
        return await self._commit((keys.room(r), keys.events(r), keys.channel(r)), rv,
                                  room.to_json(), events, changes or Changes(r), room.phase)

    async def _commit(self, doc_keys: tuple[str, str, str], rv: int | None, state: bytes,
                      events: Sequence[dict[str, Any]], changes: Changes,
                      phase: str = "") -> Committed:
        reply = await self._run(scripts.COMMIT, [*doc_keys, *changes._keys], [
            "new" if rv is None else rv, state, self.event_cap, orjson.dumps(changes._ops),
            phase, *(_body(e) for e in events),
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
        data = await self.load_tournament_data(tournament_id)
        return None if data is None else (data.t, data.rv, data.ev)

    async def load_tournament_data(self, tournament_id: str) -> TournamentData | None:
        """A tournament as stored, with a big one's counts; ``None`` if unknown."""
        state, rv, ev, big, *counts = await self.call(
            "HMGET", keys.tournament(tournament_id), "state", "rv", "ev", "big", *_T_COUNTS)
        if state is None:
            return None
        field_counts = ({k: int(v or 0) for k, v in zip(_T_COUNTS, counts, strict=True)}
                        if big == b"1" else {})
        return TournamentData(Tournament.from_json(state), int(rv), int(ev or 0), field_counts)

    async def tournament_counts(self, tournament_id: str) -> dict[str, int]:
        """A big tournament's counts now (``{}``: not a big tournament)."""
        big, *counts = await self.call("HMGET", keys.tournament(tournament_id), "big", *_T_COUNTS)
        if big != b"1":
            return {}
        return {k: int(v or 0) for k, v in zip(_T_COUNTS, counts, strict=True)}

    async def commit_tournament(self, t: Tournament, rv: int | None,
                                events: Sequence[dict[str, Any]], *, ttl_ms: int,
                                fields: dict[str, Any] | None = None) -> Committed:
        """Like :meth:`commit`, for a tournament; its keys expire after ``ttl_ms``.
        A big tournament's header also holds what its scripts check (whether
        registration is open, the first round not started: written from
        ``t`` at every commit) and ``fields`` (set once, at creation)."""
        changes = Changes(t.id)
        header = keys.tournament(t.id)
        for key in keys.tournament_keys(t.id) if t.big else (header, keys.tournament_events(t.id)):
            changes._op("PEXPIRE", key, ttl_ms)
        if t.big:
            changes._op("HSET", header, "reg", int(t.registration), "first", t.first_open(),
                        *(x for kv in (fields or {}).items() for x in kv))
        return await self._commit(
            (header, keys.tournament_events(t.id), keys.tournament_channel(t.id)),
            rv, t.to_json(), events, changes)

    async def tournament_events_since(self, tournament_id: str, since: int
                                      ) -> tuple[int, list[bytes] | None]:
        v, evs = await self._run(scripts.SINCE, [keys.tournament(tournament_id),
                                                 keys.tournament_events(tournament_id)], [since])
        return int(v), None if evs == b"resync" else list(evs)

    async def load(self, room_id: str) -> RoomData | None:
        """The room now, or ``None`` if there is no such room."""
        head, board, online, ready = await self._run(
            scripts.LOAD, [keys.room(room_id), keys.board(room_id), keys.online(room_id),
                           keys.ready(room_id)], [])
        state, rv, ev, live, active, big, players = head
        if state is None:
            return None
        return RoomData(
            room=Room.from_json(state), rv=int(rv), ev=int(ev or 0), live=int(live or 0),
            active=int(active or 0),
            entries={int(board[i]): orjson.loads(board[i + 1]) for i in range(0, len(board), 2)},
            online={int(online[i]): online[i + 1].decode() for i in range(0, len(online), 2)},
            counts={"players": int(players or 0), "ready": int(ready)} if big == b"1" else {},
        )

    async def events_since(self, room_id: str, since: int) -> tuple[int, list[bytes] | None]:
        """The latest version and the events after ``since``, or ``None`` for
        them when they are no longer kept (the caller resyncs)."""
        v, evs = await self._run(scripts.SINCE, [keys.room(room_id), keys.events(room_id)], [since])
        return int(v), None if evs == b"resync" else list(evs)

    async def keep_room(self, room_id: str, race: int, seats: Iterable[int], ttl_ms: int) -> None:
        """Let a room's keys (and one race's seats) live ``ttl_ms`` from now."""
        r = room_id
        names = list(_room_keys(r))
        for s in seats:
            names += [keys.seat(r, race, s), keys.log(r, race, s)]
        await asyncio.gather(*(self.call("PEXPIRE", k, ttl_ms) for k in names))

    async def recent_events(self, room_id: str) -> list[bytes]:
        """Every event the room still keeps (the last ``event_cap``), oldest first."""
        return list(await self.call("LRANGE", keys.events(room_id), 0, -1))

    async def stop_race(self, room_id: str, race: int, *, lines: bool = True) -> dict[int, Entry]:
        """No more moves in ``race``; the final leaderboard lines (none with
        ``lines=False``: a big room's are read a page at a time)."""
        board = await self._run(scripts.STOP, [keys.room(room_id), keys.board(room_id)],
                                [race, "1" if lines else "0"])
        return {int(board[i]): orjson.loads(board[i + 1]) for i in range(0, len(board), 2)}

    # ------------------------------------------------------------------ seats

    @staticmethod
    def seat_keys(room_id: str, race: int, seat: int) -> SeatKeys:
        return (keys.room(room_id), keys.seat(room_id, race, seat), keys.log(room_id, race, seat),
                keys.board(room_id), keys.events(room_id), keys.online(room_id),
                keys.channel(room_id), keys.ranking(room_id), keys.histogram(room_id))

    async def load_seat(self, room_id: str, race: int, seat: int) -> SeatData:
        head, recent, entry = await self._run(
            scripts.SEAT, [keys.seat(room_id, race, seat), keys.log(room_id, race, seat),
                           keys.board(room_id)], [RECENT, seat])
        ver, seq, snap, done = head
        line = orjson.loads(entry) if entry else None
        # a big room's racer has no seat until their first command: ranked in the race
        racer = line is not None and line["status"] != "lobby"
        return SeatData(ver=int(ver or 0), seq=int(seq or 0), snap=snap or None,
                        done=done == b"1", recent=_log_entries(recent),
                        entry=line, exists=ver is not None or racer)

    async def apply(self, seat_keys: SeatKeys, *, race: int, seat: int, conn: str, ver: int,
                    seq: int, command: str, snap: bytes, entry: bytes, event: bytes,
                    done: bool, ranking: Ranked | None = None) -> Applied:
        """Append one game command of a seat, if the seat is still at version
        ``ver`` and held by ``conn``; ``event`` is the body from :func:`event_body`.
        A big room's command passes ``ranking`` instead of an event (``b""``)."""
        big = ("", "", "", "", "", "") if ranking is None else (
            ranking.score, seat_member(seat), ranking.foundation_before, ranking.foundation,
            ranking.status_before, ranking.status)
        reply = await self._run(scripts.MOVE, seat_keys, [
            race, seat, conn, ver, seq, f"{seq} {command}", snap, entry, event,
            "1" if done else "0", self.event_cap, *big,
        ])
        status = reply[0].decode()
        if status == "ok":
            return Applied("ok", v=reply[1], active=reply[2], rank=reply[3], of=reply[4])
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

    async def attach(self, room_id: str, seat: int, conn: str,
                     event: dict[str, Any] | None) -> bool:
        """``conn`` now holds ``seat``; another connection holding it is told to
        close. ``event`` announces it (``None``: a big room, which does not).
        ``False`` if the room is gone."""
        reply = await self._run(scripts.ATTACH, [keys.room(room_id), keys.online(room_id),
                                                 keys.events(room_id), keys.channel(room_id)],
                                [seat, conn, _body(event) if event else b"", self.event_cap])
        return bool(reply[0] == b"ok")

    async def detach(self, room_id: str, seat: int, conn: str,
                     event: dict[str, Any] | None) -> None:
        await self._run(scripts.DETACH, [keys.room(room_id), keys.online(room_id),
                                         keys.events(room_id), keys.channel(room_id)],
                        [seat, conn, _body(event) if event else b"", self.event_cap])

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

    async def notice(self, room_id: str, body: bytes) -> None:
        """Publish a notice (``{"x": kind, ...}``: not stored, not versioned)
        on the room's channel (``SPUBLISH`` on a cluster, like the scripts)."""
        await self.call("SPUBLISH" if self.redis.sharded else "PUBLISH", keys.channel(room_id),
                        body)

    # ------------------------------------------------------------------ winnable deals

    async def winnable_count(self, mode: str) -> int:
        """How many certified winnable codes of ``mode`` are ready."""
        return int(await self.call("SCARD", keys.winnable(mode)))

    async def winnable_add(self, mode: str, code: str) -> None:
        await self.call("SADD", keys.winnable(mode), code)

    async def winnable_forget_kl1(self, modes: Iterable[str]) -> None:
        """Delete the sets of winnable KL1 codes kept before KL2 (never dealt now)."""
        for mode in modes:
            await self.call("DEL", keys.winnable_kl1(mode))

    async def winnable_take(self, mode: str, count: int = 1) -> list[str]:
        """Up to ``count`` ready codes of ``mode``, each taken out (``SPOP``:
        atomic, so no code is dealt twice), at random among those ready."""
        taken = await self.call("SPOP", keys.winnable(mode), count)
        return [c.decode() if isinstance(c, bytes) else str(c) for c in taken or []]

    # ------------------------------------------------------------------ deadlines

    async def due_add(self, room_id: str, at_ms: int) -> None:
        await self.call("ZADD", keys.shard_of(room_id, self._due), at_ms, room_id)

    async def due_remove(self, room_id: str) -> None:
        await self.call("ZREM", keys.shard_of(room_id, self._due), room_id)

    async def claim_due(self, now_ms: int, *, lease_ms: int = 10_000, limit: int = 20) -> list[str]:
        """Rooms whose deadline has passed, each leased to this caller for a
        while (up to ``limit`` of each shard of the index)."""
        return await self._claim(self._due, now_ms, lease_ms, limit)

    async def _claim(self, index: tuple[str, ...], now_ms: int, lease_ms: int,
                     limit: int) -> list[str]:
        shards = await asyncio.gather(*(self._run(scripts.CLAIM_DUE, [key], [now_ms, lease_ms, limit])
                                        for key in index))
        return [i.decode() for ids in shards for i in ids]

    async def count_creation(self, address: str, kind: str, now_ms: int) -> tuple[int, int]:
        """One more creation from ``address`` (how many in the last minute,
        this one included) and how many documents of ``kind`` (``room`` or
        ``tournament``) are live. Two scripts, in different slots on a
        cluster (one round trip on one Redis: they are sent together)."""
        made, *counts = await asyncio.gather(
            self._run(scripts.CREATION, [keys.creations(address)],
                      [now_ms, 60_000, secrets.token_hex(8)]),
            *(self._run(scripts.LIVE_COUNT, [key], [now_ms]) for key in self._live[kind]))
        return int(made), sum(int(c) for c in counts)

    async def live_add(self, kind: str, ident: str, until_ms: int) -> None:
        """A document of ``kind`` counts as live until ``until_ms``."""
        await self.call("ZADD", keys.shard_of(ident, self._live[kind]), until_ms, ident)

    async def tournament_due_add(self, tournament_id: str, at_ms: int) -> None:
        """Have the sweepers look at a tournament from ``at_ms`` on (a round it starts)."""
        await self.call("ZADD", keys.shard_of(tournament_id, self._tournaments_due), at_ms, tournament_id)

    async def tournament_due_remove(self, tournament_id: str) -> None:
        await self.call("ZREM", keys.shard_of(tournament_id, self._tournaments_due), tournament_id)

    async def claim_due_tournaments(self, now_ms: int, *, lease_ms: int = 10_000,
                                    limit: int = 20) -> list[str]:
        """Tournaments due a look, each leased to this caller for a while (up
        to ``limit`` of each shard of the index)."""
        return await self._claim(self._tournaments_due, now_ms, lease_ms, limit)


    # ------------------------------------------------------------------ big rooms

    async def join_big(self, room_id: str, *, nickname: str, fold: str, token_hash: str,
                       lobby_tail: bytes, lobby_score: int, late_tail: bytes,
                       late_score: int) -> Joined:
        """A seat in a big room (see the ``join`` script): the lines are the
        JSON after the nickname, for the lobby and for a late racer. Status
        ``small`` for a room that is not big: nothing was written."""
        r = room_id
        reply = await self._run(scripts.JOIN, [
            keys.room(r), keys.players(r), keys.nicknames(r), keys.tokens(r), keys.board(r),
            keys.ranking(r), keys.histogram(r)], [
            fold, _player(nickname, fold, token_hash), token_hash, lobby_tail, lobby_score,
            late_tail, late_score, orjson.dumps(nickname)])
        status = reply[0].decode()
        if status != "ok":
            return Joined(status)
        return Joined("ok", seat=int(reply[1]), phase=reply[2].decode(), race=int(reply[3]))

    async def leave_big(self, room_id: str, *, seat: int, race: int, line: Entry | None,
                        score: int, status_before: str, host: int, kick: bool = False,
                        round_kick: bool = False) -> Left:
        """Out of a big room (see the ``leave`` script); ``line`` is the seat's
        line with status ``left`` when the race goes on without it. ``kick``
        (not while racing) and ``round_kick`` (a tournament's organizer, also
        while its round races) close the player's connection."""
        r = room_id
        reply = await self._run(scripts.LEAVE, [
            keys.room(r), keys.players(r), keys.nicknames(r), keys.tokens(r), keys.board(r),
            keys.ranking(r), keys.histogram(r), keys.online(r), keys.ready(r), keys.left(r),
            keys.seat(r, race, seat)], [
            seat, orjson.dumps(line) if line else b"", score, status_before, host,
            "r" if round_kick else "1" if kick else "0", keys.channel(r)])
        return Left(reply[0].decode(), *(int(x) for x in reply[1:]))

    async def ready_big(self, room_id: str, seat: int, ready: bool) -> int:
        """A seat's ready flag; how many are ready (-1: no such seat)."""
        r = room_id
        return int(await self._run(scripts.READY, [keys.room(r), keys.ready(r), keys.players(r)],
                                   [seat, "1" if ready else "0"]))

    async def seat_of_token(self, room_id: str, token_hash: str) -> int | None:
        seat = await self.call("HGET", keys.tokens(room_id), token_hash)
        return None if seat is None else int(seat)

    async def nickname(self, room_id: str, seat: int) -> str | None:
        raw = await self.call("HGET", keys.players(room_id), seat)
        return None if raw is None else str(orjson.loads(raw)["nickname"])

    async def line(self, room_id: str, seat: int) -> Entry | None:
        """A seat's leaderboard line as stored."""
        raw = await self.call("HGET", keys.board(room_id), seat)
        return None if raw is None else dict(orjson.loads(raw))

    async def tick(self, room_id: str, tick: int, lines: int) -> bool:
        """Build and publish a big room's leaderboard tick, unless another
        process did or nothing changed."""
        r = room_id
        return bool(await self._run(scripts.TICK, [
            keys.room(r), keys.ranking(r), keys.board(r), keys.histogram(r), keys.online(r),
            keys.top(r), keys.channel(r), keys.ready(r)], [tick, lines]))

    async def latest_tick(self, room_id: str) -> bytes | None:
        """The body of the big room's latest tick (JSON without its opening brace)."""
        raw = await self.call("GET", keys.top(room_id))
        return None if raw is None else bytes(raw)

    async def near(self, room_id: str, seats: Sequence[int]) -> list[bytes | None]:
        """Each seat's place, as the JSON members of a ``me`` frame's data
        (``None``: not ranked): see the ``near`` script."""
        return await self._near(keys.ranking(room_id), keys.board(room_id), seats)

    async def page(self, room_id: str, first: int, count: int) -> tuple[int, list[bytes]]:
        """How many are ranked, and the raw lines from rank ``first`` on."""
        return await self._page(keys.ranking(room_id), keys.board(room_id), first, count)

    async def find(self, room_id: str, fold: str) -> tuple[int, int, bytes | None] | None:
        """The seat with this folded nickname, its rank (0: not ranked) and line."""
        return await self._find(keys.nicknames(room_id), keys.ranking(room_id),
                                keys.board(room_id), fold)

    async def standings_near(self, tournament_id: str, players: Sequence[int]
                             ) -> list[bytes | None]:
        """A big tournament's standings: each player's place, as the JSON
        members of a ``t_me`` frame's data (``None``: not ranked)."""
        t = tournament_id
        return await self._near(keys.standings_rank(t), keys.standings(t), players)

    async def standings_page(self, tournament_id: str, first: int, count: int
                             ) -> tuple[int, list[bytes]]:
        """A big tournament's standings from rank ``first`` on, as stored."""
        t = tournament_id
        return await self._page(keys.standings_rank(t), keys.standings(t), first, count)

    async def standings_find(self, tournament_id: str, fold: str
                             ) -> tuple[int, int, bytes | None] | None:
        """A big tournament's player by folded nickname: number, rank (0: not
        ranked, a kicked player) and standing line."""
        t = tournament_id
        return await self._find(keys.tournament_nicknames(t), keys.standings_rank(t),
                                keys.standings(t), fold)

    async def _near(self, rank: str, lines: str, members: Sequence[int]) -> list[bytes | None]:
        places = await self._run(scripts.NEAR, [rank, lines], list(members))
        return [place or None for place in places]

    async def _page(self, rank: str, lines: str, first: int, count: int
                    ) -> tuple[int, list[bytes]]:
        total, found = await self._run(scripts.PAGE, [rank, lines], [first, count])
        return int(total), [line for line in found if line]

    async def _find(self, nicknames: str, rank: str, lines: str, fold: str
                    ) -> tuple[int, int, bytes | None] | None:
        found = await self._run(scripts.FIND, [nicknames, rank, lines], [fold])
        if not found:
            return None
        return int(found[0]), int(found[1]), found[2] or None


@dataclass(frozen=True, slots=True)
class Ranked:
    """What a big room's game command changes in its ranking and progress."""

    score: int
    foundation_before: int
    foundation: int
    status_before: str
    status: str


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


__all__ = ["Applied", "Changes", "Committed", "Joined", "Left", "Ranked", "RoomData",
           "SeatData", "Store", "StoreUnavailable", "TournamentData", "event_body"]
