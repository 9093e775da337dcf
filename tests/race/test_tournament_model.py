"""server.race.tournament, pure: settings, the header's rounds and their
life, the organizer's keys, scheduling and registration windows
(docs/protocol.md, "Tournaments"). A tournament's players and standings are
the store's: tests/app/tournaments/test_tournament_players.py, tests/race/test_standings.py."""

from __future__ import annotations

from typing import Any

import orjson
import pytest

from server.klondike import DealCode
from server.protocol import Reason
from server.race import RaceError
from server.race.tournament import (
    HANDOFF_MS,
    MAX_ADMINS,
    MAX_ROUNDS,
    Tournament,
    TournamentSettings,
    parse_tournament_settings,
)

CODES = ("KL1-D1V-ABYI5NK", "KL1-D1V-ACT552B", "KL1-D3N-AAGWAAO")


def refusal(fn: Any, *args: Any, **kwargs: Any) -> RaceError:
    with pytest.raises(RaceError) as info:
        fn(*args, **kwargs)
    return info.value


NOW = 1_800_000_000_000


def tournament(codes: tuple[str, ...] = CODES, code: str | None = None,
               **settings: Any) -> Tournament:
    return Tournament.create("T1", "Club night", TournamentSettings(codes=codes, **settings),
                             "adm", now=0, invite=code)


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


# ---------------------------------------------------------------------- rounds

def test_a_round_goes_pending_starting_running_ended() -> None:
    t = tournament()
    assert t.current() is None and t.next_round() is t.rounds[0]
    event = t.start_round(now=10, start_at=3010, room_id="R1", entrants=3)
    assert event == {"kind": "round_starting", "round": 1, "start_at": 3010}
    r = t.rounds[0]
    assert (r.status, r.room, r.start_at, r.players) == ("starting", "R1", 3010, None)
    assert t.current() is r and t.next_round() is t.rounds[1]
    assert refusal(t.start_round, now=11, start_at=3011, room_id="R2",
                   entrants=3).reason is Reason.NOT_ENDED
    assert refusal(t.end_round, 1, now=11, played=0).reason is Reason.NOT_PLAYING

    assert t.open_round(1, now=12, players=3) == {"kind": "round_started", "round": 1,
                                                  "room": "R1", "start_at": 3010}
    assert (r.status, r.players) == ("running", 3) and t.current() is r
    assert refusal(t.open_round, 1, now=13, players=3).reason is Reason.NOT_LOBBY
    assert refusal(t.open_round, 2, now=13, players=3).reason is Reason.NOT_LOBBY
    assert refusal(t.start_round, now=13, start_at=3013, room_id="R2",
                   entrants=3).reason is Reason.NOT_ENDED
    assert "code" not in r.public(t.code(1))

    assert t.end_round(1, now=9000, played=2) == {"kind": "round_ended", "round": 1,
                                                   "code": CODES[0]}
    assert (r.status, r.ended_at, r.played) == ("ended", 9000, 2)
    assert t.current() is None and t.ended() == [r]
    assert refusal(t.end_round, 1, now=9001, played=2).reason is Reason.NOT_PLAYING
    assert r.public(t.code(1))["code"] == CODES[0]
    for later in t.rounds[1:]:
        assert later.status == "pending" and "code" not in later.public(t.code(later.n))


def test_every_round_played_then_no_more() -> None:
    t = tournament(codes=CODES[:2])
    for n in (1, 2):
        t.start_round(now=1000 * n, start_at=1000 * n + 3000, room_id=f"R{n}", entrants=1)
        t.open_round(n, now=1000 * n, players=1)
        t.end_round(n, now=1000 * n + 5000, played=1)
    assert t.next_round() is None and t.current() is None
    assert refusal(t.start_round, now=40000, start_at=43000, room_id="R3",
                   entrants=1).reason is Reason.NOT_LOBBY
    assert [r.public(t.code(r.n))["code"] for r in t.rounds] == list(CODES[:2])


def test_a_round_needs_someone_registered_and_not_withdrawn() -> None:
    t = tournament()
    assert refusal(t.start_round, now=10, start_at=3010, room_id="R1",
                   entrants=0).reason is Reason.NOT_READY
    assert t.rounds[0].status == "pending"


def test_registration_is_closed_by_the_organizer_or_by_a_round() -> None:
    t = tournament()
    assert t.close_registration(now=5) == {"kind": "closed"} and not t.registration
    assert refusal(t.close_registration, now=7).reason is Reason.NOT_LOBBY
    t = tournament()
    t.start_round(now=10, start_at=3010, room_id="R1", entrants=1)
    assert not t.registration and t.first_open() == 2


def test_registration_stays_open_until_the_round_late_until_names_starts() -> None:
    t = tournament(late_until=3)
    for n in (1, 2):
        assert t.first_open() == n
        t.start_round(now=10 * n, start_at=10 * n, room_id=f"R{n}", entrants=1)
        assert t.registration and t.first_open() == n + 1  # late ones: the next round
        t.open_round(n, now=10 * n, players=n)
        t.end_round(n, now=10 * n + 5, played=n)
    t.start_round(now=30, start_at=30, room_id="R3", entrants=3)
    assert not t.registration and t.first_open() == 4


