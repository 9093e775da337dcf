"""What the views, the assists and the snapshot codec read of a game.

:class:`Table` is the shape of :class:`~server.klondike.game.Game` as those
modules see it, so that they take a game without importing the module that
defines it (``game`` imports them). It adds nothing at run time.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Hashable
from typing import Literal, Protocol

from .codes import DealCode
from .history import Record
from .moves import Move

Outcome = Literal["won", "stuck"]

#: A position: see :meth:`Game.position`.
Position = Hashable


class Table(Protocol):
    """A game's state: the table, the figures, the undo history."""

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
    packed_history: bytearray

    @property
    def foundation_cards(self) -> int: ...

    @property
    def vegas(self) -> int: ...

    @property
    def is_won(self) -> bool: ...

    @property
    def undo_depth(self) -> int: ...

    def outcome(self) -> Outcome | None: ...

    def legal_moves(self) -> list[Move]: ...

    def push_unchecked(self, move: Move) -> None: ...

    def pop(self) -> Move: ...

    def copy(self, *, history: bool = True) -> Table: ...

    def position(self) -> Position: ...
