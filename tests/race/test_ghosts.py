"""server.race.ghosts: a trace keeps a player's progress second by second,
reads back as written, and what a player is sent of a ghost is bounded and
names no card (docs/protocol.md, "Ghosts")."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from server.race.ghosts import (
    MAX_POINTS,
    Ghost,
    Point,
    decode,
    encode,
    pick,
    pool_ranks,
    record,
    span,
    state_at,
)

# a game's progress as it happens: (seconds since the last command, foundation, credited)
a_game = st.lists(st.tuples(st.integers(0, 200), st.integers(0, 52), st.integers(0, 52)),
                  max_size=300)


def traced(steps: list[tuple[int, int, int]], *, end: bool = False) -> tuple[list[Point],
                                                                             list[Point]]:
    """The trace of ``steps``, and every state at the second it was reached."""
    trace: list[Point] = []
    states: list[Point] = []
    second = 0
    for i, (gap, f, c) in enumerate(steps):
        second += gap
        trace = record(trace, second, f, c, end=end and i == len(steps) - 1)
        states.append((second, f, c))
    return trace, states


@settings(max_examples=300, deadline=None)
@given(a_game, st.booleans())
def test_a_trace_reads_back_as_written_and_holds_the_last_state_of_each_second(
        steps: list[tuple[int, int, int]], end: bool) -> None:
    trace, states = traced(steps, end=end)
    assert decode(encode(trace)) == trace
    seconds = [p[0] for p in trace]
    assert seconds == sorted(set(seconds)) and len(trace) <= MAX_POINTS
    for second, _, _ in states:
        last = [s for s in states if s[0] == second][-1]
        assert state_at(trace, second) == last[1:]
    if end and steps:
        assert trace[-1][0] == states[-1][0]


def test_a_trace_is_a_few_bytes_a_point() -> None:
    trace, _ = traced([(3, f, f) for f in range(1, 53)])
    assert len(encode(trace)) == 3 * 52
    long, _ = traced([(100, 1, 1), (5000, 2, 2)])
    assert decode(encode(long)) == long


def test_a_trace_of_a_player_who_toggles_forever_stays_bounded() -> None:
    trace: list[Point] = []
    for second in range(5000):
        trace = record(trace, second, second % 2 + 1, 2)
    assert len(trace) == MAX_POINTS and trace[-1] == (4999, 2, 2)


@settings(max_examples=200, deadline=None)
@given(a_game, st.integers(0, 3000), st.integers(1, 40))
def test_a_span_is_the_state_at_its_first_second_then_each_change_within_it(
        steps: list[tuple[int, int, int]], first: int, length: int) -> None:
    trace, _ = traced(steps)
    points = span(trace, first, first + length)
    assert points[0][0] == first and len(points) <= length + 1
    for second, f, d in points:
        assert (f, (d + 52) // 5) == state_at(trace, second)


def test_what_a_player_is_sent_of_a_ghost_is_its_name_progress_and_end_and_no_card() -> None:
    ghost = Ghost.of({"seat": 4, "nickname": "ann", "status": "finished", "finish_ms": 95_000,
                      "foundation": 52, "vegas": 208, "started": 10, "at": 95_010},
                     encode([(3, 1, 1), (50, 30, 31), (95, 52, 52)]))
    early, late = ghost.shown(0, 20), ghost.shown(80, 100)
    assert early == {"seat": 4, "nickname": "ann", "p": [[0, 0, -52], [3, 1, -47]]}
    assert late == {"seat": 4, "nickname": "ann", "p": [[80, 30, 103], [95, 52, 208]],
                    "end": {"ms": 95_000, "status": "finished"}}


def test_a_players_ghosts_are_the_best_and_those_nearest_them_at_that_moment() -> None:
    pool = [Ghost(seat, f"g{seat}", "finished", 1, tuple(trace)) for seat, trace in enumerate([
        [(1, 10, 10), (100, 52, 52)], [(1, 8, 8)], [(1, 2, 2)], [(1, 30, 30)], [(1, 5, 5)],
        [(1, 6, 6)]])]
    assert [g.seat for g in pick(pool, 50, 6, top=1, near=2)] == [0, 5, 4]
    assert [g.seat for g in pick(pool, 50, 6, top=1, near=2, skip=5)] == [0, 4, 1]
    assert len(pick(pool, 0, 0, top=3, near=4)) == 6


@given(st.integers(0, 100_000), st.integers(4, 100), st.integers(1, 3))
def test_the_pool_of_ghosts_kept_at_hand_is_bounded_and_spread_over_the_field(
        count: int, size: int, top: int) -> None:
    ranks = pool_ranks(count, size, top)
    assert len(ranks) == min(count, size) and ranks == sorted(set(ranks))
    assert all(0 <= r < count for r in ranks)
    if count > size:
        assert ranks[:top] == list(range(top)) and ranks[-1] == count - 1


def test_a_trace_leaves_out_the_start_state_and_a_point_undone_within_the_next_second() -> None:
    assert record([], 4, 0, 0) == []  # every trace starts at (0, 0): nothing to keep
    trace = record(record([], 2, 1, 1), 5, 2, 2)
    assert record(trace, 5, 1, 1) == [(2, 1, 1)]  # back as it was: the last point is void
    assert record(trace, 6, 1, 1) == [(2, 1, 1), (5, 2, 2), (6, 1, 1)]  # a second later: kept


def test_a_game_over_ends_its_trace_at_its_last_second_even_unchanged() -> None:
    trace = record([], 2, 1, 1)
    assert record(trace, 9, 1, 1) is trace
    assert record(trace, 9, 1, 1, end=True) == [(2, 1, 1), (9, 1, 1)]
    assert record([], 3, 0, 0, end=True) == [(3, 0, 0)]  # resigned before any card went home


def test_a_text_that_is_not_a_trace_is_a_value_error() -> None:
    for text in ("2", "22", "2!2", "~12"):
        with pytest.raises(ValueError, match="not a ghost trace"):
            decode(text)


def test_a_ghost_that_did_not_finish_ends_at_its_traces_last_second() -> None:
    line = {"seat": 2, "nickname": "bob", "status": "resigned", "finish_ms": None}
    ghost = Ghost.of(line, encode([(3, 1, 1), (40, 5, 6)]))
    assert ghost.end_ms == 40_000 and ghost.state_at(39) == (1, 1) and ghost.state_at(40) == (5, 6)
    assert Ghost.of(line, "").end_ms == 0
    assert "end" not in ghost.shown(20, 40)  # its end is news only once it comes
    assert ghost.shown(20, 41)["end"] == {"ms": 40_000, "status": "resigned"}


def test_a_pool_too_small_to_spread_keeps_the_best_and_the_last() -> None:
    assert pool_ranks(100, 4, 3) == [0, 1, 2, 99]
    assert pool_ranks(100, 3, 3) == [0, 1, 99]
    assert pool_ranks(4, 4, 3) == [0, 1, 2, 3]
