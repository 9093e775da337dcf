"""server.race.standings, pure: a standing line counted round by round, the
standings shown whole (totals over the ended rounds, the tie-breaks, a
missed round's −52 $) or a page at a time, and the CSV of each
(docs/protocol.md, "Tournaments", "Big tournaments")."""

from __future__ import annotations

import csv
import io
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from server.race import new_entry, ranked
from server.race.ranking import seat_member, standing_key, standing_score
from server.race.seating import final_line
from server.race.standings import (
    CSV_FIELDS,
    MISSED,
    MISSED_VEGAS,
    Line,
    count_round,
    csv_text,
    everyone_csv,
    everyone_standings,
    page_csv,
    round_result,
    standing_line,
)

CODES = ("KL1-D1V-ABYI5NK", "KL1-D1V-ACT552B", "KL1-D3N-AAGWAAO")


def line(seat: int, nickname: str, *, vegas: int = -52, foundation: int = 0, status: str = "resigned",
         finish_ms: int | None = None, moves: int = 0) -> dict[str, Any]:
    entry = new_entry(seat, nickname, status, 100 + seat, normal=False)
    entry.update(vegas=vegas, foundation=foundation, finish_ms=finish_ms, moves=moves)
    return entry


def won(seat: int, nickname: str, finish_ms: int) -> dict[str, Any]:
    return line(seat, nickname, vegas=208, foundation=52, status="finished", finish_ms=finish_ms,
                moves=116)


class Field:
    """Players' standing lines, and rounds counted into them as a round's
    recording does (its room's results, ranked)."""

    def __init__(self, *names: str) -> None:
        self.lines: dict[int, Line] = {p: standing_line(p, name, 1) for p, name in enumerate(names)}
        self.ended = 0

    def register(self, name: str, first: int) -> int:
        """A player who registers now, ``first`` the first round not started
        (those started count missed)."""
        p = len(self.lines)
        self.lines[p] = standing_line(p, name, first)
        return p

    def play(self, results: list[dict[str, Any]]) -> list[dict[str, Any]]:
        self.ended += 1
        ranked_results = ranked(final_line(e) for e in results)
        by_seat = {e["seat"]: e for e in ranked_results}
        for p, standing in self.lines.items():
            entry = by_seat.get(p)
            counted = count_round(standing, self.ended, MISSED if entry is None else round_result(
                entry, entry["rank"]))
            self.lines[p] = counted or standing  # (a late player's counts it already)
        return ranked_results

    def withdraw(self, p: int) -> None:
        self.lines[p] = {**self.lines[p], "withdrawn": True}

    def standings(self) -> list[Line]:
        return everyone_standings(self.lines.values(), self.ended)

    def csv(self) -> str:
        return everyone_csv(self.lines.values(), CODES[:self.ended])


# ---------------------------------------------------------------------- a line

def test_a_line_counts_each_round_once_and_a_late_player_starts_with_the_rounds_missed() -> None:
    late = standing_line(4, "eve", 3)
    assert (late["vegas"], late["played"], len(late["rounds"])) == (-104, 0, 2)
    assert count_round(late, 2, ("finished", 208, 52, 1000, 90, 1)) is None  # counted already
    counted = count_round(late, 3, ("finished", 208, 52, 90_000, 116, 2))
    assert counted is not None
    assert (counted["vegas"], counted["foundation"], counted["wins"], counted["time_ms"],
            counted["played"]) == (104, 52, 1, 90_000, 1)
    assert count_round(counted, 3, ("resigned", 0, 0, None, 1, 5)) is None
    assert round_result(new_entry(0, "a", "racing", 0, normal=False), 7) == MISSED  # came, did nothing
    moved = {**new_entry(0, "a", "racing", 0, normal=False), "moves": 3, "vegas": -47,
             "foundation": 1}
    assert round_result(moved, 7) == ("unfinished", -47, 1, None, 3, 7)


# ---------------------------------------------------------------------- standings shown whole

