"""server.race.tournament, pure: settings, registration, the rounds' life,
withdrawing, the standings and their tie-breaks, the CSV (docs/protocol.md,
"Tournaments")."""

from __future__ import annotations

import csv
import io
from typing import Any

import pytest

from server.klondike import DealCode
from server.protocol import Reason
from server.race import RaceError, new_entry, ranked
from server.race.tokens import hash_token
from server.race.tournament import (
    CSV_FIELDS,
    MAX_ROUNDS,
    MISSED_VEGAS,
    Tournament,
    TournamentSettings,
    csv_text,
    parse_tournament_settings,
    results_csv,
    seat_tokens,
    standings,
)

CODES = ("KL1-D1V-ABYI5NK", "KL1-D1V-ACT552B", "KL1-D3N-AAGWAAO")


def refusal(fn: Any, *args: Any, **kwargs: Any) -> RaceError:
    with pytest.raises(RaceError) as info:
        fn(*args, **kwargs)
    return info.value


def tournament(names: tuple[str, ...] = ("ann", "bob"), codes: tuple[str, ...] = CODES,
               **settings: Any) -> Tournament:
    t = Tournament.create("T1", "Club night", TournamentSettings(codes=codes, **settings), "adm",
                          now=0)
    for i, name in enumerate(names):
        t.register(name, f"tok-{name}", now=1 + i)
    return t


def line(seat: int, nickname: str, *, vegas: int = -52, foundation: int = 0, status: str = "resigned",
         finish_ms: int | None = None, moves: int = 0) -> dict[str, Any]:
    entry = new_entry(seat, nickname, status, 100 + seat, normal=False)
    entry.update(vegas=vegas, foundation=foundation, finish_ms=finish_ms, moves=moves)
    return entry


def play_round(t: Tournament, lines: list[dict[str, Any]], *, now: int = 1000) -> list[dict[str, Any]]:
    """Start, open and end the next round with ``lines`` as its results."""
    started = t.start_round(now=now, start_at=now + 3000, room_id=f"ROOM{now}")
    n = started["round"]
    t.open_round(n, now=now + 1)
    results = ranked(lines)
    t.end_round(n, results, now=now + 5000)
    return results


def won(seat: int, nickname: str, finish_ms: int) -> dict[str, Any]:
    return line(seat, nickname, vegas=208, foundation=52, status="finished", finish_ms=finish_ms,
                moves=116)


# ---------------------------------------------------------------------- settings

def test_codes_are_parsed_to_their_canonical_form_one_round_each() -> None:
    s = parse_tournament_settings({"codes": [" kl1-d1v-abyi5nk ", "KL1-D3N-AAGWAAO"]})
    assert s.codes == ("KL1-D1V-ABYI5NK", "KL1-D3N-AAGWAAO")
    assert (s.time_limit, s.max_players, s.undo, s.hints, s.boards, s.delay) == (
        600, 8, True, False, "after", 0)
    public = s.public()
    assert public["rounds"] == 2 and public["modes"] == ["D1V", "D3N"] and "codes" not in public
    assert "ABYI5NK" not in str(public) and "AAGWAAO" not in str(public)


def test_kl2_codes_are_parsed_to_their_canonical_form_beside_kl1_ones() -> None:
    s = parse_tournament_settings({"codes": [" kl2-d1v-p777777777777 ", "KL1-D3N-AAGWAAO",
                                             "KL2-D3N-AAAAAAAAGWAAO"]})
    assert s.codes == ("KL2-D1V-P777777777777", "KL1-D3N-AAGWAAO", "KL2-D3N-AAAAAAAAGWAAO")
    assert s.public()["modes"] == ["D1V", "D3N", "D3N"] and "P777" not in str(s.public())


