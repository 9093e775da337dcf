"""Simulated Klondike Race players for ``bench/race.py``: a cheap websocket
client and the worker process that drives a share of the rooms.

The client is a bare :class:`asyncio.Protocol` (the idea of
``../shared/limit/limit_load.py``'s ``RawClient``): frames out are masked
with a zero key so the payload goes as is, frames in are cut with a tiny
parser, and only the frames a player needs are decoded (``ack``, ``board``,
``reject``; ``lb`` at the one player per room that watches the others).

A worker process connects its players, sets its rooms up over the protocol
(``create``, ``join``, ``ready``, ``start``), then plays real games when the
parent says go: each player picks among the legal moves of its last ``ack``
(mostly non-draw moves, an undo now and then, never the last card to a
foundation, so that games go on), in closed loop (the next move as soon as
the last is acknowledged) or open loop (one move a second, at a fixed phase).
It reports raw latencies and counters to the parent over a pipe.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import os
import random
import time
from array import array
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from typing import Any, Final, Protocol, TypeVar, cast

import orjson

from server.klondike.views import apply_change

#: acks carry what changed in the player's view (v2); a server from before v2 speaks v1
SUBPROTOCOL: Final = "klondike-race.v2, klondike-race.v1"
ROOM_SIZE: Final = 8
P_UNDO: Final = 0.05  # an undo now and then
P_NON_DRAW: Final = 0.75  # prefer a card move over draw/recycle when there is one
SETUP_CONCURRENCY: Final = 32  # rooms set up at once
CONNECT_CONCURRENCY: Final = 64

_CLOSE: Final = b"\x88\x82\x00\x00\x00\x00\x03\xe8"  # masked (zero key) close 1000
_ACK: Final = b'{"t":"ack"'
_LB: Final = b'{"t":"lb"'
_BOARD: Final = b'{"t":"board"'
_REJECT: Final = b'{"t":"reject"'

now = time.monotonic  # CLOCK_MONOTONIC: one clock for every process of the machine
loads = orjson.loads


def ws_frame(payload: bytes, opcode: int = 0x1) -> bytes:
    """A client frame: FIN, masked with a zero key (so the payload is unchanged)."""
    n = len(payload)
    if n < 126:
        head = bytes((0x80 | opcode, 0x80 | n))
    elif n < 65536:
        head = bytes((0x80 | opcode, 0x80 | 126)) + n.to_bytes(2, "big")
    else:
        head = bytes((0x80 | opcode, 0x80 | 127)) + n.to_bytes(8, "big")
    return head + b"\0\0\0\0" + payload


# ---------------------------------------------------------------------- bookkeeping

@dataclass(slots=True, eq=False)
class Pending:
    """A game command on its way to the leaderboard of the mover's room."""

    moves: int  # the mover's move count once it is applied (what its lb entry will show)
    t_ack: float = 0.0  # 0 while not acknowledged
    t_lb: float = 0.0  # an lb showing it reached the observer before the ack reached the mover


@dataclass(slots=True)
class Stats:
    ack_lat: array[float] = field(default_factory=lambda: array("d"))
    lb_lat: array[float] = field(default_factory=lambda: array("d"))
    lag: array[float] = field(default_factory=lambda: array("d"))  # open loop: send - schedule
    accepted: int = 0  # acks inside the window
    accepted_all: int = 0
    undos: int = 0
    resigned: int = 0
    rejects: dict[str, int] = field(default_factory=dict)
    errors: int = 0  # connections lost or closed by the server
    late: int = 0  # open loop: the previous command was still unacknowledged at schedule time
    lb_frames: int = 0  # lb frames decoded by observers
    lb_unmatched: int = 0  # moves acknowledged in the window that no lb was seen to reflect
    stopped: int = 0  # players that could not go on (race over for them)


