"""Players: a key kept by the browser, a profile kept by the server.

A connection says which player it is with ``identify`` (the handlers:
:mod:`server.app.handlers.player_commands`); from then on ``conn.player_id``
names the player (``""``: none, as for every connection that never
identifies, which works as before). What the other services use:

- :meth:`Players.record_result` takes a :class:`~server.race.profile.GameResult`
  into a player's history and totals; recording the same ``ref`` again
  replaces it (a code once public, a final place), never counts it twice;
- :meth:`Players.link_seat` says which player a room's seat counts for;
  every race that ends records its linked seats' results by itself
  (:meth:`Players.race_over`, called by the rooms once a race has ended);
- :meth:`Players.nicknames` names players by id, a forgotten one as
  :data:`~server.race.profile.FORMER_PLAYER`.

Keys are bearer secrets: 144 random bits (``new_token``), stored only as
their SHA-256 digests (:mod:`server.race.tokens`), like seat tokens. A
profile is named in addresses by a public id of its own (10 characters of
the ids' alphabet, drawn at random, not derived from any key).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, Final

import structlog

from ...protocol import Reason
from ...race import RaceError, Room
from ...race.names import check_nickname
from ...race.profile import FORMER_PLAYER, HISTORY_CAP, GameResult, public_profile
from ...race.tokens import code_text, hash_token
from ...store import Store, StoreUnavailable
from ..ground.config import Config
from ..ground.health import Health
from ..rooms.ids import ID_ALPHABET, new_code, new_token
from ..rooms.room_plans import RoomWork
from .race_results import race_results

log = structlog.get_logger("app.players.player_service")

PLAYER_ID_LENGTH: Final = 10
MOVE_CODE_LENGTH: Final = 10
MOVE_MS: Final = 10 * 60 * 1000  # how long a device-move code is valid
MAX_KEYS: Final = 10  # devices a player is on at once: the oldest key goes beyond
NEW_PLAYER_NICKNAME: Final = "player"
_HOUR_MS: Final = 3_600_000
_MINUTE_MS: Final = 60_000
_RECORDING: Final = 100  # results recorded at once when a race ends


@dataclass(frozen=True, slots=True)
class Identity:
    """A player a connection is: the public id and the nickname."""

    id: str
    nickname: str


def is_player_id(text: str) -> bool:
    return len(text) == PLAYER_ID_LENGTH and all(ch in ID_ALPHABET for ch in text)


class Players:
    """Players' keys, profiles and results (see the module's docstring)."""

    def __init__(self, store: Store, rooms: RoomWork, config: Config,
                 now_ms: Callable[[], int], health: Health) -> None:
        self.store = store
        self.rooms = rooms
        self.config = config
        self.now_ms = now_ms
        self.health = health

    @property
    def ttl_ms(self) -> int:
        """How long a profile is kept untouched (``--player-ttl``)."""
        return self.config.player_ttl * 1000

    # ------------------------------------------------------------------ keys

    async def identify(self, key: str) -> Identity | None:
        """The player whose key this is (``None``: nobody's now)."""
        found = await self.store.players.identify_player(hash_token(key), now_ms=self.now_ms(),
                                                 ttl_ms=self.ttl_ms)
        return None if found is None else Identity(*found)

    async def create(self, nickname: str | None, address: str) -> tuple[Identity, str]:
        """A new player and their key (``too_many`` past ``--players-per-hour``
        from one address; ``server_full`` while Redis is nearly full)."""
        name = NEW_PLAYER_NICKNAME if nickname is None else check_nickname(nickname)
        self.health.creation("player")
        cap = self.config.players_per_hour
        counted = await self.store.players.count_new_player(address, now_ms=self.now_ms(),
                                                            window_ms=_HOUR_MS, cap=cap)
        self._cap(counted, cap, "new players an hour", address)
        key = new_token()
        for _ in range(10):
            player_id = new_code(PLAYER_ID_LENGTH)
            if await self.store.players.create_player(player_id, name, hash_token(key),
                                              now_ms=self.now_ms(), ttl_ms=self.ttl_ms):
                log.info("player_created", player=player_id)
                return Identity(player_id, name), key
        raise StoreUnavailable("could not find a free player id")

    @staticmethod
    def _cap(counted: tuple[int, bool], cap: int, what: str, address: str) -> None:
        """Refuse what the address's window did not count (it holds ``cap``
        already: the refusal stored nothing); say so once, when the window
        fills."""
        held, added = counted
        if added and held == cap:
            log.warning("player_attempts_capped", what=what, cap=cap, address=address)
        if not added:
            raise RaceError(Reason.TOO_MANY, f"at most {cap} {what} from one address: "
                                             "wait a little")

    async def rename(self, player_id: str, nickname: str) -> Identity:
        name = check_nickname(nickname)
        if not await self.store.players.rename_player(player_id, name):
            raise RaceError(Reason.UNKNOWN_PLAYER)
        return Identity(player_id, name)

    async def offer_move(self, player_id: str) -> tuple[str, int]:
        """A one-time code that moves the player to another device, and
        until when it is valid; a new one replaces the last."""
        code = new_code(MOVE_CODE_LENGTH)
        until = self.now_ms() + MOVE_MS
        if not await self.store.players.offer_move(player_id, hash_token(code), until_ms=until,
                                           ttl_ms=MOVE_MS):
            raise RaceError(Reason.UNKNOWN_PLAYER)
        log.info("player_move_offered", player=player_id)
        return code, until

    async def claim(self, code: str, address: str) -> tuple[Identity, str]:
        """This device becomes the player of a device-move code: their new
        key (``bad_handoff`` for a code wrong, used or expired; ``too_many``
        past ``--claims-per-minute`` tries from one address)."""
        cap = self.config.claims_per_minute
        counted = await self.store.players.count_claim(address, now_ms=self.now_ms(),
                                                       window_ms=_MINUTE_MS, cap=cap)
        self._cap(counted, cap, "device codes tried a minute", address)
        key = new_token()
        claimed = await self.store.players.claim_move(
            hash_token(code_text(code)), hash_token(key), now_ms=self.now_ms(),
            max_keys=MAX_KEYS, ttl_ms=self.ttl_ms)
        if claimed is None:
            raise RaceError(Reason.BAD_HANDOFF, "that code is not valid: it is wrong, used or "
                                                "expired")
        log.info("player_moved", player=claimed.player)
        return Identity(claimed.player, claimed.nickname), key

    async def forget(self, player_id: str) -> None:
        """Delete the player: profile, keys, history. Their results stay in
        the rooms and tournaments they played, under the nickname they had
        there; what names players by their profile names them
        :data:`~server.race.profile.FORMER_PLAYER` from now on."""
        await self.store.players.forget_player(player_id)
        log.info("player_forgotten", player=player_id)

    # ------------------------------------------------------------------ reading

    async def made_at(self, player_id: str) -> int | None:
        """When the player was made (server ms: their first key's time; ``None``: no such player)."""
        fields = await self.store.players.player_fields(player_id)
        if fields is None:
            return None
        return min((int(v) for k, v in fields.items() if k.startswith("k:")), default=None)

    async def public(self, player_id: str) -> dict[str, Any] | None:
        """What anyone may see of a player (``None``: no such player)."""
        if not is_player_id(player_id):
            return None
        fields = await self.store.players.player_fields(player_id)
        if fields is None:
            return None
        return public_profile(player_id, fields, today=self.now_ms() // 86_400_000)

    async def history(self, player_id: str, first: int, count: int
                      ) -> tuple[int, list[GameResult]]:
        """How many results the player's history holds and a page of them
        (newest first)."""
        return await self.store.players.player_history(player_id, first, count)

    async def nicknames(self, player_ids: Iterable[str]) -> dict[str, str]:
        """Each player's nickname; a player forgotten (or expired) is
        :data:`~server.race.profile.FORMER_PLAYER`."""
        ids = list(dict.fromkeys(player_ids))
        found = await asyncio.gather(*(self.store.players.player_nickname(p) for p in ids))
        return {p: name or FORMER_PLAYER for p, name in zip(ids, found, strict=True)}

    # ------------------------------------------------------------------ results

    async def record_result(self, player_id: str, result: GameResult) -> str:
        """Record a game in the player's history and totals: ``new``,
        ``replaced`` (its ``ref`` was recorded before: the entry is replaced,
        the game counted once) or ``gone`` (no such player: nothing kept)."""
        return await self.store.players.record_result(player_id, result, cap=HISTORY_CAP,
                                              ttl_ms=self.ttl_ms)

    async def link_seat(self, room_id: str, seat: int, player_id: str) -> None:
        """The seat's results count for this player, unless they count for
        another already (the first player who held it, on any device)."""
        await self.store.players.link_seat(room_id, seat, player_id)

    async def race_over(self, room: Room) -> None:
        """A room's race has ended (called again for a room already ended:
        recorded once): each seat linked to a player records its result.
        Redis's trouble goes up (the room stays in the sweepers' index, and
        a sweeper calls this again); anything else is logged, never in the
        way of the race's end."""
        if room.phase != "ended":
            return
        try:
            seats, recorded = await self.store.players.seat_players(room.id)
            if not seats or recorded >= room.race:
                return
            results = await race_results(self.rooms, room, seats)
            for start in range(0, len(results), _RECORDING):
                await asyncio.gather(*(self.record_result(player, result)
                                       for player, result in results[start:start + _RECORDING]))
            await self.store.players.seat_players_recorded(room.id, room.race)
        except StoreUnavailable:
            raise
        except Exception:
            log.exception("race_results_failed", room=room.id, race=room.race)
            return
        log.info("race_results_recorded", room=room.id, race=room.race, players=len(results))
