"""The KL2 test vectors (tests/vectors/kl2.json), reproduced exactly by the engine.

The file comes from ``tests/vectors/make_kl2.py``, a reading of docs/rules.md
of its own that imports nothing of the engine; the first tests check that it
still writes exactly this file and still agrees with the published KL1 deals,
so that the engine is judged against an independent implementation.
"""

from __future__ import annotations

from typing import Any

import pytest
from kl_support import VECTORS, engine_state, kl1, kl2, kl2_maker, reference_layout

from server.klondike import KL1, KL2, DealCode, Game, InvalidDealCodeError, card_name, shuffled_deck
from server.klondike.deal import deal


def test_kl2_json_is_what_its_generator_writes() -> None:
    assert (VECTORS / "kl2.json").read_text() == kl2_maker().text()


def test_the_generator_reproduces_every_published_kl1_deal() -> None:
    kl2_maker().check_against_kl1()
    assert len(kl1()["deals"]) == 40


def test_the_vectors_cover_the_whole_64_bit_range() -> None:
    numbers = [d["number"] for d in kl2()["deals"]]
    assert {0, 2**35 - 1, 2**35, 2**63, 2**64 - 2, 2**64 - 1} <= set(numbers)
    assert sum(n >= 2**60 for n in numbers) >= 5
    assert {d["code"][4:7] for d in kl2()["deals"]} == {"D1N", "D3N", "D1V", "D3V"}


# ---------------------------------------------------------------------- deals

def test_kl2_code_names_its_number(kl2_deal: dict[str, Any]) -> None:
    code = DealCode.parse(kl2_deal["code"])
    assert (code.number, code.format) == (kl2_deal["number"], KL2)
    assert str(code) == kl2_deal["code"]
    assert DealCode(code.number, code.draw, code.scoring, KL2) == code


def test_kl2_deck_after_the_shuffle(kl2_deal: dict[str, Any]) -> None:
    assert [card_name(c) for c in shuffled_deck(kl2_deal["number"])] == kl2_deal["deck"]


def test_kl2_dealt_tableau_and_stock(kl2_deal: dict[str, Any]) -> None:
    state = engine_state(Game(kl2_deal["code"]))
    assert state["tableau"] == kl2_deal["tableau"]
    assert state["stock"] == kl2_deal["stock"]
    layout = deal(kl2_deal["number"])
    assert [card_name(c) for c in layout.stock] == kl2_deal["stock"]


def test_the_tests_reference_deal_agrees_on_64_bit_numbers(kl2_deal: dict[str, Any]) -> None:
    assert reference_layout(kl2_deal["number"]) == (kl2_deal["tableau"], kl2_deal["stock"])


def test_a_kl2_game_survives_a_snapshot_with_its_code(kl2_deal: dict[str, Any]) -> None:
    game = Game(kl2_deal["code"])
    game.push(game.legal_moves()[0])
    back = Game.from_snapshot(game.snapshot())
    assert back == game and str(back.code) == kl2_deal["code"]


# ---------------------------------------------------------------------- KL1 and KL2 pairs

def test_a_kl1_number_is_the_same_deal_in_kl2(kl2_pair: dict[str, Any]) -> None:
    one, two = DealCode.parse(kl2_pair["kl1"]), DealCode.parse(kl2_pair["kl2"])
    assert one.number == two.number == kl2_pair["number"]
    assert (one.format, two.format) == (KL1, KL2)
    assert one.mode == two.mode and one != two  # two codes of one deal
    a, b = Game(one), Game(two)
    assert (a.columns, a.down, a.stock) == (b.columns, b.down, b.stock)
    assert (a.draw_count, a.allow_recycle) == (b.draw_count, b.allow_recycle)
    assert str(a.code) == kl2_pair["kl1"] and str(b.code) == kl2_pair["kl2"]


def test_pairs_of_published_deals_lay_out_the_published_table() -> None:
    published = {d["number"]: d for d in kl1()["deals"]}
    checked = 0
    for pair in kl2()["pairs"]:
        if pair["number"] in published:
            state = engine_state(Game(pair["kl2"]))
            assert state["tableau"] == published[pair["number"]]["tableau"]
            assert state["stock"] == published[pair["number"]]["stock"]
            checked += 1
    assert checked >= 6


# ---------------------------------------------------------------------- text

@pytest.mark.parametrize("entry", kl2()["forgiving"], ids=lambda e: repr(e["text"]))
def test_kl2_parsing_forgives_space_and_case(entry: dict[str, Any]) -> None:
    code = DealCode.parse(entry["text"])
    assert (str(code), code.number) == (entry["code"], entry["number"])


@pytest.mark.parametrize("entry", kl2()["refused"], ids=lambda e: e["text"])
def test_bad_kl2_codes_say_which_part_is_wrong(entry: dict[str, Any]) -> None:
    with pytest.raises(InvalidDealCodeError) as info:
        DealCode.parse(entry["text"])
    message = str(info.value)
    assert repr(entry["text"]) in message
    for word in entry["words"]:
        assert word in message
