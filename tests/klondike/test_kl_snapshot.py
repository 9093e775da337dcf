"""Snapshots: every game comes back exactly; bad bytes are an InvalidSnapshotError, always."""

from __future__ import annotations

import struct
import zlib
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from kl_support import positions, vector_position, wins

from server.klondike import EngineError, Game, InvalidSnapshotError, replay
from server.klondike.snapshot import _HEAD

HEAD = _HEAD.size  # magic, version, code, figures, foundations
SCORING_OFFSET = 2 + 1 + 8 + 1  # after magic, version, number, draw
FORMAT_OFFSET = SCORING_OFFSET + 1  # the code's format version: 1 KL1, 2 KL2


def body(data: bytes) -> bytes:
    """A snapshot without its closing CRC-32."""
    return data[:-4]


def seal(content: bytes) -> bytes:
    """``content`` closed with its CRC-32, as a snapshot is: a damaged snapshot
    sealed again reaches the checks behind the checksum."""
    return content + struct.pack("<I", zlib.crc32(content))


def decodes_or_refuses(data: bytes) -> Game | None:
    """Decode ``data``: a game, or None when refused with InvalidSnapshotError (nothing else)."""
    try:
        return Game.from_snapshot(data)
    except InvalidSnapshotError as exc:
        assert isinstance(exc, EngineError) and isinstance(exc, ValueError)
        return None


def test_round_trip_along_every_vector_game(vector_game: dict[str, Any]) -> None:
    for game, _ in positions(vector_game["script"], vector_game["code"]):
        data = game.snapshot()
        assert data[:3] == b"KG\x02"
        assert len(data) < 1200, "a game of any length fits in about 1 KiB"
        back = Game.from_snapshot(data)
        assert back == game and back.snapshot() == data
        assert back.view() == game.view()
    # the undo history comes back too: undo everything on both
    back = Game.from_snapshot(game.snapshot())
    while game.undo_depth:
        assert back.pop() == game.pop()
        assert back == game
    assert back.undo_depth == 0


def test_a_decoded_game_is_independent() -> None:
    game = vector_position("KL1-D1N-AAAAAAA", 22)
    back = Game.from_snapshot(game.snapshot())
    back.push("fc>t5")
    assert back != game and game == vector_position("KL1-D1N-AAAAAAA", 22)


def test_bytearray_and_memoryview_are_accepted() -> None:
    game = vector_position("KL1-D1N-AAAAAAA", 22)
    data = game.snapshot()
    assert Game.from_snapshot(bytearray(data)) == game
    assert Game.from_snapshot(memoryview(data)) == game  # type: ignore[arg-type]


def test_won_game_round_trips() -> None:
    vector = wins()[-1]
    game = replay(vector["code"], vector["script"])
    assert Game.from_snapshot(game.snapshot()) == game


# ---------------------------------------------------------------------- bad bytes

SAMPLES = [
    Game("KL1-D1N-AAAAAAA").snapshot(),
    replay("KL1-D3V-AAAAAAG", ["t1>f", "t7>f", "t3>t1", "draw"]).snapshot(),
    vector_position("KL1-D1V-RJRSFZD", 230).snapshot(),
]


@pytest.mark.parametrize("data", SAMPLES, ids=["fresh", "four-moves", "full-history"])
def test_every_truncation_is_refused(data: bytes) -> None:
    for end in range(len(data)):
        with pytest.raises(InvalidSnapshotError):
            Game.from_snapshot(data[:end])


@pytest.mark.parametrize("data", SAMPLES[:2], ids=["fresh", "four-moves"])
def test_every_single_byte_corruption_decodes_or_is_refused(data: bytes) -> None:
    refused = 0
    for i in range(len(data)):
        for value in range(256):
            if value != data[i]:
                refused += decodes_or_refuses(data[:i] + bytes([value]) + data[i + 1:]) is None
    assert refused > len(data) * 100


@settings(deadline=None)
@given(st.binary(max_size=2000))
def test_garbage_is_refused(data: bytes) -> None:
    with pytest.raises(InvalidSnapshotError):
        Game.from_snapshot(data)


@settings(deadline=None)
@given(st.sampled_from(SAMPLES), st.data())
def test_random_corruption_decodes_or_is_refused(data: bytes, draw: st.DataObject) -> None:
    corrupt = bytearray(data)
    for _ in range(draw.draw(st.integers(1, 4))):
        how = draw.draw(st.sampled_from(["set", "insert", "delete"]))
        i = draw.draw(st.integers(0, len(corrupt) - 1))
        if how == "set":
            corrupt[i] = draw.draw(st.integers(0, 255))
        elif how == "insert":
            corrupt.insert(i, draw.draw(st.integers(0, 255)))
        else:
            del corrupt[i]
    decodes_or_refuses(bytes(corrupt))


