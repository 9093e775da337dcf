"""The commands of a room whose seats live in the store's hashes (a room of
thousands, :data:`~server.race.seating.COUNTED`), so that thousands can join
at once: each seat change is one script (server/store/lua) that checks what
must hold (a free nickname, room left, the phase) and never conflicts with
the others; it is not announced (the room's counts and its leaderboard ticks
say what changed). Only the room's own changes (start, end, rematch, a new
host) are commits. Its counterpart for rooms of a few is
:mod:`.document_seats`; a room's policy (:mod:`.policy`) picks one when the
room is created.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from typing import Any, Final

import orjson

from ...protocol import Reason
from ...race import Entry, RaceError, Room, Settings, check_nickname, new_entry
from ...race.leaderboard import line_of, line_tail
from ...race.names import fold, taken_text
from ...race.ranking import rank_score, registration_ties
from ...race.tokens import hash_token
from ...store import Changes, RoomData
from .room_plans import Entrants, Plan, RoomWork, commit_round, room_event

CHUNK: Final = 500  # a round's lines read per call when it is recorded
OUT_CHUNK: Final = 200  # seats closed between two looks at the event loop

_JOIN_REFUSED: Final = {
    "gone": (Reason.UNKNOWN_ROOM, None),
    "race_started": (Reason.RACE_STARTED, None),
    "closed": (Reason.CLOSED, None),
    "full": (Reason.ROOM_FULL, None),
}
_BEGIN_REFUSED: Final = {
    "closed": (Reason.CLOSED, None),
    "unknown": (Reason.UNKNOWN_SEAT, "you have no seat in this challenge"),
    "begun": (Reason.NOT_LOBBY, "your game has begun already"),
}


def fresh_line(status: str, now: int, *, normal: bool, started: int | None = None,
               late: bool = True) -> Entry:
    """A hashed seat's line before its player's first move (seat and
    nickname are the store's to fill in)."""
    return line_of(new_entry(0, "", status, now, normal=normal, started=started, late=late))


class HashedSeats:
    """Seats in the store's hashes: each seat change is one script."""

    def created(self, rooms: RoomWork, room: Room, token: str, now: int
                ) -> tuple[dict[str, Any], Changes]:
        """A new room's event and writes: what its ``join`` script checks,
        and seat 0, the host's, with its line."""
        settings = room.settings
        line = {**fresh_line("lobby", now, normal=settings.scoring == "N"), "seat": 0,
                "nickname": room.host_name}
        event = room_event({"kind": "created", "seat": 0}, room, now,
                           counts={"players": 1, "ready": 0})
        changes = (rooms.store.rooms.changes(room.id)
                   .hashed_seats(settings.max_players, room.clock.arrivals(settings))
                   .first_seat(room.host_name, fold(room.host_name), hash_token(token))
                   .set_entry(line, rank_score(line, now, now)).expire(rooms.ttl_ms(room)))
        return event, changes

    def opened(self, rooms: RoomWork, room: Room, now: int) -> tuple[dict[str, Any], Changes]:
        """A room nobody hosts (:meth:`Room.open`): its event, what its
        ``join`` script checks, nobody seated yet."""
        event = room_event({"kind": "created"}, room, now, counts={"players": 0, "ready": 0})
        changes = (rooms.store.rooms.changes(room.id)
                   .hashed_seats(room.settings.max_players, room.clock.arrivals(room.settings))
                   .expire(rooms.ttl_ms(room)))
        return event, changes

    async def join(self, rooms: RoomWork, room_id: str, settings: Settings, nickname: str,
                   token: str, *, address: str = "", rating: str = "") -> tuple[int, str]:
        """Seat a new player: their seat and the room's phase then (a big
        room is never rated: no ``rating`` kept)."""
        name = check_nickname(nickname)
        now = rooms.now_ms()
        normal = settings.scoring == "N"
        lobby = fresh_line("lobby", now, normal=normal)
        late = fresh_line("racing", now, normal=normal, started=now)
        # every lobby line scores alike (seat order decides); a late racer
        # ranks after those of equal figures who started before
        joined = await rooms.store.seat_hashes.join_seat(
            room_id, nickname=name, fold=fold(name), token_hash=hash_token(token),
            lobby_tail=line_tail(lobby), lobby_score=rank_score(lobby, now, now),
            late_tail=line_tail(late), late_score=rank_score(late, now, now))
        if joined.status == "small":  # (the settings say hashed: never)
            raise RaceError(Reason.UNKNOWN_ROOM)
        if joined.status == "name_taken":
            raise RaceError(Reason.NAME_TAKEN, taken_text(name, name, "this room"))
        if joined.status != "ok":
            reason, text = _JOIN_REFUSED[joined.status]
            raise RaceError(reason, text)
        return joined.seat, joined.phase

    async def begin(self, rooms: RoomWork, room_id: str, seat: int) -> tuple[int, int]:
        """A challenge's player begins their own game: the ``begin`` script
        makes their seat in the race and ranks their racing line, on their
        own clock (not announced: the ticks count it). When it began, and
        when it ends."""
        room = (await rooms.load(room_id)).room
        now = rooms.now_ms()
        room.clock.check_begin(room, now)
        line = fresh_line("racing", now, normal=room.settings.scoring == "N", started=now,
                          late=False)
        status, _ = await rooms.store.challenges.begin_seat(room_id, room.race, seat, line_tail(line),
                                                 rank_score(line, room.start_at or now, now))
        if status != "ok":
            reason, text = _BEGIN_REFUSED[status]
            raise RaceError(reason, text)
        ends = room.clock.ends_at(room, now)
        assert ends is not None
        return now, ends

    async def ready(self, rooms: RoomWork, room_id: str, seat: int, ready: bool) -> None:
        if (await rooms.load(room_id)).room.phase == "racing":
            raise RaceError(Reason.NOT_LOBBY)
        if await rooms.store.seat_hashes.ready_seat(room_id, seat, ready) < 0:
            raise RaceError(Reason.UNKNOWN_SEAT, f"there is no player in seat {seat}")

    async def kick(self, rooms: RoomWork, room_id: str, by: int, seat: int) -> None:
        data = await rooms.load(room_id)
        room = data.room
        if by != room.host:
            raise RaceError(Reason.NOT_HOST)
        if room.phase == "racing":
            raise RaceError(Reason.NOT_LOBBY)
        if seat == by:
            raise RaceError(Reason.CANNOT_KICK_SELF)
        await self._leave(rooms, data, seat, kick=True)

    async def leave(self, rooms: RoomWork, room_id: str, seat: int, *,
                    round_kick: bool = False) -> None:
        """Out of the room (from a race: marked left, kept in its results).
        ``round_kick``: a tournament's organizer kicked the player, who
        leaves their round's race and whose connection is closed. The host's
        role passes to the next player; the race ends if nobody plays it."""
        data = await rooms.load(room_id)
        active, host = await self._leave(rooms, data, seat, round_kick=round_kick)
        if host >= 0:
            await self._new_host(rooms, room_id, seat, host)
        if data.room.phase == "racing" and active == 0:
            await rooms.end_race(room_id)

    async def _leave(self, rooms: RoomWork, data: RoomData, seat: int, *, kick: bool = False,
                     round_kick: bool = False) -> tuple[int, int]:
        """The seats still racing (-1: unchanged) and the new host (-1: none)."""
        room, now = data.room, rooms.now_ms()
        line, score, status, waiting = None, 0, "", False
        if room.phase == "racing" and not kick:
            stored = await rooms.store.seat_hashes.line(room.id, seat)
            if stored is not None and stored["status"] == "racing":
                status = stored["status"]
                line = {**stored, "status": "left"}
                score = rank_score(line, room.start_at or now, now,
                                   registration=registration_ties(room.settings))
            waiting = stored is not None and stored["status"] == "lobby"  # (a challenge's)
        left = await rooms.store.seat_hashes.leave_seat(room.id, seat=seat, race=room.race, line=line,
                                            score=score, status_before=status, host=room.host,
                                            kick=kick, round_kick=round_kick, waiting=waiting)
        if left.status == "unknown":
            raise RaceError(Reason.UNKNOWN_SEAT, f"there is no player in seat {seat}")
        if left.status == "racing":
            raise RaceError(Reason.NOT_LOBBY)
        return left.active, left.host

    async def _new_host(self, rooms: RoomWork, room_id: str, was: int, host: int) -> None:
        """The host left: ``host`` takes over (unless someone else did meanwhile)."""
        nickname = await rooms.store.seat_hashes.nickname(room_id, host) or ""

        def step(data: RoomData, now: int) -> Plan:
            room = data.room
            if room.host != was:
                return Plan([], rooms.store.rooms.changes(room_id))
            room.host, room.host_name = host, nickname
            event = {"kind": "host", "seat": host, "nickname": nickname}
            return Plan([room_event(event, room, now, counts=data.counts)],
                        rooms.store.rooms.changes(room_id))

        await rooms.change(room_id, step)

    def _reset(self, rooms: RoomWork, data: RoomData, event: dict[str, Any], now: int,
               status: str, race: int) -> Plan:
        room = data.room
        line = fresh_line(status, now, normal=room.settings.scoring == "N")
        changes = (rooms.store.rooms.changes(room.id)
                   .reset_seats(line_tail(line), rank_score(line, now, now), race,
                                rooms.ttl_ms(room))
                   .expire(rooms.ttl_ms(room)))
        return Plan([room_event(event, room, now, counts=data.counts)], changes)

    def started(self, rooms: RoomWork, data: RoomData, event: dict[str, Any], now: int) -> Plan:
        """A race's start: every player a fresh racing line, ranked in it
        (their seat is made by their first command)."""
        return self._reset(rooms, data, event, now, "racing", data.room.race)

    def rematched(self, rooms: RoomWork, data: RoomData, event: dict[str, Any], now: int) -> Plan:
        """A rematch: every player a fresh lobby line; those who left are gone."""
        return self._reset(rooms, data, event, now, "lobby", 0)

    async def final_lines(self, rooms: RoomWork, data: RoomData) -> list[Entry]:
        """No more moves in the race: its top lines, in the ranking's order
        (the whole ranking stays, read a page at a time)."""
        room = data.room
        await rooms.store.rooms.stop_race(room.id, room.race, lines=False)
        _, top = await rooms.store.ranks.page(room.id, 1, room.settings.top)
        return [orjson.loads(line) for line in top]

    def ended(self, event: dict[str, Any], room: Room, now: int, data: RoomData
              ) -> dict[str, Any]:
        """The end's event as recorded: the room with its counts and top lines."""
        return room_event(event, room, now, counts=data.counts)

    async def seat_of(self, rooms: RoomWork, room_id: str, token: str) -> int | None:
        """The seat whose token this is; in a tournament's round, a player
        who comes for the first time is seated now."""
        seat = await rooms.store.seat_hashes.seat_of_token(room_id, hash_token(token))
        if seat is None:
            data = await rooms.load(room_id)
            if data.room.settings.tournament is not None:
                seat = await rooms.round_seat(data.room, token)
        return seat

    async def named(self, rooms: RoomWork, data: RoomData, token: str) -> tuple[int | None, bool]:
        """The seat ``token`` names, read only (a round's player not seated
        yet: the seat they would take), and whether it races (every seat of
        such a room does)."""
        seat = await rooms.store.seat_hashes.seat_of_token(data.room.id, hash_token(token))
        if seat is None and data.room.settings.tournament is not None:
            seat = await rooms.round_player(data.room, token)
        return seat, seat is not None

    def presence(self, seat: int, online: bool, now: int) -> dict[str, Any] | None:
        """None: who holds a seat is not announced (the ticks say who is offline)."""
        return None

    # ------------------------------------------------------------------ a tournament's rounds

    async def create_round(self, rooms: RoomWork, room_id: str, settings: Settings, *,
                           start_at: int, entrants: Entrants) -> bool:
        """A round's room: racing from ``start_at``, every player who may
        play it counted among its racers, none seated yet (each is seated the
        first time they come); those out by now are out of it."""
        now = rooms.now_ms()
        room = Room.for_round(room_id, settings, str(settings.code), [], {}, start_at=start_at,
                              now=now)
        changes = (rooms.store.rooms.changes(room_id).hashed_seats(settings.max_players, "refuse")
                   .racers_to_come(entrants.may_play, room.race).expire(rooms.ttl_ms(room)))
        event = room_event({"kind": "start", "race": room.race, "start_at": start_at}, room, now,
                           counts={"players": 0, "ready": 0})
        created = await commit_round(rooms, room, event, changes)
        out = await entrants.out()
        for kind in ("withdrawn", "kicked"):  # (their own step may have found no room yet)
            players = sorted(p for p, how in out.items() if how == kind and p < entrants.may_play)
            for i in range(0, len(players), OUT_CHUNK):
                await self.take_out_of_round(rooms, room_id, players[i:i + OUT_CHUNK],
                                             kick=kind == "kicked")
        return created

    async def take_out_of_round(self, rooms: RoomWork, room_id: str, players: Sequence[int], *,
                                kick: bool) -> None:
        """Players who withdrew or were kicked: a seat taken is left (the
        race goes on without them), a seat never taken is closed and counted
        out of the room's racers, so that the round ends once everyone who
        may still play has finished."""
        ended = False
        for player in players:
            status, active = await rooms.store.seat_hashes.close_round_seat(room_id, player, 1)
            if status == "seated":
                try:
                    await self.leave(rooms, room_id, player, round_kick=kick)
                except RaceError as exc:  # left already
                    if exc.reason is not Reason.UNKNOWN_SEAT:
                        raise
            elif active == 0:
                ended = True
        if ended:  # nobody else may still play: the round is over
            await rooms.end_race(room_id)

    async def round_lines(self, rooms: RoomWork, data: RoomData
                          ) -> AsyncIterator[list[tuple[Entry, int]]]:
        """An ended round's lines with their ranks: its ranking, a chunk at a time."""
        first = 1
        while True:
            _, raw = await rooms.store.ranks.page(data.room.id, first, CHUNK)
            yield [(dict(orjson.loads(line)), first + i) for i, line in enumerate(raw)]
            if len(raw) < CHUNK:
                return
            first += CHUNK

    async def seated_players(self, rooms: RoomWork, data: RoomData) -> list[int]:
        """The players seated in a round's room (ranked in its race)."""
        return [int(line["seat"]) async for chunk in self.round_lines(rooms, data)
                for line, _ in chunk]

    async def has_player(self, rooms: RoomWork, data: RoomData, player: int) -> bool:
        """Whether ``player`` took their seat in a round's room."""
        return await rooms.store.seat_hashes.nickname(data.room.id, player) is not None
