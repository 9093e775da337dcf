"""Commands a client sends, decoded and type-checked; no I/O.

Every frame is ``{"t": type, "d": {...}}`` (``d`` may be omitted when empty).
:func:`decode` returns a command object or raises :class:`ProtocolError`
carrying the stable reason code and a sentence.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any, ClassVar, Final, get_type_hints

import orjson

from .reasons import DEFAULT_TEXT, Reason

MAX_SEQ: Final = 2**31 - 1  # a game command's sequence number: room for any game, and no more
MAX_SAFE: Final = 2**53 - 1  # what a JavaScript number holds exactly (times, versions)


class ProtocolError(Exception):
    """A frame that is not a valid command: the rejection to send back."""

    def __init__(self, reason: Reason, text: str | None = None, command: str | None = None,
                 seq: int | None = None) -> None:
        super().__init__(text or DEFAULT_TEXT[reason])
        self.reason = reason
        self.text = text or DEFAULT_TEXT[reason]
        self.command = command
        self.seq = seq  # the command's own sequence number, when that field was valid


@dataclass(frozen=True, slots=True)
class Command:
    type: ClassVar[str] = ""
    #: whether the command needs a seat and changes the seat's game
    game: ClassVar[bool] = False


@dataclass(frozen=True, slots=True)
class Create(Command):
    """Open a room and take its first seat as host."""

    type: ClassVar[str] = "create"
    nickname: str
    settings: dict[str, Any]


@dataclass(frozen=True, slots=True)
class Join(Command):
    type: ClassVar[str] = "join"
    room: str
    nickname: str


@dataclass(frozen=True, slots=True)
class Resume(Command):
    """Take back a seat, on any process, after a reload or a lost socket."""

    type: ClassVar[str] = "resume"
    room: str
    token: str
    since: int = 0


@dataclass(frozen=True, slots=True)
class Watch(Command):
    """Follow a room as a spectator. ``token``: a seat token the client
    holds for the room (a tournament's player token for a round's room), so
    that a racer is not shown the race they run (``own_race``)."""

    type: ClassVar[str] = "watch"
    room: str
    since: int = 0
    token: str | None = None


@dataclass(frozen=True, slots=True)
class Solo(Command):
    """A one-player game: a given code, or a random deal of a mode (any, or
    one certified winnable: ``deal``), with its ``assists``."""

    type: ClassVar[str] = "solo"
    nickname: str = "player"
    code: str | None = None
    draw: int = 1
    scoring: str = "N"
    deal: str = "random"
    assists: str = "basic"


@dataclass(frozen=True, slots=True)
class Quick(Command):
    """A seat in the next quick race of a mode (joined, or opened as its host)."""

    type: ClassVar[str] = "quick"
    nickname: str
    draw: int = 1
    scoring: str = "N"


@dataclass(frozen=True, slots=True)
class Lobby(Command):
    """Follow the list of public races (``on``), or stop following it."""

    type: ClassVar[str] = "lobby"
    on: bool = True


@dataclass(frozen=True, slots=True)
class Ready(Command):
    type: ClassVar[str] = "ready"
    ready: bool = True


@dataclass(frozen=True, slots=True)
class Start(Command):
    """The host starts the race: now (after the countdown), or in a big room
    at the server time ``at`` (ms)."""

    type: ClassVar[str] = "start"
    at: int = 0


@dataclass(frozen=True, slots=True)
class Kick(Command):
    type: ClassVar[str] = "kick"
    seat: int


@dataclass(frozen=True, slots=True)
class Leave(Command):
    type: ClassVar[str] = "leave"


@dataclass(frozen=True, slots=True)
class Rematch(Command):
    type: ClassVar[str] = "rematch"


@dataclass(frozen=True, slots=True)
class MoveCommand(Command):
    """A move in docs/rules.md notation, numbered by the client (``s`` ≥ 1, increasing)."""

    type: ClassVar[str] = "move"
    game: ClassVar[bool] = True
    s: int
    m: str


@dataclass(frozen=True, slots=True)
class Undo(Command):
    type: ClassVar[str] = "undo"
    game: ClassVar[bool] = True
    s: int


@dataclass(frozen=True, slots=True)
class Resign(Command):
    type: ClassVar[str] = "resign"
    game: ClassVar[bool] = True
    s: int


@dataclass(frozen=True, slots=True)
class Hint(Command):
    type: ClassVar[str] = "hint"
    game: ClassVar[bool] = True


@dataclass(frozen=True, slots=True)
class Complete(Command):
    """Ask for the moves that finish the game (the client plays them)."""

    type: ClassVar[str] = "complete"
    game: ClassVar[bool] = True


@dataclass(frozen=True, slots=True)
class LbPage(Command):
    """A page of a big room's leaderboard, from rank ``from`` (1 is the first)."""

    type: ClassVar[str] = "lb_page"
    first: int = 1
    count: int = 20


