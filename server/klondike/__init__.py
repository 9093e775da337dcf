"""Klondike Race's rules engine: KL1 and KL2 deals played exactly as docs/rules.md says.

A pure library (standard library only), in the spirit of python-chess::

    >>> from server.klondike import Game
    >>> game = Game("KL1-D1N-AAAAAAG")
    >>> move = game.legal_moves()[0]
    >>> game.push(move)
    >>> game.pop() == move
    True

Errors (all ``ValueError``)::

    EngineError
    ├── InvalidCardError
    ├── InvalidDealCodeError
    ├── InvalidNotationError
    ├── IllegalMoveError          .move, .reason
    ├── NothingToUndoError
    └── InvalidSnapshotError

The modules run compiled by mypyc where ``.ci/bootstrap`` could build them,
else as plain Python (``KR_PURE=1`` asks for plain Python): :data:`BUILD`
says which, and why (see :mod:`._native`).

See docs/engine.md for the whole API.
"""

from ._native import BUILD, COMPILED, settle
from .cards import Card, card_name, long_name, parse_card
from .codes import KL1, KL2, CodeFormat, DealCode
from .deal import Layout, SplitMix64, deal, shuffled_deck
from .errors import (
    EngineError,
    IllegalMoveError,
    InvalidCardError,
    InvalidDealCodeError,
    InvalidNotationError,
    InvalidSnapshotError,
    NothingToUndoError,
)
from .game import UNDO_LIMIT, Game, Outcome, replay
from .moves import DRAW, RECYCLE, Move

settle()

__all__ = [
    "BUILD",
    "COMPILED",
    "DRAW",
    "KL1",
    "KL2",
    "RECYCLE",
    "UNDO_LIMIT",
    "Card",
    "CodeFormat",
    "DealCode",
    "EngineError",
    "Game",
    "IllegalMoveError",
    "InvalidCardError",
    "InvalidDealCodeError",
    "InvalidNotationError",
    "InvalidSnapshotError",
    "Layout",
    "Move",
    "NothingToUndoError",
    "Outcome",
    "SplitMix64",
    "card_name",
    "deal",
    "long_name",
    "parse_card",
    "replay",
    "shuffled_deck",
]
