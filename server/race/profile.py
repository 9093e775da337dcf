"""A player's profile as data: the result of one game as their history keeps
it, the daily streak's days, and what anyone may see of a profile. Pure.

A player is a key, not an account (docs/protocol.md, "Players"): the server
keeps, under the player's public id, a nickname, their results (newest
first, the last :data:`HISTORY_CAP`) and totals over every result ever
recorded (games, wins, games finished, the best time of each mode, the
daily streak).

A result (:class:`GameResult`) names its game by a ``ref`` that is unique
for the player: recording the same ``ref`` again replaces the entry (a
challenge's place once its window has closed, a code once it is public)
instead of counting a second game. Its ``code`` is ``None`` until the deal
is public: a race's code is secret until the race ends, so a result is
recorded with its code only once it may be seen.

>>> r = GameResult(kind="race", ref="V62WEAFY/1/0", at=0, mode="D1N", nickname="ann",
...                status="finished", place=1, of=3, time_ms=263000, vegas=-12, points=85,
...                code="KL1-D1N-AAAAAAG", room="V62WEAFY", race=1)
>>> r.won, r.finished
(True, True)
>>> r.to_json()[:28]
b'{"ref":"V62WEAFY/1/0","kind"'
>>> day_number("1970-01-02"), day_text(1), day_of(86_400_000 * 3 + 5)
(1, '1970-01-02', '1970-01-04')
>>> current_streak({"streak": "4", "streak_day": "10"}, today=11)
4
>>> current_streak({"streak": "4", "streak_day": "10"}, today=12)
0
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any, Final, Literal

import orjson

from ..klondike import DealCode
from .leaderboard import OVER, Entry
from .room import Room
from .seating import final_line
from .settings import Settings

Kind = Literal["race", "solo", "tournament", "challenge", "daily"]
KINDS: Final = ("race", "solo", "tournament", "challenge", "daily")
MODES: Final = ("D1N", "D3N", "D1V", "D3V")
#: results a player's history keeps (the oldest go first); the totals count every one
HISTORY_CAP: Final = 100
#: a history page: at most this many results
MAX_PAGE: Final = 50
#: what is shown in place of a player who asked to be forgotten
FORMER_PLAYER: Final = "a former player"
#: a ref: what the store's scripts search for, so a plain string of a few characters
_REF: Final = re.compile(r"[A-Za-z0-9/_:.\-]{1,80}")
_DAY: Final = re.compile(r"\d{4}-\d{2}-\d{2}")
_EPOCH: Final = dt.date(1970, 1, 1)


@dataclass(frozen=True, slots=True, kw_only=True)
class GameResult:
    """One game as a player's history keeps it (and as ``p_history`` sends it).

    ``kind``: ``race``, ``solo``, ``tournament`` (a round), ``challenge`` or
    ``daily``; ``ref``: unique for the player (a room's race and seat:
    ``ROOM/race/seat``; a daily attempt: ``daily/YYYY-MM-DD/MODE``); ``at``:
    when the game ended (server ms); ``place`` of ``of``: the player's rank
    in the game's field (``None`` while unknown); ``status``: the line's
    (``finished``, ``resigned``, ``left``, ``unfinished``); ``time_ms``: the
    finish time on the player's own clock; ``vegas`` the dollars, ``points``
    the Normal points (``None`` in a Vegas game); ``code``: the deal, only
    once it is public. Where the game was: ``room`` and ``race``,
    ``tournament`` and ``round``, ``day`` (a daily deal's, ``YYYY-MM-DD``).
    ``typed``: a deal the server did not draw (a code its host typed) or a
    solo game: nobody raced on a secret deal, so its win and its time do not
    count on the public profile (kept, not sent). ``so_far``: a place that
    may still change (a daily attempt recorded when its game ended, before
    the day's close replaces it): never a win yet.
    """

    ref: str
    kind: Kind
    at: int
    mode: str
    nickname: str
    status: str
    place: int | None = None
    of: int | None = None
    time_ms: int | None = None
    vegas: int = -52
    points: int | None = None
    code: str | None = None
    room: str | None = None
    race: int | None = None
    tournament: str | None = None
    round: int | None = None
    day: str | None = None
    typed: bool = False
    so_far: bool = False

    def __post_init__(self) -> None:
        if not _REF.fullmatch(self.ref):
            raise ValueError(f"a result's ref is 1 to 80 of [A-Za-z0-9/_:.-], not {self.ref!r}")
        if self.kind not in KINDS:
            raise ValueError(f"a result's kind is one of {', '.join(KINDS)}, not {self.kind!r}")
        if self.mode not in MODES:
            raise ValueError(f"a result's mode is one of {', '.join(MODES)}, not {self.mode!r}")
        if (self.kind == "daily") != (self.day is not None):
            raise ValueError("a daily result has its day, and only a daily result has one")
        if self.day is not None:
            day_number(self.day)

    @property
    def finished(self) -> bool:
        """The game was played to the end: every card home."""
        return self.status == "finished"

    @property
    def won(self) -> bool:
        """First place in a field of two or more, once the place is settled."""
        return self.place == 1 and (self.of or 0) >= 2 and not self.so_far

    def to_dict(self) -> dict[str, Any]:
        """As stored and sent: ``ref`` first, ``finished`` and ``won`` beside
        the fields, and no field that is ``None`` but ``code``, ``place``,
        ``of`` and ``time_ms`` (a client shows those as unknown)."""
        d = asdict(self)
        out = {k: d[k] for k in ("ref", "kind", "at", "mode", "nickname", "status", "place", "of",
                                 "time_ms", "vegas", "code")}
        out["finished"], out["won"] = self.finished, self.won
        if self.so_far:
            out["so_far"] = True
        for k in ("points", "room", "race", "tournament", "round", "day"):
            if d[k] is not None:
                out[k] = d[k]
        return out

    def to_json(self) -> bytes:
        return orjson.dumps(self.to_dict())


# ---------------------------------------------------------------------- days


def day_number(day: str) -> int:
    """Days since 1970-01-01 of a ``YYYY-MM-DD`` day (UTC); ``ValueError`` if it is none."""
    if not _DAY.fullmatch(day):
        raise ValueError(f"a day is YYYY-MM-DD, not {day!r}")
    return (dt.date.fromisoformat(day) - _EPOCH).days


def day_text(number: int) -> str:
    """The ``YYYY-MM-DD`` of a day number."""
    return (_EPOCH + dt.timedelta(days=number)).isoformat()


def day_of(ms: int) -> str:
    """The UTC day of a server time (ms since the epoch)."""
    return day_text(ms // 86_400_000)


def current_streak(fields: Mapping[str, Any], *, today: int) -> int:
    """The daily streak as it stands ``today`` (a day number): the days in a
    row with a finished daily attempt, ending today or yesterday (a streak
    whose last day is older is broken: 0)."""
    last = int(fields.get("streak_day") or -1)
    if last < today - 1:
        return 0
    return int(fields.get("streak") or 0)


# ---------------------------------------------------------------------- what anyone may see


def public_profile(player_id: str, fields: Mapping[str, Any], *, today: int) -> dict[str, Any]:
    """What anyone may know of a player (``GET /api/players/{id}``): their
    nickname, how many games they played, won (first of two or more) and
    finished, the best finish time of each mode played to the end (wins and
    best times only on deals the server drew: see ``GameResult.typed``), and the
    daily streak. Nothing else: no history, no key, no time they played."""
    best = {m: int(fields[f"best:{m}"]) for m in MODES if fields.get(f"best:{m}")}
    return {
        "id": player_id,
        "nickname": str(fields.get("nick") or ""),
        "games": int(fields.get("games") or 0),
        "wins": int(fields.get("wins") or 0),
        "finished": int(fields.get("finished") or 0),
        "best": best,
        "streak": {"days": current_streak(fields, today=today),
                   "best": int(fields.get("streak_best") or 0)},
    }


# ---------------------------------------------------------------------- a room's results


def room_kind(settings: Settings) -> Kind:
    """What a room's races are, as a history names them.

    >>> room_kind(Settings()), room_kind(Settings(window=3600)), room_kind(Settings(solo=True))
    ('race', 'challenge', 'solo')
    >>> room_kind(Settings(window=86400, daily="2026-12-02"))
    'daily'
    """
    if settings.tournament is not None:
        return "tournament"
    if settings.daily is not None and not settings.practice:
        return "daily"
    if settings.challenge:
        return "challenge"
    return "solo" if settings.solo else "race"


def typed_deal(room: Room) -> bool:
    """Whether the race's deal was not drawn by the server for it: a code its
    host typed (not a rematch's new deal), a tournament round's code its
    organizer typed, a daily deal's practice, or a solo game (nobody to
    race). A tournament's drawn rounds (``rounds``) count as drawn.

    >>> from .settings import Settings
    >>> code = "KL1-D1N-AAAAAAG"
    >>> [typed_deal(Room.open("R", s, code, now=0)) for s in (
    ...     Settings(), Settings(code=code), Settings(solo=True),
    ...     Settings(code=code, tournament="T", round=1),
    ...     Settings(code=code, tournament="T", round=1, typed=True))]
    [False, True, True, False, True]
    """
    s = room.settings
    host_code = s.code is not None and room.code == s.code and s.tournament is None
    return host_code or s.typed or s.solo or s.practice


def room_result(room: Room, line: Entry, rank: int, of: int) -> GameResult:
    """A seat's result in an ended race (its line in the results and its
    rank in a field of ``of``): the race's code is public by then. It ended
    with the race, or (a challenge's game, on its own clock) when it was over."""
    ended = room.ended_at or 0
    if room.settings.challenge and line["status"] in OVER and line.get("at"):
        ended = min(int(line["at"]), ended or int(line["at"]))
    return _result(room, line, rank, of, at=ended, code=room.code)


def own_game_result(room: Room, line: Entry, rank: int | None, of: int | None, *,
                    now: int) -> GameResult:
    """A challenge seat's result once its own game is over (``now``, unless
    its line says when), before the window closes: its place so far (no
    win: others may still pass it), no code (a secret until the close). The
    same ``ref`` as :func:`room_result`'s, which replaces it then.

    >>> from server.race.room import Room
    >>> room = Room(id="R6QNGX7U", code="KL2-D1N-AAAAAAAAAAAAG", created=1,
    ...             settings=Settings(window=86400, daily="2026-12-02"))
    >>> line = {"seat": 0, "nickname": "ann", "status": "finished", "finish_ms": 95000, "at": 7}
    >>> r = own_game_result(room, line, 1, 2, now=9)
    >>> r.place, r.of, r.so_far, r.won, r.to_dict()["so_far"]
    (1, 2, True, False, True)
    >>> room_result(room, line, 1, 2).won
    True
    """
    return _result(room, line, rank, of, at=int(line.get("at") or now), code=None, so_far=True)


def _result(room: Room, line: Entry, rank: int | None, of: int | None, *, at: int,
            code: str | None, so_far: bool = False) -> GameResult:
    s = room.settings
    seat = int(line["seat"])
    deal = DealCode.parse(room.code)
    return GameResult(
        ref=f"{room.id}/{room.race}/{seat}", kind=room_kind(s), at=at,
        mode=f"D{deal.draw}{deal.scoring}", nickname=str(line["nickname"]),
        status=final_line(line)["status"], place=rank, of=of, time_ms=line.get("finish_ms"),
        vegas=int(line.get("vegas", -52)), points=line.get("points"), code=code,
        room=room.id, race=room.race, tournament=s.tournament, round=s.round or None,
        day=None if s.practice else s.daily, typed=typed_deal(room), so_far=so_far)
