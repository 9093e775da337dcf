"""The only package that talks to Redis. See :mod:`.keys` for the data model,
:mod:`.client` for one Redis or a Redis Cluster and the durability modes."""

from .batch import StoreUnavailable
from .big_tournaments import BigTournamentStore, PlayerOf, Registered
from .client import DURABILITIES, Observer
from .pubsub import Channels, Subscriber
from .store import (
    Applied,
    Changes,
    Committed,
    Creation,
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

__all__ = ["DURABILITIES", "Applied", "BigTournamentStore", "Changes", "Channels", "Committed",
           "Creation", "Joined", "Left", "Near", "Observer", "PlayerOf", "Ranked", "Registered", "RoomData",
           "SeatData", "SeatKeys", "Store", "StoreUnavailable", "Subscriber", "TournamentData",
           "event_body"]
