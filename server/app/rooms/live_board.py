"""A room's leaderboard that travels live: every line to everyone, as in a
room of a few. Each move is recorded as the room's next event (``progress``,
with the public board as the room allows); the room's hub keeps every line,
who is online and the spectators' boards, and sends the leaderboard
coalesced to at most five a second (fewer when the process is busy, see
:mod:`~server.app.ground.busyness`), boards to spectators only and only as the room allows (live,
held ``delay`` seconds, or once the race has ended).

A leaderboard is built at most once per change of the room's lines, framed
once, and written whole to each connection: at most one write per
connection and flush (a spectator's boards in the same write). Each line is
encoded once when it changes (:class:`_Lines`): a build only sorts the
lines' keys and joins their bytes. A racer still racing gets the latest
leaderboard with each ``ack`` (two frames, one write; built then if a line
changed since), and from the flushes when they have had none for
:func:`racer_interval` (half a second when the process is calm), so that a
rival's move shows within about half a second at most, a quarter at the
median, for about two writes per move in a room whose players move once a
second (the ack, and one leaderboard between two acks).

No board reaches a spectator before ``start_at`` (nor, delayed, before
``start_at`` plus the delay): the countdown shows the deal's face-up cards,
which are every racer's. Spectators present then get the dealt boards at
that moment. Delayed boards wait in bounded memory (:mod:`.delayed_boards`).

Its counterpart for rooms of thousands is :mod:`.ticker`; a room's policy
(:mod:`.policy`) picks one when the room is created.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable
from typing import Any, Final, Protocol

import orjson
import structlog

from ...klondike import Game
from ...protocol import frame
from ...race import Entry, ranked
from ...race.leaderboard import shown
from ...race.names import same_name
from ...race.ranking import registration_ties, sort_key
from ...store import Applied, RoomData, SeatCommand, Store, StoreUnavailable, event_body
from ..ground.busyness import FLUSH_INTERVAL, MAX_FLUSH_INTERVAL, Busyness
from ..ground.clock import wait_for
from ..ground.frame_writer import text_frame
from ..ground.metrics import Metrics
from ..ground.tasks import spawn
from .delayed_boards import DelayedBoards
from .listener import Listener

log = structlog.get_logger("app.rooms.live_board")

#: view fields spectators never see: what only the player needs, and the player's assists
#: (a spectator's board may carry ``winnable``, see playing._send_status)
PLAYER_ONLY: Final = ("legal", "undo", "autocomplete", "no_progress", "back", "lost")
#: a racer's leaderboard comes with their acks; from a flush only when they have
#: had none for this long (seconds), while the process is calm
RACER_INTERVAL: Final = 0.5
#: an ack builds a new leaderboard only for a racer who has had none for this long
#: (seconds): in a closed loop of many moves a second, a few leaderboards a second
ACK_SPACING: Final = 0.1


def racer_interval(flush_interval: float) -> float:
    """Seconds a racer goes without a leaderboard at most, for the room's
    flush interval (:func:`~server.app.ground.busyness.flush_interval`):
    :data:`RACER_INTERVAL` while the process is calm, stretched with the
    flushes up to :data:`~server.app.ground.busyness.MAX_FLUSH_INTERVAL`.

    >>> racer_interval(0.0), racer_interval(0.2), racer_interval(0.4), racer_interval(1.0)
    (0.5, 0.5, 1.0, 1.0)
    """
    return min(MAX_FLUSH_INTERVAL, RACER_INTERVAL * max(1.0, flush_interval / FLUSH_INTERVAL))


class LiveRoom(Protocol):
    """What a live leaderboard needs of its room's hub."""

    room_id: str
    store: Store
    metrics: Metrics
    busyness: Busyness
    now_ms: Callable[[], int]
    public: dict[str, Any]
    sessions: set[Listener]
    v: int
    boards_mode: str
    loaded_v: int  # the version the hub first read: it saw every event after it

    @property
    def phase(self) -> str: ...

    @property
    def race(self) -> int: ...

    def phase_now(self) -> str: ...

    def hiding(self) -> bool: ...

    def seen(self, line: Entry) -> Entry: ...

    def watchers(self) -> list[Listener]: ...

    def send(self, sessions: Iterable[Listener], data: bytes, *, essential: bool) -> None: ...

    def send_frames(self, session: Listener, frames: list[bytes], data: list[bytes], *,
                    essential: bool) -> None: ...


