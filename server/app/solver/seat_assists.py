"""Solver assists: "can this game still be won?" after each move, and hints that lead to a win.

In a room whose ``assists`` setting is ``solver`` the player's position is
judged by the solver after their moves, in a worker process
(:mod:`.pool`): never on a move's path. What the seat learns is kept
here, per position (:meth:`Game.position`), for the connection that holds
the seat:

- an ``ack``'s view carries ``winnable`` at once when the position is
  already known: one judged before (an undo goes back to it), or the next
  position of a winning line the player is following (a winning line minus
  its first move still wins from where that move leads), or a position
  after a lost one (every position after a lost one is lost too, except by
  undoing). Otherwise ``winnable`` is ``null`` in the ack, and a ``status``
  frame follows once the solver has answered for that position, a short
  quiet moment (:data:`DEBOUNCE`) after the last move: a burst of moves is
  judged once, at its end.
- once the position is lost, ``back`` says how many undos lead to the last
  position of the player's line of play that is winnable (the worker
  solves the positions back along the undo history; ``None`` when none is
  within reach of undo or of the budget), and ``lost`` why: ``"deal"``
  when the deal itself could never be won, ``"move"`` when a move lost it.
  What is learnt of one position tells of the deal (:attr:`SeatAssist.deal`):
  any winnable position means a winnable deal, so any later loss is a
  move's; a lost deal means every position is lost from the deal.

The winning lines stay on the server: a player gets only the first move of
one, as a hint (docs/protocol.md, "What each client may see").
"""

from __future__ import annotations

from collections import OrderedDict, deque
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any, Final

from ...klondike import UNDO_LIMIT, Game, Move
from ...klondike.game import Position
from ...klondike.progress import (
    can_progress,
    no_progress_after,
    progress_at_once,
)
from .jobs import Lost, Winnable

#: seconds of quiet after a move before its position is judged
DEBOUNCE: Final = 0.25
#: the solver's budget for one position's status (looking back included)
STATUS_SECONDS: Final = 2.0
#: the solver's budget for a hint; over it, the basic hint
HINT_SECONDS: Final = 0.5
#: positions a seat remembers
KNOWN: Final = 200


@dataclass(frozen=True, slots=True)
class Known:
    """What the solver said of a position: ``winnable``; the winning line
    from it (server side only) when known; ``back`` and ``lost`` when lost."""

    winnable: Winnable
    line: tuple[str, ...] | None = None
    back: int | None = None
    lost: Lost | None = None

    def fields(self) -> dict[str, Any]:
        """The status as a player's view carries it."""
        return {"winnable": self.winnable, "back": self.back, "lost": self.lost}


class SeatAssist:
    """One seat's solver status: what is known of its positions and of its
    deal, and whether a judgement is under way (``busy``)."""

    __slots__ = ("busy", "deal", "known", "sent")

    def __init__(self) -> None:
        self.known: OrderedDict[Position, Known] = OrderedDict()
        self.deal: Winnable | None = None  # the deal from its start, once known: "yes" or "no"
        self.busy = False
        self.sent: tuple[int, Known] | None = None  # the last status sent: (seq, status)

    def get(self, game: Game) -> Known | None:
        if game.is_won:
            return Known("yes", ())
        found = self.known.get(game.position())
        return None if found is None else self._why(found)

    def _why(self, known: Known) -> Known:
        """``known`` with why it is lost, when the deal tells."""
        if known.winnable != "no" or known.lost is not None or self.deal is None:
            return known
        return replace(known, lost="deal" if self.deal == "no" else "move")

    def learn(self, position: Position, known: Known) -> Known:
        """Keep what the solver said of ``position``; the status with what
        the seat knows of its deal added."""
        if known.winnable == "yes" or known.lost == "move":
            self.deal = "yes"
        elif known.lost == "deal":
            self.deal = "no"
        known = self._why(known)
        self.known[position] = known
        self.known.move_to_end(position)
        while len(self.known) > KNOWN:
            self.known.popitem(last=False)
        return known

    def after(self, before: Position | None, command: str, game: Game) -> Known | None:
        """The status of ``game`` just after ``command`` (a move's notation or
        ``undo``) from ``before``, if it follows without a search."""
        known = self.get(game)
        if known is not None or before is None or command == "undo":
            return known
        prior = self.known.get(before)
        if prior is None:
            return None
        if prior.winnable == "yes" and prior.line and prior.line[0] == command:
            derived = Known("yes", prior.line[1:])
        elif prior.winnable == "no":
            # no move wins from a lost position; undoing this one is one more undo
            back = None if prior.back is None else prior.back + 1
            derived = Known("no", None, back if back is not None and back <= game.undo_depth
                            else None, prior.lost)
        else:
            return None
        return self.learn(game.position(), derived)

    def learn_back(self, game: Game, known: Known) -> None:
        """A lost position ``back`` undos after a winnable one: the positions
        in between are lost too, each that many undos nearer."""
        if known.back is None:
            return
        walk = game.copy()
        for step in range(1, known.back + 1):
            if not walk.history:
                return
            walk.pop()
            if step < known.back:
                self.learn(walk.position(), Known("no", None, known.back - step, "move"))
            elif walk.position() not in self.known:
                self.learn(walk.position(), Known("yes"))


def first_move(known: Known | None, game: Game) -> Move | None:
    """The first move of the known winning line, if it is legal here."""
    if known is None or known.winnable != "yes" or not known.line:
        return None
    move = Move.parse(known.line[0])
    return move if game.is_legal(move) else None


def no_progress(game: Game, legal: Sequence[Move] | None = None) -> bool:
    """:meth:`Game.no_progress` without its search for the shortest line (it
    is asked only whether a line exists; ``legal``: the game's legal moves,
    when the caller has them). It searches when no single move makes
    progress: never on a move's path (see :class:`ProgressTrail`). A budget
    spent says ``False``: "cannot tell" is never "nothing left"."""
    if game.is_won or progress_at_once(game, game.legal_moves() if legal is None else legal):
        return False
    return can_progress(game) is False


class ProgressTrail:
    """What a seat knows of "no progress" (the "no useful move" notice) along
    its line of play, on the connection that holds the seat: the answer for
    the position now (``now``; ``None`` while not known) and for the one
    before each move it can undo.

    A move's answer follows from the one before without a search most of the
    time (:func:`~server.klondike.progress.no_progress_after`), an undo's is
    the one kept; otherwise it is ``None`` in the ack and the position is
    judged once the player pauses (:func:`no_progress`, a search, after the
    ack: see :mod:`~server.app.handlers.assisting`). Made again whenever the
    seat's game is loaded."""

    __slots__ = ("_before", "now")

    def __init__(self) -> None:
        self.now: bool | None = None
        self._before: deque[bool | None] = deque(maxlen=UNDO_LIMIT)  # as the undo history

    def moved(self, game: Game, legal: Sequence[Move]) -> bool | None:
        """The answer after a move just played."""
        self._before.append(self.now)
        self.now = no_progress_after(game, self.now, legal)
        return self.now

    def undone(self, game: Game, legal: Sequence[Move]) -> bool | None:
        """The answer after an undo: the one kept for that position."""
        self.now = self._before.pop() if self._before else None
        if self.now is None and (game.is_won or progress_at_once(game, legal)):
            self.now = False
        return self.now
