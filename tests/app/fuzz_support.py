"""Hostile clients for the fuzz suite (``test_fuzz.py``) and its full-size
campaign (``bench/fuzz.py``): every class of bad frame, sent by many sockets
beside an honest race whose acks are timed.

Classes of frame (``CLASSES``): malformed JSON, binary frames, oversize
frames, deep nesting, wrong types, unknown types, huge, negative and
fractional numbers, commands in the wrong state, commands for other seats
(a spectator's game and lobby commands, resumes with made-up tokens, joins
under the racers' names), floods (valid commands over the credit) and ping
floods. None of them is a valid command in its place: each must be refused
(or its socket closed) and change nothing.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import statistics
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Final

import orjson
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake

__all__ = ["CLASSES", "CODE", "Honest", "InvalidHandshake", "Tally", "flooder", "honest_race",
           "hostile_worker", "j", "open_socket", "quantiles"]

SUBPROTOCOL: Final = "klondike-race.v2"
#: a fixed deal: the honest race plays ``draw`` and ``undo`` on it for ever
CODE: Final = "KL1-D1N-AAAAAAA"
MAX_FRAME: Final = 4096


def j(t: Any, d: Any = None) -> str:
    msg: dict[str, Any] = {"t": t}
    if d is not None:
        msg["d"] = d
    return orjson.dumps(msg).decode()


def _nested(rng: random.Random) -> str:
    depth = rng.choice((100, 500, 1000, 2000))
    if rng.random() < 0.5:
        return "[" * depth + "]" * depth
    return '{"t":"move","d":' + '{"a":' * (depth // 6) + "1" + "}" * (depth // 6) + "}"


def _malformed(rng: random.Random) -> str:
    choices = ["", "{", "}", "hello", '{"t": "move", "d": {"s": 1', "{'t': 'ping'}", "[1,2",
               '{"t": "move", "d": {"s": NaN, "m": "draw"}}', '{"t":"ping"}{"t":"ping"}',
               '{"t": "undo", "d": {"s": 1e400}}', "\u0000\u0001", "null null", '{"t":}']
    if rng.random() < 0.3:
        return "".join(chr(rng.randrange(32, 0x2FFF)) for _ in range(rng.randrange(1, 200)))
    return rng.choice(choices)


def _wrong_type(rng: random.Random) -> str:
    bad = [None, True, 1.5, "1", [], {}, -1, "x" * 201]
    cmd = rng.choice([("move", "s"), ("move", "m"), ("undo", "s"), ("join", "room"),
                      ("join", "nickname"), ("create", "settings"), ("kick", "seat"),
                      ("ready", "ready"), ("resume", "since"), ("t_start", "at"),
                      ("solo", "draw"), ("watch", "room")])
    d: dict[str, Any] = {"s": 1, "m": "draw", "room": "ABCDEFGH", "nickname": "x", "settings": {},
                         "seat": 1, "ready": True, "token": "t", "id": "ABCDEFGH", "admin": "a"}
    # a value of the wrong type for that field (an object is right for settings)
    d[cmd[1]] = rng.choice([v for v in bad if not (cmd[1] == "settings" and v == {})])
    return j(cmd[0], d) if rng.random() < 0.9 else j(cmd[0], rng.choice([[1], "d", 5, False]))


def _unknown(rng: random.Random) -> str:
    return j(rng.choice(["fly", "", "Move", "ack", "__proto__", "constructor", "z" * 300, "MOVE",
                         "t_hack", "sync", "event"]), {"s": 1})


def _numbers(rng: random.Random) -> str:
    n = rng.choice(["2147483648", "9007199254740991", "9007199254740992", "18446744073709551616",
                    "-1", "-9007199254740992", "0", "1.5", "0.1", "1e300", "-0.0", "1" + "0" * 40,
                    "2147483647.5"])
    return rng.choice([
        '{"t":"move","d":{"s":%s,"m":"draw"}}', '{"t":"undo","d":{"s":%s}}',
        '{"t":"resign","d":{"s":%s}}', '{"t":"kick","d":{"seat":%s}}',
        '{"t":"resume","d":{"room":"ABCDEFGH","token":"x","since":%s}}',
        '{"t":"watch","d":{"room":"ABCDEFGH","since":%s}}',
        '{"t":"t_start","d":{"id":"ABCDEFGH","admin":"x","at":%s}}']) % n


def _wrong_state(rng: random.Random) -> str:
    return rng.choice([j("move", {"s": 1, "m": "draw"}), j("undo", {"s": 1}), j("resign", {"s": 1}),
                       j("start"), j("ready", {"ready": True}), j("kick", {"seat": 0}),
                       j("rematch"), j("leave"), j("hint"), j("complete"),
                       j("t_close", {"id": "ABCDEFGH", "admin": "x"}),
                       j("t_withdraw", {"id": "ABCDEFGH", "token": "x"}),
                       j("resume", {"room": "ABCDEFGH", "token": "x"}),
                       j("join", {"room": "ZZZZZZZZ", "nickname": "x"}),
                       j("t_watch", {"id": "ZZZZZZZZ"})])


def _other_seat(rng: random.Random, room: str, nicknames: list[str]) -> str:
    """Commands at the honest race's room from a stranger (or its spectator)."""
    return rng.choice([
        j("move", {"s": rng.randrange(1, 99), "m": "draw"}), j("undo", {"s": 5}),
        j("resign", {"s": 7}), j("kick", {"seat": rng.randrange(0, 3)}), j("start"),
        j("rematch"), j("ready", {"ready": False}),
        j("resume", {"room": room, "token": "".join(rng.choices("abcdefghijkmnpqrstuvwxyz", k=24))}),
        j("join", {"room": room, "nickname": rng.choice(nicknames)}),
        j("join", {"room": room.lower(), "nickname": rng.choice(nicknames).upper()}),
    ])


