"""Help for the player: auto-complete, hints, and whether progress is left.

All of them use only what the player can see (face-up cards, counts, and waste
or stock cards already turned up), so what they offer reveals no secret.
"""

from __future__ import annotations

from typing import Final

from .cards import RANK, RED, SUIT
from .moves import BY_PARTS, DRAW, FOUNDATION, FS, RECYCLE, STOCK, WASTE, Move
from .progress import Progress, line_positions, makes_progress
from .progress import progress as _progress
from .table import Table

_STEP_LIMIT: Final = 5000  # far above any real finish; bounds a pathological loop


def can_autocomplete(game: Table) -> bool:
    """Every tableau card is face up and no stock card is unseen (the stock is
    empty, or it was recycled at least once), and the game is not won yet."""
    return (
        not game.is_won
        and not any(game.down)
        and (not game.stock or game.recycles > 0)
    )


def autocomplete_moves(game: Table) -> list[Move] | None:
    """The moves that finish the game from here, or ``None``.

    Offered only when :func:`can_autocomplete` holds and playing the sequence on
    a copy reached the win: foundation moves first, otherwise the stock,
    otherwise a waste card onto a column.
    """
    if not can_autocomplete(game):
        return None
    sim = game.copy(history=False)
    out: list[Move] = []
    idle = 0  # stock actions since the last card was placed
    for _ in range(_STEP_LIMIT):
        if sim.is_won:
            return out
        move = _foundation_move(sim)
        if move is None:
            cycle = len(sim.stock) + len(sim.waste) + 1
            stock_move = DRAW if sim.stock else RECYCLE if sim.waste and sim.allow_recycle else None
            if stock_move is not None and idle <= 2 * cycle:
                move = stock_move
                idle += 1
            else:
                move = _waste_to_column(sim)
                if move is None:
                    return None
                idle = 0
        else:
            idle = 0
        sim.push_unchecked(move)
        out.append(move)
    return None


def _foundation_move(game: Table) -> Move | None:
    found = game.foundations
    if game.waste:
        card = game.waste[-1]
        if RANK[card] == found[SUIT[card]] + 1:
            return BY_PARTS[(WASTE, FOUNDATION, 1)]
    for s, col in enumerate(game.columns):
        if col and RANK[col[-1]] == found[SUIT[col[-1]]] + 1:
            return BY_PARTS[(s, FOUNDATION, 1)]
    return None


def _waste_to_column(game: Table) -> Move | None:
    if not game.waste:
        return None
    card = game.waste[-1]
    for t, col in enumerate(game.columns):
        if _fits(card, col[-1] if col else -1):
            return BY_PARTS[(WASTE, t, 1)]
    return None


def _fits(card: int, under: int) -> bool:
    if under < 0:
        return RANK[card] == 13
    return RED[under] != RED[card] and RANK[under] == RANK[card] + 1


# ---------------------------------------------------------------------- hints

def progress(game: Table) -> Progress:
    """The nearest progress from here (see :mod:`.progress`)."""
    return _progress(game)


def hint(game: Table) -> Move | None:
    """One useful move, or ``None`` when there is none.

    ``None`` when no line of play makes progress (see :mod:`.progress`)
    without passing through a position this game has already been in (this
    one, or one before a move it can still undo; see :meth:`Game.position`):
    nothing useful is left short of going back. Otherwise never a move into
    such a position nor one that only undoes the previous move, and in order
    of preference:

    1. a safe foundation move, a move that turns up a face-down card (from the
       column with most of them), a waste card played;
    2. otherwise the first move of a shortest line to progress, ranked as in 1
       and then: emptying a column for a king that waits; another foundation
       move; a move that frees a card for its foundation; a foundation card
       taken back to receive another; a draw; a recycle.

    (Should the search for progress run out of budget, which real games never
    made it do, the ranking alone picks among the moves to new positions.)
    """
    if game.is_won:
        return None
    reached: set[object] = set()

    def avoid() -> set[object]:
        if not reached:
            reached.update(line_positions(game))
        return reached

    def new(move: Move) -> bool:
        trial = game.copy(history=False)
        trial.push_unchecked(move)
        return trial.position() not in avoid()

    found = _progress(game, avoid=avoid)
    if found.none:
        return None
    legal = game.legal_moves()
    ranked = sorted((rank, i, m) for i, m in enumerate(legal)
                    if (rank := _rank(game, m)) is not None)
    for rank, _, move in ranked:
        if rank >= (3, 0):
            break
        if makes_progress(game, move) or new(move):
            return move
    if found.exhausted:
        return min(found.moves, key=lambda m: _rank(game, m) or (98, 0))
    return next((m for _, _, m in ranked if new(m)), None)


