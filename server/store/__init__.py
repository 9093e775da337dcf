"""The only package that talks to Redis. See :mod:`.keys` for the data model."""

from .batch import StoreUnavailable
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
    event_body,
)

__all__ = ["Applied", "Changes", "Committed", "Joined", "Left", "Ranked", "RoomData",
           "SeatData", "SeatKeys", "Store", "StoreUnavailable", "Subscriber", "event_body"]
