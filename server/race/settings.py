"""Room settings: what the host chooses, validated once at creation.

>>> s = parse_settings({"code": "kl1-d3v-aaaaaag", "max_players": 4})
>>> s.draw, s.scoring, s.max_players, s.boards
(3, 'V', 4, 'after')
>>> parse_settings({"boards": "sometimes"})
Traceback (most recent call last):
...
server.race.errors.RaceError: boards must be one of live, delayed, after

Rooms of more than :data:`SMALL_ROOM` seats are *big*: they share a
leaderboard of the top players and each player's own line instead of every
line, and join, ready and presence are counted instead of announced
(docs/protocol.md, "Big rooms").

>>> parse_settings({}).big, parse_settings({"max_players": 500}).big
(False, True)

A room with a ``window`` (seconds) is a *challenge*: it stays open that long
and each player starts their own game when they choose, on their own clock
(docs/protocol.md, "Challenges"); it shows the boards only once it closes.

>>> parse_settings({"window": 3600}).challenge, parse_settings({}).challenge
(True, False)
>>> parse_settings({"window": 60})
Traceback (most recent call last):
...
server.race.errors.RaceError: window must be 0 (a live race) or 600 to 604800 seconds (10 min to 7 days)
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Final, Literal

from ..klondike import DealCode, InvalidDealCodeError
from ..protocol.reasons import Reason
from .errors import RaceError

DEFAULT_PLAYERS: Final = 8
MAX_PLAYERS: Final = 10_000
SMALL_ROOM: Final = 16  # up to this many seats a room is small: everyone sees everything
DEFAULT_TOP: Final = 10
MAX_TOP: Final = 50
MAX_TIME_LIMIT: Final = 4 * 3600
MAX_DELAY: Final = 600
MIN_WINDOW: Final = 600  # a challenge stays open 10 minutes at least
MAX_WINDOW: Final = 7 * 24 * 3600  # and 7 days at most

Boards = Literal["live", "delayed", "after"]
Late = Literal["refuse", "admit"]
Deal = Literal["random", "winnable"]
Assists = Literal["off", "basic", "solver"]
DEALS: Final = ("random", "winnable")
ASSISTS: Final = ("off", "basic", "solver")


@dataclass(frozen=True, slots=True)
class Settings:
    """Everything about a room the host decides. ``code`` is the host's fixed
    deal (secret until the race ends) or ``None`` for a random one, which
    ``deal`` says is any deal (``random``) or one certified winnable
    (``winnable``). ``assists``: no hints (``off``), the engine's hint
    (``basic``), or the solver's status and hints (``solver``); ``hints`` is
    whether there are any (``assists`` is not ``off``).

    ``boards``: spectators see the players' boards ``after`` the race (the
    default), ``live``, or ``delayed`` by ``delay`` seconds. Everyone races
    the same deal, so an opponent's board shows cards still face down on
    one's own: with live or delayed boards a racer watching the room in a
    second tab would learn them. A host chooses that knowingly.

    ``listed`` (``public`` on the wire): the room is listed in the lobby for anyone to join or watch
    (never its code); a room is private by default, found only by its link.
    ``quick`` is set by the server for a quick race's room (public, started
    by itself ``quick`` seconds after its second player arrives)."""

    code: str | None = None
    draw: int = 1
    scoring: str = "N"
    max_players: int = DEFAULT_PLAYERS
    undo: bool = True
    hints: bool = True
    time_limit: int = 0  # seconds; 0 = none
    boards: Boards = "after"  # what spectators see of the players' boards (see below)
    delay: int = 0  # seconds, when boards are "delayed"
    top: int = DEFAULT_TOP  # lines in a big room's shared leaderboard
    late: Late = "refuse"  # a player arriving once the race runs: refused, or admitted with their own clock
    deal: Deal = "random"  # with no fixed code: any deal, or one certified winnable
    assists: Assists = "basic"
    listed: bool = False  # "public": in every lobby's list (docs/protocol.md, "Races to find")
    rated: bool = False  # its results move its players' ratings (race.rating); public rooms only
    quick: int = 0  # a quick race's room: it starts this many seconds after its second player
    window: int = 0  # seconds a challenge stays open (each player on their own clock); 0: a live race
    solo: bool = False
    tournament: str | None = None  # a tournament round's room: the tournament's id
    round: int = 0  # and the round's number
    daily: str | None = None  # a daily deal's room: its UTC day, YYYY-MM-DD (race.daily)
    practice: bool = False  # a daily deal's practice room: played, never ranked (race.daily)
    typed: bool = False  # a tournament round whose code its organizer typed (race.profile.typed_deal)

    @property
    def challenge(self) -> bool:
        """Open for ``window`` seconds, each player on their own clock (see above)."""
        return self.window > 0

    @property
    def big(self) -> bool:
        """More seats than a small room's: the big room's fan-out (see above)."""
        return self.max_players > SMALL_ROOM

    def public(self) -> dict[str, Any]:
        """The settings anyone may see: no code, only whether one was fixed."""
        d = asdict(self)
        d["fixed_code"] = d.pop("code") is not None
        d["public"] = d.pop("listed")
        d["mode"] = f"D{self.draw}{self.scoring}"
        d["big"] = self.big
        return d

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


_KEYS: Final = frozenset(Settings.__dataclass_fields__)
#: set by the server, not by a host
_INTERNAL: Final = frozenset({"solo", "tournament", "round", "quick", "daily", "practice", "typed"})
#: what a host may send: the settings' names, ``public`` for ``listed``
_WIRE: Final = (_KEYS - _INTERNAL - {"listed"}) | {"public"}


def parse_settings(data: dict[str, Any], *, solo: bool = False) -> Settings:
    """Settings from a client's object; unknown keys and bad values are refused."""
    unknown = set(data) - _WIRE
    if unknown:
        raise RaceError(Reason.BAD_SETTINGS, f"unknown setting {sorted(unknown)[0]!r}")
    code = data.get("code")
    draw, scoring = data.get("draw", 1), data.get("scoring", "N")
    if code is not None:
        if not isinstance(code, str):
            raise RaceError(Reason.BAD_CODE, "code must be a deal code string (KL1 or KL2) or null")
        try:
            parsed = DealCode.parse(code)
        except InvalidDealCodeError as exc:
            raise RaceError(Reason.BAD_CODE, str(exc)) from None
        code, draw, scoring = str(parsed), parsed.draw, parsed.scoring
    if type(draw) is not int or draw not in (1, 3):  # not True, not 1.0
        raise RaceError(Reason.BAD_SETTINGS, "draw must be 1 or 3")
    if scoring not in ("N", "V"):
        raise RaceError(Reason.BAD_SETTINGS, "scoring must be 'N' (Normal) or 'V' (Vegas)")
    max_players = _int(data, "max_players", 1 if solo else DEFAULT_PLAYERS, 1, MAX_PLAYERS)
    top = _int(data, "top", DEFAULT_TOP, 1, MAX_TOP)
    late = data.get("late", "refuse")
    if late not in ("refuse", "admit"):
        raise RaceError(Reason.BAD_SETTINGS, "late must be 'refuse' or 'admit'")
    time_limit = _int(data, "time_limit", 0, 0, MAX_TIME_LIMIT)
    delay = _int(data, "delay", 0, 0, MAX_DELAY)
    boards = data.get("boards", "after")
    if boards not in ("live", "delayed", "after"):
        raise RaceError(Reason.BAD_SETTINGS, "boards must be one of live, delayed, after")
    if boards == "delayed" and delay <= 0:
        raise RaceError(Reason.BAD_SETTINGS, "delayed boards need a delay of 1 second or more")
    undo = data.get("undo", True)
    if not isinstance(undo, bool):
        raise RaceError(Reason.BAD_SETTINGS, "undo must be true or false")
    deal = parse_deal(data, fixed=code is not None)
    assists = parse_assists(data, hints_default=True)
    public = data.get("public", False)
    if not isinstance(public, bool):
        raise RaceError(Reason.BAD_SETTINGS, "public must be true or false")
    if public and solo:
        raise RaceError(Reason.BAD_SETTINGS, "a solo game is never public")
    window = 0 if solo else parse_window(data, boards=boards, late=late)
    if public and window:
        raise RaceError(Reason.BAD_SETTINGS, "a challenge is not listed among the races to find: "
                                             "share its link")
    rated = parse_rated(data, public=public, fixed=code is not None)
    if rated and max_players > SMALL_ROOM:
        raise RaceError(Reason.BAD_SETTINGS, f"a rated race has at most {SMALL_ROOM} players")
    return Settings(code=code, draw=draw, scoring=scoring, max_players=max_players,
                    undo=undo, hints=assists != "off", time_limit=time_limit,
                    boards=boards, delay=delay if boards == "delayed" else 0, top=top, late=late,
                    deal=deal, assists=assists, listed=public, window=window, solo=solo,
                    rated=rated)