class Room:
    def __init__(self, index: int) -> None:
        self.index = index
        self.id = ""
        self.players: list[Player] = []
        self.pending: dict[int, deque[Pending]] = {}

    def reflected(self, seat: int, moves: int, t: float, worker: Worker) -> None:
        """An lb at an observer shows ``seat`` at ``moves``: every command of that
        seat up to the newest one with that count has been delivered."""
        dq = self.pending.get(seat)
        if not dq:
            return
        for i in range(len(dq) - 1, -1, -1):
            if dq[i].moves == moves:
                break
        else:
            return
        lat = worker.stats.lb_lat
        t0, t1 = worker.t_start, worker.t_end
        for _ in range(i + 1):
            rec = dq.popleft()
            if rec.t_ack:
                if t0 <= rec.t_ack <= t1:
                    lat.append(max(0.0, t - rec.t_ack))
            elif not rec.t_lb:
                rec.t_lb = t  # the mover's ack is still on its way: counted as 0 when it comes


# ---------------------------------------------------------------------- the client

class WsClient(asyncio.Protocol):
    """A bare websocket client over one connection: the handshake, frames in
    (``on_text`` gets each text payload), masked frames out."""

    def __init__(self, loop: asyncio.AbstractEventLoop, host: str, port: int) -> None:
        self.loop, self.host, self.port = loop, host, port
        self.transport: asyncio.Transport | None = None
        self.handshake: asyncio.Future[None] = loop.create_future()
        self.lost: asyncio.Future[None] = loop.create_future()
        self.hbuf = b""
        self.buf = bytearray()
        self.waiters: list[tuple[Callable[[bytes], bool], asyncio.Future[bytes]]] = []
        self.rx_frames = 0  # text frames received, and their bytes
        self.rx_bytes = 0

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = cast(asyncio.Transport, transport)  # uvloop's are not subclasses
        key = base64.b64encode(os.urandom(16)).decode()
        self.transport.write((f"GET /ws HTTP/1.1\r\nHost: {self.host}:{self.port}\r\nUpgrade: websocket\r\n"
                              f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
                              f"Sec-WebSocket-Version: 13\r\nSec-WebSocket-Protocol: {SUBPROTOCOL}\r\n\r\n"
                              ).encode())

    def connection_lost(self, exc: Exception | None) -> None:
        futures: list[asyncio.Future[Any]] = [self.handshake, *(f for _, f in self.waiters)]
        for fut in futures:
            if not fut.done():
                fut.set_exception(ConnectionError("connection lost"))
        if not self.lost.done():
            self.lost.set_result(None)
            self.on_lost()

    def on_lost(self) -> None:
        """The connection is gone (not called twice)."""

    def on_text(self, payload: bytes) -> None:
        self.wake(payload)

    def data_received(self, data: bytes) -> None:
        if not self.handshake.done():
            self.hbuf += data
            i = self.hbuf.find(b"\r\n\r\n")
            if i < 0:
                return
            head, data = self.hbuf[:i], self.hbuf[i + 4:]
            if not head.startswith(b"HTTP/1.1 101"):
                self.handshake.set_exception(ConnectionError(head[:200].decode("latin1")))
                return
            self.handshake.set_result(None)
            if not data:
                return
        buf = self.buf
        buf += data
        n = len(buf)
        pos = 0
        while n - pos >= 2:
            ln = buf[pos + 1] & 0x7F
            h = 2
            if ln == 126:
                if n - pos < 4:
                    break
                ln = int.from_bytes(buf[pos + 2:pos + 4], "big")
                h = 4
            elif ln == 127:
                if n - pos < 10:
                    break
                ln = int.from_bytes(buf[pos + 2:pos + 10], "big")
                h = 10
            end = pos + h + ln
            if end > n:
                break
            op = buf[pos] & 0x0F
            if op == 1:
                self.rx_frames += 1
                self.rx_bytes += ln
                self.on_text(bytes(buf[pos + h:end]))
            elif op == 9:  # ping: pong with the same payload
                self.write(ws_frame(bytes(buf[pos + h:end]), 0xA))
            elif op == 8:  # close: answer it
                self.write(_CLOSE)
            pos = end
        if pos:
            del buf[:pos]

    def write(self, data: bytes) -> None:
        tr = self.transport
        if tr is not None and not tr.is_closing():
            tr.write(data)

    def send(self, t: str, d: dict[str, Any]) -> None:
        self.write(ws_frame(orjson.dumps({"t": t, "d": d})))

    async def close(self) -> None:
        tr = self.transport
        if tr is None:
            return
        if not tr.is_closing():
            tr.write(_CLOSE)
        try:
            await asyncio.wait_for(asyncio.shield(self.lost), 5)
        except TimeoutError:
            tr.abort()

    def wake(self, payload: bytes) -> None:
        if not self.waiters:
            return
        keep = []
        for check, fut in self.waiters:
            if fut.done():
                continue
            if check(payload):
                fut.set_result(payload)
            else:
                keep.append((check, fut))
        self.waiters = keep

    def expect(self, check: Callable[[bytes], bool]) -> asyncio.Future[bytes]:
        fut: asyncio.Future[bytes] = self.loop.create_future()
        self.waiters.append((check, fut))
        return fut


