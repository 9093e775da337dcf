"""Simulated players of one big room for ``bench/race.py --big``.

A worker process holds a share of the room's players, spread over the
server processes (player ``i`` connects to server ``i % len(ports)``). The
parent drives it: ``create`` (worker 0's first player opens the room),
``join`` (every player joins it), ``start`` (the host starts; every player
waits for its board), ``go`` (open loop: each player sends one command every
``period`` seconds at a phase of its own; ``LEADERS`` players are leaders,
who move ``LEADER_PACE`` times as often, play a card home whenever one can
go and never undo, so that the top N holds players who keep moving: else,
in a race's first seconds, it is the players who have not moved yet, fewer
moves ranking first), ``sample`` (while nothing else
moves, some players make one more move each and compare the rank their ack
says with Redis's own ``ZRANK``), ``close``.

Measured, in the window: the ack latency of every command; leaderboard
freshness (a move's ack to the first shared ``top`` frame, at the worker's
observer, that shows the mover's new move count, for movers in the top N).
A frame comes only when the top changed and says which tick it is, so a
move is a sample only if the frame showing it is of the first tick after
its ack or the next (the one after, if the first was skipped): a later
frame means the ticks between saw no change, so the move did not change
the top, and its player climbed in afterwards without moving. A first
frame without the player ends the wait (out of the top). Beside it, the
freshness of every mover's own line: the ack to the first ``me`` frame
that shows the new move count (the same tick, written with the shared
frame). And what every player received (text frames and their bytes).
"""

from __future__ import annotations

import asyncio
import os
import random
import socket
import time
from array import array
from collections import deque
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from typing import Any, Final

import orjson
from race_client import Reply, WsClient, choose, drive_worker, now, own_view, ws_frame

CONNECT_CONCURRENCY: Final = 64
LEADERS: Final = 20  # players who play greedily and often (see the docstring)
LEADER_PACE: Final = 10  # how many times as often as the others they move
SLOW_ACK: Final = 0.1  # seconds: an ack this late is counted by where in the tick it was sent
_ACK: Final = b'{"t":"ack"'
_TOP: Final = b'{"t":"top"'
_BOARD: Final = b'{"t":"board"'
_REJECT: Final = b'{"t":"reject"'
_JOINED: Final = b'{"t":"joined"'
_ME: Final = b'{"t":"me"'


@dataclass(slots=True)
class Stats:
    ack_lat: array[float] = field(default_factory=lambda: array("d"))
    fresh: array[float] = field(default_factory=lambda: array("d"))
    own_fresh: array[float] = field(default_factory=lambda: array("d"))
    slow_phase: list[int] = field(default_factory=lambda: [0] * 10)  # slow acks by tenth of a tick
    kinds: dict[str, int] = field(default_factory=dict)  # frames the players but leaders got, by type
    lag: array[float] = field(default_factory=lambda: array("d"))
    accepted: int = 0
    errors: int = 0
    late: int = 0
    rejects: dict[str, int] = field(default_factory=dict)
    top_frames: int = 0
    top_gap: float = 0.0  # the longest wait between two top frames at the observer, in the window
    top_gaps: list[tuple[float, float]] = field(default_factory=list)  # (since the start, gap) over 2 s


