"""The store's seats: a seat's game (its command log and snapshot), its
commands applied atomically, and which connection holds it.

A seat whose game is over is packed (the Lua helper ``pack_seat``): its log
becomes one field of its hash (``log``, :func:`unpack_log`) and its snapshot
is dropped; its board is rebuilt from the deal and the log when asked for
(:func:`game_after`, :meth:`SeatState.snapshots`). Every reader takes both
shapes: a seat of before, or still playing, has its log list and snapshot.

A game command is one script: ``move`` in a room whose leaderboard travels
as events (the command is recorded as the room's next event), ``move_ranked``
in a room whose leaderboard is a ranking read by ticks (the command updates
the ranking and answers the seat's rank). Both check and store the command
the same way (the Lua helper ``seat_command``).
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Final

import orjson

from ..klondike import Game, replay
from ..race import Entry
from ..race.ranking import seat_member
from . import keys, scripts
from .section import Section, pairs

RECENT: Final = 64  # log entries loaded with a seat, to recognise resent commands
REBUILT: Final = 512  # boards of packed seats rebuilt and kept, per process (about 1 KiB each)


@dataclass(frozen=True, slots=True)
class SeatData:
    ver: int  # commands in the seat's log
    seq: int  # the last client sequence number applied
    snap: bytes | None  # engine snapshot after the last command (None: none yet)
    done: bool
    recent: list[tuple[int, str]]  # (seq, command) of the latest log entries
    entry: Entry | None  # the seat's leaderboard line (None: not in this race)
    exists: bool  # the seat has a game in this race
    trace: str | None = None  # a challenge's: the seat's ghost trace as stored (race.ghosts)
    log: list[tuple[int, str]] | None = None  # a packed seat's whole log (its game is over)


@dataclass(frozen=True, slots=True)
class SeatCommand:
    """One game command of a seat, as it is stored: it applies only if the
    seat is still at version ``ver`` and held by connection ``conn``."""

    race: int
    seat: int
    conn: str
    ver: int
    seq: int
    command: str  # "move" notation, undo or resign
    snap: bytes  # the engine snapshot after it
    line: bytes  # the seat's leaderboard line after it (JSON)
    done: bool  # the seat's race is over after it (finished or resigned)
    limit: int  # the most commands the seat's log may hold with this one (else ``full``)
    trace: str | None = None  # a challenge's: the seat's ghost trace after it (None: unchanged)
    ghost: int | None = None  # a challenge's: the seat's place among the ghosts, once done

    def args(self) -> list[Any]:
        """ARGV 1 to 10 of the ``move`` scripts."""
        return [self.race, self.seat, self.conn, self.ver, self.seq, f"{self.seq} {self.command}",
                self.snap, self.line, "1" if self.done else "0", self.limit]

    def ghost_args(self) -> list[Any]:
        """The ``move`` scripts' last two ARGV: the trace and the ghost's place ('' for none)."""
        return ["" if self.trace is None else self.trace,
                "" if self.ghost is None else self.ghost]


@dataclass(frozen=True, slots=True)
class Ranked:
    """What a ranked room's game command changes in its ranking and progress."""

    score: int
    foundation_before: int
    foundation: int
    status_before: str
    status: str


@dataclass(frozen=True, slots=True)
class Applied:
    """The outcome of a game command: ``ok`` or why not."""

    status: str  # ok, not_playing, taken_over, seq, version, full (the seat's log is)
    v: int = 0  # event version recorded (ok; 0 in a ranked room, which records none)
    active: int = -1  # seats still playing, when this command ended the seat's race
    seq: int = 0  # the seat's last seq (status seq)
    rank: int = 0  # a ranked room's: the seat's rank after the command, of ``of``
    of: int = 0
    ver: int = -1  # the seat's version in Redis (status version: below the caller's, a rollback)


def _refused(reply: list[Any]) -> Applied:
    status = reply[0].decode()
    if status == "seq":
        return Applied("seq", seq=int(reply[1]))
    if status == "version":
        return Applied("version", ver=int(reply[1]) if len(reply) > 1 and reply[1] else 0)
    return Applied(status)


def _log_entries(raw: Iterable[bytes]) -> list[tuple[int, str]]:
    """Log entries ``b"seq command"`` as (seq, command)."""
    out = []
    for item in raw:
        seq, _, command = item.decode().partition(" ")
        out.append((int(seq), command))
    return out


