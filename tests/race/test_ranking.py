"""server.race.ranking: each order is written once, and the score a sorted
set keeps for it agrees with it on any lines, at the bounds and beyond them
(docs/architecture.md, "Big rooms"; docs/protocol.md, "Big tournaments")."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from server.race.leaderboard import seen_line
from server.race.ranking import (
    RACED_BELOW,
    rank_score,
    ranked,
    seat_member,
    sort_key,
    standing_key,
    standing_score,
)
from server.race.standings import count_round, round_result, standing_line
from server.race.tournament import MAX_ROUNDS

SINCE = 1_800_000_000_000  # a race's start, server ms

a_line = st.fixed_dictionaries({
    "status": st.sampled_from(["lobby", "racing", "finished", "resigned", "left", "unfinished"]),
    "vegas": st.integers(-60, 220),  # a little beyond -52 .. 208: clamped alike
    "foundation": st.integers(0, 52),
    "moves": st.integers(0, 20_000),  # beyond the 16 383 the score tells apart
    "finish_ms": st.one_of(st.integers(0, 2**29), st.sampled_from([0, 1, 90_000, 90_009])),
    "at": st.one_of(st.integers(SINCE - 5_000, SINCE + 30 * 3600 * 1000),
                    st.sampled_from([SINCE, SINCE + 9, SINCE + 10])),
})


#: a line as a round can end it: won (every card, +$208), or not, its dollars
#: what its cards earned (and a card taken back from a foundation earns nothing again)
a_round_line = st.one_of(
    st.fixed_dictionaries({
        "status": st.just("finished"), "vegas": st.just(208), "foundation": st.just(52),
        "finish_ms": st.sampled_from([90_000, 90_001, 95_000]), "moves": st.integers(80, 90),
        "at": st.integers(SINCE + 90_000, SINCE + 95_000)}),
    st.tuples(st.sampled_from(["racing", "resigned", "left", "unfinished"]),
              st.integers(0, 3), st.integers(0, 1), st.integers(0, 3),
              st.integers(SINCE, SINCE + 50)).map(lambda t: {
                  "status": t[0], "foundation": t[1], "vegas": -52 + 5 * (t[1] + t[2]),
                  "finish_ms": 0, "moves": t[3] + t[1] + 2 * t[2], "at": t[4]}),
)


@settings(max_examples=300, deadline=None)
@given(st.lists(a_round_line, min_size=2, max_size=10))
def test_a_tournaments_round_ranks_its_lines_as_the_standings_rank_that_round(
        raw: list[dict[str, Any]]) -> None:
    """Issue 25, item 7: players who tie after a round (equal time,
    dollars and cards) are in one order on the round's leaderboard, in its
    sorted set and in the standings: registration (seat = player number)."""
    lines = [{**line, "seat": seat, "nickname": f"p{seat}"} for seat, line in enumerate(raw)]
    round_order = [line["seat"] for line in ranked(lines, since=SINCE, registration=True)]
    by_score = sorted(lines, key=lambda line: (rank_score(line, SINCE, registration=True),
                                               seat_member(line["seat"])))
    assert [line["seat"] for line in by_score] == round_order
    counted = []
    for rank, seat in enumerate(round_order, start=1):
        line = standing_line(seat, f"p{seat}", 1)
        new = count_round(line, 1, round_result(lines[seat], rank))
        assert new is not None
        counted.append(new)
    assert [line["player"] for line in sorted(counted, key=standing_key)] == round_order


@settings(max_examples=500, deadline=None)
@given(st.lists(a_line, min_size=2, max_size=16),
       st.lists(st.integers(0, 99_999), min_size=16, max_size=16, unique=True))
def test_the_leaderboards_score_and_its_sort_key_order_any_lines_alike(
        raw: list[dict[str, Any]], seats: list[int]) -> None:
    lines = [{**line, "seat": seat} for line, seat in zip(raw, seats, strict=False)]
    scores = {line["seat"]: rank_score(line, SINCE) for line in lines}
    assert all(0 <= s < 2**53 and float(s) == s for s in scores.values())
    by_score = sorted(lines, key=lambda line: (scores[line["seat"]], seat_member(line["seat"])))
    assert by_score == sorted(lines, key=lambda line: sort_key(line, SINCE))
    assert [line["seat"] for line in ranked(lines, since=SINCE)] == [
        line["seat"] for line in by_score]


@settings(max_examples=200, deadline=None)
@given(st.lists(a_line, min_size=2, max_size=8))
def test_a_finished_line_ranks_before_every_other_whatever_its_figures(
        raw: list[dict[str, Any]]) -> None:
    finished = [rank_score(line, SINCE) for line in raw if line["status"] == "finished"]
    others = [rank_score(line, SINCE) for line in raw if line["status"] != "finished"]
    assert max(finished, default=-1) < min(others, default=2**53)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.fixed_dictionaries({
    "vegas": st.integers(-52 * MAX_ROUNDS, 208 * MAX_ROUNDS),
    "foundation": st.integers(0, 52 * MAX_ROUNDS),
    "wins": st.integers(0, MAX_ROUNDS),
    "time_ms": st.integers(0, MAX_ROUNDS * 4 * 3600 * 1000)}), min_size=2, max_size=12))
def test_the_standings_score_and_their_sort_key_order_any_lines_alike(
        raw: list[dict[str, Any]]) -> None:
    lines = [{**line, "player": p, "time_ms": line["time_ms"] if line["wins"] else 0}
             for p, line in enumerate(raw)]
    scores = [standing_score(line) for line in lines]
    assert all(0 <= s < 2**53 and float(s) == s for s in scores)
    by_score = sorted(lines, key=lambda line: (standing_score(line), seat_member(line["player"])))
    assert by_score == sorted(lines, key=standing_key)


def test_lines_equal_to_the_10_ms_step_rank_by_seat_and_a_step_later_ranks_after() -> None:
    line = {"status": "racing", "vegas": 8, "foundation": 12, "moves": 40}
    early = {**line, "seat": 7, "at": SINCE + 10}
    same_step = {**line, "seat": 3, "at": SINCE + 19}
    later = {**line, "seat": 1, "at": SINCE + 20}
    assert [e["seat"] for e in ranked([later, early, same_step], since=SINCE)] == [3, 7, 1]


@settings(max_examples=200, deadline=None)
@given(st.lists(a_line, min_size=2, max_size=8),
       st.lists(st.integers(0, 99_999), min_size=8, max_size=8, unique=True))
def test_a_line_without_figures_ranks_after_every_raced_line_and_before_the_lobby_by_seat(
        raw: list[dict[str, Any]], seats: list[int]) -> None:
    lines = [{**line, "seat": seat} for line, seat in zip(raw, seats, strict=False)]
    unseen = [seen_line(line) for line in lines if line["status"] == "racing"]
    others = [line for line in lines if line["status"] != "racing"]
    order = [line["seat"] for line in ranked([*unseen, *others], since=SINCE)]
    shown = [s for s in order if s in {line["seat"] for line in unseen}]
    assert shown == sorted(shown)  # by seat alone: their figures are not there to say more
    for line in unseen:
        place = order.index(line["seat"])
        assert all(order.index(o["seat"]) < place for o in others if o["status"] != "lobby")
        assert all(order.index(o["seat"]) > place for o in others if o["status"] == "lobby")
        assert RACED_BELOW > rank_score(line, SINCE) >= max(
            (rank_score(o, SINCE) for o in others if o["status"] != "lobby"), default=0)


def order(lines: dict[str, dict[str, Any]], *, registration: bool = False) -> list[str]:
    seats = {name: seat for seat, name in enumerate(lines)}
    ranked_lines = ranked([{**line, "seat": seats[name]} for name, line in lines.items()],
                          since=SINCE, registration=registration)
    names = {seat: name for name, seat in seats.items()}
    return [names[line["seat"]] for line in ranked_lines]


def test_the_leaderboard_orders_by_time_then_dollars_cards_fewer_moves_and_who_got_there_first(
        ) -> None:
    base = {"status": "racing", "vegas": 8, "foundation": 12, "moves": 40, "at": SINCE + 5_000}
    lines = {
        "later": {**base, "at": SINCE + 6_000},  # the same figures, reached later
        "more_moves": {**base, "moves": 41},
        "fewer_cards": {**base, "foundation": 11, "vegas": 8},
        "poorer": {**base, "vegas": 3, "foundation": 20},  # dollars first, then cards
        "first": base,
        "slow_finish": {"status": "finished", "finish_ms": 95_000, "at": SINCE + 95_000},
        "fast_finish": {"status": "finished", "finish_ms": 90_000, "at": SINCE + 90_000},
        "lobby": {"status": "lobby", "at": SINCE},
    }
    assert order(lines) == ["fast_finish", "slow_finish", "first", "later", "more_moves",
                            "fewer_cards", "poorer", "lobby"]


def test_equal_finishing_times_rank_who_got_there_first_then_the_seat() -> None:
    first = {"status": "finished", "finish_ms": 90_000, "at": SINCE + 91_000}
    second = {**first, "at": SINCE + 91_500}
    assert order({"second": second, "first": first}) == ["first", "second"]
    assert order({"a": first, "b": dict(first)}) == ["a", "b"]
    assert order({"b": dict(first), "a": first}) == ["b", "a"]  # the seat: the lower first


def test_a_tournaments_round_breaks_ties_by_registration_not_moves_or_when() -> None:
    base = {"status": "resigned", "vegas": -2, "foundation": 10, "at": SINCE + 1_000}
    lines = {"registered_first": {**base, "moves": 90, "at": SINCE + 9_000},
             "fewer_moves": {**base, "moves": 20}}
    assert order(lines) == ["fewer_moves", "registered_first"]
    assert order(lines, registration=True) == ["registered_first", "fewer_moves"]
    richer = {"richer": {**base, "vegas": 3, "moves": 500}}
    assert order({**lines, **richer}, registration=True)[0] == "richer"


def test_a_score_takes_the_time_it_is_given_over_the_lines_own() -> None:
    line = {"status": "racing", "vegas": 8, "foundation": 12, "moves": 40, "at": SINCE + 5_000}
    assert rank_score(line, SINCE, SINCE + 5_000) == rank_score(line, SINCE)
    assert rank_score(line, SINCE, SINCE + 5_010) == rank_score(line, SINCE) + 1
    assert rank_score(line, SINCE, SINCE - 60_000) == rank_score(line, SINCE, SINCE)  # clamped


def test_a_playing_line_without_a_connection_shows_as_disconnected_once_ranked() -> None:
    lines = [{"seat": 1, "status": "racing", "vegas": 8, "foundation": 12, "moves": 4, "at": 0},
             {"seat": 2, "status": "finished", "finish_ms": 5, "at": 0},
             {"seat": 3, "status": "racing", "vegas": 8, "foundation": 12, "moves": 5, "at": 0}]
    shown = ranked(lines, {1: True, 2: False})
    assert [(line["seat"], line["rank"], line["status"]) for line in shown] == [
        (2, 1, "finished"), (1, 2, "racing"), (3, 3, "disconnected")]
    assert "rank" not in lines[0]  # the lines given are left as they were


def test_the_standings_order_dollars_cards_a_won_round_less_time_then_registration() -> None:
    base = {"vegas": 156, "foundation": 52, "wins": 1, "time_ms": 300_000}
    lines = [
        {**base, "player": 0, "wins": 0, "time_ms": 0},  # no won round: behind any who has one
        {**base, "player": 1, "time_ms": 310_000},
        {**base, "player": 2, "vegas": 150, "foundation": 60},  # fewer dollars, more cards
        {**base, "player": 3},
        {**base, "player": 4, "vegas": 151},
        {**base, "player": 5, "foundation": 51, "vegas": 156},
        {**base, "player": 6},  # as player 3 in every figure: registration
    ]
    assert [line["player"] for line in sorted(lines, key=standing_key)] == [3, 6, 1, 0, 5, 4, 2]
    assert [line["player"] for line in sorted(lines, key=standing_score)] == [3, 6, 1, 0, 5, 4, 2]
