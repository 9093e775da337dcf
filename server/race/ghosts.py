"""Ghosts: where each player who already played a challenge was at each
second of their own game, so that a player racing it later sees them beside
their own line, moving with their own clock (docs/protocol.md, "Ghosts").

A ghost carries only what a leaderboard line of a live race carries of an
opponent, and less: cards on the foundations and Vegas dollars, second by
second of their own clock, and how their game ended. Never a card, a move,
a move count or a board: nothing that says which card lies where (a
foundation count that rose on a ghost's second move would say what their
first draw turned up; sampled by the second, and without moves, it says no
more than a live race's leaderboard says of a rival).

**A trace** is a player's progress as points ``(second, foundation,
credited)``: the second of their own clock (from the moment they began),
the cards on their foundations then, and how many cards had ever been put
home (Vegas dollars are −52 + 5 × that). A point is kept per second at most
(the last state of that second) and only when something changed; a trace
holds at most :data:`MAX_POINTS` (beyond, the last point moves: the ghost
jumps to its latest state). A game over ends its trace with a point at the
second it ended (``end=True``), whatever its state. Stored as a short text
(:func:`encode`): about 3 bytes a point, under 200 bytes for a typical game.

>>> trace = []
>>> for second, f, c in [(2, 1, 1), (2, 2, 2), (5, 3, 3), (9, 2, 3), (9, 2, 3)]:
...     trace = record(trace, second, f, c)
>>> trace
[(2, 2, 2), (5, 3, 3), (9, 2, 3)]
>>> encode(trace), decode(encode(trace)) == trace
('222333423', True)
>>> state_at(trace, 0), state_at(trace, 6), state_at(trace, 100)
((0, 0), (3, 3), (2, 3))
>>> record(trace, 14, 2, 3, end=True)[-1]
(14, 2, 3)

**A span** is what a player is sent of a ghost for a stretch of their own
clock: the ghost's state at its first second, then each change, as
``[second, foundation, dollars]`` (:func:`span`).

>>> span(trace, 4, 10)
[[4, 2, -42], [5, 3, -37], [9, 2, -37]]
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Final

Point = tuple[int, int, int]  # (second of the own clock, foundation cards, cards credited)

MAX_POINTS: Final = 600
_DIGITS: Final = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz-_"
_VALUE: Final = {ch: i for i, ch in enumerate(_DIGITS)}
_LONG: Final = "~"  # a gap of 63 seconds or more: "~", its digits, "."
_END: Final = "."


def record(trace: list[Point], second: int, foundation: int, credited: int, *,
           end: bool = False) -> list[Point]:
    """The trace with the state at ``second`` (a new list; the same one when
    nothing changed). A second already recorded takes the latest state.
    ``end``: the game is over at ``second``, so the trace ends there."""
    point = (max(0, second), foundation, credited)
    if end and (not trace or trace[-1][0] < point[0]) and len(trace) < MAX_POINTS:
        return [*trace, point]
    if trace and trace[-1][1:] == point[1:]:
        return trace
    if trace and (trace[-1][0] >= point[0] or len(trace) >= MAX_POINTS):
        if len(trace) >= 2 and trace[-2][1:] == point[1:] and not end:
            return trace[:-1]  # back where it was the point before: the last one is void
        return [*trace[:-1], (max(point[0], trace[-1][0]), *point[1:])]
    if not trace and point[1:] == (0, 0) and not end:
        return trace  # the start's state is every trace's before its first point
    return [*trace, point]


def _number(n: int) -> str:
    digits = ""
    while True:
        digits = _DIGITS[n % 64] + digits
        n //= 64
        if not n:
            return digits


def encode(trace: Sequence[Point]) -> str:
    """A trace as text: per point the seconds since the previous one, the
    foundation cards and the cards credited, a character each (a gap of 63
    seconds or more: ``~`` and its digits and ``.``)."""
    out, last = [], 0
    for second, foundation, credited in trace:
        gap = second - last
        last = second
        out.append(_DIGITS[gap] if gap < 63 else f"{_LONG}{_number(gap)}{_END}")
        out.append(_DIGITS[foundation] + _DIGITS[credited])
    return "".join(out)


def decode(text: str) -> list[Point]:
    """The trace :func:`encode` wrote (a text that is not one: ``ValueError``)."""
    out: list[Point] = []
    i, second = 0, 0
    try:
        while i < len(text):
            if text[i] == _LONG:
                end = text.index(_END, i)
                gap = 0
                for ch in text[i + 1:end]:
                    gap = gap * 64 + _VALUE[ch]
                i = end + 1
            else:
                gap = _VALUE[text[i]]
                i += 1
            second += gap
            out.append((second, _VALUE[text[i]], _VALUE[text[i + 1]]))
            i += 2
    except (KeyError, IndexError, ValueError):  # (ValueError: a long gap never closed)
        raise ValueError(f"not a ghost trace: {text[:40]!r}") from None
    return out


def state_at(trace: Sequence[Point], second: int,
             seconds: Sequence[int] | None = None) -> tuple[int, int]:
    """(foundation cards, cards credited) at ``second`` of the own clock
    (``seconds``: the trace's seconds, when the caller keeps them)."""
    i = bisect_right(seconds if seconds is not None else [p[0] for p in trace], second) - 1
    return (0, 0) if i < 0 else (trace[i][1], trace[i][2])


def dollars(credited: int) -> int:
    """Vegas dollars after ``credited`` cards were put home (each once)."""
    return -52 + 5 * credited


def span(trace: Sequence[Point], first: int, end: int) -> list[list[int]]:
    """The ghost from second ``first`` (included) to ``end`` (excluded):
    its state at ``first``, then each change, ``[second, foundation, dollars]``."""
    f, c = state_at(trace, first)
    out = [[first, f, dollars(c)]]
    out.extend([s, f, dollars(c)] for s, f, c in trace if first < s < end)
    return out


@dataclass(frozen=True, slots=True)
class Ghost:
    """A player whose game of the challenge is over, as the ghosts show
    them: their seat and nickname, how it ended (``finished``, ``resigned``,
    ``unfinished``: their time ran out, ``left``) and when, on their own
    clock (``end_ms``), and their trace."""

    seat: int
    nickname: str
    status: str
    end_ms: int
    trace: tuple[Point, ...]
    seconds: tuple[int, ...] = field(default=(), compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "seconds", tuple(p[0] for p in self.trace))

    @classmethod
    def of(cls, line: dict[str, Any], trace: str) -> Ghost:
        """A ghost from its final leaderboard line and its stored trace: a
        finisher's end is their time, another's the trace's last point."""
        points = tuple(decode(trace))
        if line["status"] == "finished" and line.get("finish_ms") is not None:
            end_ms = int(line["finish_ms"])
        else:
            end_ms = points[-1][0] * 1000 if points else 0
        return cls(int(line["seat"]), str(line["nickname"]), str(line["status"]), end_ms, points)

    def state_at(self, second: int) -> tuple[int, int]:
        """(foundation cards, cards credited) at ``second`` of its own clock."""
        return state_at(self.trace, second, self.seconds)

    def shown(self, first: int, end: int) -> dict[str, Any]:
        """What a player gets of this ghost for seconds ``first`` to ``end``:
        its seat, nickname and span, and how its game ended once that falls
        within them (not before: a ghost's end is news when it comes)."""
        out: dict[str, Any] = {"seat": self.seat, "nickname": self.nickname,
                               "p": span(self.trace, first, end)}
        if self.end_ms < end * 1000:
            out["end"] = {"ms": self.end_ms, "status": self.status}
        return out


def pool_ranks(count: int, size: int, top: int) -> list[int]:
    """Which of ``count`` ghosts (0 is the best) a process keeps at hand, at
    most ``size``: every one when they are few; else the first ``top`` and
    the rest spread evenly over the field, so that a player of any pace
    finds ghosts near them.

    >>> pool_ranks(5, 10, 3)
    [0, 1, 2, 3, 4]
    >>> pool_ranks(1000, 8, 3)
    [0, 1, 2, 3, 252, 501, 750, 999]
    """
    if count <= size:
        return list(range(count))
    rest = size - top
    if rest <= 1:
        return [*range(size - 1), count - 1]
    spread = [top + round(i * (count - 1 - top) / (rest - 1)) for i in range(rest)]
    return list(range(top)) + spread


def pick(pool: Sequence[Ghost], second: int, foundation: int, *, top: int, near: int,
         skip: int = -1) -> list[Ghost]:
    """The ghosts one player sees now: the first ``top`` of ``pool`` (in
    the room's order) and the ``near`` others whose foundation at ``second``
    of their own clock is closest to the player's ``foundation`` (ties: the
    better ranked). ``skip``: the player's own seat (a player is never their
    own ghost).

    >>> g = [Ghost(s, f"g{s}", "finished", 1, ((1, f, f),)) for s, f in enumerate([52, 40, 20, 9, 3])]
    >>> [x.seat for x in pick(g, 5, 8, top=1, near=2)]
    [0, 3, 4]
    """
    ghosts = [g for g in pool if g.seat != skip]
    first = ghosts[:top]
    rest = ghosts[top:]
    order = sorted(range(len(rest)),
                   key=lambda i: (abs(rest[i].state_at(second)[0] - foundation), i))
    return first + [rest[i] for i in order[:near]]
