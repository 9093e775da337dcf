"""A big tournament's players and standings, and its players' seats in its rounds.

The tournament's keys share its hash tag; a round is a big room with its
own. Each call here touches one of them only (Redis Cluster runs no script
across slots): seating a player in a round is first a look at the
tournament (:meth:`BigTournamentStore.player`), then the room
(:meth:`BigTournamentStore.seat`), and either step may be repeated.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any

import orjson

from . import keys, scripts

Run = Callable[[scripts.Script, Sequence[str], Sequence[Any]], Awaitable[Any]]
Call = Callable[..., Awaitable[Any]]


@dataclass(frozen=True, slots=True)
class Registered:
    """The outcome of :meth:`BigTournamentStore.register`."""

    status: str  # ok, gone, small, closed, full, banned, name_taken
    player: int = -1
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


class BigTournamentStore:
    """The store's calls for big tournaments (built by the store, with its runner)."""

    def __init__(self, run: Run, call: Call) -> None:
        self._run = run
        self._call = call

    # ------------------------------------------------------------------ players

    async def register(self, tournament_id: str, *, nickname: str, fold: str, token_hash: str,
                       registered: int, lines: Sequence[tuple[bytes, int]],
                       ttl_ms: int) -> Registered:
        """A new player (see the ``t_register`` script); ``lines`` holds the
        standing line's tail and score for each first round, from round 1."""
        t = tournament_id
        record = orjson.dumps({"nickname": nickname, "fold": fold, "token": token_hash,
                               "registered": registered, "first": 0})
        prefix = record[:record.rindex(b"0}")]  # the script writes the first round
        reply = await self._run(scripts.T_REGISTER, [
            keys.tournament(t), keys.tournament_players(t), keys.tournament_nicknames(t),
            keys.tournament_tokens(t), keys.standings(t), keys.standings_rank(t),
            keys.tournament_banned(t), keys.tournament_events(t)], [
            fold, prefix, token_hash, orjson.dumps(nickname), ttl_ms,
            *(x for tail, score in lines for x in (tail, score))])
        status = reply[0].decode()
        if status != "ok":
            return Registered(status)
        return Registered("ok", int(reply[1]), int(reply[2]))

    async def player(self, tournament_id: str, token_hash: str, n: int) -> PlayerOf | None:
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
        counts = await self._call("HMGET", keys.tournament(tournament_id),
                                  *(f"in{f}" for f in range(1, n + 1)))
        return sum(int(c or 0) for c in counts)

    async def out(self, tournament_id: str, *, kind: str, player: int | None = None,
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

    async def out_players(self, tournament_id: str) -> dict[int, str]:
        """Every player who withdrew or was kicked, and which."""
        held = await self._call("HGETALL", keys.tournament_out(tournament_id))
        items = held.items() if isinstance(held, dict) else zip(held[::2], held[1::2], strict=True)
        return {int(p): kind.decode() for p, kind in items}

    # ------------------------------------------------------------------ standings

    async def lines(self, tournament_id: str, players: Sequence[int]) -> list[bytes | None]:
        """The standing lines of these players as stored (``None``: none)."""
        if not players:
            return []
        return list(await self._call("HMGET", keys.standings(tournament_id), *players))

    async def count(self, tournament_id: str,
                    changes: Sequence[tuple[int, bytes, bytes, int]]) -> list[int]:
        """Write new standing lines where the stored one is still the old one
        (player, old, new, score): the players whose line had changed."""
        if not changes:
            return []
        t = tournament_id
        changed = await self._run(scripts.T_COUNT, [keys.standings(t), keys.standings_rank(t)],
                                  [x for change in changes for x in change])
        return [int(p) for p in changed]

    async def lease(self, tournament_id: str, holder: str, ttl_ms: int) -> bool:
        """Whether ``holder`` may record a round now (nobody else is)."""
        got = await self._call("SET", keys.recording(tournament_id), holder, "NX", "PX", ttl_ms)
        return bool(got)

    async def release(self, tournament_id: str) -> None:
        await self._call("DEL", keys.recording(tournament_id))

    # ------------------------------------------------------------------ rounds

    async def seat(self, room_id: str, *, seat: int, race: int, nickname: str, fold: str,
                   token_hash: str, line: bytes, score: int) -> str:
        """Seat a tournament's player in their round's room (see the
        ``round_seat`` script): ok, out, ended or gone."""
        r = room_id
        player = orjson.dumps({"nickname": nickname, "fold": fold, "token": token_hash})
        status = await self._run(scripts.ROUND_SEAT, [
            keys.room(r), keys.players(r), keys.nicknames(r), keys.tokens(r), keys.board(r),
            keys.ranking(r), keys.histogram(r), keys.seat(r, race, seat)], [
            seat, player, fold, token_hash, line, score, race])
        return str(status.decode())

    async def close_seat(self, room_id: str, seat: int, race: int) -> tuple[str, int]:
        """A player who may play the round will not (see the ``round_out``
        script): ``seated`` (the caller makes them leave) or ``out``, with
        the racers left when this closed their seat (-1: unchanged)."""
        r = room_id
        reply = await self._run(scripts.ROUND_OUT, [keys.room(r), keys.players(r),
                                                    keys.seat(r, race, seat)], [seat, race])
        return reply[0].decode(), int(reply[1])
