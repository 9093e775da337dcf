"""The store's indexes outside rooms and tournaments: deadlines, the places
held under the caps (in all and per address), creations, registrations and
wrong invite codes per address, the certified winnable deals ready to be
dealt, and the processes' heartbeats.

On a Redis Cluster each deadline and live index is split into shards on
evenly spaced slots (:func:`.keys.shards`), so that no master is its hot spot.
"""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import Iterable
from dataclasses import dataclass

from . import keys, scripts
from .client import RedisClient
from .section import Section


@dataclass(frozen=True, slots=True)
class Creation:
    """The outcome of :meth:`Indexes.count_creation`."""

    made: int  # creations from the address in the last minute, this one included
    held: int  # places its creations of the kind hold now
    live: int  # places held in all
    reservation: str | None  # the place kept for this creation (None: the address may not)


def _document(kind: str, ident: str) -> str:
    """The hash of a room or a tournament (where its maker's address is kept)."""
    return keys.room(ident) if kind == "room" else keys.tournament(ident)


class Indexes(Section):
    """Deadlines, caps, winnable deals and heartbeats."""

    def __init__(self, client: RedisClient, *, event_cap: int) -> None:
        super().__init__(client, event_cap=event_cap)
        self._due = self._index(keys.DUE)
        self._tournaments_due = self._index(keys.TOURNAMENTS_DUE)
        self._live = {"room": self._index(keys.LIVE_ROOMS),
                      "tournament": self._index(keys.LIVE_TOURNAMENTS)}

    def _index(self, name: str) -> tuple[str, ...]:
        """An index's keys: one, or its shards."""
        return keys.shards(name) if self.redis.sharded else (name,)

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

    async def count_creation(self, address: str, kind: str, now_ms: int, *, rate: int,
                             share: int) -> Creation:
        """One more creation from ``address`` (how many in the last minute,
        this one included), the places its ``kind`` (``room`` or
        ``tournament``) hold, and how many of that kind hold one in all; a
        place kept for this creation if the address is under ``rate`` and
        ``share`` (see the ``creation`` script). Scripts in different slots
        on a cluster (one round trip on one Redis: they are sent together)."""
        token = "new:" + secrets.token_hex(8)
        (made, held, kept), *counts = await asyncio.gather(
            self._run(scripts.CREATION, [keys.creations(address), keys.held(address, kind)],
                      [now_ms, 60_000, token, rate, share]),
            *(self._run(scripts.LIVE_COUNT, [key], [now_ms]) for key in self._live[kind]))
        return Creation(int(made), int(held), sum(int(c) for c in counts),
                        token if kept else None)

    async def hold_place(self, kind: str, ident: str, address: str, until_ms: int,
                         reservation: str | None = None) -> None:
        """A room or tournament (``kind``) made from ``address`` holds a place
        until ``until_ms``: in all, under its address's share (instead of
        the ``reservation`` its creation kept), and its document remembers
        the address (:meth:`renew_place`)."""
        await asyncio.gather(
            self.call("ZADD", keys.shard_of(ident, self._live[kind]), "GT", until_ms, ident),
            self._run(scripts.HOLD, [keys.held(address, kind)],
                      [ident, until_ms, reservation or "", "", ""]),
            self._run(scripts.MADE_BY, [_document(kind, ident)], [address]))

    async def drop_reservation(self, kind: str, address: str, reservation: str) -> None:
        """Give back the place a creation kept that was not made after all
        (and, for a room or a tournament, its count in the address's rate:
        a refused or failed creation stores nothing)."""
        if kind == "challenge":
            await self.call("ZREM", keys.held(address, kind), reservation)
            return
        await asyncio.gather(self.call("ZREM", keys.held(address, kind), reservation),
                             self.call("ZREM", keys.creations(address), reservation))

    async def renew_place(self, kind: str, ident: str, until_ms: int) -> None:
        """Someone joined a room (or registered in a tournament): its place is
        held until ``until_ms`` (never less than it was), in all and under the
        address it was made from."""
        address = await self.call("HGET", _document(kind, ident), "by")
        if address is None:  # not made by a player (a round's room), or gone
            return
        await asyncio.gather(
            self.call("ZADD", keys.shard_of(ident, self._live[kind]), "GT", until_ms, ident),
            self._run(scripts.HOLD, [keys.held(address.decode(), kind)],
                      [ident, until_ms, "", "", ""]))

    async def count_registration(self, address: str, now_ms: int, cap: int) -> tuple[int, bool]:
        """One more registration from ``address`` unless the last minute holds
        ``cap``: how many it holds, and whether this one was counted."""
        return await self._window(keys.registrations(address), now_ms, 60_000, cap)

    async def invite_guesses(self, address: str, tournament_id: str, now_ms: int,
                             window_ms: int, *, wrong: tuple[int, int] | None = None
                             ) -> tuple[int, int]:
        """Wrong invite codes in the last ``window_ms`` from ``address`` and at
        a tournament; with ``wrong`` (the most each may hold), one more of
        each that is under its most."""
        by_address, by_tournament = wrong or (0, 0)
        (from_address, _), (at_tournament, _) = await asyncio.gather(
            self._window(keys.invite_guesses(address), now_ms, window_ms, by_address),
            self._window(keys.tournament_guesses(tournament_id), now_ms, window_ms,
                         by_tournament))
        return from_address, at_tournament

    async def hold_challenge(self, address: str, now_ms: int, until_ms: int,
                             cap: int) -> str | None:
        """A place among the challenges open from ``address`` until
        ``until_ms`` (its id), or ``None`` when it holds ``cap`` already:
        held as a room's place is (the ``hold`` script, with a cap), in
        ``held(address, "challenge")``; given back with
        :meth:`drop_reservation`."""
        place = secrets.token_hex(8)
        held = await self._run(scripts.HOLD, [keys.held(address, "challenge")],
                               [place, until_ms, "", now_ms, cap])
        return place if held else None

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