Maker = Callable[[random.Random], str | bytes]
CLASSES: Final[dict[str, Maker]] = {
    "malformed_json": _malformed,
    "binary": lambda rng: bytes(rng.randrange(256) for _ in range(rng.randrange(1, 64))),
    "deep_nesting": _nested,
    "wrong_type": _wrong_type,
    "unknown_type": _unknown,
    "numbers": _numbers,
    "wrong_state": _wrong_state,
}
#: frames that close their socket (the worker opens another)
CLOSING: Final = ("oversize", "bad_utf8")


@dataclass
class Tally:
    """What the hostile side sent and saw."""

    sent: Counter[str] = field(default_factory=Counter)
    answers: Counter[str] = field(default_factory=Counter)  # reject codes, and other frame types
    closes: Counter[int] = field(default_factory=Counter)
    connections: int = 0
    refused_handshakes: int = 0

    @property
    def frames(self) -> int:
        return sum(self.sent.values())

    def merge(self, other: Tally) -> None:
        self.sent += other.sent
        self.answers += other.answers
        self.closes += other.closes
        self.connections += other.connections
        self.refused_handshakes += other.refused_handshakes


async def open_socket(url: str) -> ClientConnection:
    return await connect(url, subprotocols=[SUBPROTOCOL], max_size=2**22,  # type: ignore[list-item]
                         open_timeout=20, close_timeout=5)


async def _drain(ws: ClientConnection, tally: Tally) -> None:
    with contextlib.suppress(ConnectionClosed):
        async for raw in ws:
            msg = orjson.loads(raw)
            d = msg.get("d") or {}
            tally.answers[d.get("code", "?") if msg["t"] == "reject" else msg["t"]] += 1


async def hostile_worker(url: str, room: str, nicknames: list[str], frames: int, seed: int,
                         tally: Tally, *, rate: float = 15.0, burst: int = 30) -> None:
    """``frames`` hostile frames of every class, paced below the message
    credit (so that the frames, not a flood close, are what is tested), on
    one socket after another; a third of the workers watch the honest room
    first, so their game and lobby commands are aimed at its seats."""
    rng = random.Random(seed)
    spectator = seed % 3 == 0
    while frames > 0:
        try:
            ws = await open_socket(url)
        except (OSError, InvalidHandshake, TimeoutError):
            tally.refused_handshakes += 1
            await asyncio.sleep(0.5)
            continue
        tally.connections += 1
        reader = asyncio.create_task(_drain(ws, tally))
        try:
            if spectator:
                await ws.send(j("watch", {"room": room, "since": 0}))
            while frames > 0:
                for _ in range(min(burst, frames)):
                    roll = rng.random()
                    if roll < 0.01:
                        kind, data = "oversize", "x" * (MAX_FRAME + rng.randrange(1, 5000))
                    elif roll < 0.015:
                        kind, data = "bad_utf8", b'{"t":"ping","d":{"x":"\xff\xfe"}}'
                    elif roll < 0.25:
                        kind, data = "other_seat", _other_seat(rng, room, nicknames)
                    else:
                        kind = rng.choice(list(CLASSES))
                        data = CLASSES[kind](rng)
                    tally.sent[kind] += 1
                    frames -= 1
                    if kind == "bad_utf8":
                        await ws.send(data, text=True)  # type: ignore[arg-type]
                    else:
                        await ws.send(data)
                    if kind in CLOSING:
                        raise ConnectionClosed(None, None)
                await asyncio.sleep(burst / rate)
        except ConnectionClosed:
            pass
        finally:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(ws.close(), 5)
            with contextlib.suppress(Exception):
                await asyncio.wait_for(reader, 5)
            if ws.close_code is not None:
                tally.closes[ws.close_code] += 1


