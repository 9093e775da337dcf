"""The rules of docs/rules.md one by one, on positions taken from real deals and scripts."""

from __future__ import annotations

from typing import Any

import pytest
from kl_support import (
    all_notations,
    effective_moves,
    engine_state,
    kl1,
    positions,
    vector_position,
    wins,
)

from server.klondike import (
    DRAW,
    RECYCLE,
    UNDO_LIMIT,
    DealCode,
    EngineError,
    Game,
    IllegalMoveError,
    Move,
    NothingToUndoError,
    replay,
)
from server.klondike.game import RECORD

DECK_SIZE = 52


def deal_of(code: str) -> dict[str, Any]:
    """The first deal vector with the deal number of ``code`` (same number, same cards)."""
    number = DealCode.parse(code).number
    return next(d for d in kl1()["deals"] if d["number"] == number)


# ---------------------------------------------------------------------- the stock and the waste

def test_draw_one_turns_the_top_stock_card() -> None:
    game = Game("KL1-D1N-AAAAAAA")
    stock = deal_of("KL1-D1N-AAAAAAA")["stock"]
    for i in range(3):
        game.push(DRAW)
        assert game.view()["waste"] == [stock[i]]
        assert engine_state(game)["waste"] == stock[: i + 1]
        assert game.view()["stock"] == 24 - i - 1
    assert (game.points, game.vegas, game.moves) == (0, -52, 3)


def test_draw_three_turns_three_the_third_on_top() -> None:
    game = Game("KL1-D3N-AAAAAAA")
    stock = deal_of("KL1-D3N-AAAAAAA")["stock"]
    game.push(DRAW)
    assert engine_state(game)["waste"] == stock[:3]
    assert game.view()["waste"] == stock[:3], "the whole fan is visible, top card last"
    assert game.view()["waste_count"] == 3 and game.view()["stock"] == 21
    game.push(DRAW)
    assert game.view()["waste"] == stock[3:6], "only the latest fan is shown"
    assert game.view()["waste_count"] == 6


def test_draw_three_turns_fewer_when_fewer_remain() -> None:
    game = vector_position("KL1-D3N-7777777", 37)
    assert game.view()["stock"] == 2
    stock = engine_state(game)["stock"]
    game.push(DRAW)
    assert game.view()["waste"] == stock
    assert game.view()["stock"] == 0


def test_draw_three_fan_next_card_playable_when_top_is_played() -> None:
    # KL1-D3N-UCU5FBC after 5 moves: the fresh fan KH KD 6D, t7 ends with 7S, t1 is empty
    game = vector_position("KL1-D3N-UCU5FBC", 5)
    assert game.view()["waste"] == ["KH", "KD", "6D"]
    assert not game.is_legal(Move.parse("w>t1")), "KD is under 6D: not playable yet"
    game.push("w>t7")
    assert game.view()["waste"] == ["KH", "KD"]
    assert game.is_legal(Move.parse("w>t1")), "KD is the waste's top now"
    game.push("w>t1")
    assert game.view()["waste"] == ["KH"]
    game.pop()
    assert game.view()["waste"] == ["KH", "KD"]
    game.pop()
    assert game.view()["waste"] == ["KH", "KD", "6D"]


def test_draw_three_fan_played_out_shows_the_waste_top() -> None:
    # KL1-D3V-AAAAAAG after 8 moves: the fan QC 2S 2C over the earlier fan's QH JH
    game = vector_position("KL1-D3V-AAAAAAG", 8)
    assert engine_state(game)["waste"] == ["QH", "JH", "QC", "2S", "2C"]
    assert game.view()["waste"] == ["QC", "2S", "2C"]
    game.push("w>t3")
    assert game.view()["waste"] == ["QC", "2S"]
    game.push("w>f")
    assert game.view()["waste"] == ["QC"]
    game.push("w>t1")
    assert game.view()["waste"] == ["JH"], "the latest fan is gone: the waste's top shows"
    assert game.view()["waste_count"] == 2
    assert game.is_legal(Move.parse("w>t1")), "JH now goes on QC"


def test_recycle_keeps_the_order_normal_draw_one() -> None:
    game = Game("KL1-D1N-AAAAAAG")
    first_pass = []
    while game.stock:
        game.push(DRAW)
        first_pass += game.view()["waste"]
    assert first_pass == deal_of("KL1-D1N-AAAAAAG")["stock"]
    game.push(RECYCLE)
    assert engine_state(game)["stock"] == first_pass and engine_state(game)["waste"] == []
    assert game.view()["waste"] == [] and game.recycles == 1
    second_pass = []
    while game.stock:
        game.push(DRAW)
        second_pass += game.view()["waste"]
    assert second_pass == first_pass, "the card drawn first in the last pass is drawn first next"