class Player(WsClient):
    """One simulated player over one websocket."""

    def __init__(self, worker: Worker, room: Room, seat: int, index: int) -> None:
        super().__init__(worker.loop, worker.host, worker.port)
        self.worker = worker
        self.room = room
        self.seat = seat
        self.index = index  # its place in the whole run (open-loop phase)
        self.rng = random.Random(index * 7919 + 1)
        self.observer = False  # decodes lb frames for the room
        # the game
        self.view: dict[str, Any] | None = None
        self.seq = 0
        self.inflight = 0  # seq of the command waiting for its ack, 0 if none
        self.t_send = 0.0
        self.t_due = 0.0
        self.rec: Pending | None = None
        self.due = False  # open loop: a command is due as soon as the last ack comes
        self.playing = False
        self.stopped = False

    def on_lost(self) -> None:
        if not self.worker.closing:
            self.worker.stats.errors += 1

    # ---------------------------------------------------------------- frames in

    def on_text(self, payload: bytes) -> None:
        if payload.startswith(_ACK):
            self.on_ack(payload)
        elif payload.startswith(_LB):
            if self.observer:
                self.on_lb(payload)
        elif payload.startswith(_REJECT):
            self.on_reject(payload)
        elif payload.startswith(_BOARD):
            self.view = loads(payload)["d"]["view"]
            self.wake(payload)
        elif self.waiters:
            self.wake(payload)

    def on_ack(self, payload: bytes) -> None:
        t = now()
        w = self.worker
        d = loads(payload)["d"]
        if d["s"] != self.inflight:
            return
        self.inflight = 0
        view = self.view = own_view(self.view, d)
        st = w.stats
        st.accepted_all += 1
        in_window = w.t_start <= t <= w.t_end
        if in_window:
            st.accepted += 1
            st.ack_lat.append(t - self.t_send)
        rec = self.rec
        if rec is not None:
            self.rec = None
            rec.moves = view["moves"]
            if rec.t_lb:
                if in_window:
                    st.lb_lat.append(0.0)
            else:
                rec.t_ack = t
        if view["state"] == "won":  # the policy avoids it; a won seat cannot move any more
            self.stop()
            return
        if w.closed_loop:
            if w.running and t < w.t_end:
                self.play(t)
        elif self.due:
            self.due = False
            st.late += 1
            self.play(t, self.t_due)

    def on_lb(self, payload: bytes) -> None:
        t = now()
        w = self.worker
        w.stats.lb_frames += 1
        room = self.room
        mine = self.seat
        for entry in loads(payload)["d"]["entries"]:
            seat = entry["seat"]
            # seat 0 watches every other seat; seat 1 watches seat 0
            if seat != mine and (mine == 0 or seat == 0):
                room.reflected(seat, entry["moves"], t, w)

    def on_reject(self, payload: bytes) -> None:
        d = loads(payload)["d"]
        code = d.get("code", "?")
        rejects = self.worker.stats.rejects
        rejects[code] = rejects.get(code, 0) + 1
        if d.get("s") is not None and d["s"] == self.inflight:
            self.inflight = 0
            rec, self.rec = self.rec, None
            dq = self.room.pending.get(self.seat)
            if rec is not None and dq and any(r is rec for r in dq):
                dq.remove(rec)  # identity: eq=False
            if code in ("not_playing", "not_started"):
                self.stop()
            elif self.worker.closed_loop and self.worker.running and now() < self.worker.t_end:
                self.play(now())
        else:
            self.wake(payload)

    def stop(self) -> None:
        if not self.stopped:
            self.stopped = True
            self.worker.stats.stopped += 1

    # ---------------------------------------------------------------- the game

    def choose(self) -> tuple[str, dict[str, Any], int]:
        """The next command (type, data without ``s``) and the move count after it."""
        assert self.view is not None
        return choose(self.view, self.rng)

    def play(self, t: float, scheduled: float = 0.0) -> None:
        """Send the next command (``t`` is now; ``scheduled`` when it was due, open loop)."""
        if self.stopped or self.view is None:
            return
        kind, d, after = self.choose()
        self.seq += 1
        d["s"] = self.seq
        st = self.worker.stats
        if kind == "undo":
            st.undos += 1
        elif kind == "resign":
            st.resigned += 1
            self.stopped = True
        self.inflight = self.seq
        t_send = now()
        self.t_send = t_send
        if scheduled:
            w = self.worker
            if w.t_start <= t_send <= w.t_end:
                st.lag.append(t_send - scheduled)
        rec = self.rec = Pending(after)
        dq = self.room.pending.get(self.seat)
        if dq is None:
            dq = self.room.pending[self.seat] = deque()
        dq.append(rec)
        self.write(ws_frame(orjson.dumps({"t": kind, "d": d})))

    def tick(self, scheduled: float) -> None:
        """Open loop: this player's second has come."""
        if self.stopped or not self.worker.running:
            return
        if self.inflight:
            self.due, self.t_due = True, scheduled
        else:
            self.play(now(), scheduled)


