"""Move notation both ways, and illegal moves refused with a reason, changing nothing."""

from __future__ import annotations

from typing import Any, NoReturn

import pytest
from kl_support import all_notations, positions, vector_position

from server.klondike import (
    COMPILED,
    DRAW,
    RECYCLE,
    EngineError,
    Game,
    IllegalMoveError,
    InvalidNotationError,
    Move,
)
from server.klondike.moves import BY_PARTS

# KL1-D3N-UCU5FBC after 10 moves of its script:
#   t1 KD QS | t2 6H | t3 ..7H | t4 ...3S | t5 ....TD 9S | t6 ....KS | t7 ......8D 7S 6D
#   waste .. AD QC (fan), stock 12, foundations AS
SEVEN_ON_NINE = ("KL1-D3N-UCU5FBC", 10)
# KL1-D1N-AAAAAAA after 13 moves: t1 empty, t3 ..8S, t5 ....4C 3D, waste 3S
EMPTY_COLUMN = ("KL1-D1N-AAAAAAA", 13)
# KL1-D3N-M3GLBI2 after 323 moves: stock and waste both empty, game not won
NO_STOCK_NO_WASTE = ("KL1-D3N-M3GLBI2", 323)


# ---------------------------------------------------------------------- notation

def test_every_move_of_the_table_round_trips() -> None:
    table = [str(m) for m in BY_PARTS.values()]
    assert len(table) == len(set(table)) == 591
    assert sorted(table) == sorted(all_notations())
    for move in BY_PARTS.values():
        text = str(move)
        assert Move.parse(text) is move, "parse hands out the shared instance"
        assert move.notation == text
        assert Move.parse(f"  {text.upper()}\t") is move
        assert eval(repr(move), {"Move": Move}) == move
        assert BY_PARTS[(move.source, move.target, move.count)] is move


def test_rules_md_examples() -> None:
    assert Move.parse("draw") is DRAW and DRAW.is_draw and not DRAW.is_recycle
    assert Move.parse("recycle") is RECYCLE and RECYCLE.is_recycle and not RECYCLE.is_draw
    assert repr(Move.parse("t2:3>t5")) == "Move.parse('t2:3>t5')"
    m = Move.parse("t2:3>t5")
    assert (m.source, m.target, m.count) == (1, 4, 3)
    for text in ["w>f", "w>t3", "t6>f", "t2>t5", "t2:3>t5", "fh>t4"]:
        assert str(Move.parse(text)) == text


def test_moves_seen_along_the_vectors_round_trip(vector_game: dict[str, Any]) -> None:
    for game, _ in positions(vector_game["script"], vector_game["code"]):
        for move in game.legal_moves():
            assert Move.parse(str(move)) is move
            assert eval(repr(move), {"Move": Move}) is not None


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("undo", ["'undo' is not a move"]),
        ("UNDO", ["'undo' is not a move"]),
        ("t1>t1", ["own column"]),
        ("w:2>t3", ["':n'"]),
        ("t2:1>t5", ["count must be 2..13"]),
        ("t2:14>t5", ["count must be 2..13"]),
        ("t2:0>t5", ["count must be 2..13"]),
        ("t1:2>f", ["':n'"]),
        ("fh:2>t4", ["':n'"]),
        ("x>y", ["unknown source 'x'"]),
        ("t8>t1", ["unknown source 't8'"]),
        ("t0>t1", ["unknown source 't0'"]),
        ("f>t1", ["unknown source 'f'"]),
        ("fx>t1", ["unknown source 'fx'"]),
        ("stock>w", ["unknown source 'stock'"]),
        ("t1>t8", ["unknown target 't8'"]),
        ("w>w", ["unknown target 'w'"]),
        ("w>fh", ["unknown target 'fh'"]),
        ("fh>f", ["back to a column"]),
        ("", ["expected 'draw'"]),
        ("   ", ["expected 'draw'"]),
        ("t1 > t2", ["expected 'draw'"]),
        ("t1>", ["expected 'draw'"]),
        (">t1", ["expected 'draw'"]),
        ("draw3", ["expected 'draw'"]),
        ("t2:03>t5", ["not a move"]),
    ],
)
def test_bad_notation_is_an_invalid_notation_error(text: str, words: list[str]) -> None:
    with pytest.raises(InvalidNotationError) as info:
        Move.parse(text)
    assert not isinstance(info.value, IllegalMoveError)
    assert isinstance(info.value, EngineError) and isinstance(info.value, ValueError)
    if text.strip():
        assert repr(text) in str(info.value) or "'undo'" in str(info.value)
    for word in words:
        assert word in str(info.value)


