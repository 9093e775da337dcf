"""Room hubs: one per room with a connection on this process.

A hub follows its room's channel in version order, keeps what it needs to
answer newcomers (the room as anyone may see it, and its leaderboard as it
travels: every line, or ticks, as the room's policy says, see
:mod:`.policy`) and fans frames out to its local connections: room
events at once, the leaderboard and spectators' boards as its board
(:mod:`.live_board`, :mod:`.ticker`) sends them. A missing version (a message
lost while Redis was away) is fetched from the room's event list, or the hub
reloads the room and resyncs its connections.

A hub survives whatever one message does: an exception while applying one
is logged with its traceback, counted (``klondike_faults_total{where="room"}``,
and ``/healthz`` sees it), and the hub reloads the room and resyncs its
connections; a catch-up that fails the same way does the same, and one that
cannot reach Redis tries again, backing off. Messages that arrive meanwhile
wait in a buffer of at most ``BUFFER_MAX``; past it they are dropped (the
catch-up fetches them from the room's event list, or resyncs).

Nothing here waits on a socket: frames are written with
``websockets.broadcast``, through each connection's slow-consumer policy
(:mod:`~server.app.ground.backpressure`): a connection behind skips leaderboards and boards (the
next ones supersede them), and one behind for too long is closed so that it
reconnects and resyncs.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine, Iterable
from typing import Any, Final, Protocol

import orjson
import structlog
from websockets.asyncio.server import broadcast

from ...protocol import frame, wrap_raw
from ...race import Entry
from ...store import Channels, Store, StoreUnavailable
from ..ground.busyness import Busyness
from ..ground.frame_writer import write_frames
from ..ground.health import Health
from ..ground.metrics import Metrics
from ..ground.tasks import spawn
from .ghost_feed import GhostFeed
from .listener import Listener
from .live_board import LiveBoard
from .policy import FEW, RoomPolicy, policy_for
from .ticker import Ticker

log = structlog.get_logger("app.rooms.room_hub")

BUFFER_MAX: Final = 1024  # messages kept while catching up; past it, fetched again
RETRY_FIRST: Final = 0.5  # s before a catch-up that failed is tried again (doubling)
RETRY_MAX: Final = 5.0

class HubsContext(Protocol):
    """What a hub uses of the hubs of its process (:class:`.room_hubs.RoomHubs`)."""

    store: Store
    subscriber: Channels
    metrics: Metrics
    busyness: Busyness
    health: Health
    now_ms: Callable[[], int]
    end_race: Callable[[str], Coroutine[Any, Any, Any]]
    tick: float


class RoomHub:
    """One room on this process: its connections, its state as anyone may
    see it, and its leaderboard as the room's policy says (see above)."""

    def __init__(self, hubs: HubsContext, room_id: str) -> None:
        self.hubs = hubs
        self.store = hubs.store
        self.metrics = hubs.metrics
        self.busyness = hubs.busyness
        self.now_ms = hubs.now_ms
        self.room_id = room_id
        self.policy: RoomPolicy = FEW  # the room's, once loaded
        self.board: LiveBoard | Ticker | None = None  # how its leaderboard travels
        self.ghosts: GhostFeed | None = None  # a challenge's: its players' ghosts
        self.v = 0
        self.public: dict[str, Any] = {}
        self.boards_mode = "after"  # the room's setting for spectators' boards
        self.sessions: set[Listener] = set()
        self._buffer: list[bytes] = []
        self._busy = True  # loading or catching up: messages wait in the buffer
        self._closed = False
        self._resync_wanted = False  # a message failed while catching up: reload at its end
        self.loaded_v = 0  # the version this hub first read: it saw every event after it
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

    def hiding(self) -> bool:
        """Whether the lines of games not over show no figures now: a
        challenge's, while it is open."""
        return self.policy.start.hides_running and self.phase_now() == "racing"

    def seen(self, line: Entry) -> Entry:
        """A line as the others see it now (its policy's ``seen`` while
        :meth:`hiding`)."""
        return self.policy.start.seen(line) if self.hiding() else line

    @property
    def leaderboard(self) -> LiveBoard | Ticker:
        assert self.board is not None, "a hub's board is there once it has loaded"
        return self.board

    def _set_public(self, public: dict[str, Any]) -> None:
        self.public = public
        self.boards_mode = str(public.get("settings", {}).get("boards", "after"))
        if self.board is not None:
            self.board.public_changed()

    def sync_frame(self, reason: str | None = None) -> bytes:
        """The whole room as a newcomer needs it, with its leaderboard as it
        travels (every line, or the latest tick); ``reason`` when the hub
        sends it on its own (``missed``: events it could not fetch;
        ``rollback``: Redis came back with less than this process had seen)."""
        public = dict(self.public)
        public["phase"] = self.phase_now()  # the start event said "countdown"
        public["now"] = self.now_ms()
        d: dict[str, Any] = {"v": self.v, "room": public}
        d.update(self.leaderboard.sync_members())
        if reason is not None:
            d["reason"] = reason
        return frame("sync", d)

    def board_frame(self) -> bytes | None:
        """The leaderboard as it stands."""
        return self.leaderboard.frame()

    async def load(self) -> bool:
        """Follow the room's channel and read its state; ``False`` if there is no room."""
        await self.hubs.subscriber.subscribe(self.store.rooms.room_channel(self.room_id))
        data = await self.store.rooms.load(self.room_id)
        if data is None:
            return False
        now = self.now_ms()
        self.v = self.loaded_v = data.ev
        self._set_public(data.public(now))
        self.policy = policy_for(data.room.settings)
        self.board = self.policy.board(self, self.hubs.tick)
        await self.board.load(data)
        self.ghosts = self.policy.start.feed(self)  # a challenge's ghosts (none in a race)
        self._busy = False
        self._drain()
        if data.room.phase == "racing" and data.active <= 0 and self.policy.start.ends_when_done:
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
        if event["kind"] in ("progress", "presence"):  # a line, or who holds a seat
            self.leaderboard.on_line_event(event)
            return
        self._set_public(event["room"])
        self._send_all(wrap_raw("event", data), essential=True)
        self.leaderboard.on_room_event(event)
        for session in list(self.sessions):
            session.on_room_event(event)

    def _notice(self, notice: dict[str, Any]) -> None:
        kind = notice.get("x")
        if kind == "takeover":
            for session in list(self.sessions):
                if session.seat == notice["seat"] and session.conn_id != notice["conn"]:
                    session.taken_over()
        elif kind == "kicked":  # a hashed seat's: not an event of the whole room
            for session in list(self.sessions):
                if session.role == "player" and session.seat == notice["seat"]:
                    session.on_room_event({"kind": "kicked", "seat": notice["seat"]})
        else:  # a tick, a solver's status: the leaderboard's
            self.leaderboard.on_notice(notice)

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
        latest, events = await self.store.rooms.events_since(self.room_id, since)
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
        data = await self.store.rooms.load(self.room_id)
        if data is None:
            return
        if rollback or data.ev < self.v:
            log.warning("rollback", room=self.room_id, seen=self.v, stored=data.ev)
            self.hubs.metrics.rollbacks.labels(scope="room").inc()
            rollback = True
        self.v = self.loaded_v = data.ev
        self._last = None
        self._set_public(data.public(self.now_ms()))
        self.leaderboard.reset(data)
        reason = "rollback" if rollback else "missed"
        self._send_all(self.sync_frame(reason), essential=True)
        for session in list(self.sessions):
            session.resynced(reason)
        if self.watchers():
            await self.send_boards_to(self.watchers())

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
        """Write whole ``frames`` (see :mod:`~server.app.ground.frame_writer`) to one session at once;
        ``data`` are their payloads, queued instead while it catches up."""
        if session.syncing:
            session.pending.extend(data)
            return
        if session.backpressure.admit(essential=essential):
            write_frames(session.ws, frames)

    def watchers(self) -> list[Listener]:
        """The spectators here."""
        return [s for s in self.sessions if s.role == "spectator"]

    async def send_boards_to(self, watchers: list[Listener]) -> None:
        """The boards new spectators may see now."""
        await self.leaderboard.send_boards_to(watchers)

    def forget(self, session: Listener) -> None:
        """A connection left the room."""
        for part in (self.board, self.ghosts):
            if part is not None:
                part.forget(session)

    def close(self) -> None:
        self._closed = True
        for part in (self.board, self.ghosts):
            if part is not None:
                part.close()