def own_view(view: dict[str, Any] | None, ack: dict[str, Any]) -> dict[str, Any]:
    """The player's view after ``ack``: its whole view, or its ``change``
    applied to ``view`` as the web client does (docs/protocol.md, ``ack``)."""
    if "view" in ack:
        return cast(dict[str, Any], ack["view"])
    assert view is not None, "a change with no view to apply it to"
    return apply_change(view, ack["change"])


def choose(view: dict[str, Any], rng: random.Random, *,
           greedy: bool = False) -> tuple[str, dict[str, Any], int]:
    """A player's next command on ``view`` (type, data without ``s``) and the
    move count after it: a legal move (mostly not a draw), an undo now and
    then, never the last card home (a won seat would play no more).
    ``greedy``: a card home whenever one can go, and no undo."""
    legal: list[str] = view["legal"]
    moves: int = view["moves"]
    if not greedy and view["undo"] and (not legal or rng.random() < P_UNDO):
        return "undo", {}, moves - 1
    if view["foundation_cards"] >= 51:  # the last card home would end this seat's race
        legal = [m for m in legal if not m.endswith(">f")]
    home = [m for m in legal if m.endswith(">f")] if greedy else []
    if home:
        return "move", {"m": rng.choice(home)}, moves + 1
    cards = [m for m in legal if m != "draw" and m != "recycle"]
    if cards and (len(cards) == len(legal) or rng.random() < P_NON_DRAW):
        return "move", {"m": rng.choice(cards)}, moves + 1
    if legal:
        return "move", {"m": rng.choice([m for m in legal if m not in cards])}, moves + 1
    if view["undo"]:
        return "undo", {}, moves - 1
    return "resign", {}, moves


# ---------------------------------------------------------------------- the worker

def _frame_is(t: bytes) -> Callable[[bytes], bool]:
    prefix = b'{"t":"' + t + b'"'
    return lambda p: p.startswith(prefix)


def _ready_event(seat: int) -> Callable[[bytes], bool]:
    mark = b'"kind":"ready","seat":%d' % seat
    return lambda raw: raw.startswith(b'{"t":"event"') and mark in raw


