"""Leaderboard entries and their order.

An entry is one seat's line, a JSON-ready dict::

    {"seat": 2, "nickname": "bob", "status": "racing", "foundation": 12,
     "turned_up": 9, "vegas": 8, "points": 185, "moves": 40, "recycles": 0,
     "finish_ms": None, "at": 1764430000123}

``status`` is lobby, racing, finished, resigned or left, and in a race's
results unfinished (still playing when time ran out); a seat whose player has
no live connection shows as ``disconnected`` (see :func:`shown`).
``points`` is kept only when the deal's scoring is Normal. ``at`` is when the
line last changed: ties go to who got there first.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any, Final

import orjson

if TYPE_CHECKING:
    from ..klondike import Game

Entry = dict[str, Any]

PLAYING: Final = frozenset({"lobby", "racing"})
DONE: Final = frozenset({"finished", "resigned", "left"})


def new_entry(seat: int, nickname: str, status: str, now: int, *, normal: bool,
              started: int | None = None) -> Entry:
    """A fresh line: before the first move every figure is the start's.
    ``started`` is when a player admitted into a running race started their
    own clock (they are ``late``)."""
    entry: Entry = {
        "seat": seat, "nickname": nickname, "status": status, "foundation": 0,
        "turned_up": 0, "vegas": -52, "moves": 0, "recycles": 0, "finish_ms": None, "at": now,
    }
    if normal:
        entry["points"] = 0
    if started is not None:
        entry["late"] = True
        entry["started"] = started
    return entry


def update_from_game(entry: Entry, game: Game, now: int, start_at: int) -> Entry:
    """The line after a command on ``game``; finishing records the race time."""
    new = dict(entry)
    new["foundation"] = game.foundation_cards
    new["turned_up"] = game.turned_up
    new["vegas"] = game.vegas
    new["moves"] = game.moves
    new["recycles"] = game.recycles
    if "points" in new:
        new["points"] = game.points
    new["at"] = now
    if game.is_won and new["status"] == "racing":
        new["status"] = "finished"
        new["finish_ms"] = max(0, now - int(new.get("started", start_at)))
    return new


#: A seat's member in a room's ranking sorted set: fixed width, so that
#: Redis's tie-break (members in byte order) is the lower seat first.
SEAT_DIGITS: Final = 5
_FINISHED_BELOW: Final = 2**52  # every finished score is below, every other at or above
_AT_UNIT_MS: Final = 10
_AT_UNITS: Final = 2**23  # 10 ms units: 23.3 hours after the race's start
_MOVES: Final = 2**14
_FOUNDATION: Final = 64
_VEGAS_TOP: Final = 208


def seat_member(seat: int) -> str:
    """The seat's member in the ranking sorted set.

    >>> seat_member(42)
    '00042'
    """
    return f"{seat:0{SEAT_DIGITS}d}"


def rank_score(entry: Entry, since: int, at: int | None = None) -> int:
    """The entry's place in the leaderboard's order as one number, lower
    first, for Redis's sorted set: the order of :func:`sort_key`, with the
    time the line last changed (``at``, or the entry's own) counted in 10 ms
    steps from ``since`` (the race's start). Lines equal to the step are ranked by
    seat, like Redis ranks equal scores (see :func:`seat_member`). Every
    score is a whole number below 2^53, so a double holds it exactly.

    >>> fast = {"status": "finished", "finish_ms": 90_000, "at": 0}
    >>> slow = {"status": "finished", "finish_ms": 95_000, "at": 0}
    >>> rich = {"status": "racing", "vegas": 8, "foundation": 12, "moves": 40, "at": 5_000}
    >>> poor = {"status": "resigned", "vegas": -2, "foundation": 10, "moves": 9, "at": 1_000}
    >>> lines = {"slow": slow, "poor": poor, "rich": rich, "fast": fast}
    >>> sorted(lines, key=lambda name: rank_score(lines[name], 0))
    ['fast', 'slow', 'rich', 'poor']
    >>> rank_score(fast, 0) < 2**52 <= rank_score(rich, 0) < 2**53
    True
    """
    if entry["status"] == "finished":
        return min(int(entry["finish_ms"]), _FINISHED_BELOW - 1)
    key = _VEGAS_TOP - int(entry["vegas"])
    key = key * _FOUNDATION + 52 - int(entry["foundation"])
    key = key * _MOVES + min(int(entry["moves"]), _MOVES - 1)
    changed = int(entry["at"] if at is None else at)
    key = key * _AT_UNITS + min(max(0, (changed - since) // _AT_UNIT_MS), _AT_UNITS - 1)
    return _FINISHED_BELOW + key


#: what a line of a big room's leaderboard frames carries (docs/protocol.md)
LINE_FIELDS: Final = ("seat", "nickname", "status", "foundation", "vegas", "points", "moves",
                      "finish_ms", "late", "started")


def line_of(entry: Entry) -> Entry:
    """The entry as a big room stores and sends it: only what a leaderboard
    line shows (its order is the ranking sorted set's).

    >>> sorted(line_of(new_entry(3, "ann", "racing", 1000, normal=False)))
    ['finish_ms', 'foundation', 'moves', 'nickname', 'seat', 'status', 'vegas']
    """
    return {k: entry[k] for k in LINE_FIELDS if k in entry}


def line_tail(line: Entry) -> bytes:
    """A line's JSON after its seat and nickname, for the store's scripts
    that build every seat's line (``'{"seat":' .. seat .. ',"nickname":' ..
    name .. tail``).

    >>> line_tail(line_of(new_entry(0, "", "lobby", 5, normal=True)))
    b',"status":"lobby","foundation":0,"vegas":-52,"points":0,"moves":0,"finish_ms":null}'
    """
    rest = {k: v for k, v in line.items() if k not in ("seat", "nickname")}
    return b"," + orjson.dumps(rest)[1:]


def sort_key(entry: Entry) -> tuple[int, int, int, int, int, int, int]:
    """Finished players by time; then Vegas dollars; then cards on foundations;
    then fewer moves; then who got there first; then the seat."""
    if entry["status"] == "finished":
        return (0, entry["finish_ms"], 0, 0, 0, entry["at"], entry["seat"])
    return (1, 0, -entry["vegas"], -entry["foundation"], entry["moves"], entry["at"], entry["seat"])


def ranked(entries: Iterable[Entry], online: Mapping[int, bool] | None = None) -> list[Entry]:
    """Entries in leaderboard order with ``rank`` (1..n) and the status shown."""
    out = []
    for rank, entry in enumerate(sorted(entries, key=sort_key), start=1):
        line = dict(entry)
        line["rank"] = rank
        if online is not None:
            line["status"] = shown(entry, online.get(entry["seat"], False))
        out.append(line)
    return out


def shown(entry: Entry, online: bool) -> str:
    """The status to show: a playing seat without a connection is disconnected."""
    if entry["status"] in PLAYING and not online:
        return "disconnected"
    return str(entry["status"])
