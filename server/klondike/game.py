"""One player's game of Klondike on a KL1 or KL2 deal: the rules of docs/rules.md.

>>> game = Game("KL1-D1N-AAAAAAA")
>>> game.push("t7>f")
>>> game.points, game.vegas, game.moves, game.turned_up
(15, -47, 1, 1)
>>> game.push("t1>t1")
Traceback (most recent call last):
...
server.klondike.errors.InvalidNotationError: 't1>t1': a card cannot move onto its own column
>>> game.push("t1>t3")
Traceback (most recent call last):
...
server.klondike.errors.IllegalMoveError: illegal move 't1>t3': 8C cannot go on 8S: it needs a red 9
>>> game.pop()
Move.parse('t7>f')
>>> game.points, game.vegas, game.moves
(0, -52, 0)

Internals: cards are ints (see :mod:`.cards`); each column is a list, bottom
card first, whose first ``down[c]`` cards are face down; the stock and the
waste are lists whose *last* item is the top card. Undo keeps a compact record
per move (what the move cannot recompute) rather than copies of the table.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Iterator
from typing import Any, Final

from . import assist, snapshot, views
from .cards import NAMES, RANK, RED, SUIT, SUIT_NAMES
from .codes import DealCode
from .deal import deal
from .errors import IllegalMoveError, InvalidNotationError, InvalidSnapshotError, NothingToUndoError
from .history import RECORD, UNDO_LIMIT, Record, make_record
from .moves import BY_PARTS, DRAW, FOUNDATION, FOUNDATIONS, FS, RECYCLE, STOCK, WASTE, Move
from .table import Outcome, Position

MAX_SCORE_DROP: Final = 100  # a recycle under Normal scoring costs this, clamped at 0

__all__ = ["RECORD", "UNDO_LIMIT", "Game", "Outcome", "Position", "Record", "make_record", "replay"]


_TO_FOUNDATION_FROM: Final = tuple(BY_PARTS[(s, FOUNDATION, 1)] for s in range(8))
#: ``_FITS_ON[card]``: the cards that may be put on ``card`` in a column.
_FITS_ON: Final = tuple(
    tuple(c for c in range(52) if RED[c] != RED[card] and RANK[c] + 1 == RANK[card])
    for card in range(52)
)
_FROM_FOUNDATION: Final = tuple(tuple(BY_PARTS[(f, t, 1)] for t in range(7)) for f in FOUNDATIONS)


class Game:
    """A game in progress: push moves, pop them, look at what the player sees.

    ``Game(code)`` starts the deal named by a :class:`DealCode` or its text.
    """

    __slots__ = (
        "allow_recycle",
        "code",
        "columns",
        "credited",
        "down",
        "draw_count",
        "fan",
        "foundations",
        "history",
        "moves",
        "packed_history",
        "points",
        "recycles",
        "stock",
        "turned_up",
        "waste",
    )

    code: DealCode
    draw_count: int
    allow_recycle: bool
    columns: list[list[int]]
    down: list[int]
    stock: list[int]
    waste: list[int]
    fan: int
    foundations: list[int]
    credited: int
    points: int
    moves: int
    recycles: int
    turned_up: int
    history: deque[Record]
    packed_history: bytearray  # the history's records as a snapshot stores them

    def __init__(self, code: DealCode | str, *, _dealt: bool = True) -> None:
        if isinstance(code, str):
            code = DealCode.parse(code)
        self._start(code)
        if not _dealt:  # for copy() and from_snapshot(), which set the table themselves
            return
        layout = deal(code.number)
        self.columns = [list(c) for c in layout.columns]
        self.down = [len(c) - 1 for c in layout.columns]
        self.stock = list(reversed(layout.stock))

    def _start(self, code: DealCode) -> None:
        self.code = code
        self.draw_count = code.draw
        self.allow_recycle = not code.vegas
        self.waste = []
        self.fan = 0
        self.foundations = [0, 0, 0, 0]
        self.credited = 0
        self.points = 0
        self.moves = 0
        self.recycles = 0
        self.turned_up = 0
        self.history = deque(maxlen=UNDO_LIMIT)
        self.packed_history = bytearray()

    # ------------------------------------------------------------------ figures

    @property
    def foundation_cards(self) -> int:
        """Cards on the foundations (52 is a win)."""
        f = self.foundations
        return f[0] + f[1] + f[2] + f[3]

    @property
    def vegas(self) -> int:
        """Vegas dollars: −52 plus 5 per card credited on its foundation."""
        return -52 + 5 * self.credited.bit_count()

    @property
    def is_won(self) -> bool:
        return self.foundation_cards == 52

    @property
    def undo_depth(self) -> int:
        """How many moves :meth:`pop` can take back now (at most 100)."""
        return len(self.history)

    def outcome(self) -> Outcome | None:
        """``'won'``, ``'stuck'`` (no legal move at all) or ``None`` while playing."""
        if self.is_won:
            return "won"
        if not self.has_legal_move():
            return "stuck"
        return None

    # ------------------------------------------------------------------ legality

    def reason_illegal(self, move: object) -> str | None:
        """Why ``move`` (a :class:`Move` or its notation) is illegal here, as a
        sentence for the player; ``None`` if legal.

        Checks this one move without generating the others. Anything that is not
        a move raises :class:`InvalidNotationError`, as :meth:`push` does.
        """
        move = _as_move(move)
        src, dst, n = move.source, move.target, move.count
        if src == STOCK:
            if self.stock:
                return None
            if self.waste:
                if self.allow_recycle:
                    return "the stock is empty: recycle the waste to draw again"
                return "the stock is spent: Vegas scoring allows one pass only"
            return "the stock and the waste are both empty"
        if dst == STOCK:
            if self.stock:
                return "the stock still has cards: recycle only when it is empty"
            if not self.allow_recycle:
                return "Vegas scoring allows no recycle: one pass through the stock"
            if not self.waste:
                return "the waste is empty: there is nothing to recycle"
            return None
        # the moving card
        if src == WASTE:
            if not self.waste:
                return "the waste is empty"
            card = self.waste[-1]
        elif src < 7:
            col = self.columns[src]
            if not col:
                return f"column {src + 1} is empty"
            up = len(col) - self.down[src]
            if n > up:
                return (f"column {src + 1} has {_cards(up)} face up, "
                        f"{n} cannot move together")
            card = col[-n]
        else:
            suit = src - FS
            top = self.foundations[suit]
            if not top:
                return f"the {SUIT_NAMES[suit]} foundation is empty"
            card = suit * 13 + top - 1
        # the target
        if dst == FOUNDATION:
            suit = SUIT[card]
            have = self.foundations[suit]
            if RANK[card] == have + 1:
                return None
            if have == 0:
                return (f"{NAMES[card]} cannot go to the foundation: "
                        f"the {SUIT_NAMES[suit]} foundation starts with its ace")
            return (f"{NAMES[card]} cannot go to the foundation: "
                    f"the {SUIT_NAMES[suit]} foundation is at {NAMES[suit * 13 + have - 1]}")
        target_col = self.columns[dst]
        if not target_col:
            if RANK[card] == 13:
                return None
            return f"{NAMES[card]} cannot go on an empty column: only a king can"
        under = target_col[-1]
        if RED[under] != RED[card] and RANK[under] == RANK[card] + 1:
            return None
        colour = "black" if RED[card] else "red"
        needed = RANK_TEXT[RANK[card] + 1] if RANK[card] < 13 else None
        if needed is None:
            return f"{NAMES[card]} cannot go on {NAMES[under]}: a king goes only on an empty column"
        return f"{NAMES[card]} cannot go on {NAMES[under]}: it needs a {colour} {needed}"

    def is_legal(self, move: object) -> bool:
        """Whether ``move`` (a :class:`Move` or its notation) can be played here;
        anything that is not a move raises :class:`InvalidNotationError`."""
        return self.reason_illegal(move) is None

    def legal_moves(self) -> list[Move]:
        """Every legal move, in a fixed order: foundations, waste, columns,
        foundation to column, then the stock."""
        moves: list[Move] = []
        add = moves.append
        cols, down, found = self.columns, self.down, self.foundations
        tops: list[int] = [c[-1] if c else -1 for c in cols]
        # to the foundations
        waste_top = self.waste[-1] if self.waste else -1
        if waste_top >= 0 and RANK[waste_top] == found[SUIT[waste_top]] + 1:
            add(_TO_FOUNDATION_FROM[WASTE])
        for s in range(7):
            card = tops[s]
            if card >= 0 and RANK[card] == found[SUIT[card]] + 1:
                add(_TO_FOUNDATION_FROM[s])
        # which columns take which card: the two that fit on each top, kings
        # on the empty columns
        takers: dict[int, list[int]] = {}
        empty: list[int] = []
        for t in range(7):
            top = tops[t]
            if top < 0:
                empty.append(t)
            else:
                for card in _FITS_ON[top]:
                    takers.setdefault(card, []).append(t)
        no_taker: list[int] = []
        # the waste to a column
        if waste_top >= 0:
            for t in (empty if RANK[waste_top] == 13 else takers.get(waste_top, no_taker)):
                add(BY_PARTS[(WASTE, t, 1)])
        # column to column, any face-up card with all on top of it
        for s in range(7):
            col = cols[s]
            size = len(col)
            for i in range(down[s], size):
                card = col[i]
                for t in (empty if RANK[card] == 13 else takers.get(card, no_taker)):
                    if t != s:
                        add(BY_PARTS[(s, t, size - i)])
        # a foundation's top back onto a column
        for f in range(4):
            if found[f]:
                card = f * 13 + found[f] - 1
                for t in (empty if RANK[card] == 13 else takers.get(card, no_taker)):
                    add(_FROM_FOUNDATION[f][t])
        if self.stock:
            add(DRAW)
        elif self.waste and self.allow_recycle:
            add(RECYCLE)
        return moves

    def has_legal_move(self) -> bool:
        """Whether any move is legal, stopping at the first one found."""
        if self.stock or (self.waste and self.allow_recycle):
            return True
        cols, found = self.columns, self.foundations
        tops = [c[-1] if c else -1 for c in cols]
        heads = [c[self.down[s]] if c else -1 for s, c in enumerate(cols)]
        sources = [self.waste[-1]] if self.waste else []
        sources += [f * 13 + found[f] - 1 for f in range(4) if found[f]]
        for card in tops:
            if card >= 0 and RANK[card] == found[SUIT[card]] + 1:
                return True
        for card in sources:
            if RANK[card] == found[SUIT[card]] + 1:
                return True
        for s, col in enumerate(cols):
            for i in range(self.down[s], len(col)):
                if any(t != s and _fits(col[i], tops[t]) for t in range(7)):
                    return True
        return any(_fits(card, top) for card in sources + heads if card >= 0 for top in tops)

    # ------------------------------------------------------------------ push / pop

    def push(self, move: object) -> None:
        """Play ``move`` (a :class:`Move` or its notation).

        Raises :class:`IllegalMoveError` with the reason, or
        :class:`InvalidNotationError` for anything that is not a move, changing
        nothing.
        """
        move = _as_move(move)
        reason = self.reason_illegal(move)
        if reason is not None:
            raise IllegalMoveError(move, reason)
        self.push_unchecked(move)

    def push_unchecked(self, move: Move) -> None:
        """Play ``move`` without checking it: for a move known to be legal here,
        one from :meth:`legal_moves` or that :meth:`reason_illegal` accepted.

        This is :meth:`push` without its check (python-chess draws the same line
        between ``push`` and its checked variants). A move that is not legal
        here leaves the game inconsistent; nothing detects it.
        """
        src, dst, n = move.source, move.target, move.count
        points, fan = self.points, self.fan
        flipped = False
        placed = -1
        credited = False
        drawn = 0
        if src == STOCK:
            stock, waste = self.stock, self.waste
            drawn = min(self.draw_count, len(stock))
            for _ in range(drawn):
                waste.append(stock.pop())
            self.fan = drawn
        elif dst == STOCK:
            self.waste.reverse()
            self.stock, self.waste = self.waste, self.stock
            self.fan = 0
            self.points = max(0, points - MAX_SCORE_DROP)
            self.recycles += 1
        else:
            cards: tuple[int, ...]
            if src == WASTE:
                card = self.waste.pop()
                if self.fan:
                    self.fan = fan - 1
                if dst != FOUNDATION:
                    self.points += 5
                cards = (card,)
            elif src < 7:
                col = self.columns[src]
                if n == 1:
                    card = col.pop()
                    cards = (card,)
                else:
                    cards = tuple(col[-n:])
                    del col[-n:]
                    card = cards[0]
                if col and len(col) == self.down[src]:
                    self.down[src] -= 1
                    self.turned_up += 1
                    self.points += 5
                    flipped = True
            else:
                suit = src - FS
                self.foundations[suit] -= 1
                card = suit * 13 + self.foundations[suit]
                cards = (card,)
            if dst == FOUNDATION:
                self.foundations[SUIT[card]] += 1
                placed = card
                bit = 1 << card
                if not self.credited & bit:
                    self.credited |= bit
                    self.points += 10
                    credited = True
            else:
                self.columns[dst].extend(cards)
        self.moves += 1
        record = make_record(move, points, fan, flipped, placed, credited, drawn)
        if len(self.history) == UNDO_LIMIT:  # the oldest record falls out
            del self.packed_history[:RECORD.size]
        self.history.append(record)
        self.packed_history += record.packed

    def pop(self) -> Move:
        """Undo the last move completely (cards, flips, score, counters); return it.

        Raises :class:`NothingToUndoError` when there is nothing to undo.
        """
        if not self.history:
            raise NothingToUndoError("nothing to undo")
        move, points, fan, flipped, placed, credited, drawn, _ = self.history.pop()
        del self.packed_history[-RECORD.size:]
        src, dst, n = move.source, move.target, move.count
        if src == STOCK:
            stock, waste = self.stock, self.waste
            for _ in range(drawn):
                stock.append(waste.pop())
        elif dst == STOCK:
            self.stock.reverse()
            self.stock, self.waste = self.waste, self.stock
            self.recycles -= 1
        else:
            if dst == FOUNDATION:
                self.foundations[SUIT[placed]] -= 1
                cards = [placed]
                if credited:
                    self.credited &= ~(1 << placed)
            else:
                col = self.columns[dst]
                cards = col[-n:]
                del col[-n:]
            if src == WASTE:
                self.waste.append(cards[0])
            elif src < 7:
                if flipped:
                    self.down[src] += 1
                    self.turned_up -= 1
                self.columns[src].extend(cards)
            else:
                self.foundations[src - FS] += 1
        self.points, self.fan = points, fan
        self.moves -= 1
        return move

    # ------------------------------------------------------------------ views and help

    def view(self, *, progress: bool = False) -> dict[str, Any]:
        """What the player sees, plus the legal moves: see :mod:`.views`. With
        ``progress``, also ``no_progress`` (:meth:`no_progress`, a search)."""
        return views.player_view(self, progress=progress)

    def public_view(self) -> dict[str, Any]:
        """What a spectator may see: the same secrecy, no legal moves."""
        return views.public_view(self)

    def can_autocomplete(self) -> bool:
        """Every tableau card face up and no unseen stock card."""
        return assist.can_autocomplete(self)

    def autocomplete_moves(self) -> list[Move] | None:
        """The moves that finish the game, when they were simulated to the win."""
        return assist.autocomplete_moves(self)

    def hint(self) -> Move | None:
        """One useful move, or ``None``: see :func:`.assist.hint`."""
        return assist.hint(self)

    def progress_moves(self) -> list[Move]:
        """The legal moves that start a shortest line of play to progress (a
        card turned face up, a stock card seen for the first time, a card on
        its foundation for the first time): see :func:`.assist.progress`."""
        return assist.progress(self).moves

    def no_progress(self) -> bool:
        """Not won, and no line of play can ever make progress again: the game
        cannot be won. See :func:`.assist.progress`."""
        return assist.progress(self).none

    def position(self) -> Position:
        """The position: what decides which moves are legal and what the game
        can still become. Two games are in the same position when their columns
        (cards, and how many lie face down) are the same whatever their order,
        and so are the stock and the waste (cards and order) and the
        foundations. Scores, counters, the draw-three fan and the history do
        not count. The value is hashable and compares equal exactly then."""
        columns = sorted(zip(self.down, map(tuple, self.columns), strict=True))
        return (tuple(columns), tuple(self.stock), tuple(self.waste), tuple(self.foundations))

    # ------------------------------------------------------------------ persistence

    def snapshot(self) -> bytes:
        """Compact bytes of the whole game, undo history included."""
        return snapshot.encode(self)

    @staticmethod
    def from_snapshot(data: object) -> Game:
        """The game of a :meth:`snapshot`; raises :class:`InvalidSnapshotError`.

        Checked whole: the bytes, every field, and the undo history, which must
        replay, move by move and legally, from the position it starts at to the
        position saved, giving back exactly its own records.
        """
        fields = snapshot.decode(data)
        game = Game(fields.code, _dealt=False)
        game.columns, game.down = fields.columns, fields.down
        game.stock, game.waste, game.fan = fields.stock, fields.waste, fields.fan
        game.foundations, game.credited = fields.foundations, fields.credited
        game.points, game.moves, game.recycles = fields.points, fields.moves, fields.recycles
        game.turned_up = fields.turned_up
        game.history.extend(fields.history)
        game.packed_history = bytearray(b"".join(r.packed for r in fields.history))
        game._check_history()
        return game

    def _check_history(self) -> None:
        """Raise :class:`InvalidSnapshotError` unless the undo records take the
        game back to a sound position from which they replay to this one."""
        start = self.copy()
        try:
            while start.history:
                start.pop()
        except (IndexError, KeyError, ValueError):
            raise InvalidSnapshotError("an undo record does not match the game") from None
        problem = start._unsound()
        if problem is not None:
            where = "the position the undo history starts at" if self.history else "the position"
            raise InvalidSnapshotError(f"{where} is not sound: {problem}")
        for record in self.history:
            if start.reason_illegal(record.move) is not None:
                raise InvalidSnapshotError(f"an undo record names a move that was not legal: "
                                           f"{record.move}")
            start.push_unchecked(record.move)
        if start._key() != self._key():
            raise InvalidSnapshotError("the undo records do not replay to the game saved")

    def _unsound(self) -> str | None:
        """What breaks the rules' invariants in this position, or ``None``."""
        if sorted(self.cards()) != list(range(52)):
            return "it does not hold each of the 52 cards once"
        for col, d in zip(self.columns, self.down, strict=True):
            if (col and d >= len(col)) or (not col and d):
                return "a column's top card must be face up"
            for upper, lower in zip(col[d:], col[d + 1:], strict=False):
                if not _fits(lower, upper):
                    return "a column's face-up cards are not a sequence"
        if any(f > 13 for f in self.foundations):
            return "a foundation holds more than 13 cards"
        if self.fan > min(self.draw_count, len(self.waste)) or self.credited >> 52:
            return "inconsistent waste fan or credits"
        home = sum(((1 << self.foundations[s]) - 1) << (13 * s) for s in range(4))
        if home & ~self.credited:
            return "a card on its foundation was never credited"
        if min(self.points, self.moves, self.recycles, self.turned_up) < 0:
            return "a counter is negative"
        if self.recycles and not self.allow_recycle:
            return "Vegas scoring allows no recycle"
        return None

    # ------------------------------------------------------------------ copies

    def copy(self, *, history: bool = True) -> Game:
        """An independent copy, with or without the undo history."""
        other = Game(self.code, _dealt=False)
        other.columns = [list(c) for c in self.columns]
        other.down = list(self.down)
        other.stock = list(self.stock)
        other.waste = list(self.waste)
        other.fan = self.fan
        other.foundations = list(self.foundations)
        other.credited = self.credited
        other.points = self.points
        other.moves = self.moves
        other.recycles = self.recycles
        other.turned_up = self.turned_up
        other.history = deque(self.history if history else (), maxlen=UNDO_LIMIT)
        other.packed_history = bytearray(self.packed_history if history else b"")
        return other

    def _key(self) -> tuple[object, ...]:
        return (
            self.code, tuple(map(tuple, self.columns)), tuple(self.down), tuple(self.stock),
            tuple(self.waste), self.fan, tuple(self.foundations), self.credited, self.points,
            self.moves, self.recycles, self.turned_up, tuple(self.history),
        )

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Game):
            return NotImplemented
        return self._key() == other._key()

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return (f"<Game {self.code} moves={self.moves} foundations={self.foundation_cards} "
                f"points={self.points} vegas={self.vegas}>")

    def cards(self) -> Iterator[int]:
        """Every card of the game, wherever it is (52 of them, always)."""
        for col in self.columns:
            yield from col
        yield from self.stock
        yield from self.waste
        for suit, count in enumerate(self.foundations):
            yield from range(suit * 13, suit * 13 + count)


