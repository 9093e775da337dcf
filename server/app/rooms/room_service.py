"""Room commands: load the room, run the pure transition, commit atomically.

A room commit checks the room version it read; when another process changed
the room in between, the command runs again on the fresh state. Moves never
change the room version, so a race in full swing does not make lobby
commands retry. What differs by where a room's seats live (joining, ready,
kicking, leaving; the writes of a start, a rematch, an end) is its policy's
(:mod:`.policy`: :mod:`.document_seats`, :mod:`.hashed_seats`), chosen once
from its settings.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace
from typing import Any, Final

import structlog

from ...klondike import DealCode
from ...protocol import Reason
from ...race import RaceError, Room, Settings, new_entry, parse_settings
from ...store import RoomData, Store, StoreUnavailable
from ..solver.winnable_deals import WinnableDeals
from .ids import new_room_id, new_token
from .policy import RoomPolicy, policy_for
from .public_rooms import PublicRooms
from .replay_pages import Replays
from .room_config import RoomConfig
from .room_plans import ATTEMPTS, Plan, RoomStep, room_event
from .time_limits import seat_due, time_up

log = structlog.get_logger("app.rooms.room_service")

_KNOWN_SETTINGS: Final = 4096  # rooms whose (never changing) settings a process remembers
#: a race being ended is due a sweeper's look this long after its end (the
#: ending process takes it out of the index when its hooks are done): a
#: process killed right after the end leaves its results and ratings to
#: another within this and a sweep
AFTER_END_MS: Final = 2000

#: what to do once a tournament round's race has ended (set by the tournaments)
RoundOver = Callable[[Room], Awaitable[None]]
#: what to do once any room's race has ended (the players' results: each service adds its own)
RaceOver = Callable[[Room], Awaitable[None]]
#: what may refuse a challenge's player beginning their game (the daily deal's one attempt):
#: the room's settings, its id and the seat; raises a RaceError to refuse
BeforeBegin = Callable[[Settings, str, int], Awaitable[None]]
#: what to do once a challenge player's own game is over (the daily deal's result so far)
GameOver = Callable[[Settings, str, int], Awaitable[None]]
#: a round's player who comes to its room with their tournament token: their seat, if any
RoundSeat = Callable[[Room, str], Awaitable[int | None]]
#: the same, read only: the seat a round's player would take, if they may play it
RoundPlayer = Callable[[Room, str], Awaitable[int | None]]


@dataclass(frozen=True, slots=True, kw_only=True)
class RoomHooks:
    """What the services built on the rooms do when a room's life asks for
    them, connected by the root once every service is made (the rooms are
    made first: they know none of them).

    ``round_over``: a tournament round's race has ended; ``round_seat``: a
    round's player comes to a room that seats them as they come;
    ``round_player``: whom a round's player token names, read only.
    ``race_over``: what runs once any race has ended (the players' results),
    called again by a sweeper when the process ending the race died or Redis
    failed first, so each must be safe to repeat. ``before_begin``: what may
    refuse a challenge's player their game's beginning; ``game_over``: what
    runs once a challenge player's own game is over (its last command, or
    their time up): the daily deal's one attempt and its result so far."""

    round_over: RoundOver | None = None
    round_seat: RoundSeat | None = None
    round_player: RoundPlayer | None = None
    race_over: tuple[RaceOver, ...] = ()
    before_begin: tuple[BeforeBegin, ...] = ()
    game_over: tuple[GameOver, ...] = ()


