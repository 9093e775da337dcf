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

from typing import TYPE_CHECKING, Any, Final

import orjson

if TYPE_CHECKING:
    from ..klondike import Game

Entry = dict[str, Any]

PLAYING: Final = frozenset({"lobby", "racing"})
#: a game over: its line is final
OVER: Final = frozenset({"finished", "resigned", "left", "unfinished"})


def new_entry(seat: int, nickname: str, status: str, now: int, *, normal: bool,
              started: int | None = None, late: bool = True) -> Entry:
    """A fresh line: before the first move every figure is the start's.
    ``started`` is when a player's own clock started: admitted into a running
    race (they are ``late``), or beginning their game of a challenge
    (``late=False``: every player of a challenge is on their own clock)."""
    entry: Entry = {
        "seat": seat, "nickname": nickname, "status": status, "foundation": 0,
        "turned_up": 0, "vegas": -52, "moves": 0, "recycles": 0, "finish_ms": None, "at": now,
    }
    if normal:
        entry["points"] = 0
    if started is not None:
        if late:
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


#: what a line of a big room's leaderboard frames carries (docs/protocol.md)
LINE_FIELDS: Final = ("seat", "nickname", "status", "foundation", "vegas", "points", "moves",
                      "finish_ms", "late", "started")


def line_of(entry: Entry) -> Entry:
    """The entry as a big room stores and sends it: only what a leaderboard
    line shows (its order is the ranking sorted set's), and once its game is
    over when it ended (``at``: a player's history says when they played).

    >>> sorted(line_of(new_entry(3, "ann", "racing", 1000, normal=False)))
    ['finish_ms', 'foundation', 'moves', 'nickname', 'seat', 'status', 'vegas']
    >>> line_of({**new_entry(3, "ann", "resigned", 1000, normal=False)})["at"]
    1000
    """
    line: Entry = {k: entry[k] for k in LINE_FIELDS if k in entry}
    if entry["status"] in OVER and "at" in entry:
        line["at"] = entry["at"]
    return line


def line_tail(line: Entry) -> bytes:
    """A line's JSON after its seat and nickname, for the store's scripts
    that build every seat's line (``'{"seat":' .. seat .. ',"nickname":' ..
    name .. tail``).

    >>> line_tail(line_of(new_entry(0, "", "lobby", 5, normal=True)))
    b',"status":"lobby","foundation":0,"vegas":-52,"points":0,"moves":0,"finish_ms":null}'
    """
    rest = {k: v for k, v in line.items() if k not in ("seat", "nickname")}
    return b"," + orjson.dumps(rest)[1:]


#: a line's fields that say nothing of how a game goes: all a game not yet over
#: shows of itself while its challenge is open (docs/protocol.md, "What each
#: client may see")
UNSEEN_KEEPS: Final = ("seat", "nickname", "status", "late", "started", "rank")


def seen_line(line: Entry) -> Entry:
    """A line as anyone but its player sees it while its challenge is open:
    a game not over yet shows its status and no figure (its figures, even
    sampled, would say what its draws turned up to those yet to play);
    a game over shows its final figures.

    >>> seen_line({"seat": 1, "nickname": "ann", "status": "racing", "foundation": 3,
    ...            "vegas": -37, "moves": 9, "finish_ms": None, "at": 5})
    {'seat': 1, 'nickname': 'ann', 'status': 'racing'}
    >>> seen_line({"seat": 1, "status": "finished", "foundation": 52})["foundation"]
    52
    """
    if line["status"] in OVER:
        return line
    return {k: line[k] for k in UNSEEN_KEEPS if k in line}


def public_line(line: Entry) -> Entry:
    """A line for anyone over HTTP: without the times that say when its
    player played (``started``, ``at``).

    >>> public_line({"seat": 1, "status": "finished", "started": 5, "at": 9, "finish_ms": 4})
    {'seat': 1, 'status': 'finished', 'finish_ms': 4}
    """
    return {k: v for k, v in line.items() if k not in ("started", "at")}


def shown(entry: Entry, online: bool) -> str:
    """The status to show: a playing seat without a connection is disconnected."""
    if entry["status"] in PLAYING and not online:
        return "disconnected"
    return str(entry["status"])
