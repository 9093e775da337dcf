"""The solver: can this game still be won, and how?

For any position of a game (its deal, or any point mid-game, with the
face-down cards and the stock order the server knows) :func:`solve` answers
``'winnable'`` with a winning line in the notation of docs/rules.md,
``'lost'`` (no line from here wins: the search was exhausted), or
``'unknown'`` (the budget of nodes or seconds ran out first)::

    >>> from server.klondike import Game
    >>> result = solve(Game("KL1-D1N-AAAAAAG"), seconds=10)
    >>> result.verdict, len(result.line) > 50
    ('winnable', True)

Every line it returns has been replayed through :meth:`Game.push` to a win
before it is returned: the engine is the judge. Like the engine it is pure:
no I/O, no global state, standard library only. It never runs on an event
loop: :func:`solve_job` takes and returns plain picklable values, for a
bounded process pool. docs/engine.md ("The solver") describes the search.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Final, Literal, NamedTuple

from .codes import DealCode
from .game import Game, replay
from .moves import DRAW, FOUNDATION, FS, RECYCLE, WASTE, Move
from .search import CC, CF, FC, TF, UF, BudgetSpent, Search, SearchStep

Verdict = Literal["winnable", "lost", "unknown"]

#: The budget :func:`solve` uses when given none.
DEFAULT_SECONDS: Final = 10.0


class SolverError(Exception):
    """A line the solver called winning failed in the engine: a bug, never expected."""


@dataclass(frozen=True, slots=True)
class Solution:
    """What :func:`solve` found.

    ``line`` is the winning line (engine moves, draws and recycles included)
    when ``verdict`` is ``'winnable'``, else ``None``; ``nodes`` counts the
    positions the search visited and ``seconds`` the time it took.
    """

    verdict: Verdict
    line: tuple[Move, ...] | None
    nodes: int
    seconds: float

    @property
    def notation(self) -> list[str] | None:
        """The line in notation, one move per item."""
        return None if self.line is None else [str(m) for m in self.line]


def solve(game: Game, *, seconds: float | None = DEFAULT_SECONDS, nodes: int | None = None,
          clock: Callable[[], float] = time.perf_counter) -> Solution:
    """Solve ``game`` from where it stands, within ``seconds`` and ``nodes``
    (``None``: no bound on that one). The game is not changed.

    ``seconds`` are measured on ``clock``: wall-clock time by default, or for
    instance :func:`time.process_time` for the CPU time of this process, as
    the benchmark does on a shared machine.
    """
    start = clock()
    deadline = None if seconds is None else start + seconds
    if game.is_won:
        return Solution("winnable", (), 0, 0.0)
    search = Search(game.columns, game.down, game.foundations,
                    game.waste + game.stock[::-1], len(game.waste),
                    draw=game.draw_count, recycle=game.allow_recycle,
                    max_nodes=nodes, deadline=deadline, clock=clock)
    try:
        won = search.run()
    except BudgetSpent:
        return Solution("unknown", None, search.nodes, clock() - start)
    if not won:
        return Solution("lost", None, search.nodes, clock() - start)
    line = expand(game, search.steps())
    return Solution("winnable", line, search.nodes, clock() - start)


def expand(game: Game, steps: Sequence[SearchStep]) -> tuple[Move, ...]:
    """The solver's ``steps`` from ``game`` as engine moves, each checked by
    :meth:`Game.push` on a copy, which must end won; raises
    :class:`SolverError` otherwise."""
    sim = game.copy(history=False)
    out: list[Move] = []

    def play(move: Move) -> None:
        try:
            sim.push(move)
        except Exception as exc:  # an illegal move here is a solver bug
            raise SolverError(f"the solver's line fails at move {len(out) + 1} "
                              f"({move}) from {game!r}: {exc}") from exc
        out.append(move)

    for step in steps:
        kind = step[0]
        if kind == CF:
            play(Move(step[1], FOUNDATION))
        elif kind == CC:
            play(Move(step[1], step[3], step[4]))
        elif kind == UF:
            play(Move(step[1], step[3], step[4]))
            play(Move(step[1], FOUNDATION))
        elif kind == FC:
            play(Move(FS + step[1], step[2]))
        else:
            card = step[-1]
            for _ in range(2 * (len(sim.stock) + len(sim.waste)) + 2):
                if sim.waste and sim.waste[-1] == card:
                    break
                play(DRAW if sim.stock else RECYCLE)
            play(Move(WASTE, FOUNDATION if kind == TF else step[2]))
    if not sim.is_won:
        raise SolverError(f"the solver's line from {game!r} does not win")
    return tuple(out)


def solve_code(code: DealCode | str, *, seconds: float | None = DEFAULT_SECONDS,
               nodes: int | None = None) -> Solution:
    """:func:`solve` for the deal of ``code``, from its start; raises
    :class:`InvalidDealCodeError` for a malformed code."""
    return solve(Game(code), seconds=seconds, nodes=nodes)


def certify(code: DealCode | str, *, seconds: float | None = DEFAULT_SECONDS,
            nodes: int | None = None) -> Solution | None:
    """The winning line of ``code``'s deal from its start, replayed in a fresh
    game to a win; ``None`` when the deal is lost or the budget ran out. A code
    counts as certified winnable only when this returns a solution."""
    solution = solve(Game(code), seconds=seconds, nodes=nodes)
    if solution.line is None:
        return None
    check = replay(code, solution.line)
    if not check.is_won:  # solve() checked it already: this is a second, independent replay
        raise SolverError(f"the line of {code} does not win when replayed")
    return solution


class JobResult(NamedTuple):
    """:func:`solve_job`'s answer, in plain values that pickle."""

    verdict: Verdict
    line: list[str] | None
    nodes: int
    seconds: float


def solve_job(game: bytes | str, moves: Sequence[str] = (), *,
              seconds: float | None = DEFAULT_SECONDS, nodes: int | None = None) -> JobResult:
    """:func:`solve` for a worker process: the game as a snapshot
    (:meth:`Game.snapshot`) or as a deal code plus the moves played on it
    (notation, ``'undo'`` included, as :func:`replay` takes them).

    Raises :class:`EngineError` for a bad snapshot, code or move list.
    """
    position = Game.from_snapshot(game) if isinstance(game, bytes) else replay(game, list(moves))
    if isinstance(game, bytes) and moves:
        for move in moves:
            position.push(move)
    solution = solve(position, seconds=seconds, nodes=nodes)
    return JobResult(solution.verdict, solution.notation, solution.nodes, solution.seconds)


__all__ = [
    "DEFAULT_SECONDS",
    "JobResult",
    "Solution",
    "SolverError",
    "Verdict",
    "certify",
    "expand",
    "solve",
    "solve_code",
    "solve_job",
]