def test_rounds_start_at_set_times_then_an_interval_after_the_last_ended() -> None:
    t = tournament(starts=(NOW,), interval=90)
    assert t.scheduled_start() == NOW
    t.start_round(now=NOW, start_at=NOW, room_id="R1", entrants=1)
    assert t.scheduled_start() is None  # a round is under way
    t.open_round(1, now=NOW, players=1)
    t.end_round(1, now=NOW + 5000, played=1)
    assert t.scheduled_start() == NOW + 5000 + 90_000
    assert tournament().scheduled_start() is None  # the organizer's call (t_start)


def test_a_round_may_not_start_more_than_a_week_ahead() -> None:
    t = tournament()
    exc = refusal(t.start_round, now=0, start_at=7 * 24 * 3600 * 1000 + 1, room_id="R1",
                  entrants=1)
    assert exc.reason is Reason.BAD_SETTINGS and t.rounds[0].status == "pending"


# ---------------------------------------------------------------------- organizers

def test_only_the_admin_token_is_the_organizer() -> None:
    t = tournament()
    t.check_admin("adm")
    for token in ("", "ADM", "tok-ann"):
        assert refusal(t.check_admin, token).reason is Reason.NOT_HOST


def test_the_invite_code_is_checked_ignoring_case_and_spaces_and_kept_as_a_digest() -> None:
    t = tournament(invite=True, code="K7QP2MXA")
    assert [t.invite_ok(code) for code in (None, "", "K7QP2MXB")] == [False, False, False]
    assert t.invite_ok(" k7qp2mxa ")
    assert "K7QP2MXA" not in t.to_json().decode()
    assert tournament().invite_ok(None)  # none needed


def test_an_admin_handoff_code_works_once_within_ten_minutes() -> None:
    t = tournament()
    until = t.start_handoff("ABCDEFGHJK", now=100)
    assert until == 100 + HANDOFF_MS and "ABCDEFGHJK" not in t.to_json().decode()
    assert refusal(t.claim, "ABCDEFGHJX", "new-key", now=200).reason is Reason.BAD_HANDOFF
    t.claim("abcdefghjk", "new-key", now=200)
    t.check_admin("adm")
    t.check_admin("new-key")
    assert refusal(t.claim, "ABCDEFGHJK", "other", now=300).reason is Reason.BAD_HANDOFF  # used
    t.start_handoff("KKKKKKKKKK", now=400)
    assert refusal(t.claim, "KKKKKKKKKK", "late", now=401 + HANDOFF_MS).reason is Reason.BAD_HANDOFF
    for i in range(MAX_ADMINS):
        t.start_handoff(f"CODE{i}", now=500)
        t.claim(f"CODE{i}", f"key-{i}", now=501)
    assert len(t.admins) == MAX_ADMINS
    assert refusal(t.check_admin, "adm").reason is Reason.NOT_HOST  # the oldest key went
    t.check_admin(f"key-{MAX_ADMINS - 1}")


def test_once_every_round_is_played_the_tournament_is_over_and_nobody_is_taken_out() -> None:
    t = tournament(codes=CODES[:1])
    assert not t.over
    t.check_not_over()
    t.start_round(now=1000, start_at=4000, room_id="R1", entrants=2)
    t.open_round(1, now=1001, players=2)
    assert not t.over
    t.end_round(1, now=9000, played=2)
    assert t.over
    refused = refusal(t.check_not_over)
    assert refused.reason is Reason.NOT_LOBBY
    assert str(refused) == "the tournament is over: its standings are final"


# ---------------------------------------------------------------------- storage

def test_stored_and_loaded_unchanged_and_its_header_shows_no_secret() -> None:
    t = tournament(invite=True, code="K7QP2MXA")
    t.start_round(now=1000, start_at=4000, room_id="R1", entrants=2)
    t.open_round(1, now=1001, players=2)
    t.end_round(1, now=9000, played=2)
    t.start_handoff("ABCDEFGHJK", now=9001)
    again = Tournament.from_json(t.to_json())
    assert again == t
    public = str([t.header(now=9002), *(r.public(t.code(r.n)) for r in t.rounds)])
    for secret in ("adm", "K7QP2MXA", "ABCDEFGHJK", CODES[1], CODES[2], CODES[1][-7:],
                   CODES[2][-7:]):
        assert secret not in public
    assert CODES[0] in public


def test_a_document_stored_before_handoffs_keeps_its_one_admin_key() -> None:
    t = tournament()
    raw = t.to_json().decode().replace(f'"admins":["{t.admins[0]}"]', f'"admin":"{t.admins[0]}"')
    assert '"admin":' in raw
    old = Tournament.from_json(raw)
    old.check_admin("adm")
    assert old == t


def test_a_document_that_held_its_players_is_read_as_its_header() -> None:
    """A tournament stored before its players moved to the store: its header
    reads as one stored now (the players are moved by the service)."""
    t = tournament()
    old = orjson.loads(t.to_json())
    old["players"] = [{"player": 0, "nickname": "ann", "token": "x", "registered": 1,
                       "withdrawn": False, "kicked": False}]
    old["banned"] = []
    for r in old["rounds"]:
        r.update(seats=[0], results=None)
    assert Tournament.from_json(orjson.dumps(old)) == t
