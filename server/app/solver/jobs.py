"""What the solver's worker processes run: plain functions of plain values.

Each takes and returns values that pickle (codes, snapshots, notation), so
that :mod:`.pool` can hand it to a worker process; none touches the
network, Redis or the event loop. They are the server's questions to the
solver (:mod:`server.klondike.solver`):

- :func:`certify_code`: is this deal winnable from its start? A code comes
  back only when the solver's line, replayed by the engine in a fresh game,
  won (:func:`~server.klondike.solver.certify`);
- :func:`assess`: can this game still be won, with the winning line when it
  can; when it cannot, how many undos lead back to the last position that
  can (each position further back solved in turn, within the same budget),
  and whether a move lost it or the deal itself never could be won.
"""

from __future__ import annotations

import time
from typing import Literal, NamedTuple

from ...klondike import Game, replay
from ...klondike.solver import certify, solve

Winnable = Literal["yes", "no", "unknown"]
#: why a lost game is lost: its deal could never be won, or a move lost it
Lost = Literal["deal", "move"]
_VERDICTS: dict[str, Winnable] = {"winnable": "yes", "lost": "no", "unknown": "unknown"}


def certify_code(code: str, seconds: float) -> str | None:
    """``code`` when its deal is certified winnable within ``seconds``, else
    ``None`` (lost, or undecided in time). The line is replayed once more
    here, by the engine, before the code is returned."""
    solution = certify(code, seconds=seconds)
    if solution is None or solution.notation is None:
        return None
    if not replay(code, solution.notation).is_won:  # certify() checked it: belt and braces
        return None
    return code


class Assessment(NamedTuple):
    """:func:`assess`'s answer. ``line`` is the winning line from the position
    (notation) when ``winnable`` is ``"yes"``; ``back`` is, when it is
    ``"no"``, how many undos lead to the last position of the game's line of
    play that is winnable (``None``: none found within reach or budget);
    ``lost`` says, when it is ``"no"``, whether the deal itself is lost
    (``"deal"``: no position of the game was ever winnable) or a move lost
    it (``"move"``: a position before it is winnable), ``None`` when the
    search did not reach as far."""

    winnable: Winnable
    line: list[str] | None
    back: int | None
    nodes: int
    lost: Lost | None = None


def assess(snapshot: bytes, seconds: float, look_back: bool = True) -> Assessment:
    """Solve the game of ``snapshot`` from where it stands within ``seconds``;
    when it is lost and ``look_back``, solve the positions before it (undoing
    one move at a time, as far as the game's undo history goes) until one is
    winnable, within what is left of the budget. A lost game with no move
    played, or whose every position back to the deal is lost, has a lost
    deal."""
    deadline = time.monotonic() + seconds
    game = Game.from_snapshot(snapshot)
    first = solve(game, seconds=seconds)
    verdict = _VERDICTS[first.verdict]
    nodes = first.nodes
    if verdict != "no":
        return Assessment(verdict, first.notation, None, nodes)
    if game.moves == 0:  # the deal itself
        return Assessment("no", None, None, nodes, "deal")
    if not look_back:
        return Assessment("no", None, None, nodes)
    walk = game.copy()
    back = 0
    while walk.history:
        left = deadline - time.monotonic()
        if left <= 0:
            return Assessment("no", None, None, nodes)
        walk.pop()
        back += 1
        earlier = solve(walk, seconds=left)
        nodes += earlier.nodes
        if earlier.verdict == "winnable":
            return Assessment("no", None, back, nodes, "move")
        if earlier.verdict == "unknown":
            return Assessment("no", None, None, nodes)
    # every position back to where the undo history starts is lost
    return Assessment("no", None, None, nodes, "deal" if walk.moves == 0 else None)

