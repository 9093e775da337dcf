"""Tokens are kept as digests, compared in constant time, and documents
written before tokens were hashed are read as if they had been."""

from __future__ import annotations

import hmac

import orjson
import pytest

from server.protocol import Reason
from server.race import RaceError, Room, Settings
from server.race.tokens import hash_token
from server.race.tournament import Tournament, TournamentSettings

CODES = ("KL1-D1V-ABYI5NK",)


def test_a_room_keeps_only_the_digest_of_each_seat_token() -> None:
    room = Room.create("ROOM1", Settings(), "KL1-D1N-AAAAAAG", "ann", "tok-a", now=0)
    room.join("bob", "tok-b", now=1)
    assert room.tokens == {hash_token("tok-a"): 0, hash_token("tok-b"): 1}
    assert b"tok-a" not in room.to_json() and b"tok-b" not in room.to_json()
    assert room.seat_of("tok-b") == 1 and room.seat_of(hash_token("tok-b")) is None


def test_a_tournament_keeps_only_the_digest_of_its_admin_key() -> None:
    """(Its players' tokens are the store's, kept as digests too:
    tests/app/tournaments/test_tournament_players.py.)"""
    t = Tournament.create("T1", "Club", TournamentSettings(codes=CODES), "adm", now=0)
    raw = t.to_json()
    assert b"adm\"" not in raw
    t.check_admin("adm")
    with pytest.raises(RaceError) as exc:
        t.check_admin(hash_token("adm"))  # the digest is not the key
    assert exc.value.reason is Reason.NOT_HOST


def test_tokens_are_compared_with_compare_digest(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[tuple[bytes, bytes]] = []
    real = hmac.compare_digest

    def spy(a: bytes, b: bytes) -> bool:
        calls.append((a, b))
        return real(a, b)

    monkeypatch.setattr(hmac, "compare_digest", spy)
    t = Tournament.create("T1", "Club", TournamentSettings(codes=CODES), "adm", now=0)
    t.check_admin("adm")
    assert (hash_token("adm").encode(), hash_token("adm").encode()) in calls
    # (a player's token is looked up by its digest in the store, as a seat's
    # in a room of thousands: no comparison of secrets happens in Python)


def test_documents_stored_with_plain_tokens_are_read_as_digests() -> None:
    room = Room.create("ROOM1", Settings(), "KL1-D1N-AAAAAAG", "ann", "tok-a", now=0)
    old = orjson.loads(room.to_json())
    old["tokens"] = {"tok-a": 0}  # as a server before hashing wrote it
    again = Room.from_json(orjson.dumps(old))
    assert again.seat_of("tok-a") == 0 and b"tok-a" not in again.to_json()

    t = Tournament.create("T1", "Club", TournamentSettings(codes=CODES), "adm", now=0)
    old = orjson.loads(t.to_json())
    del old["admins"]
    old["admin"] = "adm"  # (its players' plain tokens: tests/app/tournaments/test_tournament_players.py)
    again_t = Tournament.from_json(orjson.dumps(old))
    again_t.check_admin("adm")
    assert b'"adm"' not in again_t.to_json()
