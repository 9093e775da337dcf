"""The player's and the spectator's views (server/klondike/views.py)."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from kl_support import engine_state, hidden_cards, positions

from server.klondike import DealCode, Game, Move, replay
from server.klondike.moves import FC, FD, FH, FOUNDATION, FS, STOCK, WASTE
from server.klondike.views import apply_change, view_change

PUBLIC_KEYS = [
    "mode", "draw", "scoring", "stock", "waste", "waste_count", "foundations", "tableau",
    "points", "vegas", "moves", "recycles", "foundation_cards", "turned_up", "state",
]
PLAYER_KEYS = [*PUBLIC_KEYS, "legal", "undo", "autocomplete"]


def check_view(game: Game) -> None:
    view, public = game.view(), game.public_view()
    assert list(view) == PLAYER_KEYS and list(public) == PUBLIC_KEYS
    assert {k: view[k] for k in PUBLIC_KEYS} == public
    assert json.loads(json.dumps(view)) == view, "plain JSON types only"

    state = engine_state(game)
    code = game.code
    assert (view["mode"], view["draw"], view["scoring"]) == (code.mode, code.draw, code.scoring)
    assert type(view["stock"]) is int and view["stock"] == len(state["stock"])
    assert type(view["waste_count"]) is int and view["waste_count"] == len(state["waste"])
    assert isinstance(view["waste"], list) and all(isinstance(c, str) for c in view["waste"])
    assert view["waste"] == state["waste"][len(state["waste"]) - len(view["waste"]):]
    assert len(view["waste"]) <= (3 if code.draw == 3 else 1)
    assert bool(view["waste"]) == bool(state["waste"])
    tops = {s: (f"{'A23456789TJQK'[n - 1]}{s}" if n else None) for s, n in state["foundations"].items()}
    assert view["foundations"] == tops
    assert len(view["tableau"]) == 7
    for column, shown in zip(state["tableau"], view["tableau"], strict=True):
        assert list(shown) == ["down", "up"]
        assert type(shown["down"]) is int and shown["down"] == len(column["down"])
        assert shown["up"] == column["up"]
    for key in ("points", "vegas", "moves", "recycles"):
        assert type(view[key]) is int and view[key] == state[key]
    assert view["foundation_cards"] == sum(state["foundations"].values())
    assert view["turned_up"] == game.turned_up
    assert view["state"] == (game.outcome() or "playing")
    assert view["legal"] == [str(m) for m in game.legal_moves()]
    assert type(view["undo"]) is int and view["undo"] == game.undo_depth
    assert type(view["autocomplete"]) is bool
    assert view["autocomplete"] == (game.autocomplete_moves() is not None)

    # secrets: no face-down card, no stock card, not the deal number
    for text in (json.dumps(view), json.dumps(public)):
        for card in hidden_cards(game):
            assert f'"{card}"' not in text
        assert str(code)[-7:] not in text and str(code) not in text


def test_views_along_every_vector_game(vector_game: dict[str, Any]) -> None:
    for game, _ in positions(vector_game["script"], vector_game["code"]):
        check_view(game)


def test_view_of_a_fresh_deal() -> None:
    game = Game("KL1-D3V-AAAAAAG")
    view = game.view()
    assert view["mode"] == "D3V" and view["draw"] == 3 and view["scoring"] == "V"
    assert view["stock"] == 24 and view["waste"] == [] and view["waste_count"] == 0
    assert view["foundations"] == {"S": None, "H": None, "D": None, "C": None}
    assert [t["down"] for t in view["tableau"]] == [0, 1, 2, 3, 4, 5, 6]
    assert all(len(t["up"]) == 1 for t in view["tableau"])
    assert (view["points"], view["vegas"], view["moves"], view["recycles"]) == (0, -52, 0, 0)
    assert (view["foundation_cards"], view["turned_up"], view["state"]) == (0, 0, "playing")
    assert (view["undo"], view["autocomplete"]) == (0, False)
    assert view["legal"][-1] == "draw"


def test_legal_moves_come_in_the_documented_order(vector_game: dict[str, Any]) -> None:
    """Foundations, waste, columns, foundation to column, then the stock."""
    def group(text: str) -> int:
        if text in ("draw", "recycle"):
            return 4
        if text[0] == "f":
            return 3
        if text.endswith(">f"):
            return 0
        return 1 if text[0] == "w" else 2

    for game, _ in positions(vector_game["script"], vector_game["code"]):
        groups = [group(m) for m in game.view()["legal"]]
        assert groups == sorted(groups)


def walk_with_changes(game: Game, picks: list[int]) -> None:
    """Play ``picks`` (0 undoes when it can, else a legal move by index); after
    each, the view before with the change applied is the view after, and
    the change names no pile the command did not touch."""
    view = game.view()
    for pick in picks:
        moves = game.legal_moves()
        if pick == 0 and game.undo_depth:
            moved = game.pop()
        elif moves:
            moved = moves[pick % len(moves)]
            game.push(moved)
        else:
            break
        change = view_change(game, moved)
        after = game.view()
        assert apply_change(view, change) == after, (str(game.code), game.moves, str(moved))
        assert json.loads(json.dumps(change)) == change, "plain JSON types only"
        touched = {moved.source, moved.target}
        assert {int(c) for c in change.get("tableau", {})} == touched & set(range(7))
        assert ("foundations" in change) == bool(touched & {FOUNDATION, FS, FH, FD, FC})
        assert ("waste" in change) == bool(touched & {WASTE, STOCK})
        assert "mode" not in change and "draw" not in change and "scoring" not in change
        for card in hidden_cards(game):
            assert f'"{card}"' not in json.dumps(change)
        view = after


def test_a_change_applied_to_the_view_before_is_the_view_after_along_every_vector_game(
        vector_game: dict[str, Any]) -> None:
    game = Game(vector_game["code"])
    view = game.view()
    for item in vector_game["script"]:
        moved = game.pop() if item == "undo" else Move.parse(item)
        if item != "undo":
            game.push(moved)
        view = apply_change(view, view_change(game, moved))
        assert view == game.view()


@settings(max_examples=40, deadline=None)
@given(number=st.integers(0, 2**35 - 1), mode=st.sampled_from(["D1N", "D3N", "D1V", "D3V"]),
       picks=st.lists(st.integers(0, 40), max_size=300))
def test_a_change_applied_to_the_view_before_is_the_view_after_in_random_games(
        number: int, mode: str, picks: list[int]) -> None:
    walk_with_changes(Game(DealCode(number, int(mode[1]), mode[2])), picks)  # type: ignore[arg-type]


def test_a_change_without_a_move_has_only_the_figures() -> None:
    """A resign moves nothing: its ack's change is the figures alone."""
    game = replay("KL1-D1N-AAAAAAA", ["t7>f"])
    change = view_change(game, None)
    assert set(change) == set(PLAYER_KEYS) - {"mode", "draw", "scoring", "stock", "waste",
                                              "waste_count", "foundations", "tableau"}
    assert apply_change(game.view(), change) == game.view()