def parse_rated(data: dict[str, Any], *, public: bool, fixed: bool) -> bool:
    """``rated``: a public live race only (a rating is earned against
    strangers on a deal nobody chose: not a challenge, nor a typed code);
    its players need a player key (checked as they take a seat)."""
    rated = data.get("rated", False)
    if not isinstance(rated, bool):
        raise RaceError(Reason.BAD_SETTINGS, "rated must be true or false")
    if rated and not public:
        raise RaceError(Reason.BAD_SETTINGS, "a rated race is a public one: set public too")
    if rated and fixed:
        raise RaceError(Reason.BAD_SETTINGS, "a rated race is dealt by the server: no code")
    return rated


def parse_window(data: dict[str, Any], *, boards: str, late: str) -> int:
    """``window``: 0 (a live race) or how long a challenge stays open. A
    challenge's spectators see the boards once it closes (everyone plays the
    same deal, at different times: a board seen early is a deal seen early),
    and it has no late arrivals (each player starts when they choose)."""
    window = data.get("window", 0)
    if (not isinstance(window, int) or isinstance(window, bool)
            or (window and not MIN_WINDOW <= window <= MAX_WINDOW)):
        raise RaceError(Reason.BAD_SETTINGS, f"window must be 0 (a live race) or {MIN_WINDOW} "
                                             f"to {MAX_WINDOW} seconds (10 min to 7 days)")
    if window and boards != "after":
        raise RaceError(Reason.BAD_SETTINGS, "a challenge shows the boards after it closes "
                                             "(boards 'after'): its players play at different "
                                             "times, and a board seen early is a deal seen early")
    if window and late != "refuse":
        raise RaceError(Reason.BAD_SETTINGS, "a challenge has no late arrivals: each player "
                                             "starts their own game when they choose")
    return window


