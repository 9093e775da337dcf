"""The store's tournaments: a tournament's header (its document and the
fields its scripts check), its players and its standings.

A tournament's keys share its hash tag; a round is a room with its own. No
call here touches both (Redis Cluster runs no script across slots): seating
a player in a round is first a look at the tournament (:meth:`token_player`),
then the room (:meth:`~.seat_hashes.SeatHashes.seat_round_player`), and
either step may be repeated.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final

import orjson

from ..race.tournament import Tournament
from . import keys, scripts
from .changes import Changes
from .documents import Committed, Documents
from .section import pairs

#: a tournament's counts, kept in its header hash
COUNTS: Final = ("players", "withdrawn", "kicked")


@dataclass(frozen=True, slots=True)
class TournamentData:
    """A tournament as stored: its header, versions and counts (how many
    players registered, kicked ones not counted, withdrew and were kicked).
    ``legacy``: stored before its players moved out of its document, whose
    JSON ``raw`` still holds them (see the tournaments' migration)."""

    t: Tournament
    rv: int
    ev: int
    counts: dict[str, int]
    legacy: bool = False
    raw: bytes = b""


@dataclass(frozen=True, slots=True)
class Registered:
    """The outcome of :meth:`TournamentState.register_player`."""

    status: str  # ok, gone, banned, closed, bad_invite, full, name_taken
    player: int = -1  # (name_taken: the player who has the name)
    first: int = 0  # the first round the player may play


@dataclass(frozen=True, slots=True)
class PlayerOf:
    """A token's player, their record (nickname, fold, token digest,
    registered, first) and whether they are out, with how many players may
    play the round asked about."""

    player: int
    record: dict[str, Any]
    out: str  # "", "withdrawn" or "kicked"
    open: int  # players 0 .. open - 1 may play the round


class TournamentState(Documents):
    """Tournaments' headers, players and standings."""

    async def load_tournament(self, tournament_id: str) -> tuple[Tournament, int, int] | None:
        """A tournament, its version and its event version; ``None`` if unknown."""
        data = await self.load_tournament_data(tournament_id)
        return None if data is None else (data.t, data.rv, data.ev)

    async def load_tournament_data(self, tournament_id: str) -> TournamentData | None:
        """A tournament as stored, with its counts; ``None`` if unknown."""
        state, rv, ev, most, *counts = await self.call(
            "HMGET", keys.tournament(tournament_id), "state", "rv", "ev", "max", *COUNTS)
        if state is None:
            return None
        return TournamentData(Tournament.from_json(state), int(rv), int(ev or 0),
                              {k: int(v or 0) for k, v in zip(COUNTS, counts, strict=True)},
                              legacy=most is None, raw=bytes(state))

    async def tournament_counts(self, tournament_id: str) -> dict[str, int]:
        """A tournament's counts now."""
        counts = await self.call("HMGET", keys.tournament(tournament_id), *COUNTS)
        return {k: int(v or 0) for k, v in zip(COUNTS, counts, strict=True)}

    async def commit_tournament(self, t: Tournament, rv: int | None,
                                events: Sequence[dict[str, Any]], *, ttl_ms: int,
                                fields: dict[str, Any] | None = None) -> Committed:
        """Like :meth:`~.room_state.RoomState.commit`, for a tournament; its
        keys expire after ``ttl_ms``. Its header also holds what its scripts
        check (whether registration is open, the first round not started:
        written from ``t`` at every commit) and ``fields`` (its ``max`` and
        counts, set at creation)."""
        header = keys.tournament(t.id)
        changes = (Changes(t.id).expire_keys(keys.tournament_keys(t.id), ttl_ms)
                   .set_fields(header, {"reg": int(t.registration), "first": t.first_open(),
                                        **(fields or {})}))
        return await self.commit_document(
            (header, keys.tournament_events(t.id), keys.tournament_channel(t.id)),
            rv, t.to_json(), events, changes)

    # ------------------------------------------------------------------ players

    async def register_player(self, tournament_id: str, *, nickname: str, fold: str,
                              token_hash: str, registered: int, invited: bool,
                              lines: Sequence[tuple[bytes, int]], ttl_ms: int) -> Registered:
        """A new player (see the ``t_register`` script); ``invited``: the
        invite code was right (or none is needed); ``lines`` holds the
        standing line's tail and score for each first round, from round 1."""
        t = tournament_id
        record = orjson.dumps({"nickname": nickname, "fold": fold, "token": token_hash,
                               "registered": registered, "first": 0})
        prefix = record[:record.rindex(b"0}")]  # the script writes the first round
        reply = await self._run(scripts.T_REGISTER, [
            keys.tournament(t), keys.tournament_players(t), keys.tournament_nicknames(t),
            keys.tournament_tokens(t), keys.standings(t), keys.standings_rank(t),
            keys.tournament_banned(t), keys.tournament_events(t)], [
            fold, prefix, token_hash, orjson.dumps(nickname), ttl_ms, "1" if invited else "0",
            *(x for tail, score in lines for x in (tail, score))])
        status = reply[0].decode()
        if status == "ok":
            return Registered("ok", int(reply[1]), int(reply[2]))
        return Registered(status, int(reply[1]) if len(reply) > 1 else -1)

    async def token_player(self, tournament_id: str, token_hash: str, n: int) -> PlayerOf | None:
        """The player holding this token (``None``: nobody, or kicked) and
        how many may play round ``n``."""
        t = tournament_id
        found = await self._run(scripts.T_PLAYER, [
            keys.tournament(t), keys.tournament_tokens(t), keys.tournament_players(t),
            keys.tournament_out(t)], [token_hash, max(n, 1)])
        if not found or found[1] is None:
            return None
        return PlayerOf(int(found[0]), orjson.loads(found[1]), found[2].decode(), int(found[3]))

    async def round_players(self, tournament_id: str, n: int) -> int:
        """How many players may play round ``n`` (its start fixed them)."""
        counts = await self.call("HMGET", keys.tournament(tournament_id),
                                 *(f"in{f}" for f in range(1, n + 1)))
        return sum(int(c or 0) for c in counts)

    async def take_out_player(self, tournament_id: str, *, kind: str, player: int | None = None,
                              token_hash: str = "", ban: bool = False) -> tuple[str, int]:
        """A player withdraws (by ``token_hash``) or is kicked (by number):
        the outcome (ok, already, unknown) and the player."""
        t = tournament_id
        reply = await self._run(scripts.T_OUT, [
            keys.tournament(t), keys.tournament_players(t), keys.tournament_tokens(t),
            keys.tournament_nicknames(t), keys.standings(t), keys.standings_rank(t),
            keys.tournament_out(t), keys.tournament_banned(t)], [
            "" if player is None else player, token_hash, kind, "1" if ban else "0"])
        return reply[0].decode(), int(reply[1]) if len(reply) > 1 else -1

    async def player_records(self, tournament_id: str, players: Sequence[int] | None = None
                             ) -> dict[int, dict[str, Any]]:
        """The records (nickname, fold, token digest, registered, first) of
        these players, or of every player (a field of a few), by number."""
        key = keys.tournament_players(tournament_id)
        if players is None:
            found = [(int(p), raw) for p, raw in pairs(await self.call("HGETALL", key))]
        elif players:
            found = list(zip(players, await self.call("HMGET", key, *players), strict=True))
        else:
            found = []
        return {p: orjson.loads(raw) for p, raw in sorted(found) if raw is not None}

    async def out_players(self, tournament_id: str) -> dict[int, str]:
        """Every player who withdrew or was kicked, and which."""
        held = await self.call("HGETALL", keys.tournament_out(tournament_id))
        return {int(p): kind.decode() for p, kind in pairs(held)}

    # ------------------------------------------------------------------ standings

    async def standing_lines(self, tournament_id: str, players: Sequence[int]
                             ) -> list[bytes | None]:
        """The standing lines of these players as stored (``None``: none)."""
        if not players:
            return []
        return list(await self.call("HMGET", keys.standings(tournament_id), *players))

    async def count_standings(self, tournament_id: str,
                              changes: Sequence[tuple[int, bytes, bytes, int]]) -> list[int]:
        """Write new standing lines where the stored one is still the old one
        (player, old, new, score): the players whose line had changed."""
        if not changes:
            return []
        t = tournament_id
        changed = await self._run(scripts.T_COUNT, [keys.standings(t), keys.standings_rank(t)],
                                  [x for change in changes for x in change])
        return [int(p) for p in changed]

    async def lease_recording(self, tournament_id: str, holder: str, ttl_ms: int) -> bool:
        """Whether ``holder`` may record a round now (nobody else is)."""
        got = await self.call("SET", keys.recording(tournament_id), holder, "NX", "PX", ttl_ms)
        return bool(got)

    async def release_recording(self, tournament_id: str, holder: str) -> bool:
        """Give the lease back if ``holder`` still holds it (whether it did)."""
        return bool(await self._run(scripts.RELEASE, [keys.recording(tournament_id)], [holder]))

    async def write_players(self, tournament_id: str, records: dict[int, bytes],
                            tokens: dict[str, int], nicknames: dict[str, int],
                            out: dict[int, str], banned: Sequence[str],
                            lines: dict[int, tuple[bytes, int]]) -> None:
        """Write players, their lookups and their standing lines as they are
        (a tournament moved from its document: see the tournaments' migration).
        Each write sets what it sets: writing them twice is harmless."""
        t = tournament_id
        writes = [self.call("HSET", keys.tournament_players(t), p, raw)
                  for p, raw in records.items()]
        writes += [self.call("HSET", keys.tournament_tokens(t), digest, p)
                   for digest, p in tokens.items()]
        writes += [self.call("HSET", keys.tournament_nicknames(t), name, p)
                   for name, p in nicknames.items()]
        writes += [self.call("HSET", keys.tournament_out(t), p, how) for p, how in out.items()]
        writes += [self.call("SADD", keys.tournament_banned(t), name) for name in banned]
        for p, (line, score) in lines.items():
            writes.append(self.call("HSET", keys.standings(t), p, line))
            writes.append(self.call("ZADD", keys.standings_rank(t), score, f"{p:05d}"))
        await asyncio.gather(*writes)
