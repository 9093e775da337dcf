"""The Store: every read and write of Klondike Race's state, by meaning.

Callers never see a Redis command: they load a room, commit a room change
with the :class:`~.changes.Changes` it implies, apply a seat's game command,
register a tournament's player, and so on. Each write is one Lua script
(:mod:`.scripts`), run atomically.

The store is one object; its methods are written in sections by concern,
each a module: rooms' documents (:mod:`.room_state`), seats' games
(:mod:`.seat_state`), hashed seats (:mod:`.seat_hashes`), rankings read
(:mod:`.rank_queries`), challenges and their ghosts (:mod:`.challenge_state`),
daily deals (:mod:`.daily_state`), tournaments (:mod:`.tournament_state`),
players (:mod:`.player_state`), the indexes outside them (:mod:`.indexes`), and the public rooms' list and the
quick races (:mod:`.public_rooms`).
"""

from __future__ import annotations

from collections.abc import Callable

from .batch import StoreUnavailable
from .challenge_state import ChallengeState
from .client import REPLICA_TIMEOUT_MS, Observer, RedisClient
from .daily_state import DailyState
from .indexes import Indexes
from .player_state import PlayerState
from .public_rooms import PublicRooms
from .pubsub import Channels
from .rank_queries import RankQueries
from .room_state import RoomState
from .seat_hashes import SeatHashes
from .seat_state import SeatState
from .tournament_state import TournamentState


class Store(RoomState, SeatState, SeatHashes, RankQueries, ChallengeState, DailyState,
            TournamentState, PlayerState, Indexes, PublicRooms):
    """Klondike Race's state in Redis. Open with :meth:`open`, then ``close``."""

    def __init__(self, client: RedisClient, *, event_cap: int) -> None:
        self.redis = client
        self.event_cap = event_cap
        self._run = client.run
        self._open_indexes()

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