@pytest.mark.parametrize(("codes", "round_n"), [
    (["KL1-D1V-ABYI5NK", "KL1-D2V-ABYI5NK"], 2),
    (["KL1-D1V-ABYI5N0", "KL1-D1V-ABYI5NK"], 1),
    (["KL1-D1V-ABYI5NK", "KL1-D1V-ACT552B", "KL2-D1V-ABYI5NK"], 3),
    (["KL1-D1V-ABYI5NK", 12], 2),
    (["KL2-D1V-AAAAAAABYI5NK", "KL2-D1V-QAAAAAAAAAAAA"], 2),
])
def test_a_bad_code_is_refused_naming_its_round(codes: list[Any], round_n: int) -> None:
    exc = refusal(parse_tournament_settings, {"codes": codes})
    assert exc.reason is Reason.BAD_CODE
    assert exc.text.startswith(f"round {round_n}: "), exc.text


@pytest.mark.parametrize("codes", [[], "KL1-D1V-ABYI5NK", {"1": "KL1-D1V-ABYI5NK"}])
def test_codes_must_be_a_non_empty_list(codes: Any) -> None:
    assert refusal(parse_tournament_settings, {"codes": codes}).reason is Reason.BAD_CODE


def test_random_rounds_of_the_given_draw_and_scoring() -> None:
    s = parse_tournament_settings({"rounds": 4, "draw": 3, "scoring": "N"})
    assert len(s.codes) == 4 and all(c.startswith("KL2-D3N-") for c in s.codes)
    assert len(set(s.codes)) == 4
    assert len(parse_tournament_settings({}).codes) == 3
    assert all(c.startswith("KL2-D1V-") for c in parse_tournament_settings({}).codes)


def test_drawn_rounds_have_numbers_spread_over_64_bits() -> None:
    """200 drawn rounds all below 2^40: odds of 2^-4800."""
    codes = [c for _ in range(10) for c in parse_tournament_settings({"rounds": 20}).codes]
    assert len(codes) == 200
    assert any(DealCode.parse(c).number >= 2**40 for c in codes)


@pytest.mark.parametrize("data", [
    {"rounds": 0}, {"rounds": MAX_ROUNDS + 1}, {"rounds": 2.0}, {"rounds": True},
    {"draw": 2}, {"draw": 1.0}, {"scoring": "X"},
    {"codes": [CODES[0]] * (MAX_ROUNDS + 1)},
    {"time_limit": 9}, {"time_limit": 14_401}, {"time_limit": 60.0}, {"time_limit": True},
    {"max_players": 0}, {"max_players": 10_001},
    {"undo": 1}, {"hints": "yes"},
    {"boards": "sometimes"}, {"boards": "delayed"}, {"boards": "delayed", "delay": 0},
    {"delay": 601},
    {"code": CODES[0]}, {"colour": "red"},
])
def test_bad_settings_are_refused(data: dict[str, Any]) -> None:
    assert refusal(parse_tournament_settings, data).reason is Reason.BAD_SETTINGS


def test_settings_at_their_bounds_are_accepted() -> None:
    low = parse_tournament_settings({"codes": [CODES[0]], "time_limit": 10, "max_players": 1})
    high = parse_tournament_settings({"codes": [CODES[0]] * MAX_ROUNDS, "time_limit": 14_400,
                                      "max_players": 8, "boards": "delayed", "delay": 600})
    assert (low.time_limit, low.max_players) == (10, 1)
    assert (len(high.codes), high.time_limit, high.boards, high.delay) == (MAX_ROUNDS, 14_400, "delayed", 600)
    # a delay means nothing unless the boards are delayed
    assert parse_tournament_settings({"boards": "live", "delay": 30}).delay == 0


@pytest.mark.parametrize("name", ["", "   ", "x" * 61])
def test_a_tournament_needs_a_name_of_1_to_60_characters(name: str) -> None:
    exc = refusal(Tournament.create, "T1", name, TournamentSettings(codes=CODES), "adm", now=0)
    assert exc.reason is Reason.BAD_SETTINGS


def test_a_name_is_trimmed_and_its_spaces_collapsed() -> None:
    t = Tournament.create("T1", "  Club \t night  ", TournamentSettings(codes=CODES), "adm", now=0)
    assert t.name == "Club night" and [r.n for r in t.rounds] == [1, 2, 3]
    assert all(r.status == "pending" for r in t.rounds)


# ---------------------------------------------------------------------- registration