@dataclass(frozen=True, slots=True)
class LbFind(Command):
    """A player's line and rank in a big room's leaderboard, by nickname."""

    type: ClassVar[str] = "lb_find"
    nickname: str


@dataclass(frozen=True, slots=True)
class Follow(Command):
    """A spectator follows one player of a big room (their line and board
    each tick, as the room allows); ``null`` stops following."""

    type: ClassVar[str] = "follow"
    nickname: str | None = None


@dataclass(frozen=True, slots=True)
class Ping(Command):
    """Free of message credit; answered with ``pong``."""

    type: ClassVar[str] = "ping"


@dataclass(frozen=True, slots=True)
class TCreate(Command):
    """Organize a tournament; the answer carries its admin token."""

    type: ClassVar[str] = "t_create"
    name: str
    settings: dict[str, Any]


@dataclass(frozen=True, slots=True)
class TWatch(Command):
    type: ClassVar[str] = "t_watch"
    id: str


@dataclass(frozen=True, slots=True)
class TRegister(Command):
    """Register as a player; ``invite`` is the tournament's invite code when it has one."""

    type: ClassVar[str] = "t_register"
    id: str
    nickname: str
    invite: str | None = None


@dataclass(frozen=True, slots=True)
class TResume(Command):
    type: ClassVar[str] = "t_resume"
    id: str
    token: str


@dataclass(frozen=True, slots=True)
class TClose(Command):
    """Close registration (organizer)."""

    type: ClassVar[str] = "t_close"
    id: str
    admin: str


@dataclass(frozen=True, slots=True)
class TStart(Command):
    """Start the next round (organizer): at server time ``at`` (ms), or after
    the countdown when ``at`` is 0 or past."""

    type: ClassVar[str] = "t_start"
    id: str
    admin: str
    at: int = 0


@dataclass(frozen=True, slots=True)
class TEnd(Command):
    """End the round being played now (organizer): those still playing are unfinished."""

    type: ClassVar[str] = "t_end"
    id: str
    admin: str


@dataclass(frozen=True, slots=True)
class TWithdraw(Command):
    type: ClassVar[str] = "t_withdraw"
    id: str
    token: str


@dataclass(frozen=True, slots=True)
class TStandings(Command):
    type: ClassVar[str] = "t_standings"
    id: str


@dataclass(frozen=True, slots=True)
class TPage(Command):
    """A page of a tournament's standings, from rank ``first`` (1 is the first)."""

    type: ClassVar[str] = "t_page"
    id: str
    first: int = 1
    count: int = 20


@dataclass(frozen=True, slots=True)
class TFind(Command):
    """A player's standing line and rank, by nickname."""

    type: ClassVar[str] = "t_find"
    id: str
    nickname: str


@dataclass(frozen=True, slots=True)
class TKick(Command):
    """Remove a player (organizer); ``ban`` also refuses their nickname from then on."""

    type: ClassVar[str] = "t_kick"
    id: str
    admin: str
    player: int
    ban: bool = False


@dataclass(frozen=True, slots=True)
class THandoff(Command):
    """A one-time code that gives another device an admin key (organizer)."""

    type: ClassVar[str] = "t_handoff"
    id: str
    admin: str


@dataclass(frozen=True, slots=True)
class TClaim(Command):
    """An admin key for this device, given a handoff code."""

    type: ClassVar[str] = "t_claim"
    id: str
    code: str


@dataclass(frozen=True, slots=True)
class Identify(Command):
    """Say which player this connection is: by the player's ``key``, or,
    with none, as a new player (named ``nickname``) whose key comes back."""

    type: ClassVar[str] = "identify"
    key: str | None = None
    nickname: str | None = None


@dataclass(frozen=True, slots=True)
class PRename(Command):
    """The identified player's new nickname."""

    type: ClassVar[str] = "p_rename"
    nickname: str


@dataclass(frozen=True, slots=True)
class PHistory(Command):
    """A page of the identified player's results, from the ``first`` (1 is the newest)."""

    type: ClassVar[str] = "p_history"
    first: int = 1
    count: int = 20


@dataclass(frozen=True, slots=True)
class PProfile(Command):
    """Any player's public profile, by their public id (as ``GET /api/players/{id}``)."""

    type: ClassVar[str] = "p_profile"
    id: str


@dataclass(frozen=True, slots=True)
class PMove(Command):
    """A one-time code that moves the identified player to another device."""

    type: ClassVar[str] = "p_move"


