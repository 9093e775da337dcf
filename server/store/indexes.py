"""The store's indexes outside rooms and tournaments: deadlines, the live
documents counted against the caps, creations per address, the certified
winnable deals ready to be dealt, and the processes' heartbeats.

On a Redis Cluster each deadline and live index is split into shards on
evenly spaced slots (:func:`.keys.shards`), so that no master is its hot spot.
"""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import Iterable

from . import keys, scripts
from .section import Section


class Indexes(Section):
    """Deadlines, caps, winnable deals and heartbeats."""

    _due: tuple[str, ...]
    _tournaments_due: tuple[str, ...]
    _live: dict[str, tuple[str, ...]]

    def _index(self, name: str) -> tuple[str, ...]:
        """An index's keys: one, or its shards."""
        return keys.shards(name) if self.redis.sharded else (name,)

    def _open_indexes(self) -> None:
        self._due = self._index(keys.DUE)
        self._tournaments_due = self._index(keys.TOURNAMENTS_DUE)
        self._live = {"room": self._index(keys.LIVE_ROOMS),
                      "tournament": self._index(keys.LIVE_TOURNAMENTS)}

    # ------------------------------------------------------------------ deadlines

    async def due_add(self, room_id: str, at_ms: int) -> None:
        await self.call("ZADD", keys.shard_of(room_id, self._due), at_ms, room_id)

    async def due_remove(self, room_id: str) -> None:
        await self.call("ZREM", keys.shard_of(room_id, self._due), room_id)

    async def claim_due(self, now_ms: int, *, lease_ms: int = 10_000, limit: int = 20) -> list[str]:
        """Rooms whose deadline has passed, each leased to this caller for a
        while (up to ``limit`` of each shard of the index)."""
        return await self._claim(self._due, now_ms, lease_ms, limit)

    async def tournament_due_add(self, tournament_id: str, at_ms: int) -> None:
        """Have the sweepers look at a tournament from ``at_ms`` on (a round it starts)."""
        await self.call("ZADD", keys.shard_of(tournament_id, self._tournaments_due), at_ms,
                        tournament_id)

    async def tournament_due_remove(self, tournament_id: str) -> None:
        await self.call("ZREM", keys.shard_of(tournament_id, self._tournaments_due), tournament_id)

    async def claim_due_tournaments(self, now_ms: int, *, lease_ms: int = 10_000,
                                    limit: int = 20) -> list[str]:
        """Tournaments due a look, each leased to this caller for a while (up
        to ``limit`` of each shard of the index)."""
        return await self._claim(self._tournaments_due, now_ms, lease_ms, limit)

    async def _claim(self, index: tuple[str, ...], now_ms: int, lease_ms: int,
                     limit: int) -> list[str]:
        shards = await asyncio.gather(*(self._run(scripts.CLAIM_DUE, [key], [now_ms, lease_ms, limit])
                                        for key in index))
        return [i.decode() for ids in shards for i in ids]

    # ------------------------------------------------------------------ caps

    async def count_creation(self, address: str, kind: str, now_ms: int) -> tuple[int, int]:
        """One more creation from ``address`` (how many in the last minute,
        this one included) and how many documents of ``kind`` (``room`` or
        ``tournament``) are live. Two scripts, in different slots on a
        cluster (one round trip on one Redis: they are sent together)."""
        made, *counts = await asyncio.gather(
            self._run(scripts.CREATION, [keys.creations(address)],
                      [now_ms, 60_000, secrets.token_hex(8)]),
            *(self._run(scripts.LIVE_COUNT, [key], [now_ms]) for key in self._live[kind]))
        return int(made), sum(int(c) for c in counts)

    async def live_add(self, kind: str, ident: str, until_ms: int) -> None:
        """A document of ``kind`` counts as live until ``until_ms``."""
        await self.call("ZADD", keys.shard_of(ident, self._live[kind]), until_ms, ident)

    async def hold_challenge(self, address: str, now_ms: int, until_ms: int,
                             cap: int) -> str | None:
        """A place among the challenges open from ``address`` until
        ``until_ms`` (its id), or ``None`` when it holds ``cap`` already."""
        place = secrets.token_hex(8)
        held = await self._run(scripts.HOLD, [keys.challenges(address)],
                               [now_ms, until_ms, cap, place])
        return place if held else None

    async def drop_challenge(self, address: str, place: str) -> None:
        """Give back a place :meth:`hold_challenge` kept (the challenge was not made)."""
        await self.call("ZREM", keys.challenges(address), place)

    # ------------------------------------------------------------------ winnable deals

    async def winnable_count(self, mode: str) -> int:
        """How many certified winnable codes of ``mode`` are ready."""
        return int(await self.call("SCARD", keys.winnable(mode)))

    async def winnable_add(self, mode: str, code: str) -> None:
        await self.call("SADD", keys.winnable(mode), code)

    async def winnable_forget_kl1(self, modes: Iterable[str]) -> None:
        """Delete the sets of winnable KL1 codes kept before KL2 (never dealt now)."""
        for mode in modes:
            await self.call("DEL", keys.winnable_kl1(mode))

    async def winnable_take(self, mode: str, count: int = 1) -> list[str]:
        """Up to ``count`` ready codes of ``mode``, each taken out (``SPOP``:
        atomic, so no code is dealt twice), at random among those ready."""
        taken = await self.call("SPOP", keys.winnable(mode), count)
        return [c.decode() if isinstance(c, bytes) else str(c) for c in taken or []]

    # ------------------------------------------------------------------ processes

    async def alive(self, proc_ids: Iterable[str]) -> set[str]:
        """Which of these server processes still beat."""
        ids = list(proc_ids)
        found = await asyncio.gather(*(self.call("EXISTS", keys.proc(p)) for p in ids))
        return {p for p, n in zip(ids, found, strict=True) if n}

    async def heartbeat(self, proc_id: str, ttl_ms: int) -> None:
        await self.call("SET", keys.proc(proc_id), 1, "PX", ttl_ms)

    async def forget(self, proc_id: str) -> None:
        await self.call("DEL", keys.proc(proc_id))
