"""The store's hashed seats: the seats of a room kept in hashes, outside its
document, so that thousands can join at once (:mod:`.keys`: ``pl``, ``nk``,
``tk``, ``ready``, ``left``). Each change is one script that checks what must
hold (a free nickname, room left, the phase) and never touches the room's
version, so none conflicts with another.

A tournament's round whose seats live in hashes seats each player the first
time they come (``round_seat``), and closes the seat of a player who will
not (``round_out``).
"""

from __future__ import annotations

from dataclasses import dataclass

import orjson

from ..race import Entry
from . import keys, scripts
from .changes import player_record
from .section import Section


@dataclass(frozen=True, slots=True)
class Joined:
    """The outcome of :meth:`SeatHashes.join_seat`: ``ok`` or why not."""

    status: str  # ok, gone, small, race_started, closed, full, name_taken
    seat: int = -1
    phase: str = ""  # the room's phase when the player joined
    race: int = 0  # the race running then (0: none)


@dataclass(frozen=True, slots=True)
class Left:
    """The outcome of :meth:`SeatHashes.leave_seat`."""

    status: str  # left, left_race (kept in the race's results), unknown, racing (no kick now)
    active: int = -1  # seats still playing, when leaving ended the seat's race
    host: int = -1  # the new host's seat, when the host left (-1: none or unchanged)


class SeatHashes(Section):
    """Joining, leaving, ready flags and lookups of hashed seats."""

    async def join_seat(self, room_id: str, *, nickname: str, fold: str, token_hash: str,
                        lobby_tail: bytes, lobby_score: int, late_tail: bytes,
                        late_score: int) -> Joined:
        """A seat (see the ``join`` script): the lines are the JSON after
        the nickname, for the lobby and for a late racer. Status ``small``
        for a room whose seats are in its document: nothing was written."""
        r = room_id
        reply = await self._run(scripts.JOIN, [
            keys.room(r), keys.players(r), keys.nicknames(r), keys.tokens(r), keys.board(r),
            keys.ranking(r), keys.histogram(r)], [
            fold, player_record(nickname, fold, token_hash), token_hash, lobby_tail, lobby_score,
            late_tail, late_score, orjson.dumps(nickname)])
        status = reply[0].decode()
        if status != "ok":
            return Joined(status)
        return Joined("ok", seat=int(reply[1]), phase=reply[2].decode(), race=int(reply[3]))

    async def leave_seat(self, room_id: str, *, seat: int, race: int, line: Entry | None,
                         score: int, status_before: str, host: int, kick: bool = False,
                         round_kick: bool = False, waiting: bool = False) -> Left:
        """Out of the room (see the ``leave`` script); ``line`` is the seat's
        line with status ``left`` when the race goes on without it. ``kick``
        (not while racing) and ``round_kick`` (a tournament's organizer, also
        while its round races) close the player's connection. ``waiting``:
        the player never began their game of a challenge: gone, as from a lobby."""
        r = room_id
        reply = await self._run(scripts.LEAVE, [
            keys.room(r), keys.players(r), keys.nicknames(r), keys.tokens(r), keys.board(r),
            keys.ranking(r), keys.histogram(r), keys.online(r), keys.ready(r), keys.left(r),
            keys.seat(r, race, seat), keys.channel(r)], [
            seat, orjson.dumps(line) if line else b"", score, status_before, host,
            "r" if round_kick else "1" if kick else "0", "1" if waiting else "0"])
        return Left(reply[0].decode(), *(int(x) for x in reply[1:]))

    async def ready_seat(self, room_id: str, seat: int, ready: bool) -> int:
        """A seat's ready flag; how many are ready (-1: no such seat)."""
        r = room_id
        return int(await self._run(scripts.READY, [keys.room(r), keys.ready(r), keys.players(r)],
                                   [seat, "1" if ready else "0"]))

    async def seat_of_token(self, room_id: str, token_hash: str) -> int | None:
        seat = await self.call("HGET", keys.tokens(room_id), token_hash)
        return None if seat is None else int(seat)

    async def nickname(self, room_id: str, seat: int) -> str | None:
        raw = await self.call("HGET", keys.players(room_id), seat)
        return None if raw is None else str(orjson.loads(raw)["nickname"])

    async def line(self, room_id: str, seat: int) -> Entry | None:
        """A seat's leaderboard line as stored."""
        raw = await self.call("HGET", keys.board(room_id), seat)
        return None if raw is None else dict(orjson.loads(raw))

    # ------------------------------------------------------------------ a tournament's rounds

    async def seat_round_player(self, room_id: str, *, seat: int, race: int, nickname: str,
                                fold: str, token_hash: str, line: bytes, score: int) -> str:
        """Seat a tournament's player in their round's room (see the
        ``round_seat`` script): ok, out, ended or gone."""
        r = room_id
        status = await self._run(scripts.ROUND_SEAT, [
            keys.room(r), keys.players(r), keys.nicknames(r), keys.tokens(r), keys.board(r),
            keys.ranking(r), keys.histogram(r), keys.seat(r, race, seat)], [
            seat, player_record(nickname, fold, token_hash), fold, token_hash, line, score, race])
        return str(status.decode())

    async def close_round_seat(self, room_id: str, seat: int, race: int) -> tuple[str, int]:
        """A player who may play the round will not (see the ``round_out``
        script): ``seated`` (the caller makes them leave) or ``out``, with
        the racers left when this closed their seat (-1: unchanged)."""
        r = room_id
        reply = await self._run(scripts.ROUND_OUT, [keys.room(r), keys.players(r),
                                                    keys.seat(r, race, seat)], [seat, race])
        return reply[0].decode(), int(reply[1])
