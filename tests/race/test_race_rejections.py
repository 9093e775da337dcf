"""server.race, pure: every refusal is a RaceError with its reason code and a
sentence, and leaves the room exactly as it was (docs/protocol.md, "Rejections")."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from server.klondike import DealCode
from server.protocol import Reason
from server.race import RaceError, Room, Settings, check_nickname, parse_settings

CODE = "KL1-D1N-AAAAAAA"


def refusal(fn: Any, *args: Any, **kwargs: Any) -> RaceError:
    with pytest.raises(RaceError) as info:
        fn(*args, **kwargs)
    return info.value


# ---------------------------------------------------------------------- settings

@pytest.mark.parametrize("draw", [1.0, 3.0, 2, 0, True, "1", None, [1]])
def test_draw_must_be_the_integer_1_or_3(draw: Any) -> None:
    exc = refusal(parse_settings, {"draw": draw})
    assert (exc.reason, exc.text) == (Reason.BAD_SETTINGS, "draw must be 1 or 3")


def test_a_float_draw_is_bad_settings_not_a_crash_when_dealing() -> None:
    """Regression: {"draw": 1.0} passed (1.0 == 1) and the random deal then
    failed in DealCode with an internal error on the server."""
    exc = refusal(parse_settings, {"draw": 3.0, "scoring": "V"})
    assert exc.reason is Reason.BAD_SETTINGS
    s = parse_settings({"draw": 3, "scoring": "V"})
    assert str(DealCode.random(s.draw, s.scoring)).startswith("KL2-D3V-")  # type: ignore[arg-type]


@pytest.mark.parametrize(("data", "text"), [
    ({"colour": "red"}, "unknown setting 'colour'"),
    ({"tournament": "ABCDEFGH", "round": 1}, "unknown setting 'round'"),  # set by the server only
    ({"solo": True}, "unknown setting 'solo'"),
    ({"scoring": "X"}, "scoring must be 'N' (Normal) or 'V' (Vegas)"),
    ({"scoring": "n"}, "scoring must be 'N' (Normal) or 'V' (Vegas)"),
    ({"max_players": 0}, "max_players must be a whole number from 1 to 10000"),
    ({"max_players": 10_001}, "max_players must be a whole number from 1 to 10000"),
    ({"max_players": True}, "max_players must be a whole number from 1 to 10000"),
    ({"max_players": 2.0}, "max_players must be a whole number from 1 to 10000"),
    ({"time_limit": -1}, "time_limit must be a whole number from 0 to 14400"),
    ({"time_limit": 14401}, "time_limit must be a whole number from 0 to 14400"),
    ({"delay": 601}, "delay must be a whole number from 0 to 600"),
    ({"boards": "sometimes"}, "boards must be one of live, delayed, after"),
    ({"boards": "delayed"}, "delayed boards need a delay of 1 second or more"),
    ({"undo": "yes"}, "undo must be true or false"),
    ({"hints": 1}, "hints must be true or false"),
])
def test_bad_settings_name_the_setting(data: dict[str, Any], text: str) -> None:
    exc = refusal(parse_settings, data)
    assert (exc.reason, exc.text) == (Reason.BAD_SETTINGS, text)


@pytest.mark.parametrize(("code", "part"), [
    ("KL3-D1N-AAAAAAA", "bad prefix 'KL3'"), ("KL1-D2N-AAAAAAA", "bad draw digit '2'"),
    ("KL1-D1X-AAAAAAA", "bad scoring letter 'X'"), ("KL1-D1N-AAAAAA1", "bad character '1'"),
    ("KL1-D1N-AAAA", "bad deal number length"), ("AAAAAAA", "is not a deal code"),
    ("KL2-D1N-AAAAAAA", "expected 13 in a KL2 code"), ("KL2-D2N-AAAAAAAAAAAAA", "bad draw digit"),
    ("KL2-D1N-QAAAAAAAAAAAA", "2^64 or more"), ("KL2-D1N-AAAAAAAAAAAA0", "bad character '0'"),
])
def test_bad_codes_name_the_wrong_part(code: str, part: str) -> None:
    exc = refusal(parse_settings, {"code": code})
    assert exc.reason is Reason.BAD_CODE and part in exc.text


def test_a_code_decides_draw_and_scoring() -> None:
    s = parse_settings({"code": " kl1-d3v-aaaaaag ", "draw": 1, "scoring": "N"})
    assert (s.code, s.draw, s.scoring) == ("KL1-D3V-AAAAAAG", 3, "V")
    s = parse_settings({"code": "\tkl2-d3n-p777777777777\n", "draw": 1, "scoring": "V"})
    assert (s.code, s.draw, s.scoring) == ("KL2-D3N-P777777777777", 3, "N")
    assert refusal(parse_settings, {"code": 5}).reason is Reason.BAD_CODE


# ---------------------------------------------------------------------- nicknames

@pytest.mark.parametrize("name", ["", "   ", "a" * 21, "ann!", "x\x00", "tab\u200b", "😀", "<b>"])
def test_bad_nicknames(name: str) -> None:
    assert refusal(check_nickname, name).reason is Reason.BAD_NICKNAME


def test_good_nicknames_are_trimmed() -> None:
    assert check_nickname("  Zoë  O'Neil-Ü_2. ") == "Zoë O'Neil-Ü_2."
    assert check_nickname("a" * 20) == "a" * 20


# ---------------------------------------------------------------------- rooms

def room(max_players: int = 8) -> Room:
    r = Room.create("ROOMROOM", Settings(max_players=max_players), CODE, "ann", "tok-0", now=0)
    r.join("bob", "tok-1", now=1)
    return r


def test_each_refusal_of_the_room_leaves_it_unchanged() -> None:
    r = room(max_players=3)
    cases: list[tuple[Reason, Any]] = [
        (Reason.NAME_TAKEN, lambda: r.join("ANN", "t", now=2)),
        (Reason.NAME_TAKEN, lambda: r.join(" bob ", "t", now=2)),
        (Reason.BAD_NICKNAME, lambda: r.join("", "t", now=2)),
        (Reason.NOT_HOST, lambda: r.start(1, now=2, countdown_ms=0)),
        (Reason.NOT_HOST, lambda: r.kick(1, 0, now=2)),
        (Reason.NOT_HOST, lambda: r.rematch(1, CODE, now=2)),
        (Reason.NOT_READY, lambda: r.start(0, now=2, countdown_ms=0)),
        (Reason.UNKNOWN_SEAT, lambda: r.kick(0, 5, now=2)),
        (Reason.UNKNOWN_SEAT, lambda: r.set_ready(5, True, now=2)),
        (Reason.UNKNOWN_SEAT, lambda: r.leave(5, now=2)),
        (Reason.CANNOT_KICK_SELF, lambda: r.kick(0, 0, now=2)),
        (Reason.NOT_ENDED, lambda: r.rematch(0, CODE, now=2)),
        (Reason.NOT_PLAYING, lambda: r.end([], now=2)),
    ]
    for reason, call in cases:
        before = r.to_json()
        exc = refusal(call)
        assert exc.reason is reason and exc.text
        assert r.to_json() == before, reason
    r.join("cat", "tok-2", now=3)
    before = r.to_json()
    assert refusal(r.join, "dan", "t", now=4).reason is Reason.ROOM_FULL
    assert r.to_json() == before


def test_refusals_during_a_race() -> None:
    r = room()
    r.set_ready(1, True, now=2)
    r.start(0, now=10, countdown_ms=3000)
    before = r.to_json()
    assert refusal(r.join, "cat", "t", now=11).reason is Reason.RACE_STARTED
    exc = refusal(r.start, 0, now=11, countdown_ms=0)
    assert exc.reason is Reason.NOT_LOBBY and "rematch" in exc.text
    assert refusal(r.set_ready, 1, False, now=11).reason is Reason.NOT_LOBBY
    assert refusal(r.kick, 0, 1, now=11).reason is Reason.NOT_LOBBY
    assert refusal(r.rematch, 0, CODE, now=11).reason is Reason.NOT_ENDED
    assert r.to_json() == before


def test_not_ready_names_who_is_not_ready() -> None:
    r = room()
    r.join("cat", "tok-2", now=2)
    r.join("dan", "tok-3", now=3)
    r.set_ready(2, True, now=4)
    exc = refusal(r.start, 0, now=5, countdown_ms=0)
    assert exc.text == "not ready yet: bob, dan"


def test_the_host_leaving_passes_the_role_to_the_next_in_join_order() -> None:
    r = room()
    r.join("cat", "tok-2", now=2)
    event = r.leave(0, now=3)
    assert event == {"kind": "left", "seat": 0, "racing": False, "host": 1}
    assert r.host == 1 and r.seat_of("tok-0") is None
    assert r.leave(2, now=4) == {"kind": "left", "seat": 2, "racing": False}


OPS = st.lists(st.tuples(
    st.sampled_from(["join", "ready", "start", "kick", "leave", "rematch", "end"]),
    st.integers(min_value=0, max_value=4), st.integers(min_value=0, max_value=4),
    st.sampled_from(["ann", "bob", "BOB", "cat", "", "d!"]), st.booleans()), max_size=30)


def apply(r: Room, op: str, a: int, b: int, name: str, flag: bool, now: int) -> None:
    if op == "join":
        r.join(name, f"tok-{now}", now=now)
    elif op == "ready":
        r.set_ready(a, flag, now=now)
    elif op == "start":
        r.start(a, now=now, countdown_ms=0)
    elif op == "kick":
        r.kick(a, b, now=now)
    elif op == "leave":
        r.leave(a, now=now)
    elif op == "rematch":
        r.rematch(a, CODE, now=now)
    else:
        r.end([], now=now)


@settings(max_examples=200, deadline=None)
@given(ops=OPS)
def test_any_sequence_of_room_commands_refused_leaves_no_trace(ops: list[Any]) -> None:
    r = Room.create("ROOMROOM", Settings(max_players=3), CODE, "ann", "tok-0", now=0)
    for now, (op, a, b, name, flag) in enumerate(ops, start=1):
        before = r.to_json()
        try:
            apply(r, op, a, b, name, flag, now)
        except RaceError as exc:
            assert exc.text and isinstance(exc.reason, Reason)
            assert r.to_json() == before
        present = r.present()
        assert len(present) <= 3
        names = [p.nickname.casefold() for p in present]
        assert len(names) == len(set(names))
        assert not present or r.host in {p.seat for p in present}
