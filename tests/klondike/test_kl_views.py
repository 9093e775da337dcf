"""The player's and the spectator's views (server/klondike/views.py)."""

from __future__ import annotations

import json
from typing import Any

from kl_support import engine_state, hidden_cards, positions

from server.klondike import Game

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