def test_players_are_numbered_in_registration_order() -> None:
    t = tournament(())
    events = [t.register(n, f"tok-{n}", now=i) for i, n in enumerate(("ann", " bob  smith ", "cat"))]
    assert events == [{"kind": "registered", "player": 0, "nickname": "ann"},
                      {"kind": "registered", "player": 1, "nickname": "bob smith"},
                      {"kind": "registered", "player": 2, "nickname": "cat"}]
    assert t.player_of("tok-cat") is t.players[2] and t.player_of("nope") is None
    # the round rooms get the digests: no token is stored anywhere
    assert seat_tokens(t, [0, 2]) == {hash_token("tok-ann"): 0, hash_token("tok-cat"): 2}


@pytest.mark.parametrize("taken", ["ANN", "Ann", " ann "])
def test_a_nickname_taken_regardless_of_case_is_refused(taken: str) -> None:
    t = tournament(("ann",))
    exc = refusal(t.register, taken, "tok-x", now=5)
    assert exc.reason is Reason.NAME_TAKEN and len(t.players) == 1


def test_a_bad_nickname_is_refused() -> None:
    t = tournament(())
    for name in ("", "x" * 21, "a<b"):
        assert refusal(t.register, name, "tok", now=0).reason is Reason.BAD_NICKNAME
    assert t.players == []


def test_registration_is_refused_when_full() -> None:
    t = tournament(("ann", "bob"), max_players=2)
    exc = refusal(t.register, "cat", "tok-cat", now=5)
    assert exc.reason is Reason.ROOM_FULL and [p.nickname for p in t.players] == ["ann", "bob"]


def test_registration_is_refused_once_closed_by_the_organizer_or_by_a_round() -> None:
    t = tournament(("ann",))
    assert t.close_registration(now=5) == {"kind": "closed"} and not t.registration
    assert refusal(t.register, "bob", "tok-bob", now=6).reason is Reason.RACE_STARTED
    assert refusal(t.close_registration, now=7).reason is Reason.NOT_LOBBY

    t = tournament(("ann",))
    t.start_round(now=10, start_at=3010, room_id="R1")
    assert not t.registration
    assert refusal(t.register, "bob", "tok-bob", now=11).reason is Reason.RACE_STARTED


def test_only_the_admin_token_is_the_organizer() -> None:
    t = tournament()
    t.check_admin("adm")
    for token in ("", "ADM", "tok-ann"):
        assert refusal(t.check_admin, token).reason is Reason.NOT_HOST


# ---------------------------------------------------------------------- rounds

def test_a_round_goes_pending_starting_running_ended() -> None:
    t = tournament(("ann", "bob", "cat"))
    assert t.current() is None and t.next_round() is t.rounds[0]
    event = t.start_round(now=10, start_at=3010, room_id="R1")
    assert event == {"kind": "round_starting", "round": 1, "start_at": 3010}
    r = t.rounds[0]
    assert (r.status, r.room, r.start_at, r.seats) == ("starting", "R1", 3010, [0, 1, 2])
    assert t.current() is r and t.next_round() is t.rounds[1]
    assert refusal(t.start_round, now=11, start_at=3011, room_id="R2").reason is Reason.NOT_ENDED
    assert refusal(t.end_round, 1, [], now=11).reason is Reason.NOT_PLAYING

    assert t.open_round(1, now=12) == {"kind": "round_started", "round": 1, "room": "R1", "start_at": 3010}
    assert r.status == "running" and t.current() is r
    assert refusal(t.open_round, 1, now=13).reason is Reason.NOT_LOBBY
    assert refusal(t.open_round, 2, now=13).reason is Reason.NOT_LOBBY
    assert refusal(t.start_round, now=13, start_at=3013, room_id="R2").reason is Reason.NOT_ENDED
    public = t.public(now=13)
    assert "code" not in public["rounds"][0] and "results" not in public["rounds"][0]

    results = ranked([line(0, "ann"), line(1, "bob"), line(2, "cat")])
    assert t.end_round(1, results, now=9000) == {"kind": "round_ended", "round": 1, "code": CODES[0]}
    assert (r.status, r.ended_at, r.results) == ("ended", 9000, results)
    assert t.current() is None
    assert refusal(t.end_round, 1, results, now=9001).reason is Reason.NOT_PLAYING
    public = t.public(now=9001)
    assert public["rounds"][0]["code"] == CODES[0] and public["rounds"][0]["results"] == results
    for later in public["rounds"][1:]:
        assert later["status"] == "pending" and "code" not in later and "results" not in later


