"""A room's leaderboard that travels by ticks: its top lines shared, each
player's own place beside them, as in a room of thousands. Each move updates
the room's ranking in Redis (a sorted set) and answers the player's rank;
nothing else is sent per move. Its counterpart for rooms of a few is
:mod:`.live_board`; a room's policy (:mod:`.policy`) picks one when the room
is created.

Every ``tick`` seconds (aligned on the server clock, so every process ticks
at the same moments), each process with connections in the room:

1. reads, for its own players, each one's rank and the lines just above and
   below (the ``near`` script, a few hundred seats per call), and keeps for
   each player a small frame of their own, when it changed; it starts a
   little before the tick's boundary (``READ_AHEAD``), so that the shared
   frame, which waits for them, is not held back by them;
2. asks Redis, at the boundary, to build the room's shared leaderboard for
   this tick (the ``tick`` script: the top N lines, which of them are offline, the field's
   progress). The first process to ask builds and publishes it; the others'
   call costs one ``HGET``. Every process receives the published tick on the
   room's channel, frames it once and writes it to all its connections in
   the room, each with its own frame beside it in the same write
   (:meth:`Ticker.on_top`; a shared frame that arrives while this process is
   still reading its players' places waits for them). The writes are spread
   over the first part of the tick, a slice of connections at a time, so
   neither this process's loop (moves wait behind it) nor the clients get
   the whole room's frames at one instant; own frames whose tick brings no
   new shared one go out alone a moment later;
3. for its spectators: the boards of the top players and of the players
   they follow, as the room's ``boards`` setting allows (live, delayed, or
   once the race has ended: :mod:`.tick_spectators`).

So a player receives at most one shared frame and one frame of their own per
tick, whatever the size of the room, and Redis does per tick one build per
room plus one ``near`` per process and few hundred players.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Final

import orjson
import structlog

from ...protocol import frame, place_frame
from ...race import Entry
from ...race.leaderboard import line_of
from ...race.ranking import rank_score, registration_ties
from ...race.seating import final_line
from ...store import Applied, Ranked, RoomData, SeatCommand, Store, StoreUnavailable
from ..ground.frame_writer import text_frame
from .listener import Listener
from .tick_spectators import TickedRoom, TickSpectators

log = structlog.get_logger("app.rooms.ticker")

NEAR_CHUNK: Final = 400  # seats per ``near`` call: keeps each script short
NEAR_PARALLEL: Final = 4  # ``near`` calls in flight at once
LONE_AFTER: Final = 0.25  # of a tick: own frames still waiting for a shared one then go alone
READ_AHEAD: Final = 0.3  # of a tick: the own places are read from then before its boundary
FAN_SLICE: Final = 200  # connections written to per callback when a tick comes
FAN_SPREAD: Final = 0.4  # of a tick: the time over which those slices are spread


@dataclass(frozen=True, slots=True)
class _Fan:
    """One tick being written out: its shared frame (payload and whole
    websocket frame; none when own frames go alone) and the own frames that
    go with it."""

    generation: int  # (0 for own frames alone)
    top: bytes | None
    wire: bytes | None
    own: dict[Listener, bytes]


def _untimed(message: dict[str, Any]) -> dict[str, Any]:
    """A tick without its number."""
    return {k: v for k, v in message.items() if k != "tick"}


class Ticker:
    """The tick of one big room's hub (see the module's docstring)."""

    def __init__(self, hub: TickedRoom, interval: float) -> None:
        self.hub = hub
        self.interval = interval
        self.top: dict[str, Any] | None = None  # the latest tick, as published
        self.top_frame: bytes | None = None
        self._sent: dict[Listener, bytes] = {}  # what each connection last got of its own
        self._own: dict[Listener, bytes] = {}  # own frames of this tick, waiting for the shared one
        self._reading = False  # this tick's own places are being read
        self._early: dict[str, Any] | None = None  # a shared frame that came meanwhile
        self._fanning = 0  # the generation of the tick being written out
        self.spectators = TickSpectators(hub, self._send_own, self.seen_place)
        self._task: asyncio.Task[None] | None = None
        self._registration = False  # ties by registration (a tournament's round), once loaded

    async def load(self, data: RoomData) -> None:
        """Start ticking, from the latest tick kept in Redis."""
        self.reset(data)
        await self.load_top()
        self._task = asyncio.create_task(self._run(), name=f"tick-{self.hub.room_id}")

    def reset(self, data: RoomData) -> None:
        """The hub read its room again: the next tick says where things stand."""
        self._registration = registration_ties(data.room.settings)

    def public_changed(self) -> None:
        """(Its spectators' boards come each tick, as the room allows.)"""

    def close(self) -> None:
        if self._task is not None:
            self._task.cancel()

    def forget(self, listener: Listener) -> None:
        self._sent.pop(listener, None)
        self._own.pop(listener, None)

    def sync_members(self) -> dict[str, Any]:
        """What a ``sync`` frame carries of the leaderboard: the latest tick."""
        return {"top": self.top}

    def frame(self) -> bytes | None:
        """The leaderboard as it stands: the latest tick's frame."""
        return self.top_frame

    def on_line_event(self, event: dict[str, Any]) -> None:
        """(The lines of a ticked room never travel as events.)"""

    def on_room_event(self, event: dict[str, Any]) -> None:
        """(A room event carries no lines here: the ticks do.)"""

    def on_notice(self, notice: dict[str, Any]) -> None:
        """A tick published on the room's channel (``{"x": "top"}``)."""
        if notice.get("x") == "top":
            self.on_top(notice)

    async def joined(self, session: Listener) -> None:
        """A player took their seat here: their place now."""
        await self.send_own([session])

    async def send_boards_to(self, watchers: list[Listener]) -> None:
        """The boards new spectators (or a new follow) may see now."""
        for watcher in watchers:
            await self.spectators.boards_now(watcher)

    # ------------------------------------------------------------------ a player's moves

    async def record(self, store: Store, room_id: str, cmd: SeatCommand, *, entry: Entry,
                     base: Entry, seen: Entry, seen_before: Entry,
                     board: Callable[[], dict[str, Any]], boards_mode: str, now: int,
                     start_at: int) -> Applied:
        """Store a move with no event: its place in the ranking and the
        field's progress, as the others see the line (``seen``: a
        challenge's game going on is ranked and counted by no figure of
        it); the reply says the seat's rank."""
        score = rank_score(seen, start_at, now, registration=self._registration)
        ranked = Ranked(score, int(seen_before.get("foundation", 0)),
                        int(seen.get("foundation", 0)), base["status"], entry["status"])
        return await store.seats.apply_ranked(room_id, cmd, ranked)

    @staticmethod
    def ack(d: dict[str, Any], applied: Applied) -> dict[str, Any]:
        """An ``ack``'s data with the player's place: ``rank`` of ``of``."""
        return {**d, "rank": applied.rank, "of": applied.of}

    def send_ack(self, session: Listener, data: bytes) -> None:
        """Write a player's ``ack`` (its place rides in it)."""
        self.hub.send_frames(session, [text_frame(data)], [data], essential=True)

    @staticmethod
    def line_event(seat: int, line: Entry, at: int) -> bytes | None:
        """(A line changed without a move: the next tick says so.)"""
        return None

    @staticmethod
    def ranked_score(line: Entry, since: int, at: int, *, registration: bool) -> int | None:
        """A line's place in the race's ranking (``registration``: a
        tournament's round)."""
        return rank_score(line, since, at, registration=registration)

    @staticmethod
    def line_of(entry: Entry) -> Entry:
        """The line as the ranking keeps it: only what a line shows."""
        return line_of(entry)

    @staticmethod
    def shares_status(boards_mode: str) -> bool:
        """Spectators' boards are read from the seats' snapshots each tick:
        a solver's status is the player's only."""
        return False

    # ------------------------------------------------------------------ looking through

    async def page(self, first: int, count: int) -> tuple[int, list[Entry]]:
        """How many are ranked, and the lines from rank ``first`` on."""
        of, raw = await self.hub.store.ranks.page(self.hub.room_id, first, count)
        return of, [self._shown(orjson.loads(line)) for line in raw]

    async def find(self, name: str, fold: str) -> dict[str, Any] | None:
        """The player with this nickname: seat, rank (0 before they are
        ranked) and line."""
        found = await self.hub.store.ranks.find(self.hub.room_id, fold)
        if found is None:
            return None
        seat, rank, raw = found
        return {"seat": seat, "rank": rank,
                "line": self._shown(orjson.loads(raw)) if raw else None}

    def _shown(self, line: Entry) -> Entry:
        """A line as the room shows it now: after the race, still playing is
        unfinished; while a challenge is open, a game not over shows no figures."""
        return final_line(line) if self.hub.phase_now() == "ended" else self.hub.seen(line)

    def seen_place(self, place: bytes, *, own: bool) -> bytes:
        """A place as the ``near`` script built it (JSON members), its lines
        as the others see them (``own``: the line is the receiver's own,
        whole); untouched while every line shows whole."""
        if not self.hub.hiding() or b'"racing"' not in place:
            return place
        data = orjson.loads(b"{" + place + b"}")
        for key in ("above", "below") if own else ("above", "line", "below"):
            if data.get(key):
                data[key] = self.hub.seen(data[key])
        return orjson.dumps(data)[1:-1]

    def _seen_top(self, message: dict[str, Any]) -> dict[str, Any]:
        """A tick as the others see its lines."""
        if self.hub.hiding() and message.get("top"):
            message["top"] = [self.hub.seen(line) for line in message["top"]]
        return message

    # ------------------------------------------------------------------ the shared part

    def on_top(self, message: dict[str, Any]) -> None:
        """A tick published on the room's channel: framed once, to every
        connection here, each with its own frame of this tick beside it
        (so, while those are still being read, once they are)."""
        message.pop("x", None)
        self._seen_top(message)
        if self.hub.hiding() and self.top is not None and _untimed(message) == _untimed(self.top):
            return  # what changed is hidden (a challenge's game going on): nothing to say
        if self._reading:
            self._early = message
            return
        self.top = message
        top = self.top_frame = frame("top", message)
        own, self._own = self._own, {}
        self._fanning += 1
        self._spread(_Fan(self._fanning, top, text_frame(top), own), list(self.hub.sessions))

    def _send_lone(self) -> None:
        """Own frames whose tick brought no shared frame (nothing changed at
        the top, or it was late): alone, spread like a tick's."""
        own, self._own = self._own, {}
        if own:
            self._spread(_Fan(0, None, None, own), list(own))

    def _spread(self, fan: _Fan, sessions: list[Listener]) -> None:
        """Write ``fan`` to ``sessions`` a slice at a time over part of the
        tick: the first slice now, the others ``gap`` apart."""
        slices = max(1, -(-len(sessions) // FAN_SLICE))
        gap = self.interval * FAN_SPREAD / slices
        loop = asyncio.get_running_loop()
        self._fan_out(fan, sessions[:FAN_SLICE])
        for k in range(1, slices):
            loop.call_later(k * gap, self._fan_out, fan, sessions[k * FAN_SLICE:(k + 1) * FAN_SLICE])

    def _fan_out(self, fan: _Fan, sessions: list[Listener]) -> None:
        """One slice of a fan's writes. A newer tick's shared frame
        supersedes an older one still going out: nobody gets an older shared
        frame after a newer one, and the own frames of this slice wait for
        the next. An own frame goes only while it is still the player's
        latest (a newer one may have gone meanwhile)."""
        if fan.wire is not None and fan.generation != self._fanning:
            for session in sessions:
                if session in fan.own:
                    self._own.setdefault(session, fan.own[session])
            return
        hub = self.hub
        for session in sessions:
            if session not in hub.sessions:
                continue  # gone since the tick came
            mine = fan.own.get(session)
            if mine is not None and self._sent.get(session) is not mine:
                mine = None
            if fan.wire is None or fan.top is None:
                if mine is not None:
                    hub.send_frames(session, [text_frame(mine)], [mine], essential=False)
            elif mine is None:
                hub.send_frames(session, [fan.wire], [fan.top], essential=False)
            else:
                hub.send_frames(session, [fan.wire, text_frame(mine)], [fan.top, mine], essential=False)

    async def load_top(self) -> None:
        """The latest tick as kept in Redis, for a hub that has just started."""
        body = await self.hub.store.ranks.latest_tick(self.hub.room_id)
        if body is not None and self.top is None:
            self.top = self._seen_top(orjson.loads(b"{" + body))
            self.top_frame = frame("top", self.top)

    def top_seats(self) -> list[int]:
        """The seats of the latest tick's top lines, in order."""
        return [line["seat"] for line in (self.top or {}).get("top", ())]

    # ------------------------------------------------------------------ the loop

    async def _run(self) -> None:
        loop = asyncio.get_running_loop()
        step = round(self.interval * 1000)
        ahead = round(step * READ_AHEAD)
        while True:
            now = self.hub.now_ms()
            tick = (now + ahead) // step + 1
            await asyncio.sleep(max(0, tick * step - ahead - now) / 1000)
            started = loop.time()
            try:
                await self.tick(tick)
            except StoreUnavailable:
                pass  # the next tick tries again
            except Exception:  # (the next tick goes on)
                log.exception("tick_failed", room=self.hub.room_id)
                self.hub.fault()
            self.hub.metrics.tick_seconds.observe(loop.time() - started)

    async def tick(self, tick: int) -> None:
        """Tick ``tick``: called ``READ_AHEAD`` of a tick before its boundary,
        when this process starts reading its players' places; the shared
        part is asked for at the boundary."""
        hub = self.hub
        self._send_lone()  # (any left from the last tick)
        build = self._build(tick)
        if hub.phase_now() in ("racing", "ended"):
            # The shared part is built while this process reads its players'
            # places, and waits for them if it comes first: each player's own
            # frame goes in the same write as the shared one.
            self._reading = True
            try:
                places, built = await asyncio.gather(
                    self.own_places([s for s in hub.sessions if s.role == "player"]), build,
                    return_exceptions=True)
                if isinstance(places, BaseException):
                    raise places
                self._own.update(places)
            finally:
                self._reading = False
                early, self._early = self._early, None
                if early is not None:
                    self.on_top(early)
            if isinstance(built, BaseException):
                raise built
        else:
            await build
        if self._own:
            asyncio.get_running_loop().call_later(self.interval * LONE_AFTER, self._send_lone)
        watchers = hub.watchers()
        if watchers:
            await self.spectators.tick(watchers, self.top_seats())

    async def _build(self, tick: int) -> bool:
        """Ask for tick ``tick``'s shared part at its boundary."""
        wait = tick * round(self.interval * 1000) - self.hub.now_ms()
        if wait > 0:
            await asyncio.sleep(wait / 1000)
        return await self.hub.store.ranks.tick(self.hub.room_id, tick, self.hub.public["settings"]["top"])

    # ------------------------------------------------------------------ own places

    async def own_places(self, players: Sequence[Listener]) -> dict[Listener, bytes]:
        """Each player's ``me`` frame (rank and neighbours), for those whose
        place changed since they last got one: ``NEAR_CHUNK`` seats per call,
        ``NEAR_PARALLEL`` calls in flight (so a tick of thousands takes a few
        round trips, and Redis never runs more than that many back to back)."""
        out: dict[Listener, bytes] = {}
        chunks = [chunk for i in range(0, len(players), NEAR_CHUNK)
                  if (chunk := [p for p in players[i:i + NEAR_CHUNK] if p.seat >= 0])]
        gate = asyncio.Semaphore(NEAR_PARALLEL)

        async def read(chunk: list[Listener]) -> None:
            async with gate:
                places = await self.hub.store.ranks.near(self.hub.room_id, [p.seat for p in chunk])
            for player, place in zip(chunk, places, strict=True):
                if place is None:
                    continue
                data = place_frame("me", self.seen_place(place, own=True))
                if self._sent.get(player) != data:
                    self._sent[player] = data
                    out[player] = data

        if len(chunks) == 1:
            await read(chunks[0])
        elif chunks:  # (every call waited for; the first failure raised as itself)
            failed = [e for e in await asyncio.gather(*map(read, chunks), return_exceptions=True)
                      if isinstance(e, BaseException)]
            if failed:
                raise failed[0]
        return out

    async def send_own(self, players: Sequence[Listener]) -> None:
        """Each player's place now, if it changed (a player who just arrived)."""
        for player, data in (await self.own_places(players)).items():
            self.hub.send((player,), data, essential=False)

    def _send_own(self, listener: Listener, data: bytes) -> None:
        if self._sent.get(listener) == data:
            return
        self._sent[listener] = data
        self.hub.send((listener,), data, essential=False)