@dataclass(frozen=True, slots=True)
class PClaim(Command):
    """This device becomes the player whose device-move code this is."""

    type: ClassVar[str] = "p_claim"
    code: str


@dataclass(frozen=True, slots=True)
class PForget(Command):
    """Delete the identified player: their profile, keys and history."""

    type: ClassVar[str] = "p_forget"


@dataclass(frozen=True, slots=True)
class Daily(Command):
    """Today's daily deals (and, identified, the player's places and streak)."""

    type: ClassVar[str] = "daily"


@dataclass(frozen=True, slots=True)
class DailyPlay(Command):
    """A seat in today's daily deal of ``mode``, as the identified player."""

    type: ClassVar[str] = "daily_play"
    mode: str
    nickname: str


COMMANDS: Final[dict[str, type[Command]]] = {
    c.type: c
    for c in (Create, Join, Resume, Watch, Solo, Quick, Lobby, Ready, Start, Kick, Leave, Rematch,
              MoveCommand, Undo, Resign, Hint, Complete, Ping, LbPage, LbFind, Follow,
              TCreate, TWatch, TRegister, TResume, TClose, TStart, TEnd, TWithdraw, TStandings,
              TPage, TFind, TKick, THandoff, TClaim, Identify, PRename, PHistory, PProfile, PMove,
              PClaim, PForget, Daily, DailyPlay)
}

MAX_TEXT: Final = 200  # no string field of a command is longer


def _schema(cls: type[Command]) -> tuple[tuple[str, Any, bool], ...]:
    hints = get_type_hints(cls)
    out = []
    for f in fields(cls):
        required = f.default is f.default_factory  # both MISSING
        out.append((f.name, hints[f.name], required))
    return tuple(out)


_SCHEMAS: Final = {name: _schema(cls) for name, cls in COMMANDS.items()}
#: the whole numbers' ranges: a sequence number starts at 1 and stays below 2**31
_BOUNDS: Final = {"s": (1, MAX_SEQ), "seat": (0, MAX_SEQ), "since": (0, MAX_SAFE),
                  "at": (0, MAX_SAFE), "first": (1, MAX_SEQ), "count": (1, MAX_SEQ),
                  "player": (0, MAX_SEQ)}


def decode(raw: str | bytes) -> Command:
    """The command in one frame, or :class:`ProtocolError`."""
    if isinstance(raw, bytes):
        raise ProtocolError(Reason.BAD_JSON, "binary frames are not accepted: send JSON text")
    try:
        msg = orjson.loads(raw)
    except orjson.JSONDecodeError:
        raise ProtocolError(Reason.BAD_JSON) from None
    if not isinstance(msg, dict) or not isinstance(msg.get("t"), str):
        raise ProtocolError(Reason.BAD_MESSAGE)
    name = msg["t"]
    cls = COMMANDS.get(name)
    if cls is None:
        raise ProtocolError(Reason.UNKNOWN_TYPE, f"unknown message type {name[:40]!r}", name[:40])
    data = msg.get("d", {})
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise ProtocolError(Reason.BAD_MESSAGE, '"d" must be an object', name)
    values: dict[str, Any] = {}
    try:
        for field, kind, required in _SCHEMAS[name]:
            if field not in data:
                if required:
                    raise ProtocolError(Reason.BAD_FIELD, f"{name}: field {field!r} is missing",
                                        name)
                continue
            values[field] = _check(name, field, kind, data[field])
    except ProtocolError as exc:
        seq = data.get("s")
        if cls.game and type(seq) is int and 1 <= seq <= MAX_SEQ:
            exc.seq = seq  # so the client can match the refusal to what it sent
        raise
    return cls(**values)


def _check(name: str, field: str, kind: Any, value: Any) -> Any:
    if kind is bool:
        ok = isinstance(value, bool)
        want = "true or false"
    elif kind is int:
        ok = isinstance(value, int) and not isinstance(value, bool)
        bounds = _BOUNDS.get(field)
        if ok and bounds is not None:
            ok = bounds[0] <= value <= bounds[1]
        want = "a whole number" + (f" from {bounds[0]} to {bounds[1]}" if bounds else "")
    elif kind is str:
        ok = isinstance(value, str) and len(value) <= MAX_TEXT
        want = f"a string of at most {MAX_TEXT} characters"
    elif kind == str | None:
        ok = value is None or (isinstance(value, str) and len(value) <= MAX_TEXT)
        want = "a string or null"
    else:  # dict[str, Any]
        ok = isinstance(value, dict)
        want = "an object"
    if not ok:
        raise ProtocolError(Reason.BAD_FIELD, f"{name}: field {field!r} must be {want}", name)
    return value