@pytest.mark.parametrize("text", ["undo", "t1>t1", "w:2>t3", "t2:1>t5", "x>y", ""])
def test_push_of_bad_notation_raises_invalid_notation_and_changes_nothing(text: str) -> None:
    game = vector_position(*SEVEN_ON_NINE)
    before = game.snapshot()
    with pytest.raises(InvalidNotationError):
        game.push(text)
    assert game.snapshot() == before


def test_only_the_moves_of_the_table_can_be_built() -> None:
    """A Move built by hand from numbers that have no notation is refused at once."""
    built = 0
    for source in range(-1, 15):
        for target in range(-1, 15):
            for count in range(-1, 15):
                if (source, target, count) in BY_PARTS:
                    assert Move(source, target, count) is not None
                    built += 1
                else:
                    with pytest.raises(InvalidNotationError):
                        Move(source, target, count)
    assert built == 591
    if COMPILED:  # a bool is an int to the compiled class, as to mypy
        assert Move(True, 0, 1) == Move(1, 0, 1)
    else:
        with pytest.raises(InvalidNotationError):
            Move(True, 0, 1)
    # a field of another type: the compiled class refuses it as its annotation
    # says (mypy's error, at run time), plain Python with the engine's error
    for odd in [(0.0, 1, 1), (0, 1, 2.0), ("t1", "t2", 1)]:
        with pytest.raises(TypeError if COMPILED else InvalidNotationError):
            Move(*odd)  # type: ignore[arg-type]


@pytest.mark.parametrize("value", [None, 3, b"draw"])
def test_parse_refuses_what_is_not_text(value: object) -> None:
    with pytest.raises(InvalidNotationError):
        Move.parse(value)  # type: ignore[arg-type]


# ---------------------------------------------------------------------- illegal moves

def refused(game: Game, text: str) -> str:
    """Push ``text``, expect an IllegalMoveError that changed nothing, return its reason."""
    before, copy = game.snapshot(), game.copy()
    with pytest.raises(IllegalMoveError) as info:
        game.push(text)
    assert game.snapshot() == before and game == copy
    assert info.value.move is Move.parse(text)
    assert str(info.value) == f"illegal move {str(Move.parse(text))!r}: {info.value.reason}"
    assert game.reason_illegal(Move.parse(text)) == info.value.reason
    assert not game.is_legal(Move.parse(text))
    return info.value.reason


def test_the_position_is_what_the_tests_expect() -> None:
    game = vector_position(*SEVEN_ON_NINE)
    view = game.view()
    assert [t["up"] for t in view["tableau"]] == [
        ["KD", "QS"], ["6H"], ["7H"], ["3S"], ["TD", "9S"], ["KS"], ["8D", "7S", "6D"]]
    assert view["waste"] == ["AD", "QC"] and view["stock"] == 12
    assert view["foundations"] == {"S": "AS", "H": None, "D": None, "C": None}
    assert view["legal"] == ["t7:3>t5", "draw"]


@pytest.mark.parametrize(
    ("move", "reason"),
    [
        ("t3>t5", "7H cannot go on 9S: it needs a black 8"),
        ("t2>t5", "6H cannot go on 9S: it needs a black 7"),
        ("t7:2>t1", "7S cannot go on QS: it needs a red 8"),
        ("t7>t3", "6D cannot go on 7H: it needs a black 7"),
        ("t1>t3", "QS cannot go on 7H: it needs a red king"),
        ("t5>t1", "9S cannot go on QS: it needs a red 10"),
        ("t6>t1", "KS cannot go on QS: a king goes only on an empty column"),
        ("t1:2>t6", "KD cannot go on KS: a king goes only on an empty column"),
        ("fs>t3", "AS cannot go on 7H: it needs a red 2"),
        ("w>f", "QC cannot go to the foundation: the clubs foundation starts with its ace"),
        ("t4>f", "3S cannot go to the foundation: the spades foundation is at AS"),
        ("t3:2>t5", "column 3 has 1 card face up, 2 cannot move together"),
        ("t7:4>t5", "column 7 has 3 cards face up, 4 cannot move together"),
        ("fh>t1", "the hearts foundation is empty"),
        ("recycle", "the stock still has cards: recycle only when it is empty"),
    ],
)
def test_illegal_moves_say_why_and_change_nothing(move: str, reason: str) -> None:
    assert refused(vector_position(*SEVEN_ON_NINE), move) == reason


@pytest.mark.parametrize(
    ("move", "reason"),
    [
        ("t3>t1", "8S cannot go on an empty column: only a king can"),
        ("t5:2>t1", "4C cannot go on an empty column: only a king can"),
        ("w>t1", "3S cannot go on an empty column: only a king can"),
        ("fh>t1", "AH cannot go on an empty column: only a king can"),
        ("t1>t2", "column 1 is empty"),
        ("t1:3>t2", "column 1 is empty"),
        ("t1>f", "column 1 is empty"),
    ],
)
def test_empty_column_reasons(move: str, reason: str) -> None:
    game = vector_position(*EMPTY_COLUMN)
    assert game.columns[0] == [] and game.view()["waste"] == ["3S"]
    assert refused(game, move) == reason