def _rank(game: Table, move: Move) -> tuple[int, int] | None:
    """How good ``move`` is (lower is better), or ``None`` if it is useless."""
    src, dst, n = move.source, move.target, move.count
    if _undoes_last(game, move):
        return None
    found = game.foundations
    if src == STOCK:
        return (7, 0)
    if dst == STOCK:
        return (8, 0) if _waste_has_a_play(game) else None
    if src == WASTE:
        card = game.waste[-1]
        if dst == FOUNDATION:
            return (0, 0) if _safe(found, card) else (2, 0)
        return (2, 1)
    if src >= FS:
        card = (src - FS) * 13 + found[src - FS] - 1
        return (6, 0) if _would_receive(game, card, dst) else None
    col, down = game.columns[src], game.down[src]
    up = len(col) - down
    flips = down > 0 and n == up
    if dst == FOUNDATION:
        if _safe(found, col[-1]):
            return (0, -down)
        return (1, -down) if flips else (4, 0)
    if flips:
        return (1, -down)
    if n == len(col):  # moves a whole column that has no face-down card
        if not game.columns[dst] or not _king_waits(game, src):
            return None
        return (3, 0)
    beneath = col[-n - 1]  # face up: the run is moved off a card that already holds it
    if RANK[beneath] == found[SUIT[beneath]] + 1:
        return (5, 0)
    return None


def _safe(found: list[int], card: int) -> bool:
    """No card could ever need to go onto ``card``: both opposite-colour
    foundations hold the rank below it (aces and twos are always safe)."""
    rank = RANK[card]
    if rank <= 2:
        return True
    opposite = (1, 2) if not RED[card] else (0, 3)
    return all(found[s] >= rank - 1 for s in opposite)


def _king_waits(game: Table, emptied: int) -> bool:
    """A king that could use an empty column: the waste's top, or a king leading
    a face-up run above face-down cards in another column."""
    if game.waste and RANK[game.waste[-1]] == 13:
        return True
    for s, col in enumerate(game.columns):
        d = game.down[s]
        if s != emptied and d > 0 and len(col) > d and RANK[col[d]] == 13:
            return True
    return False


def _would_receive(game: Table, card: int, target: int) -> bool:
    """Taking ``card`` back onto column ``target`` lets another card go on it."""
    cands = [game.waste[-1]] if game.waste else []
    for s, col in enumerate(game.columns):
        if s != target and len(col) > game.down[s]:
            cands.append(col[game.down[s]])
            cands.extend(col[game.down[s] + 1:])
    return any(_fits(c, card) for c in cands)


def _waste_has_a_play(game: Table) -> bool:
    """Some waste card (all were seen) fits a foundation or a column now."""
    tops = [col[-1] if col else -1 for col in game.columns]
    found = game.foundations
    return any(
        RANK[c] == found[SUIT[c]] + 1 or any(_fits(c, t) for t in tops) for c in game.waste
    )


def _undoes_last(game: Table, move: Move) -> bool:
    """``move`` puts back what the previous move did. After a move that turned
    a card up, nothing does: going back puts the cards on the card turned up,
    into a position the game has never been in."""
    if not game.history:
        return False
    last = game.history[-1]
    if last.flipped:
        return False
    lm = last.move
    if lm.target == FOUNDATION and lm.source < 7:
        return move.source == FS + SUIT[last.card] and move.target == lm.source
    if lm.source >= FS and lm.target < 7:
        return move.source == lm.target and move.target == FOUNDATION
    return (lm.source < 7 and lm.target < 7 and move.source == lm.target
            and move.target == lm.source and move.count == lm.count)
