"""A compact binary snapshot of a whole game, undo history included.

Layout (little endian), version 1::

    b"KG" version:u8  number:u64 draw:u8 scoring:u8
    points:u16 moves:u32 recycles:u32 turned_up:u8 fan:u8 credited:u64
    foundations:4×u8
    7 × (down:u8 size:u8 cards:size×u8)          columns, bottom card first
    size:u8 cards                                  stock, top card last
    size:u8 cards                                  waste, top card last
    size:u8 size × record                          undo history, oldest first
    crc:u32                                        CRC-32 of everything before it
    record = source:u8 target:u8 count:u8 points:u16 fan:u8 flags:u8 card:u8 drawn:u8

A game of any length fits in about 1 KiB. :func:`decode` checks the checksum
and everything it reads, and raises :class:`InvalidSnapshotError` rather than
build a broken game (a damaged snapshot that happened to parse could fail
later, on an undo).
"""

from __future__ import annotations

import struct
import zlib
from collections import deque
from typing import Final

from .codes import DealCode
from .errors import EngineError, InvalidSnapshotError
from .game import RECORD, UNDO_LIMIT, Game, Record
from .moves import BY_PARTS, FOUNDATION

MAGIC: Final = b"KG"
VERSION: Final = 1
_HEAD: Final = struct.Struct("<2sBQBcHIIBBQ4B")
_REC: Final = RECORD
_NO_CARD: Final = 255
_CRC: Final = struct.Struct("<I")


def encode(game: Game) -> bytes:
    """The snapshot of ``game``."""
    code = game.code
    out = bytearray(_HEAD.pack(
        MAGIC, VERSION, code.number, code.draw, code.scoring.encode(),
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


def decode(data: bytes) -> Game:
    """The game a snapshot describes."""
    try:
        return _decode(memoryview(data))
    except InvalidSnapshotError:
        raise
    except struct.error:
        raise InvalidSnapshotError("snapshot truncated") from None
    except (IndexError, KeyError, EngineError, TypeError, UnicodeDecodeError) as exc:
        raise InvalidSnapshotError(f"not a game snapshot: {exc}") from None


def _decode(buf: memoryview) -> Game:
    if len(buf) < _HEAD.size + _CRC.size:
        raise InvalidSnapshotError(f"snapshot too short: {len(buf)} bytes")
    (magic, version, number, draw, scoring, points, moves, recycles, turned, fan,
     credited, *found) = _HEAD.unpack_from(buf, 0)
    if magic != MAGIC or version != VERSION:
        raise InvalidSnapshotError(f"unknown snapshot format {bytes(magic)!r} v{version}")
    (crc,) = _CRC.unpack_from(buf, len(buf) - _CRC.size)
    buf = buf[:len(buf) - _CRC.size]
    if zlib.crc32(buf) != crc:
        raise InvalidSnapshotError("snapshot damaged or cut short: its checksum does not match")
    game = Game.__new__(Game)
    game._start(DealCode(number, draw, scoring.decode()))
    pos = _HEAD.size

    def take(n: int) -> list[int]:
        nonlocal pos
        if pos + n > len(buf):
            raise InvalidSnapshotError("snapshot truncated")
        chunk = list(buf[pos:pos + n])
        pos += n
        return chunk

    game.columns, game.down = [], []
    for _ in range(7):
        down, size = take(2)
        if (size and down >= size) or (not size and down):
            raise InvalidSnapshotError("a column's top card must be face up")
        game.columns.append(take(size))
        game.down.append(down)
    game.stock = take(take(1)[0])
    game.waste = take(take(1)[0])
    game.foundations = list(found)
    if any(f > 13 for f in found):
        raise InvalidSnapshotError("a foundation holds more than 13 cards")
    if sorted(game.cards()) != list(range(52)):
        raise InvalidSnapshotError("the snapshot does not hold each of the 52 cards once")
    if fan > min(3, len(game.waste)) or credited >> 52:
        raise InvalidSnapshotError("inconsistent waste fan or credits")
    (count,) = take(1)
    if count > UNDO_LIMIT:
        raise InvalidSnapshotError(f"undo history longer than {UNDO_LIMIT}")
    history: deque[Record] = deque(maxlen=UNDO_LIMIT)
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
    game.history = history
    game.packed_history = bytearray(b"".join(r.packed for r in history))
    game.points, game.moves, game.recycles = points, moves, recycles
    game.turned_up, game.fan, game.credited = turned, fan, credited
    return game