class Worker:
    """The players of one load-generator process."""

    def __init__(self, loop: asyncio.AbstractEventLoop, host: str, port: int,
                 rooms: list[tuple[int, int]], total_rooms: int) -> None:
        self.loop = loop
        self.host, self.port = host, port
        self.stats = Stats()
        self.rooms: list[Room] = []
        self.players: list[Player] = []
        self.total_rooms = total_rooms
        for index, size in rooms:
            room = Room(index)
            for seat in range(size):
                # players of a room spread evenly over the open-loop second
                p = Player(self, room, seat, seat * total_rooms + index)
                p.observer = seat in (0, 1)
                room.players.append(p)
                self.players.append(p)
            self.rooms.append(room)
        self.closed_loop = True
        self.running = False
        self.closing = False
        self.t_start = self.t_end = float("inf")

    async def _connect(self, player: Player, sem: asyncio.Semaphore) -> None:
        async with sem:
            await self.loop.create_connection(lambda: player, self.host, self.port)
            await asyncio.wait_for(player.handshake, 60)

    async def _command(self, player: Player, t: str, d: dict[str, Any],
                       check: Callable[[bytes], bool]) -> bytes:
        """Send a setup command; the frame that answers it (a reject fails)."""
        answer = player.expect(lambda p: check(p) or p.startswith(_REJECT))
        player.send(t, d)
        try:
            raw = await asyncio.wait_for(answer, 60)
        except TimeoutError:
            raise RuntimeError(f"room {player.room.id or '?'} seat {player.seat}: no answer to "
                               f"{t} within 60 s") from None
        if raw.startswith(_REJECT):
            raise RuntimeError(f"{t} refused: {raw[:300].decode()}")
        return raw

    async def _join_room(self, room: Room, sem: asyncio.Semaphore, csem: asyncio.Semaphore) -> None:
        async with sem:
            host = room.players[0]
            await self._connect(host, csem)
            raw = await self._command(host, "create", {"nickname": "p0", "settings": {}},
                                      _frame_is(b"joined"))
            room.id = loads(raw)["d"]["room"]
            for p in room.players[1:]:  # one at a time: concurrent joins retry on the room version
                await self._connect(p, csem)
                await self._command(p, "join", {"room": room.id, "nickname": f"p{p.seat}"},
                                    _frame_is(b"joined"))

    async def _start_room(self, room: Room, sem: asyncio.Semaphore) -> None:
        async with sem:
            for p in room.players[1:]:
                await self._command(p, "ready", {"ready": True}, _ready_event(p.seat))
            boards = [p.expect(_frame_is(b"board")) for p in room.players]
            await self._command(room.players[0], "start", {},
                                lambda raw: raw.startswith(b'{"t":"event"') and b'"kind":"start"' in raw)
            try:
                await asyncio.wait_for(asyncio.gather(*boards), 60)
            except TimeoutError:
                missing = [p.seat for p, b in zip(room.players, boards, strict=True) if not b.done()]
                raise RuntimeError(f"room {room.id}: no board within 60 s of the start for seats "
                                   f"{missing}") from None

    async def join_all(self) -> None:
        sem, csem = asyncio.Semaphore(SETUP_CONCURRENCY), asyncio.Semaphore(CONNECT_CONCURRENCY)
        await asyncio.gather(*(self._join_room(r, sem, csem) for r in self.rooms))

    async def start_all(self) -> None:
        sem = asyncio.Semaphore(SETUP_CONCURRENCY)
        await asyncio.gather(*(self._start_room(r, sem) for r in self.rooms))

    async def run(self, mode: str, t_start: float, t_end: float, drain: float) -> None:
        self.closed_loop = mode == "closed"
        self.t_start, self.t_end = t_start, t_end
        self.running = True
        t_go = now()
        loop = self.loop
        if self.closed_loop:
            for p in self.players:
                p.play(t_go)
        else:
            n = self.total_rooms * ROOM_SIZE
            base_loop, base_mono = loop.time(), t_go

            def tick(p: Player, at: float) -> None:
                p.tick(at)
                nxt = at + 1.0
                if nxt < t_end and self.running:
                    loop.call_at(base_loop + (nxt - base_mono), tick, p, nxt)

            for p in self.players:
                at = t_go + 0.05 + p.index / n
                loop.call_at(base_loop + (at - base_mono), tick, p, at)
        await asyncio.sleep(max(0.0, t_end - now()))
        self.running = False
        # let the acks and leaderboards in flight arrive
        until = now() + drain
        while now() < until and any(p.inflight for p in self.players):
            await asyncio.sleep(0.02)
        await asyncio.sleep(max(0.0, min(0.5, until - now())))
        st = self.stats
        for room in self.rooms:
            for dq in room.pending.values():
                st.lb_unmatched += sum(1 for r in dq if r.t_ack and t_start <= r.t_ack <= t_end)

    async def close_all(self) -> None:
        self.closing = True
        await asyncio.gather(*(p.close() for p in self.players), return_exceptions=True)


