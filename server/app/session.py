"""One websocket connection: decode commands, run them, answer.

Commands of a connection run one after another, so a seat's commands reach
Redis in the order its player sent them. Bad frames are answered (or the
connection closed) here at the edge and never reach the rest of the server.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import time
from typing import TYPE_CHECKING, Any, Final

import orjson
import structlog
from websockets.asyncio.server import ServerConnection, broadcast
from websockets.exceptions import ConnectionClosed
from websockets.protocol import State

from ..klondike import (
    Game,
    IllegalMoveError,
    InvalidNotationError,
    Move,
    NothingToUndoError,
)
from ..protocol import CloseCode, ProtocolError, Reason, decode, frame, reject
from ..protocol import commands as c
from ..race import Entry, RaceError, update_from_game
from ..store import StoreUnavailable, event_body
from .background import spawn
from .rooms import is_room_id

if TYPE_CHECKING:
    from .hub import Hub
    from .server import App
    from .tournaments import TournamentHub

log = structlog.get_logger("app.session")

_ids = itertools.count(1)
RECENT: Final = 64  # resent commands recognised up to this far back
#: close codes the websocket layer sends on its own, and the reason counted for each
_LIBRARY_CLOSES: Final = {1002: "bad_frame", 1007: "bad_utf8", 1009: "too_big"}
PLAYER_ONLY: Final = ("legal", "undo", "autocomplete")


class Credits:
    """Per-connection message credit: a token bucket (pings are free)."""

    __slots__ = ("burst", "level", "rate", "stamp")

    def __init__(self, rate: float, burst: int) -> None:
        self.rate, self.burst = rate, float(burst)
        self.level, self.stamp = float(burst), time.monotonic()

    def take(self) -> bool:
        now = time.monotonic()
        self.level = min(self.burst, self.level + (now - self.stamp) * self.rate)
        self.stamp = now
        if self.level >= 1.0:
            self.level -= 1.0
            return True
        return False


class Session:
    def __init__(self, app: App, ws: ServerConnection) -> None:
        self.app = app
        self.ws = ws
        self.conn_id = f"{app.proc_id}.{next(_ids)}"
        self.role: str | None = None  # "player" or "spectator" once in a room
        self.hub: Hub | None = None
        self.thub: TournamentHub | None = None  # a tournament followed, besides any room
        self.room_id = ""
        self.seat = -1
        self.token = ""
        # the seat's game, as stored
        self.race = 0
        self.game: Game | None = None
        self.ver = 0
        self.last_seq = 0
        self.recent: dict[int, str] = {}
        self.entry: Entry | None = None
        self.done = False
        # delivery
        self.syncing = False
        self.pending: list[bytes] = []
        self.lock = asyncio.Lock()
        self.credits = Credits(app.config.msg_rate, app.config.msg_burst)
        self._flooding = 0
        self._edge_logged = False
        self._closing = False
        self.log = log.bind(conn=self.conn_id)

    # ------------------------------------------------------------------ loop

    async def run(self) -> None:
        metrics = self.app.metrics
        metrics.connections.inc()
        await self._send(frame("hello", {"server": "klondike-race", "protocol": "klondike-race.v1",
                                         "now": self.app.now_ms()}))
        try:
            async for raw in self.ws:
                await self._receive(raw)
        except ConnectionClosed as exc:
            # frames the websocket layer refuses itself, closing the connection
            why = _LIBRARY_CLOSES.get(exc.sent.code) if exc.sent is not None else None
            if why is not None and not self._closing:
                metrics.closed.labels(code=str(exc.sent.code)).inc()  # type: ignore[union-attr]
                metrics.rejected.labels(reason=why).inc()
                self.log.info("frame_refused", reason=why, limit=self.app.config.max_frame)
        finally:
            metrics.connections.dec()
            if self.thub is not None:
                self.app.thubs.leave(self.thub, self)
                self.thub = None
            await self._leave_hub(detach=True)

    async def _receive(self, raw: str | bytes) -> None:
        started = time.perf_counter()
        try:
            cmd = decode(raw)
        except ProtocolError as exc:
            if self._charge():
                self._edge_reject(exc.command, exc.reason, exc.text, exc.seq)
            return
        if type(cmd) is c.Ping:
            await self._send(frame("pong", {"now": self.app.now_ms()}))
            return
        if not self._charge():
            return
        self.app.metrics.command(cmd.type)
        async with self.lock:
            await self._dispatch(cmd, started)

    def _charge(self) -> bool:
        if self.credits.take():
            self._flooding = 0
            return True
        self._flooding += 1
        self.app.metrics.rejected.labels(reason=Reason.FLOOD.value).inc()
        if self._flooding == 1:
            self.log.warning("flood", rate=self.app.config.msg_rate, burst=self.app.config.msg_burst)
            self._write(reject(None, Reason.FLOOD))
        elif self._flooding > self.app.config.msg_burst:
            self.close(CloseCode.POLICY, "too many messages")
        return False

    def _edge_reject(self, command: str | None, reason: Reason, text: str,
                     seq: int | None = None) -> None:
        self.app.metrics.rejected.labels(reason=reason.value).inc()
        if not self._edge_logged:
            self._edge_logged = True
            self.log.info("bad_frame", reason=reason.value, detail=text)
        self._write(reject(command, reason, text, seq))

    async def _dispatch(self, cmd: c.Command, started: float) -> None:
        seq = getattr(cmd, "s", None)
        try:
            handler = getattr(self, "_on_" + cmd.type)
            await handler(cmd)
        except RaceError as exc:
            self._rejected(cmd, exc.reason, exc.text, seq)
        except StoreUnavailable as exc:
            self.log.warning("store_unavailable", command=cmd.type, error=str(exc))
            self._forget_game()
            self._rejected(cmd, Reason.UNAVAILABLE, None, seq)
        except ConnectionClosed:
            raise
        except Exception:
            self.log.exception("command_failed", command=cmd.type)
            self._forget_game()
            self._rejected(cmd, Reason.INTERNAL, None, seq)
        else:
            if cmd.game and seq is not None:
                self.app.metrics.move_latency.observe(time.perf_counter() - started)

    def _rejected(self, cmd: c.Command, reason: Reason, text: str | None, seq: int | None) -> None:
        metrics = self.app.metrics
        metrics.rejected.labels(reason=reason.value).inc()
        if cmd.game:
            metrics.moves_rejected.labels(reason=reason.value).inc()
        self._write(reject(cmd.type, reason, text, seq))

    # ------------------------------------------------------------------ output

    def _write(self, data: bytes) -> None:
        """Queue a frame without waiting (order is kept with everything else)."""
        if self.syncing:
            self.pending.append(data)
        elif self.hub is not None:
            self.hub.send((self,), data, essential=True)
        else:  # written now, like the hub does: a task could be overtaken by the next answer
            broadcast((self.ws,), data, text=True)

    async def _send(self, data: bytes) -> None:
        if self.ws.state is not State.OPEN:
            # closing: nothing reaches the client any more, and send() would
            # wait for the close handshake, which can sit unread behind this
            # connection's queued commands until the close timeout
            return
        with contextlib.suppress(ConnectionClosed):
            await self.ws.send(data, text=True)

    def close(self, code: CloseCode, reason: str) -> None:
        if self._closing:
            return
        self._closing = True
        self.app.metrics.closed.labels(code=str(int(code))).inc()
        spawn(self.ws.close(int(code), reason))

    def taken_over(self) -> None:
        """Another connection opened this seat: this one steps aside."""
        self.log.info("taken_over", room=self.room_id, seat=self.seat)
        self.role = None  # keeps cleanup from touching the seat's presence
        self.close(CloseCode.TAKEN_OVER, "seat opened elsewhere")

    def too_slow(self) -> None:
        self.log.warning("slow_consumer", room=self.room_id)
        self.close(CloseCode.INTERNAL, "too slow: reconnect to resync")

    # ------------------------------------------------------------------ rooms

    def _need_no_room(self) -> None:
        if self.role is not None:
            raise RaceError(Reason.ALREADY_IN_ROOM)

    def _need_seat(self) -> None:
        if self.role == "spectator":
            raise RaceError(Reason.SPECTATOR)
        if self.role != "player":
            raise RaceError(Reason.NOT_IN_ROOM)

    @staticmethod
    def _room_id(text: str) -> str:
        room_id = text.strip().upper()
        if not is_room_id(room_id):
            raise RaceError(Reason.UNKNOWN_ROOM, f"there is no room {text[:20]!r}")
        return room_id

    async def _on_create(self, cmd: c.Create) -> None:
        self._need_no_room()
        room, token = await self.app.rooms.create(cmd.nickname, cmd.settings)
        await self._take_seat(room.id, 0, token, since=None)

    async def _on_solo(self, cmd: c.Solo) -> None:
        self._need_no_room()
        room, token = await self.app.rooms.solo(cmd.nickname, cmd.code, cmd.draw, cmd.scoring)
        await self._take_seat(room.id, 0, token, since=None)

    async def _on_join(self, cmd: c.Join) -> None:
        self._need_no_room()
        room, seat, token = await self.app.rooms.join(self._room_id(cmd.room), cmd.nickname)
        await self._take_seat(room.id, seat, token, since=None)

    async def _on_resume(self, cmd: c.Resume) -> None:
        self._need_no_room()
        room_id = self._room_id(cmd.room)
        data = await self.app.store.load(room_id)
        if data is None:
            raise RaceError(Reason.UNKNOWN_ROOM)
        seat = data.room.seat_of(cmd.token)
        if seat is None:
            raise RaceError(Reason.BAD_TOKEN)
        await self._take_seat(room_id, seat, cmd.token, since=cmd.since)

    async def _on_watch(self, cmd: c.Watch) -> None:
        self._need_no_room()
        room_id = self._room_id(cmd.room)
        self.syncing = True
        try:
            hub = await self.app.hubs.enter(room_id, self)
        except BaseException:
            await self._leave_hub(detach=False)  # hold nothing back: the reject must go out
            raise
        if hub is None:
            self.syncing = False
            raise RaceError(Reason.UNKNOWN_ROOM)
        self.hub, self.role, self.room_id = hub, "spectator", room_id
        await self._send(frame("watching", {"room": room_id}))
        await self._catch_up(cmd.since, spectator=True)
        await hub.send_boards_to([self])

    async def _take_seat(self, room_id: str, seat: int, token: str, since: int | None) -> None:
        """Hold the seat on this connection; tell the client where things stand."""
        self.syncing = True
        try:
            hub = await self.app.hubs.enter(room_id, self)
            if hub is None:
                raise RaceError(Reason.UNKNOWN_ROOM)
            self.hub, self.role, self.room_id, self.seat, self.token = hub, "player", room_id, seat, token
            await self.app.store.attach(room_id, seat, self.conn_id, {
                "kind": "presence", "seat": seat, "online": True, "at": self.app.now_ms()})
        except BaseException:
            await self._leave_hub(detach=False)  # out of the room, nothing held back
            raise
        await self._send(frame("joined", {"room": room_id, "seat": seat, "token": token,
                                          "role": "player"}))
        await self._catch_up(since, spectator=False)
        if hub.phase in ("countdown", "racing", "ended") and seat in hub.public.get("racers", ()):
            await self._load_game(hub.race)
            if hub.phase_now() != "countdown":
                await self._send_board()
            else:
                spawn(self._board_at_start(hub.race))

    async def _catch_up(self, since: int | None, *, spectator: bool) -> None:
        """The events missed since ``since``, or the whole room; then what
        arrived meanwhile."""
        hub = self.hub
        assert hub is not None
        try:
            sent = False
            if since:
                v, events = await self.app.store.events_since(self.room_id, since)
                if events is not None:
                    items = [self._redact(e, spectator) for e in events]
                    await self._send(b'{"t":"events","d":{"from":%d,"to":%d,"events":[%s]}}' % (
                        since, v, b",".join(items)))
                    await self._send(frame("lb", {"v": v, "entries": hub.lines()}))
                    sent = True
            if not sent:
                await self._send(hub.sync_frame())
        finally:
            self.syncing = False
            pending, self.pending = self.pending, []
            for data in pending:
                await self._send(data)

    def _redact(self, raw: bytes, spectator: bool) -> bytes:
        """A stored event as this client may see it: boards only to spectators
        of a live room (delayed boards come through the hub's delay)."""
        if b'"board":' not in raw:
            return raw
        if spectator and self.hub is not None and self.hub.boards_mode == "live":
            return raw
        event = orjson.loads(raw)
        event.pop("board", None)
        return orjson.dumps(event)

    async def _on_ready(self, cmd: c.Ready) -> None:
        self._need_seat()
        await self.app.rooms.ready(self.room_id, self.seat, cmd.ready)

    async def _on_start(self, cmd: c.Start) -> None:
        self._need_seat()
        await self.app.rooms.start(self.room_id, self.seat)

    async def _on_kick(self, cmd: c.Kick) -> None:
        self._need_seat()
        await self.app.rooms.kick(self.room_id, self.seat, cmd.seat)

    async def _on_rematch(self, cmd: c.Rematch) -> None:
        self._need_seat()
        await self.app.rooms.rematch(self.room_id, self.seat)

    async def _on_leave(self, cmd: c.Leave) -> None:
        if self.role == "spectator":
            await self._leave_hub(detach=False)
            await self._send(frame("left", {"room": self.room_id}))
            return
        self._need_seat()
        room_id = self.room_id
        await self.app.rooms.leave(room_id, self.seat)
        await self._leave_hub(detach=False)
        await self._send(frame("left", {"room": room_id}))

    async def _leave_hub(self, *, detach: bool) -> None:
        hub, seat, role = self.hub, self.seat, self.role
        self.hub, self.role, self.seat, self.game = None, None, -1, None
        self.syncing, self.pending = False, []
        if hub is None:
            return
        self.app.hubs.leave(hub, self)
        if detach and role == "player":
            with contextlib.suppress(StoreUnavailable):  # the seat's next holder takes over
                await self.app.store.detach(hub.room_id, seat, self.conn_id, {
                    "kind": "presence", "seat": seat, "online": False, "at": self.app.now_ms()})

    def on_room_event(self, event: dict[str, Any]) -> None:
        """Called by the hub for each room event, in order."""
        kind = event["kind"]
        if self.role != "player":
            return
        if kind == "kicked" and event["seat"] == self.seat:
            self.role = None
            self.close(CloseCode.KICKED, "removed from the room by the host")
        elif kind == "start" and self.seat in event["room"]["racers"]:
            spawn(self._board_at_start(event["race"]))

    async def _board_at_start(self, race: int) -> None:
        """Deal the race's board to this player when the countdown ends."""
        hub = self.hub
        if hub is None:
            return
        try:
            async with self.lock:
                if self.game is None or self.race != race:
                    await self._load_game(race)
            wait = ((hub.public.get("start_at") or 0) - self.app.now_ms()) / 1000
            if wait > 0:
                await asyncio.sleep(wait)
            if self.hub is hub and self.race == race:
                async with self.lock:
                    await self._send_board()
        except StoreUnavailable:
            self._forget_game()  # loaded on the player's next command

    # ------------------------------------------------------------------ tournaments

    async def _follow(self, tournament_id: str, *, resync: bool = False) -> None:
        """Follow a tournament's events on this connection (one at a time);
        a ``t_sync`` comes when it starts following (or on ``resync``)."""
        tid = tournament_id.strip().upper()
        if self.thub is not None:
            if self.thub.id == tid:
                if resync:
                    await self._send(self.thub.sync_frame())
                return
            if await self.app.store.load_tournament(tid) is None:  # keep following this one
                raise RaceError(Reason.UNKNOWN_ROOM, "there is no such tournament")
            self.app.thubs.leave(self.thub, self)
            self.thub = None
        self.syncing = True
        try:
            thub = await self.app.thubs.enter(tid, self)
            if thub is None:
                raise RaceError(Reason.UNKNOWN_ROOM, "there is no such tournament")
            self.thub = thub
            await self._send(thub.sync_frame())
        finally:
            self.syncing = False
            pending, self.pending = self.pending, []
            for data in pending:
                await self._send(data)

    async def _on_t_create(self, cmd: c.TCreate) -> None:
        t = await self.app.tournaments.create(cmd.name, cmd.settings)
        await self._send(frame("t_created", {"id": t.id, "admin": t.admin}))
        await self._follow(t.id)

    async def _on_t_watch(self, cmd: c.TWatch) -> None:
        await self._follow(cmd.id, resync=True)

    async def _on_t_register(self, cmd: c.TRegister) -> None:
        t, player, token = await self.app.tournaments.register(cmd.id, cmd.nickname)
        await self._send(frame("t_registered", {"id": t.id, "player": player, "token": token}))
        await self._follow(t.id)

    async def _on_t_resume(self, cmd: c.TResume) -> None:
        loaded = await self.app.store.load_tournament(cmd.id.strip().upper())
        if loaded is None:
            raise RaceError(Reason.UNKNOWN_ROOM, "there is no such tournament")
        player = loaded[0].player_of(cmd.token)
        if player is None:
            raise RaceError(Reason.BAD_TOKEN, "this token is not a player of the tournament")
        await self._send(frame("t_registered", {"id": loaded[0].id, "player": player.player,
                                                "token": cmd.token}))
        await self._follow(loaded[0].id)

    async def _on_t_close(self, cmd: c.TClose) -> None:
        await self.app.tournaments.close(cmd.id, cmd.admin)
        await self._follow(cmd.id)

    async def _on_t_start(self, cmd: c.TStart) -> None:
        await self.app.tournaments.start_round(cmd.id, cmd.admin, cmd.at or None)
        await self._follow(cmd.id)

    async def _on_t_end(self, cmd: c.TEnd) -> None:
        await self.app.tournaments.end_round(cmd.id, cmd.admin)
        await self._follow(cmd.id)

    async def _on_t_withdraw(self, cmd: c.TWithdraw) -> None:
        await self.app.tournaments.withdraw(cmd.id, cmd.token)
        await self._follow(cmd.id)

    async def _on_t_standings(self, cmd: c.TStandings) -> None:
        results = await self.app.tournaments.results(cmd.id)
        await self._send(frame("t_standings", {"id": results["id"],
                                               "standings": results["standings"]}))

    # ------------------------------------------------------------------ the game

    async def _load_game(self, race: int) -> None:
        stored = await self.app.store.load_seat(self.room_id, race, self.seat)
        if stored.snap is not None:
            game = Game.from_snapshot(stored.snap)
        else:
            data = await self.app.store.load(self.room_id)
            if data is None:
                raise RaceError(Reason.UNKNOWN_ROOM)
            game = Game(data.room.code)
        self.game, self.race, self.ver = game, race, stored.ver
        self.last_seq, self.done = stored.seq, stored.done
        self.recent = dict(stored.recent)
        hub = self.hub
        self.entry = dict(hub.entries[self.seat]) if hub and self.seat in hub.entries else None

    def _forget_game(self) -> None:
        """After a failed write the stored game is the truth: reload it next time."""
        self.game = None

    async def _send_board(self) -> None:
        if self.game is None:
            return
        await self._send(frame("board", {"race": self.race, "s": self.last_seq, "done": self.done,
                                         "view": self.game.view()}))

    async def _playing(self, seq: int | None = None, command: str = "") -> Game | None:
        """The seat's game if it may play now; otherwise the reason why not.

        ``None`` when ``(seq, command)`` resends a command already applied: it
        was acknowledged again. A resend is recognised even once the seat's
        race is over, so the lost ack of a last move or a resign comes back.
        """
        self._need_seat()
        hub = self.hub
        assert hub is not None
        phase = hub.phase_now()
        if phase == "countdown":
            raise RaceError(Reason.NOT_STARTED)
        racer = self.seat in hub.public.get("racers", ())
        if racer and phase in ("racing", "ended"):
            if self.game is None or self.race != hub.race:
                await self._load_game(hub.race)
            if seq is not None and self._resent(seq, command):
                await self._ack(seq)
                return None
        if phase != "racing" or not racer:
            raise RaceError(Reason.NOT_PLAYING, "there is no race for you to play now")
        if self.done:
            raise RaceError(Reason.NOT_PLAYING, "your race is over")
        return self.game

    def _resent(self, seq: int, command: str) -> bool:
        """A sequence number already used: ``True`` if it is the same command
        (acknowledged again), else the command is stale."""
        if seq > self.last_seq:
            return False
        if self.recent.get(seq) == command:
            return True
        raise RaceError(Reason.STALE, f"sequence number {seq} was already used "
                                      f"(last applied: {self.last_seq})")

    async def _on_move(self, cmd: c.MoveCommand) -> None:
        self._need_seat()
        try:
            move = Move.parse(cmd.m)
        except InvalidNotationError as exc:
            raise RaceError(Reason.BAD_NOTATION, str(exc)) from None
        game = await self._playing(cmd.s, str(move))
        if game is None:
            return
        reason = game.reason_illegal(move)
        if reason is not None:
            raise RaceError(Reason.ILLEGAL_MOVE, IllegalMoveError(move, reason).reason)
        game._apply(move)
        await self._commit(cmd.s, str(move))

    async def _on_undo(self, cmd: c.Undo) -> None:
        game = await self._playing(cmd.s, "undo")
        if game is None:
            return
        hub = self.hub
        assert hub is not None
        if not hub.public["settings"]["undo"]:
            raise RaceError(Reason.UNDO_DISABLED)
        try:
            game.pop()
        except NothingToUndoError:
            raise RaceError(Reason.NOTHING_TO_UNDO) from None
        await self._commit(cmd.s, "undo")

    async def _on_resign(self, cmd: c.Resign) -> None:
        if await self._playing(cmd.s, "resign") is None:
            return
        await self._commit(cmd.s, "resign", resign=True)

    async def _on_hint(self, cmd: c.Hint) -> None:
        game = await self._playing()
        assert game is not None
        hub = self.hub
        assert hub is not None
        if not hub.public["settings"]["hints"]:
            raise RaceError(Reason.HINTS_DISABLED)
        move = game.hint()
        await self._send(frame("hint", {"m": None if move is None else str(move)}))

    async def _on_complete(self, cmd: c.Complete) -> None:
        game = await self._playing()
        assert game is not None
        moves = game.autocomplete_moves()
        if moves is None:
            raise RaceError(Reason.NO_AUTOCOMPLETE)
        await self._send(frame("complete", {"moves": [str(m) for m in moves]}))

    async def _commit(self, seq: int, command: str, *, resign: bool = False) -> None:
        """Store the command just played on the local game; acknowledge it
        once Redis has it. On any failure the local game is reloaded."""
        game, hub = self.game, self.hub
        assert game is not None and hub is not None
        now = self.app.now_ms()
        base = self.entry or hub.entries.get(self.seat)
        if base is None:
            raise RaceError(Reason.NOT_PLAYING)
        entry = update_from_game(base, game, now, int(hub.public.get("start_at") or now))
        if resign:
            entry["status"] = "resigned"
        done = entry["status"] != "racing"
        view = game.view()
        event: dict[str, Any] = {"kind": "progress", "seat": self.seat, "at": now, "entry": entry}
        if hub.boards_mode != "after":
            event["board"] = {k: v for k, v in view.items() if k not in PLAYER_ONLY}
        try:
            applied = await self.app.store.apply(
                self.app.store.seat_keys(self.room_id, self.race, self.seat),
                race=self.race, seat=self.seat, conn=self.conn_id, ver=self.ver, seq=seq,
                command=command, snap=game.snapshot(), entry=orjson.dumps(entry),
                event=event_body(event), done=done)
        except BaseException:
            self._forget_game()
            raise
        if applied.status != "ok":
            self._forget_game()
            if applied.status == "taken_over":
                self.taken_over()
                return
            if applied.status == "seq":  # applied meanwhile, through another connection
                await self._load_game(self.race)
                if self._resent(seq, command):
                    await self._ack(seq)
                return
            raise RaceError(Reason.NOT_PLAYING, "this race is over" if applied.status ==
                            "not_playing" else "your game changed elsewhere; it was reloaded")
        self.ver += 1
        self.last_seq = seq
        self.recent[seq] = command
        if len(self.recent) > RECENT:
            del self.recent[min(self.recent)]
        self.entry = entry
        self.done = done
        self.app.metrics.moves_accepted.inc()
        self._write(frame("ack", {"s": seq, "view": view}))
        if done and applied.active == 0:
            spawn(self._end_race())

    async def _ack(self, seq: int) -> None:
        assert self.game is not None
        await self._send(frame("ack", {"s": seq, "view": self.game.view(), "again": True}))

    async def _end_race(self) -> None:
        with contextlib.suppress(StoreUnavailable):  # else the deadline sweeper ends it
            await self.app.rooms.end_race(self.room_id)