class BigPlayer(WsClient):
    def __init__(self, worker: BigWorker, index: int, port: int) -> None:
        super().__init__(worker.loop, worker.host, port)
        self.worker = worker
        self.index = index
        self.rng = random.Random(index * 7919 + 1)
        self.seat = -1
        self.view: dict[str, Any] | None = None
        self.seq = 0
        self.inflight = 0
        self.t_send = 0.0
        self.t_due = 0.0
        self.due = False
        self.stopped = False
        self.after = 0  # the move count the command in flight leads to
        self.last_ack: dict[str, Any] | None = None
        self.observer = False
        self.leader = 1 <= index <= LEADERS  # (0 is the host and an observer)
        self.own: deque[tuple[int, float]] = deque()  # (moves after, t_ack) not yet in a me frame

    def on_lost(self) -> None:
        if not self.worker.closing:
            self.worker.stats.errors += 1

    def on_text(self, payload: bytes) -> None:
        w = self.worker
        if w.counting and not self.leader:  # what a player gets, by type, in the window
            kind = payload[6:payload.find(b'"', 6)].decode()
            w.stats.kinds[kind] = w.stats.kinds.get(kind, 0) + 1
        if payload.startswith(_ACK):
            self.on_ack(payload)
        elif payload.startswith(_TOP):
            if self.observer:
                self.worker.on_top(payload)
        elif payload.startswith(_BOARD):
            self.view = orjson.loads(payload)["d"]["view"]
            self.wake(payload)
        elif payload.startswith(_REJECT):
            self.on_reject(payload)
        elif payload.startswith(_ME):
            if self.own:
                self.on_me(payload)
        elif self.waiters:
            self.wake(payload)

    def on_ack(self, payload: bytes) -> None:
        t = now()
        w = self.worker
        d = orjson.loads(payload)["d"]
        self.last_ack = d
        if d["s"] != self.inflight:
            return
        self.inflight = 0
        self.view = own_view(self.view, d)
        if w.t_start <= t <= w.t_end:
            w.stats.accepted += 1
            w.stats.ack_lat.append(t - self.t_send)
            if t - self.t_send > SLOW_ACK:  # where in the tick the slow ones were sent
                phase = (time.time() - (t - self.t_send)) % w.tick / w.tick
                w.stats.slow_phase[min(9, int(phase * 10))] += 1
            first_tick = int(time.time() / w.tick) + 1  # the first tick built after the ack
            w.pending.setdefault(self.seat, deque()).append((self.view["moves"], t, first_tick))
            self.own.append((self.view["moves"], t))
        self.wake(payload)
        if self.view["state"] == "won":
            self.stopped = True
        elif self.due:
            self.due = False
            w.stats.late += 1
            self.play(self.t_due)

    def on_me(self, payload: bytes) -> None:
        """This player's own place: the moves it shows have reached them."""
        t = now()
        line = orjson.loads(payload)["d"]["line"]
        if not line:
            return
        dq = self.own
        newest = next((i for i in range(len(dq) - 1, -1, -1) if dq[i][0] == line["moves"]), -1)
        for _ in range(newest + 1):
            self.worker.stats.own_fresh.append(max(0.0, t - dq.popleft()[1]))

    def on_reject(self, payload: bytes) -> None:
        d = orjson.loads(payload)["d"]
        code = d.get("code", "?")
        rejects = self.worker.stats.rejects
        rejects[code] = rejects.get(code, 0) + 1
        if d.get("s") is not None and d["s"] == self.inflight:
            self.inflight = 0
            if code in ("not_playing", "not_started"):
                self.stopped = True
        self.wake(payload)

    def play(self, scheduled: float = 0.0) -> None:
        if self.stopped or self.view is None:
            return
        kind, d, self.after = choose(self.view, self.rng, greedy=self.leader)
        if kind == "resign":
            self.stopped = True
        self.seq += 1
        d["s"] = self.seq
        self.inflight = self.seq
        self.t_send = now()
        w = self.worker
        if scheduled and w.t_start <= self.t_send <= w.t_end:
            w.stats.lag.append(self.t_send - scheduled)
        self.write(ws_frame(orjson.dumps({"t": kind, "d": d})))

    def tick(self, scheduled: float) -> None:
        if self.stopped or not self.worker.running:
            return
        if self.inflight:
            self.due, self.t_due = True, scheduled
        else:
            self.play(scheduled)


