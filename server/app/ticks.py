"""A big room's leaderboard tick on this process.

Every ``tick`` seconds (aligned on the server clock, so every process ticks
at the same moments), each process with connections in a big room:

1. reads, for its own players, each one's rank and the lines just above and
   below (the ``near`` script, a few hundred seats per call), and keeps for
   each player a small frame of their own, when it changed; it starts a
   little before the tick's boundary (``READ_AHEAD``), so that the shared
   frame, which waits for them, is not held back by them;
2. asks Redis, at the boundary, to build the room's shared leaderboard for this tick (the
   ``tick`` script: the top N lines, which of them are offline, the field's
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
   once the race has ended).

So a player receives at most one shared frame and one frame of their own per
tick, whatever the size of the room, and Redis does per tick one build per
room plus one ``near`` per process and few hundred players.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Final, Protocol

import orjson
import structlog

from ..klondike import Game
from ..protocol import frame
from ..store import Store, StoreUnavailable
from .delayed import DelayedBoards
from .listener import Listener
from .metrics import Metrics
from .wire import text_frame

log = structlog.get_logger("app.ticks")

NEAR_CHUNK: Final = 400  # seats per ``near`` call: keeps each script short
NEAR_PARALLEL: Final = 4  # ``near`` calls in flight at once
BOARDS_SHOWN: Final = 8  # the top players whose boards spectators see
LONE_AFTER: Final = 0.25  # of a tick: own frames still waiting for a shared one then go alone
READ_AHEAD: Final = 0.3  # of a tick: the own places are read from then before its boundary
FAN_SLICE: Final = 200  # connections written to per callback when a tick comes
FAN_SPREAD: Final = 0.4  # of a tick: the time over which those slices are spread


def me_frame(kind: str, place: bytes, extra: bytes = b"") -> bytes:
    """A player's own place, ``{"rank", "of", "above", "line", "below"}``, from
    the members the store built (no parsing, no encoding here)."""
    return b'{"t":"' + kind.encode() + b'","d":{' + place + extra + b"}}"


class TickedRoom(Protocol):
    """What a ticker needs of its room's hub."""

    room_id: str
    store: Store
    metrics: Metrics
    now_ms: Callable[[], int]
    public: dict[str, Any]
    sessions: set[Listener]
    v: int
    boards_mode: str

    @property
    def race(self) -> int: ...

    def phase_now(self) -> str: ...

    def fault(self) -> None: ...

    def send(self, sessions: Iterable[Listener], data: bytes, *, essential: bool) -> None: ...

    def send_frames(self, session: Listener, frames: list[bytes], data: list[bytes], *,
                    essential: bool) -> None: ...


@dataclass(frozen=True, slots=True)
class _Fan:
    """One tick being written out: its shared frame (payload and whole
    websocket frame; none when own frames go alone) and the own frames that
    go with it."""

    generation: int  # (0 for own frames alone)
    top: bytes | None
    wire: bytes | None
    own: dict[Listener, bytes]