def test_every_round_played_then_no_more() -> None:
    t = tournament(("ann",), codes=CODES[:2])
    play_round(t, [line(0, "ann")], now=1000)
    play_round(t, [line(0, "ann")], now=20000)
    assert t.next_round() is None and t.current() is None
    assert refusal(t.start_round, now=40000, start_at=43000, room_id="R3").reason is Reason.NOT_LOBBY
    assert [r["code"] for r in t.public(now=40000)["rounds"]] == list(CODES[:2])


def test_nobody_is_removed_once_every_round_is_played() -> None:
    t = tournament(("ann", "bob"), codes=CODES[:1])
    play_round(t, [line(0, "ann"), line(1, "bob")], now=1000)
    assert t.over
    refused = refusal(t.kick, 1, ban=True, now=9000)
    assert refused.reason is Reason.NOT_LOBBY
    assert str(refused) == "the tournament is over: its standings are final"
    assert not any(p.kicked for p in t.players) and not t.banned


def test_a_round_needs_someone_registered() -> None:
    t = tournament(())
    assert refusal(t.start_round, now=10, start_at=3010, room_id="R1").reason is Reason.NOT_READY
    t = tournament(("ann",))
    t.withdraw("tok-ann", now=5)
    assert refusal(t.start_round, now=10, start_at=3010, room_id="R1").reason is Reason.NOT_READY


def test_a_withdrawn_player_sits_out_the_next_rounds_and_stays_in_the_standings() -> None:
    t = tournament(("ann", "bob", "cat"))
    t.start_round(now=10, start_at=3010, room_id="R1")
    t.open_round(1, now=11)
    assert t.withdraw("tok-bob", now=500) == {"kind": "withdrawn", "player": 1}
    assert t.players[1].withdrawn and [p.player for p in t.active()] == [0, 2]
    assert t.rounds[0].seats == [0, 1, 2]  # the round under way keeps its seats
    assert refusal(t.withdraw, "tok-bob", now=501).reason is Reason.NOT_PLAYING
    assert refusal(t.withdraw, "tok-nobody", now=501).reason is Reason.BAD_TOKEN
    t.end_round(1, ranked([line(0, "ann", vegas=-2, foundation=10), line(1, "bob", vegas=-37,
                                                                         foundation=3, status="left"),
                           line(2, "cat")]), now=9000)
    t.start_round(now=9100, start_at=12100, room_id="R2")
    assert t.rounds[1].seats == [0, 2]
    t.open_round(2, now=9101)
    t.end_round(2, ranked([line(0, "ann"), line(2, "cat", vegas=-47, foundation=1)]), now=20000)

    table = {e["nickname"]: e for e in standings(t)}
    bob = table["bob"]
    assert bob["withdrawn"] is True and bob["vegas"] == -37 + MISSED_VEGAS == -89
    assert bob["rounds"] == [
        {"round": 1, "played": True, "vegas": -37, "foundation": 3, "finish_ms": None,
         "status": "left", "moves": 0},
        {"round": 2, "played": False, "vegas": MISSED_VEGAS, "foundation": 0, "finish_ms": None}]
    assert [p["withdrawn"] for p in t.public(now=20001)["players"]] == [False, True, False]


# ---------------------------------------------------------------------- standings

