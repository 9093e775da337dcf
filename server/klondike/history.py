"""The undo history: one compact record per move, as games and snapshots keep it.

A record holds what undoing its move needs beyond the move itself (the score
before it, the draw-three fan, whether it turned a card up, which card it put
on a foundation and whether that earned the card's first-time credit, how many
cards a draw turned), and the same record packed as a snapshot stores it.
"""

from __future__ import annotations

import struct
from typing import Final, NamedTuple

from .moves import Move

#: How many moves a game can take back.
UNDO_LIMIT: Final = 100

#: A record as a snapshot stores it: source, target, count, points, fan,
#: flags (1 flipped, 2 credited), card (255: none), cards drawn.
RECORD: Final = struct.Struct("<BBBHBBBB")
NO_CARD: Final = 255
_pack_record = RECORD.pack


class Record(NamedTuple):
    """What undoing one move needs beyond the move itself. ``packed`` is the
    record as a snapshot stores it, made once so that a snapshot after every
    move does not pack the whole history again."""

    move: Move
    points: int  # Normal points before the move
    fan: int  # draw-three fan before the move
    flipped: bool  # the move turned a face-down card up
    card: int  # the card a foundation move placed, or -1
    credited: bool  # that card earned its first-time credit with this move
    drawn: int  # cards turned by a draw
    packed: bytes


def make_record(move: Move, points: int, fan: int, flipped: bool, card: int, credited: bool,
                drawn: int) -> Record:
    flags = (1 if flipped else 0) | (2 if credited else 0)
    packed = _pack_record(move.source, move.target, move.count, points, fan, flags,
                          NO_CARD if card < 0 else card, drawn)
    return Record(move, points, fan, flipped, card, credited, drawn, packed)