class Ticker:
    """The tick of one big room's hub (see the module's docstring)."""

    def __init__(self, hub: TickedRoom, interval: float) -> None:
        self.hub = hub
        self.interval = interval
        self._deal_of: tuple[int, str] | None = None  # (race, code): boards of seats not moved yet
        self.top: dict[str, Any] | None = None  # the latest tick, as published
        self.top_frame: bytes | None = None
        self._sent: dict[Listener, bytes] = {}  # what each connection last got of its own
        self._own: dict[Listener, bytes] = {}  # own frames of this tick, waiting for the shared one
        self._reading = False  # this tick's own places are being read
        self._early: dict[str, Any] | None = None  # a shared frame that came meanwhile
        self._fanning = 0  # the generation of the tick being written out
        self._boards: dict[int, dict[str, Any]] = {}  # what spectators see now, by seat
        self._delayed = DelayedBoards(int(hub.public.get("settings", {}).get("delay", 0)) * 1000)
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self._task = asyncio.create_task(self._run(), name=f"tick-{self.hub.room_id}")

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task

    def forget(self, listener: Listener) -> None:
        self._sent.pop(listener, None)
        self._own.pop(listener, None)

    # ------------------------------------------------------------------ the shared part

    def on_top(self, message: dict[str, Any]) -> None:
        """A tick published on the room's channel: framed once, to every
        connection here, each with its own frame of this tick beside it
        (so, while those are still being read, once they are)."""
        message.pop("x", None)
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
        body = await self.hub.store.latest_tick(self.hub.room_id)
        if body is not None and self.top is None:
            self.top = orjson.loads(b"{" + body)
            self.top_frame = frame("top", self.top)

    def top_seats(self, limit: int) -> list[int]:
        return [line["seat"] for line in (self.top or {}).get("top", ())[:limit]]

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
        watchers = [s for s in hub.sessions if s.role == "spectator"]
        if watchers:
            await self._spectate(watchers)

    async def _build(self, tick: int) -> bool:
        """Ask for tick ``tick``'s shared part at its boundary."""
        wait = tick * round(self.interval * 1000) - self.hub.now_ms()
        if wait > 0:
            await asyncio.sleep(wait / 1000)
        return await self.hub.store.tick(self.hub.room_id, tick, self.hub.public["settings"]["top"])

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
                places = await self.hub.store.near(self.hub.room_id, [p.seat for p in chunk])
            for player, place in zip(chunk, places, strict=True):
                if place is None:
                    continue
                data = me_frame("me", place)
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

    # ------------------------------------------------------------------ spectators

    async def _spectate(self, watchers: list[Listener]) -> None:
        hub = self.hub
        followed = {w.following for w in watchers if w.following is not None}
        if followed:
            seats = sorted(followed)
            places = await hub.store.near(hub.room_id, seats)
            by_seat = dict(zip(seats, places, strict=True))
            for w in watchers:
                place = by_seat.get(w.following) if w.following is not None else None
                if place is not None and w.following is not None:
                    self._send_own(w, me_frame("follow", place, b',"seat":%d' % w.following))
        mode, phase = hub.boards_mode, hub.phase_now()
        if mode == "after" and phase != "ended":
            return
        if phase not in ("racing", "ended"):
            return
        boards = await self._read_boards(set(self.top_seats(BOARDS_SHOWN)) | followed)
        if mode == "delayed" and phase == "racing":  # (in bounded memory: .delayed)
            now = hub.now_ms()
            for seat, board in boards.items():
                self._delayed.add(seat, board, now)
            boards = self._delayed.due(now)
        changed = {s: b for s, b in boards.items() if self._boards.get(s) != b}
        if changed:
            self._boards.update(changed)
            hub.send(watchers, frame("boards", {"v": hub.v, "boards": {
                str(s): b for s, b in changed.items()}}), essential=False)

    async def _read_boards(self, seats: Iterable[int]) -> dict[int, dict[str, Any]]:
        """The public boards of these seats, from their stored snapshots."""
        hub = self.hub
        seats = list(seats)
        snaps = await hub.store.snapshots(hub.room_id, hub.race, seats)
        out = {}
        for seat in seats:
            snap = snaps.get(seat)
            if snap:
                out[seat] = Game.from_snapshot(snap).public_view()
            else:  # not moved yet: the deal as dealt (its code stays on the server)
                out[seat] = Game(await self._deal()).public_view()
        return out

    async def _deal(self) -> str:
        if self._deal_of is None or self._deal_of[0] != self.hub.race:
            data = await self.hub.store.load(self.hub.room_id)
            if data is None:
                raise StoreUnavailable("the room is gone")
            self._deal_of = (data.room.race, data.room.code)
        return self._deal_of[1]

    async def boards_now(self, watcher: Listener) -> None:
        """A new spectator (or a new follow): the boards they may see now."""
        if self._boards:
            self.hub.send((watcher,), frame("boards", {"v": self.hub.v, "boards": {
                str(s): b for s, b in self._boards.items()}}), essential=False)