# ---------------------------------------------------------------------- the process

def _die_with_parent() -> None:
    with contextlib.suppress(Exception):  # Linux: SIGKILL this worker if the bench dies
        import ctypes
        import signal

        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG


class _Closable(Protocol):
    async def close_all(self) -> None: ...


W = TypeVar("W", bound=_Closable)
Reply = tuple[Any, ...]


def drive_worker(pipe: Connection, build: Callable[[asyncio.AbstractEventLoop], W],
                 answer: Callable[[asyncio.AbstractEventLoop, W, Reply], Reply]) -> None:
    """The body of a load-generator process: a loop of its own (uvloop if
    installed) and as many open files as allowed, then the parent's steps
    one by one, each answered by ``answer`` (``close`` closes every socket
    and ends the process; an error is sent to the parent as ``error``)."""
    _die_with_parent()
    import resource

    _soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    try:
        import uvloop

        loop: asyncio.AbstractEventLoop = uvloop.new_event_loop()
    except ImportError:
        loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    worker = build(loop)
    try:
        while True:
            msg = pipe.recv()
            if msg[0] == "close":
                loop.run_until_complete(worker.close_all())
                pipe.send(("closed",))
                return
            pipe.send(answer(loop, worker, msg))
    except (EOFError, KeyboardInterrupt):
        return
    except BaseException as exc:
        with contextlib.suppress(OSError):
            pipe.send(("error", f"{type(exc).__name__}: {exc}"))
    finally:
        with contextlib.suppress(Exception):
            loop.run_until_complete(worker.close_all())
        loop.close()


def worker_main(pipe: Connection, host: str, port: int, rooms: list[tuple[int, int]],
                total_rooms: int) -> None:
    """Entry point of a load-generator process; steps are driven by the parent:
    ``join`` -> ``joined``, ``start`` -> ``started``, ``go`` -> ``done``, ``close``."""
    drive_worker(pipe, lambda loop: Worker(loop, host, port, rooms, total_rooms), _answer)


def _answer(loop: asyncio.AbstractEventLoop, worker: Worker, msg: Reply) -> Reply:
    step = msg[0]
    if step == "join":
        loop.run_until_complete(worker.join_all())
        return ("joined", os.getpid())
    if step == "start":
        loop.run_until_complete(worker.start_all())
        return ("started",)
    if step == "go":
        _, mode, t_start, t_end, drain = msg
        loop.run_until_complete(worker.run(mode, t_start, t_end, drain))
        st = worker.stats
        return ("done", {
            "ack_lat": st.ack_lat.tobytes(), "lb_lat": st.lb_lat.tobytes(),
            "lag": st.lag.tobytes(), "accepted": st.accepted, "accepted_all": st.accepted_all,
            "undos": st.undos, "resigned": st.resigned, "rejects": st.rejects,
            "errors": st.errors, "late": st.late, "lb_frames": st.lb_frames,
            "lb_unmatched": st.lb_unmatched, "stopped": st.stopped,
        })
    raise ValueError(f"unknown step {step!r}")
