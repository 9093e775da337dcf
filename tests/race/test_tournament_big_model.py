"""server.race.tournament, the parts big tournaments add (pure): a big
standing line built round by round against the small tournament's standings, the organizer's
scheduling, late registration, kicks and bans, the invite code and the
admin handoff (docs/protocol.md, "Big tournaments")."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from server.protocol import Reason
from server.race import RaceError, new_entry, ranked
from server.race.ranking import seat_member, standing_key, standing_score
from server.race.tournament import (
    HANDOFF_MS,
    MAX_ADMINS,
    MAX_ROUNDS,
    MISSED,
    Tournament,
    TournamentSettings,
    count_round,
    parse_tournament_settings,
    results_csv_big,
    round_result,
    standing_line,
    standings,
)

CODES = ("KL1-D1V-ABYI5NK", "KL1-D1V-ACT552B", "KL1-D3N-AAGWAAO")
NOW = 1_800_000_000_000


def refusal(fn: Any, *args: Any, **kwargs: Any) -> RaceError:
    with pytest.raises(RaceError) as info:
        fn(*args, **kwargs)
    return info.value


# ---------------------------------------------------------------------- the standings' order

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
        entry.update(foundation=52, vegas=208, finish_ms=finish_ms, moves=moves + 100)
    else:
        entry.update(foundation=cards, vegas=-52 + 5 * cards, moves=moves)
    return entry


@settings(max_examples=200, deadline=None)
@given(st.lists(st.lists(a_round, min_size=1, max_size=3), min_size=1, max_size=8))
def test_standing_score_orders_big_lines_as_standings_orders_small_ones(
        table: list[list[Any]]) -> None:
    """The same rounds played in a small tournament (whose standings sort in
    Python) and counted into big standing lines (ranked by their score and
    a fixed-width player number, as the sorted set does): same totals, same
    order, ties included."""
    rounds = max(len(row) for row in table)
    codes = (CODES * MAX_ROUNDS)[:rounds]
    t = Tournament.create("T1", "Equal", TournamentSettings(codes=codes), "adm", now=0)
    for p in range(len(table)):
        t.register(f"p{p}", f"tok-{p}", now=1 + p)
    lines = {p: standing_line(p, f"p{p}", 1) for p in range(len(table))}
    for n in range(1, rounds + 1):
        started = t.start_round(now=10 * n, start_at=10 * n + 1, room_id=f"R{n}")
        t.open_round(started["round"], now=10 * n)
        results = ranked(entry_of(p, row[n - 1]) for p, row in enumerate(table)
                         if n <= len(row) and row[n - 1] is not None)
        t.end_round(n, results, now=10 * n + 5)
        by_seat = {e["seat"]: e for e in results}
        for p, line in lines.items():
            entry = by_seat.get(p)
            counted = count_round(line, n, MISSED if entry is None else round_result(
                entry, entry["rank"]))
            assert counted is not None
            lines[p] = counted
    small = standings(t)
    big = sorted(lines.values(), key=lambda line: (standing_score(line), seat_member(line["player"])))
    assert [line["player"] for line in big] == [line["player"] for line in small]
    for mine, theirs in zip(big, small, strict=True):
        for key in ("vegas", "foundation", "wins", "time_ms"):
            assert mine[key] == theirs[key], key
        assert mine["played"] == sum(1 for r in theirs["rounds"] if r["played"])
    assert sorted(small, key=standing_key) == small


def test_a_line_counts_each_round_once_and_a_late_player_starts_with_the_rounds_missed() -> None:
    late = standing_line(4, "eve", 3)
    assert (late["vegas"], late["played"], len(late["rounds"])) == (-104, 0, 2)
    assert count_round(late, 2, ("finished", 208, 52, 1000, 90, 1)) is None  # counted already
    line = count_round(late, 3, ("finished", 208, 52, 90_000, 116, 2))
    assert line is not None
    assert (line["vegas"], line["foundation"], line["wins"], line["time_ms"], line["played"]) == (
        104, 52, 1, 90_000, 1)
    assert count_round(line, 3, ("resigned", 0, 0, None, 1, 5)) is None
    assert round_result(new_entry(0, "a", "racing", 0, normal=False), 7) == MISSED  # came, did nothing
    moved = {**new_entry(0, "a", "racing", 0, normal=False), "moves": 3, "vegas": -47,
             "foundation": 1}
    assert round_result(moved, 7) == ("unfinished", -47, 1, None, 3, 7)


def test_a_big_results_page_as_csv_neutralises_cells_and_shows_only_ended_rounds() -> None:
    t = Tournament.create("T1", "Big", TournamentSettings(codes=CODES, max_players=100), "adm",
                          now=0)
    t.rounds[0].status, t.rounds[1].status = "ended", "running"
    line = count_round(standing_line(0, "-ann", 1), 1, ("finished", 208, 52, 90_000, 116, 1))
    assert line is not None
    late = count_round(standing_line(1, "bob", 3), 3, MISSED)  # registered during round 2
    assert late is not None
    text = results_csv_big(t, [{**line, "rank": 1}, {**late, "rank": 2, "withdrawn": True}])
    assert text.splitlines() == [
        "player,nickname,round,code,played,status,vegas,foundation,moves,finish_ms,rank",
        f"0,'-ann,1,{CODES[0]},1,finished,208,52,116,90000,1",
        "0,'-ann,total,,1,,208,52,,90000,1",
        f"1,bob,1,{CODES[0]},0,missed,-52,0,0,,",
        "1,bob,total,,0,withdrawn,-156,0,,0,2",
    ]
    assert CODES[1] not in text and CODES[1][-7:] not in text


# ---------------------------------------------------------------------- settings

def test_big_settings_and_the_organizers_schedule() -> None:
    s = parse_tournament_settings({"codes": list(CODES), "max_players": 10_000, "top": 20,
                                   "starts": [NOW + 60_000], "interval": 120, "late_until": 2,
                                   "invite": True}, now=NOW)
    assert s.big and (s.top, s.starts, s.interval, s.late_until, s.invite) == (
        20, (NOW + 60_000,), 120, 2, True)
    public = s.public()
    assert public["big"] and public["top"] == 20 and public["starts"] == [NOW + 60_000]
    assert (public["interval"], public["late_until"], public["invite"]) == (120, 2, True)
    # a small tournament's settings show nothing new unless set
    assert not parse_tournament_settings({"max_players": 16}).big
    assert set(parse_tournament_settings({}).public()) == {
        "time_limit", "max_players", "undo", "hints", "boards", "delay", "rounds", "modes"}


@pytest.mark.parametrize("data", [
    {"max_players": 10_001}, {"top": 0}, {"top": 51}, {"interval": -1}, {"interval": 86_401},
    {"late_until": 4}, {"late_until": -1}, {"invite": 1}, {"starts": NOW + 1000},
    {"starts": [NOW - 1]}, {"starts": [NOW + 2000, NOW + 1000]}, {"starts": [NOW + 1000.0]},
    {"starts": [NOW + 1000] * 2}, {"starts": [NOW + 29 * 24 * 3600 * 1000]},
    {"starts": [NOW + 1, NOW + 2, NOW + 3, NOW + 4]},
])
def test_bad_big_settings_are_refused(data: dict[str, Any]) -> None:
    exc = refusal(parse_tournament_settings, {"codes": list(CODES), **data}, now=NOW)
    assert exc.reason is Reason.BAD_SETTINGS, data


def tournament(code: str | None = None, **settings: Any) -> Tournament:
    return Tournament.create("T1", "Club", TournamentSettings(codes=CODES, **settings), "adm",
                             now=0, invite=code)


def test_rounds_start_at_set_times_then_an_interval_after_the_last_ended() -> None:
    t = tournament(starts=(NOW,), interval=90)
    t.register("ann", "tok-a", now=1)
    assert t.scheduled_start() == NOW
    t.start_round(now=NOW, start_at=NOW, room_id="R1")
    assert t.scheduled_start() is None  # a round is under way
    t.open_round(1, now=NOW)
    t.end_round(1, [], now=NOW + 5000)
    assert t.scheduled_start() == NOW + 5000 + 90_000
    manual = tournament()
    manual.register("ann", "tok-a", now=1)
    assert manual.scheduled_start() is None  # the organizer's call (t_start)


def test_registration_stays_open_until_the_round_late_until_names_starts() -> None:
    t = tournament(late_until=3)
    t.register("ann", "tok-a", now=1)
    for n in (1, 2):
        t.start_round(now=10 * n, start_at=10 * n, room_id=f"R{n}")
        assert t.registration and t.first_open() == n + 1
        t.register(f"late{n}", f"tok-{n}", now=10 * n + 1)
        assert t.rounds[n - 1].seats == [p.player for p in t.players[:n]]  # late ones: the next round
        t.open_round(n, now=10 * n)
        t.end_round(n, [], now=10 * n + 5)
    t.start_round(now=30, start_at=30, room_id="R3")
    assert not t.registration and t.rounds[2].seats == [0, 1, 2]
    assert refusal(t.register, "zed", "tok-z", now=31).reason is Reason.RACE_STARTED
    t.open_round(3, now=30)
    t.end_round(3, [], now=35)
    # the late players missed the rounds before they came: -52 $ each
    assert {line["nickname"]: line["vegas"] for line in standings(t)} == {
        "ann": -156, "late1": -156, "late2": -156}


def test_a_kicked_player_is_out_and_a_ban_refuses_their_name_and_its_look_alikes() -> None:
    t = tournament()
    for name in ("ann", "bob", "cat"):
        t.register(name, f"tok-{name}", now=1)
    assert t.kick(1, ban=True, now=2) == {"kind": "kicked", "player": 1, "ban": True}
    assert t.player_of("tok-bob") is None and [p.player for p in t.active()] == [0, 2]
    assert [line["nickname"] for line in standings(t)] == ["ann", "cat"]
    assert t.public(now=3)["players"][1] == {"player": 1, "nickname": "bob", "withdrawn": False,
                                             "kicked": True}
    for name in ("bob", "BOB", "b0b"):
        assert refusal(t.register, name, "tok-x", now=4).reason is Reason.BANNED
    assert refusal(t.kick, 1, ban=False, now=5).reason is Reason.UNKNOWN_SEAT
    t.kick(2, ban=False, now=6)
    assert t.register("cat", "tok-cat2", now=7)["player"] == 3  # not banned: may come back
    again = Tournament.from_json(t.to_json())
    assert again == t


def test_a_ban_is_said_before_a_closed_registration_or_a_wrong_invite() -> None:
    t = tournament(code="K7QP2MXA")
    t.register("ann", "tok-a", now=1, invite="K7QP2MXA")
    t.register("bob", "tok-b", now=1, invite="K7QP2MXA")
    t.kick(1, ban=True, now=2)
    assert refusal(t.register, "BOB", "tok-x", now=3, invite="wrong").reason is Reason.BANNED
    t.close_registration(now=4)
    assert refusal(t.register, "zed", "tok-z", now=5, invite="K7QP2MXA").reason is Reason.RACE_STARTED
    assert refusal(t.register, "bob", "tok-x", now=5).reason is Reason.BANNED


def test_registering_needs_the_invite_code_when_there_is_one() -> None:
    t = tournament(invite=True, code="K7QP2MXA")
    for code in (None, "", "K7QP2MXB"):
        assert refusal(t.register, "ann", "tok-a", now=1, invite=code).reason is Reason.BAD_INVITE
    assert t.register("ann", "tok-a", now=1, invite=" k7qp2mxa ")["player"] == 0
    assert "K7QP2MXA" not in t.to_json().decode()


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


def test_a_document_stored_before_handoffs_keeps_its_one_admin_key() -> None:
    t = tournament()
    raw = t.to_json().decode().replace(f'"admins":["{t.admins[0]}"]', f'"admin":"{t.admins[0]}"')
    assert '"admin":' in raw
    old = Tournament.from_json(raw)
    old.check_admin("adm")
    assert old == t
