"""Perft-style pins: legal-move counts along fixed lines (perft.json, from make_perft.py).

The engine must give the pinned counts again, and so must two checks that do
not use ``legal_moves()``: trying each of the 591 moves with ``is_legal``, and
the tests' own rules model (kl_support.RulesModel).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import make_perft
import pytest
from kl_support import RulesModel, all_notations

from server.klondike import DealCode, Game, Move

PINNED: dict[str, Any] = json.loads((Path(__file__).parent / "perft.json").read_text())
ALL = [Move.parse(text) for text in all_notations()]
MODEL_NODES = 2000  # the model is slow: it checks each perft depth with at most this many leaves


def spec_of(entry: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in entry.items() if k != "counts"}


def entry_id(entry: dict[str, Any]) -> str:
    extra = f"k{entry['k']}" if "k" in entry else entry.get("after", entry.get("plies"))
    return f"{entry['code']}-{entry.get('line', 'perft')}-{extra}"


def test_the_file_matches_its_generator() -> None:
    assert [spec_of(e) for e in PINNED["lines"]] == make_perft.LINES
    assert [spec_of(e) for e in PINNED["perft"]] == make_perft.PERFT
    modes = {DealCode.parse(e["code"]).mode for e in PINNED["lines"] + PINNED["perft"]}
    assert modes == {"D1N", "D3N", "D1V", "D3V"}


@pytest.mark.parametrize("entry", PINNED["lines"], ids=entry_id)
def test_line_counts(entry: dict[str, Any]) -> None:
    assert make_perft.line_counts(spec_of(entry)) == entry["counts"]


@pytest.mark.parametrize("entry", PINNED["lines"], ids=entry_id)
def test_line_counts_by_trial_and_by_model(entry: dict[str, Any]) -> None:
    code = DealCode.parse(entry["code"])
    game = Game(code)
    model = RulesModel(code.number, code.draw, code.scoring)
    items = make_perft.line_items(spec_of(entry))
    assert len(items) + 1 == len(entry["counts"])
    for item, pinned in zip([*items, None], entry["counts"], strict=True):
        by_trial = {str(m) for m in ALL if game.is_legal(m)}
        by_model = model.legal()
        legal = [str(m) for m in game.legal_moves()]
        assert len(legal) == pinned == len(by_trial) == len(by_model)
        assert set(legal) == by_trial == by_model
        if item == "undo":
            game.pop()
            model.undo()
        elif item is not None:
            game.push(item)
            model.apply(item)


def perft_by_trial(game: Game, depth: int) -> int:
    """Perft without ``legal_moves()``: try every possible move."""
    if depth == 0:
        return 1
    total = 0
    for move in ALL:
        if game.is_legal(move):
            game.push(move)
            total += perft_by_trial(game, depth - 1)
            game.pop()
    return total


def perft_by_model(model: RulesModel, depth: int) -> int:
    if depth == 0:
        return 1
    total = 0
    for move in sorted(model.legal()):
        model.apply(move)
        total += perft_by_model(model, depth - 1)
        model.undo()
    return total


@pytest.mark.parametrize("entry", PINNED["perft"], ids=entry_id)
def test_perft(entry: dict[str, Any]) -> None:
    assert make_perft.perft_counts(spec_of(entry)) == entry["counts"]


@pytest.mark.parametrize("entry", PINNED["perft"], ids=entry_id)
def test_perft_by_trial_and_by_model(entry: dict[str, Any]) -> None:
    game = make_perft.start(spec_of(entry))
    code = DealCode.parse(entry["code"])
    model = RulesModel(code.number, code.draw, code.scoring)
    for item in make_perft.script(entry["code"])[: entry["after"]]:
        if item == "undo":
            model.undo()
        else:
            model.apply(item)
    checked = 0
    for depth, pinned in enumerate(entry["counts"], start=1):
        if pinned <= 4 * MODEL_NODES:
            assert perft_by_trial(game, depth) == pinned
        if pinned <= MODEL_NODES:
            assert perft_by_model(model, depth) == pinned
            checked += 1
    assert checked >= 2
