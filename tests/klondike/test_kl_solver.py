"""The solver (server/klondike/solver.py, search.py, relax.py).

Every line it calls winning is replayed through Game.push by the solver itself
and again here; ``lost`` is checked against positions built to be lost and,
on small positions, against an exhaustive search of the engine's own moves
with no pruning at all, so that every pruning rule of the search is tested
for soundness, not only for speed.
"""

from __future__ import annotations

import pickle
import random
from collections import deque
from concurrent.futures import ProcessPoolExecutor
from typing import Any

import pytest
from hypothesis import given, reject
from hypothesis import strategies as st
from kl_support import ALL_CARDS, build, dead, hypothesis_profile, kl1, wins

from server.klondike import DealCode, Game, InvalidDealCodeError, InvalidSnapshotError, replay
from server.klondike.cards import RANK, RED
from server.klondike.relax import hopeless
from server.klondike.solver import JobResult, Solution, certify, solve, solve_code, solve_job

#: Budgets in positions, not seconds, so that the answers do not depend on the
#: machine: enough for every deal below that the tests need decided.
NODES = 5000


def replays_to_a_win(game: Game, solution: Solution) -> bool:
    assert solution.line is not None
    finish = game.copy()
    for move in solution.line:
        finish.push(move)  # raises if a move is illegal
    return finish.is_won


# ---------------------------------------------------------------------- whole deals

@pytest.mark.search
@pytest.mark.parametrize("mode", ["D1N", "D3N", "D1V", "D3V"])
def test_every_winning_line_on_the_vector_deals_wins(mode: str) -> None:
    """The 40 deals of kl1.json in each mode: whatever the solver calls winnable
    replays to a win, from a fresh game, through Game.push."""
    verdicts = []
    for deal in kl1()["deals"]:
        code = DealCode(deal["number"], int(mode[1]), mode[2])  # type: ignore[arg-type]
        game = Game(code)
        solution = solve(game, seconds=None, nodes=NODES)
        verdicts.append(solution.verdict)
        if solution.verdict == "winnable":
            assert replays_to_a_win(Game(code), solution)
            assert solution.notation == [str(m) for m in solution.line or ()]
        else:
            assert solution.line is None and solution.notation is None
        assert game == Game(code), "solving changes nothing"
    assert "winnable" in verdicts and ("lost" in verdicts or mode == "D1N")


@pytest.mark.search
def test_every_won_game_of_the_vectors_is_found_winnable(win_vector: dict[str, Any]) -> None:
    """wins.json holds 14 deals with a winning script: the solver must find a line."""
    solution = solve(Game(win_vector["code"]), seconds=None, nodes=200_000)
    assert solution.verdict == "winnable"
    assert replays_to_a_win(Game(win_vector["code"]), solution)


@pytest.mark.parametrize("plies", [20, 60, 100])
def test_mid_game_positions_of_won_games_are_winnable(plies: int) -> None:
    """Part-way through the won games (the rest of the script proves the position
    can be won), with the face-down cards the server knows."""
    for vector in wins()[::3]:
        if plies >= len(vector["script"]):
            continue
        game = replay(vector["code"], vector["script"][:plies])
        solution = solve(game, seconds=None, nodes=200_000)
        assert solution.verdict == "winnable", (vector["code"], plies)
        assert replays_to_a_win(game, solution)


def test_certify_replays_the_line_in_a_fresh_game() -> None:
    code = "KL1-D1N-AAAAAAG"
    solution = certify(code, nodes=NODES)
    assert solution is not None and solution.verdict == "winnable"
    assert replays_to_a_win(Game(code), solution)
    lost = next(str(DealCode(d["number"], 3, "V")) for d in kl1()["deals"]
                if solve(Game(DealCode(d["number"], 3, "V")), nodes=NODES).verdict == "lost")
    assert certify(lost, nodes=NODES) is None


def test_a_won_game_is_winnable_with_nothing_to_play() -> None:
    vector = wins()[0]
    game = replay(vector["code"], vector["script"])
    assert solve(game) == Solution("winnable", (), 0, 0.0)


# ---------------------------------------------------------------------- lost positions

