"""Shared helpers for the Klondike engine tests, written from docs/rules.md.

Nothing here imports the engine's internals to decide what is right: the deal
(:func:`reference_deck`), the legality of a move and its effect
(:class:`RulesModel`) are re-derived from docs/rules.md, so that the tests compare the
engine with an independent reading of the contract, not with itself.
:func:`engine_state` reads the engine's internals only to put them in the
vectors' format.
"""

from __future__ import annotations

import importlib.util
import json
import os
import random
import re
from collections.abc import Iterable, Iterator
from functools import cache
from pathlib import Path
from typing import Any

from hypothesis import settings

from server.klondike import Game, replay

VECTORS = Path(__file__).resolve().parents[1] / "vectors"



def hypothesis_profile() -> settings:
    """The Hypothesis settings of the engine's property tests: the profile
    ``KLONDIKE_HYPOTHESIS_PROFILE`` names (conftest.py registers them), or the
    default ``klondike``."""
    return settings(settings.get_profile(os.environ.get("KLONDIKE_HYPOTHESIS_PROFILE", "klondike")))


RANKS = "A23456789TJQK"
SUITS = "SHDC"
ALL_CARDS = [r + s for s in SUITS for r in RANKS]  # in card-index order, from docs/rules.md


@cache
def kl1() -> dict[str, Any]:
    """``vectors/kl1.json``, read once."""
    data: dict[str, Any] = json.loads((VECTORS / "kl1.json").read_text())
    return data


@cache
def kl2() -> dict[str, Any]:
    """``vectors/kl2.json``, read once."""
    data: dict[str, Any] = json.loads((VECTORS / "kl2.json").read_text())
    return data


