"""Identifiers handed out: room and tournament ids, seat and admin tokens,
invite and handoff codes. Ids and codes use letters and digits that read
aloud safely (no I, O, 0, 1)."""

from __future__ import annotations

import hashlib
import secrets
from typing import Final

ID_ALPHABET: Final = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"
ROOM_ID_LENGTH: Final = 8


def new_room_id() -> str:
    """A room's (or a tournament's) id, at random."""
    return "".join(secrets.choice(ID_ALPHABET) for _ in range(ROOM_ID_LENGTH))


def is_room_id(text: str) -> bool:
    return len(text) == ROOM_ID_LENGTH and all(ch in ID_ALPHABET for ch in text)


def round_room_id(tournament_id: str, n: int) -> str:
    """The room of a tournament's round ``n``: derived, so that creating it
    twice is harmless.

    >>> round_room_id("T1", 1) == round_room_id("T1", 1) != round_room_id("T1", 2)
    True
    >>> is_room_id(round_room_id("T1", 1))
    True
    """
    digest = hashlib.sha256(f"{tournament_id}/{n}".encode()).digest()
    return "".join(ID_ALPHABET[b % len(ID_ALPHABET)] for b in digest[:ROOM_ID_LENGTH])


def daily_room_id(day: str, mode: str, *, practice: bool = False) -> str:
    """The room of ``day``'s daily deal of ``mode`` (or its practice room):
    derived, so that every process opening it opens the same one (the
    second finds it made).

    >>> daily_room_id("2026-12-02", "D1N") == daily_room_id("2026-12-02", "D1N")
    True
    >>> len({daily_room_id("2026-12-02", "D1N"), daily_room_id("2026-12-02", "D3N"),
    ...      daily_room_id("2026-12-02", "D1N", practice=True)})
    3
    """
    return round_room_id(f"daily/{day}" + ("/practice" if practice else ""),
                         {"D1N": 1, "D3N": 3, "D1V": 5, "D3V": 7}[mode])


def new_token() -> str:
    """A seat's, a player's or an organizer's bearer token."""
    return secrets.token_urlsafe(18)


def new_code(length: int) -> str:
    """An invite or handoff code."""
    return "".join(secrets.choice(ID_ALPHABET) for _ in range(length))
