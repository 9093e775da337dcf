"""Room hubs: one per room with a connection on this process.

A hub follows its room's channel in version order, keeps what it needs to
answer newcomers (the room as anyone may see it, the leaderboard lines, who is
online, spectators' boards) and fans frames out to its local connections:
room events at once, leaderboards coalesced to at most five a second (fewer
when the process is busy, see :mod:`.load`), boards
to spectators only and only as the room allows. A missing version (a message
lost while Redis was away) is fetched from the room's event list, or the hub
reloads the room and resyncs its connections.

No board reaches a spectator before ``start_at`` (nor, delayed, before
``start_at`` plus the delay): the countdown shows the deal's face-up cards,
which are every racer's. Spectators present then get the dealt boards at
that moment. A room's delayed boards wait in bounded memory (:mod:`.delayed`).

A hub survives whatever one message does: an exception while applying one
is logged with its traceback, counted (``klondike_faults_total{where="room"}``,
and ``/healthz`` sees it), and the hub reloads the room and resyncs its
connections; a catch-up that fails the same way does the same, and one that
cannot reach Redis tries again, backing off. Messages that arrive meanwhile
wait in a buffer of at most ``BUFFER_MAX``; past it they are dropped (the
catch-up fetches them from the room's event list, or resyncs).

Nothing here waits on a socket: frames are written with
``websockets.broadcast``, through each connection's slow-consumer policy
(:mod:`.backpressure`): a connection behind skips leaderboards and boards (the
next ones supersede them), and one behind for too long is closed so that it
reconnects and resyncs.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine, Iterable
from typing import Any, Final

import orjson
import structlog
from websockets.asyncio.server import broadcast

from ..klondike import Game
from ..protocol import frame, wrap_raw
from ..race import Entry, ranked
from ..store import Channels, Store, StoreUnavailable
from .background import spawn
from .delayed import DelayedBoards
from .health import Health
from .listener import Listener
from .load import Load
from .metrics import Metrics
from .ticks import Ticker
from .wire import write_frames

log = structlog.get_logger("app.hub")

BUFFER_MAX: Final = 1024  # messages kept while catching up; past it, fetched again
RETRY_FIRST: Final = 0.5  # s before a catch-up that failed is tried again (doubling)
RETRY_MAX: Final = 5.0

class Hub:
    def __init__(self, hubs: Hubs, room_id: str) -> None:
        self.hubs = hubs
        self.store = hubs.store
        self.metrics = hubs.metrics
        self.now_ms = hubs.now_ms
        self.room_id = room_id
        self.ticker: Ticker | None = None  # a big room's leaderboard tick (see .ticks)
        self.v = 0
        self.public: dict[str, Any] = {}
        self.boards_mode = "after"  # the room's setting for spectators' boards
        self.entries: dict[int, Entry] = {}
        self.online: dict[int, bool] = {}
        self.sessions: set[Listener] = set()
        self.boards: dict[int, dict[str, Any]] = {}  # what spectators may see now
        self._changed: set[int] = set()
        self._delayed = DelayedBoards(0)  # made for the room's delay by _set_public
        self._buffer: list[bytes] = []
        self._busy = True  # loading or catching up: messages wait in the buffer
        self._flush_handle: asyncio.TimerHandle | None = None
        self._release_handle: asyncio.TimerHandle | None = None
        self._start_handle: asyncio.TimerHandle | None = None  # the dealt boards, at start_at
        self._closed = False
        self._resync_wanted = False  # a message failed while catching up: reload at its end
        self._last_flush = 0.0
        self._boards_loaded = False
        self._loaded_v = 0  # the version this hub first read: it saw every event after it
        self._last: bytes | None = None  # the event of version ``v`` as published, if applied here
        self.loaded: asyncio.Future[bool] = asyncio.get_running_loop().create_future()

    # ------------------------------------------------------------------ state

    @property
    def phase(self) -> str:
        return str(self.public.get("phase", "lobby"))

    def phase_now(self) -> str:
        phase = self.phase
        if phase == "countdown" and self.now_ms() >= (self.public.get("start_at") or 0):
            return "racing"
        return phase

    @property
    def race(self) -> int:
        return int(self.public.get("race", 0))

    def _set_public(self, public: dict[str, Any]) -> None:
        self.public = public
        settings = public.get("settings", {})
        self.boards_mode = str(settings.get("boards", "after"))
        delay_ms = int(settings.get("delay", 0)) * 1000
        if delay_ms != self._delayed.delay_ms:
            self._delayed = DelayedBoards(delay_ms)
        self._arm_start()

    @property
    def big(self) -> bool:
        return self.ticker is not None

    def lines(self) -> list[Entry]:
        return ranked(self.entries.values(), self.online)

    def sync_frame(self, reason: str | None = None) -> bytes:
        """The whole room as a newcomer needs it (a big room: with its latest
        leaderboard tick, not every line); ``reason`` when the hub sends it on
        its own (``missed``: events it could not fetch; ``rollback``: Redis
        came back with less than this process had seen)."""
        public = dict(self.public)
        public["phase"] = self.phase_now()  # the start event said "countdown"
        public["now"] = self.now_ms()
        d: dict[str, Any] = {"v": self.v, "room": public}
        if self.ticker is not None:
            d["top"] = self.ticker.top
        else:
            d["entries"] = self.lines()
        if reason is not None:
            d["reason"] = reason
        return frame("sync", d)

    def board_frame(self) -> bytes | None:
        """The leaderboard as it stands: every line, or a big room's latest tick."""
        if self.ticker is not None:
            return self.ticker.top_frame
        return frame("lb", {"v": self.v, "entries": self.lines()})

    async def load(self) -> bool:
        """Follow the room's channel and read its state; ``False`` if there is no room."""
        await self.hubs.subscriber.subscribe(self.store.room_channel(self.room_id))
        data = await self.store.load(self.room_id)
        if data is None:
            return False
        now = self.now_ms()
        self.v = self._loaded_v = data.ev
        self._set_public(data.public(now))
        self.entries = dict(data.entries)
        self.online = {seat: True for seat in data.online}
        if data.room.settings.big:
            self.ticker = Ticker(self, self.hubs.tick)
            await self.ticker.load_top()
            self.ticker.start()
        self._busy = False
        self._drain()
        if data.room.phase == "racing" and data.active <= 0:
            spawn(self.hubs.end_race(self.room_id))
        return True

    # ------------------------------------------------------------------ messages

    def on_message(self, data: bytes) -> None:
        if self._busy:
            self._hold(data)
        else:
            self._process_safely(data)

    def _hold(self, data: bytes) -> None:
        """Keep a message for when the hub is done catching up; past
        ``BUFFER_MAX`` the buffer is dropped: versioned events are fetched
        again by the next catch-up (a gap), or the room is reloaded."""
        if len(self._buffer) >= BUFFER_MAX:
            log.warning("room_buffer_dropped", room=self.room_id, messages=len(self._buffer))
            self._buffer.clear()
        self._buffer.append(data)

    def _drain(self) -> None:
        buffered, self._buffer = self._buffer, []
        for data in buffered:
            if self._busy:
                self._hold(data)
            else:
                self._process_safely(data)

    def _process_safely(self, data: bytes) -> None:
        """Apply one message; if that fails, count it and start again from the
        room as stored (whatever the message left half done)."""
        try:
            self._process(data)
        except Exception:
            log.exception("room_message_failed", room=self.room_id, message=data[:200])
            self.fault()
            if not self._busy:
                self._busy = True
                spawn(self._catch_up(resync=True))
            else:
                self._resync_wanted = True

    def _process(self, data: bytes) -> None:
        message = orjson.loads(data)
        if "x" in message:  # a notice, not a versioned event
            self._notice(message)
            return
        v = message["v"]
        if v <= self.v:
            if v == self.v and self._last is not None and data != self._last:
                # another event under the version applied here: Redis lost what
                # it had (the catch-up sees it and resyncs)
                self._buffer.append(data)
                self._busy = True
                spawn(self._catch_up())
            return
        if v != self.v + 1:
            self._buffer.append(data)
            self._busy = True
            spawn(self._catch_up())
            return
        self._apply(message, data)

    def _apply(self, event: dict[str, Any], data: bytes) -> None:
        """Apply the next event (``event`` is ``data`` parsed)."""
        self.v = event["v"]
        self._last = data
        if "board" in event and not self._watchers():
            # nobody here may see boards: the next spectator gets them from
            # the store (live) or the stored events (delayed)
            del event["board"]
            self._boards_loaded, self._loaded_v = False, self.v
        kind = event["kind"]
        if kind == "progress":
            self.entries[event["seat"]] = event["entry"]
            board = event.get("board")
            if board is not None:
                self._board(event["seat"], board, event["at"])
            self._dirty()
            return
        if kind == "presence":
            self.online[event["seat"]] = event["online"]
            if not event["online"]:
                self.online.pop(event["seat"], None)
            self._dirty()
            return
        self._set_public(event["room"])
        if event.get("reset"):
            self.entries = {}
            self.boards = {}
            self._delayed.clear()
            self._boards_loaded = False
        for entry in event.get("entries", ()):
            self.entries[entry["seat"]] = entry
        for seat in event.get("dropped", ()):
            self.entries.pop(seat, None)
            self.online.pop(seat, None)
        self._send_all(wrap_raw("event", data), essential=True)
        self._dirty()
        for session in list(self.sessions):
            session.on_room_event(event)
        if kind == "ended" and self._watchers() and self.ticker is None:
            spawn(self._send_boards_after_race())

    def _notice(self, notice: dict[str, Any]) -> None:
        kind = notice.get("x")
        if kind == "top" and self.ticker is not None:
            self.ticker.on_top(notice)
        elif kind == "takeover":
            for session in list(self.sessions):
                if session.seat == notice["seat"] and session.conn_id != notice["conn"]:
                    session.taken_over()
        elif kind == "status" and self.ticker is None:  # a solver status: a board with it
            if self._watchers() and self.phase_now() == "racing":
                self._board(notice["seat"], notice["board"], notice["at"])
                self._dirty()
        elif kind == "kicked":  # a big room's: not an event of the whole room
            for session in list(self.sessions):
                if session.role == "player" and session.seat == notice["seat"]:
                    session.on_room_event({"kind": "kicked", "seat": notice["seat"]})

    async def _catch_up(self, *, resync: bool = False) -> None:
        """Fetch the events this hub missed (or, with ``resync``, reload the
        room), then apply what waited meanwhile. Redis unreachable: tried
        again, backing off; anything else that fails: logged, counted, and
        the room reloaded instead."""
        wait, failed = RETRY_FIRST, 0
        while not self._closed:
            try:
                if resync or self._resync_wanted:
                    self._resync_wanted = False
                    await self._resync()
                else:
                    v, latest = self.v, await self._fetch_missed()
                    if self.v == v and self._drop_beyond(latest):
                        continue  # again: an event only late is in Redis by now
                break
            except StoreUnavailable:
                pass
            except Exception:
                failed += 1
                if failed == 1:
                    log.exception("catch_up_failed", room=self.room_id)
                else:
                    log.warning("catch_up_failed_again", room=self.room_id, times=failed)
                self.fault()
                resync = True
                if failed == 1:
                    continue  # reload the room at once
            await asyncio.sleep(wait)
            wait = min(wait * 2, RETRY_MAX)
        if self._closed:
            return
        self._busy = False
        self._drain()

    def fault(self) -> None:
        """An exception this hub went on after (logged where it was caught)."""
        self.hubs.health.fault("room")

    def _drop_beyond(self, latest: int) -> int:
        """Drop the waiting events of versions Redis did not have when asked
        (lost in a rollback, never stored, or stored since): waiting for them
        would never end. How many; the caller fetches again (an event only
        late is then there)."""
        kept = []
        for data in self._buffer:
            try:
                message = orjson.loads(data)
                keep = "x" in message or message["v"] <= latest
            except (ValueError, TypeError, KeyError):
                keep = True  # unreadable: _process_safely says so
            if keep:
                kept.append(data)
        if len(kept) < len(self._buffer):
            log.warning("room_events_dropped", room=self.room_id, latest=latest,
                        dropped=len(self._buffer) - len(kept))
        dropped, self._buffer = len(self._buffer) - len(kept), kept
        return dropped

    async def _fetch_missed(self) -> int:
        """The events this hub missed, or a resync; the latest version Redis
        has. The event of the hub's own version is fetched too, when the hub
        applied it: Redis having less, or another event under that version,
        is a rollback (a restart from an older append-only file, a failover
        to a replica that missed writes)."""
        last = self._last
        since = self.v - 1 if last is not None and self.v > 0 else self.v
        latest, events = await self.store.events_since(self.room_id, since)
        if latest < self.v or (last is not None and events is not None
                               and events[:1] != [last]):
            await self._resync(rollback=True)
        elif events is None:
            await self._resync()
        else:
            for data in events:
                event = orjson.loads(data)
                if event["v"] == self.v + 1:
                    self._apply(event, data)
        return latest

    async def _resync(self, *, rollback: bool = False) -> None:
        """Reload the room and send it whole to every connection here, with
        fresh boards (spectators) and, after a rollback, each player's board
        as stored (:meth:`Listener.resynced`)."""
        data = await self.store.load(self.room_id)
        if data is None:
            return
        if rollback or data.ev < self.v:
            log.warning("rollback", room=self.room_id, seen=self.v, stored=data.ev)
            self.hubs.metrics.rollbacks.labels(scope="room").inc()
            rollback = True
        self.v = self._loaded_v = data.ev
        self._last = None
        self._set_public(data.public(self.now_ms()))
        self.entries = dict(data.entries)
        self.online = {seat: True for seat in data.online}
        self.boards, self._boards_loaded = {}, False
        self._delayed.clear()
        reason = "rollback" if rollback else "missed"
        self._send_all(self.sync_frame(reason), essential=True)
        for session in list(self.sessions):
            session.resynced(reason)
        if self._watchers():
            await self.send_boards_to(self._watchers())

    def reconnected(self) -> None:
        """The channel was lost for a while: fetch what happened meanwhile."""
        if not self._busy:
            self._busy = True
            spawn(self._catch_up())

    # ------------------------------------------------------------------ fan-out

    def _send_all(self, data: bytes, *, essential: bool) -> None:
        self.send(self.sessions, data, essential=essential)

    def send(self, sessions: Iterable[Listener], data: bytes, *, essential: bool) -> None:
        """Write ``data`` to the sessions without waiting on any of them."""
        ready = []
        for session in sessions:
            if session.syncing:
                session.pending.append(data)
                continue
            if session.backpressure.admit(essential=essential):
                ready.append(session.ws)
        if ready:
            broadcast(ready, data, text=True)

    def send_frames(self, session: Listener, frames: list[bytes], data: list[bytes], *,
                    essential: bool) -> None:
        """Write whole ``frames`` (see :mod:`.wire`) to one session at once;
        ``data`` are their payloads, queued instead while it catches up."""
        if session.syncing:
            session.pending.extend(data)
            return
        if session.backpressure.admit(essential=essential):
            write_frames(session.ws, frames)

    def _dirty(self) -> None:
        if self._flush_handle is not None:
            return
        loop = asyncio.get_running_loop()
        delay = max(0.0, self._last_flush + self.hubs.load.flush_interval() - loop.time())
        self._flush_handle = loop.call_later(delay, self._flush)

    def _flush(self) -> None:
        self._flush_handle = None
        self._last_flush = asyncio.get_running_loop().time()
        if not self.sessions or self.ticker is not None:  # a big room's go out by ticks
            return
        self.hubs.metrics.lb_frames.inc()
        self._send_all(frame("lb", {"v": self.v, "entries": self.lines()}), essential=False)
        if self._changed:
            watchers = self._watchers()
            if watchers:
                boards = {str(s): self.boards[s] for s in self._changed if s in self.boards}
                self.send(watchers, frame("boards", {"v": self.v, "boards": boards}),
                          essential=False)
            self._changed.clear()

    # ------------------------------------------------------------------ boards

    def _watchers(self) -> list[Listener]:
        return [s for s in self.sessions if s.role == "spectator"]

    def _board(self, seat: int, board: dict[str, Any], at: int) -> None:
        mode = self.boards_mode
        if mode == "live":
            self.boards[seat] = board
            self._changed.add(seat)
        elif mode == "delayed":
            self._delayed.add(seat, board, at)
            self._schedule_release()

    def _schedule_release(self) -> None:
        at = self._delayed.next_at()
        if self._release_handle is not None or at is None:
            return
        loop = asyncio.get_running_loop()
        wait = max(0.0, (at - self.now_ms()) / 1000)
        self._release_handle = loop.call_later(wait, self._release)

    def _release(self) -> None:
        self._release_handle = None
        due = self._delayed.due(self.now_ms())
        if due:
            self.boards.update(due)
            self._changed.update(due)
            self._dirty()
        self._schedule_release()

    def _arm_start(self) -> None:
        """The dealt boards go to the spectators here when they may: at
        ``start_at`` (live), ``delay`` after it (delayed); never before."""
        if self._start_handle is not None:
            self._start_handle.cancel()
            self._start_handle = None
        start_at = self.public.get("start_at")
        if self.boards_mode == "after" or not start_at or self.phase not in ("countdown",
                                                                              "racing"):
            return
        at = int(start_at) + int(self.public.get("settings", {}).get("delay", 0)) * 1000
        self._deal_at(at, self.race)

    def _deal_at(self, at: int, race: int) -> None:
        wait = (at - self.now_ms()) / 1000
        if wait > 0:
            self._start_handle = asyncio.get_running_loop().call_later(wait, self._dealt, at, race)
        else:
            self._start_handle = None

    def _dealt(self, at: int, race: int) -> None:
        self._deal_at(at, race)  # (woken a moment early by another clock: again then)
        if (self._start_handle is not None or self._closed or race != self.race
                or self.ticker is not None or self.phase_now() != "racing"):
            return
        if self._watchers():
            spawn(self._send_boards_now())

    async def send_boards_to(self, watchers: list[Listener]) -> None:
        """The boards a new spectator may see now: none before ``start_at``."""
        if self.ticker is not None:
            for watcher in watchers:
                await self.ticker.boards_now(watcher)
            return
        mode, phase = self.boards_mode, self.phase_now()
        if phase == "countdown":
            return  # (dealt at start_at: _arm_start)
        racing = phase == "racing"
        if not self._boards_loaded:
            if phase == "ended" or (mode == "live" and racing):
                await self._load_boards()
            elif mode == "delayed" and racing:
                await self._load_delayed_boards()
        if self.boards:
            self.send(watchers, frame("boards", {"v": self.v, "boards": {
                str(s): b for s, b in self.boards.items()}}), essential=False)

    async def _load_boards(self) -> None:
        """Every racer's board from the store (live mode, or after the race)."""
        data = await self.store.load(self.room_id)
        if data is None or not data.room.racers:
            return
        room = data.room
        snaps = await self.store.snapshots(self.room_id, room.race, room.racers)
        for seat in room.racers:
            snap = snaps.get(seat)
            game = Game.from_snapshot(snap) if snap else Game(room.code)
            self.boards.setdefault(seat, game.public_view())
        self._boards_loaded = True

    async def _load_delayed_boards(self) -> None:
        """Each board as it was ``delay`` seconds ago, for a hub that did not
        follow the race from its start: a seat quiet for longer than the delay
        shows its stored board; a seat that moved since shows the latest board
        of the stored events that is old enough, and the younger ones wait in
        the delay queue like those the hub receives. Nothing before
        ``start_at`` plus the delay: the dealt boards come then (_arm_start)."""
        data = await self.store.load(self.room_id)
        if data is None or not data.room.racers:
            return
        room, now = data.room, self.now_ms()
        delay_ms = room.settings.delay * 1000
        cutoff = now - delay_ms
        quiet = [] if cutoff < (room.start_at or 0) else [
            s for s in room.racers if data.entries.get(s, {}).get("at", now) <= cutoff]
        snaps = await self.store.snapshots(self.room_id, room.race, quiet)
        for seat in quiet:
            snap = snaps.get(seat)
            game = Game.from_snapshot(snap) if snap else Game(room.code)
            self.boards[seat] = game.public_view()
        for raw in await self.store.recent_events(self.room_id):
            event = orjson.loads(raw)
            seat = event.get("seat")
            if (event["v"] > self._loaded_v or event["kind"] != "progress" or "board" not in event
                    or seat in quiet):
                continue
            if event["at"] <= cutoff:
                self.boards[seat] = event["board"]
            else:
                self._delayed.add(seat, event["board"], event["at"])
        self._schedule_release()
        self._boards_loaded = True

    async def _send_boards_after_race(self) -> None:
        self.boards = {}
        await self._send_boards_now()

    async def _send_boards_now(self) -> None:
        """The boards the spectators here may see now, read again."""
        self._boards_loaded = False
        try:
            await self.send_boards_to(self._watchers())
        except StoreUnavailable:
            log.warning("boards_unavailable", room=self.room_id)

    def close(self) -> None:
        self._closed = True
        for handle in (self._flush_handle, self._release_handle, self._start_handle):
            if handle is not None:
                handle.cancel()
        if self.ticker is not None:
            spawn(self.ticker.stop())


