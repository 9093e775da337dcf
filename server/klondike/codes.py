"""Deal codes: ``KL2-D1N-AAAAAAAAAAAAG`` names a deal, its draw mode and scoring.

Two formats share one shape, the same deals and the same shuffle, and differ
only in how many base-32 digits carry the deal number (docs/rules.md):
:data:`KL1` (7 digits, 35 bits: a code people type) and :data:`KL2` (13
digits, 64 bits: what the server draws, too many numbers for a brute force).
A code is written back in its own format; a KL1 number is the same deal in KL2.

>>> code = DealCode.parse(" kl1-d3v-aaaaaag ")
>>> code
DealCode.parse('KL1-D3V-AAAAAAG')
>>> code.number, code.draw, code.scoring, code.vegas, code.format.prefix
(6, 3, 'V', True, 'KL1')
>>> str(DealCode(number=34359738367, draw=1, scoring="N"))
'KL1-D1N-7777777'
>>> DealCode.parse("kl2-d3v-aaaaaaaaaaaag").number
6
>>> str(DealCode(2**64 - 1, 1, "N", KL2))
'KL2-D1N-P777777777777'
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from typing import Final, Literal

from .errors import InvalidDealCodeError

ALPHABET: Final = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
_VALUE: Final = {ch: i for i, ch in enumerate(ALPHABET)}

Draw = Literal[1, 3]
Scoring = Literal["N", "V"]


@dataclass(frozen=True, slots=True)
class CodeFormat:
    """A code format: its version (``KL1``, ``KL2``), how many base-32 digits
    its deal number has, and how many bits of them a number may use.

    >>> KL2.max_number == 2**64 - 1, KL2.first_digits
    (True, 'ABCDEFGHIJKLMNOP')
    """

    version: int
    digits: int
    bits: int

    @property
    def prefix(self) -> str:
        """The code's first part, like ``'KL2'``."""
        return f"KL{self.version}"

    @property
    def max_number(self) -> int:
        return (1 << self.bits) - 1

    @property
    def first_digits(self) -> str:
        """The digits a number of this format may start with."""
        return ALPHABET[:(self.max_number >> (5 * (self.digits - 1))) + 1]

    def __repr__(self) -> str:
        return self.prefix


#: the format of codes people type and share; 2^35 deals, few enough to search
KL1: Final = CodeFormat(version=1, digits=7, bits=35)
#: the format of every deal the server draws; 2^64 deals
KL2: Final = CodeFormat(version=2, digits=13, bits=64)
FORMATS: Final = {f.prefix: f for f in (KL1, KL2)}


def code_format(version: int) -> CodeFormat:
    """The format of that version (a snapshot stores the version)."""
    found = FORMATS.get(f"KL{version}")
    if found is None:
        raise InvalidDealCodeError(f"unknown deal code format version {version!r}: expected 1 or 2")
    return found


@dataclass(frozen=True, slots=True)
class DealCode:
    """A parsed deal code. ``str(code)`` is its canonical (upper-case) form,
    in its own format."""

    number: int
    draw: Draw = 1
    scoring: Scoring = "N"
    format: CodeFormat = KL1

    def __post_init__(self) -> None:
        if self.format not in (KL1, KL2):
            raise InvalidDealCodeError(f"format {self.format!r} must be KL1 or KL2")
        top = self.format.max_number
        if type(self.number) is not int or not 0 <= self.number <= top:
            raise InvalidDealCodeError(
                f"deal number {self.number!r} is outside 0..{top} of a {self.format.prefix} code")
        if type(self.draw) is not int or self.draw not in (1, 3):
            raise InvalidDealCodeError(f"draw {self.draw!r} must be 1 or 3")
        if self.scoring not in ("N", "V"):
            raise InvalidDealCodeError(f"scoring {self.scoring!r} must be 'N' or 'V'")

    @classmethod
    def parse(cls, text: object) -> DealCode:
        """Parse a KL1 or KL2 code, ignoring surrounding white space and letter case.

        Raises :class:`InvalidDealCodeError` naming the part that is wrong.

        >>> DealCode.parse("KL1-D2N-AAAAAAG")
        Traceback (most recent call last):
        ...
        server.klondike.errors.InvalidDealCodeError: bad draw digit '2' in 'KL1-D2N-AAAAAAG': expected 1 or 3
        >>> DealCode.parse("KL2-D1N-Q777777777777")
        Traceback (most recent call last):
        ...
        server.klondike.errors.InvalidDealCodeError: deal number 'Q777777777777' in ...
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
        fmt = FORMATS.get(prefix)
        if fmt is None:
            raise InvalidDealCodeError(f"bad prefix {prefix!r} in {text!r}: expected 'KL1' or 'KL2'")
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
        if len(digits) != fmt.digits:
            raise InvalidDealCodeError(
                f"bad deal number length in {text!r}: {len(digits)} characters, "
                f"expected {fmt.digits} in a {fmt.prefix} code"
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
        if number > fmt.max_number:  # 13 digits hold 65 bits, a KL2 number 64
            raise InvalidDealCodeError(
                f"deal number {digits!r} in {text!r} is 2^{fmt.bits} or more: a {fmt.prefix} "
                f"deal number has {fmt.bits} bits, so its first digit is A to {fmt.first_digits[-1]}"
            )
        return cls(number, 1 if mode[1] == "1" else 3, "N" if mode[2] == "N" else "V", fmt)

    @classmethod
    def random(cls, draw: Draw = 1, scoring: Scoring = "N", *, format: CodeFormat = KL2) -> DealCode:
        """A code for a deal drawn with :mod:`secrets` (unguessable), over the
        whole range of ``format``: KL2, so that no brute force can find it."""
        return cls(secrets.randbits(format.bits), draw, scoring, format)

    @property
    def vegas(self) -> bool:
        """Vegas scoring: one pass through the stock, dollars shown."""
        return self.scoring == "V"

    @property
    def mode(self) -> str:
        """The middle part, like ``'D1N'``: public, unlike the deal number."""
        return f"D{self.draw}{self.scoring}"

    def with_deal(self, number: int) -> DealCode:
        """The same format, draw mode and scoring on another deal."""
        return DealCode(number, self.draw, self.scoring, self.format)

    def __str__(self) -> str:
        n, size = self.number, self.format.digits
        digits = "".join(ALPHABET[(n >> (5 * i)) & 31] for i in range(size - 1, -1, -1))
        return f"{self.format.prefix}-D{self.draw}{self.scoring}-{digits}"

    def __repr__(self) -> str:
        return f"DealCode.parse({str(self)!r})"
