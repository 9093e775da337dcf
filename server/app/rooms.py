"""Room commands: load the room, run the pure transition, commit atomically.

A room commit checks the room version it read; when another process changed
the room in between, the command runs again on the fresh state. Moves never
change the room version, so a race in full swing does not make lobby
commands retry.
"""

from __future__ import annotations

import secrets
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

import structlog

from ..klondike import DealCode
from ..protocol import Reason
from ..race import Entry, RaceError, Room, new_entry, parse_settings
from ..race.tournament import TOURNAMENT_TTL_MS
from ..store import Changes, RoomData, Store, StoreUnavailable
from .config import Config

log = structlog.get_logger("app.rooms")

ATTEMPTS: Final = 10
_ID_ALPHABET: Final = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"  # no I, O, 0, 1: read aloud safely
ROOM_ID_LENGTH: Final = 8


def new_room_id() -> str:
    return "".join(secrets.choice(_ID_ALPHABET) for _ in range(ROOM_ID_LENGTH))


def new_token() -> str:
    return secrets.token_urlsafe(18)


def is_room_id(text: str) -> bool:
    return len(text) == ROOM_ID_LENGTH and all(ch in _ID_ALPHABET for ch in text)


def room_event(event: dict[str, Any], room: Room, now: int, *, entries: Sequence[Entry] = (),
               reset: bool = False, dropped: Sequence[int] = ()) -> dict[str, Any]:
    """A room event as recorded: what happened, when, the room as anyone may
    see it now, and the leaderboard lines it changed."""
    out = dict(event)
    out["at"] = now
    out["room"] = room.public(now)
    if entries or reset:
        out["entries"] = list(entries)
    if reset:
        out["reset"] = True
    if dropped:
        out["dropped"] = list(dropped)
    return out


@dataclass(slots=True)
class Plan:
    """What a transition wants written."""

    events: list[dict[str, Any]]
    changes: Changes
    result: Any = None
    after: list[Callable[[], Any]] = field(default_factory=list)


#: what to do once a tournament round's race has ended (set by the tournaments)
RoundOver = Callable[[Room], Awaitable[None]]


