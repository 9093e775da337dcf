"""The two orders of Klondike Race, each written once: a race's leaderboard
and a tournament's standings.

Each order is a tuple of small whole numbers, lower first (:func:`rank_fields`,
:func:`standing_fields`), followed by the line's number (its seat, its
player) to break ties. Sorting in Python uses that tuple (:func:`sort_key`,
:func:`standing_key`); Redis's sorted sets use the same fields packed into
one whole number below 2^53 (:func:`rank_score`, :func:`standing_score`:
a double holds it exactly), and break ties by the member, the number on
five digits (:func:`seat_member`: byte order is number order). Every field
is clamped into the span the packing gives it, so the two always agree
(tests/race/test_ranking.py checks it on random lines).

The leaderboard: finished players by time, then whoever got there first;
then Vegas dollars; then cards on foundations; then fewer moves; then who
got there first (the time the line last changed, in 10 ms steps from the
race's start); then the seat. A line still in the lobby (a challenge's
player who has not begun) comes after every line that raced. A line that
shows no figures (a challenge's game not over yet, as :func:`.seen_line`
shows it) comes after every line that does, and before the lobby's, by
seat: its place says nothing of how its game goes.

**Ties in a tournament.** A tournament's round ranks its lines as its
standings rank one round (``registration=True``, :func:`registration_ties`):
finished players by time, then Vegas dollars, then cards on foundations,
then the seat, which is the player's number: registration order. Fewer
moves and who got there first break no tie there, because the standings,
counted over rounds, cannot carry them: two players who tie after a round
are then in the same order on the round's leaderboard and in the standings
(tests/race/test_ranking.py checks it on random rounds).

The standings: more dollars, more cards, a won round (a player without
one has no finishing time: behind any who has one), less time over the won
rounds, then registration (the player number).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Final

from .leaderboard import Entry, shown
from .settings import Settings
from .tournament_settings import MAX_ROUNDS

#: A member of a ranking sorted set: fixed width, so that Redis's tie-break
#: (members in byte order) is the lower number first.
SEAT_DIGITS: Final = 5

# ---------------------------------------------------------------------- the leaderboard

_AT_UNIT_MS: Final = 10
_AT_UNITS: Final = 2**23  # 10 ms units: 23.3 hours after the race's start
_FINISH_SPAN: Final = 2**28  # ms: 74 hours, beyond any race (24 hours at most)
_VEGAS_TOP: Final = 208
_VEGAS_SPAN: Final = 261  # -52 .. 208
_FOUNDATION: Final = 64
_MOVES: Final = 2**14
#: every finished line's score is below, every other's at or above
_FINISHED_BELOW: Final = _FINISH_SPAN * _AT_UNITS
#: every lobby line's score is at or above (every raced line's is below: under 2^52.1)
_LOBBY_FROM: Final = 3 * 2**51
#: the score of every line that shows no figures (above any line's that does: under 2^52.1)
_UNSEEN_AT: Final = 5 * 2**50
#: a ranking's lines that raced (a challenge's: begun) score below this; those finished
#: below :data:`FINISHED_BELOW` (so a field is counted with two ``ZCOUNT``)
RACED_BELOW: Final = _LOBBY_FROM
FINISHED_BELOW: Final = _FINISHED_BELOW


def _clamp(value: int, span: int) -> int:
    return min(max(0, value), span - 1)


def _changed(entry: Entry, since: int, at: int | None) -> int:
    """When the line last changed, in 10 ms steps from ``since``."""
    when = entry.get("at", since) if at is None else at
    return _clamp((int(when) - since) // _AT_UNIT_MS, _AT_UNITS)


def registration_ties(settings: Settings) -> bool:
    """Whether a room with these settings breaks ties of equal time,
    dollars and cards by registration (a tournament's round: see the
    module's docstring), rather than by fewer moves and who got there first."""
    return settings.tournament is not None


def rank_fields(entry: Entry, since: int, at: int | None = None, *,
                registration: bool = False) -> tuple[int, int, int, int, int]:
    """The line's place in the leaderboard's order, without its seat: the
    time the line last changed is ``at`` (or the entry's own), counted in
    10 ms steps from ``since`` (the race's start). With ``registration``
    (a tournament's round), lines of equal time, dollars and cards tie, for
    the seat to break."""
    if entry["status"] == "lobby":
        return (3, 0, 0, 0, _changed(entry, since, at))
    changed = 0 if registration else _changed(entry, since, at)
    if entry["status"] == "finished":
        return (0, _clamp(int(entry["finish_ms"]), _FINISH_SPAN), 0, 0, changed)
    if "vegas" not in entry:
        return (2, 0, 0, 0, 0)
    moves = 0 if registration else _clamp(int(entry["moves"]), _MOVES)
    return (1, _clamp(_VEGAS_TOP - int(entry["vegas"]), _VEGAS_SPAN),
            _clamp(52 - int(entry["foundation"]), _FOUNDATION), moves, changed)


def sort_key(entry: Entry, since: int = 0, *,
             registration: bool = False) -> tuple[int, int, int, int, int, int]:
    """The leaderboard's order for Python's ``sorted``: :func:`rank_fields`
    then the seat."""
    return (*rank_fields(entry, since, registration=registration), int(entry["seat"]))


def rank_score(entry: Entry, since: int, at: int | None = None, *,
               registration: bool = False) -> int:
    """The line's place as one number, lower first, for Redis's sorted set:
    :func:`rank_fields` packed (the seat is the member's, :func:`seat_member`).

    >>> fast = {"status": "finished", "finish_ms": 90_000, "at": 0}
    >>> slow = {"status": "finished", "finish_ms": 95_000, "at": 0}
    >>> rich = {"status": "racing", "vegas": 8, "foundation": 12, "moves": 40, "at": 5_000}
    >>> poor = {"status": "resigned", "vegas": -2, "foundation": 10, "moves": 9, "at": 1_000}
    >>> lines = {"slow": slow, "poor": poor, "rich": rich, "fast": fast}
    >>> sorted(lines, key=lambda name: rank_score(lines[name], 0))
    ['fast', 'slow', 'rich', 'poor']
    >>> rank_score(fast, 0) < 2**51 <= rank_score(rich, 0) < 3 * 2**51
    True
    >>> rank_score({"status": "lobby", "at": 0}, 0) == 3 * 2**51
    True
    >>> rank_score(rich, 0) < rank_score({"status": "racing"}, 0) < 3 * 2**51
    True
    """
    tier, a, b, c, changed = rank_fields(entry, since, at, registration=registration)
    if tier == 0:
        return a * _AT_UNITS + changed
    if tier == 3:
        return _LOBBY_FROM + changed
    if tier == 2:
        return _UNSEEN_AT
    return _FINISHED_BELOW + ((a * _FOUNDATION + b) * _MOVES + c) * _AT_UNITS + changed


def seat_member(seat: int) -> str:
    """The seat's (or player's) member in a ranking sorted set.

    >>> seat_member(42)
    '00042'
    """
    return f"{seat:0{SEAT_DIGITS}d}"


def ranked(entries: Iterable[Entry], online: Mapping[int, bool] | None = None, *,
           since: int = 0, registration: bool = False) -> list[Entry]:
    """Entries in leaderboard order (``since``: the race's start;
    ``registration``: a tournament's round) with ``rank`` (1..n) and, given
    who is ``online``, the status shown."""
    out = []
    for rank, entry in enumerate(sorted(
            entries, key=lambda e: sort_key(e, since, registration=registration)), start=1):
        line = dict(entry)
        line["rank"] = rank
        if online is not None:
            line["status"] = shown(entry, online.get(entry["seat"], False))
        out.append(line)
    return out


# ---------------------------------------------------------------------- the standings

#: The bounds :func:`standing_score` is exact within: what ``MAX_ROUNDS``
#: rounds can add up to (Vegas dollars run from −52 to 208 a round), and a
#: total winning time far above what rounds of at most 4 hours reach.
_T_VEGAS_TOP: Final = 208 * MAX_ROUNDS
_T_VEGAS_SPAN: Final = 260 * MAX_ROUNDS + 1
_CARDS_TOP: Final = 52 * MAX_ROUNDS
_CARDS_SPAN: Final = _CARDS_TOP + 1
_NO_WIN: Final = 1_500_000_000  # ms: over 400 hours of won rounds, never reached
_TIME_SPAN: Final = _NO_WIN + 1


def standing_fields(line: dict[str, Any]) -> tuple[int, int, int]:
    """A standing line's place in the standings' order, without its player."""
    time = _clamp(int(line["time_ms"]), _NO_WIN) if line["wins"] else _NO_WIN
    return (_clamp(_T_VEGAS_TOP - int(line["vegas"]), _T_VEGAS_SPAN),
            _clamp(_CARDS_TOP - int(line["foundation"]), _CARDS_SPAN), time)


def standing_key(line: dict[str, Any]) -> tuple[int, int, int, int]:
    """The standings' order for Python's ``sorted``: :func:`standing_fields`
    then the player."""
    return (*standing_fields(line), int(line["player"]))


def standing_score(line: dict[str, Any]) -> int:
    """A standing line's place as one number, lower first, for the
    standings' sorted set: :func:`standing_fields` packed (registration
    order is the member's).

    >>> ann = {"vegas": 156, "foundation": 52, "wins": 1, "time_ms": 300_000}
    >>> bob = {"vegas": 156, "foundation": 52, "wins": 0, "time_ms": 0}
    >>> cat = {"vegas": 200, "foundation": 40, "wins": 0, "time_ms": 0}
    >>> lines = {"ann": ann, "bob": bob, "cat": cat}
    >>> sorted(lines, key=lambda name: standing_score(lines[name]))
    ['cat', 'ann', 'bob']
    >>> standing_score(ann) < 2**53
    True
    """
    vegas, cards, time = standing_fields(line)
    return (vegas * _CARDS_SPAN + cards) * _TIME_SPAN + time
