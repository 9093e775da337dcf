"""The only package that talks to Redis. See :mod:`.keys` for the data model,
:mod:`.client` for one Redis or a Redis Cluster and the durability modes,
:mod:`.store` for the one object every caller uses."""

from .batch import StoreUnavailable
from .challenge_state import GhostRecord, Over
from .changes import Changes
from .client import DURABILITIES, Observer
from .documents import Committed, event_body
from .indexes import Creation
from .player_state import Claimed
from .pubsub import Channels, Subscriber
from .room_state import RoomData
from .seat_hashes import Joined, Left
from .seat_state import Applied, Ranked, SeatCommand, SeatData, game_after
from .store import Store
from .tournament_state import PlayerOf, Registered, TournamentData

__all__ = ["DURABILITIES", "Applied", "Changes", "Channels", "Claimed", "Committed", "Creation",
           "GhostRecord", "Joined", "Left", "Observer", "Over", "PlayerOf", "Ranked", "Registered",
           "RoomData", "SeatCommand", "SeatData", "Store", "StoreUnavailable", "Subscriber",
           "TournamentData", "event_body", "game_after"]
