"""What differs between a room of a few and a room of thousands: one object,
chosen from the room's settings when it is created (:func:`policy_for`;
settings never change), so that no room command, hub or connection asks
which kind of room it is in.

============  =================================  ===================================
              a room of a few (:data:`FEW`)      a room of thousands (:data:`MANY`)
============  =================================  ===================================
seats         in its document (``DocumentSeats``) in Redis hashes (``HashedSeats``)
a move        the room's next event              a line's score in a sorted set
leaderboard   every line, live (``LiveBoard``)   top lines and your place by ticks
                                                 (``Ticker``)
============  =================================  ===================================

Everything else (the rules, the refereeing, the secrets, one atomic call
per move, the room's phases and events) is the same for both.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from ...race import Settings
from ...race.seating import COUNTED, LISTED, Seating, seating_for
from .document_seats import DocumentSeats
from .hashed_seats import HashedSeats
from .live_board import LiveBoard
from .ticker import Ticker


@dataclass(frozen=True, slots=True)
class RoomPolicy:
    name: str
    seating: Seating  # where the room's document keeps its seats (server.race.seating)
    seats: DocumentSeats | HashedSeats  # the commands on its seats
    board: type[LiveBoard] | type[Ticker]  # how its leaderboard travels (a hub has one)


FEW: Final = RoomPolicy("few", LISTED, DocumentSeats(), LiveBoard)
MANY: Final = RoomPolicy("many", COUNTED, HashedSeats(), Ticker)


def policy_for(settings: Settings) -> RoomPolicy:
    """The policy of a room with these settings.

    >>> policy_for(Settings()).name, policy_for(Settings(max_players=500)).name
    ('few', 'many')
    """
    return MANY if seating_for(settings) is COUNTED else FEW
