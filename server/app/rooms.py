"""Room commands: load the room, run the pure transition, commit atomically.

A room commit checks the room version it read; when another process changed
the room in between, the command runs again on the fresh state. Moves never
change the room version, so a race in full swing does not make lobby
commands retry. A big room's seats change without it (:mod:`.big_rooms`):
only its own changes (start, end, rematch, a new host) are commits.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Final

import orjson
import structlog

from ..klondike import DealCode
from ..protocol import Reason
from ..race import Entry, RaceError, Room, Settings, new_entry, parse_settings
from ..race.leaderboard import line_tail
from ..race.names import fold
from ..race.ranking import rank_score
from ..race.tokens import hash_token
from ..store import Changes, RoomData, Store, StoreUnavailable
from .big_rooms import BigRooms, fresh_line
from .config import Config
from .ids import new_room_id, new_token
from .winnable import WinnableDeals

log = structlog.get_logger("app.rooms")

ATTEMPTS: Final = 10
_KNOWN_SETTINGS: Final = 4096  # rooms whose (never changing) settings a process remembers
def room_event(event: dict[str, Any], room: Room, now: int, *, entries: Sequence[Entry] = (),
               reset: bool = False, dropped: Sequence[int] = (),
               counts: dict[str, int] | None = None) -> dict[str, Any]:
    """A room event as recorded: what happened, when, the room as anyone may
    see it now (a big room's with its ``counts``), and the leaderboard lines
    it changed (never in a big room)."""
    out = dict(event)
    out["at"] = now
    out["room"] = room.public(now, counts)
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

    def __init__(self, store: Store, config: Config, now_ms: Callable[[], int],
                 winnable: WinnableDeals) -> None:
        self.store = store
        self.config = config
        self.now_ms = now_ms
        self.winnable = winnable
        self.on_round_over: RoundOver | None = None
        self.big = BigRooms(store, now_ms)
        self._settings: dict[str, Settings] = {}
        self._deals: dict[tuple[str, int], str] = {}  # (room, race) -> its code, server-side only

    async def settings_of(self, room_id: str) -> Settings:
        """A room's settings (they never change: remembered once read)."""
        known = self._settings.get(room_id)
        if known is None:
            data = await self._load(room_id)
            known = data.room.settings
        return known

    async def deal_of(self, room_id: str, race: int) -> str:
        """The code of a room's race, for a seat that has not played yet: a
        start of thousands reads the room once, not once a seat. Never sent
        to anyone (the room's code is a secret until its race ends)."""
        code = self._deals.get((room_id, race))
        if code is None:
            data = await self._load(room_id)
            if data.room.race != race:  # (another race by now: that seat has no game)
                raise RaceError(Reason.NOT_PLAYING)
            code = data.room.code
            if len(self._deals) >= _KNOWN_SETTINGS:
                self._deals.clear()
            self._deals[(room_id, race)] = code
        return code

    async def _load(self, room_id: str) -> RoomData:
        data = await self.store.load(room_id)
        if data is None:
            raise RaceError(Reason.UNKNOWN_ROOM)
        if len(self._settings) >= _KNOWN_SETTINGS:
            self._settings.clear()
        self._settings[room_id] = data.room.settings
        return data

    def ttl_ms(self, room: Room) -> int:
        """How long a room's keys are kept after this change."""
        if room.phase == "lobby":
            return self.config.lobby_ttl * 1000 + max(0, (room.scheduled or 0) - self.now_ms())
        kept = self.config.finished_ttl * 1000
        if room.settings.tournament:  # a round: its replays last as long as the tournament
            kept = max(kept, self.config.tournament_ttl * 1000)
        if room.phase == "ended":
            return kept
        assert room.deadline is not None
        return max(0, room.deadline - self.now_ms()) + kept

    async def change(self, room_id: str, step: Callable[[RoomData, int], Plan]) -> tuple[Room, Any, int]:
        """Run ``step`` on the room until its commit lands; the room, the
        step's result and the number of seats still racing."""
        for _ in range(ATTEMPTS):
            data = await self._load(room_id)
            plan = step(data, self.now_ms())
            committed = await self.store.commit(data.room, data.rv, plan.events, plan.changes)
            if committed.ok:
                return data.room, plan.result, committed.active
            if committed.gone:
                raise RaceError(Reason.UNKNOWN_ROOM)
        raise StoreUnavailable("the room kept changing; try again")

    # ------------------------------------------------------------------ lobby

    async def new_code(self, settings: Settings) -> str:
        """A new race's deal: the fixed one, a certified winnable one taken
        from the ready codes (``no_winnable_deal`` when none is), or any."""
        if settings.code is not None:
            return settings.code
        if settings.deal == "winnable":
            return (await self.winnable.take(settings.draw, settings.scoring))[0]
        return str(DealCode.random(settings.draw, settings.scoring))  # type: ignore[arg-type]

    async def create(self, nickname: str, settings_data: dict[str, Any]) -> tuple[Room, str]:
        settings = parse_settings(settings_data)
        code = await self.new_code(settings)
        if settings.big:
            return await self._create_big(nickname, settings, code)
        for _ in range(ATTEMPTS):
            now = self.now_ms()
            token = new_token()
            room = Room.create(new_room_id(), settings, code, nickname, token, now=now)
            entry = new_entry(0, room.players[0].nickname, "lobby", now,
                              normal=settings.scoring == "N")
            event = room_event({"kind": "created", "seat": 0}, room, now, entries=[entry],
                               reset=True)
            changes = self.store.changes(room.id).set_entry(entry).expire(self.ttl_ms(room))
            if (await self.store.commit(room, None, [event], changes)).ok:
                log.info("room_created", room=room.id, mode=settings.public()["mode"])
                return room, token
        raise StoreUnavailable("could not find a free room id")

    async def _create_big(self, nickname: str, settings: Settings, code: str) -> tuple[Room, str]:
        for _ in range(ATTEMPTS):
            now = self.now_ms()
            token = new_token()
            room = Room.create_big(new_room_id(), settings, code, nickname, now=now)
            line = {**fresh_line("lobby", now, normal=settings.scoring == "N"), "seat": 0,
                    "nickname": room.host_name}
            event = room_event({"kind": "created", "seat": 0}, room, now,
                               counts={"players": 1, "ready": 0})
            changes = (self.store.changes(room.id)
                       .hashed_seats(settings.max_players, settings.late)
                       .first_seat(room.host_name, fold(room.host_name), hash_token(token))
                       .set_entry(line, rank_score(line, now, now)).expire(self.ttl_ms(room)))
            if (await self.store.commit(room, None, [event], changes)).ok:
                log.info("room_created", room=room.id, mode=settings.public()["mode"],
                         max_players=settings.max_players)
                return room, token
        raise StoreUnavailable("could not find a free room id")

    async def solo(self, nickname: str, code: str | None, draw: int, scoring: str,
                   deal: str = "random", assists: str = "basic") -> tuple[Room, str]:
        """A one-player room whose race starts at once."""
        settings = parse_settings({"code": code, "draw": draw, "scoring": scoring,
                                   "max_players": 1, "boards": "after", "deal": deal,
                                   "assists": assists}, solo=True)
        code = await self.new_code(settings)
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
                       .expire(self.ttl_ms(room), room.race, [0]))
            if (await self.store.commit(room, None, events, changes)).ok:
                assert room.deadline is not None
                await self.store.due_add(room.id, room.deadline)
                return room, token
        raise StoreUnavailable("could not find a free room id")

    async def join(self, room_id: str, nickname: str) -> tuple[int, str, str]:
        """A seat for a new player: the seat, its token, and the room's phase."""
        settings = await self.settings_of(room_id)
        if settings.tournament is not None:  # its players enter with their token (resume)
            raise RaceError(Reason.ROUND_ROOM)
        if settings.big:
            token = new_token()
            seat, phase = await self.big.join(room_id, settings, nickname, token)
            return seat, token, phase

        def step(data: RoomData, now: int) -> Plan:
            room, token = data.room, new_token()
            event = room.join(nickname, token, now=now)
            seat = event["seat"]
            normal = room.settings.scoring == "N"
            changes = self.store.changes(room.id)
            if event.get("racing"):  # admitted into the race (the room's ``late`` says so)
                late = event["started"] > (room.start_at or 0)
                entry = new_entry(seat, event["nickname"], "racing", now, normal=normal,
                                  started=event["started"] if late else None)
                changes.late_seat(room.race, seat)
            else:
                entry = new_entry(seat, event["nickname"], "lobby", now, normal=normal)
            changes.set_entry(entry).expire(self.ttl_ms(room), room.race, [seat])
            return Plan([room_event(event, room, now, entries=[entry])], changes, (seat, token))

        room, (seat, token), _ = await self.change(room_id, step)
        return seat, token, room.phase

    async def ready(self, room_id: str, seat: int, ready: bool) -> None:
        if (await self.settings_of(room_id)).big:
            await self.big.ready(await self._load(room_id), seat, ready)
            return

        def step(data: RoomData, now: int) -> Plan:
            event = data.room.set_ready(seat, ready, now=now)
            changes = self.store.changes(room_id).expire(self.ttl_ms(data.room))
            return Plan([room_event(event, data.room, now)], changes)

        await self.change(room_id, step)

    async def kick(self, room_id: str, by: int, seat: int) -> None:
        if (await self.settings_of(room_id)).big:
            data = await self._load(room_id)
            self.big.check_kick(data.room, by, seat)
            await self.big.leave(data, seat, kick=True)
            return

        def step(data: RoomData, now: int) -> Plan:
            event = data.room.kick(by, seat, now=now)
            changes = self.store.changes(room_id).drop_seat(seat).expire(self.ttl_ms(data.room))
            return Plan([room_event(event, data.room, now, dropped=[seat])], changes)

        await self.change(room_id, step)

    async def leave(self, room_id: str, seat: int, *, round_kick: bool = False) -> None:
        """The player leaves the room (``round_kick``: a big tournament's
        organizer kicked them, out of its round's race)."""
        if (await self.settings_of(room_id)).big:
            data = await self._load(room_id)
            active, host = await self.big.leave(data, seat, round_kick=round_kick)
            if host >= 0:
                await self._new_host(room_id, seat, host)
            if data.room.phase == "racing" and active == 0:
                await self.end_race(room_id)
            return

        def step(data: RoomData, now: int) -> Plan:
            room = data.room
            racing = room.phase == "racing" and seat in room.racers
            event = room.leave(seat, now=now)
            changes = self.store.changes(room_id)
            if not racing:
                changes.drop_seat(seat).expire(self.ttl_ms(room))
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

    async def _new_host(self, room_id: str, was: int, host: int) -> None:
        """The host of a big room left: ``host`` takes over (unless someone
        else did meanwhile)."""
        nickname = await self.store.nickname(room_id, host) or ""

        def step(data: RoomData, now: int) -> Plan:
            room = data.room
            if room.host != was:
                return Plan([], self.store.changes(room_id))
            room.host, room.host_name = host, nickname
            event = {"kind": "host", "seat": host, "nickname": nickname}
            return Plan([room_event(event, room, now, counts=data.counts)],
                        self.store.changes(room_id))

        await self.change(room_id, step)

    # ------------------------------------------------------------------ races

    async def start(self, room_id: str, by: int, at: int | None = None) -> None:
        """The host starts the race: after the countdown, or at the server
        time ``at`` (ms; a big room's host may set one: the room waits in
        its lobby until then, and anyone may still join)."""
        countdown_ms = round(self.config.countdown * 1000)
        if at is not None and at > self.now_ms() + countdown_ms:
            await self._schedule(room_id, by, at, countdown_ms)
            return

        def step(data: RoomData, now: int) -> Plan:
            room = data.room
            event = room.start(by, now=now, countdown_ms=countdown_ms)
            if room.settings.big:
                line = fresh_line("racing", now, normal=room.settings.scoring == "N")
                assert room.start_at is not None
                changes = (self.store.changes(room_id)
                           .reset_seats(line_tail(line), rank_score(line, now, now), room.race,
                                        self.ttl_ms(room))
                           .expire(self.ttl_ms(room)))
                return Plan([room_event(event, room, now, counts=data.counts)], changes)
            entries, changes = self._fresh_board(room, "racing", now)
            changes.start_race(room.race, room.racers).expire(self.ttl_ms(room), room.race,
                                                            room.racers)
            return Plan([room_event(event, room, now, entries=entries, reset=True)], changes)

        room, _, active = await self.change(room_id, step)
        assert room.deadline is not None
        await self.store.due_add(room_id, room.deadline)
        log.info("race_started", room=room_id, race=room.race,
                 players=active if room.settings.big else len(room.racers))

    async def _schedule(self, room_id: str, by: int, at: int, countdown_ms: int) -> None:
        """The race will start at ``at``: its countdown begins then minus the countdown."""

        def step(data: RoomData, now: int) -> Plan:
            room = data.room
            event = room.schedule(by, at, now=now)
            changes = self.store.changes(room_id).expire(self.ttl_ms(room))
            return Plan([room_event(event, room, now, counts=data.counts)], changes)

        await self.change(room_id, step)
        await self.store.due_add(room_id, at - countdown_ms)

    async def due(self, room_id: str) -> None:
        """A room's time has come (the deadline sweeper): a scheduled start,
        or the end of a race."""
        data = await self.store.load(room_id)
        if data is not None and data.room.phase == "lobby" and data.room.scheduled:
            room = data.room
            await self.store.due_remove(room_id)
            try:
                await self.start(room_id, room.host)
            except RaceError as exc:  # started or changed meanwhile
                log.info("scheduled_start_skipped", room=room_id, reason=exc.reason.value)
            return
        await self.end_race(room_id)

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
        settings = await self.settings_of(room_id)
        code = await self.new_code(replace(settings, code=None))  # a rematch is a new deal

        def step(data: RoomData, now: int) -> Plan:
            room = data.room
            event = room.rematch(by, code, now=now)
            if room.settings.big:
                line = fresh_line("lobby", now, normal=room.settings.scoring == "N")
                changes = (self.store.changes(room_id)
                           .reset_seats(line_tail(line), rank_score(line, now, now), 0,
                                        self.ttl_ms(room))
                           .expire(self.ttl_ms(room)))
                return Plan([room_event(event, room, now, counts=data.counts)], changes)
            entries, changes = self._fresh_board(room, "lobby", now)
            changes.expire(self.ttl_ms(room))
            return Plan([room_event(event, room, now, entries=entries, reset=True)], changes)

        try:
            await self.change(room_id, step)
        except RaceError:  # refused (not the host, not ended): a winnable code goes back
            if settings.deal == "winnable" and settings.code is None:
                await self.winnable.give_back(code)
            raise

    async def end_race(self, room_id: str, *, now_anyway: bool = False) -> bool:
        """End the room's race if everyone is done or its time is up (or
        ``now_anyway``: a tournament's organizer ends a round): stop its moves,
        rank the final lines, reveal the code. Safe to call again."""
        for _ in range(ATTEMPTS):
            data = await self.store.load(room_id)
            if data is None or data.room.phase != "racing":
                if data is not None and data.room.settings.tournament:
                    await self._round_over(data.room)
                await self.store.due_remove(room_id)
                return False
            room, now = data.room, self.now_ms()
            assert room.deadline is not None
            if data.active > 0 and now < room.deadline and not now_anyway:
                return False
            big = room.settings.big
            lines = await self.store.stop_race(room_id, room.race, lines=not big)
            if big:  # its results are its ranking: the room keeps the top lines
                _, top = await self.store.page(room_id, 1, room.settings.top)
                event = room.end([orjson.loads(line) for line in top], now=now)
            else:
                event = room.end(list(lines.values()), now=now)
            changes = (self.store.changes(room_id).stop_race()
                       .expire(self.ttl_ms(room), room.race, room.racers))
            results = room.results or []
            recorded = (room_event(event, room, now, counts=data.counts) if big else
                        room_event(event, room, now, entries=results, reset=True))
            committed = await self.store.commit(room, data.rv, [recorded], changes)
            if committed.ok:
                log.info("race_ended", room=room_id, race=room.race,
                         finished=sum(1 for e in results if e["status"] == "finished"))
                if room.settings.tournament:  # recorded before the room leaves the sweepers' index
                    await self._round_over(room)
                await self.store.due_remove(room_id)
                return True
        raise StoreUnavailable("the room kept changing; try again")

    async def _round_over(self, room: Room) -> None:
        """A tournament round's race is over: record it in the tournament."""
        if self.on_round_over is not None:
            await self.on_round_over(room)
