"""One websocket connection: the socket edge.

It greets the client, decodes each frame into a command, charges the
connection's message credit, runs the command's handler (commands of a
connection run one after another, so a seat's commands reach Redis in the
order its player sent them) and turns every refusal into a typed ``reject``.
Bad frames are answered, or the connection closed, here at the edge: they
never reach the rest of the server.

What each command does lives elsewhere, one module per job (the package
:mod:`server.app.handlers`: entering and leaving rooms, the seat's game,
looking through a room's field, tournaments); its ``dispatch`` maps command
types to them. This module knows none of them.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Final

import structlog
from websockets.asyncio.server import ServerConnection, broadcast
from websockets.exceptions import ConnectionClosed
from websockets.protocol import State

from ...klondike import Game
from ...protocol import SUBPROTOCOL, CloseCode, ProtocolError, Reason, decode, frame, reject
from ...protocol import commands as c
from ...race import Entry, RaceError
from ...race.clocks import own_end
from ...race.ghosts import Point
from ...store import StoreUnavailable
from ..ground.backpressure import Backpressure
from ..ground.tasks import spawn
from ..rooms.room_hub import RoomHub
from ..solver.seat_assists import ProgressTrail, SeatAssist
from ..tournaments.tournament_hub import TournamentHub
from .services import Services

log = structlog.get_logger("app.edge.connection")

_ids = itertools.count(1)
#: close codes the websocket layer sends on its own, and the reason counted for each
_LIBRARY_CLOSES: Final = {1002: "bad_frame", 1007: "bad_utf8", 1009: "too_big"}

Handler = Callable[["Connection", Any], Awaitable[None]]
RoomEventHook = Callable[["Connection", dict[str, Any]], None]
ResyncHook = Callable[["Connection", str], None]


class Credits:
    """Per-connection message credit: a token bucket of ``burst`` messages
    refilled at ``rate`` a second. Pings have a small allowance of their own
    (``ping_burst``, refilled at ``ping_rate``: a client's clock samples and
    keepalives are free); past it a ping costs credit like any message."""

    __slots__ = ("burst", "level", "ping_burst", "ping_level", "ping_rate", "rate", "stamp")

    def __init__(self, rate: float, burst: int, *, ping_rate: float = 1.0,
                 ping_burst: int = 10) -> None:
        self.rate, self.burst = rate, float(burst)
        self.ping_rate, self.ping_burst = ping_rate, float(ping_burst)
        self.level, self.ping_level = float(burst), float(ping_burst)
        self.stamp = time.monotonic()

    def _refill(self) -> None:
        now = time.monotonic()
        elapsed, self.stamp = now - self.stamp, now
        self.level = min(self.burst, self.level + elapsed * self.rate)
        self.ping_level = min(self.ping_burst, self.ping_level + elapsed * self.ping_rate)

    def take(self) -> bool:
        self._refill()
        if self.level >= 1.0:
            self.level -= 1.0
            return True
        return False

    def take_ping(self) -> bool:
        self._refill()
        if self.ping_level >= 1.0:
            self.ping_level -= 1.0
            return True
        if self.level >= 1.0:
            self.level -= 1.0
            return True
        return False

    @property
    def full(self) -> bool:
        """Back to a whole burst: the connection has kept under its rate."""
        return self.level >= self.burst


@dataclass(slots=True)
class SeatGame:
    """The seat's game as stored, cached by the connection that holds the
    seat (see :mod:`~server.app.handlers.playing`). ``game`` is ``None`` until loaded, and again
    after a failed write: the stored game is then the truth."""

    game: Game | None = None
    race: int = 0
    ver: int = 0  # commands in the stored log
    last_seq: int = 0  # the last client sequence number applied
    recent: dict[int, str] = field(default_factory=dict)  # seq -> command, the latest ones
    entry: Entry | None = None  # the seat's leaderboard line
    done: bool = False  # finished, resigned or left
    exists: bool = False  # the seat plays this race (a big room's racers are not listed)
    boarded: int = 0  # the race whose board this connection has sent
    assist: SeatAssist = field(default_factory=SeatAssist)  # solver assists (see .assists)
    trail: ProgressTrail = field(default_factory=ProgressTrail)  # "no progress", move by move
    judging: bool = False  # a "no progress" judgement is waiting for the player to pause
    hinting: bool = False  # a solver hint is being searched for this seat
    trace: list[Point] = field(default_factory=list)  # a challenge's: the seat's ghost trace


class Connection:
    """A websocket and where it is: the room it is in (``hub``) as a player
    (``seat``) or a spectator, and the tournament it follows (``tournament_hub``); and
    who it is, once it said (``player_id``, see :mod:`~server.app.players`)."""

    def __init__(self, services: Services, ws: ServerConnection, *,
                 handlers: Mapping[str, Handler], on_room_event: RoomEventHook,
                 on_resync: ResyncHook | None = None, address: str = "") -> None:
        self.services = services
        self.ws = ws
        self.address = address  # the client's, for the caps on creations (see quotas)
        self.subprotocol = str(ws.subprotocol or SUBPROTOCOL)  # as negotiated at the handshake
        self.conn_id = f"{services.proc_id}.{next(_ids)}"
        self._handlers = handlers
        self._on_room_event = on_room_event
        self._on_resync = on_resync
        # where the connection is
        self.role: str | None = None  # "player" or "spectator" once in a room
        self.hub: RoomHub | None = None
        self.tournament_hub: TournamentHub | None = None  # a tournament followed, besides any room
        self.t_player = -1  # the player of that tournament this connection is (-1: none)
        self.player_id = ""  # the player (app/players) this connection identified as ("": none)
        self.room_id = ""
        self.seat = -1
        self.token = ""
        self.following: int | None = None  # a spectator of a big room: the seat followed
        self.watch_seat: int | None = None  # a spectator's: the seat its token named (own_race)
        self.play = SeatGame()
        # delivery: while catching up, frames wait in ``pending``
        self.syncing = False
        self.pending: list[bytes] = []
        self.lock = asyncio.Lock()
        config = services.config
        self.credits = Credits(config.msg_rate, config.msg_burst, ping_rate=config.ping_rate,
                               ping_burst=config.ping_burst)
        self.backpressure = Backpressure(ws, self._too_slow, limit=config.slow_buffer,
                                         grace=config.slow_grace)
        self._flooding = 0  # frames refused over the credit since it was last full
        self._flood_logged = False
        self._edge_logged = False
        self._closing = False
        self.log = log.bind(conn=self.conn_id)

    # ------------------------------------------------------------------ loop

    async def run(self) -> None:
        metrics = self.services.metrics
        metrics.connections.inc()
        await self.send(frame("hello", {"server": "klondike-race", "protocol": self.subprotocol,
                                        "now": self.services.now_ms()}))
        try:
            async for raw in self.ws:
                if not self._closing:  # closing: what still comes is read, not decoded
                    await self._receive(raw)
        except ConnectionClosed as exc:
            self._closed_by_library(exc)
        finally:
            self.backpressure.close()
            metrics.connections.dec()
            if self.tournament_hub is not None:
                self.services.tournament_hubs.leave(self.tournament_hub, self)
                self.tournament_hub = None
            self.services.lobby.leave(self)
            await self.leave_hub(detach=True)

    def _closed_by_library(self, exc: ConnectionClosed) -> None:
        """Count and log what the websocket layer closed on its own: a frame
        it refused, or a keepalive ping the client never answered."""
        if exc.sent is None or self._closing:
            return
        metrics, code = self.services.metrics, exc.sent.code
        why = _LIBRARY_CLOSES.get(code)
        if why is not None:
            metrics.closed.labels(code=str(code)).inc()
            metrics.rejected.labels(reason=why).inc()
            self.log.info("frame_refused", reason=why, limit=self.services.config.max_frame)
        elif code == CloseCode.INTERNAL and "keepalive" in exc.sent.reason:
            metrics.closed.labels(code=str(code)).inc()
            self.log.info("keepalive_timeout", room=self.room_id or None)

    async def _receive(self, raw: str | bytes) -> None:
        started = time.perf_counter()
        try:
            cmd = decode(raw)
        except ProtocolError as exc:
            if self._charge():
                self._edge_reject(exc.command, exc.reason, exc.text, exc.seq)
            return
        if type(cmd) is c.Ping:
            if self._charge(ping=True):
                self.write(frame("pong", {"now": self.services.now_ms()}))
            return
        if not self._charge():
            return
        self.services.metrics.command(cmd.type)
        async with self.lock:
            await self._dispatch(cmd, started)

    def _charge(self, *, ping: bool = False) -> bool:
        """Take a message's credit; over it, the frame is dropped: the first
        such frame since the credit was last full gets a ``flood`` reject, and
        a connection that keeps on (``msg_burst`` frames dropped before its
        credit is full again) is closed with 1008. Logged once per connection."""
        credits = self.credits
        if self._flooding and credits.full:
            self._flooding = 0
        if credits.take_ping() if ping else credits.take():
            return True
        config = self.services.config
        self._flooding += 1
        self.services.metrics.rejected.labels(reason=Reason.FLOOD.value).inc()
        if self._flooding == 1:
            if not self._flood_logged:
                self._flood_logged = True
                self.log.warning("flood", rate=config.msg_rate, burst=config.msg_burst,
                                 ping=ping)
            self.write(reject(None, Reason.FLOOD))
        elif self._flooding > config.msg_burst:
            self.close(CloseCode.POLICY, "too many messages")
            self.services.quotas.flooded(self.address)
        return False

    def _edge_reject(self, command: str | None, reason: Reason, text: str,
                     seq: int | None = None) -> None:
        self.services.metrics.rejected.labels(reason=reason.value).inc()
        if not self._edge_logged:
            self._edge_logged = True
            self.log.info("bad_frame", reason=reason.value, detail=text)
        self.write(reject(command, reason, text, seq))

    async def _dispatch(self, cmd: c.Command, started: float) -> None:
        seq = getattr(cmd, "s", None)
        try:
            await self._handlers[cmd.type](self, cmd)
        except RaceError as exc:
            self._rejected(cmd, exc.reason, exc.text, seq)
        except StoreUnavailable as exc:
            if exc.kind is None:  # the store gave up (a room that kept changing): rare
                self.log.warning("store_unavailable", command=cmd.type, error=str(exc))
            # (Redis's own trouble is logged once per episode: app/ground/health.py)
            self.play.game = None
            self._rejected(cmd, Reason.UNAVAILABLE, None, seq)
        except ConnectionClosed:
            raise
        except Exception:
            self.log.exception("command_failed", command=cmd.type)
            self.play.game = None
            self._rejected(cmd, Reason.INTERNAL, None, seq)
        else:
            if cmd.game and seq is not None:
                self.services.metrics.move_latency.observe(time.perf_counter() - started)

    def _rejected(self, cmd: c.Command, reason: Reason, text: str | None, seq: int | None) -> None:
        metrics = self.services.metrics
        metrics.rejected.labels(reason=reason.value).inc()
        if cmd.game:
            metrics.moves_rejected.labels(reason=reason.value).inc()
        self.write(reject(cmd.type, reason, text, seq))

    # ------------------------------------------------------------------ output

    def write(self, data: bytes) -> None:
        """Queue a frame without waiting (order is kept with everything else),
        through the socket's slow-consumer policy like every frame."""
        if self.syncing:
            self.pending.append(data)
        elif self.hub is not None:
            self.hub.send((self,), data, essential=True)
        elif self.backpressure.admit(essential=True):
            # written now, like the hub does: a task could be overtaken by the next answer
            broadcast((self.ws,), data, text=True)

    async def send(self, data: bytes) -> None:
        if self.ws.state is not State.OPEN:
            # closing: nothing reaches the client any more, and send() would
            # wait for the close handshake, which can sit unread behind this
            # connection's queued commands until the close timeout
            return
        if not self.backpressure.admit(essential=True):
            return
        with contextlib.suppress(ConnectionClosed):
            await self.ws.send(data, text=True)

    async def flush_pending(self) -> None:
        """Done catching up: send what waited meanwhile, in order."""
        self.syncing = False
        pending, self.pending = self.pending, []
        for data in pending:
            await self.send(data)

    def close(self, code: CloseCode, reason: str) -> None:
        if self._closing:
            return
        self._closing = True
        self.services.metrics.closed.labels(code=str(int(code))).inc()
        spawn(self.ws.close(int(code), reason))

    def taken_over(self) -> None:
        """Another connection opened this seat: this one steps aside."""
        self.log.info("taken_over", room=self.room_id, seat=self.seat)
        self.role = None  # keeps cleanup from touching the seat's presence
        self.close(CloseCode.TAKEN_OVER, "seat opened elsewhere")

    def _too_slow(self, buffered: int, seconds: float) -> None:
        """The socket stayed over the write-buffer limit (see :mod:`.backpressure`)."""
        self.log.warning("slow_consumer", room=self.room_id or None, buffered=buffered,
                         seconds=round(seconds, 1))
        self.close(CloseCode.INTERNAL, "too slow: reconnect to resync")

    # ------------------------------------------------------------------ place

    def need_no_room(self) -> None:
        if self.role is not None:
            raise RaceError(Reason.ALREADY_IN_ROOM)

    def need_seat(self) -> None:
        if self.role == "spectator":
            raise RaceError(Reason.SPECTATOR)
        if self.role != "player":
            raise RaceError(Reason.NOT_IN_ROOM)

    async def leave_hub(self, *, detach: bool) -> None:
        """Out of the room on this connection; with ``detach``, also let go of
        the seat in Redis (others then see the player disconnected)."""
        hub, seat, role = self.hub, self.seat, self.role
        self.hub, self.role, self.seat, self.following = None, None, -1, None
        self.watch_seat = None
        self.play = SeatGame()  # the next room's seat is another game
        self.syncing, self.pending = False, []
        if hub is None:
            return
        self.services.room_hubs.leave(hub, self)
        if detach and role == "player":
            event = hub.policy.seats.presence(seat, False, self.services.now_ms())
            with contextlib.suppress(StoreUnavailable):  # the seat's next holder takes over
                await self.services.store.seats.detach(hub.room_id, seat, self.conn_id, event)

    def on_room_event(self, event: dict[str, Any]) -> None:
        """Called by the hub for each room event, in order."""
        self._on_room_event(self, event)

    def own_game(self) -> tuple[int, int] | None:
        """(when it began, cards home) while the seat held here plays its own
        game of a challenge, its time not up; ``None`` otherwise."""
        hub, play, entry = self.hub, self.play, self.play.entry
        if (self.role != "player" or hub is None or play.done or entry is None
                or play.race != hub.race or entry.get("status") != "racing"):
            return None
        started, deadline = entry.get("started"), hub.public.get("deadline")
        if started is None or deadline is None:
            return None
        limit = int(hub.public.get("settings", {}).get("time_limit", 0))
        if self.services.now_ms() >= own_end(int(started), limit, int(deadline)):
            return None
        return int(started), int(entry.get("foundation", 0))

    def resynced(self, reason: str) -> None:
        """Called by the hub once it sent this connection the whole room again
        (``reason``: ``missed`` or ``rollback``)."""
        if self._on_resync is not None:
            self._on_resync(self, reason)
