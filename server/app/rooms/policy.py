"""What differs between rooms: one object, chosen from the room's settings
when it is created (:func:`policy_for`; settings never change), so that no
room command, hub or connection asks which kind of room it is in. A policy
says where the seats live (a room of a few, or of thousands) and when a
player's clock starts (a live race, or a challenge open for a window).

============  =================================  ===================================
              a room of a few (``few``)          a room of thousands (``many``)
============  =================================  ===================================
seats         in its document (``DocumentSeats``) in Redis hashes (``HashedSeats``)
a move        the room's next event              a line's score in a sorted set
leaderboard   every line, live (``LiveBoard``)   top lines and your place by ticks
                                                 (``Ticker``)
============  =================================  ===================================

============  =================================  ===================================
              a live race (``RACE``)             a challenge (``CHALLENGE``)
============  =================================  ===================================
clocks        one start, by the host             each player's own, when they begin
the end       everyone done, or the deadline     the window's close
ghosts        none                               each player sees those who played
============  =================================  ===================================

(:mod:`.starts`; its pure half is :mod:`server.race.clocks`.) Everything else
(the rules, the refereeing, the secrets, one atomic call per move, the room's
phases and events) is the same for all four.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from ...race import Settings
from ...race.clocks import OWN, clock_for
from ...race.seating import COUNTED, LISTED, Seating, seating_for
from .document_seats import DocumentSeats
from .hashed_seats import HashedSeats
from .live_board import LiveBoard
from .starts import CHALLENGE, RACE, Starts
from .ticker import Ticker


@dataclass(frozen=True, slots=True)
class RoomPolicy:
    name: str
    seating: Seating  # where the room's document keeps its seats (server.race.seating)
    seats: DocumentSeats | HashedSeats  # the commands on its seats
    board: type[LiveBoard] | type[Ticker]  # how its leaderboard travels (a hub has one)
    start: Starts  # when a player's clock starts (.starts)


FEW: Final = RoomPolicy("few", LISTED, DocumentSeats(), LiveBoard, RACE)
MANY: Final = RoomPolicy("many", COUNTED, HashedSeats(), Ticker, RACE)
FEW_CHALLENGE: Final = RoomPolicy("few challenge", LISTED, DocumentSeats(), LiveBoard, CHALLENGE)
MANY_CHALLENGE: Final = RoomPolicy("many challenge", COUNTED, HashedSeats(), Ticker, CHALLENGE)


def policy_for(settings: Settings) -> RoomPolicy:
    """The policy of a room with these settings.

    >>> policy_for(Settings()).name, policy_for(Settings(max_players=500)).name
    ('few', 'many')
    >>> policy_for(Settings(window=3600)).name, policy_for(Settings(max_players=500, window=3600)).name
    ('few challenge', 'many challenge')
    """
    few = seating_for(settings) is not COUNTED
    if clock_for(settings) is OWN:
        return FEW_CHALLENGE if few else MANY_CHALLENGE
    return FEW if few else MANY