def test_standings_add_vegas_over_ended_rounds_and_a_missed_round_counts_minus_52() -> None:
    f = Field("ann", "bob", "cat")
    assert [(e["nickname"], e["vegas"], e["rank"]) for e in f.standings()] == [
        ("ann", 0, 1), ("bob", 0, 2), ("cat", 0, 3)]  # nothing ended yet
    f.play([won(0, "ann", 300_000), line(1, "bob", vegas=-12, foundation=8, moves=40),
            line(2, "cat", status="unfinished", moves=5)])
    f.withdraw(0)
    f.play([line(1, "bob", vegas=3, foundation=11, moves=60), line(2, "cat", vegas=-47,
                                                                   foundation=1)])
    table = f.standings()
    assert [(e["nickname"], e["vegas"], e["foundation"], e["wins"], e["time_ms"], e["rank"])
            for e in table] == [("ann", 208 - 52, 52, 1, 300_000, 1), ("bob", -9, 19, 0, 0, 2),
                                ("cat", -99, 1, 0, 0, 3)]
    ann = table[0]
    assert ann["rounds"][0] == {"round": 1, "played": True, "vegas": 208, "foundation": 52,
                                "finish_ms": 300_000, "status": "finished", "moves": 116}
    assert ann["rounds"][1]["played"] is False and ann["rounds"][1]["vegas"] == -52
    assert table[2]["rounds"][0]["status"] == "unfinished"


def test_a_withdrawn_player_stays_in_the_standings_marked_and_misses_the_next_rounds() -> None:
    f = Field("ann", "bob", "cat")
    f.play([line(0, "ann", vegas=-2, foundation=10), line(1, "bob", vegas=-37, foundation=3,
                                                          status="left"), line(2, "cat")])
    f.withdraw(1)
    f.play([line(0, "ann"), line(2, "cat", vegas=-47, foundation=1)])
    bob = {e["nickname"]: e for e in f.standings()}["bob"]
    assert bob["withdrawn"] is True and bob["vegas"] == -37 + MISSED_VEGAS == -89
    assert bob["rounds"] == [
        {"round": 1, "played": True, "vegas": -37, "foundation": 3, "finish_ms": None,
         "status": "left", "moves": 0},
        {"round": 2, "played": False, "vegas": MISSED_VEGAS, "foundation": 0, "finish_ms": None}]
    assert [e["withdrawn"] for e in sorted(f.standings(), key=lambda e: e["player"])] == [
        False, True, False]


def test_a_seat_that_stored_nothing_did_not_play_the_round() -> None:
    """Regression: a registered player who never came counted as played."""
    f = Field("ann", "bob")
    f.play([won(0, "ann", 90_000), line(1, "bob", status="unfinished")])
    bob = next(e for e in f.standings() if e["nickname"] == "bob")
    assert bob["rounds"] == [{"round": 1, "played": False, "vegas": MISSED_VEGAS,
                              "foundation": 0, "finish_ms": None}]
    rows = list(csv.reader(io.StringIO(f.csv())))
    assert [r[4:6] for r in rows if r[1] == "bob"] == [["0", "missed"], ["0", ""]]


def test_ties_go_to_foundation_cards_then_less_time_of_won_rounds_then_registration() -> None:
    """Each tie-break disagrees with registration order wherever it can."""
    names = ("ann", "bob", "cat", "dan", "eve", "fay")
    f = Field(*names)
    # eve and fay win round 1, fay faster; ann, bob and dan tie on dollars
    f.play([line(0, "ann", vegas=-2, foundation=10), line(1, "bob", vegas=-2, foundation=10),
            line(2, "cat"), line(3, "dan", vegas=-2, foundation=10),
            won(4, "eve", 400_000), won(5, "fay", 350_000)])
    # round 2: ann, bob and dan tie on dollars again, dan with more cards
    # (the standings add what the lines say); eve and fay both get nowhere
    f.play([line(0, "ann", vegas=8, foundation=12), line(1, "bob", vegas=8, foundation=12),
            line(2, "cat", vegas=-27, foundation=5), line(3, "dan", vegas=8, foundation=13),
            line(4, "eve", vegas=-52), line(5, "fay", vegas=-52)])
    table = f.standings()
    assert [(e["nickname"], e["vegas"], e["foundation"], e["wins"], e["time_ms"]) for e in table] == [
        ("fay", 156, 52, 1, 350_000), ("eve", 156, 52, 1, 400_000),
        ("dan", 6, 23, 0, 0), ("ann", 6, 22, 0, 0), ("bob", 6, 22, 0, 0), ("cat", -79, 5, 0, 0)]
    assert [e["rank"] for e in table] == [1, 2, 3, 4, 5, 6]
    assert [e["player"] for e in table] == [5, 4, 3, 0, 1, 2]