def test_stock_reasons() -> None:
    fresh = Game("KL1-D1N-AAAAAAA")
    assert refused(fresh, "w>f") == "the waste is empty"
    assert refused(fresh, "w>t1") == "the waste is empty"
    assert refused(fresh, "recycle") == "the stock still has cards: recycle only when it is empty"
    for _ in range(24):
        fresh.push("draw")
    assert refused(fresh, "draw") == "the stock is empty: recycle the waste to draw again"
    for code in ("KL1-D1V-AAAAAAA", "KL1-D3V-AAAAAAA"):
        vegas = Game(code)
        assert refused(vegas, "recycle") == "the stock still has cards: recycle only when it is empty"
        while vegas.stock:
            vegas.push("draw")
        assert refused(vegas, "draw") == "the stock is spent: Vegas scoring allows one pass only"
        assert refused(vegas, "recycle") == "Vegas scoring allows no recycle: one pass through the stock"
    empty = vector_position(*NO_STOCK_NO_WASTE)
    assert not empty.stock and not empty.waste and not empty.is_won
    assert refused(empty, "draw") == "the stock and the waste are both empty"
    assert refused(empty, "recycle") == "the waste is empty: there is nothing to recycle"
    assert refused(empty, "w>f") == "the waste is empty"


def test_rules_md_doctest_position() -> None:
    game = Game("KL1-D1N-AAAAAAA")
    game.push("t7>f")
    assert refused(game, "t1>t3") == "8C cannot go on 8S: it needs a red 9"


# ---------------------------------------------------------------------- one move, one check

@pytest.mark.skipif(COMPILED, reason="a compiled class cannot be patched: test_kl_build runs this "
                    "module in plain Python")
def test_checking_a_move_does_not_generate_all_legal_moves(monkeypatch: pytest.MonkeyPatch) -> None:
    game = vector_position(*SEVEN_ON_NINE)
    legal, illegal = Move.parse("t7:3>t5"), Move.parse("t3>t5")

    def forbidden(self: Game) -> NoReturn:
        raise AssertionError("checking one move generated every legal move")

    monkeypatch.setattr(Game, "legal_moves", forbidden)
    monkeypatch.setattr(Game, "has_legal_move", forbidden)
    assert game.is_legal(legal) and game.reason_illegal(legal) is None
    assert not game.is_legal(illegal)
    with pytest.raises(IllegalMoveError):
        game.push(illegal)
    with pytest.raises(IllegalMoveError):
        game.push("t3>t5")
    game.push(legal)
    game.push("draw")
    assert game.pop() is DRAW and game.pop() is legal
    with pytest.raises(AssertionError, match="generated every legal move"):
        game.legal_moves()


# ---------------------------------------------------------------------- engine defects (issue 12)

@pytest.mark.parametrize("value", [None, 5, 2.5, b"t7>f", ["t7>f"]])
def test_push_of_what_is_not_a_move_is_an_invalid_notation_error(value: object) -> None:
    """Regression: push(None) and push(5) raised AttributeError, not an engine error."""
    game = Game("KL1-D1N-AAAAAAA")
    before = game.snapshot()
    for call in (game.push, game.is_legal, game.reason_illegal):
        with pytest.raises(InvalidNotationError):
            call(value)  # type: ignore[arg-type]
    assert game.snapshot() == before


def test_is_legal_and_reason_illegal_take_notation_as_push_does() -> None:
    """Regression: is_legal("t1>f") raised AttributeError; it took only a Move."""
    game = Game("KL1-D1N-AAAAAAA")
    for text in ["t7>f", " T4>T5 ", "draw", "t1>f", "w>f", "t4:2>t5", "fs>t1"]:
        move = Move.parse(text)
        assert game.is_legal(text) == game.is_legal(move)
        assert game.reason_illegal(text) == game.reason_illegal(move)
    assert game.is_legal("t7>f") and not game.is_legal("t1>f")
    assert game.reason_illegal("t1>f") == ("8C cannot go to the foundation: "
                                           "the clubs foundation starts with its ace")
    with pytest.raises(InvalidNotationError, match="unknown source"):
        game.is_legal("t9>f")
    with pytest.raises(InvalidNotationError):
        game.reason_illegal("undo")


def test_push_unchecked_plays_what_push_would() -> None:
    """The public unchecked push: the same game as push, without the check."""
    checked, trusted = Game("KL1-D1N-AAAAAAA"), Game("KL1-D1N-AAAAAAA")
    for text in ["t7>f", "t4>t5", "draw", "draw"]:
        checked.push(text)
        trusted.push_unchecked(Move.parse(text))
        assert trusted == checked