def with_byte(data: bytes, offset: int, value: int) -> bytes:
    return data[:offset] + bytes([value]) + data[offset + 1:]


@pytest.mark.parametrize(
    ("make", "words"),
    [
        (lambda d: b"XG" + d[2:], "format"),
        (lambda d: with_byte(d, 2, 3), "format"),
        (lambda d: with_byte(d, FORMAT_OFFSET, 3), "deal code format version 3"),
        (lambda d: with_byte(d, FORMAT_OFFSET, 0), "deal code format version 0"),
        (lambda d: with_byte(d, SCORING_OFFSET - 1, 2), "not a game snapshot"),
        (lambda d: with_byte(d, SCORING_OFFSET, ord("X")), "not a game snapshot"),
        (lambda d: with_byte(d, SCORING_OFFSET, ord("n")), "not a game snapshot"),
        (lambda d: d[:3] + struct.pack("<Q", 2**35) + d[11:], "not a game snapshot"),
        (lambda d: d + b"\x00", "after the end"),
        (lambda d: d[:-1], "truncated"),
        (lambda d: d[:10], "too short"),
        (lambda d: b"", "too short"),
        (lambda d: with_byte(d, HEAD - 4, 14), "more than 13"),
        (lambda d: with_byte(d, HEAD + 2, 0), "52 cards"),  # t1's only card becomes AS twice
        (lambda d: with_byte(d, HEAD, 1), "face up"),  # t1: one card, and it face down
        (lambda d: d[:-1] + b"\x65", "longer than 100"),
    ],
)
def test_what_is_wrong_is_said(make: Any, words: str) -> None:
    data = body(Game("KL1-D1N-AAAAAAA").snapshot())
    with pytest.raises(InvalidSnapshotError, match=words):
        Game.from_snapshot(seal(make(data)))


