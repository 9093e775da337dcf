"""Progress and hints (server/klondike/progress.py, assist.hint): the definition
of progress pinned by hand-built positions, and hints that never go round in
circles."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from kl_support import ALL_CARDS, TALON, build, dead, hidden_under, kl1

from server.klondike import DealCode, Game, Move, replay
from server.klondike.progress import no_progress_after, progress, reversible

# ---------------------------------------------------------------------- hand-built positions

def test_normal_scoring_with_only_the_stock_left_has_no_progress() -> None:
    """The stock can always be drawn and recycled, so the game is never stuck,
    but drawing through cards already seen gains nothing: no progress."""
    game = dead()
    assert game.outcome() is None and game.legal_moves() == [Move.parse("draw")]
    assert game.no_progress() and game.progress_moves() == []
    assert game.hint() is None
    assert game.view(progress=True)["no_progress"] is True
    assert "no_progress" not in game.view()
    for _ in range(5):
        game.push("draw")
    game.push("recycle")
    assert game.no_progress() and game.hint() is None


def test_a_stock_card_never_seen_is_progress() -> None:
    game = dead(recycles=0)
    assert game.progress_moves() == [Move.parse("draw")] and not game.no_progress()
    assert game.hint() == Move.parse("draw")
    for _ in range(len(game.stock)):
        game.push("draw")
    assert game.no_progress(), "every card was seen once the stock is drawn through"


@pytest.mark.parametrize(("waste", "first", "distance"),
                         [(3, "draw", 2), (4, "w>f", 1), (5, "draw", 7), (6, "recycle", 6)])
def test_a_card_home_for_the_first_time_is_progress_however_far(
        waste: int, first: str, distance: int) -> None:
    """An ace in a stock already seen: drawing (and recycling) to it is the way."""
    game = dead(talon=["2H", "2D", "3H", "AS", "3D", "6H"], waste=waste)
    assert game.progress_moves() == [Move.parse(first)] and not game.no_progress()
    assert progress(game).distance == distance
    assert game.hint() == Move.parse(first)


def test_a_card_home_again_is_not_progress() -> None:
    """2S was on its foundation before (credited): putting it back earns nothing."""
    heads = ["KH", "KS", "KC", "KD", "5H", "5D", "3D 2S"]
    used = {*TALON, *" ".join(heads).split(), "AS"}
    rest = [c for c in ALL_CARDS if c not in used]
    columns = hidden_under(rest, heads)
    again = build("KL1-D1N-AAAAAAA", columns, waste=TALON[:3], stock=TALON[3:], recycles=1,
                  credited=["2S"])
    assert again.is_legal("t7>f")
    assert again.no_progress() and again.progress_moves() == [] and again.hint() is None
    first = build("KL1-D1N-AAAAAAA", columns, waste=TALON[:3], stock=TALON[3:], recycles=1)
    assert first.progress_moves() == [Move.parse("t7>f")] and first.hint() == Move.parse("t7>f")


def test_a_face_down_card_turned_up_is_progress() -> None:
    heads = ["KH", "KS", "KC", "KD", "5H", "5D", "4S"]
    game = build("KL1-D1N-AAAAAAA",
                 hidden_under([c for c in ALL_CARDS if c not in [*heads, *TALON]], heads),
                 waste=TALON[:3], stock=TALON[3:], recycles=1)
    assert game.progress_moves() == [Move.parse("t7>t5"), Move.parse("t7>t6")]
    assert game.hint() in game.progress_moves()


def test_what_progress_is_depends_on_nothing_the_player_cannot_see() -> None:
    """Other face-down cards, another order of the unseen stock: the same answer."""
    for recycles in (0, 1):
        answers = {(tuple(map(str, g.progress_moves())), g.no_progress(), str(g.hint()))
                   for g in (dead(recycles=recycles, order=k) for k in range(6))}
        assert len(answers) == 1


def test_a_stuck_game_has_no_progress_and_a_won_game_is_not_said_to() -> None:
    stuck = replay("KL1-D3V-NVFN3FS", kl1()["games"][15]["script"])
    assert stuck.outcome() == "stuck" and stuck.no_progress()
    won = Game("KL1-D1N-AAAAAAA")
    won.columns, won.down, won.stock, won.waste = [[] for _ in range(7)], [0] * 7, [], []
    won.foundations = [13] * 4
    assert won.is_won and not won.no_progress() and won.progress_moves() == []
    assert won.view(progress=True)["no_progress"] is False


# ---------------------------------------------------------------------- hints that never go round


def line(game: Game) -> set[object]:
    """Every position of a game's line, from its deal (the game must hold it all)."""
    walk = game.copy()
    out = {walk.position()}
    while walk.undo_depth:
        walk.pop()
        out.add(walk.position())
    assert walk.moves == 0
    return out


