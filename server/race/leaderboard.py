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

if TYPE_CHECKING:
    from ..klondike import Game

Entry = dict[str, Any]

PLAYING: Final = frozenset({"lobby", "racing"})
DONE: Final = frozenset({"finished", "resigned", "left"})


def new_entry(seat: int, nickname: str, status: str, now: int, *, normal: bool) -> Entry:
    """A fresh line: before the first move every figure is the start's."""
    entry: Entry = {
        "seat": seat, "nickname": nickname, "status": status, "foundation": 0,
        "turned_up": 0, "vegas": -52, "moves": 0, "recycles": 0, "finish_ms": None, "at": now,
    }
    if normal:
        entry["points"] = 0
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
        new["finish_ms"] = max(0, now - start_at)
    return new


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
