"""Names people choose: nicknames and tournament names. Pure.

A name is taken NFKC-normalised (full-width letters, ligatures and
mathematical alphanumerics become plain letters: ``ａｎｎ`` and ``𝕒𝕟𝕟`` are
``ann``), its runs of white space collapsed to one space and trimmed. A name
with a control, bidi, format or other invisible character (``\\x00``,
``\\x1b``, ``\\u202e``, zero-width spaces, Hangul fillers, variation
selectors...) is refused, never silently cleaned: what a player typed is what
the others see, or nothing.

Two names are the same name when their *folded* forms are equal
(:func:`fold`): NFKC, then every Cyrillic, Greek, Armenian or Latin
look-alike of a Latin letter (``а``, ``ο``, ``ı``...) and the digits ``0``
and ``1`` replaced by that letter, after case folding. So ``ann``, ``ANN``,
``ａｎｎ``, ``аnn`` (Cyrillic а) and ``𝕒𝕟𝕟`` cannot sit in one room. The table
is ours and small: the look-alikes of the scripts whose letters copy the
Latin ones, taken from Unicode's confusables (UTS #39), not the whole of it.
Capital ``I`` and small ``l`` stay apart: case folding already makes ``I``
an ``i``, and folding ``i`` with ``l`` would refuse ``ian`` beside ``lan``.

>>> normalise("  ａｎｎ \\t  smith ")
'ann smith'
>>> fold("АNN"), fold("𝕒𝕟𝕟"), fold("b0b"), fold("Zoë")
('ann', 'ann', 'bob', 'zoë')
>>> check_nickname("аnn") == "аnn", same_name("аnn", "Ann")
(True, True)
>>> check_nickname("ann\\u202e")
Traceback (most recent call last):
...
server.race.errors.RaceError: a nickname may not hold control, bidi or invisible characters
"""

from __future__ import annotations

import unicodedata
from typing import Final

from ..protocol.reasons import Reason
from .errors import RaceError

MAX_NICKNAME: Final = 20
NICKNAME_PUNCTUATION: Final = " -_.'"

#: white space a name may hold (collapsed to one space); any other control is refused
_SPACES: Final = frozenset("\t\n\r")
#: character categories never allowed: controls, format (bidi, zero-width), surrogates,
#: private use, unassigned, line and paragraph separators
_REFUSED_CATEGORIES: Final = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})
#: invisible characters of other categories (fillers, blanks, joiners, selectors)
_INVISIBLE: Final = frozenset(
    "\u115f\u1160\u3164\uffa0"  # Hangul fillers (letters that show nothing)
    "\u2800"  # braille pattern blank
    "\u034f"  # combining grapheme joiner
    "\u17b4\u17b5"  # Khmer inherent vowels
    "\u180b\u180c\u180d\u180f"  # Mongolian variation selectors
    + "".join(chr(c) for c in range(0xFE00, 0xFE10))  # variation selectors
    + "".join(chr(c) for c in range(0xE0100, 0xE01F0))  # variation selectors supplement
)

#: look-alikes of Latin letters and of digits, as they are once case folded
#: (a capital's look-alike wins where the small letter looks like another:
#: Greek ``ν`` is ``n``, like ``Ν``)
_LOOK_ALIKES: Final = {
    # Cyrillic
    "а": "a", "в": "b", "е": "e", "з": "3", "ѕ": "s", "і": "i", "ј": "j", "к": "k", "м": "m",
    "н": "h", "о": "o", "р": "p", "с": "c", "т": "t", "х": "x", "у": "y", "ү": "y", "һ": "h",
    "ԛ": "q", "ԝ": "w", "ӏ": "l", "ԁ": "d",
    # Greek
    "α": "a", "β": "b", "ε": "e", "ζ": "z", "η": "h", "ι": "i", "κ": "k", "μ": "m", "ν": "n",
    "ο": "o", "ρ": "p", "τ": "t", "υ": "y", "χ": "x", "ϲ": "c", "ϳ": "j",
    # Armenian
    "օ": "o", "ս": "u", "հ": "h", "ո": "n", "ց": "g",
    # Latin letters that pass for others
    "ı": "i", "ɑ": "a", "ɡ": "g", "ɪ": "i", "ʏ": "y", "ʜ": "h", "ɴ": "n", "ʀ": "r", "ᴅ": "d",
    # digits that pass for letters
    "0": "o", "1": "l",
}
_FOLD_TABLE: Final = str.maketrans(_LOOK_ALIKES)


def normalise(text: str) -> str:
    """NFKC, runs of white space as one space, trimmed (nothing refused here)."""
    spaced = "".join(" " if ch in _SPACES or unicodedata.category(ch) == "Zs" else ch
                     for ch in unicodedata.normalize("NFKC", text))
    return " ".join(part for part in spaced.split(" ") if part)


def invisible(text: str) -> str | None:
    """The first control, bidi, format or invisible character of ``text``, if any."""
    for ch in text:
        if ch in _SPACES:
            continue
        if ch in _INVISIBLE or unicodedata.category(ch) in _REFUSED_CATEGORIES:
            return ch
    return None


def fold(name: str) -> str:
    """The form two names are compared by: NFKC, case folded (a compatibility
    caseless match), then look-alikes as the letter they pass for."""
    nfkc = unicodedata.normalize
    return nfkc("NFKC", nfkc("NFKC", name).casefold()).translate(_FOLD_TABLE)


def same_name(a: str, b: str) -> bool:
    return fold(a) == fold(b)


def taken_text(name: str, taken: str, where: str) -> str:
    """Why ``name`` is refused beside ``taken``, a name it is the same as."""
    if name.casefold() == taken.casefold():
        return f"the nickname {name!r} is taken in {where}"
    return f"the nickname {name!r} is too like {taken!r}, taken in {where}"


def check_nickname(nickname: str) -> str:
    """The nickname, normalised, if it is 1 to 20 letters, digits, spaces or ``-_.'``."""
    if invisible(nickname) is not None:
        raise RaceError(Reason.BAD_NICKNAME,
                        "a nickname may not hold control, bidi or invisible characters")
    name = normalise(nickname)
    ok = 1 <= len(name) <= MAX_NICKNAME and invisible(name) is None and all(
        ch.isalnum() or ch in NICKNAME_PUNCTUATION for ch in name)
    if not ok:
        raise RaceError(Reason.BAD_NICKNAME)
    return name


def check_name(text: str, *, what: str, longest: int) -> str:
    """A free-form name (a tournament's), normalised: any visible characters,
    1 to ``longest`` of them once normalised."""
    bad = invisible(text)
    if bad is not None:
        raise RaceError(Reason.BAD_SETTINGS, f"{what} may not hold control, bidi or invisible "
                                             f"characters (found U+{ord(bad):04X})")
    name = normalise(text)
    if not 1 <= len(name) <= longest or invisible(name) is not None:
        raise RaceError(Reason.BAD_SETTINGS, f"{what} is 1 to {longest} characters")
    return name