def test_the_hint_loop_of_the_issue_is_gone() -> None:
    """KL1-D1N-HBYNO6E: after 125 hinted moves the hints cycled fc>t3, t1>f, t3>f,
    fd>t1 for ever, though auto-complete would win. Now they win."""
    game = Game("KL1-D1N-HBYNO6E")
    reached = {game.position()}
    while (move := game.hint()) is not None:
        game.push(move)
        assert game.position() not in reached
        reached.add(game.position())
    assert game.is_won


@settings(max_examples=20, deadline=None)
@given(number=st.integers(0, 2**35 - 1), mode=st.sampled_from(["D1N", "D3N", "D1V", "D3V"]),
       wander=st.lists(st.integers(0, 50), max_size=60))
def test_hint_playouts_never_revisit_a_position(number: int, mode: str, wander: list[int]) -> None:
    """From any point of a game (random moves first, undos included), following
    the hints never comes back to a position the game was already in."""
    code = DealCode(number, int(mode[1]), mode[2])  # type: ignore[arg-type]
    game = Game(code)
    for pick in wander:
        moves = game.legal_moves()
        if pick == 0 and game.undo_depth:
            game.pop()
        elif moves:
            game.push(moves[pick % len(moves)])
    reached = line(game)
    for _ in range(300):
        move = game.hint()
        if move is None:
            break
        game.push(move)
        assert game.position() not in reached, f"{move} went back, {game.moves} moves in"
        reached.add(game.position())
    else:
        pytest.fail("300 hinted moves without an end")


def test_positions_ignore_the_order_of_the_columns_and_the_figures() -> None:
    a = replay("KL1-D1N-AAAAAAA", ["t7>f", "t4>t5"])
    b = a.copy()
    b.columns[0], b.columns[2] = b.columns[2], b.columns[0]
    b.down[0], b.down[2] = b.down[2], b.down[0]
    b.points += 100
    assert a.position() == b.position() and hash(a.position()) == hash(b.position())
    b.push("draw")
    assert a.position() != b.position()


@settings(max_examples=40, deadline=None)
@given(number=st.integers(0, 2**35 - 1), mode=st.sampled_from(["D1N", "D3N", "D1V", "D3V"]),
       picks=st.lists(st.integers(0, 40), max_size=300), unknown=st.integers(0, 3))
def test_no_progress_after_a_move_is_the_searchs_answer_whenever_it_tells(
        number: int, mode: str, picks: list[int], unknown: int) -> None:
    """``no_progress_after`` answers without a search from the answer before
    the move (known, or on every ``unknown + 1``-th position not known);
    whenever it answers, it is what a full search says."""
    game = Game(DealCode(number, int(mode[1]), mode[2]))  # type: ignore[arg-type]
    before: bool | None = game.no_progress()
    for i, pick in enumerate(picks):
        legal = game.legal_moves()
        if not legal:
            break
        game.push(legal[pick % len(legal)])
        truth = game.no_progress()
        told = no_progress_after(game, before, game.legal_moves())
        assert told is None or told == truth, (str(game.code), game.moves)
        before = None if unknown and i % (unknown + 1) == 0 else truth


def test_moves_that_can_be_taken_back_are_reversible() -> None:
    table = ["KS QH JS", "KH QS", "KC QD", "KD QC JD", "", "", ""]

    def after(*moves: str, columns: list[str] = table) -> bool:
        game = build("KL1-D1N-AAAAAAA", columns)
        for move in moves:
            game.push(move)
        return reversible(game)

    assert after("t1>t3")  # JS back onto QH
    assert after("t1:3>t5")  # a king's column to an empty one, and back
    assert after("fs>t4")  # TS home again
    assert not after("t1>f")  # JS home for the first time: credited
    assert after("t1>f", "fs>t1", "t1>f")  # home again, and it can come back
    assert not after("t5:2>t1", columns=["KS", "KH QS", "KC QD", "KD QC JD", "QH JS", "", ""])
    game = replay("KL1-D1N-AAAAAAA", ["t7>f", "t4>t5"])
    assert not reversible(game)  # t4>t5 turned a card up
    for recycles, draw, waste, back in [(1, 1, 3, True), (0, 1, 3, False), (1, 3, 3, True),
                                        (1, 3, 2, False)]:
        stock = dead(f"KL1-D{draw}N-AAAAAAA", recycles=recycles, waste=waste)
        stock.push("draw")
        assert reversible(stock) is back, (recycles, draw, waste)
    stock = dead(recycles=0, waste=8)
    stock.push("recycle")
    assert reversible(stock)  # drawn through, the waste is as it was


def test_a_move_from_a_position_with_no_progress_has_none_either() -> None:
    stuck = dead(recycles=1, waste=3)
    assert stuck.no_progress()
    stuck.push("draw")
    assert no_progress_after(stuck, True, stuck.legal_moves()) is True
    assert no_progress_after(stuck, None, stuck.legal_moves()) is None
