"""Auto-complete and hints (server/klondike/assist.py), along every vector game."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest
from kl_support import (
    ALL_CARDS,
    flips,
    is_safe,
    kl1,
    positions,
    reverses,
    vector_position,
    wins,
)

from server.klondike import Game, Move, replay

# ---------------------------------------------------------------------- auto-complete


def test_not_offered_at_the_start() -> None:
    game = Game("KL1-D1N-AAAAAAA")
    assert not game.can_autocomplete() and game.autocomplete_moves() is None
    assert game.view()["autocomplete"] is False


def test_not_offered_while_a_stock_card_is_unseen() -> None:
    # wins.json KL1-D1V-ABYI5NK after 85 moves: every tableau card face up, one card never drawn
    game = vector_position("KL1-D1V-ABYI5NK", 85, "wins")
    assert not any(game.down) and len(game.stock) == 1 and game.recycles == 0
    assert not game.can_autocomplete() and game.autocomplete_moves() is None
    game.push("draw")
    assert game.can_autocomplete()


def test_autocomplete_when_offered_wins(win_vector: dict[str, Any]) -> None:
    offered = 0
    for game, _ in positions(win_vector["script"], win_vector["code"]):
        moves = game.autocomplete_moves()
        if moves is None:
            continue
        offered += 1
        before = game.snapshot()
        finish = game.copy()
        for move in moves:
            finish.push(move)  # raises if a move is illegal
        assert finish.is_won and finish.outcome() == "won"
        assert game.snapshot() == before, "offering it changes nothing"
    assert offered, "a won game passes through positions that auto-complete"


def test_autocomplete_conditions_along_every_vector_game(vector_game: dict[str, Any]) -> None:
    """Offered only when every tableau card is face up and every stock card was
    shown before; can_autocomplete says exactly that (and not won)."""
    shown: set[str] = set()
    for game, _ in positions(vector_game["script"], vector_game["code"]):
        view = game.view()
        shown.update(view["waste"])
        stock = {ALL_CARDS[c] for c in game.stock}
        conditions = not game.is_won and not any(game.down) and (not game.stock or game.recycles > 0)
        assert game.can_autocomplete() == conditions
        moves = game.autocomplete_moves()
        assert view["autocomplete"] == (moves is not None)
        if moves is not None:
            assert game.can_autocomplete()
            assert all(t["down"] == 0 for t in view["tableau"])
            assert stock <= shown, "auto-complete would rely on a card never shown"


# ---------------------------------------------------------------------- hints

def hint_tier(game: Game, notation: str) -> int:
    """0: a safe foundation move; 1: turns a face-down card up; 2: plays the
    waste's card; 3: anything else (docs/rules.md says nothing; assist.hint's order)."""
    foundations = dict(zip("SHDC", game.foundations, strict=True))
    source = notation.split(">")[0]
    if notation.endswith(">f"):
        card = game.waste[-1] if source == "w" else game.columns[int(source[1]) - 1][-1]
        if is_safe(ALL_CARDS[card], foundations):
            return 0
    if flips(game, notation):
        return 1
    if source == "w":
        return 2
    return 3


def line_positions(game: Game) -> set[object]:
    """The positions of the game's line that it still holds (this one, and the
    one before each move it can undo), walked back on a copy."""
    walk = game.copy()
    out = {walk.position()}
    while walk.undo_depth:
        walk.pop()
        out.add(walk.position())
    return out


def leads_back(game: Game, notation: str, reached: set[object]) -> bool:
    trial = game.copy()
    trial.push(notation)
    return trial.position() in reached


def progresses(game: Game, notation: str) -> bool:
    """``notation`` turns a card face up, draws a card never seen (the first pass
    through the stock), or puts a card on its foundation for the first time."""
    if notation == "draw":
        return game.recycles == 0
    if flips(game, notation):
        return True
    if not notation.endswith(">f"):
        return False
    source = notation.split(">")[0]
    card = game.waste[-1] if source == "w" else game.columns[int(source[1]) - 1][-1]
    return not game.credited >> card & 1


def check_hint(game: Game, reached: set[object] | None = None) -> int | None:
    """The hint is legal, not a reverse, never into a position already reached
    (``reached``: the positions of the game's line it still holds), and from the
    best tier among the moves that are neither; its tier."""
    before = game.snapshot()
    hint = game.hint()
    assert game.snapshot() == before
    legal = [str(m) for m in game.legal_moves()]
    if reached is None:
        reached = line_positions(game)
    candidates = [m for m in legal if not reverses(game, m) and not leads_back(game, m, reached)]
    if hint is None:  # nothing useful: at least no move makes progress by itself
        assert not any(progresses(game, m) for m in candidates)
        return None
    text = str(hint)
    assert game.is_legal(hint) and text in legal
    assert not reverses(game, text), f"{text} undoes {game.history[-1].move}"
    assert not leads_back(game, text, reached), f"{text} goes back to a position already reached"
    best = min(hint_tier(game, m) for m in candidates)
    tier = hint_tier(game, text)
    if best < 3:
        assert tier == best, (text, best, legal)
    if tier == 1:  # from the column with the most face-down cards
        downs = [game.down[int(m[1]) - 1] for m in candidates if hint_tier(game, m) == 1]
        assert game.down[hint.source] == max(downs)
    return tier


def test_hints_along_every_vector_game() -> None:
    tiers: Counter[int | None] = Counter()
    for vector in kl1()["games"] + wins():
        line: list[object] = []  # the positions of the line, the current one last
        for game, item in positions(vector["script"], vector["code"]):
            line.append(game.position())
            tiers[check_hint(game, set(line[-game.undo_depth - 1:]))] += 1
            if item == "undo":
                line[-2:] = []
    # each preference was exercised, not only vacuously true
    assert tiers[0] > 100 and tiers[1] > 100 and tiers[2] > 100 and tiers[3] > 100 and tiers[None]


def test_hint_plays_an_ace_first() -> None:
    game = Game("KL1-D1N-AAAAAAA")  # AH on top of t7
    assert game.hint() == Move.parse("t7>f")
    game.push("t7>f")
    assert game.hint() != Move.parse("fh>t7")


def test_hint_never_suggests_taking_back_the_last_move() -> None:
    # KL1-D1N-AAAAAAA after 22 moves: 2C on the clubs foundation, 3D on t5
    game = vector_position("KL1-D1N-AAAAAAA", 22)
    game.push("fc>t5")
    assert game.hint() != Move.parse("t5>f")
    game.pop()
    game.push("t1:2>t4")  # a king and its queen to the empty column
    assert game.hint() != Move.parse("t4:2>t1")


# Found by test_assists_keep_their_promises: t6:2>t4 turned up the 4S under
# 3D 2S, and the only way on is to put 3D 2S on that 4S (t4:2>t6).
SENT_BACK_ONTO_A_TURNED_CARD = (
    "t5>f undo t5>f t6>t3 t2>t4 draw draw fh>t2 draw undo draw t2>f draw undo fh>t2 undo draw "
    "w>f w>f draw draw w>t7 t5>t7 t5>f t5>t7 t5>f draw draw draw undo t1>t5 draw w>t4 draw w>t5 "
    "draw t5:2>t1 draw draw undo draw fh>t4 fc>t4 draw undo draw t4>f draw fh>t3 t2>t4 t3>f w>t2 "
    "t1:2>t5 t7:4>t2 t7>t1 t7>t5 fh>t3 fh>t4 t4>f t3>f draw undo draw draw w>t5 undo w>t5 w>t5 "
    "draw draw w>t6 draw draw draw w>t2 t6:2>t2 t6>f draw w>t3 draw w>f t3>f t6>f undo undo "
    "t4>t6 t3>f t4>f t6:2>t4"
)


def test_cards_moved_back_onto_the_card_their_move_turned_up_are_not_a_take_back() -> None:
    game = replay("KL1-D1N-AAAAAMJ", SENT_BACK_ONTO_A_TURNED_CARD.split())
    assert game.history[-1].flipped
    hint = game.hint()
    assert hint == Move.parse("t4:2>t6"), "the one move that makes progress"
    assert not reverses(game, str(hint))
    before = game.copy()
    before.pop()
    game.push(hint)
    assert game.position() != before.position(), "a new position, not the one before t6:2>t4"


def test_hint_prefers_uncovering_the_column_with_most_face_down_cards() -> None:
    checked = 0
    for vector in kl1()["games"]:
        for game, _ in positions(vector["script"], vector["code"]):
            legal = [str(m) for m in game.legal_moves()]
            uncover = [m for m in legal if flips(game, m) and not reverses(game, m)]
            safe = [m for m in legal if hint_tier(game, m) == 0 and not reverses(game, m)]
            if len({game.down[int(m[1]) - 1] for m in uncover}) > 1 and not safe:
                hint = game.hint()
                assert hint is not None and str(hint) in uncover
                assert game.down[hint.source] == max(game.down[int(m[1]) - 1] for m in uncover)
                checked += 1
    assert checked


@pytest.mark.parametrize("code", ["KL1-D1V-AAAAAAC"])
def test_no_hint_when_stuck(code: str) -> None:
    game = Game(code)
    while game.stock:
        game.push("draw")
    assert game.outcome() == "stuck" and game.hint() is None