def test_the_stuck_vegas_games_of_the_vectors_are_lost() -> None:
    """The scripted Vegas games that end with no legal move at all."""
    stuck = [replay(g["code"], g["script"]) for g in kl1()["games"] if g["code"][6] == "V"]
    stuck = [g for g in stuck if g.outcome() == "stuck"]
    assert stuck
    for game in stuck:
        assert solve(game, nodes=NODES).verdict == "lost"


@pytest.mark.parametrize("recycles", [0, 1])
def test_a_position_where_nothing_can_ever_move_is_lost(recycles: int) -> None:
    """Seven heads that cannot move, a stock whose cards fit nowhere: drawing
    and recycling go on for ever under Normal scoring, and nothing wins."""
    game = dead(recycles=recycles)
    solution = solve(game, nodes=NODES)
    assert solution.verdict == "lost"
    assert hopeless(game.columns, game.down, game.waste + game.stock[::-1], len(game.waste),
                    recycle=True)


def test_a_card_over_everything_it_needs_is_lost_at_once() -> None:
    """2S lies on AS, which lies on both red threes: 2S can go neither home nor
    onto a red three, so AS never comes up. The relaxation sees it before any
    search."""
    rest = [c for c in ALL_CARDS if c not in ("3H", "3D", "AS", "2S")]
    columns = ["[3H] [3D] [AS] 2S"] + [" ".join([*(f"[{c}]" for c in rest[i:36:6][:-1]),
                                                 rest[i:36:6][-1]]) for i in range(6)]
    game = build("KL1-D1N-AAAAAAA", columns, stock=rest[36:])
    assert hopeless(game.columns, game.down, game.waste + game.stock[::-1], 0, recycle=True)
    solution = solve(game, nodes=NODES)
    assert solution.verdict == "lost" and solution.nodes == 1


def test_the_budget_is_kept_and_unknown_says_so() -> None:
    hard = "KL1-D1V-ACT552B"  # won in wins.json, but not within a few hundred positions
    solution = solve(Game(hard), seconds=None, nodes=300)
    assert solution.verdict == "unknown" and solution.line is None
    assert 300 <= solution.nodes < 300 + 300
    assert solve(Game(hard), seconds=0.001).verdict == "unknown"


def relaxation_says_lost(game: Game) -> bool:
    return hopeless(game.columns, game.down, game.waste + game.stock[::-1], len(game.waste),
                    recycle=game.allow_recycle)


def test_the_relaxation_never_calls_a_position_of_a_won_game_lost(
        win_vector: dict[str, Any]) -> None:
    """Every position along a winning script of wins.json can be won (the rest
    of the script wins it): the relaxation must never call one lost."""
    game = Game(win_vector["code"])
    assert not relaxation_says_lost(game)
    for move in win_vector["script"]:
        game.push(move)
        assert not relaxation_says_lost(game), (win_vector["code"], game.moves)


@pytest.mark.search
@pytest.mark.parametrize("mode", ["D1N", "D3N", "D1V", "D3V"])
def test_the_relaxation_never_calls_a_position_on_the_solvers_own_lines_lost(mode: str) -> None:
    """The same along every winning line the solver finds on the vector deals."""
    lines = 0
    for deal in kl1()["deals"][::2]:
        game = Game(DealCode(deal["number"], int(mode[1]), mode[2]))  # type: ignore[arg-type]
        solution = solve(game, seconds=None, nodes=NODES)
        if solution.line is None:
            continue
        lines += 1
        for move in solution.line:
            game.push(move)
            assert not relaxation_says_lost(game), (str(game.code), game.moves)
    assert lines


# ---------------------------------------------------------------------- soundness on small positions

class TooBig(Exception):
    """More positions than the brute force is meant for."""


def brute_force(game: Game, limit: int = 10_000) -> bool:
    """Whether ``game`` can be won: every legal move, every position, no pruning."""
    start = game.copy(history=False)
    seen = {start.position()}
    todo = deque([start])
    while todo:
        node = todo.popleft()
        if node.is_won:
            return True
        for move in node.legal_moves():
            node.push_unchecked(move)  # each move tried on the node itself, taken back after:
            key = node.position()  # a copy only of a position not seen yet
            if key not in seen:
                seen.add(key)
                todo.append(node.copy(history=False))
            node.pop()
        if len(seen) > limit:
            raise TooBig
    return False


