"""Cards and their text form (docs/rules.md, "Cards")."""

from __future__ import annotations

import pytest
from kl_support import ALL_CARDS

from server.klondike import EngineError, InvalidCardError, card_name, long_name, parse_card


def test_index_formula() -> None:
    for suit_index, suit in enumerate("SHDC"):
        for rank, letter in enumerate("A23456789TJQK", start=1):
            assert parse_card(letter + suit) == suit_index * 13 + (rank - 1)
    assert (parse_card("AS"), parse_card("KS"), parse_card("AH"), parse_card("KC")) == (0, 12, 13, 51)


def test_round_trip_for_all_52() -> None:
    assert [card_name(parse_card(name)) for name in ALL_CARDS] == ALL_CARDS
    assert sorted(parse_card(name) for name in ALL_CARDS) == list(range(52))
    assert [parse_card(card_name(i)) for i in range(52)] == list(range(52))


@pytest.mark.parametrize("text", ["7h", " 7H ", "7h\n"])
def test_parse_ignores_case_and_surrounding_space(text: str) -> None:
    assert card_name(parse_card(text)) == "7H"


@pytest.mark.parametrize(
    "text", ["", "7", "H7", "1H", "10H", "0S", "7X", "7HH", "AS KS", "ZZ", "7 H", "♥7"],
)
def test_bad_cards_raise(text: str) -> None:
    with pytest.raises(InvalidCardError) as info:
        parse_card(text)
    assert repr(text) in str(info.value)
    assert isinstance(info.value, EngineError) and isinstance(info.value, ValueError)


@pytest.mark.parametrize("value", [None, 7, b"7H"])
def test_parse_refuses_what_is_not_text(value: object) -> None:
    with pytest.raises(InvalidCardError):
        parse_card(value)  # type: ignore[arg-type]


@pytest.mark.parametrize("index", [-1, 52, 100])
def test_bad_indexes_raise(index: int) -> None:
    with pytest.raises(InvalidCardError, match=str(index)):
        card_name(index)


def test_long_names() -> None:
    assert long_name(parse_card("7H")) == "7 of hearts"
    assert long_name(parse_card("TS")) == "10 of spades"
    assert long_name(parse_card("AD")) == "ace of diamonds"
    assert long_name(parse_card("KC")) == "king of clubs"


@pytest.mark.parametrize("text", ["aſ", "7Ｈ", "ＡS"])
def test_a_non_ascii_card_text_is_refused(text: str) -> None:
    """Regression: "ſ".upper() is "S", so "aſ" parsed as the ace of spades."""
    with pytest.raises(InvalidCardError):
        parse_card(text)
