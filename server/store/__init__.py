"""The only package that talks to Redis. See :mod:`.keys` for the data model."""

from .batch import StoreUnavailable
from .big_tournaments import BigTournamentStore, PlayerOf, Registered
from .pubsub import Subscriber
from .store import (
    Applied,
    Changes,
    Committed,
    Joined,
    Left,
    Ranked,
    RoomData,
    SeatData,
    SeatKeys,
    Store,
    TournamentData,
    event_body,
)

__all__ = ["Applied", "BigTournamentStore", "Changes", "Committed", "Joined", "Left", "Near",
           "PlayerOf", "Ranked", "Registered", "RoomData", "SeatData", "SeatKeys", "Store",
           "StoreUnavailable", "Subscriber", "TournamentData", "event_body"]