RANK_TEXT: Final = ("", "ace", "2", "3", "4", "5", "6", "7", "8", "9", "10", "jack", "queen", "king")


def _fits(card: int, under: int) -> bool:
    """Whether ``card`` may be put on a column whose top is ``under`` (−1: empty)."""
    if under < 0:
        return RANK[card] == 13
    return RED[under] != RED[card] and RANK[under] == RANK[card] + 1


def _as_move(move: object) -> Move:
    """``move`` if it is a :class:`Move`, else the move its notation names."""
    if isinstance(move, Move):
        return move
    return Move.parse(move)  # refuses anything but text


def _cards(n: int) -> str:
    return "1 card" if n == 1 else f"{n} cards"


def replay(code: DealCode | str, moves: Iterable[Move | str]) -> Game:
    """The game after playing ``moves`` (notation or :class:`Move`; ``'undo'``
    undoes) from the start of ``code``.

    ``moves`` is a list (or any iterable) of moves: a bare string is refused
    with :class:`InvalidNotationError` rather than read one character at a
    time.
    """
    if isinstance(moves, (str, bytes)):
        raise InvalidNotationError(
            f"replay takes a list of moves, not one string: {moves!r} (write [{moves!r}])")
    game = Game(code)
    for move in moves:
        if isinstance(move, str) and move.strip().lower() == "undo":
            game.pop()
        else:
            game.push(move)
    return game