def test_recycle_keeps_the_order_normal_draw_three() -> None:
    game = Game("KL1-D3N-AAAAAAG")
    fans = []
    while game.stock:
        game.push(DRAW)
        fans.append(game.view()["waste"])
    game.push(RECYCLE)
    again = []
    while game.stock:
        game.push(DRAW)
        again.append(game.view()["waste"])
    assert again == fans


def test_recycle_order_with_cards_taken_from_the_waste() -> None:
    """Every recycle of the vectors turns the waste over into the same drawing order."""
    checked = 0
    for vector in kl1()["games"] + wins():
        for game, item in positions(vector["script"], vector["code"]):
            if item == "recycle":
                waste = engine_state(game)["waste"]
                game.push(RECYCLE)
                assert engine_state(game)["stock"] == waste
                game.pop()
                checked += 1
    assert checked > 50


def test_recycle_costs_100_clamped_at_zero() -> None:
    seen = set()
    costs = {}
    for vector in kl1()["games"] + wins():
        for game, item in positions(vector["script"], vector["code"]):
            if item == "recycle":
                before, vegas = game.points, game.vegas
                game.push(RECYCLE)
                assert game.points == max(0, before - 100)
                assert game.vegas == vegas, "a recycle costs no dollars"
                costs[before] = before - game.points
                game.pop()
                assert game.points == before
                seen.add("zero" if before == 0 else "under 100" if before < 100 else "over 100")
    assert seen == {"zero", "under 100", "over 100"}
    assert costs[30] == 30, "a recycle at 30 points costs 30"
    assert costs[0] == 0


@pytest.mark.parametrize("code", ["KL1-D1V-AAAAAAG", "KL1-D3V-AAAAAAG"])
def test_no_recycle_under_vegas(code: str) -> None:
    game = Game(code)
    while game.stock:
        game.push(DRAW)
    assert game.waste
    legal = game.legal_moves()
    assert DRAW not in legal and RECYCLE not in legal
    for move in (DRAW, RECYCLE):
        with pytest.raises(IllegalMoveError):
            game.push(move)
    assert game.recycles == 0


@pytest.mark.parametrize("code", ["KL1-D1N-AAAAAAG", "KL1-D3N-AAAAAAG"])
def test_unlimited_recycles_under_normal(code: str) -> None:
    game = Game(code)
    for _ in range(5):
        while game.stock:
            game.push(DRAW)
        assert RECYCLE in game.legal_moves() and DRAW not in game.legal_moves()
        game.push(RECYCLE)
    assert game.recycles == 5 and game.points == 0


def test_stock_action_with_stock_and_waste_empty_is_refused() -> None:
    game = vector_position("KL1-D3N-M3GLBI2", 323)
    assert not game.stock and not game.waste and game.outcome() is None
    legal = game.legal_moves()
    assert DRAW not in legal and RECYCLE not in legal
    before = game.snapshot()
    for move in ("draw", "recycle"):
        with pytest.raises(IllegalMoveError):
            game.push(move)
    assert game.snapshot() == before


# ---------------------------------------------------------------------- the tableau

def test_kings_only_into_empty_columns() -> None:
    # KL1-D1N-AAAAAAA after 14 moves: t1 empty, KH on the waste, 8S over face-down cards on t3
    game = vector_position("KL1-D1N-AAAAAAA", 14)
    assert game.view()["waste"] == ["KH"] and not game.columns[0]
    assert game.is_legal(Move.parse("w>t1"))
    assert not game.is_legal(Move.parse("t3>t1")), "not even to free a face-down card"
    points = game.points
    game.push("w>t1")
    assert game.points == points + 5
    for target in range(2, 8):
        assert not game.is_legal(Move.parse(f"t1>t{target}")), "a king goes only on an empty column"


def test_a_king_leads_a_sequence_into_an_empty_column() -> None:
    game = vector_position("KL1-D3N-UCU5FBC", 4)
    assert [t["up"] for t in game.view()["tableau"]][:1] == [[]]
    assert game.is_legal(Move.parse("t6>t1")), "KS over face-down cards may go to the empty t1"


