"""Redis Cluster's hash slots: which of the 16 384 slots a key belongs to.

A key's slot is CRC16 (XMODEM) of the key modulo 16 384, or of its hash tag
only: the part between the first ``{`` and the next ``}``, when that part is
not empty. Every key of a room carries ``{room_id}``, so a room is one slot.

>>> slot("123456789") == 0x31C3 % 16384
True
>>> slot("kr:{ABC}:room") == slot("kr:{ABC}:ch") == slot("ABC")
True
>>> slot("a{}b") == crc16(b"a{}b") % SLOTS   # an empty tag is no tag
True
"""

from __future__ import annotations

from functools import lru_cache
from typing import Final

SLOTS: Final = 16384


def _table() -> tuple[int, ...]:
    out = []
    for byte in range(256):
        crc = byte << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) if crc & 0x8000 else crc << 1
        out.append(crc & 0xFFFF)
    return tuple(out)


_TABLE: Final = _table()


def crc16(data: bytes) -> int:
    crc = 0
    for byte in data:
        crc = ((crc << 8) & 0xFFFF) ^ _TABLE[((crc >> 8) ^ byte) & 0xFF]
    return crc


def hash_tag(key: bytes) -> bytes:
    """The part of ``key`` that decides its slot."""
    start = key.find(b"{")
    if start >= 0:
        end = key.find(b"}", start + 1)
        if end > start + 1:
            return key[start + 1:end]
    return key


def slot(key: str | bytes) -> int:
    data = key.encode() if isinstance(key, str) else key
    return _slot_of_tag(hash_tag(data))


@lru_cache(maxsize=1 << 16)
def _slot_of_tag(tag: bytes) -> int:  # a room's keys share a tag: computed once per room
    return crc16(tag) % SLOTS


__all__ = ["SLOTS", "crc16", "hash_tag", "slot"]
