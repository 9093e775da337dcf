"""A compact binary snapshot of a whole game, undo history included.

Layout (little endian), version 2::

    b"KG" version:u8  number:u64 draw:u8 scoring:u8 format:u8
    points:u16 moves:u32 recycles:u32 turned_up:u8 fan:u8 credited:u64
    foundations:4×u8
    7 × (down:u8 size:u8 cards:size×u8)          columns, bottom card first
    size:u8 cards                                  stock, top card last
    size:u8 cards                                  waste, top card last
    size:u8 size × record                          undo history, oldest first
    crc:u32                                        CRC-32 of everything before it
    record = source:u8 target:u8 count:u8 points:u16 fan:u8 flags:u8 card:u8 drawn:u8

``format`` is the code's format version (1 for KL1, 2 for KL2), so a game
comes back with its code written as it was. Version 1, written before KL2
codes, is the same without ``format``: its codes are KL1 (games stored then
still load).

A game of any length fits in about 1 KiB. :func:`decode` checks the checksum
and everything it reads, and raises :class:`InvalidSnapshotError` rather than
return a broken game (a damaged snapshot that happened to parse could fail
later, on an undo). It returns the fields; ``Game.from_snapshot`` builds the
game and checks the undo records against it.
"""

from __future__ import annotations

import struct
import zlib
from typing import Final, NamedTuple

from .codes import KL1, DealCode, code_format
from .errors import EngineError, InvalidSnapshotError
from .history import NO_CARD, RECORD, UNDO_LIMIT, Record
from .moves import BY_PARTS, FOUNDATION
from .table import Table

MAGIC: Final = b"KG"
VERSION: Final = 2
_HEAD: Final = struct.Struct("<2sBQBcBHIIBBQ4B")
_HEAD_V1: Final = struct.Struct("<2sBQBcHIIBBQ4B")  # no format byte: every code KL1
_REC: Final = RECORD
_NO_CARD: Final = NO_CARD
_CRC: Final = struct.Struct("<I")


class Fields(NamedTuple):
    """What a snapshot holds, read and checked one field at a time."""

    code: DealCode
    columns: list[list[int]]
    down: list[int]
    stock: list[int]
    waste: list[int]
    fan: int
    foundations: list[int]
    credited: int
    points: int
    moves: int
    recycles: int
    turned_up: int
    history: list[Record]


def encode(game: Table) -> bytes:
    """The snapshot of ``game``."""
    code = game.code
    out = bytearray(_HEAD.pack(
        MAGIC, VERSION, code.number, code.draw, code.scoring.encode(), code.format.version,
        game.points, game.moves, game.recycles, game.turned_up, game.fan, game.credited,
        *game.foundations,
    ))
    for col, down in zip(game.columns, game.down, strict=True):
        out += bytes((down, len(col)))
        out += bytes(col)
    for pile in (game.stock, game.waste):
        out.append(len(pile))
        out += bytes(pile)
    out.append(len(game.history))
    out += game.packed_history
    out += _CRC.pack(zlib.crc32(out))
    return bytes(out)


def decode(data: object) -> Fields:
    """The fields of a snapshot (``bytes``, ``bytearray`` or ``memoryview``);
    raises :class:`InvalidSnapshotError`."""
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise InvalidSnapshotError(f"not a game snapshot: {type(data).__name__} is not bytes")
    try:
        return _decode(memoryview(data))
    except InvalidSnapshotError:
        raise
    except struct.error:
        raise InvalidSnapshotError("snapshot truncated") from None
    except (IndexError, KeyError, EngineError, TypeError, UnicodeDecodeError) as exc:
        raise InvalidSnapshotError(f"not a game snapshot: {exc}") from None


def _decode(buf: memoryview) -> Fields:
    version = buf[2] if len(buf) > 2 else VERSION
    head = _HEAD_V1 if version == 1 else _HEAD
    if len(buf) < head.size + _CRC.size:
        raise InvalidSnapshotError(f"snapshot too short: {len(buf)} bytes")
    if head is _HEAD_V1:
        (magic, version, number, draw, scoring, points, moves, recycles, turned, fan,
         credited, *found) = _HEAD_V1.unpack_from(buf, 0)
        fmt = KL1.version
    else:
        (magic, version, number, draw, scoring, fmt, points, moves, recycles, turned, fan,
         credited, *found) = _HEAD.unpack_from(buf, 0)
    if magic != MAGIC or version not in (1, VERSION):
        raise InvalidSnapshotError(f"unknown snapshot format {bytes(magic)!r} v{version}")
    (crc,) = _CRC.unpack_from(buf, len(buf) - _CRC.size)
    buf = buf[:len(buf) - _CRC.size]
    if zlib.crc32(buf) != crc:
        raise InvalidSnapshotError("snapshot damaged or cut short: its checksum does not match")
    code = DealCode(number, draw, scoring.decode(), code_format(fmt))
    pos = head.size

    def take(n: int) -> list[int]:
        nonlocal pos
        if pos + n > len(buf):
            raise InvalidSnapshotError("snapshot truncated")
        chunk = list(buf[pos:pos + n])
        pos += n
        return chunk

    columns: list[list[int]] = []
    downs: list[int] = []
    for _ in range(7):
        down, size = take(2)
        if (size and down >= size) or (not size and down):
            raise InvalidSnapshotError("a column's top card must be face up")
        columns.append(take(size))
        downs.append(down)
    stock = take(take(1)[0])
    waste = take(take(1)[0])
    foundations = list(found)
    if any(f > 13 for f in foundations):
        raise InvalidSnapshotError("a foundation holds more than 13 cards")
    cards = [c for col in columns for c in col] + stock + waste
    cards += [c for suit, n in enumerate(foundations) for c in range(suit * 13, suit * 13 + n)]
    if sorted(cards) != list(range(52)):
        raise InvalidSnapshotError("the snapshot does not hold each of the 52 cards once")
    if fan > min(3, len(waste)) or credited >> 52:
        raise InvalidSnapshotError("inconsistent waste fan or credits")
    (count,) = take(1)
    if count > UNDO_LIMIT:
        raise InvalidSnapshotError(f"undo history longer than {UNDO_LIMIT}")
    history: list[Record] = []
    for _ in range(count):
        src, dst, n, r_points, r_fan, flags, card, drawn = _REC.unpack_from(buf, pos)
        pos += _REC.size
        move = BY_PARTS[(src, dst, n)]
        if flags & ~3 or drawn > 3:
            raise InvalidSnapshotError("an undo record has unknown flags")
        if (card == _NO_CARD) != (dst != FOUNDATION) or (card != _NO_CARD and card >= 52):
            raise InvalidSnapshotError("an undo record names a wrong card")
        history.append(Record(move, r_points, r_fan, bool(flags & 1),
                              -1 if card == _NO_CARD else card, bool(flags & 2), drawn,
                              bytes(buf[pos - _REC.size:pos])))
    if pos != len(buf):
        extra = len(buf) - pos
        raise InvalidSnapshotError(
            f"{extra} byte{'s' if extra > 1 else ''} after the end of the snapshot")
    return Fields(code, columns, downs, stock, waste, fan, foundations, credited, points, moves,
                  recycles, turned, history)
