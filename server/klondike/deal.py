"""From a deal number to the cards on the table (docs/rules.md, "From a deal number to the table").

>>> from .cards import card_name
>>> [card_name(c) for c in shuffled_deck(0)[:5]]
['8C', 'JD', '9S', '2C', '2H']
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

_MASK: Final = (1 << 64) - 1
_GAMMA: Final = 0x9E3779B97F4A7C15
_M1: Final = 0xBF58476D1CE4E5B9
_M2: Final = 0x94D049BB133111EB


class SplitMix64:
    """The SplitMix64 generator, state = the deal number.

    >>> rng = SplitMix64(0)
    >>> hex(rng.next())
    '0xe220a8397b1dcdaf'
    """

    __slots__ = ("state",)

    def __init__(self, state: int) -> None:
        self.state = state & _MASK

    def next(self) -> int:
        self.state = (self.state + _GAMMA) & _MASK
        z = self.state
        z = ((z ^ (z >> 30)) * _M1) & _MASK
        z = ((z ^ (z >> 27)) * _M2) & _MASK
        return z ^ (z >> 31)

    def below(self, n: int) -> int:
        """A uniform integer in ``0..n-1``, by rejection (no modulo bias)."""
        limit = (1 << 64) - ((1 << 64) % n)
        while True:
            x = self.next()
            if x < limit:
                return x % n


def shuffled_deck(number: int) -> list[int]:
    """The 52 card indexes after the Fisher-Yates shuffle seeded by ``number``."""
    deck = list(range(52))
    state = number & _MASK
    for i in range(51, 0, -1):
        n = i + 1
        limit = (1 << 64) - ((1 << 64) % n)
        while True:  # SplitMix64 and below(n), inlined: this is the deal's hot loop
            state = (state + _GAMMA) & _MASK
            z = ((state ^ (state >> 30)) * _M1) & _MASK
            z = ((z ^ (z >> 27)) * _M2) & _MASK
            z ^= z >> 31
            if z < limit:
                break
        j = z % n
        deck[i], deck[j] = deck[j], deck[i]
    return deck


@dataclass(frozen=True, slots=True)
class Layout:
    """A fresh deal: columns bottom card first, the last card of each face up;
    the stock top card (drawn first) first."""

    columns: tuple[tuple[int, ...], ...]
    stock: tuple[int, ...]


def deal(number: int) -> Layout:
    """Deal row by row like a person at a table: column c gets c + 1 cards."""
    deck = shuffled_deck(number)
    columns: list[list[int]] = [[] for _ in range(7)]
    k = 0
    for row in range(7):
        for col in range(row, 7):
            columns[col].append(deck[k])
            k += 1
    return Layout(tuple(tuple(c) for c in columns), tuple(deck[28:]))
