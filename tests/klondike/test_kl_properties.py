"""Properties of random games: a random code, random legal moves, undos mixed in.

At every step the engine is compared with the independent model of docs/rules.md
(kl_support.RulesModel) and with its own invariants. Sized by the Hypothesis
profile of conftest.py (KLONDIKE_HYPOTHESIS_PROFILE=klondike-long for more).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator

from hypothesis import given
from hypothesis import strategies as st
from kl_support import RulesModel, all_notations, engine_state, hidden_cards, hypothesis_profile, reverses

from server.klondike import UNDO_LIMIT, DealCode, Game, IllegalMoveError, Move, replay
from server.klondike.codes import KL1, KL2

PROFILE = hypothesis_profile()
STEPS = 160  # enough to fill the 100-move undo history in most games
ALL = [Move.parse(text) for text in all_notations()]
CARD_NAME = re.compile(r"\b[A2-9TJQK][SHDC]\b")

codes = st.builds(
    DealCode, st.integers(0, KL1.max_number), st.sampled_from([1, 3]), st.sampled_from(["N", "V"])
) | st.builds(
    DealCode, st.integers(0, KL2.max_number), st.sampled_from([1, 3]), st.sampled_from(["N", "V"]),
    st.just(KL2),
)


def walk(data: st.DataObject, code: DealCode, steps: int = STEPS) -> Iterator[tuple[Game, list[str]]]:
    """Play a random game, yielding the game (changed in place) and the items
    played so far (notation, or ``'undo'``) at the start and after each step.

    Each step is an undo (about one in 15), any legal move (one in 4), or else
    the hint, so that games get somewhere: purely random moves mostly shuffle
    cards between columns and leave the foundations empty.
    """
    game = Game(code)
    played: list[str] = []
    yield game, played
    for _ in range(steps):
        legal = game.legal_moves()
        roll = data.draw(st.integers(0, 99))
        if game.undo_depth and (not legal or roll < 6):
            game.pop()
            played.append("undo")
            yield game, played
            continue
        if not legal:
            return
        move = game.hint() if roll >= 25 else None
        if move is None:
            move = legal[data.draw(st.integers(0, len(legal) - 1))]
        game.push(move)
        played.append(str(move))
        yield game, played


def assert_hides_its_secrets(game: Game, hidden: set[str]) -> None:
    for view in (game.view(), game.public_view()):
        text = json.dumps(view)
        for card in hidden:
            assert f'"{card}"' not in text, f"{card} is face down or in the stock"


@PROFILE
@given(code=codes, data=st.data())
def test_engine_follows_the_rules_model(code: DealCode, data: st.DataObject) -> None:
    """Same cards, same scores, same legal moves and same visible waste as the
    model, all the way; no secret in any view; the game is rebuilt by its
    snapshot and by replaying what was played."""
    model = RulesModel(code.number, code.draw, code.scoring)
    game = Game(code)
    for game, played in walk(data, code):
        if played:
            if played[-1] == "undo":
                model.undo()
            else:
                model.apply(played[-1])
        assert engine_state(game) == model.state()
        assert sorted(game.cards()) == list(range(52))
        assert game.vegas == -52 + 5 * game.credited.bit_count()
        assert game.undo_depth == len(model.history)
        legal = game.legal_moves()
        notations = [str(m) for m in legal]
        assert len(set(notations)) == len(notations), "no move twice"
        assert set(notations) == model.legal()
        assert game.has_legal_move() == bool(legal)
        assert all(Move.parse(text) is move for text, move in zip(notations, legal, strict=True))
        view = game.view()
        assert view["legal"] == notations
        assert view["waste"] == model.visible_waste()
        assert hidden_cards(game) == model.hidden()
        assert_hides_its_secrets(game, model.hidden())
        assert Game.from_snapshot(game.snapshot()) == game
    assert replay(code, played) == game
    assert replay(str(code), played).snapshot() == game.snapshot()


@PROFILE
@given(code=codes, data=st.data())
def test_every_possible_move_at_every_position(code: DealCode, data: st.DataObject) -> None:
    """Each of the 591 moves: a legal one applies and its undo restores the exact
    game; an illegal one raises IllegalMoveError, changes nothing, and its
    reason names no face-down or stock card."""
    for game, _ in walk(data, code, steps=STEPS // 2):
        before, copy = game.snapshot(), game.copy()
        reasons: list[str] = []
        legal = set(game.legal_moves())
        full = game.undo_depth == UNDO_LIMIT
        for move in ALL:
            if move in legal:
                assert game.is_legal(move) and game.reason_illegal(move) is None
                game.push(move)
                assert game.moves == copy.moves + 1 and sorted(game.cards()) == list(range(52))
                assert game.pop() is move
                if full:  # the oldest undo record fell off the end when the move was pushed
                    assert engine_state(game) == engine_state(copy)
                    assert game.undo_depth == UNDO_LIMIT - 1
                    game.history.appendleft(copy.history[0])
                assert game.snapshot() == before and game == copy
            else:
                reason = game.reason_illegal(move)
                assert reason
                reasons.append(reason)
                try:  # not pytest.raises, three times slower here
                    game.push(move)
                except IllegalMoveError as exc:
                    assert exc.reason == reason and exc.move is move
                else:
                    raise AssertionError(f"{move} was pushed, but {reason}")
        assert game.snapshot() == before and game == copy
        named = set(CARD_NAME.findall("\n".join(reasons)))
        assert not named & hidden_cards(game), "a refusal named a face-down or stock card"


@PROFILE
@given(code=codes, data=st.data())
def test_assists_keep_their_promises(code: DealCode, data: st.DataObject) -> None:
    """A hint is legal and never the reverse of the previous move; auto-complete is
    offered only with every card seen and, when offered, wins."""
    shown: set[str] = set()
    for game, _ in walk(data, code):
        shown.update(game.view()["waste"])
        hint = game.hint()
        assert hint is None or game.is_legal(hint)
        if hint is not None:
            assert not reverses(game, str(hint))
        moves = game.autocomplete_moves()
        if moves is not None:
            assert game.can_autocomplete()
            assert not any(game.down), "no face-down card left"
            assert set(engine_state(game)["stock"]) <= shown, "no stock card that was never shown"
            finish = game.copy()
            for move in moves:
                finish.push(move)
            assert finish.is_won

