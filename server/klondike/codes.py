"""KL1 deal codes: ``KL1-D1N-AAAAAAG`` names a deal, its draw mode and scoring.

>>> code = DealCode.parse(" kl1-d3v-aaaaaag ")
>>> code
DealCode.parse('KL1-D3V-AAAAAAG')
>>> code.number, code.draw, code.scoring, code.vegas
(6, 3, 'V', True)
>>> str(DealCode(number=34359738367, draw=1, scoring="N"))
'KL1-D1N-7777777'
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from typing import Final, Literal

from .errors import InvalidDealCodeError

ALPHABET: Final = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
NUMBER_LENGTH: Final = 7
MAX_NUMBER: Final = 32**NUMBER_LENGTH - 1
_VALUE: Final = {ch: i for i, ch in enumerate(ALPHABET)}

Draw = Literal[1, 3]
Scoring = Literal["N", "V"]


@dataclass(frozen=True, slots=True)
class DealCode:
    """A parsed KL1 code. ``str(code)`` is its canonical (upper-case) form."""

    number: int
    draw: Draw = 1
    scoring: Scoring = "N"

    def __post_init__(self) -> None:
        if type(self.number) is not int or not 0 <= self.number <= MAX_NUMBER:
            raise InvalidDealCodeError(f"deal number {self.number!r} is outside 0..{MAX_NUMBER}")
        if type(self.draw) is not int or self.draw not in (1, 3):
            raise InvalidDealCodeError(f"draw {self.draw!r} must be 1 or 3")
        if self.scoring not in ("N", "V"):
            raise InvalidDealCodeError(f"scoring {self.scoring!r} must be 'N' or 'V'")

    @classmethod
    def parse(cls, text: str) -> DealCode:
        """Parse ``text``, ignoring surrounding white space and letter case.

        Raises :class:`InvalidDealCodeError` naming the part that is wrong.

        >>> DealCode.parse("KL1-D2N-AAAAAAG")
        Traceback (most recent call last):
        ...
        server.klondike.errors.InvalidDealCodeError: bad draw digit '2' in 'KL1-D2N-AAAAAAG': expected 1 or 3
        """
        if not isinstance(text, str):
            raise InvalidDealCodeError(f"a deal code is text, not {type(text).__name__}: {text!r}")
        s = text.strip()
        odd = next((ch for ch in s if not ch.isascii()), None)
        if odd is not None:  # "ı".upper() is "I": no letter may become a code's by case
            raise InvalidDealCodeError(f"bad character {odd!r} in {text!r}: a code is ASCII")
        s = s.upper()
        parts = s.split("-")
        if len(parts) != 3:
            raise InvalidDealCodeError(
                f"{text!r} is not a deal code: expected three parts like 'KL1-D1N-AAAAAAG'"
            )
        prefix, mode, digits = parts
        if prefix != "KL1":
            raise InvalidDealCodeError(f"bad prefix {prefix!r} in {text!r}: expected 'KL1'")
        if len(mode) != 3 or mode[0] != "D":
            raise InvalidDealCodeError(
                f"bad mode {mode!r} in {text!r}: expected 'D', a draw digit and a scoring letter, "
                "like 'D1N'"
            )
        if mode[1] not in "13":
            raise InvalidDealCodeError(
                f"bad draw digit {mode[1]!r} in {text!r}: expected 1 or 3"
            )
        if mode[2] not in "NV":
            raise InvalidDealCodeError(
                f"bad scoring letter {mode[2]!r} in {text!r}: expected N (Normal) or V (Vegas)"
            )
        if len(digits) != NUMBER_LENGTH:
            raise InvalidDealCodeError(
                f"bad deal number length in {text!r}: {len(digits)} characters, "
                f"expected {NUMBER_LENGTH}"
            )
        number = 0
        for ch in digits:
            value = _VALUE.get(ch)
            if value is None:
                raise InvalidDealCodeError(
                    f"bad character {ch!r} in the deal number of {text!r}: "
                    f"the alphabet is {ALPHABET}"
                )
            number = number * 32 + value
        return cls(number, 1 if mode[1] == "1" else 3, "N" if mode[2] == "N" else "V")

    @classmethod
    def random(cls, draw: Draw = 1, scoring: Scoring = "N") -> DealCode:
        """A code for a deal drawn with :mod:`secrets` (unguessable)."""
        return cls(secrets.randbelow(MAX_NUMBER + 1), draw, scoring)

    @property
    def vegas(self) -> bool:
        """Vegas scoring: one pass through the stock, dollars shown."""
        return self.scoring == "V"

    @property
    def mode(self) -> str:
        """The middle part, like ``'D1N'``: public, unlike the deal number."""
        return f"D{self.draw}{self.scoring}"

    def with_deal(self, number: int) -> DealCode:
        """The same draw mode and scoring on another deal."""
        return DealCode(number, self.draw, self.scoring)

    def __str__(self) -> str:
        n = self.number
        digits = "".join(ALPHABET[(n >> (5 * i)) & 31] for i in range(NUMBER_LENGTH - 1, -1, -1))
        return f"KL1-D{self.draw}{self.scoring}-{digits}"

    def __repr__(self) -> str:
        return f"DealCode.parse({str(self)!r})"