def kl2_maker() -> Any:
    """``vectors/make_kl2.py``, the KL2 vectors' own reading of docs/rules.md."""
    spec = importlib.util.spec_from_file_location("make_kl2_vectors", VECTORS / "make_kl2.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@cache
def wins() -> list[dict[str, Any]]:
    """``vectors/wins.json``, read once."""
    data: list[dict[str, Any]] = json.loads((VECTORS / "wins.json").read_text())
    return data


def all_vector_games() -> list[tuple[str, dict[str, Any]]]:
    """Every scripted game of both files, with an id like ``kl1:KL1-D1N-AAAAAAA``."""
    return ([(f"kl1:{g['code']}", g) for g in kl1()["games"]]
            + [(f"wins:{g['code']}", g) for g in wins()])


# ---------------------------------------------------------------------- the deal

_MASK = (1 << 64) - 1


def reference_deck(number: int) -> list[int]:
    """docs/rules.md "From a deal number to the table", steps 1 to 3, read literally."""
    state = number

    def next_value() -> int:
        nonlocal state
        state = (state + 0x9E3779B97F4A7C15) & _MASK
        z = state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
        return z ^ (z >> 31)

    def below(n: int) -> int:
        limit = 2**64 - (2**64 % n)
        while True:
            x = next_value()
            if x < limit:
                return x % n

    deck = list(range(52))
    for i in range(51, 0, -1):
        j = below(i + 1)
        deck[i], deck[j] = deck[j], deck[i]
    return deck


def reference_layout(number: int) -> tuple[list[dict[str, list[str]]], list[str]]:
    """Steps 4 and 5: the tableau (down/up names per column) and the stock, top first."""
    deck = [ALL_CARDS[i] for i in reference_deck(number)]
    columns: list[list[str]] = [[] for _ in range(7)]
    k = 0
    for row in range(7):
        for col in range(row, 7):
            columns[col].append(deck[k])
            k += 1
    return [{"down": c[:-1], "up": c[-1:]} for c in columns], deck[28:]


# ---------------------------------------------------------------------- the engine's state

def engine_state(game: Game) -> dict[str, Any]:
    """The engine's game in the format of a vector's ``final`` entry."""
    names = ALL_CARDS
    return {
        "tableau": [{"down": [names[c] for c in col[:d]], "up": [names[c] for c in col[d:]]}
                    for col, d in zip(game.columns, game.down, strict=True)],
        "stock": [names[c] for c in reversed(game.stock)],
        "waste": [names[c] for c in game.waste],
        "foundations": dict(zip(SUITS, game.foundations, strict=True)),
        "points": game.points,
        "vegas": game.vegas,
        "recycles": game.recycles,
        "moves": game.moves,
        "won": game.is_won,
    }


def hidden_cards(game: Game) -> set[str]:
    """The cards the player has no right to see: face down, or in the stock."""
    hidden = {ALL_CARDS[c] for c in game.stock}
    for col, d in zip(game.columns, game.down, strict=True):
        hidden.update(ALL_CARDS[c] for c in col[:d])
    return hidden


def positions(script: list[str], code: str) -> Iterator[tuple[Game, str | None]]:
    """Walk a script: yield the game before each item (and ``None`` after the last).

    The same :class:`Game` is yielded each time, changed in place.
    """
    game = Game(code)
    for item in script:
        yield game, item
        if item == "undo":
            game.pop()
        else:
            game.push(item)
    yield game, None


def vector_position(code: str, plies: int, source: str = "kl1") -> Game:
    """The game after the first ``plies`` items of the script of ``code`` in
    ``kl1.json`` (``source="kl1"``) or ``wins.json`` (``source="wins"``)."""
    games = kl1()["games"] if source == "kl1" else wins()
    (script,) = [g["script"] for g in games if g["code"] == code]
    return replay(code, script[:plies])


def effective_moves(script: list[str]) -> list[str]:
    """The moves of a script still in effect once its undos are applied."""
    moves: list[str] = []
    for item in script:
        if item == "undo":
            moves.pop()
        else:
            moves.append(item)
    return moves


def reverses(game: Game, notation: str) -> bool:
    """``notation`` puts back what the game's last move (still in effect) did:
    ``t3>f`` then ``fh>t3``, ``fh>t3`` then ``t3>f``, ``t1:2>t4`` then ``t4:2>t1``.
    Never after a move that turned a card up: the cards would go back onto
    the card turned up, not where they came from."""
    if not game.history or game.history[-1].flipped:
        return False
    last = str(game.history[-1].move)
    source, _, target = last.partition(">")
    if source[0] == "t" and target == "f":
        suit = SUITS[game.history[-1].card // 13].lower()
        return notation == f"f{suit}>{source}"
    if source[0] == "f":
        return notation == f"{target}>f"
    if source[0] == "t" and target[0] == "t":
        column, _, count = source.partition(":")
        return notation == f"{target}{':' + count if count else ''}>{column}"
    return False


def flips(game: Game, notation: str) -> bool:
    """``notation`` moves every face-up card off face-down ones, turning one up."""
    if notation[0] != "t":
        return False
    source = notation.split(">")[0]
    column = int(source[1]) - 1
    count = int(source.split(":")[1]) if ":" in source else 1
    up = len(game.columns[column]) - game.down[column]
    return game.down[column] > 0 and count == up


# ---------------------------------------------------------------------- every move's notation

def all_notations() -> list[str]:
    """Every string of docs/rules.md's move notation, built from its table (591 of them)."""
    cols = range(1, 8)
    out = ["draw", "recycle", "w>f"]
    out += [f"w>t{t}" for t in cols]
    out += [f"t{s}>f" for s in cols]
    for s in cols:
        for t in cols:
            if s != t:
                out.append(f"t{s}>t{t}")
                out += [f"t{s}:{n}>t{t}" for n in range(2, 14)]
    out += [f"f{x}>t{t}" for x in "shdc" for t in cols]
    return out


_ALL = all_notations()

# ---------------------------------------------------------------------- an independent model

def rank(card: str) -> int:
    return RANKS.index(card[0]) + 1


def is_red(card: str) -> bool:
    return card[1] in "HD"


def fits(card: str, under: str | None) -> bool:
    """Tableau building: opposite colour, one rank lower; only a king on an empty column."""
    if under is None:
        return rank(card) == 13
    return is_red(card) != is_red(under) and rank(under) == rank(card) + 1


def is_safe(card: str, foundations: dict[str, int]) -> bool:
    """No card could ever need to go onto ``card``: aces and twos, or both
    foundations of the other colour already hold the rank below it."""
    if rank(card) <= 2:
        return True
    other = "SC" if is_red(card) else "HD"
    return all(foundations[s] >= rank(card) - 1 for s in other)


_MOVE = re.compile(r"^(?P<src>w|t[1-7]|f[shdc])(?::(?P<n>\d+))?>(?P<dst>f|t[1-7])$")


@cache
def _parts(notation: str) -> tuple[str, str, int]:
    """Source, target and count of a card move's notation."""
    m = _MOVE.match(notation)
    assert m is not None, notation
    return m["src"], m["dst"], int(m["n"] or 1)


class RulesModel:
    """A slow, plain re-reading of docs/rules.md: the state of one game by card names.

    Columns bottom first with ``down[c]`` face-down cards, the stock top card
    *first*, the waste bottom card first; ``apply`` plays one legal move and
    ``undo`` takes it back (at most 100 times in a row, like the engine).
    """

    UNDO_LIMIT = 100

    def __init__(self, number: int, draw: int, scoring: str) -> None:
        tableau, stock = reference_layout(number)
        self.draw = draw
        self.vegas_rules = scoring == "V"
        self.columns = [t["down"] + t["up"] for t in tableau]
        self.down = [len(t["down"]) for t in tableau]
        self.stock = stock
        self.waste: list[str] = []
        self.fan = 0  # cards of the latest draw still on the waste
        self.foundations = dict.fromkeys(SUITS, 0)
        self.credited: set[str] = set()
        self.points = 0
        self.recycles = 0
        self.moves = 0
        self.history: list[tuple[Any, ...]] = []

    # -- legality

    def is_legal(self, notation: str) -> bool:
        if notation == "draw":
            return bool(self.stock)
        if notation == "recycle":
            return not self.stock and bool(self.waste) and not self.vegas_rules
        src, dst, n = _parts(notation)
        if src == dst:
            return False
        if src == "w":
            if not self.waste:
                return False
            card = self.waste[-1]
        elif src[0] == "t":
            c = int(src[1]) - 1
            if n > len(self.columns[c]) - self.down[c]:
                return False
            card = self.columns[c][-n]
        else:
            suit = src[1].upper()
            if not self.foundations[suit]:
                return False
            card = RANKS[self.foundations[suit] - 1] + suit
        if dst == "f":
            return src[0] != "f" and n == 1 and rank(card) == self.foundations[card[1]] + 1
        if n > 1 and src[0] != "t":
            return False
        target = self.columns[int(dst[1]) - 1]
        return fits(card, target[-1] if target else None)

    def legal(self) -> set[str]:
        return {n for n in _ALL if self.is_legal(n)}

    # -- playing

    def _save(self) -> tuple[Any, ...]:
        return ([list(c) for c in self.columns], list(self.down), list(self.stock), list(self.waste),
                self.fan, dict(self.foundations), set(self.credited), self.points, self.recycles,
                self.moves)

    def apply(self, notation: str) -> None:
        """Play a legal move, scoring it as docs/rules.md's table says."""
        assert self.is_legal(notation), notation
        self.history.append(self._save())
        del self.history[:-self.UNDO_LIMIT]
        self.moves += 1
        if notation == "draw":
            drawn = self.stock[:self.draw]
            del self.stock[:self.draw]
            self.waste += drawn
            self.fan = len(drawn)
            return
        if notation == "recycle":
            self.stock, self.waste = self.waste, []
            self.fan = 0
            self.points = max(0, self.points - 100)
            self.recycles += 1
            return
        src, dst, n = _parts(notation)
        if src == "w":
            cards = [self.waste.pop()]
            self.fan = max(0, self.fan - 1)
            if dst != "f":
                self.points += 5
        elif src[0] == "t":
            c = int(src[1]) - 1
            cards = self.columns[c][-n:]
            del self.columns[c][-n:]
            if self.columns[c] and len(self.columns[c]) == self.down[c]:
                self.down[c] -= 1
                self.points += 5
        else:
            suit = src[1].upper()
            cards = [RANKS[self.foundations[suit] - 1] + suit]
            self.foundations[suit] -= 1
        if dst == "f":
            (card,) = cards
            self.foundations[card[1]] += 1
            if card not in self.credited:
                self.credited.add(card)
                self.points += 10
        else:
            self.columns[int(dst[1]) - 1] += cards

    def undo(self) -> None:
        (self.columns, self.down, self.stock, self.waste, self.fan, self.foundations, self.credited,
         self.points, self.recycles, self.moves) = self.history.pop()

    # -- what it shows

    @property
    def vegas(self) -> int:
        return -52 + 5 * len(self.credited)

    def state(self) -> dict[str, Any]:
        """In the vectors' ``final`` format."""
        return {
            "tableau": [{"down": c[:d], "up": c[d:]}
                        for c, d in zip(self.columns, self.down, strict=True)],
            "stock": list(self.stock),
            "waste": list(self.waste),
            "foundations": dict(self.foundations),
            "points": self.points,
            "vegas": self.vegas,
            "recycles": self.recycles,
            "moves": self.moves,
            "won": sum(self.foundations.values()) == 52,
        }

    def visible_waste(self) -> list[str]:
        """The waste's top card; in draw three, the rest of the latest fan."""
        if not self.waste:
            return []
        return self.waste[-max(self.fan, 1):] if self.draw == 3 else self.waste[-1:]

    def hidden(self) -> set[str]:
        return set(self.stock).union(*(c[:d] for c, d in zip(self.columns, self.down, strict=True)))


# ---------------------------------------------------------------------- hand-built positions

def build(code: str, columns: list[str], *, stock: Iterable[str] = (), waste: Iterable[str] = (),
          credited: Iterable[str] = (), recycles: int = 0) -> Game:
    """A game in the position described: each column as text, deepest card first,
    face-down cards in brackets (``"[9S] [3H] 8D 7C"``); the stock first card
    drawn first; the waste bottom card first. Every other card is on its
    foundation (they must make a run from the ace in each suit) and credited,
    and so are the ``credited`` cards. The game goes through a snapshot, so it
    is one the engine accepts."""
    game = Game(code)
    index = {name: i for i, name in enumerate(ALL_CARDS)}
    placed: list[int] = []
    game.columns, game.down = [], []
    for text in columns:
        cards = text.split()
        game.down.append(sum(c.startswith("[") for c in cards))
        game.columns.append([index[c.strip("[]")] for c in cards])
        placed += game.columns[-1]
    game.stock = [index[c] for c in reversed(list(stock))]
    game.waste = [index[c] for c in waste]
    placed += game.stock + game.waste
    home = sorted(set(range(52)) - set(placed))
    game.foundations = [sum(1 for c in home if c // 13 == s) for s in range(4)]
    assert home == [c for s in range(4) for c in range(s * 13, s * 13 + game.foundations[s])]
    game.credited = sum(1 << c for c in home) | sum(1 << index[c] for c in credited)
    game.recycles, game.fan = recycles, 0
    game.history.clear()
    game.packed_history.clear()
    return Game.from_snapshot(game.snapshot())


def hidden_under(cards: list[str], heads: list[str]) -> list[str]:
    """Seven columns: the head cards face up, the other cards face down under them."""
    cols = [[f"[{c}]" for c in cards[i::7]] for i in range(7)]
    return [" ".join([*col, head]) for col, head in zip(cols, heads, strict=True)]


#: Seven heads that cannot move (kings and no empty column; the parents of the
#: others are face down) and talon cards that fit nowhere: no ace in sight.
HEADS = ["KH", "KS", "KC", "KD", "5H", "5D", "9S"]
TALON = ["2H", "2D", "3H", "6H", "6D", "7S", "7C", "8C"]


def dead(code: str = "KL1-D1N-AAAAAAA", *, talon: list[str] = TALON, recycles: int = 1,
         waste: int = 3, order: int = 0) -> Game:
    """Nothing can ever move but the stock: the deepest cards shuffled by ``order``."""
    rest = [c for c in ALL_CARDS if c not in HEADS and c not in talon]
    random.Random(order).shuffle(rest)
    return build(code, hidden_under(rest, HEADS), waste=talon[:waste], stock=talon[waste:],
                 recycles=recycles)