class Rooms:
    """Room commands. ``on_round_over`` is called when a tournament round's
    race has ended (the tournaments, built after the rooms, set it)."""

    def __init__(self, store: Store, config: Config, now_ms: Callable[[], int]) -> None:
        self.store = store
        self.config = config
        self.now_ms = now_ms
        self.on_round_over: RoundOver | None = None

    def _ttl_ms(self, room: Room) -> int:
        if room.phase == "lobby":
            return self.config.lobby_ttl * 1000
        kept = self.config.finished_ttl * 1000
        if room.settings.tournament:  # a round: its replays last as long as the tournament
            kept = max(kept, TOURNAMENT_TTL_MS)
        if room.phase == "ended":
            return kept
        assert room.deadline is not None
        return max(0, room.deadline - self.now_ms()) + kept

    async def change(self, room_id: str, step: Callable[[RoomData, int], Plan]) -> tuple[Room, Any, int]:
        """Run ``step`` on the room until its commit lands; the room, the
        step's result and the number of seats still racing."""
        for _ in range(ATTEMPTS):
            data = await self.store.load(room_id)
            if data is None:
                raise RaceError(Reason.UNKNOWN_ROOM)
            plan = step(data, self.now_ms())
            committed = await self.store.commit(data.room, data.rv, plan.events, plan.changes)
            if committed.ok:
                return data.room, plan.result, committed.active
            if committed.gone:
                raise RaceError(Reason.UNKNOWN_ROOM)
        raise StoreUnavailable("the room kept changing; try again")

    # ------------------------------------------------------------------ lobby

    async def create(self, nickname: str, settings_data: dict[str, Any]) -> tuple[Room, str]:
        settings = parse_settings(settings_data)
        code = settings.code or str(DealCode.random(settings.draw, settings.scoring))  # type: ignore[arg-type]
        for _ in range(ATTEMPTS):
            now = self.now_ms()
            token = new_token()
            room = Room.create(new_room_id(), settings, code, nickname, token, now=now)
            entry = new_entry(0, room.players[0].nickname, "lobby", now,
                              normal=settings.scoring == "N")
            event = room_event({"kind": "created", "seat": 0}, room, now, entries=[entry],
                               reset=True)
            changes = self.store.changes(room.id).set_entry(entry).expire(self._ttl_ms(room))
            if (await self.store.commit(room, None, [event], changes)).ok:
                log.info("room_created", room=room.id, mode=settings.public()["mode"])
                return room, token
        raise StoreUnavailable("could not find a free room id")

    async def solo(self, nickname: str, code: str | None, draw: int, scoring: str) -> tuple[Room, str]:
        """A one-player room whose race starts at once."""
        settings = parse_settings({"code": code, "draw": draw, "scoring": scoring,
                                   "max_players": 1, "boards": "after"}, solo=True)
        code = settings.code or str(DealCode.random(settings.draw, settings.scoring))  # type: ignore[arg-type]
        for _ in range(ATTEMPTS):
            now = self.now_ms()
            token = new_token()
            room = Room.create(new_room_id(), settings, code, nickname, token, now=now)
            created = room_event({"kind": "created", "seat": 0}, room, now)
            started = room.start(0, now=now, countdown_ms=0)
            entry = new_entry(0, room.players[0].nickname, "racing", now,
                              normal=settings.scoring == "N")
            events = [created, room_event(started, room, now, entries=[entry], reset=True)]
            changes = (self.store.changes(room.id).start_race(room.race, [0]).set_entry(entry)
                       .expire(self._ttl_ms(room), room.race, [0]))
            if (await self.store.commit(room, None, events, changes)).ok:
                assert room.deadline is not None
                await self.store.due_add(room.id, room.deadline)
                return room, token
        raise StoreUnavailable("could not find a free room id")

    async def join(self, room_id: str, nickname: str) -> tuple[Room, int, str]:
        def step(data: RoomData, now: int) -> Plan:
            room, token = data.room, new_token()
            event = room.join(nickname, token, now=now)
            seat = event["seat"]
            entry = new_entry(seat, event["nickname"], "lobby", now,
                              normal=room.settings.scoring == "N")
            changes = self.store.changes(room.id).set_entry(entry).expire(self._ttl_ms(room))
            return Plan([room_event(event, room, now, entries=[entry])], changes, (seat, token))

        room, (seat, token), _ = await self.change(room_id, step)
        return room, seat, token

    async def ready(self, room_id: str, seat: int, ready: bool) -> None:
        def step(data: RoomData, now: int) -> Plan:
            event = data.room.set_ready(seat, ready, now=now)
            changes = self.store.changes(room_id).expire(self._ttl_ms(data.room))
            return Plan([room_event(event, data.room, now)], changes)

        await self.change(room_id, step)

    async def kick(self, room_id: str, by: int, seat: int) -> None:
        def step(data: RoomData, now: int) -> Plan:
            event = data.room.kick(by, seat, now=now)
            changes = self.store.changes(room_id).drop_seat(seat).expire(self._ttl_ms(data.room))
            return Plan([room_event(event, data.room, now, dropped=[seat])], changes)

        await self.change(room_id, step)

    async def leave(self, room_id: str, seat: int) -> None:
        def step(data: RoomData, now: int) -> Plan:
            room = data.room
            racing = room.phase == "racing" and seat in room.racers
            event = room.leave(seat, now=now)
            changes = self.store.changes(room_id)
            if not racing:
                changes.drop_seat(seat).expire(self._ttl_ms(room))
                return Plan([room_event(event, room, now, dropped=[seat])], changes)
            entry = dict(data.entries.get(seat) or new_entry(seat, "?", "racing", now, normal=False))
            if entry["status"] == "racing":
                entry["status"] = "left"
                entry["at"] = now
                changes.seat_done(room.race, seat)
            changes.set_entry(entry).drop_presence(seat)
            return Plan([room_event(event, room, now, entries=[entry])], changes)

        room, _, active = await self.change(room_id, step)
        if room.phase == "racing" and active <= 0:
            await self.end_race(room_id)

    # ------------------------------------------------------------------ races

    async def start(self, room_id: str, by: int) -> None:
        countdown_ms = round(self.config.countdown * 1000)

        def step(data: RoomData, now: int) -> Plan:
            room = data.room
            event = room.start(by, now=now, countdown_ms=countdown_ms)
            entries, changes = self._fresh_board(room, "racing", now)
            changes.start_race(room.race, room.racers).expire(self._ttl_ms(room), room.race,
                                                            room.racers)
            return Plan([room_event(event, room, now, entries=entries, reset=True)], changes)

        room, _, _ = await self.change(room_id, step)
        assert room.deadline is not None
        await self.store.due_add(room_id, room.deadline)
        log.info("race_started", room=room_id, race=room.race, players=len(room.racers))

    def _fresh_board(self, room: Room, status: str, now: int) -> tuple[list[Entry], Changes]:
        """A new leaderboard for a new race: a fresh line per player present."""
        normal = room.settings.scoring == "N"
        entries = [new_entry(p.seat, p.nickname, status, now, normal=normal)
                   for p in room.present()]
        changes = self.store.changes(room.id).reset_board()
        for entry in entries:
            changes.set_entry(entry)
        return entries, changes

    async def rematch(self, room_id: str, by: int) -> None:
        def step(data: RoomData, now: int) -> Plan:
            room = data.room
            code = DealCode.random(room.settings.draw, room.settings.scoring)  # type: ignore[arg-type]
            event = room.rematch(by, str(code), now=now)
            entries, changes = self._fresh_board(room, "lobby", now)
            changes.expire(self._ttl_ms(room))
            return Plan([room_event(event, room, now, entries=entries, reset=True)], changes)

        await self.change(room_id, step)

    async def end_race(self, room_id: str, *, now_anyway: bool = False) -> bool:
        """End the room's race if everyone is done or its time is up (or
        ``now_anyway``: a tournament's organizer ends a round): stop its moves,
        rank the final lines, reveal the code. Safe to call again."""
        for _ in range(ATTEMPTS):
            data = await self.store.load(room_id)
            if data is None or data.room.phase != "racing":
                await self.store.due_remove(room_id)
                if data is not None and data.room.settings.tournament:
                    await self._round_over(data.room)
                return False
            room, now = data.room, self.now_ms()
            assert room.deadline is not None
            if data.active > 0 and now < room.deadline and not now_anyway:
                return False
            lines = await self.store.stop_race(room_id, room.race)
            event = room.end(list(lines.values()), now=now)
            changes = (self.store.changes(room_id).stop_race()
                       .expire(self._ttl_ms(room), room.race, room.racers))
            results = room.results or []
            committed = await self.store.commit(
                room, data.rv, [room_event(event, room, now, entries=results, reset=True)], changes)
            if committed.ok:
                await self.store.due_remove(room_id)
                log.info("race_ended", room=room_id, race=room.race,
                         finished=sum(1 for e in results if e["status"] == "finished"))
                if room.settings.tournament:
                    await self._round_over(room)
                return True
        raise StoreUnavailable("the room kept changing; try again")

    async def _round_over(self, room: Room) -> None:
        """A tournament round's race is over: record it in the tournament."""
        if self.on_round_over is not None:
            await self.on_round_over(room)
