"""The only package that talks to Redis. See :mod:`.keys` for the data model,
:mod:`.client` for one Redis or a Redis Cluster and the durability modes."""

from .batch import StoreUnavailable
from .client import DURABILITIES, Observer
from .pubsub import Channels, Subscriber
from .store import (
    Applied,
    Changes,
    Committed,
    Joined,
    Left,
    Near,
    Ranked,
    RoomData,
    SeatData,
    SeatKeys,
    Store,
    event_body,
)

__all__ = ["DURABILITIES", "Applied", "Changes", "Channels", "Committed", "Joined", "Left", "Near",
           "Observer", "Ranked", "RoomData",
           "SeatData", "SeatKeys", "Store", "StoreUnavailable", "Subscriber", "event_body"]
