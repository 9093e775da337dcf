"""The commands of a room whose seats live in its document (a room of a few,
:data:`~server.race.seating.LISTED`): every change is a transition of the
room (:meth:`RoomWork.change <.room_plans.RoomWork.change>`) and an event
everyone sees, every line travels with the events. Its counterpart for rooms
of thousands is :mod:`.hashed_seats`; a room's policy (:mod:`.policy`) picks
one when the room is created.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from dataclasses import replace
from typing import Any

from ...protocol import Reason
from ...race import Entry, RaceError, Room, Settings, new_entry
from ...store import Changes, RoomData
from .room_plans import Entrants, Plan, RoomWork, commit_round, room_event


class DocumentSeats:
    """Seats in the room's document: every change is a room transition."""

    def created(self, rooms: RoomWork, room: Room, token: str, now: int
                ) -> tuple[dict[str, Any], Changes]:
        """A new room's event and writes: the host's line."""
        entry = new_entry(0, room.players[0].nickname, "lobby", now,
                          normal=room.settings.scoring == "N")
        event = room_event({"kind": "created", "seat": 0}, room, now, entries=[entry], reset=True)
        return event, rooms.store.rooms.changes(room.id).set_entry(entry).expire(rooms.ttl_ms(room))

    def opened(self, rooms: RoomWork, room: Room, now: int) -> tuple[dict[str, Any], Changes]:
        """A room nobody hosts (:meth:`Room.open`): its event and writes, no line yet."""
        event = room_event({"kind": "created"}, room, now, reset=True)
        return event, rooms.store.rooms.changes(room.id).expire(rooms.ttl_ms(room))

    async def join(self, rooms: RoomWork, room_id: str, settings: Settings, nickname: str,
                   token: str, *, address: str = "", rating: str = "") -> tuple[int, str]:
        """A seat for a new player (from ``address``, their ``rating`` as
        shown): the seat and the room's phase."""

        def step(data: RoomData, now: int) -> Plan:
            room = data.room
            event = room.join(nickname, token, now=now, address=address, rating=rating)
            seat = event["seat"]
            normal = room.settings.scoring == "N"
            changes = rooms.store.rooms.changes(room.id)
            if event.get("racing"):  # admitted into the race (the room's ``late`` says so)
                late = event["started"] > (room.start_at or 0)
                entry = new_entry(seat, event["nickname"], "racing", now, normal=normal,
                                  started=event["started"] if late else None)
                changes.late_seat(room.race, seat)
            else:
                entry = new_entry(seat, event["nickname"], "lobby", now, normal=normal)
            changes.set_entry(entry).expire(rooms.ttl_ms(room), room.race, [seat])
            return Plan([room_event(event, room, now, entries=[entry])], changes, seat)

        room, seat, _ = await rooms.change(room_id, step)
        return seat, room.phase

    async def begin(self, rooms: RoomWork, room_id: str, seat: int) -> tuple[int, int]:
        """A challenge's player begins their own game: a fresh seat in the
        race, a racing line on their own clock (``started``), an event
        everyone sees. When it began, and when it ends."""

        def step(data: RoomData, now: int) -> Plan:
            room = data.room
            event = room.begin(seat, now=now)
            player = room.player(seat)
            assert player is not None
            entry = new_entry(seat, player.nickname, "racing", now,
                              normal=room.settings.scoring == "N", started=now, late=False)
            changes = (rooms.store.rooms.changes(room_id).late_seat(room.race, seat).set_entry(entry)
                       .expire(rooms.ttl_ms(room), room.race, [seat]))
            return Plan([room_event(event, room, now, entries=[entry])], changes,
                        (event["started"], event["ends"]))

        _, (started, ends), _ = await rooms.change(room_id, step)
        return started, ends

    async def ready(self, rooms: RoomWork, room_id: str, seat: int, ready: bool) -> None:
        def step(data: RoomData, now: int) -> Plan:
            event = data.room.set_ready(seat, ready, now=now)
            changes = rooms.store.rooms.changes(room_id).expire(rooms.ttl_ms(data.room))
            return Plan([room_event(event, data.room, now)], changes)

        await rooms.change(room_id, step)

    async def kick(self, rooms: RoomWork, room_id: str, by: int, seat: int) -> None:
        def step(data: RoomData, now: int) -> Plan:
            event = data.room.kick(by, seat, now=now)
            changes = rooms.store.rooms.changes(room_id).drop_seat(seat).expire(rooms.ttl_ms(data.room))
            return Plan([room_event(event, data.room, now, dropped=[seat])], changes)

        await rooms.change(room_id, step)

    async def leave(self, rooms: RoomWork, room_id: str, seat: int, *,
                    round_kick: bool = False) -> None:
        """The player leaves: gone from the lobby, or marked left in the race
        (``round_kick``: a tournament's organizer kicked them; their line
        and connection stay, as a withdrawal's)."""

        def step(data: RoomData, now: int) -> Plan:
            room = data.room
            racing = room.phase == "racing" and seat in room.racers
            event = room.leave(seat, now=now)
            changes = rooms.store.rooms.changes(room_id)
            if not racing:
                changes.drop_seat(seat).expire(rooms.ttl_ms(room))
                return Plan([room_event(event, room, now, dropped=[seat])], changes)
            entry = dict(data.entries.get(seat) or new_entry(seat, "?", "racing", now, normal=False))
            if entry["status"] == "racing":
                entry["status"] = "left"
                entry["at"] = now
                changes.seat_done(room.race, seat)
            changes.set_entry(entry).drop_presence(seat)
            return Plan([room_event(event, room, now, entries=[entry])], changes)

        room, _, active = await rooms.change(room_id, step)
        if room.phase == "racing" and active <= 0:
            await rooms.end_race(room_id)

    def _fresh_board(self, rooms: RoomWork, room: Room, status: str, now: int
                     ) -> tuple[list[Entry], Changes]:
        """A new leaderboard for a new race: a fresh line per player present."""
        normal = room.settings.scoring == "N"
        entries = [new_entry(p.seat, p.nickname, status, now, normal=normal)
                   for p in room.present()]
        changes = rooms.store.rooms.changes(room.id).reset_board()
        for entry in entries:
            changes.set_entry(entry)
        return entries, changes

    def started(self, rooms: RoomWork, data: RoomData, event: dict[str, Any], now: int) -> Plan:
        """A race's start (``event``, the room started): a fresh line and a
        fresh seat for every racer."""
        room = data.room
        entries, changes = self._fresh_board(rooms, room, "racing", now)
        changes.start_race(room.race, room.racers).expire(rooms.ttl_ms(room), room.race,
                                                        room.racers)
        return Plan([room_event(event, room, now, entries=entries, reset=True)], changes)

    def rematched(self, rooms: RoomWork, data: RoomData, event: dict[str, Any], now: int) -> Plan:
        """A rematch: a fresh lobby line for every player."""
        room = data.room
        entries, changes = self._fresh_board(rooms, room, "lobby", now)
        changes.expire(rooms.ttl_ms(room))
        return Plan([room_event(event, room, now, entries=entries, reset=True)], changes)

    async def final_lines(self, rooms: RoomWork, data: RoomData) -> list[Entry]:
        """No more moves in the race: every line as it ends."""
        room = data.room
        return list((await rooms.store.rooms.stop_race(room.id, room.race)).values())

    def ended(self, event: dict[str, Any], room: Room, now: int, data: RoomData
              ) -> dict[str, Any]:
        """The end's event as recorded: with every line, ranked."""
        return room_event(event, room, now, entries=room.results or [], reset=True)

    async def seat_of(self, rooms: RoomWork, room_id: str, token: str) -> int | None:
        """The seat whose token this is (every seat is in the document)."""
        return (await rooms.load(room_id)).room.seat_of(token)

    async def named(self, rooms: RoomWork, data: RoomData, token: str) -> tuple[int | None, bool]:
        """The seat ``token`` names and whether it races in the room's race."""
        seat = data.room.seat_of(token)
        return seat, seat in data.room.racers

    def presence(self, seat: int, online: bool, now: int) -> dict[str, Any] | None:
        """The event that says a seat is held or let go: everyone sees who is here."""
        return {"kind": "presence", "seat": seat, "online": online, "at": now}

    # ------------------------------------------------------------------ a tournament's rounds

    async def create_round(self, rooms: RoomWork, room_id: str, settings: Settings, *,
                           start_at: int, entrants: Entrants) -> bool:
        """A round's room holding exactly its players, every one seated from
        the start (seat = player number, their tournament token their seat's)."""
        seated = await entrants.seated()
        now = rooms.now_ms()
        settings = replace(settings, max_players=max(1, len(seated)))
        room = Room.for_round(room_id, settings, str(settings.code),
                              [(p, name) for p, name, _ in seated],
                              {digest: p for p, _, digest in seated}, start_at=start_at, now=now)
        entries = [new_entry(p, name, "racing", now, normal=settings.scoring == "N")
                   for p, name, _ in seated]
        changes = rooms.store.rooms.changes(room_id)
        for entry in entries:
            changes.set_entry(entry)
        changes.start_race(room.race, room.racers).expire(rooms.ttl_ms(room), room.race,
                                                          room.racers)
        event = room_event({"kind": "start", "race": room.race, "start_at": start_at}, room, now,
                           entries=entries, reset=True)
        return await commit_round(rooms, room, event, changes)

    async def take_out_of_round(self, rooms: RoomWork, room_id: str, players: Sequence[int], *,
                                kick: bool) -> None:
        """Players who withdrew or were kicked leave the round's race (their
        line stays, marked left)."""
        for player in players:
            try:
                await self.leave(rooms, room_id, player)
            except RaceError as exc:  # never seated, or left already
                if exc.reason is not Reason.UNKNOWN_SEAT:
                    raise

    async def round_lines(self, rooms: RoomWork, data: RoomData
                          ) -> AsyncIterator[list[tuple[Entry, int]]]:
        """An ended round's lines with their ranks: its results, all of them."""
        yield [(entry, entry["rank"]) for entry in data.room.results or []]

    async def seated_players(self, rooms: RoomWork, data: RoomData) -> list[int]:
        """The players seated in a round's room."""
        return list(data.room.racers)

    async def has_player(self, rooms: RoomWork, data: RoomData, player: int) -> bool:
        """Whether ``player`` was seated in a round's room."""
        return player in data.room.racers
