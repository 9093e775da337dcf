"""server.protocol.decode: every frame is a command or a ProtocolError with a
stable reason code; nothing else ever comes out of it (docs/protocol.md)."""

from __future__ import annotations

import json
from typing import Any

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from server.protocol import COMMANDS, DEFAULT_TEXT, ProtocolError, Reason, decode, frame, reject
from server.protocol import commands as c
from server.protocol.commands import MAX_SEQ, MAX_TEXT


def refusal(raw: str | bytes) -> ProtocolError:
    with pytest.raises(ProtocolError) as info:
        decode(raw)
    return info.value


def dumps(t: Any, d: Any = None) -> str:
    return orjson.dumps({"t": t, "d": d} if d is not None else {"t": t}).decode()


def test_a_valid_frame_of_each_command_decodes_to_its_type() -> None:
    samples: dict[str, dict[str, Any]] = {
        "create": {"nickname": "ann", "settings": {"draw": 3}},
        "join": {"room": "ABCDEFGH", "nickname": "bob"},
        "resume": {"room": "ABCDEFGH", "token": "tok", "since": 12},
        "watch": {"room": "ABCDEFGH"},
        "solo": {"code": None},
        "quick": {"nickname": "ann", "draw": 3, "scoring": "V"}, "lobby": {"on": False},
        "ready": {"ready": False},
        "start": {}, "kick": {"seat": 0}, "leave": {}, "rematch": {},
        "move": {"s": 1, "m": "t2:3>t5"}, "undo": {"s": MAX_SEQ}, "resign": {"s": 7},
        "hint": {}, "complete": {}, "ping": {},
        "t_create": {"name": "Club night", "settings": {"rounds": 2}},
        "t_watch": {"id": "ABCDEFGH"},
        "t_register": {"id": "ABCDEFGH", "nickname": "ann", "invite": "K7QP2MXA"},
        "t_resume": {"id": "ABCDEFGH", "token": "tok"}, "t_close": {"id": "ABCDEFGH", "admin": "a"},
        "t_start": {"id": "ABCDEFGH", "admin": "a", "at": 1795969138660},
        "t_withdraw": {"id": "ABCDEFGH", "token": "tok"}, "t_standings": {"id": "ABCDEFGH"},
        "t_end": {"id": "ABCDEFGH", "admin": "a"},
        "t_page": {"id": "ABCDEFGH", "first": 51, "count": 50},
        "t_find": {"id": "ABCDEFGH", "nickname": "ann"},
        "t_kick": {"id": "ABCDEFGH", "admin": "a", "player": 0, "ban": True},
        "t_handoff": {"id": "ABCDEFGH", "admin": "a"},
        "t_claim": {"id": "ABCDEFGH", "code": "K7QP2MXA3B"},
        "lb_page": {"first": 11, "count": 10}, "lb_find": {"nickname": "ann"},
        "follow": {"nickname": None},
        "identify": {"key": "nPpiqccXLdnGtT_QkMiaadjX"}, "p_rename": {"nickname": "ann"},
        "p_history": {"first": 21, "count": 20}, "p_move": {}, "p_claim": {"code": "K7QP2MXA3B"},
        "p_forget": {}, "p_profile": {"id": "ABCDEFGHJK"},
        "daily": {}, "daily_play": {"mode": "D1N", "nickname": "ann"},
    }
    assert set(samples) == set(COMMANDS)
    for name, d in samples.items():
        cmd = decode(dumps(name, d))
        assert type(cmd) is COMMANDS[name] and cmd.type == name
        for key, value in d.items():
            assert getattr(cmd, key) == value


def test_defaults_and_a_missing_or_null_d() -> None:
    assert decode('{"t": "ready"}') == c.Ready(ready=True)
    assert decode('{"t": "ping", "d": null}') == c.Ping()
    assert decode(dumps("watch", {"room": "X"})) == c.Watch(room="X", since=0)
    assert decode(dumps("solo", {})) == c.Solo(nickname="player", code=None, draw=1, scoring="N")
    # unknown fields and top-level members are ignored
    raw = '{"t": "move", "d": {"s": 3, "m": "draw", "x": [1]}, "id": 9}'
    assert decode(raw) == c.MoveCommand(s=3, m="draw")


def test_sequence_number_zero_is_a_bad_field_not_a_stale_command() -> None:
    """Regression: ``s`` is ≥ 1 (docs/protocol.md, "Playing"); 0 used to pass
    decoding and came back as ``stale``, "sequence number 0 was already used"."""
    for name, d in (("move", {"s": 0, "m": "draw"}), ("undo", {"s": 0}), ("resign", {"s": 0})):
        exc = refusal(dumps(name, d))
        assert (exc.reason, exc.command) == (Reason.BAD_FIELD, name)
        assert exc.text == f"{name}: field 's' must be a whole number from 1 to 2147483647"
    # the other counters start at 0
    assert decode(dumps("kick", {"seat": 0})) == c.Kick(seat=0)
    assert decode(dumps("watch", {"room": "R", "since": 0})) == c.Watch(room="R", since=0)
    assert refusal(dumps("kick", {"seat": -1})).text == (
        "kick: field 'seat' must be a whole number from 0 to 2147483647")