def test_missed_rounds_rank_a_player_below_one_who_played_badly() -> None:
    f = Field("ann", "bob")
    f.play([line(0, "ann"), line(1, "bob", vegas=-52)])
    f.withdraw(0)
    f.play([line(1, "bob", vegas=-47, foundation=1)])
    assert [(e["nickname"], e["vegas"]) for e in f.standings()] == [("bob", -99), ("ann", -104)]


def test_a_player_who_won_no_round_comes_after_a_winner_on_equal_dollars_and_cards() -> None:
    """Regression: with time of won rounds as the tie-break, a player with no
    won round (time 0) used to rank above one who had won a round."""
    f = Field("ann", "bob")
    # ann wins round 1 and plays nothing of round 2; bob places 26 cards in each
    f.play([won(0, "ann", 300_000), line(1, "bob", vegas=78, foundation=26)])
    f.play([line(0, "ann", vegas=-52), line(1, "bob", vegas=78, foundation=26)])
    assert [(e["nickname"], e["vegas"], e["foundation"], e["wins"]) for e in f.standings()] == [
        ("ann", 156, 52, 1), ("bob", 156, 52, 0)]


def test_late_players_missed_the_rounds_before_they_came() -> None:
    f = Field("ann")
    f.register("late1", first=2)  # during round 1
    f.play([])
    assert {e["nickname"]: e["vegas"] for e in f.standings()} == {"ann": -52, "late1": -52}
    f.register("late2", first=3)  # during round 2: it counts for them once it has ended
    assert {e["nickname"]: e["vegas"] for e in f.standings()} == {
        "ann": -52, "late1": -52, "late2": -52}
    f.play([])
    f.play([])
    assert {e["nickname"]: e["vegas"] for e in f.standings()} == {
        "ann": -156, "late1": -156, "late2": -156}


#: one player's round: None (never came), or (status, foundation, finish_ms, moves)
a_round = st.one_of(
    st.none(),
    st.tuples(st.sampled_from(["finished", "resigned", "unfinished", "left"]),
              st.integers(0, 3), st.sampled_from([1000, 2000, 14_400_000]), st.integers(0, 3)),
)


def entry_of(seat: int, played: tuple[str, int, int, int]) -> dict[str, Any]:
    status, cards, finish_ms, moves = played
    entry = new_entry(seat, f"p{seat}", status, 100 + seat, normal=False)
    if status == "finished":
        entry.update(foundation=52, vegas=208, finish_ms=finish_ms, moves=moves + 1)
    else:
        entry.update(foundation=cards, vegas=-52 + 5 * cards, moves=moves)
    return entry


@settings(max_examples=200, deadline=None)
@given(st.lists(st.lists(a_round, min_size=1, max_size=3), min_size=1, max_size=8))
def test_the_standings_shown_whole_are_in_the_order_the_sorted_set_keeps(
        table: list[list[Any]]) -> None:
    """The same rounds counted into lines: the standings shown whole (sorted
    in Python) and the lines ranked by their score and a fixed-width player
    number, as the sorted set does: same totals, same order, ties included."""
    rounds = max(len(row) for row in table)
    f = Field(*(f"p{p}" for p in range(len(table))))
    for n in range(1, rounds + 1):
        f.play([entry_of(p, row[n - 1]) for p, row in enumerate(table)
                if n <= len(row) and row[n - 1] is not None])
    shown = f.standings()
    kept = sorted(f.lines.values(), key=lambda line: (standing_score(line),
                                                      seat_member(line["player"])))
    assert [line["player"] for line in kept] == [line["player"] for line in shown]
    for mine, theirs in zip(kept, shown, strict=True):
        for key in ("vegas", "foundation", "wins", "time_ms"):
            assert mine[key] == theirs[key], key
        assert mine["played"] == sum(1 for r in theirs["rounds"] if r["played"])
    assert sorted(shown, key=standing_key) == shown


# ---------------------------------------------------------------------- CSV