@pytest.mark.parametrize("data", SAMPLES, ids=["fresh", "four-moves", "full-history"])
def test_a_changed_byte_or_a_changed_length_fails_the_checksum(data: bytes) -> None:
    for damaged in (with_byte(data, len(data) // 2, data[len(data) // 2] ^ 1),
                    with_byte(data, len(data) - 1, data[-1] ^ 0x80),
                    data[:-5] + data[-4:], data[:-4] + b"\x00" + data[-4:]):
        with pytest.raises(InvalidSnapshotError, match="checksum"):
            Game.from_snapshot(damaged)


def test_a_record_naming_no_move_is_refused() -> None:
    data = body(replay("KL1-D1N-AAAAAAA", ["t7>f"]).snapshot())
    record = len(data) - 9  # source target count points:u16 fan flags card drawn
    assert data[record:record + 3] == bytes([6, 9, 1])  # t7 to the foundation, one card
    with pytest.raises(InvalidSnapshotError):
        Game.from_snapshot(seal(data[:record] + bytes([6, 6, 1]) + data[record + 3:]))
    with pytest.raises(InvalidSnapshotError, match="wrong card"):
        Game.from_snapshot(seal(data[:record + 7] + b"\xff" + data[record + 8:]))


def test_the_code_keeps_its_format_through_a_snapshot() -> None:
    """KL2 number 6 and KL1 number 6 are the same deal but not the same code."""
    for text in ("KL1-D1N-AAAAAAG", "KL2-D1N-AAAAAAAAAAAAG", "KL2-D3V-P777777777777"):
        data = replay(text, ["draw"]).snapshot()
        assert data[FORMAT_OFFSET] == int(text[2])
        assert str(Game.from_snapshot(data).code) == text


def test_a_kl1_format_byte_with_a_64_bit_number_is_refused() -> None:
    data = body(Game("KL2-D1N-P777777777777").snapshot())
    with pytest.raises(InvalidSnapshotError, match=r"outside 0\.\.34359738367 of a KL1 code"):
        Game.from_snapshot(seal(with_byte(data, FORMAT_OFFSET, 1)))


def as_version_1(data: bytes) -> bytes:
    """A snapshot as written before KL2: version 1, no format byte."""
    content = body(data)
    return seal(content[:2] + b"\x01" + content[3:FORMAT_OFFSET] + content[FORMAT_OFFSET + 1:])


@pytest.mark.parametrize("data", SAMPLES, ids=["fresh", "four-moves", "full-history"])
def test_a_snapshot_written_before_kl2_still_loads_as_a_kl1_game(data: bytes) -> None:
    """Games stored by a server of before KL2 go on after an upgrade."""
    game = Game.from_snapshot(as_version_1(data))
    assert game == Game.from_snapshot(data) and str(game.code).startswith("KL1-")
    assert game.snapshot() == data  # written back in the current version


def test_a_version_1_snapshot_is_checked_whole_too() -> None:
    old = as_version_1(SAMPLES[1])
    for end in range(len(old)):
        with pytest.raises(InvalidSnapshotError):
            Game.from_snapshot(old[:end])
    with pytest.raises(InvalidSnapshotError, match="checksum"):
        Game.from_snapshot(with_byte(old, 20, old[20] ^ 1))


def test_non_ascii_scoring_byte_is_an_invalid_snapshot() -> None:
    """Regression: a scoring byte >= 0x80 raised UnicodeDecodeError, not InvalidSnapshotError."""
    data = body(Game("KL1-D1N-AAAAAAA").snapshot())
    assert data[SCORING_OFFSET:SCORING_OFFSET + 1] == b"N"
    for value in (0x80, 0xC3, 0xFF):
        with pytest.raises(InvalidSnapshotError, match="not a game snapshot"):
            Game.from_snapshot(seal(with_byte(data, SCORING_OFFSET, value)))


@pytest.mark.parametrize("value", [None, "KG", 12, [75, 71, 1], object()])
def test_what_is_not_bytes_is_refused(value: object) -> None:
    with pytest.raises(InvalidSnapshotError):
        Game.from_snapshot(value)  # type: ignore[arg-type]


def test_the_packed_history_mirrors_the_records_past_the_undo_limit(vector_game: dict[str, Any]) -> None:
    """The engine keeps the history packed as it plays (a snapshot per move must
    not pack 100 records again): after every push, pop, and record falling off
    the end, it is the records' bytes in order."""
    for game, _ in positions(vector_game["script"], vector_game["code"]):
        assert bytes(game.packed_history) == b"".join(r.packed for r in game.history)
        copy = game.copy(history=False)
        assert copy.packed_history == b"" and copy.undo_depth == 0


# ---------------------------------------------------------------------- the undo records (issue 12)

def last_record(data: bytes) -> int:
    """Where the last undo record starts in a snapshot's body."""
    return len(data) - 9  # source target count points:u16 fan flags card drawn


def test_an_undo_record_naming_another_card_is_refused() -> None:
    """Regression: a record with a valid checksum but the wrong card was accepted,
    and the game held 53 cards after pop() (AS twice)."""
    data = body(replay("KL1-D1N-AAAAAAA", ["t7>f"]).snapshot())  # AH home from t7
    at = last_record(data) + 7
    assert data[at] == 13  # AH
    bad = seal(data[:at] + bytes([0]) + data[at + 1:])  # says AS went home
    with pytest.raises(InvalidSnapshotError, match="undo"):
        Game.from_snapshot(bad)


@pytest.mark.parametrize(
    ("offset", "value"),
    [
        (3, 7),       # points before the move: 7, not 0
        (5, 1),       # a draw-three fan before it, in draw one
        (6, 0),       # "turned no card up", though it did
        (6, 1),       # "did not earn the card's credit", though it did
        (8, 2),       # "drew two cards"
    ],
    ids=["points", "fan", "flip", "credit", "drawn"],
)
def test_an_undo_record_that_does_not_replay_is_refused(offset: int, value: int) -> None:
    """Each field of an undo record is checked against the game: it must replay
    to exactly the position saved."""
    data = body(replay("KL1-D1N-AAAAAAA", ["t7>f"]).snapshot())
    at = last_record(data) + offset
    assert data[at] != value
    with pytest.raises(InvalidSnapshotError):
        Game.from_snapshot(seal(data[:at] + bytes([value]) + data[at + 1:]))


def test_a_draw_record_that_drew_the_wrong_number_of_cards_is_refused() -> None:
    data = body(replay("KL1-D3N-AAAAAAA", ["draw"]).snapshot())
    at = last_record(data) + 8
    assert data[at] == 3
    for drawn in (1, 2):
        with pytest.raises(InvalidSnapshotError):
            Game.from_snapshot(seal(data[:at] + bytes([drawn]) + data[at + 1:]))


def test_a_history_that_does_not_start_from_a_sound_position_is_refused() -> None:
    """The face-up cards of a column must be a sequence where the history starts."""
    game = replay("KL1-D1N-AAAAAAA", ["t7>f", "t4>t5"])
    game.columns[0].append(game.columns[1].pop(0))  # t2's face-down card, face up on t1's 8C
    game.down[1] -= 1
    with pytest.raises(InvalidSnapshotError, match="not a sequence"):
        Game.from_snapshot(game.snapshot())

