"""The Store: every read and write of Klondike Race's state, by meaning.

Callers never see a Redis command: they load a room, commit a room change
with the :class:`~.changes.Changes` it implies, apply a seat's game command,
register a tournament's player, and so on. Each write is one Lua script
(:mod:`.scripts`), run atomically.

The store is a facade over its sections, each a module, held by name: rooms'
documents (``store.rooms``, :mod:`.room_state`), seats' games
(``store.seats``, :mod:`.seat_state`), hashed seats (``store.seat_hashes``,
:mod:`.seat_hashes`), rankings read (``store.ranks``, :mod:`.rank_queries`),
challenges and their ghosts (``store.challenges``, :mod:`.challenge_state`),
daily deals (``store.daily``, :mod:`.daily_state`), tournaments
(``store.tournaments``, :mod:`.tournament_state`), players
(``store.players``, :mod:`.player_state`), the indexes outside them
(``store.indexes``, :mod:`.indexes`), and the public rooms' list and the
quick races (``store.lobby``, :mod:`.lobby_state`), and ratings
(``store.ratings``, :mod:`.rating_state`). A caller names the
section it means; no two sections share a namespace.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .batch import StoreUnavailable
from .challenge_state import ChallengeState
from .client import REPLICA_TIMEOUT_MS, Observer, RedisClient
from .daily_state import DailyState
from .indexes import Indexes
from .lobby_state import LobbyState
from .migrations import migrate
from .player_state import PlayerState
from .pubsub import Channels
from .rank_queries import RankQueries
from .rating_state import RatingState
from .room_state import RoomState
from .seat_hashes import SeatHashes
from .seat_state import SeatState
from .tournament_state import TournamentState


class Store:
    """Klondike Race's state in Redis, by section. Open with :meth:`open`,
    then ``close``."""

    def __init__(self, client: RedisClient, *, event_cap: int) -> None:
        self.redis = client
        self.event_cap = event_cap
        self.rooms = RoomState(client, event_cap=event_cap)
        self.seats = SeatState(client, event_cap=event_cap)
        self.seat_hashes = SeatHashes(client, event_cap=event_cap)
        self.ranks = RankQueries(client, event_cap=event_cap)
        self.challenges = ChallengeState(client, event_cap=event_cap)
        self.daily = DailyState(client, event_cap=event_cap)
        self.tournaments = TournamentState(client, event_cap=event_cap)
        self.players = PlayerState(client, event_cap=event_cap)
        self.indexes = Indexes(client, event_cap=event_cap)
        self.lobby = LobbyState(client, event_cap=event_cap)
        self.ratings = RatingState(client, event_cap=event_cap)

    @classmethod
    async def open(cls, url: str, *, cluster: bool = False, durability: str = "os",
                   lanes: int = 2, event_cap: int = 256, timeout: float = 5.0,
                   replica_timeout_ms: int = REPLICA_TIMEOUT_MS,
                   observer: Observer | None = None) -> Store:
        """A store on the Redis at ``url`` or, with ``cluster``, on the Redis
        Cluster that node belongs to (see :mod:`.client` for ``durability``;
        ``replica_timeout_ms``: how long a batch waits for its replica)."""
        client = RedisClient(url, cluster=cluster, durability=durability, lanes=lanes,
                             timeout=timeout, replica_timeout_ms=replica_timeout_ms,
                             observer=observer)
        await client.start()
        return cls(client, event_cap=event_cap)

    async def call(self, *args: Any) -> Any:
        """One command whose first argument after its name is its (first) key
        (for operations and tests; the sections say what they mean)."""
        return await self.redis.execute(args[1], *args)

    async def migrate(self) -> int:
        """Move the keys an earlier version wrote to where this one reads them
        (:mod:`.migrations`: safe to repeat, on every process); how many."""
        return await migrate(self.redis)

    async def close(self) -> None:
        await self.redis.close()

    async def ping(self) -> bool:
        try:
            return await self.redis.ping()
        except StoreUnavailable:
            return False

    def subscriber(self, on_message: Callable[[str, bytes], None],
                   on_reconnect: Callable[[], None],
                   on_fault: Callable[[str], None] | None = None) -> Channels:
        """The subscriber of room and tournament channels (call ``start``);
        ``on_fault`` hears of each exception it survived."""
        return self.redis.subscriber(on_message, on_reconnect, on_fault)