class BigWorker:
    def __init__(self, loop: asyncio.AbstractEventLoop, host: str, ports: list[int],
                 indexes: range, total: int, redis_port: int, tick: float) -> None:
        self.loop = loop
        self.host = host
        self.players = [BigPlayer(self, i, ports[i % len(ports)]) for i in indexes]
        self.players[0].observer = True
        self.total = total
        self.redis_port = redis_port
        self.stats = Stats()
        self.pending: dict[int, deque[tuple[int, float, int]]] = {}  # seat -> (moves, t_ack, tick)
        self.running = False
        self.closing = False
        self.t_start = self.t_end = float("inf")
        self.room = ""
        self.rx: list[tuple[int, int]] = []  # each player's frames and bytes in the window, not leaders
        self.last_top = 0.0  # when the observer's last top frame came
        self.tick = tick  # the servers' tick, in seconds
        self.counting = False  # in the window: frames are counted by type

    def on_top(self, payload: bytes) -> None:
        """A shared leaderboard at this worker's observer: the moves of this
        worker's players that it shows have reached everyone (near enough)."""
        t = now()
        self.stats.top_frames += 1
        shown = set()
        d = orjson.loads(payload)["d"]
        tick = int(d["tick"])
        for line in d["top"]:
            shown.add(line["seat"])
            dq = self.pending.get(line["seat"])
            if not dq:
                continue
            newest = next((i for i in range(len(dq) - 1, -1, -1) if dq[i][0] == line["moves"]), -1)
            for _ in range(newest + 1):
                _, t_ack, first_tick = dq.popleft()
                if tick <= first_tick + 1:
                    self.stats.fresh.append(max(0.0, t - t_ack))
        for seat, dq in self.pending.items():  # out of the top: no sample
            if seat not in shown:
                dq.clear()
        seen_before, self.last_top = self.last_top, t
        if seen_before and self.t_start <= seen_before and t <= self.t_end:
            self.stats.top_gap = max(self.stats.top_gap, t - seen_before)
            if t - seen_before > 2.0:
                self.stats.top_gaps.append((round(seen_before - self.t_start, 2), round(t - seen_before, 2)))

    async def _connect(self, player: BigPlayer, sem: asyncio.Semaphore) -> None:
        async with sem:
            await self.loop.create_connection(lambda: player, self.host, player.port)
            await asyncio.wait_for(player.handshake, 60)

    async def _ask(self, player: BigPlayer, t: str, d: dict[str, Any], want: bytes) -> dict[str, Any]:
        answer = player.expect(lambda p: p.startswith(want) or p.startswith(_REJECT))
        player.send(t, d)
        raw = await asyncio.wait_for(answer, 120)
        if raw.startswith(_REJECT):
            raise RuntimeError(f"{t} refused: {raw[:300].decode()}")
        return dict(orjson.loads(raw)["d"])

    async def create(self, settings: dict[str, Any]) -> str:
        host = self.players[0]
        await self._connect(host, asyncio.Semaphore(1))
        joined = await self._ask(host, "create", {"nickname": "p0", "settings": settings}, _JOINED)
        host.seat = joined["seat"]
        return str(joined["room"])

    async def join(self, room: str) -> None:
        self.room = room
        sem = asyncio.Semaphore(CONNECT_CONCURRENCY)

        async def one(p: BigPlayer) -> None:
            if p.transport is not None:  # the host, already in
                return
            await self._connect(p, sem)
            async with sem:
                joined = await self._ask(p, "join", {"room": room, "nickname": f"p{p.index}"},
                                         _JOINED)
            p.seat = joined["seat"]

        await asyncio.gather(*(one(p) for p in self.players))

    async def start(self, host: bool) -> None:
        boards = [p.expect(lambda raw: raw.startswith(_BOARD)) for p in self.players]
        if host:
            self.players[0].send("start", {})
        await asyncio.wait_for(asyncio.gather(*boards), 300)

    async def go(self, t_start: float, t_end: float, period: float) -> None:
        self.t_start, self.t_end = t_start, t_end
        self.running = True
        loop, t_go = self.loop, now()
        base_loop = loop.time()

        def tick(p: BigPlayer, at: float) -> None:
            p.tick(at)
            nxt = at + (period / LEADER_PACE if p.leader else period)
            if nxt < t_end and self.running:
                loop.call_at(base_loop + (nxt - t_go), tick, p, nxt)

        for p in self.players:
            at = t_go + 0.05 + period * p.index / self.total
            loop.call_at(base_loop + (at - t_go), tick, p, at)
        await asyncio.sleep(max(0.0, t_start - now()))
        rx0 = [(p.rx_frames, p.rx_bytes) for p in self.players]
        self.counting = True
        await asyncio.sleep(max(0.0, t_end - now()))
        self.counting = False
        self.rx = [(p.rx_frames - f, p.rx_bytes - b)  # (leaders apart: their acks are 10 times more)
                   for p, (f, b) in zip(self.players, rx0, strict=True) if not p.leader]
        self.running = False
        until = now() + 5
        while now() < until and any(p.inflight for p in self.players):
            await asyncio.sleep(0.02)

    async def sample(self, count: int) -> tuple[int, int]:
        """``count`` players, one after another, each make one move: how many
        acks said the rank Redis has for them right after (and how many were asked)."""
        agree = asked = 0
        with socket.create_connection((self.host, self.redis_port), timeout=10) as redis:
            for p in [q for q in self.players if not q.stopped and q.view is not None][:count]:
                ack = p.expect(lambda raw: raw.startswith(_ACK) or raw.startswith(_REJECT))
                p.play()
                raw = await asyncio.wait_for(ack, 30)
                if not raw.startswith(_ACK):
                    continue
                d = orjson.loads(raw)["d"]
                asked += 1
                rank = _resp_int(redis, "ZRANK", f"kr:{{{self.room}}}:rank", f"{p.seat:05d}")
                of = _resp_int(redis, "ZCARD", f"kr:{{{self.room}}}:rank")
                agree += (d.get("rank"), d.get("of")) == (rank + 1, of)
        return agree, asked

    async def close_all(self) -> None:
        self.closing = True
        await asyncio.gather(*(p.close() for p in self.players), return_exceptions=True)


