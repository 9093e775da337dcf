"""Moves as frozen values, with the notation of docs/rules.md both ways.

>>> move = Move.parse("t2:3>t5")
>>> move
Move.parse('t2:3>t5')
>>> move.source, move.target, move.count
(1, 4, 3)
>>> str(Move.parse(" W>F "))
'w>f'

Piles are small integers: columns ``T1``..``T7`` are 0..6, then ``WASTE``,
``STOCK``, ``FOUNDATION`` (the target of a move "to its foundation", whose suit
the card decides) and the four foundations as sources, ``FS`` ``FH`` ``FD``
``FC``. A draw goes from the stock to the waste, a recycle from the waste to
the stock. Every possible move is built once, so :meth:`Move.parse` and the
engine hand out shared instances.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Final

from .errors import InvalidNotationError

T1, T2, T3, T4, T5, T6, T7 = range(7)
WASTE: Final = 7
STOCK: Final = 8
FOUNDATION: Final = 9
FS, FH, FD, FC = 10, 11, 12, 13
#: A foundation source pile for each suit index (S H D C).
FOUNDATIONS: Final = (FS, FH, FD, FC)

MAX_RUN: Final = 13  # a face-up run is at most king down to ace


@dataclass(frozen=True, slots=True)
class Move:
    """One move: ``count`` cards from ``source`` onto ``target``.

    Build moves with :meth:`parse` or the engine's :meth:`Game.legal_moves`;
    the constructor does not check that the combination makes sense.
    """

    source: int
    target: int
    count: int = 1
    #: the notation, kept on the shared instances (views write every legal move per move)
    _text: str = field(default="", init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        if not _well_formed(self.source, self.target, self.count):
            raise InvalidNotationError(
                f"Move({self.source!r}, {self.target!r}, {self.count!r}) is not a move"
            )

    @staticmethod
    def parse(text: object) -> Move:
        """The move written ``text`` (any case, surrounding space ignored).

        Raises :class:`InvalidNotationError` for anything else; ``undo`` is not
        a move and is refused here too.
        """
        if not isinstance(text, str):
            raise InvalidNotationError(f"a move is text, not {type(text).__name__}: {text!r}")
        key = text.strip().lower()
        move = _BY_NOTATION.get(key)
        if move is None:
            raise InvalidNotationError(_explain(text, key))
        return move

    @property
    def notation(self) -> str:
        """The docs/rules.md notation, as in ``str(move)``."""
        return _NOTATION[self]

    @property
    def is_draw(self) -> bool:
        return self.source == STOCK

    @property
    def is_recycle(self) -> bool:
        return self.target == STOCK

    def __str__(self) -> str:
        return self._text or _NOTATION[self]

    def __repr__(self) -> str:
        return f"Move.parse({_NOTATION[self]!r})"


def _well_formed(source: object, target: object, count: object) -> bool:
    """Whether the three numbers describe a move docs/rules.md can write down."""
    if type(source) is not int or type(target) is not int or type(count) is not int:
        return False
    if source == STOCK:
        return target == WASTE and count == 1
    if target == STOCK:
        return source == WASTE and count == 1
    column_target = 0 <= target <= 6
    if source == WASTE or FS <= source <= FC:
        return count == 1 and (column_target or (source == WASTE and target == FOUNDATION))
    if 0 <= source <= 6:
        if target == FOUNDATION:
            return count == 1
        return column_target and target != source and 1 <= count <= MAX_RUN
    return False


DRAW: Final = Move(STOCK, WASTE)
RECYCLE: Final = Move(WASTE, STOCK)


def _all_moves() -> dict[Move, str]:
    table: dict[Move, str] = {DRAW: "draw", RECYCLE: "recycle", Move(WASTE, FOUNDATION): "w>f"}
    for t in range(7):
        table[Move(WASTE, t)] = f"w>t{t + 1}"
    for s in range(7):
        table[Move(s, FOUNDATION)] = f"t{s + 1}>f"
        for t in range(7):
            if t != s:
                table[Move(s, t)] = f"t{s + 1}>t{t + 1}"
                for n in range(2, MAX_RUN + 1):
                    table[Move(s, t, n)] = f"t{s + 1}:{n}>t{t + 1}"
    for f, letter in zip(FOUNDATIONS, "shdc", strict=True):
        for t in range(7):
            table[Move(f, t)] = f"f{letter}>t{t + 1}"
    return table


_NOTATION: Final = _all_moves()
for _move, _text in _NOTATION.items():
    object.__setattr__(_move, "_text", _text)
_BY_NOTATION: Final = {text: move for move, text in _NOTATION.items()}
#: Shared instances by (source, target, count), for the move generator.
BY_PARTS: Final = {(m.source, m.target, m.count): m for m in _NOTATION}

_SHAPE = re.compile(r"^(?P<src>[a-z]+\d*)(?::(?P<n>\d+))?>(?P<dst>[a-z]+\d*)$")


def _explain(text: str, key: str) -> str:
    """Why ``text`` is not a move, as precisely as its shape allows."""
    if key == "undo":
        return "'undo' is not a move: it takes back the last one"
    m = _SHAPE.match(key)
    if m is None:
        return (f"{text!r} is not a move: expected 'draw', 'recycle' or SOURCE>TARGET "
                "like 'w>f', 't2:3>t5', 'fh>t4'")
    src, n, dst = m.group("src"), m.group("n"), m.group("dst")
    sources = {"w", "fs", "fh", "fd", "fc"} | {f"t{i}" for i in range(1, 8)}
    targets = {"f"} | {f"t{i}" for i in range(1, 8)}
    if src not in sources:
        return f"{text!r}: unknown source {src!r} (w, t1..t7, fs, fh, fd, fc)"
    if dst not in targets:
        return f"{text!r}: unknown target {dst!r} (f, t1..t7)"
    if src == dst:
        return f"{text!r}: a card cannot move onto its own column"
    if n is not None:
        if not src.startswith("t") or dst == "f":
            return f"{text!r}: ':n' counts cards moved from a column to a column"
        if not 2 <= int(n) <= MAX_RUN:
            return f"{text!r}: the count must be 2..{MAX_RUN} (write none for one card)"
    if src.startswith("f") and dst == "f":
        return f"{text!r}: a foundation card goes back to a column, not to a foundation"
    return f"{text!r} is not a move in the notation of docs/rules.md"