def packed_log(seat: Any) -> bytes | None:
    """A packed seat's log from its hash as read (``HGETALL``: fields ``log``,
    ``log2``, ``log3``... in order), ``None`` for a seat not packed."""
    fields = dict(pairs(seat))
    first = fields.get(b"log")
    if first is None:
        return None
    pieces, n = [first], 2
    while (piece := fields.get(b"log%d" % n)) is not None:
        pieces.append(piece)
        n += 1
    return b"".join(pieces)


#: the commands that are words, as a packed log shortens them (``pack_seat``)
_WORDS: Final = {"d": "draw", "r": "recycle", "u": "undo", "x": "resign"}


def _command(token: str) -> str:
    """A packed log's command as the seat sent it (see ``pack_seat``)."""
    if token.startswith("="):
        return token[1:]
    word = _WORDS.get(token)
    if word is not None:
        return word
    source, _, count = token[:-1].partition(":")
    source = source if source[0] in "wf" else f"t{source}"
    target = "f" if token[-1] == "f" else f"t{token[-1]}"
    return f"{source}:{count}>{target}" if count else f"{source}>{target}"


def unpack_log(packed: bytes) -> list[tuple[int, str]]:
    """A packed seat's log (``pack_seat``) as (seq, command): ``#n`` gives
    the next command's seq, a command without one has the previous plus one.

    >>> unpack_log(b"#1 wf 2:35 d #7 u fs4 r x")
    [(1, 'w>f'), (2, 't2:3>t5'), (3, 'draw'), (7, 'undo'), (8, 'fs>t4'), (9, 'recycle'), (10, 'resign')]
    """
    out: list[tuple[int, str]] = []
    seq, given = 0, None
    for token in packed.decode().split():
        if token.startswith("#"):
            given = int(token[1:])
            continue
        seq = seq + 1 if given is None else given
        given = None
        out.append((seq, _command(token)))
    return out


def game_after(code: str, log: Sequence[tuple[int, str]]) -> Game:
    """The game of deal ``code`` after a seat's logged commands (a resign
    changes no board)."""
    return replay(code, [command for _, command in log if command != "resign"])