def _resp_int(sock: socket.socket, *args: str) -> int:
    """One command to Redis in RESP, its integer reply (a tiny client: no dependency)."""
    parts = [f"*{len(args)}\r\n".encode()]
    for a in args:
        b = a.encode()
        parts.append(b"$%d\r\n%s\r\n" % (len(b), b))
    sock.sendall(b"".join(parts))
    reply = b""
    while not reply.endswith(b"\r\n"):
        reply += sock.recv(64)
    if not reply.startswith(b":"):
        raise RuntimeError(f"redis answered {reply!r}")
    return int(reply[1:-2])


def worker_main(pipe: Connection, host: str, ports: list[int], first: int, last: int, total: int,
                redis_port: int, tick: float) -> None:
    """A load-generator process for players ``first`` .. ``last - 1`` (``tick``:
    the servers' ``--tick``)."""
    drive_worker(pipe, lambda loop: BigWorker(loop, host, ports, range(first, last), total,
                                              redis_port, tick), _answer)


def _answer(loop: asyncio.AbstractEventLoop, worker: BigWorker, msg: Reply) -> Reply:
    step = msg[0]
    if step == "create":
        return ("created", loop.run_until_complete(worker.create(msg[1])))
    if step == "join":
        loop.run_until_complete(worker.join(msg[1]))
        return ("joined", os.getpid())
    if step == "start":
        loop.run_until_complete(worker.start(msg[1]))
        return ("started",)
    if step == "go":
        loop.run_until_complete(worker.go(*msg[1:]))
        st = worker.stats
        return ("done", {
            "ack_lat": st.ack_lat.tobytes(), "fresh": st.fresh.tobytes(),
            "own_fresh": st.own_fresh.tobytes(), "slow_phase": st.slow_phase,
            "kinds": st.kinds,
            "lag": st.lag.tobytes(), "accepted": st.accepted, "errors": st.errors,
            "late": st.late, "rejects": st.rejects, "top_frames": st.top_frames,
            "top_gap": st.top_gap, "top_gaps": st.top_gaps,
            "rx": worker.rx,
        })
    if step == "sample":
        return ("sampled", loop.run_until_complete(worker.sample(msg[1])))
    raise ValueError(f"unknown step {step!r}")