class Hubs:
    """The hubs of this process, by room id. ``end_race`` ends a room's race
    once nobody plays it any more (a hub may notice it first)."""

    def __init__(self, *, store: Store, subscriber: Channels, metrics: Metrics, load: Load,
                 now_ms: Callable[[], int],
                 end_race: Callable[[str], Coroutine[Any, Any, Any]], tick: float,
                 health: Health) -> None:
        self.store, self.subscriber, self.metrics, self.load = store, subscriber, metrics, load
        self.health = health
        self.now_ms, self.end_race = now_ms, end_race
        self.tick = tick  # seconds between a big room's leaderboard ticks
        self._hubs: dict[str, Hub] = {}

    def __len__(self) -> int:
        return len(self._hubs)

    def get(self, room_id: str) -> Hub | None:
        return self._hubs.get(room_id)

    def all(self) -> list[Hub]:
        return list(self._hubs.values())

    async def enter(self, room_id: str, session: Listener) -> Hub | None:
        """The room's hub with ``session`` in it; ``None`` if there is no such room."""
        hub = self._hubs.get(room_id)
        if hub is None:
            hub = self._hubs[room_id] = Hub(self, room_id)
            self.metrics.rooms.set(len(self._hubs))
            try:
                found = await hub.load()
            except BaseException as exc:
                self._drop(hub)
                hub.loaded.set_exception(exc)
                hub.loaded.exception()  # retrieved: callers get it by awaiting below
                raise
            if not found:
                self._drop(hub)
            hub.loaded.set_result(found)
        elif not await asyncio.shield(hub.loaded):
            return None
        if not hub.loaded.result():
            return None
        hub.sessions.add(session)
        return hub

    def leave(self, hub: Hub, session: Listener) -> None:
        hub.sessions.discard(session)
        if hub.ticker is not None:
            hub.ticker.forget(session)
        if not hub.sessions and self._hubs.get(hub.room_id) is hub:
            self._drop(hub)

    def _drop(self, hub: Hub) -> None:
        hub.close()
        if self._hubs.get(hub.room_id) is hub:
            del self._hubs[hub.room_id]
            spawn(self.subscriber.unsubscribe(self.store.room_channel(hub.room_id)))
        self.metrics.rooms.set(len(self._hubs))

    async def reap(self) -> None:
        """Release the seats held by connections of server processes that died
        (they stopped beating their heartbeat), in every room with a hub here.
        Reads only who holds each seat, and asks once per process."""
        room_ids = list(self._hubs)
        store = self.store
        holders = await asyncio.gather(*(store.holders(r) for r in room_ids))
        procs = {conn.split(".", 1)[0] for held in holders for conn in held.values()}
        if not procs:
            return
        alive = await store.alive(procs)
        for room_id, held in zip(room_ids, holders, strict=True):
            for seat, conn in held.items():
                if conn.split(".", 1)[0] not in alive:
                    log.info("seat_released", room=room_id, seat=seat, conn=conn)
                    await store.detach(room_id, seat, conn, {
                        "kind": "presence", "seat": seat, "online": False,
                        "at": self.now_ms()})

    def on_message(self, room_id: str, data: bytes) -> None:
        hub = self._hubs.get(room_id)
        if hub is not None:
            hub.on_message(data)

    def on_reconnect(self) -> None:
        for hub in list(self._hubs.values()):
            hub.reconnected()