def test_standings_add_vegas_over_ended_rounds_and_a_missed_round_counts_minus_52() -> None:
    t = tournament(("ann", "bob", "cat"))
    assert [(e["nickname"], e["vegas"], e["rank"]) for e in standings(t)] == [
        ("ann", 0, 1), ("bob", 0, 2), ("cat", 0, 3)]  # nothing ended yet
    play_round(t, [won(0, "ann", 300_000), line(1, "bob", vegas=-12, foundation=8, moves=40),
                   line(2, "cat", status="unfinished", moves=5)], now=1000)
    t.withdraw("tok-ann", now=2000)
    play_round(t, [line(1, "bob", vegas=3, foundation=11, moves=60), line(2, "cat", vegas=-47,
                                                                          foundation=1)], now=20000)
    table = standings(t)
    assert [(e["nickname"], e["vegas"], e["foundation"], e["wins"], e["time_ms"], e["rank"])
            for e in table] == [("ann", 208 - 52, 52, 1, 300_000, 1), ("bob", -9, 19, 0, 0, 2),
                                ("cat", -99, 1, 0, 0, 3)]
    ann = table[0]
    assert ann["rounds"][0] == {"round": 1, "played": True, "vegas": 208, "foundation": 52,
                                "finish_ms": 300_000, "status": "finished", "moves": 116}
    assert ann["rounds"][1]["played"] is False and ann["rounds"][1]["vegas"] == -52
    assert table[2]["rounds"][0]["status"] == "unfinished"


def test_a_seat_that_stored_nothing_did_not_play_the_round() -> None:
    """Regression: a registered player who never came counted as played."""
    t = tournament(("ann", "bob"), codes=CODES[:1])
    play_round(t, [won(0, "ann", 90_000), line(1, "bob", status="unfinished")])
    bob = next(e for e in standings(t) if e["nickname"] == "bob")
    assert bob["rounds"] == [{"round": 1, "played": False, "vegas": MISSED_VEGAS,
                              "foundation": 0, "finish_ms": None}]
    rows = list(csv.reader(io.StringIO(results_csv(t))))
    assert [r[4:6] for r in rows if r[1] == "bob"] == [["0", "missed"], ["0", ""]]


def test_ties_go_to_foundation_cards_then_less_time_of_won_rounds_then_registration() -> None:
    """Each tie-break disagrees with registration order wherever it can."""
    names = ("ann", "bob", "cat", "dan", "eve", "fay")
    t = tournament(names)
    # eve and fay win round 1, fay faster; ann, bob and dan tie on dollars
    play_round(t, [line(0, "ann", vegas=-2, foundation=10), line(1, "bob", vegas=-2, foundation=10),
                   line(2, "cat"), line(3, "dan", vegas=-2, foundation=10),
                   won(4, "eve", 400_000), won(5, "fay", 350_000)], now=1000)
    # round 2: ann, bob and dan tie on dollars again, dan with more cards
    # (the model adds what the lines say); eve and fay both get nowhere
    play_round(t, [line(0, "ann", vegas=8, foundation=12), line(1, "bob", vegas=8, foundation=12),
                   line(2, "cat", vegas=-27, foundation=5), line(3, "dan", vegas=8, foundation=13),
                   line(4, "eve", vegas=-52), line(5, "fay", vegas=-52)], now=20000)
    table = standings(t)
    assert [(e["nickname"], e["vegas"], e["foundation"], e["wins"], e["time_ms"]) for e in table] == [
        ("fay", 156, 52, 1, 350_000), ("eve", 156, 52, 1, 400_000),
        ("dan", 6, 23, 0, 0), ("ann", 6, 22, 0, 0), ("bob", 6, 22, 0, 0), ("cat", -79, 5, 0, 0)]
    assert [e["rank"] for e in table] == [1, 2, 3, 4, 5, 6]
    assert [e["player"] for e in table] == [5, 4, 3, 0, 1, 2]


def test_missed_rounds_rank_a_player_below_one_who_played_badly() -> None:
    t = tournament(("ann", "bob"))
    play_round(t, [line(0, "ann"), line(1, "bob", vegas=-52)], now=1000)
    t.withdraw("tok-ann", now=2000)
    play_round(t, [line(1, "bob", vegas=-47, foundation=1)], now=20000)
    assert [(e["nickname"], e["vegas"]) for e in standings(t)] == [("bob", -99), ("ann", -104)]


# ---------------------------------------------------------------------- storage, public, CSV