def test_csv_has_a_row_per_player_and_ended_round_then_totals_in_rank_order() -> None:
    f = Field("ann", "bob", "cat")
    r1 = f.play([line(0, "ann", vegas=-2, foundation=10, moves=50), won(1, "bob", 120_000),
                 line(2, "cat", status="left", vegas=-47, foundation=1, moves=7)])
    f.withdraw(2)
    r2 = f.play([line(0, "ann", vegas=3, foundation=11, moves=61, status="unfinished"),
                 line(1, "bob", vegas=-52)])
    rows = list(csv.reader(io.StringIO(f.csv())))
    assert tuple(rows[0]) == CSV_FIELDS
    rank1 = {e["seat"]: e["rank"] for e in r1}
    rank2 = {e["seat"]: e["rank"] for e in r2}
    assert rows[1:7] == [
        ["0", "ann", "1", CODES[0], "1", "resigned", "-2", "10", "50", "", str(rank1[0])],
        ["0", "ann", "2", CODES[1], "1", "unfinished", "3", "11", "61", "", str(rank2[0])],
        ["1", "bob", "1", CODES[0], "1", "finished", "208", "52", "116", "120000", str(rank1[1])],
        ["1", "bob", "2", CODES[1], "1", "resigned", "-52", "0", "0", "", str(rank2[1])],
        ["2", "cat", "1", CODES[0], "1", "left", "-47", "1", "7", "", str(rank1[2])],
        ["2", "cat", "2", CODES[1], "0", "missed", "-52", "0", "0", "", ""],
    ]
    assert rows[7:] == [
        ["1", "bob", "total", "", "2", "", "156", "52", "", "120000", "1"],
        ["0", "ann", "total", "", "2", "", "1", "21", "", "0", "2"],
        ["2", "cat", "total", "", "1", "withdrawn", "-99", "1", "", "0", "3"],
    ]
    assert CODES[2] not in f.csv()  # round 3 has not been played


def test_csv_before_any_round_has_only_totals() -> None:
    text = Field("ann", "bob").csv()
    assert text.splitlines() == [",".join(CSV_FIELDS), "0,ann,total,,0,,0,0,,0,1",
                                 "1,bob,total,,0,,0,0,,0,2"]
    assert all(code not in text and code[-7:] not in text for code in CODES)


def test_csv_cells_that_start_like_a_formula_are_neutralised_and_names_kept() -> None:
    """Regression: a nickname starting with ``-`` reached the CSV as it was,
    which a spreadsheet runs as a formula (OWASP, CSV injection). Nicknames
    may still start with ``-``: the export prefixes such a cell with ``'``."""
    f = Field("-ann", "-1 o'neil", "bob")
    f.play([won(0, "-ann", 90_000), line(1, "-1 o'neil", moves=3, vegas=-47),
            line(2, "bob", moves=2, vegas=-47)])
    rows = list(csv.reader(io.StringIO(f.csv())))
    cells = [row[1] for row in rows[1:]]
    assert cells.count("'-ann") == 2 and cells.count("'-1 o'neil") == 2 and cells.count("bob") == 2
    for row in rows[1:]:
        assert not row[1].startswith(("=", "+", "-", "@", "\t", "\r"))
        assert row[6].lstrip("-").isdigit()  # negative numbers stay numbers
    assert [e["nickname"] for e in f.standings()] == ["-ann", "-1 o'neil", "bob"]


@pytest.mark.parametrize("text", ["=1+1", "+1", "-1", "@SUM(A1)", "\tx", "\rx", "\nx"])
def test_every_formula_start_is_neutralised(text: str) -> None:
    assert csv_text(text) == "'" + text
    assert csv_text("a" + text) == "a" + text


def test_a_page_of_results_as_csv_neutralises_cells_and_shows_only_ended_rounds() -> None:
    first = count_round(standing_line(0, "-ann", 1), 1, ("finished", 208, 52, 90_000, 116, 1))
    assert first is not None
    late = count_round(standing_line(1, "bob", 3), 3, MISSED)  # registered during round 2
    assert late is not None
    text = page_csv([{**first, "rank": 1}, {**late, "rank": 2, "withdrawn": True}], CODES[:1])
    assert text.splitlines() == [
        "player,nickname,round,code,played,status,vegas,foundation,moves,finish_ms,rank",
        f"0,'-ann,1,{CODES[0]},1,finished,208,52,116,90000,1",
        "0,'-ann,total,,1,,208,52,,90000,1",
        f"1,bob,1,{CODES[0]},0,missed,-52,0,0,,",
        "1,bob,total,,0,withdrawn,-156,0,,0,2",
    ]
    assert CODES[1] not in text and CODES[1][-7:] not in text
