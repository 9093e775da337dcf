"""The store's rankings read: a ranked room's leaderboard tick, and any
ranking (a ranked room's race, a tournament's standings) around some of its
members, a page at a time, or by nickname.

A ranking is a sorted set of five-digit members (seats or players) whose
score is the line's place (``race.ranking``), beside a hash of their lines.
"""

from __future__ import annotations

from collections.abc import Sequence

from . import keys, scripts
from .section import Section


class RankQueries(Section):
    """Ticks, places, pages and look-ups of rankings."""

    async def tick(self, room_id: str, tick: int, lines: int) -> bool:
        """Build and publish a ranked room's leaderboard tick, unless another
        process did or nothing changed."""
        r = room_id
        return bool(await self._run(scripts.TICK, [
            keys.room(r), keys.ranking(r), keys.board(r), keys.histogram(r), keys.online(r),
            keys.top(r), keys.channel(r), keys.ready(r)], [tick, lines]))

    async def latest_tick(self, room_id: str) -> bytes | None:
        """The body of the room's latest tick (JSON without its opening brace)."""
        raw = await self.call("GET", keys.top(room_id))
        return None if raw is None else bytes(raw)

    async def near(self, room_id: str, seats: Sequence[int]) -> list[bytes | None]:
        """Each seat's place, as the JSON members of a ``me`` frame's data
        (``None``: not ranked): see the ``near`` script."""
        return await self._near(keys.ranking(room_id), keys.board(room_id), seats)

    async def page(self, room_id: str, first: int, count: int) -> tuple[int, list[bytes]]:
        """How many are ranked, and the raw lines from rank ``first`` on."""
        return await self._page(keys.ranking(room_id), keys.board(room_id), first, count)

    async def find(self, room_id: str, fold: str) -> tuple[int, int, bytes | None] | None:
        """The seat with this folded nickname, its rank (0: not ranked) and line."""
        return await self._find(keys.nicknames(room_id), keys.ranking(room_id),
                                keys.board(room_id), fold)

    async def standings_near(self, tournament_id: str, players: Sequence[int]
                             ) -> list[bytes | None]:
        """A tournament's standings: each player's place, as the JSON members
        of a ``t_me`` frame's data (``None``: not ranked)."""
        t = tournament_id
        return await self._near(keys.standings_rank(t), keys.standings(t), players)

    async def standings_page(self, tournament_id: str, first: int, count: int
                             ) -> tuple[int, list[bytes]]:
        """A tournament's standings from rank ``first`` on, as stored."""
        t = tournament_id
        return await self._page(keys.standings_rank(t), keys.standings(t), first, count)

    async def standings_find(self, tournament_id: str, fold: str
                             ) -> tuple[int, int, bytes | None] | None:
        """A tournament's player by folded nickname: number, rank (0: not
        ranked, a kicked player) and standing line."""
        t = tournament_id
        return await self._find(keys.tournament_nicknames(t), keys.standings_rank(t),
                                keys.standings(t), fold)

    async def _near(self, rank: str, lines: str, members: Sequence[int]) -> list[bytes | None]:
        places = await self._run(scripts.NEAR, [rank, lines], list(members))
        return [place or None for place in places]

    async def _page(self, rank: str, lines: str, first: int, count: int
                    ) -> tuple[int, list[bytes]]:
        total, found = await self._run(scripts.PAGE, [rank, lines], [first, count])
        return int(total), [line for line in found if line]

    async def _find(self, nicknames: str, rank: str, lines: str, fold: str
                    ) -> tuple[int, int, bytes | None] | None:
        found = await self._run(scripts.FIND, [nicknames, rank, lines], [fold])
        if not found:
            return None
        return int(found[0]), int(found[1]), found[2] or None
