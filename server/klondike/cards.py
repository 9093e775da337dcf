"""Cards as small integers, and their text form.

A card is its index ``suit * 13 + (rank - 1)`` with suits in the fixed order
S H D C, so ``AS`` is 0, ``KS`` 12, ``AH`` 13 and ``KC`` 51 (docs/rules.md, Cards).
Integers keep the engine fast; :func:`parse_card` and :func:`card_name` are the
two directions of the text form.
"""

from __future__ import annotations

from typing import Final, NewType

from .errors import InvalidCardError

Card = NewType("Card", int)

SUITS: Final = "SHDC"
RANKS: Final = "A23456789TJQK"
SUIT_NAMES: Final = ("spades", "hearts", "diamonds", "clubs")
RANK_NAMES: Final = (
    "ace", "2", "3", "4", "5", "6", "7", "8", "9", "10", "jack", "queen", "king",
)

#: ``NAMES[card]`` is the card's text, ``RANK[card]`` its rank (1..13),
#: ``SUIT[card]`` its suit index (0..3), ``RED[card]`` whether it is red.
NAMES: Final = tuple(r + s for s in SUITS for r in RANKS)
RANK: Final = tuple(i % 13 + 1 for i in range(52))
SUIT: Final = tuple(i // 13 for i in range(52))
RED: Final = tuple(SUIT[i] in (1, 2) for i in range(52))

_BY_NAME: Final = {name: Card(i) for i, name in enumerate(NAMES)}


def parse_card(text: object) -> Card:
    """The card named by ``text`` (rank then suit, any case).

    >>> parse_card("7H"), parse_card("as"), parse_card("KC")
    (19, 0, 51)
    """
    try:
        if not isinstance(text, str) or not text.isascii():
            raise KeyError(text)
        return _BY_NAME[text.strip().upper()]
    except (KeyError, AttributeError):
        raise InvalidCardError(
            f"{text!r} is not a card: expected a rank of {RANKS} then a suit of {SUITS}, like '7H'"
        ) from None


def card_name(card: int) -> str:
    """The text of ``card``: ``card_name(19) == '7H'``.

    >>> card_name(0), card_name(51)
    ('AS', 'KC')
    """
    if not 0 <= card < 52:
        raise InvalidCardError(f"{card!r} is not a card index (0..51)")
    return NAMES[card]


def long_name(card: int) -> str:
    """The card in words, for people and screen readers: ``'7 of hearts'``."""
    card_name(card)  # checks the index
    return f"{RANK_NAMES[RANK[card] - 1]} of {SUIT_NAMES[SUIT[card]]}"


def colour(card: int) -> str:
    """``'red'`` or ``'black'``."""
    return "red" if RED[card] else "black"