def test_sequences_of_any_length() -> None:
    # KL1-D1V-RJRSFZD after 230 moves: t4 holds KS down to AC, all face up; t1 is empty, t7 ends with 9S
    game = vector_position("KL1-D1V-RJRSFZD", 230)
    run = game.view()["tableau"][3]["up"]
    assert len(run) == 13 and run[0] == "KS" and run[-1] == "AC" and game.down[3] == 0
    legal = {str(m) for m in game.legal_moves()}
    assert {"t4:13>t1", "t4:8>t7"} <= legal
    for n in range(2, 14):
        for target in (1, 2, 3, 5, 6, 7):
            move = f"t4:{n}>t{target}"
            assert (move in legal) == ((n, target) in {(13, 1), (8, 7)}), move
    points = game.points
    game.push("t4:13>t1")
    assert game.view()["tableau"][0]["up"] == run and game.columns[3] == []
    assert game.points == points, "column to column earns nothing"
    game.pop()
    game.push("t4:8>t7")
    assert game.view()["tableau"][6]["up"] == ["TD", "9S", *run[5:]]


def test_auto_flip_earns_five() -> None:
    game = Game("KL1-D1N-AAAAAAA")  # t7 shows AH over six face-down cards
    game.push("t7>f")
    assert game.down[6] == 5 and len(game.view()["tableau"][6]["up"]) == 1
    assert (game.points, game.vegas, game.turned_up) == (15, -47, 1)
    game.push("t4>t5")  # 3D onto 4C uncovers QC
    assert game.view()["tableau"][3] == {"down": 2, "up": ["QC"]}
    assert (game.points, game.turned_up) == (20, 2)
    game.pop()
    assert game.view()["tableau"][3] == {"down": 3, "up": ["3D"]} and game.points == 15


def test_waste_to_column_earns_five_column_to_column_nothing() -> None:
    game = vector_position("KL1-D3N-UCU5FBC", 5)
    points = game.points
    game.push("w>t7")
    assert game.points == points + 5
    game.push("w>t1")
    assert game.points == points + 10


# ---------------------------------------------------------------------- scoring

def test_points_table_over_every_vector_move(vector_game: dict[str, Any]) -> None:
    """docs/rules.md's table, move by move, with first-time credit tracked here."""
    credited: list[set[str]] = [set()]
    game = Game(vector_game["code"])
    for item in vector_game["script"]:
        if item == "undo":
            game.pop()
            credited.pop()
            continue
        before = engine_state(game)
        points, vegas = game.points, game.vegas
        down = list(game.down)
        card = None
        if item.endswith(">f"):
            source = item.split(">")[0]
            card = before["waste"][-1] if source == "w" else before["tableau"][int(source[1]) - 1]["up"][-1]
        game.push(item)
        credited.append(credited[-1] | ({card} if card else set()))
        flipped = sum(down) - sum(game.down)
        assert flipped in (0, 1)
        first = card is not None and card not in credited[-2]
        if item == "recycle":
            expected = max(0, points - 100)
        else:
            expected = points + 5 * flipped + (10 if first else 0) + (5 if item.startswith("w>t") else 0)
        assert game.points == expected, item
        assert game.vegas == vegas + (5 if first else 0), item
        assert game.vegas == -52 + 5 * len(credited[-1])


def test_recovering_earns_nothing_and_putting_back_earns_nothing() -> None:
    # KL1-D1N-AAAAAAA after 22 moves: 2C on the clubs foundation, t5 ends with 3D
    game = vector_position("KL1-D1N-AAAAAAA", 22)
    assert game.view()["foundations"]["C"] == "2C"
    points, vegas = game.points, game.vegas
    game.push("fc>t5")
    assert game.view()["tableau"][4]["up"][-1] == "2C"
    assert (game.points, game.vegas) == (points, vegas), "recovering costs nothing"
    game.push("t5>f")
    assert (game.points, game.vegas) == (points, vegas), "putting it back earns nothing"
    for _ in range(10):  # up and down again: still nothing
        game.push("fc>t5")
        game.push("t5>f")
    assert (game.points, game.vegas) == (points, vegas)


def test_undo_of_the_first_placement_takes_the_points_back() -> None:
    game = Game("KL1-D1N-AAAAAAA")
    game.push("t7>f")
    assert (game.points, game.vegas) == (15, -47)
    game.pop()
    assert (game.points, game.vegas, game.moves, game.turned_up) == (0, -52, 0, 0)
    game.push("t7>f")
    assert (game.points, game.vegas) == (15, -47), "the credit comes back with the move"


def test_undo_of_a_later_placement_keeps_the_first_credit() -> None:
    game = vector_position("KL1-D1N-AAAAAAA", 22)
    points, vegas = game.points, game.vegas
    game.push("fc>t5")
    game.push("t5>f")
    game.pop()
    game.pop()
    assert (game.points, game.vegas) == (points, vegas)
    assert engine_state(game) == engine_state(vector_position("KL1-D1N-AAAAAAA", 22))


def test_both_figures_are_kept_whatever_the_scoring() -> None:
    for code in ("KL1-D1N-AAAAAAA", "KL1-D1V-AAAAAAA"):
        game = Game(code)
        game.push("t7>f")
        assert (game.points, game.vegas) == (15, -47)


