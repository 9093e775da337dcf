"""The engine's exceptions.

All of them derive from :class:`EngineError`, itself a :class:`ValueError`::

    EngineError
    ├── InvalidCardError          a card's text is not a card
    ├── InvalidDealCodeError      a KL1/KL2 code is malformed; says which part
    ├── InvalidNotationError      a move's text is not docs/rules.md notation
    ├── IllegalMoveError          a well-formed move the position refuses
    ├── NothingToUndoError        undo with no move left to undo
    └── InvalidSnapshotError      bytes that are not a snapshot of a game
"""

from __future__ import annotations

from typing import Protocol


class MoveLike(Protocol):
    """What an error keeps of a move: a :class:`~server.klondike.moves.Move`
    (this module is the engine's leaf and imports no other)."""

    @property
    def source(self) -> int: ...

    @property
    def target(self) -> int: ...

    @property
    def count(self) -> int: ...

    @property
    def notation(self) -> str: ...


class EngineError(ValueError):
    """Root of every error the engine raises."""


class InvalidCardError(EngineError):
    """A card's text is not rank then suit, like ``7H`` or ``TS``."""


class InvalidDealCodeError(EngineError):
    """A KL1 or KL2 deal code is malformed; the message names the part at fault."""


class InvalidNotationError(EngineError):
    """A move's text is not in the notation of docs/rules.md."""


class IllegalMoveError(EngineError):
    """A move the current position does not allow.

    ``reason`` is a sentence a player understands; the game is unchanged.
    """

    def __init__(self, move: MoveLike, reason: str) -> None:
        super().__init__(f"illegal move {move.notation!r}: {reason}")
        self.move = move
        self.reason = reason


class NothingToUndoError(EngineError):
    """Undo was asked with no move left to undo (none played, or 100 undone)."""


class InvalidSnapshotError(EngineError):
    """Bytes given to :meth:`Game.from_snapshot` are not a valid snapshot."""
