"""Room settings: what the host chooses, validated once at creation.

>>> s = parse_settings({"code": "kl1-d3v-aaaaaag", "max_players": 4})
>>> s.draw, s.scoring, s.max_players, s.boards
(3, 'V', 4, 'live')
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

Boards = Literal["live", "delayed", "after"]
Late = Literal["refuse", "admit"]


@dataclass(frozen=True, slots=True)
class Settings:
    """Everything about a room the host decides. ``code`` is the host's fixed
    deal (secret until the race ends) or ``None`` for a random one."""

    code: str | None = None
    draw: int = 1
    scoring: str = "N"
    max_players: int = DEFAULT_PLAYERS
    undo: bool = True
    hints: bool = True
    time_limit: int = 0  # seconds; 0 = none
    boards: Boards = "live"  # what spectators see of the players' boards
    delay: int = 0  # seconds, when boards are "delayed"
    top: int = DEFAULT_TOP  # lines in a big room's shared leaderboard
    late: Late = "refuse"  # a player arriving once the race runs: refused, or admitted with their own clock
    solo: bool = False
    tournament: str | None = None  # a tournament round's room: the tournament's id
    round: int = 0  # and the round's number

    @property
    def big(self) -> bool:
        """More seats than a small room's: the big room's fan-out (see above)."""
        return self.max_players > SMALL_ROOM

    def public(self) -> dict[str, Any]:
        """The settings anyone may see: no code, only whether one was fixed."""
        d = asdict(self)
        d["fixed_code"] = d.pop("code") is not None
        d["mode"] = f"D{self.draw}{self.scoring}"
        d["big"] = self.big
        return d

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


_KEYS: Final = frozenset(Settings.__dataclass_fields__)
_INTERNAL: Final = frozenset({"solo", "tournament", "round"})  # set by the server, not by a host


def parse_settings(data: dict[str, Any], *, solo: bool = False) -> Settings:
    """Settings from a client's object; unknown keys and bad values are refused."""
    unknown = set(data) - (_KEYS - _INTERNAL)
    if unknown:
        raise RaceError(Reason.BAD_SETTINGS, f"unknown setting {sorted(unknown)[0]!r}")
    code = data.get("code")
    draw, scoring = data.get("draw", 1), data.get("scoring", "N")
    if code is not None:
        if not isinstance(code, str):
            raise RaceError(Reason.BAD_CODE, "code must be a KL1 code string or null")
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
    boards = data.get("boards", "live")
    if boards not in ("live", "delayed", "after"):
        raise RaceError(Reason.BAD_SETTINGS, "boards must be one of live, delayed, after")
    if boards == "delayed" and delay <= 0:
        raise RaceError(Reason.BAD_SETTINGS, "delayed boards need a delay of 1 second or more")
    flags = {}
    for key in ("undo", "hints"):
        value = data.get(key, True)
        if not isinstance(value, bool):
            raise RaceError(Reason.BAD_SETTINGS, f"{key} must be true or false")
        flags[key] = value
    return Settings(code=code, draw=draw, scoring=scoring, max_players=max_players,
                    undo=flags["undo"], hints=flags["hints"], time_limit=time_limit,
                    boards=boards, delay=delay if boards == "delayed" else 0, top=top, late=late,
                    solo=solo)


def _int(data: dict[str, Any], key: str, default: int, low: int, high: int) -> int:
    value = data.get(key, default)
    if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
        raise RaceError(Reason.BAD_SETTINGS, f"{key} must be a whole number from {low} to {high}")
    return value


def settings_from_dict(data: dict[str, Any]) -> Settings:
    """Settings as stored (already valid; rooms stored before a setting
    existed get its default)."""
    return Settings(**data)