class _Sent:
    """The leaderboard a connection last got: its number, and when."""

    __slots__ = ("at", "serial")

    def __init__(self, serial: int, at: float) -> None:
        self.serial, self.at = serial, at


class _Lines:
    """Each line's leaderboard order and JSON, kept from one build to the next:
    a line is sorted and encoded again only when it (or its holder's
    presence, the race's start, or whether the lines of games going on are
    hidden) changed. What :meth:`encode` gives is :func:`~server.race.ranked`'s
    lines as the others see them (``seen``), encoded."""

    __slots__ = ("_hiding", "_parts", "_since")

    def __init__(self) -> None:
        self._parts: dict[int, tuple[tuple[int, ...], bytes]] = {}
        self._since = 0
        self._hiding = False

    def changed(self, seat: int) -> None:
        self._parts.pop(seat, None)

    def clear(self) -> None:
        self._parts.clear()

    def encode(self, entries: dict[int, Entry], online: dict[int, bool], since: int,
               seen: Callable[[Entry], Entry], hiding: bool, registration: bool) -> bytes:
        """The JSON array of the ranked lines (``hiding``: whether ``seen``
        hides the figures of games going on; ``registration``: a
        tournament's round, :func:`~server.race.ranking.rank_fields`)."""
        parts = self._parts
        if since != self._since or hiding != self._hiding:
            parts.clear()
            self._since, self._hiding = since, hiding
        if len(parts) > len(entries):
            for seat in [s for s in parts if s not in entries]:
                del parts[seat]
        for seat, entry in entries.items():
            if seat not in parts:
                entry = seen(entry)
                line = dict(entry)
                line["status"] = shown(entry, online.get(entry["seat"], False))
                # the line's members after "rank", which each build puts first
                parts[seat] = (sort_key(entry, since, registration=registration),
                               orjson.dumps(line)[1:])
        order = sorted(parts.values())
        return b"[" + b",".join(b'{"rank":%d,' % rank + body if len(body) > 1 else
                                b'{"rank":%d}' % rank
                                for rank, (_, body) in enumerate(order, start=1)) + b"]"


