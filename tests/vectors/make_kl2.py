"""Write kl2.json: the KL2 test vectors, from docs/rules.md alone.

An implementation of its own of docs/rules.md's "KL2 deal codes" and "From a
deal number to the table" (SplitMix64, the unbiased draw, Fisher-Yates, the
deal row by row, base 32 of RFC 4648): nothing here imports the engine, so the
vectors can catch an engine bug instead of repeating it. Before it writes,
it checks itself against the 40 published deals of ``kl1.json``.

Run it by hand, from the repository's root, only when the rules change on
purpose (and say why in the commit)::

    .venv/bin/python tests/vectors/make_kl2.py

``tests/klondike/test_kl2_vectors.py`` runs :func:`vectors` again and checks
that the file is exactly what it gives, then holds the engine to the file.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
KL2_FILE = HERE / "kl2.json"
KL1_FILE = HERE / "kl1.json"

BASE32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"  # RFC 4648: A..Z = 0..25, 2..7 = 26..31
CARDS = [rank + suit for suit in "SHDC" for rank in "A23456789TJQK"]  # index = suit * 13 + rank - 1
MOD = 2**64


def splitmix64(state: int) -> tuple[int, int]:
    """One step of the generator: the new state and the value it returns."""
    state = (state + 0x9E3779B97F4A7C15) % MOD
    z = state
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) % MOD
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) % MOD
    return state, z ^ (z >> 31)


def deck_of(number: int) -> list[str]:
    """The 52 cards after the shuffle seeded by ``number`` (0 <= number < 2^64)."""
    assert 0 <= number < MOD
    state = number
    deck = list(range(52))
    for i in range(51, 0, -1):
        n = i + 1
        limit = MOD - MOD % n
        while True:
            state, x = splitmix64(state)
            if x < limit:
                break
        j = x % n
        deck[i], deck[j] = deck[j], deck[i]
    return [CARDS[c] for c in deck]


def table_of(deck: list[str]) -> tuple[list[dict[str, list[str]]], list[str]]:
    """The tableau (row by row: column c gets c + 1 cards, the last face up) and the stock."""
    columns: list[list[str]] = [[] for _ in range(7)]
    cards = iter(deck)
    for row in range(7):
        for col in range(row, 7):
            columns[col].append(next(cards))
    return [{"down": col[:-1], "up": col[-1:]} for col in columns], deck[28:]


def digits(number: int, count: int) -> str:
    """``number`` in ``count`` base-32 digits, most significant first."""
    out = ""
    for _ in range(count):
        out = BASE32[number % 32] + out
        number //= 32
    assert number == 0
    return out


def kl1(number: int, mode: str) -> str:
    return f"KL1-{mode}-{digits(number, 7)}"


def kl2(number: int, mode: str) -> str:
    return f"KL2-{mode}-{digits(number, 13)}"


def spread(count: int, seed: int) -> list[int]:
    """Numbers spread over the whole 64-bit range, the same at every run."""
    out, state = [], seed
    for _ in range(count):
        state, x = splitmix64(state)
        out.append(x)
    return out


MODES = ("D1N", "D3N", "D1V", "D3V")

#: the deals of kl2.json: the edges of the ranges, the first numbers a KL1 code
#: cannot hold, numbers with high bits set, and numbers spread over 64 bits
NUMBERS = [
    0, 6, 2**35 - 1, 2**35, 2**35 + 1, 2**40, 2**48 + 12345, 2**56 - 1,
    2**63 - 1, 2**63, 2**64 - 2**32, 2**64 - 2, 2**64 - 1,
    *spread(11, seed=2025),
]

#: KL1 numbers that kl2.json pairs with their KL2 code (the same deal), and
#: six deals of kl1.json in their own modes
PAIRED = [0, 6, 32, 2**20 + 7, 2**35 - 1]


def deal_entry(number: int, mode: str) -> dict[str, Any]:
    deck = deck_of(number)
    tableau, stock = table_of(deck)
    return {"code": kl2(number, mode), "number": number, "deck": deck, "tableau": tableau,
            "stock": stock}


def vectors() -> dict[str, Any]:
    """The whole content of kl2.json."""
    published = [(d["number"], d["code"][4:7]) for d in json.loads(KL1_FILE.read_text())["deals"]]
    deals = [deal_entry(n, MODES[i % 4]) for i, n in enumerate(NUMBERS)]
    paired = [(n, MODES[i % 4]) for i, n in enumerate(PAIRED)] + published[4:10]
    pairs = [{"kl1": kl1(n, mode), "kl2": kl2(n, mode), "number": n} for n, mode in paired]
    top = 2**64 - 1
    return {
        "deals": deals,
        "pairs": pairs,
        # text a player may type, and the code it reads as
        "forgiving": [
            {"text": " kl2-d1n-aaaaaaaaaaaag ", "code": "KL2-D1N-AAAAAAAAAAAAG", "number": 6},
            {"text": "\tKl2-D3v-p777777777777\n", "code": kl2(top, "D3V"), "number": top},
            {"text": "kl2-d1v-" + digits(2**35, 13).lower(), "code": kl2(2**35, "D1V"),
             "number": 2**35},
        ],
        # text refused, and the words its error must say (the part at fault)
        "refused": [
            {"text": "KL2-D1N-Q777777777777", "words": ["2^64 or more", "'Q777777777777'"]},
            {"text": "KL2-D1N-QAAAAAAAAAAAA", "words": ["2^64 or more"]},
            {"text": "KL2-D3V-7777777777777", "words": ["2^64 or more", "A to P"]},
            {"text": "KL2-D1N-AAAAAAG", "words": ["length", "7 characters", "expected 13"]},
            {"text": "KL2-D1N-AAAAAAAAAAAAAG", "words": ["length", "14 characters"]},
            {"text": "KL1-D1N-AAAAAAAAAAAAG", "words": ["length", "13 characters", "expected 7"]},
            {"text": "KL2-D1N-AAAAAAAAAAAA1", "words": ["character", "'1'"]},
            {"text": "KL2-D2N-AAAAAAAAAAAAG", "words": ["draw digit", "'2'"]},
            {"text": "KL2-D1X-AAAAAAAAAAAAG", "words": ["scoring letter", "'X'"]},
            {"text": "KL3-D1N-AAAAAAAAAAAAG", "words": ["prefix", "'KL3'"]},
            {"text": "KL2D1NAAAAAAAAAAAAG", "words": ["three parts"]},
        ],
    }


def check_against_kl1() -> None:
    """This reading of the rules reproduces every published KL1 deal."""
    for d in json.loads(KL1_FILE.read_text())["deals"]:
        deck = deck_of(d["number"])
        tableau, stock = table_of(deck)
        assert kl1(d["number"], d["code"][4:7]) == d["code"], d["code"]
        assert (deck, tableau, stock) == (d["deck"], d["tableau"], d["stock"]), d["code"]


def text() -> str:
    """kl2.json as written: indented like kl1.json, one final newline."""
    return json.dumps(vectors(), indent=1) + "\n"


if __name__ == "__main__":
    check_against_kl1()
    KL2_FILE.write_text(text())
