"""What a connection's commands may use: the process's shared services.

Built once by the root (:class:`~server.app.root.lifespan.App`) when it starts, and handed to
every connection. The services below it (rooms, hubs, tournaments) know
nothing of connections; connections reach them only through this object.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ...store import Channels, Store
from ..daily.daily_service import DailyDeals
from ..ground.busyness import Busyness
from ..ground.metrics import Metrics
from ..players.player_service import Players
from ..players.ratings import Ratings
from ..rooms.lobby_hub import LobbyHub
from ..rooms.quick_races import QuickRaces
from ..rooms.room_hubs import RoomHubs
from ..rooms.room_service import Rooms
from ..solver.pool import SolverPool
from ..tournaments.tournament_hub import TournamentHubs
from ..tournaments.tournament_service import Tournaments
from .quotas import Quotas


@dataclass(frozen=True, slots=True, kw_only=True)
class ConnectionConfig:
    """What a connection reads of the options (the root builds it)."""

    msg_rate: float  # messages a second (the credit's refill)
    msg_burst: int  # messages in a burst
    ping_rate: float  # free pings a second
    ping_burst: int  # free pings in a burst
    slow_buffer: int  # bytes queued before a socket counts as behind
    slow_grace: float  # s a socket may stay behind
    max_frame: int  # the largest frame taken (0: the protocol's)


@dataclass(frozen=True, slots=True, kw_only=True)
class Services:
    config: ConnectionConfig  # what a connection reads of the options
    metrics: Metrics
    proc_id: str  # this process, in connection ids and heartbeats
    now_ms: Callable[[], int]  # the server's clock, ms since the epoch
    store: Store
    subscriber: Channels
    busyness: Busyness
    room_hubs: RoomHubs
    rooms: Rooms
    tournaments: Tournaments
    tournament_hubs: TournamentHubs
    quotas: Quotas
    solver: SolverPool
    players: Players
    ratings: Ratings
    lobby: LobbyHub  # the lists of public races sent to this process's lobbies
    quick: QuickRaces
    daily: DailyDeals
