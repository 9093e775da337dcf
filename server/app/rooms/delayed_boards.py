"""Spectators' boards held back by a room's delay (``"boards": "delayed"``),
in bounded memory.

A board its player saw at ``at`` may reach spectators ``delay`` later, never
sooner. Rather than keep every board of every move for the whole delay (a
fast player makes hundreds), the delay is cut into ``STEPS`` steps, none
shorter than ``MIN_STEP_MS`` (spectators' boards go out a few times a second
at most anyway): a board waits in the step its release time falls in and
goes out at that step's end, and a newer board of the same seat in the same
step replaces it. So a room keeps at most ``STEPS + 2`` steps of one board
per seat, each encoded as JSON (a few hundred bytes), whatever its players
do, and a board goes out between ``delay`` and ``delay`` plus a step after
its moment.

>>> q = DelayedBoards(delay_ms=10_000)
>>> q.step_ms
200
>>> q.add(0, {"n": 1}, at=1_000); q.add(0, {"n": 2}, at=1_050); q.add(1, {"n": 3}, at=1_300)
>>> q.next_at(), len(q)
(11200, 2)
>>> q.due(11_199), q.due(11_200), q.due(11_400)
({}, {0: {'n': 2}}, {1: {'n': 3}})
"""

from __future__ import annotations

from collections import deque
from typing import Any, Final

import orjson

STEPS: Final = 60  # steps a delay is cut into, at most
MIN_STEP_MS: Final = 200  # and each at least this long


class DelayedBoards:
    """The boards of a delayed room waiting for their time (see above)."""

    __slots__ = ("_steps", "delay_ms", "step_ms")

    def __init__(self, delay_ms: int) -> None:
        self.delay_ms = delay_ms
        self.step_ms = max(MIN_STEP_MS, -(-delay_ms // STEPS))
        self._steps: deque[tuple[int, dict[int, bytes]]] = deque()  # (step, seat -> board)

    def __len__(self) -> int:
        """Steps waiting (at most ``STEPS + 2``)."""
        return len(self._steps)

    def boards(self) -> int:
        """Boards waiting (at most ``STEPS + 2`` per seat)."""
        return sum(len(boards) for _, boards in self._steps)

    def add(self, seat: int, board: dict[str, Any], at: int) -> None:
        """``board``, as its player saw it at ``at`` (a seat's boards come in
        the order its player saw them). A board whose step is not after the
        last one waiting (a process's clock a little behind, or the queue
        full) joins the last: later, never sooner."""
        step = (at + self.delay_ms) // self.step_ms
        steps = self._steps
        if steps and (step <= steps[-1][0] or len(steps) >= STEPS + 2):
            steps[-1][1][seat] = orjson.dumps(board)
        else:
            steps.append((step, {seat: orjson.dumps(board)}))

    def next_at(self) -> int | None:
        """When the first step waiting goes out (ms), if any."""
        return (self._steps[0][0] + 1) * self.step_ms if self._steps else None

    def due(self, now: int) -> dict[int, dict[str, Any]]:
        """The boards whose time has come by ``now``, by seat (the latest of each)."""
        out: dict[int, bytes] = {}
        steps = self._steps
        while steps and (steps[0][0] + 1) * self.step_ms <= now:
            out.update(steps.popleft()[1])
        return {seat: orjson.loads(board) for seat, board in out.items()}

    def clear(self) -> None:
        self._steps.clear()