def test_vegas_turns_positive_with_the_eleventh_card() -> None:
    vector = wins()[0]
    for game, _ in positions(vector["script"], vector["code"]):
        credited = game.credited.bit_count()
        assert game.vegas == -52 + 5 * credited
        if credited == 10:
            assert game.vegas == -2
        if credited == 11:
            assert game.vegas == 3
            break
    else:
        pytest.fail("the won game never credited 11 cards")


# ---------------------------------------------------------------------- the end of a game

def test_win(win_vector: dict[str, Any]) -> None:
    game = replay(win_vector["code"], win_vector["script"])
    assert game.is_won and game.outcome() == "won" and game.foundation_cards == DECK_SIZE
    view = game.view()
    assert view["state"] == "won" and game.public_view()["state"] == "won"
    assert view["foundations"] == {"S": "KS", "H": "KH", "D": "KD", "C": "KC"}
    assert game.vegas == 208
    assert not game.can_autocomplete() and game.autocomplete_moves() is None
    assert game.hint() is None
    # nothing moves on its own; only the kings may come back, onto the empty columns
    assert {str(m) for m in game.legal_moves()} == {f"f{s}>t{t}" for s in "shdc" for t in range(1, 8)}
    before_last = replay(win_vector["code"], win_vector["script"][:-1])
    assert not before_last.is_won and before_last.outcome() is None


def play_until_stuck(code: str) -> Game:
    """Follow the hints until there is none: these Vegas games end stuck."""
    game = Game(code)
    for _ in range(1000):
        move = game.hint()
        if move is None:
            break
        game.push(move)
    return game


@pytest.mark.parametrize("code", ["KL1-D1V-AAAAACE", "KL1-D3V-AAAAAAC"])
def test_stuck(code: str) -> None:
    game = play_until_stuck(code)
    assert game.outcome() == "stuck"
    assert not game.stock and game.legal_moves() == [] and not game.has_legal_move()
    assert game.view()["state"] == "stuck" and game.view()["legal"] == []
    assert game.hint() is None and game.autocomplete_moves() is None
    before = game.snapshot()
    for text in all_notations():
        with pytest.raises(IllegalMoveError):
            game.push(text)
    assert game.snapshot() == before
    game.pop()
    assert game.outcome() is None, "undo is not a move, but it gets out of a stuck position"


def test_draw_only_reaches_stuck() -> None:
    game = Game("KL1-D1V-AAAAAAC")
    while game.stock:
        assert game.outcome() is None
        game.push(DRAW)
    assert game.outcome() == "stuck" and game.moves == 24


# ---------------------------------------------------------------------- undo

def test_undo_of_the_last_100_moves_only() -> None:
    vector = wins()[0]
    moves = effective_moves(vector["script"])
    assert len(moves) > UNDO_LIMIT + 1
    game = replay(vector["code"], moves)
    assert game.undo_depth == UNDO_LIMIT == 100
    for k in range(1, UNDO_LIMIT + 1):
        assert game.pop() is Move.parse(moves[-k])
        assert game.undo_depth == UNDO_LIMIT - k
    assert engine_state(game) == engine_state(replay(vector["code"], moves[:-UNDO_LIMIT]))
    with pytest.raises(NothingToUndoError):
        game.pop()
    assert engine_state(game) == engine_state(replay(vector["code"], moves[:-UNDO_LIMIT]))
    game.push(moves[-UNDO_LIMIT])
    assert game.undo_depth == 1


def test_undo_with_nothing_to_undo() -> None:
    game = Game("KL1-D1N-AAAAAAG")
    before = game.snapshot()
    with pytest.raises(NothingToUndoError) as info:
        game.pop()
    assert isinstance(info.value, EngineError) and isinstance(info.value, ValueError)
    assert game.snapshot() == before
    with pytest.raises(NothingToUndoError):
        replay("KL1-D1N-AAAAAAG", ["draw", "undo", "undo"])


def test_undo_restores_everything(vector_game: dict[str, Any]) -> None:
    """Every move of every script, undone at once, gives back the exact game before it."""
    for game, item in positions(vector_game["script"], vector_game["code"]):
        if item is None or item == "undo":
            continue
        copy, before = game.copy(), game.snapshot()
        game.push(item)
        game.pop()
        if copy.undo_depth == UNDO_LIMIT:  # the oldest record fell off the end
            copy.history.popleft()
            del copy.packed_history[:RECORD.size]  # and its packed copy, which mirrors it
        else:
            assert game.snapshot() == before
        assert game == copy and game.snapshot() == copy.snapshot()