def test_a_sequence_number_at_or_over_2_to_the_31_is_refused_naming_the_bound() -> None:
    """Regression: ``s`` = 2**53 - 1 was taken, after which the seat could
    send nothing (every later number must be higher), and the error said
    only "≥ 1"."""
    assert MAX_SEQ == 2**31 - 1
    assert decode(dumps("move", {"s": MAX_SEQ, "m": "draw"})) == c.MoveCommand(s=MAX_SEQ, m="draw")
    for s in (2**31, 2**53 - 1):
        exc = refusal(dumps("move", {"s": s, "m": "draw"}))
        assert exc.text == "move: field 's' must be a whole number from 1 to 2147483647"
        assert exc.seq is None  # not a sequence number the client could match


@pytest.mark.parametrize("s", [1, 2, MAX_SEQ])
def test_sequence_numbers_in_range(s: int) -> None:
    assert decode(dumps("undo", {"s": s})) == c.Undo(s=s)


@pytest.mark.parametrize("s", [-1, MAX_SEQ + 1, 2**63, 1.0, 1.5, True, False, "1", None, [1], {"n": 1}])
def test_sequence_numbers_out_of_range_or_of_another_type(s: Any) -> None:
    exc = refusal(dumps("undo", {"s": s}))
    assert exc.reason is Reason.BAD_FIELD and exc.command == "undo"


def test_strings_up_to_200_characters() -> None:
    assert decode(dumps("move", {"s": 1, "m": "x" * MAX_TEXT})) == c.MoveCommand(s=1, m="x" * MAX_TEXT)
    exc = refusal(dumps("move", {"s": 1, "m": "x" * (MAX_TEXT + 1)}))
    assert exc.text == "move: field 'm' must be a string of at most 200 characters"
    assert refusal(dumps("solo", {"code": "K" * 201})).text == "solo: field 'code' must be a string or null"


@pytest.mark.parametrize(("raw", "reason"), [
    (b"{}", Reason.BAD_JSON), (b"", Reason.BAD_JSON), ("", Reason.BAD_JSON), ("{", Reason.BAD_JSON),
    ("NaN", Reason.BAD_JSON), ("[" * 1100 + "]" * 1100, Reason.BAD_JSON),
    ("[]", Reason.BAD_MESSAGE), ("1", Reason.BAD_MESSAGE), ('{"t": 1}', Reason.BAD_MESSAGE),
    ('{"d": {}}', Reason.BAD_MESSAGE), ('{"t": "ping", "d": []}', Reason.BAD_MESSAGE),
    ('{"t": "PING"}', Reason.UNKNOWN_TYPE), ('{"t": "reject"}', Reason.UNKNOWN_TYPE),
    ('{"t": "move", "d": {"s": 1}}', Reason.BAD_FIELD),
])
def test_reasons_of_frames_that_are_not_commands(raw: str | bytes, reason: Reason) -> None:
    exc = refusal(raw)
    assert exc.reason is reason and exc.text and str(exc) == exc.text


def test_the_command_is_named_once_the_type_is_known() -> None:
    assert refusal("[]").command is None
    assert refusal('{"t": "move", "d": 5}').command == "move"
    assert refusal(dumps("q" * 100)).command == "q" * 40


def test_reject_frames() -> None:
    assert orjson.loads(reject("move", Reason.STALE, None, 4)) == {"t": "reject", "d": {
        "cmd": "move", "code": "stale", "msg": DEFAULT_TEXT[Reason.STALE], "s": 4}}
    assert orjson.loads(reject(None, Reason.FLOOD)) == {"t": "reject", "d": {
        "cmd": None, "code": "flood", "msg": "too many messages: slow down"}}
    assert orjson.loads(frame("pong", {"now": 1})) == {"t": "pong", "d": {"now": 1}}


def test_every_reason_has_a_sentence() -> None:
    assert set(DEFAULT_TEXT) == set(Reason)
    assert all(text and text[0].islower() for text in DEFAULT_TEXT.values())


JSON = st.recursive(
    st.none() | st.booleans() | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=30),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12,
)
FIELDS = st.sampled_from(["s", "m", "room", "nickname", "token", "since", "settings", "code", "draw",
                          "scoring", "ready", "seat"])


@settings(max_examples=300, deadline=None)
@given(t=st.sampled_from(sorted(COMMANDS)) | st.text(max_size=10) | JSON,
       d=st.dictionaries(FIELDS, JSON, max_size=5) | JSON)
def test_any_envelope_is_a_command_or_a_protocol_error(t: Any, d: Any) -> None:
    raw = json.dumps({"t": t, "d": d})  # the standard library writes integers of any size
    try:
        cmd = decode(raw)
    except ProtocolError as exc:
        assert exc.reason in (Reason.BAD_MESSAGE, Reason.UNKNOWN_TYPE, Reason.BAD_FIELD)
        assert exc.text
    else:
        assert cmd.type == t


@settings(max_examples=300, deadline=None)
@given(raw=st.binary(max_size=64) | st.text(max_size=64))
def test_any_bytes_or_text_are_a_command_or_a_protocol_error(raw: str | bytes) -> None:
    try:
        decode(raw)
    except ProtocolError as exc:
        assert exc.reason in (Reason.BAD_JSON, Reason.BAD_MESSAGE, Reason.UNKNOWN_TYPE, Reason.BAD_FIELD)
        if isinstance(raw, bytes):
            assert exc.reason is Reason.BAD_JSON
