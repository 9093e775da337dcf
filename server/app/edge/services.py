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
from ..ground.config import Config
from ..ground.metrics import Metrics
from ..players.player_service import Players
from ..players.ratings import Ratings
from ..rooms.lobby_hub import LobbyHub
from ..rooms.quick_races import QuickRaces
from ..rooms.room_hubs import Hubs
from ..rooms.room_service import Rooms
from ..solver.pool import SolverPool
from ..tournaments.tournament_hub import TournamentHubs
from ..tournaments.tournament_service import Tournaments
from .quotas import Quotas


@dataclass(frozen=True, slots=True, kw_only=True)
class Services:
    config: Config
    metrics: Metrics
    proc_id: str  # this process, in connection ids and heartbeats
    now_ms: Callable[[], int]  # the server's clock, ms since the epoch
    store: Store
    subscriber: Channels
    busyness: Busyness
    hubs: Hubs
    rooms: Rooms
    tournaments: Tournaments
    thubs: TournamentHubs
    quotas: Quotas
    solver: SolverPool
    players: Players
    ratings: Ratings
    lobby: LobbyHub  # the lists of public races sent to this process's lobbies
    quick: QuickRaces
    daily: DailyDeals
