"""Progress: can any line of play still gain something, and which moves start one?

A move *makes progress* when it

- turns a face-down card face up,
- draws while the stock still holds cards the player has not seen (during the
  first pass through it, before any recycle), or
- puts a card on its foundation for the first time in this game (the move
  that earns the card its points).

Each of these can happen only so many times (21 face-down cards, 24 stock
cards, 52 foundation cards), and a game is won only after all of them have, so
a game in which no line of play leads to one can never be won: nothing useful
is left to do. Everything else (a run moved to another column, a card back
from its foundation, a draw through cards already seen) is only a means to
one of them.

:func:`progress` looks for the nearest progress, breadth first over the
positions the player can reach without making any (see
:meth:`Game.position`). It stops at the first move of each kind above, so what
it finds depends only on what the player can see: face-down cards and unseen
stock cards are never looked at.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Final, cast

from .cards import RANK, RED, SUIT
from .moves import BY_PARTS, DRAW, FOUNDATION, RECYCLE, STOCK, WASTE, Move
from .search import BudgetSpent, Search
from .table import Position, Table

#: Moves :func:`progress` tries at most before it says it cannot tell.
BUDGET: Final = 4000
#: Positions :func:`can_progress` searches at most.
SEARCH_BUDGET: Final = 5000


@dataclass(frozen=True, slots=True)
class Progress:
    """What :func:`progress` found.

    ``moves`` are the legal moves that start a shortest line of play to
    progress (in :meth:`Game.legal_moves` order), ``distance`` that line's
    length in moves (0 for a game already won, ``None`` when there is no such
    line). ``exhausted`` says the search saw every position it could reach;
    when it is false (the budget ran out first) ``moves`` is empty and nothing
    is known.
    """

    moves: list[Move]
    distance: int | None
    exhausted: bool

    @property
    def none(self) -> bool:
        """The game is not won and no line of play makes progress (the search
        was complete): it can never be won."""
        return self.exhausted and self.distance is None


def makes_progress(game: Table, move: Move) -> bool:
    """Whether ``move`` (legal in ``game``) makes progress by itself."""
    src, dst, n = move.source, move.target, move.count
    if src == STOCK:
        return move is DRAW and game.recycles == 0
    if dst == STOCK:
        return False
    if src < 7:
        col = game.columns[src]
        d = game.down[src]
        if d and n == len(col) - d:
            return True
        card = col[-1]
    elif src == WASTE:
        card = game.waste[-1]
    else:
        return False  # a foundation card back to a column
    return dst == FOUNDATION and not game.credited >> card & 1


def progress(game: Table, *, avoid: Callable[[], Collection[Position]] | None = None,
             budget: int = BUDGET) -> Progress:
    """The moves that start the shortest lines of play to progress.

    ``avoid``, if given, returns positions the lines must not pass through
    (asked only when no single move makes progress). ``budget`` bounds the
    moves tried.
    """
    if game.is_won:
        return Progress([], 0, True)
    first = [m for m in game.legal_moves() if worth_trying(game, m)]
    now = [m for m in first if makes_progress(game, m)]
    if now:
        return Progress(now, 1, True)
    possible = can_progress(game, budget=budget)
    if not possible:
        return Progress([], None, possible is not None)
    return _nearest(game, avoid() if avoid is not None else (), budget)


def _nearest(game: Table, avoid: Collection[Position], budget: int) -> Progress:
    """The first moves of the shortest lines to progress, by a shortest-path
    search over the positions right after each move that is not a stock move:
    the draws (and recycle) a line needs are taken with the waste card they
    bring up, as one step costing them all. Lines through ``avoid`` are out,
    down to the positions between two draws."""
    skipped: dict[tuple[object, ...], set[int]] = {}
    for position in avoid:
        columns, stock, waste, foundations = cast(tuple[Any, Any, Any, Any], position)
        skipped.setdefault((columns, foundations, (*waste, *reversed(stock))), set()).add(len(waste))
    root_key = game.position()
    best: dict[Position, int] = {root_key: 0}
    firsts: dict[Position, set[Move]] = {root_key: set()}
    buckets: dict[int, list[tuple[Position, Table]]] = {0: [(root_key, game.copy(history=False))]}
    found: set[Move] = set()
    limit: int | None = None
    cost = 0
    work = 0
    while buckets:
        if cost not in buckets:
            cost += 1
            if limit is not None and cost >= limit:
                break
            continue
        key, node = buckets[cost].pop()
        if not buckets[cost]:
            del buckets[cost]
        if best[key] != cost:
            continue
        for moves, child in _steps(node, skipped):
            work += 1
            if work > budget:
                return Progress([], None, False)
            total = cost + len(moves)
            start = {moves[0]} if cost == 0 else firsts[key]
            if child is None:  # the last move makes progress
                if limit is None or total < limit:
                    limit, found = total, set(start)
                elif total == limit:
                    found |= start
                continue
            child_key = child.position()
            if child_key in avoid:
                continue
            known = best.get(child_key)
            if known is None or total < known:
                best[child_key] = total
                firsts[child_key] = set(start)
                buckets.setdefault(total, []).append((child_key, child))
            elif total == known:
                firsts[child_key] |= start
    if limit is None:
        return Progress([], None, True)
    legal = game.legal_moves()
    return Progress([m for m in legal if m in found], limit, True)


def _steps(game: Table, skipped: dict[tuple[object, ...], set[int]]
           ) -> Iterator[tuple[list[Move], Table | None]]:
    """Each move that is not a stock move, and each waste card the stock moves
    can bring to the top played with them: the engine moves it takes, and the
    position after them or ``None`` when the last one makes progress."""
    for move in game.legal_moves():
        if move.source in (STOCK, WASTE) or move.target == STOCK or not worth_trying(game, move):
            continue
        if makes_progress(game, move):
            yield [move], None
            continue
        child = game.copy(history=False)
        child.push_unchecked(move)
        yield [move], child
    talon = [*game.waste, *reversed(game.stock)]
    if not talon:
        return
    columns = tuple(sorted(zip(game.down, map(tuple, game.columns), strict=True)))
    avoid = skipped.get((columns, tuple(game.foundations), tuple(talon)), set())
    found = game.foundations
    for k, stock_moves in _stock_paths(len(game.waste), len(talon), game.draw_count,
                                       game.allow_recycle, avoid):
        card = talon[k - 1]
        targets = [FOUNDATION] if RANK[card] == found[SUIT[card]] + 1 else []
        for t, col in enumerate(game.columns):
            if (RANK[card] == 13 and not col) or (col and _fits(card, col[-1])):
                targets.append(t)
                if not col:
                    break  # one empty column is as good as another
        for target in targets:
            move = BY_PARTS[(WASTE, target, 1)]
            child = game.copy(history=False)
            child.waste, child.stock, child.fan = talon[:k], talon[k:][::-1], 0
            if makes_progress(child, move):
                yield [*stock_moves, move], None
                continue
            child.push_unchecked(move)
            yield [*stock_moves, move], child


def _stock_paths(p: int, n: int, draw: int, recycle: bool, avoid: set[int]
                 ) -> Iterator[tuple[int, list[Move]]]:
    """Each number of waste cards the stock moves reach from ``p`` (of a talon
    of ``n`` cards), with the moves, by the shortest way and through no waste
    size in ``avoid``."""
    if p:
        yield p, []
    moves: list[Move] = []
    k = p
    reached = {p}
    while k < n:
        k = min(k + draw, n)
        moves = [*moves, DRAW]
        if k in avoid:
            return
        reached.add(k)
        yield k, moves
    if not recycle or 0 in avoid:
        return
    moves = [*moves, RECYCLE]
    k = 0
    while k < n:
        k = min(k + draw, n)
        moves = [*moves, DRAW]
        if k in avoid:
            return
        if k not in reached:
            reached.add(k)
            yield k, moves


def can_progress(game: Table, *, budget: int = SEARCH_BUDGET) -> bool | None:
    """Whether some line of play from ``game`` makes progress; ``None`` when the
    budget (positions searched) ran out first. For a game where no single move
    makes progress, so that every stock card has been seen (a draw would be
    progress otherwise).

    This asks the solver's search (:mod:`.search`), with progress for its goal:
    it takes the stock as macros and twin positions as one, so it answers far
    faster than :func:`progress` could, which looks for the first move of a
    shortest line and runs only when there is a line at all.
    """
    search = Search(game.columns, game.down, game.foundations,
                    [*game.waste, *reversed(game.stock)], len(game.waste),
                    draw=game.draw_count, recycle=game.allow_recycle, max_nodes=budget,
                    progress=True, credited=game.credited)
    try:
        return search.run()
    except BudgetSpent:
        return None


def _fits(card: int, under: int) -> bool:
    return RED[card] != RED[under] and RANK[card] + 1 == RANK[under]


def worth_trying(game: Table, move: Move) -> bool:
    """All legal moves but a run moved off a face-up card onto the other card
    that takes it, unless the card left behind can then go to its foundation:
    the two positions can play the same games (docs/engine.md, "The solver")."""
    src, dst, n = move.source, move.target, move.count
    if src >= 7 or dst >= 7:
        return True
    col = game.columns[src]
    if n == len(col) - game.down[src]:
        return True
    left = col[-n - 1]
    return RANK[left] == game.foundations[SUIT[left]] + 1


def progress_at_once(game: Table, legal: Sequence[Move]) -> bool:
    """Whether one of ``legal`` (the game's legal moves) makes progress by itself."""
    return any(makes_progress(game, m) for m in legal)


def no_progress_after(game: Table, before: bool | None, legal: Sequence[Move]) -> bool | None:
    """Whether no line of play from ``game`` makes progress, when that follows
    without a search from its last move and ``before`` (the answer for the
    position before that move, ``None`` if unknown); ``None`` when it does
    not. ``legal`` are the game's legal moves.

    - a game won, or with a move that makes progress at once: ``False``;
    - a move from a position with no progress: ``True`` (every line from
      here is that position's, one move on);
    - a move that can be taken back (:func:`reversible`) from a position
      with progress: ``False`` (take it back, then go that way).
    """
    if game.is_won or progress_at_once(game, legal):
        return False
    if before is None or not game.history:
        return None
    if before:
        return True
    return False if reversible(game) else None


def reversible(game: Table) -> bool:
    """Whether the position before the game's last move can be reached again
    from here by legal moves, with nothing on the way that counts for
    progress: no card turned up or credited by the move, and the stock past
    its first pass (going round it again must not cut the first pass short).

    - a run moved between columns, or a card between a foundation and a
      column, goes back when the pile it left takes it again;
    - a recycle goes back by drawing through; a draw by going round the
      stock to where it was, which draw three reaches only from a waste of
      a multiple of three cards;
    - a waste card played never goes back.
    """
    record = game.history[-1]
    if record.flipped or record.credited:
        return False
    move = record.move
    src, dst = move.source, move.target
    if dst == STOCK:
        return True
    if src == STOCK:
        if not game.allow_recycle or game.recycles == 0:
            return False
        return game.draw_count == 1 or (len(game.waste) - game.fan) % 3 == 0
    if src == WASTE:
        return False
    if dst == FOUNDATION:  # a card already credited, put home again
        card = record.card
        home = game.foundations[card // 13]
        back_to = game.columns[src]
        return home == card % 13 + 1 and _takes(back_to, card)
    if src >= 7:  # a foundation's card onto a column: it can go home again
        return True
    col = game.columns[dst]
    return _takes(game.columns[src], col[-move.count])


def _takes(col: list[int], card: int) -> bool:
    """Whether a column whose cards are ``col`` takes ``card`` (its top face up)."""
    return _fits(card, col[-1]) if col else RANK[card] == 13


def line_positions(game: Table) -> set[Position]:
    """The positions of the game's line of play that it still holds: this one
    and the one before each move it can undo."""
    walk = game.copy()
    out = {walk.position()}
    while walk.history:
        walk.pop()
        out.add(walk.position())
    return out


__all__ = ["BUDGET", "SEARCH_BUDGET", "Progress", "can_progress", "line_positions",
           "makes_progress", "no_progress_after", "progress", "progress_at_once", "reversible",
           "worth_trying"]