class LiveBoard:
    """Every line of a room, sent live (see the module's docstring)."""

    def __init__(self, hub: LiveRoom, tick: float) -> None:
        self.hub = hub
        self.entries: dict[int, Entry] = {}
        self.online: dict[int, bool] = {}
        self.boards: dict[int, dict[str, Any]] = {}  # what spectators may see now
        self._changed: set[int] = set()
        self._delayed = DelayedBoards(0)  # made for the room's delay by public_changed
        self._start_handle: asyncio.TimerHandle | None = None  # the dealt boards, at start_at
        self._closed = False
        self._flush_handle: asyncio.TimerHandle | None = None
        self._release_handle: asyncio.TimerHandle | None = None
        self._last_flush = 0.0
        self._boards_loaded = False
        # the latest leaderboard: its number, payload and whole frame; who got which
        self._serial = 0
        self._lb: tuple[bytes, bytes] | None = None
        self._encoded = _Lines()
        self._stale = True  # a line changed since self._lb was built
        self._sent: dict[Listener, _Sent] = {}
        self._due_handle: asyncio.TimerHandle | None = None  # racers left for later
        self._registration = False  # ties by registration (a tournament's round), once loaded

    # ------------------------------------------------------------------ state

    def lines(self) -> list[Entry]:
        """Every line as the others see it now, in order."""
        return ranked(map(self.hub.seen, self.entries.values()), self.online,
                      since=int(self.hub.public.get("start_at") or 0),
                      registration=self._registration)

    async def load(self, data: RoomData) -> None:
        self.reset(data)
        self.public_changed()

    def public_changed(self) -> None:
        """The room as anyone may see it changed: its delay (once known), the
        moment its dealt boards may go to spectators."""
        delay_ms = int(self.hub.public.get("settings", {}).get("delay", 0)) * 1000
        if delay_ms != self._delayed.delay_ms:
            self._delayed = DelayedBoards(delay_ms)
        self._arm_start()

    def reset(self, data: RoomData) -> None:
        """The room as just read (on load, and when the hub resyncs)."""
        self.entries = dict(data.entries)
        self.online = {seat: True for seat in data.online}
        self._registration = registration_ties(data.room.settings)
        self.boards, self._boards_loaded = {}, False
        self._delayed.clear()
        self._encoded.clear()
        self._lb = None  # older than what the connections are sent now

    def sync_members(self) -> dict[str, Any]:
        """What a ``sync`` frame carries of the leaderboard: every line."""
        return {"entries": self.lines()}

    def frame(self) -> bytes | None:
        """The leaderboard as it stands."""
        return self._encode()

    def _encode(self) -> bytes:
        since = int(self.hub.public.get("start_at") or 0)
        return (b'{"t":"lb","d":{"v":%d,"entries":' % self.hub.v
                + self._encoded.encode(self.entries, self.online, since, self.hub.seen,
                                       self.hub.hiding(), self._registration) + b"}}")

    def _latest(self) -> tuple[bytes, bytes]:
        """The leaderboard as it stands, built again only if a line changed."""
        if self._lb is None or self._stale:
            self._stale = False
            payload = self._encode()
            self._serial += 1
            self._lb = (payload, text_frame(payload))
        return self._lb

    # ------------------------------------------------------------------ events

    def on_line_event(self, event: dict[str, Any]) -> None:
        """A ``progress`` or ``presence`` event: a line or a holder changed."""
        if "board" in event and not self.hub.watchers():
            # nobody here may see boards: the next spectator gets them from
            # the store (live) or the stored events (delayed)
            del event["board"]
            self._boards_loaded, self.hub.loaded_v = False, self.hub.v
        self._encoded.changed(event["seat"])
        if event["kind"] == "progress":
            self.entries[event["seat"]] = event["entry"]
            board = event.get("board")
            if board is not None:
                self._board(event["seat"], board, event["at"])
        elif event["online"]:
            self.online[event["seat"]] = True
        else:
            self.online.pop(event["seat"], None)
        self.dirty()

    def on_room_event(self, event: dict[str, Any]) -> None:
        """Any other event: the lines it carries (no ack carries the
        leaderboard of before it: the next flush has them)."""
        self._lb = None
        if event.get("reset"):
            self.entries = {}
            self._encoded.clear()
            self.boards = {}
            self._delayed.clear()
            self._boards_loaded = False
        for entry in event.get("entries", ()):
            self.entries[entry["seat"]] = entry
            self._encoded.changed(entry["seat"])
        for seat in event.get("dropped", ()):
            self._encoded.changed(seat)
            self.entries.pop(seat, None)
            self.online.pop(seat, None)
        self.dirty()
        if event["kind"] == "ended" and self.hub.watchers():
            spawn(self._send_boards_after_race())

    def on_notice(self, notice: dict[str, Any]) -> None:
        """A solver's status with its board (``{"x": "status"}``)."""
        if notice.get("x") == "status" and self.hub.watchers() and self.hub.phase_now() == "racing":
            self._board(notice["seat"], notice["board"], notice["at"])
            self.dirty()

    # ------------------------------------------------------------------ fan-out

    def dirty(self) -> None:
        self._stale = True
        if self._flush_handle is not None:
            return
        loop = asyncio.get_running_loop()
        delay = max(0.0, self._last_flush + self.hub.busyness.flush_interval() - loop.time())
        self._flush_handle = loop.call_later(delay, self._flush)

    def _flush(self) -> None:
        self._flush_handle = None
        self._last_flush = asyncio.get_running_loop().time()
        hub = self.hub
        if not hub.sessions:
            return
        hub.metrics.lb_frames.inc()
        if hub.busyness.flush_interval() > FLUSH_INTERVAL:
            hub.metrics.lb_stretched.inc()
        self._latest()
        boards: tuple[bytes, bytes] | None = None
        if self._changed:
            if hub.watchers():
                changed = {str(s): self.boards[s] for s in self._changed if s in self.boards}
                board_frame = frame("boards", {"v": hub.v, "boards": changed})
                boards = (board_frame, text_frame(board_frame))
            self._changed.clear()
        self._deliver(boards)

    def _deliver(self, boards: tuple[bytes, bytes] | None = None) -> None:
        """Write the latest leaderboard (and ``boards``, to spectators) to
        every connection due for it, one write each; a racer who had one
        less than :func:`racer_interval` ago waits for their next ack, or
        for this to run again when that interval is up."""
        if self._due_handle is not None:
            self._due_handle.cancel()
            self._due_handle = None
        hub, lb = self.hub, self._lb
        if lb is None:
            return
        if self._stale:
            lb = self._latest()  # (a line changed since the last flush: it shows too)
        payload, wire = lb
        serial, now = self._serial, asyncio.get_running_loop().time()
        interval = racer_interval(hub.busyness.flush_interval())
        later: float | None = None
        for session in list(hub.sessions):
            frames: list[bytes] = []
            data: list[bytes] = []
            sent = self._sent.get(session)
            if sent is None or sent.serial < serial:
                if sent is not None and now - sent.at < interval and self._racing(session):
                    due = sent.at + interval
                    later = due if later is None else min(later, due)
                else:
                    frames.append(wire)
                    data.append(payload)
                    self._sent[session] = _Sent(serial, now)
            if boards is not None and session.role == "spectator":
                frames.append(boards[1])
                data.append(boards[0])
            if frames:
                hub.send_frames(session, frames, data, essential=False)
        if later is not None and not self._closed:
            self._due_handle = asyncio.get_running_loop().call_at(later, self._deliver)

    def _racing(self, session: Listener) -> bool:
        """A player of this room still racing: their acks carry the leaderboard."""
        if session.role != "player":
            return False
        line = self.entries.get(session.seat)
        return line is not None and line.get("status") == "racing"

    def send_ack(self, session: Listener, data: bytes) -> None:
        """Write a player's ``ack``; with the latest leaderboard in the same
        write (built now if a line changed since the last) when they have not
        had it, and their socket is not behind. (None before the room's first
        flush, nor after a room event: the flush that follows has its lines;
        none either within :data:`ACK_SPACING` of the last one they got: a
        player moving many times a second gets a few a second, not one a move.)"""
        hub, lb = self.hub, self._lb
        sent = self._sent.get(session)
        now = asyncio.get_running_loop().time()
        if lb is not None and self._stale and (sent is None or now - sent.at >= ACK_SPACING):
            lb = self._latest()
        if (lb is None or (sent is not None and sent.serial >= self._serial)
                or not session.backpressure.admit(essential=False)):
            hub.send_frames(session, [text_frame(data)], [data], essential=True)
            return
        self._sent[session] = _Sent(self._serial, now)
        hub.send_frames(session, [text_frame(data), lb[1]], [data, lb[0]], essential=True)

    # ------------------------------------------------------------------ boards

    def _board(self, seat: int, board: dict[str, Any], at: int) -> None:
        mode = self.hub.boards_mode
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
        loop = asyncio.get_running_loop()  # (woken early, _release sets it again)
        self._release_handle = loop.call_later(wait_for(at, self.hub.now_ms()), self._release)

    def _release(self) -> None:
        self._release_handle = None
        due = self._delayed.due(self.hub.now_ms())
        if due:
            self.boards.update(due)
            self._changed.update(due)
            self.dirty()
        self._schedule_release()

    def _arm_start(self) -> None:
        """The dealt boards go to the spectators here when they may: at
        ``start_at`` (live), ``delay`` after it (delayed); never before."""
        if self._start_handle is not None:
            self._start_handle.cancel()
            self._start_handle = None
        hub = self.hub
        start_at = hub.public.get("start_at")
        if hub.boards_mode == "after" or not start_at or hub.phase not in ("countdown",
                                                                            "racing"):
            return
        at = int(start_at) + int(hub.public.get("settings", {}).get("delay", 0)) * 1000
        self._deal_at(at, hub.race)

    def _deal_at(self, at: int, race: int) -> None:
        if at > self.hub.now_ms():
            self._start_handle = asyncio.get_running_loop().call_later(
                wait_for(at, self.hub.now_ms()), self._dealt, at, race)
        else:
            self._start_handle = None

    def _dealt(self, at: int, race: int) -> None:
        self._deal_at(at, race)  # (woken a moment early by another clock: again then)
        if (self._start_handle is not None or self._closed or race != self.hub.race
                or self.hub.phase_now() != "racing"):
            return
        if self.hub.watchers():
            spawn(self._send_boards_now())

    async def send_boards_to(self, watchers: list[Listener]) -> None:
        """The boards a new spectator may see now: none before ``start_at``."""
        hub = self.hub
        mode, phase = hub.boards_mode, hub.phase_now()
        if phase == "countdown":
            return  # (dealt at start_at: _arm_start)
        racing = phase == "racing"
        if not self._boards_loaded:
            if phase == "ended" or (mode == "live" and racing):
                await self._load_boards()
            elif mode == "delayed" and racing:
                await self._load_delayed_boards()
        if self.boards:
            hub.send(watchers, frame("boards", {"v": hub.v, "boards": {
                str(s): b for s, b in self.boards.items()}}), essential=False)

    async def _load_boards(self) -> None:
        """Every racer's board from the store (live mode, or after the race)."""
        hub = self.hub
        data = await hub.store.rooms.load(hub.room_id)
        if data is None or not data.room.racers:
            return
        room = data.room
        snaps = await hub.store.seats.snapshots(hub.room_id, room.race, room.racers, room.code)
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
        hub = self.hub
        data = await hub.store.rooms.load(hub.room_id)
        if data is None or not data.room.racers:
            return
        room, now = data.room, hub.now_ms()
        delay_ms = room.settings.delay * 1000
        cutoff = now - delay_ms
        quiet = [] if cutoff < (room.start_at or 0) else [
            s for s in room.racers if data.entries.get(s, {}).get("at", now) <= cutoff]
        snaps = await hub.store.seats.snapshots(hub.room_id, room.race, quiet, room.code)
        for seat in quiet:
            snap = snaps.get(seat)
            game = Game.from_snapshot(snap) if snap else Game(room.code)
            self.boards[seat] = game.public_view()
        for raw in await hub.store.rooms.recent_events(hub.room_id):
            event = orjson.loads(raw)
            seat = event.get("seat")
            if (event["v"] > hub.loaded_v or event["kind"] != "progress" or "board" not in event
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
            await self.send_boards_to(self.hub.watchers())
        except StoreUnavailable:
            log.warning("boards_unavailable", room=self.hub.room_id)

    # ------------------------------------------------------------------ a player's moves

    @staticmethod
    async def record(store: Store, room_id: str, cmd: SeatCommand, *, entry: Entry, base: Entry,
                     seen: Entry, seen_before: Entry, board: Callable[[], dict[str, Any]],
                     boards_mode: str, now: int, start_at: int) -> Applied:
        """Store a move, recorded as the room's next event with the line and,
        as the room shows boards to spectators, the public board (``board()``:
        built only then, without what only the player sees). A move that
        changes nothing the others see of the line (``seen``, ``seen_before``:
        a challenge's game going on) records no event: nothing goes to anyone
        per move, not even that a move was made."""
        if seen == seen_before and boards_mode == "after":
            return await store.seats.apply(room_id, cmd, b"")
        event: dict[str, Any] = {"kind": "progress", "seat": cmd.seat, "at": now, "entry": entry}
        if boards_mode != "after":
            event["board"] = {k: v for k, v in board().items() if k not in PLAYER_ONLY}
        return await store.seats.apply(room_id, cmd, event_body(event))

    @staticmethod
    def ack(d: dict[str, Any], applied: Applied) -> dict[str, Any]:
        """An ``ack``'s data: as it is (every line comes with the leaderboard)."""
        return d

    @staticmethod
    def line_event(seat: int, line: Entry, at: int) -> bytes | None:
        """A line changed without a move (a challenge player's time ran out):
        the ``progress`` event that says so to everyone."""
        return event_body({"kind": "progress", "seat": seat, "at": at, "entry": line})

    @staticmethod
    def ranked_score(line: Entry, since: int, at: int, *, registration: bool) -> int | None:
        """(The lines are ranked by each hub, not in Redis.)"""
        return None

    @staticmethod
    def line_of(entry: Entry) -> Entry:
        """The line as this leaderboard keeps it: whole."""
        return entry

    @staticmethod
    def shares_status(boards_mode: str) -> bool:
        """Whether a solver's status goes to spectators with the board (as
        the room shows boards): published as a notice every hub shows."""
        return boards_mode != "after"

    # ------------------------------------------------------------------ looking through

    async def page(self, first: int, count: int) -> tuple[int, list[Entry]]:
        """How many lines there are, and those from rank ``first`` on."""
        everyone = self.lines()
        return len(everyone), everyone[first - 1:first - 1 + count]

    async def find(self, name: str, fold: str) -> dict[str, Any] | None:
        """The player with this nickname: seat, rank and line."""
        for line in self.lines():
            if same_name(line["nickname"], name):
                return {"seat": line["seat"], "rank": line["rank"], "line": line}
        return None

    # ------------------------------------------------------------------ a connection

    async def joined(self, session: Listener) -> None:
        """A player took their seat here: the next leaderboard shows them."""

    def forget(self, session: Listener) -> None:
        """A connection left the room."""
        self._sent.pop(session, None)

    def close(self) -> None:
        self._closed = True
        for handle in (self._flush_handle, self._release_handle, self._start_handle,
                       self._due_handle):
            if handle is not None:
                handle.cancel()