class Rooms:
    """Room commands; what other services do at points of a room's life is
    their :class:`RoomHooks`, connected by the root (:meth:`connect`)."""

    def __init__(self, store: Store, config: RoomConfig, now_ms: Callable[[], int],
                 winnable: WinnableDeals) -> None:
        self.store = store
        self.config = config
        self.now_ms = now_ms
        self.winnable = winnable
        self.public = PublicRooms(store, config.public_per_address, now_ms)
        self.replays = Replays(store)  # the pages of every replay: a room's, a round's, a challenge's
        self.hooks = RoomHooks()
        self._settings: dict[str, Settings] = {}
        self._deals: dict[tuple[str, int], str] = {}  # (room, race) -> its code, server-side only

    def connect(self, hooks: RoomHooks) -> None:
        """The services built on the rooms, once they are all made (the root's)."""
        self.hooks = hooks

    async def settings_of(self, room_id: str) -> Settings:
        """A room's settings (they never change: remembered once read)."""
        known = self._settings.get(room_id)
        if known is None:
            data = await self.load(room_id)
            known = data.room.settings
        return known

    async def policy_of(self, room_id: str) -> RoomPolicy:
        return policy_for(await self.settings_of(room_id))

    async def deal_of(self, room_id: str, race: int) -> str:
        """The code of a room's race, for a seat that has not played yet: a
        start of thousands reads the room once, not once a seat. Never sent
        to anyone (the room's code is a secret until its race ends)."""
        code = self._deals.get((room_id, race))
        if code is None:
            data = await self.load(room_id)
            if data.room.race != race:  # (another race by now: that seat has no game)
                raise RaceError(Reason.NOT_PLAYING)
            code = data.room.code
            if len(self._deals) >= _KNOWN_SETTINGS:
                self._deals.clear()
            self._deals[(room_id, race)] = code
        return code

    async def load(self, room_id: str) -> RoomData:
        """The room as stored (``unknown_room`` if there is none)."""
        data = await self.store.rooms.load(room_id)
        if data is None:
            raise RaceError(Reason.UNKNOWN_ROOM)
        if len(self._settings) >= _KNOWN_SETTINGS:
            self._settings.clear()
        self._settings[room_id] = data.room.settings
        return data

    def ttl_ms(self, room: Room) -> int:
        """How long a room's keys are kept after this change (the room's
        lifetime in :data:`server.store.keys.LIFETIMES`)."""
        if room.phase == "lobby":
            return self.config.lobby_ttl * 1000 + max(0, (room.scheduled or 0) - self.now_ms())
        kept = policy_for(room.settings).start.kept_ms(self.config)
        if room.settings.tournament:  # a round: its replays last as long as the tournament
            kept = max(kept, self.config.tournament_ttl * 1000)
        if room.phase == "ended":
            return kept
        assert room.deadline is not None
        return max(0, room.deadline - self.now_ms()) + kept

    async def change(self, room_id: str, step: RoomStep) -> tuple[Room, Any, int]:
        """Run ``step`` on the room until its commit lands; the room, the
        step's result and the number of seats still racing."""
        for _ in range(ATTEMPTS):
            data = await self.load(room_id)
            plan = step(data, self.now_ms())
            committed = await self.store.rooms.commit(data.room, data.rv, plan.events, plan.changes)
            if committed.ok:
                return data.room, plan.result, committed.active
            if committed.gone:
                raise RaceError(Reason.UNKNOWN_ROOM)
        raise StoreUnavailable("the room kept changing; try again")

    async def round_seat(self, room: Room, token: str) -> int | None:
        """A tournament's player comes to their round's room with their
        tournament token: the tournament seats them, if they may play it."""
        seat = self.hooks.round_seat
        return None if seat is None else await seat(room, token)

    async def round_player(self, room: Room, token: str) -> int | None:
        """The seat a tournament's player token names in its round's room,
        seated or not yet, if they may play it; nothing is changed."""
        player = self.hooks.round_player
        return None if player is None else await player(room, token)

    # ------------------------------------------------------------------ lobby

    async def new_code(self, settings: Settings) -> str:
        """A new race's deal: the fixed one, a certified winnable one taken
        from the ready codes (``no_winnable_deal`` when none is), or any."""
        if settings.code is not None:
            return settings.code
        if settings.deal == "winnable":
            return (await self.winnable.take(settings.draw, settings.scoring))[0]
        return str(DealCode.random(settings.draw, settings.scoring))  # type: ignore[arg-type]

    async def create(self, nickname: str, settings_data: dict[str, Any], *, address: str = "",
                     room_id: str | None = None, quick: int = 0,
                     rating: str = "", pairing: list[int] | None = None) -> tuple[Room, str]:
        """A new room with its host; a public one listed for ``address``
        first (refused past its cap: nothing is made). ``room_id``: the id
        a quick race was promised (``quick``: its wait in seconds);
        ``rating``: the host's as shown, kept beside them in a rated room;
        ``pairing``: a quick race's (:attr:`Room.pairing`)."""
        settings = parse_settings(settings_data)
        if quick:
            settings = replace(settings, quick=quick)
        policy = policy_for(settings)
        code = await self.new_code(settings)
        for _ in range(ATTEMPTS):
            now = self.now_ms()
            token = new_token()
            room = Room.create(room_id or new_room_id(), settings, code, nickname, token, now=now,
                               rating=rating)
            room.pairing = pairing
            if settings.listed:
                await self.public.claim(room.id, address)
            event, changes = policy.seats.created(self, room, token, now)
            policy.start.opened(changes, room)
            if (await self.store.rooms.commit(room, None, [event], changes)).ok:
                log.info("room_created", room=room.id, mode=settings.public()["mode"],
                         max_players=settings.max_players, public=settings.listed, policy=policy.name)
                await self._opened(room)
                return room, token
            if settings.listed:
                await self.public.drop(room.id)
            if room_id is not None:
                break
        raise StoreUnavailable("could not find a free room id")

    async def open_challenge(self, settings: Settings, *, room_id: str | None = None,
                             opens_at: int | None = None) -> Room:
        """A challenge nobody hosts, open for its window: the server opens
        it (a daily deal is one, of thousands); anyone with its id joins and
        begins when they choose. Its code: the settings' fixed one, or a new
        deal of their kind. Open from now, or from ``opens_at`` (a daily
        deal: its day's start, whenever it is opened); under a new id, or
        ``room_id`` (a derived one: a room already there under it is
        returned as it is, so that every process may open it)."""
        if not settings.challenge:
            raise RaceError(Reason.BAD_SETTINGS, "a room nobody hosts is a challenge: give it a window")
        policy = policy_for(settings)
        code = await self.new_code(settings)
        for _ in range(ATTEMPTS):
            now = self.now_ms()
            room = Room.open(room_id or new_room_id(), settings, code,
                             now=now if opens_at is None else opens_at)
            event, changes = policy.seats.opened(self, room, now)
            policy.start.opened(changes, room)
            if (await self.store.rooms.commit(room, None, [event], changes)).ok:
                log.info("challenge_opened", room=room.id, mode=settings.public()["mode"],
                         max_players=settings.max_players, policy=policy.name)
                await self._opened(room)
                return room
            if room_id is not None:  # opened by another process: its deal, not this one
                if settings.deal == "winnable" and settings.code is None:
                    await self.winnable.give_back(code)
                return (await self.load(room_id)).room
        raise StoreUnavailable("could not find a free room id")

    async def _opened(self, room: Room) -> None:
        """A room racing from its creation (a challenge open for its window):
        the sweepers end it at its deadline."""
        if room.phase == "racing" and room.deadline is not None:
            await self.store.indexes.due_add(room.id, room.deadline)

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
            changes = (self.store.rooms.changes(room.id).start_race(room.race, [0]).set_entry(entry)
                       .expire(self.ttl_ms(room), room.race, [0]))
            if (await self.store.rooms.commit(room, None, events, changes)).ok:
                assert room.deadline is not None
                await self.store.indexes.due_add(room.id, room.deadline)
                return room, token
        raise StoreUnavailable("could not find a free room id")

    async def join(self, room_id: str, nickname: str, *, address: str = "",
                   rating: str = "") -> tuple[int, str, str]:
        """A seat for a new player (from ``address``: a quick race remembers
        when it first came; ``rating``: theirs as shown, kept in a rated
        room): the seat, its token, and the room's phase."""
        settings = await self.settings_of(room_id)
        if settings.tournament is not None:  # its players enter with their token (resume)
            raise RaceError(Reason.ROUND_ROOM)
        token = new_token()
        seat, phase = await policy_for(settings).seats.join(self, room_id, settings, nickname,
                                                            token, address=address, rating=rating)
        if settings.quick:
            await self._quick_due(room_id)
        return seat, token, phase

    async def _quick_due(self, room_id: str) -> None:
        """A quick race's room sets its start itself (:meth:`Room.join`,
        :meth:`Room.leave`): the sweepers start it then."""
        room = (await self.load(room_id)).room
        if room.phase == "lobby" and room.scheduled is not None:
            countdown_ms = round(self.config.countdown * 1000)
            await self.store.indexes.due_add(room_id, room.scheduled - countdown_ms)

    async def seat_of(self, room_id: str, token: str) -> int | None:
        """The seat whose token this is (``None``: none)."""
        return await (await self.policy_of(room_id)).seats.seat_of(self, room_id, token)

    async def seat_named(self, room_id: str, token: str) -> tuple[int | None, bool, str] | None:
        """The seat ``token`` names, read only (a round's player not seated
        yet: the seat they would take), whether it races in the room's race
        (in a challenge, only while its own game is on: begun, not over), and the room's
        phase; ``None`` if there is no such room."""
        data = await self.store.rooms.load(room_id)
        if data is None:
            return None
        policy = policy_for(data.room.settings)
        seat, racing = await policy.seats.named(self, data, token)
        if racing and seat is not None and policy.start.watch_once_done:
            stored = await self.store.seats.load_seat(room_id, data.room.race, seat)
            racing = stored.exists and not stored.done
        return seat, racing, data.room.phase

    async def ready(self, room_id: str, seat: int, ready: bool) -> None:
        await (await self.policy_of(room_id)).seats.ready(self, room_id, seat, ready)

    async def kick(self, room_id: str, by: int, seat: int) -> None:
        await (await self.policy_of(room_id)).seats.kick(self, room_id, by, seat)

    async def leave(self, room_id: str, seat: int, *, round_kick: bool = False) -> None:
        """The player leaves the room (``round_kick``: a tournament's
        organizer kicked them, out of its round's race); out of a quick
        race's lobby, their seat is offered again."""
        settings = await self.settings_of(room_id)
        lobby = settings.quick and (await self.load(room_id)).room.phase == "lobby"
        await policy_for(settings).seats.leave(self, room_id, seat, round_kick=round_kick)
        if lobby:
            await self.store.lobby.quick_left(settings.public()["mode"], room_id)

    # ------------------------------------------------------------------ races

    async def start(self, room_id: str, by: int, at: int | None = None) -> bool:
        """``start``, as the room's policy says: the host starts the race
        (``False``), or a challenge's player begins their own game (``True``)."""
        return await (await self.policy_of(room_id)).start.start(self, room_id, by, at)

    async def start_race(self, room_id: str, by: int | None, at: int | None = None) -> None:
        """The host starts the race (``by``: their seat; ``None``: the time
        set ahead has come): after the countdown, or at the server time
        ``at`` (ms; where the room allows one: it waits in its lobby until
        then, and anyone may still join)."""
        countdown_ms = round(self.config.countdown * 1000)
        if at is not None and by is not None and at > self.now_ms() + countdown_ms:
            await self._schedule(room_id, by, at, countdown_ms)
            return
        seats = (await self.policy_of(room_id)).seats

        def step(data: RoomData, now: int) -> Plan:
            event = data.room.start(by, now=now, countdown_ms=countdown_ms)
            return seats.started(self, data, event, now)

        room, _, active = await self.change(room_id, step)
        assert room.deadline is not None
        await self.store.indexes.due_add(room_id, room.deadline)
        await self.public.follow(room)
        log.info("race_started", room=room_id, race=room.race, players=active)

    async def _schedule(self, room_id: str, by: int, at: int, countdown_ms: int) -> None:
        """The race will start at ``at``: its countdown begins then minus the countdown."""

        def step(data: RoomData, now: int) -> Plan:
            room = data.room
            event = room.schedule(by, at, now=now)
            changes = self.store.rooms.changes(room_id).expire(self.ttl_ms(room))
            return Plan([room_event(event, room, now, counts=data.counts)], changes)

        await self.change(room_id, step)
        await self.store.indexes.due_add(room_id, at - countdown_ms)


    async def begin(self, room_id: str, seat: int) -> None:
        """A challenge's player begins their own game now: on their own
        clock, until their time limit or the window's close (the sweepers
        end it then, if it is still on)."""
        settings = await self.settings_of(room_id)
        for check in self.hooks.before_begin:
            await check(settings, room_id, seat)
        started, ends = await policy_for(settings).seats.begin(self, room_id, seat)
        if settings.time_limit:
            await self.store.indexes.due_add(seat_due(room_id, seat), ends)
        log.info("game_begun", room=room_id, seat=seat, started=started)

    async def due(self, member: str) -> None:
        """A deadline has come (the sweeper): a scheduled start, the end of
        a race, or a challenge player's time limit (``R:seat``)."""
        room_id, _, seat = member.partition(":")
        if seat:
            if await time_up(self, room_id, int(seat)):
                await self.game_over(room_id, int(seat))
            await self.store.indexes.due_remove(member)
            return
        data = await self.store.rooms.load(room_id)
        if data is not None and data.room.phase == "lobby" and data.room.scheduled:
            await self.store.indexes.due_remove(room_id)
            try:
                await self.start_race(room_id, None)  # a live race's start set ahead (a challenge has none)
            except RaceError as exc:  # started or changed meanwhile
                log.info("scheduled_start_skipped", room=room_id, reason=exc.reason.value)
            return
        await self.end_race(room_id)

    async def game_over(self, room_id: str, seat: int) -> None:
        """A challenge player's own game is over: what follows from it
        (the hooks' ``game_over``), and its time limit no longer in the sweepers'
        index (a finished game keeps no deadline). Each hook's failure is
        logged, never in the way of the command that ended the game."""
        settings = await self.settings_of(room_id)
        if settings.time_limit:
            await self.store.indexes.due_remove(seat_due(room_id, seat))
        for hook in self.hooks.game_over:
            try:
                await hook(settings, room_id, seat)
            except Exception:
                log.exception("game_over_failed", room=room_id, seat=seat)

    async def rematch(self, room_id: str, by: int, *, address: str = "") -> None:
        """The host deals again: a new lobby, listed again if the room is
        public (for ``address``, the host's, within its cap)."""
        settings = await self.settings_of(room_id)
        policy = policy_for(settings)
        code = await self.new_code(replace(settings, code=None))  # a rematch is a new deal

        def step(data: RoomData, now: int) -> Plan:
            event = data.room.rematch(by, code, now=now)
            plan = policy.seats.rematched(self, data, event, now)
            policy.start.opened(plan.changes, data.room)  # (a challenge opens again)
            return plan

        try:
            room, _, _ = await self.change(room_id, step)
            await self._opened(room)
        except RaceError:  # refused (not the host, not ended): a winnable code goes back
            if settings.deal == "winnable" and settings.code is None:
                await self.winnable.give_back(code)
            raise
        await self.public.follow(room, address)
        if settings.quick:
            await self._quick_due(room_id)

    async def end_race(self, room_id: str, *, now_anyway: bool = False) -> bool:
        """End the room's race if everyone is done or its time is up (or
        ``now_anyway``: a tournament's organizer ends a round): stop its moves,
        rank the final lines, reveal the code. Safe to call again."""
        for _ in range(ATTEMPTS):
            data = await self.store.rooms.load(room_id)
            if data is None or data.room.phase != "racing":
                if data is not None and data.room.settings.tournament:
                    await self._round_over(data.room)
                if data is not None:
                    await self._race_over(data.room)
                if data is not None and data.room.phase == "ended":
                    await self.public.follow(data.room)  # (a process died before it did)
                await self.store.indexes.due_remove(room_id)
                return False
            room, now = data.room, self.now_ms()
            assert room.deadline is not None
            policy = policy_for(room.settings)
            everyone_done = data.active <= 0 and policy.start.ends_when_done
            if now < room.deadline and not now_anyway and not everyone_done:
                return False
            seats = policy.seats
            # if this process dies once the end is committed, a sweeper finishes its hooks soon,
            # not at the race's deadline (a quick race's 10 minutes, a day for no time limit)
            await self.store.indexes.due_add(room_id, now + AFTER_END_MS)
            event = room.end(await seats.final_lines(self, data), now=now)
            changes = (self.store.rooms.changes(room_id).stop_race()
                       .expire(self.ttl_ms(room), room.race, room.racers))
            committed = await self.store.rooms.commit(room, data.rv, [seats.ended(event, room, now, data)],
                                                changes)
            if committed.ok:
                results = room.results or []
                log.info("race_ended", room=room_id, race=room.race,
                         finished=sum(1 for e in results if e["status"] == "finished"))
                if room.settings.tournament:  # recorded before the room leaves the sweepers' index
                    await self._round_over(room)
                await self._race_over(room)
                await self.public.follow(room)
                await self.store.indexes.due_remove(room_id)
                return True
        raise StoreUnavailable("the room kept changing; try again")

    async def _round_over(self, room: Room) -> None:
        """A tournament round's race is over: record it in the tournament."""
        if self.hooks.round_over is not None:
            await self.hooks.round_over(room)

    async def _race_over(self, room: Room) -> None:
        """Any race is over (or a room already ended is looked at again)."""
        for hook in self.hooks.race_over:
            await hook(room)