@st.composite
def endgames(draw: st.DrawFn) -> Game:
    """A position with few cards left to play, dealt at random: some in columns
    (face down or not), some in the stock and the waste; any mode."""
    rng = random.Random(draw(st.integers(0, 2**32)))
    mode = draw(st.sampled_from(["D1N", "D3N", "D1V", "D3V"]))
    home = [rng.randrange(10, 14) for _ in range(4)]  # cards already on each foundation
    out = [s * 13 + r for s in range(4) for r in range(home[s], 13)]
    rng.shuffle(out)
    names = [ALL_CARDS[c] for c in out]
    talon_size = rng.randrange(0, len(names) + 1)
    talon, tableau = names[:talon_size], names[talon_size:]
    columns = [[] for _ in range(7)]
    for name in tableau:
        columns[rng.randrange(7)].append(name)
    texts = []
    for col in columns:
        faces = min(rng.randrange(1, len(col) + 1), sequence_at_end(col)) if col else 0
        texts.append(" ".join([f"[{c}]" for c in col[:len(col) - faces]] + col[len(col) - faces:]))
    waste = rng.randrange(0, len(talon) + 1)
    return build(f"KL1-{mode}-AAAAAAA", texts, waste=talon[:waste], stock=talon[waste:],
                 recycles=0 if mode[2] == "V" else rng.randrange(0, 2))


def sequence_at_end(names: list[str]) -> int:
    """How many of the last cards of a column make a sequence (rank down by one,
    colours alternating): at most that many may lie face up."""
    cards = [ALL_CARDS.index(n) for n in names]
    n = 1
    while n < len(cards) and RED[cards[-n]] != RED[cards[-n - 1]] \
            and RANK[cards[-n]] + 1 == RANK[cards[-n - 1]]:
        n += 1
    return n


@hypothesis_profile()
@given(game=endgames())
def test_the_solver_agrees_with_an_exhaustive_search_on_small_positions(game: Game) -> None:
    """Forced moves, twin positions taken as one, stock macros, pruned moves and
    the relaxation: none of them loses a win, none invents one."""
    try:
        winnable = brute_force(game)
    except TooBig:
        reject()
    solution = solve(game, seconds=None, nodes=50_000)
    assert solution.verdict != "unknown"
    assert (solution.verdict == "winnable") == winnable
    if solution.verdict == "winnable":
        assert replays_to_a_win(game, solution)


# ---------------------------------------------------------------------- for a worker process

def test_solve_job_takes_and_returns_plain_values() -> None:
    vector = wins()[0]
    game = replay(vector["code"], vector["script"][:30])
    by_snapshot = solve_job(game.snapshot(), seconds=None, nodes=NODES)
    by_moves = solve_job(vector["code"], vector["script"][:30], seconds=None, nodes=NODES)
    assert isinstance(by_snapshot, JobResult) and by_snapshot.verdict == "winnable"
    assert by_moves.verdict == by_snapshot.verdict and by_moves.line == by_snapshot.line
    assert pickle.loads(pickle.dumps(by_snapshot)) == by_snapshot
    finish = game.copy()
    for move in by_snapshot.line or ():
        finish.push(move)
    assert finish.is_won
    with_more = solve_job(game.snapshot(), vector["script"][30:32], nodes=NODES)
    assert with_more.verdict == "winnable"


def test_solve_job_refuses_bad_input_with_engine_errors() -> None:
    with pytest.raises(InvalidSnapshotError):
        solve_job(b"junk")
    with pytest.raises(InvalidDealCodeError):
        solve_job("KL1-D2N-AAAAAAA")
    with pytest.raises(InvalidDealCodeError):
        solve_code("nonsense")


def test_solve_job_runs_in_a_process_pool() -> None:
    code = "KL1-D1N-AAAAAAG"
    with ProcessPoolExecutor(max_workers=1) as pool:
        result = pool.submit(solve_job, code, [], seconds=None, nodes=NODES).result(timeout=120)
    assert result == solve_job(code, seconds=None, nodes=NODES)._replace(seconds=result.seconds)