class SeatState(Section):
    """Seats' games, their commands, and who holds them."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        #: (room, race, seat) -> the snapshot of a packed seat's board, rebuilt
        #: once: its log never changes again
        self._rebuilt: OrderedDict[tuple[str, int, int], bytes] = OrderedDict()

    async def load_seat(self, room_id: str, race: int, seat: int) -> SeatData:
        head, recent, entry, trace = await self._run(
            scripts.SEAT, [keys.seat(room_id, race, seat), keys.log(room_id, race, seat),
                           keys.board(room_id), keys.ghost_traces(room_id)], [RECENT, seat])
        fields = dict(pairs(head))
        ver, seq, snap, done = (fields.get(f) for f in (b"ver", b"seq", b"snap", b"done"))
        packed = packed_log(head)
        line = orjson.loads(entry) if entry else None
        # a ranked room's racer has no seat until their first command: ranked in the race
        racer = line is not None and line["status"] != "lobby"
        log = None if packed is None else unpack_log(packed)
        return SeatData(ver=int(ver or 0), seq=int(seq or 0), snap=snap or None,
                        done=done == b"1",
                        recent=_log_entries(recent) if log is None else log[-RECENT:],
                        entry=line, exists=ver is not None or racer,
                        trace=trace.decode() if trace else None, log=log)

    async def apply(self, room_id: str, cmd: SeatCommand, event: bytes) -> Applied:
        """Store a command and record ``event`` (its body: see
        :func:`~.room_state.event_body`) as the room's next event."""
        r = room_id
        reply = await self._run(scripts.MOVE, (
            keys.room(r), keys.seat(r, cmd.race, cmd.seat), keys.log(r, cmd.race, cmd.seat),
            keys.board(r), keys.online(r), keys.events(r), keys.channel(r), keys.ghost_traces(r),
            keys.ghosts(r)), [*cmd.args(), event, self.event_cap, *cmd.ghost_args()])
        if reply[0] == b"ok":
            return Applied("ok", v=reply[1], active=reply[2])
        return _refused(reply)

    async def apply_ranked(self, room_id: str, cmd: SeatCommand, ranked: Ranked) -> Applied:
        """Store a command of a ranked room: its line's score in the ranking,
        and the field's progress; the seat's rank after it."""
        r = room_id
        reply = await self._run(scripts.MOVE_RANKED, (
            keys.room(r), keys.seat(r, cmd.race, cmd.seat), keys.log(r, cmd.race, cmd.seat),
            keys.board(r), keys.online(r), keys.ranking(r), keys.histogram(r),
            keys.ghost_traces(r), keys.ghosts(r)),
            [*cmd.args(), seat_member(cmd.seat), ranked.score, ranked.foundation_before,
             ranked.foundation, ranked.status_before, ranked.status, *cmd.ghost_args()])
        if reply[0] == b"ok":
            return Applied("ok", active=reply[1], rank=reply[2], of=reply[3])
        return _refused(reply)

    async def log(self, room_id: str, race: int, seat: int, first: int = 0,
                  last: int = -1) -> list[tuple[int, str]]:
        """A seat's command log, entries ``first`` to ``last`` (the whole by
        default, both included, as ``LRANGE`` counts them): (seq, command) in order."""
        packed = packed_log(await self.call("HGETALL", keys.seat(room_id, race, seat)))
        if packed is not None:
            whole = unpack_log(packed)
            return whole[first:] if last == -1 else whole[first:last + 1]
        return _log_entries(await self.call("LRANGE", keys.log(room_id, race, seat), first, last))

    async def log_length(self, room_id: str, race: int, seat: int) -> int:
        """How many commands a seat's log holds."""
        packed = packed_log(await self.call("HGETALL", keys.seat(room_id, race, seat)))
        if packed is not None:
            return len(unpack_log(packed))
        return int(await self.call("LLEN", keys.log(room_id, race, seat)))

    async def snapshots(self, room_id: str, race: int, seats: Iterable[int],
                        code: str) -> dict[int, bytes]:
        """The snapshot of each seat that has played a command, the game of
        deal ``code``: as stored, or a packed seat's rebuilt from its log."""
        seats = list(seats)
        replies = await asyncio.gather(
            *(self.call("HGETALL", keys.seat(room_id, race, s)) for s in seats))
        out = {}
        for s, seat in zip(seats, replies, strict=True):
            snap, packed = dict(pairs(seat)).get(b"snap"), packed_log(seat)
            if snap:
                out[s] = snap
            elif packed:
                out[s] = self._rebuild((room_id, race, s), code, packed)
        return out

    def _rebuild(self, where: tuple[str, int, int], code: str, packed: bytes) -> bytes:
        """A packed seat's board as a snapshot, rebuilt once and kept (:data:`REBUILT`)."""
        found = self._rebuilt.get(where)
        if found is None:
            found = game_after(code, unpack_log(packed)).snapshot()
            self._rebuilt[where] = found
            if len(self._rebuilt) > REBUILT:
                self._rebuilt.popitem(last=False)
        else:
            self._rebuilt.move_to_end(where)
        return found

    # ------------------------------------------------------------------ presence

    async def attach(self, room_id: str, seat: int, conn: str,
                     event: dict[str, Any] | None) -> bool:
        """``conn`` now holds ``seat``; another connection holding it is told to
        close. ``event`` announces it (``None``: not announced). ``False`` if
        the room is gone."""
        reply = await self._run(scripts.ATTACH, [keys.room(room_id), keys.online(room_id),
                                                 keys.events(room_id), keys.channel(room_id)],
                                [seat, conn, orjson.dumps(event)[1:] if event else b"",
                                 self.event_cap])
        return bool(reply[0] == b"ok")

    async def detach(self, room_id: str, seat: int, conn: str,
                     event: dict[str, Any] | None) -> None:
        await self._run(scripts.DETACH, [keys.room(room_id), keys.online(room_id),
                                         keys.events(room_id), keys.channel(room_id)],
                        [seat, conn, orjson.dumps(event)[1:] if event else b"", self.event_cap])

    async def holders(self, room_id: str) -> dict[int, str]:
        """Seat -> the connection holding it, in one room."""
        held = await self.call("HGETALL", keys.online(room_id))
        return {int(seat): conn.decode() for seat, conn in pairs(held)}