async def flooder(url: str, frame: str, seconds: float, tally: Tally,
                  per_tick: int = 1, tick: float = 0.0) -> int | None:
    """One socket sending ``frame`` as fast as it can (``per_tick`` every
    ``tick`` seconds) for ``seconds``, or until the server closes it; its
    close code (``None``: still open when time was up)."""
    ws = await open_socket(url)
    tally.connections += 1
    reader = asyncio.create_task(_drain(ws, tally))
    until = time.monotonic() + seconds
    code: int | None = None
    try:
        while time.monotonic() < until:
            for _ in range(per_tick):
                await ws.send(frame)
                tally.sent["flood" if '"ping"' not in frame else "ping_flood"] += 1
            await asyncio.sleep(tick)
    except ConnectionClosed:
        pass
    if ws.close_code is not None or reader.done():
        await asyncio.wait_for(reader, 5)
        code = ws.close_code
        tally.closes[code or 0] += 1
    else:
        reader.cancel()
        await ws.close()
    return code


# ---------------------------------------------------------------------- the honest race

class Honest:
    """A player of the honest race: plays ``draw`` then ``undo`` for ever
    (always legal, never ends), at most ``rate`` commands a second, timing
    each from send to ack."""

    def __init__(self, ws: ClientConnection, name: str) -> None:
        self.ws, self.name = ws, name
        self.seq = 0
        self.latencies: list[float] = []
        self.acks = 0
        self.rejects: list[dict[str, Any]] = []
        self.moves = 0  # the game's move count after the last ack
        self.room = self.token = ""
        self.seat = -1
        self.frames: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self._reader = asyncio.create_task(self._read())

    @classmethod
    async def open(cls, url: str, name: str) -> Honest:
        return cls(await open_socket(url), name)

    async def _read(self) -> None:
        with contextlib.suppress(ConnectionClosed):
            async for raw in self.ws:
                await self.frames.put(orjson.loads(raw))
        await self.frames.put({"t": "__closed__", "d": {}})

    async def expect(self, t: str, timeout: float = 20.0) -> dict[str, Any]:
        async with asyncio.timeout(timeout):
            while True:
                msg = await self.frames.get()
                if msg["t"] == "__closed__":
                    raise ConnectionError(f"{self.name}: closed ({self.ws.close_code}) awaiting {t}")
                if msg["t"] == t:
                    return dict(msg["d"])
                if msg["t"] == "reject" and t != "reject":
                    raise AssertionError(f"{self.name}: {msg['d']} awaiting {t}")

    async def send(self, t: str, d: dict[str, Any] | None = None) -> None:
        await self.ws.send(j(t, d or {}))

    async def play(self, seconds: float, rate: float = 8.0) -> None:
        until = time.monotonic() + seconds
        while time.monotonic() < until:
            self.seq += 1
            command = "draw" if self.seq % 2 else "undo"
            sent = time.perf_counter()
            if command == "draw":
                await self.send("move", {"s": self.seq, "m": "draw"})
            else:
                await self.send("undo", {"s": self.seq})
            async with asyncio.timeout(30):
                while True:
                    msg = await self.frames.get()
                    if msg["t"] == "__closed__":
                        raise ConnectionError(f"{self.name}: closed ({self.ws.close_code})")
                    d = msg.get("d") or {}
                    if msg["t"] in ("ack", "reject") and d.get("s") == self.seq:
                        break
            if msg["t"] == "ack":
                self.latencies.append(time.perf_counter() - sent)
                self.acks += 1
                self.moves = (d["view"] if "view" in d else d["change"])["moves"]
            else:
                self.rejects.append(d)
            await asyncio.sleep(max(0.0, 1 / rate - (time.perf_counter() - sent)))

    async def close(self) -> None:
        await self.ws.close()
        self._reader.cancel()
        await asyncio.gather(self._reader, return_exceptions=True)


async def honest_race(url: str, names: tuple[str, ...] = ("ann", "bob")) -> list[Honest]:
    """A room on :data:`CODE` whose race has started; every player has its board."""
    players = [await Honest.open(url, n) for n in names]
    host = players[0]
    await host.send("create", {"nickname": names[0], "settings": {"code": CODE}})
    joined = await host.expect("joined")
    host.room, host.seat, host.token = joined["room"], joined["seat"], joined["token"]
    for p in players[1:]:
        await p.send("join", {"room": host.room, "nickname": p.name})
        joined = await p.expect("joined")
        p.room, p.seat, p.token = joined["room"], joined["seat"], joined["token"]
        await p.send("ready", {"ready": True})
    for p in players[1:]:
        # the host sees each one ready before it starts
        while True:
            event = await host.expect("event")
            if event["kind"] == "ready" and event["seat"] == p.seat:
                break
    await host.send("start")
    for p in players:
        await p.expect("board", timeout=30)
    return players


def quantiles(samples: list[float]) -> tuple[float, float]:
    """p50 and p99 in milliseconds."""
    if len(samples) < 2:
        return (samples[0] * 1000, samples[0] * 1000) if samples else (float("nan"), float("nan"))
    cuts = statistics.quantiles(samples, n=100, method="inclusive")
    return cuts[49] * 1000, cuts[98] * 1000