def test_stored_and_loaded_unchanged_and_public_without_tokens() -> None:
    t = tournament(("ann", "bob"))
    play_round(t, [won(0, "ann", 5000), line(1, "bob")], now=1000)
    t.withdraw("tok-bob", now=7000)
    again = Tournament.from_json(t.to_json())
    assert again == t
    public = str(t.public(now=8000))
    for secret in ("adm", "tok-ann", "tok-bob", CODES[1], CODES[2], CODES[1][-7:], CODES[2][-7:]):
        assert secret not in public
    assert CODES[0] in public


def test_csv_has_a_row_per_player_and_ended_round_then_totals_in_rank_order() -> None:
    t = tournament(("ann", "bob", "cat"))
    r1 = play_round(t, [line(0, "ann", vegas=-2, foundation=10, moves=50), won(1, "bob", 120_000),
                        line(2, "cat", status="left", vegas=-47, foundation=1, moves=7)], now=1000)
    t.withdraw("tok-cat", now=2000)
    r2 = play_round(t, [line(0, "ann", vegas=3, foundation=11, moves=61, status="unfinished"),
                        line(1, "bob", vegas=-52)], now=20000)
    rows = list(csv.reader(io.StringIO(results_csv(t))))
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
    assert CODES[2] not in results_csv(t)  # round 3 has not been played


def test_csv_before_any_round_has_only_totals() -> None:
    t = tournament(("ann", "bob"))
    t.start_round(now=10, start_at=3010, room_id="R1")
    t.open_round(1, now=11)
    text = results_csv(t)
    assert text.splitlines() == [",".join(CSV_FIELDS), "0,ann,total,,0,,0,0,,0,1",
                                 "1,bob,total,,0,,0,0,,0,2"]
    assert all(code not in text and code[-7:] not in text for code in CODES)


def test_a_player_who_won_no_round_comes_after_a_winner_on_equal_dollars_and_cards() -> None:
    """Regression: with time of won rounds as the tie-break, a player with no
    won round (time 0) used to rank above one who had won a round."""
    t = tournament(("ann", "bob"))
    # ann wins round 1 and plays nothing of round 2; bob places 26 cards in each
    play_round(t, [won(0, "ann", 300_000), line(1, "bob", vegas=78, foundation=26)], now=1000)
    play_round(t, [line(0, "ann", vegas=-52), line(1, "bob", vegas=78, foundation=26)], now=20000)
    table = standings(t)
    assert [(e["nickname"], e["vegas"], e["foundation"], e["wins"]) for e in table] == [
        ("ann", 156, 52, 1), ("bob", 156, 52, 0)]


def test_csv_cells_that_start_like_a_formula_are_neutralised_and_names_kept() -> None:
    """Regression: a nickname starting with ``-`` reached the CSV as it was,
    which a spreadsheet runs as a formula (OWASP, CSV injection). Nicknames
    may still start with ``-``: the export prefixes such a cell with ``'``."""
    t = tournament(("-ann", "-1 o'neil", "bob"))
    play_round(t, [won(0, "-ann", 90_000), line(1, "-1 o'neil", moves=3, vegas=-47),
                   line(2, "bob", moves=2, vegas=-47)])
    text = results_csv(t)
    rows = list(csv.reader(io.StringIO(text)))
    cells = [row[1] for row in rows[1:]]
    assert cells.count("'-ann") == 2 and cells.count("'-1 o'neil") == 2 and cells.count("bob") == 2
    for row in rows[1:]:
        assert not row[1].startswith(("=", "+", "-", "@", "\t", "\r"))
        assert row[6].lstrip("-").isdigit()  # negative numbers stay numbers
    assert [p["nickname"] for p in t.public(now=0)["players"]] == ["-ann", "-1 o'neil", "bob"]


@pytest.mark.parametrize("text", ["=1+1", "+1", "-1", "@SUM(A1)", "\tx", "\rx", "\nx"])
def test_every_formula_start_is_neutralised(text: str) -> None:
    assert csv_text(text) == "'" + text
    assert csv_text("a" + text) == "a" + text