def parse_deal(data: dict[str, Any], *, fixed: bool) -> Deal:
    """``deal``: ``random`` (the default) or ``winnable``; not beside fixed codes."""
    deal = data.get("deal", "random")
    if deal not in DEALS:
        raise RaceError(Reason.BAD_SETTINGS, "deal must be 'random' or 'winnable'")
    if deal == "winnable" and fixed:
        raise RaceError(Reason.BAD_SETTINGS, "a fixed code and a winnable deal exclude each "
                                             "other: give one or the other")
    return deal  # type: ignore[no-any-return]


def parse_assists(data: dict[str, Any], *, hints_default: bool) -> Assists:
    """``assists`` (``off``, ``basic``, ``solver``), or from the older ``hints``
    flag (true: ``basic``); both given must agree."""
    hints = data.get("hints")
    if "hints" in data and not isinstance(hints, bool):
        raise RaceError(Reason.BAD_SETTINGS, "hints must be true or false")
    if "assists" in data and data["assists"] not in ASSISTS:
        raise RaceError(Reason.BAD_SETTINGS, "assists must be one of off, basic, solver")
    assists = data.get("assists")
    if assists is None:
        return "basic" if (hints_default if hints is None else hints) else "off"
    if assists not in ASSISTS:
        raise RaceError(Reason.BAD_SETTINGS, "assists must be one of off, basic, solver")
    if hints is not None and hints != (assists != "off"):
        raise RaceError(Reason.BAD_SETTINGS, f"hints {str(hints).lower()} contradicts "
                                             f"assists {assists!r}")
    return assists  # type: ignore[no-any-return]


def _int(data: dict[str, Any], key: str, default: int, low: int, high: int) -> int:
    value = data.get(key, default)
    if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
        raise RaceError(Reason.BAD_SETTINGS, f"{key} must be a whole number from {low} to {high}")
    return value


def settings_from_dict(data: dict[str, Any]) -> Settings:
    """Settings as stored (already valid; rooms stored before a setting
    existed get its default, ``assists`` from their ``hints``)."""
    if "assists" not in data:
        data = {**data, "assists": "basic" if data.get("hints", True) else "off"}
    return Settings(**data)
