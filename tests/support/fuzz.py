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

from server.klondike import Game

__all__ = ["CLASSES", "CODE", "HTTP_SECRETS", "Honest", "InvalidHandshake", "Tally", "flooder",
           "honest_race", "hostile_worker", "http_campaign", "http_exchange", "http_problem",
           "http_request", "http_status", "j", "open_socket", "quantiles", "walk"]

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


# ---------------------------------------------------------------------- HTTP

#: what no answer may hold: files outside the web client (the server's source, the
#: project's, the system's), a traceback
HTTP_SECRETS: Final = (b"root:x:", b"[project]", b"[core]", b"from __future__ import",
                       b"process_request", b"Traceback")
#: the websockets library's own answer to a request it could not read (before any server code)
LIBRARY_REFUSAL: Final = b"Failed to open a WebSocket connection"
#: numbers as a path or a query holds them: ASCII digits, and what ``isdigit`` also takes
_NUMBERS: Final = ("1", "0", "7", "-1", "%C2%B2", "%D9%A1%D9%A2", "99999999999", "1e3", "%201",
                   "0x10", "", "1.5", "+1", "9" * 9, "%EF%BC%91", "1%0B", "1\x0b", "\x0c")
_METHODS: Final = ("POST", "PUT", "DELETE", "HEAD", "OPTIONS", "PATCH", "CONNECT", "TRACE", "get")
_PAGES: Final = ("/", "/index.html", "/r/ABCD2345", "/t/ABCDEFGH", "/js/main.js",
                 "/css/base.css", "/rules.md", "/healthz", "/metrics", "/ws", "/favicon.ico",
                 "/api/", "/api/tournaments", "/.git/config", "/../pyproject.toml")
#: headers the server reads as headers, odd as they are
_ODD_HEADERS: Final = (
    "Host: evil.example", "Host: ", "Host: a:b:c", "Accept-Encoding: gzip",
    "Accept-Encoding: gzip;q=x, *;q=0", "Accept-Encoding: gzip\r\nAccept-Encoding: br",
    'If-None-Match: "x"\r\nIf-None-Match: *', "If-None-Match: " + '"' * 50,
    "Origin: https://evil.example", "Origin: null", "Origin: http://a\r\nOrigin: http://b",
    "Upgrade: websocket", "Connection: Upgrade", "Sec-WebSocket-Key: x",
    "Sec-WebSocket-Version: 99", "X-Forwarded-For: ::1, 999.1.1.1", "Cookie: " + "c=1; " * 200,
    "X-Long: " + "y" * 4000, "Content-Type: application/json", "Range: bytes=0-1",
    "Expect: 100-continue", "X-Empty:", "X-Tab: a\tb",
)
#: what a well-made server refuses before reading further (the library's own refusal)
_BROKEN: Final = ("no colon here", "X-Fold: a\r\n continued", "X-Latin: caf\xe9",
                  "X-Nul: a\x00b", "X-Huge: " + "y" * 10_000, "Bad Name: x", ": empty name")


def _ids(rng: random.Random, tid: str) -> str:
    if rng.random() < 0.05:  # raw bytes outside ASCII: the library refuses the request line
        return rng.choice(["²" * 8, "ßßßß", tid[:7] + "İ", "\u202e" + tid[:7]])
    return rng.choice([tid, tid.lower(), "ZZZZZZZZ", tid + "\x0b", tid + "%0B", tid + "\x0c",
                       "%C2%B2" * 4, "%00", "..", "A" * 300, "", "%20" + tid, tid + "/",
                       "%2e%2e", tid[:7] + "%C4%B0", tid[:4]])


def _junk_path(rng: random.Random) -> str:
    pieces = ["..", "%2e%2e", "%2f", "%5c", "\\", "//", "a" * rng.choice((10, 255, 300, 2000)),
              "%", "%zz", "%C2%B2", "%C3%A9", "%00", "%E2%80%8B", "\x7f", "~", ".", "index.html",
              "js", "api", "tournaments", ";", "?", "#", "\t", "\x0b"]
    return "/" + "/".join(rng.choice(pieces) for _ in range(rng.randrange(1, 12)))


def _http_path(rng: random.Random, tid: str) -> str:
    roll = rng.random()
    if roll < 0.5:
        tail = rng.choice(["results", "results.csv", "results.json", "", "x",
                           f"rounds/{rng.choice(_NUMBERS)}/replay/{rng.choice(_NUMBERS)}",
                           "rounds/1/replay", "rounds//replay/0", "results/more"])
        return f"/api/tournaments/{_ids(rng, tid)}/{tail}"
    if roll < 0.75:
        return rng.choice(_PAGES)
    return _junk_path(rng)


def _query(rng: random.Random) -> str:
    roll = rng.random()
    if roll < 0.3:
        return ""
    if roll < 0.8:
        fields = [f"{rng.choice(['first', 'count', 'v', 'x', 'first', ''])}="
                  f"{rng.choice(_NUMBERS)}" for _ in range(rng.randrange(1, 5))]
        return "?" + "&".join(fields)
    return "?" + rng.choice(["x" * 5000, "%zz", "=&=&", "a=1&" * 500, "first", "&&&",
                             "first=1&first=2&count=%F0%9F%83%8F", "v=" + "0" * 100, "\x0b=1"])


def _headers(rng: random.Random, host: str) -> list[str]:
    out = [] if rng.random() < 0.05 else [f"Host: {host}"]
    out += rng.sample(_ODD_HEADERS, rng.randrange(0, 4))
    if rng.random() < 0.05:
        out.append(rng.choice(_BROKEN))
    if rng.random() < 0.02:
        out += [f"X-{i}: y" for i in range(200)]
    return out


def http_request(rng: random.Random, host: str, tid: str) -> bytes:
    """One hostile HTTP request, raw: a method, a path (the API's with odd
    ids and numbers, the web client's pages, junk), a query string, headers
    (odd, doubled, huge, too many) and now and then a body, each a valid or
    odd choice, and now and then one that breaks HTTP itself (the library
    then refuses the request before any server code sees it); or a line of
    garbage. Always ends its head (a half-sent request is another test)."""
    if rng.random() < 0.02:
        garbage = rng.choice(["\x16\x03\x01\x02\x00\x01\x00\x01", "\x00" * 10, "GET",
                              "GET / HTTP/1.1 extra", "/ HTTP/1.1", " GET / HTTP/1.1",
                              "".join(chr(rng.randrange(1, 256)) for _ in range(50))])
        return (garbage + "\r\n\r\n").encode("latin-1")
    method = "GET" if rng.random() < 0.85 else rng.choice(_METHODS)
    version = "HTTP/1.1" if rng.random() < 0.95 else rng.choice(["HTTP/1.0", "HTTP/2", "HTTP/1.1x",
                                                                   ""])
    target = _http_path(rng, tid) + _query(rng)
    lines = [f"{method} {target} {version}".rstrip(), *_headers(rng, host)]
    body = ""
    if rng.random() < 0.05:
        body = "x" * rng.randrange(0, 300)
        lines.append(rng.choice([f"Content-Length: {len(body)}", "Transfer-Encoding: chunked",
                                 "Content-Length: -1", "Content-Length: abc"]))
    text = "\r\n".join(lines) + "\r\n\r\n" + body
    return text.encode("utf-8", errors="surrogateescape")


async def http_exchange(port: int, raw: bytes, timeout: float = 15.0) -> bytes:
    """Send a raw request; everything the server answered before it closed
    (b"" if it closed without a word)."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        writer.write(raw)
        await writer.drain()
        async with asyncio.timeout(timeout):
            return await reader.read()
    except ConnectionError:
        return b""
    finally:
        writer.close()
        with contextlib.suppress(ConnectionError):
            await writer.wait_closed()


def http_status(answer: bytes) -> int:
    head = answer.split(b"\r\n", 1)[0].split()
    return int(head[1]) if len(head) > 1 and head[1].isdigit() else 0


def http_problem(answer: bytes) -> str | None:
    """What is wrong with an answer to a hostile request, if anything: a 5xx,
    a refusal that is not JSON (but for the library's own, to a request it
    could not read), a secret."""
    status = http_status(answer)
    head, _, body = answer.partition(b"\r\n\r\n")
    for secret in HTTP_SECRETS:
        if secret in answer:
            return f"holds {secret!r}"
    if status >= 500:
        return f"status {status}"
    if 400 <= status < 500 and not body.startswith(b"{") and not body.startswith(LIBRARY_REFUSAL):
        return f"a {status} whose body is not JSON: {body[:80]!r}"
    if 400 <= status < 500 and body.startswith(b"{") and b"application/json" not in head:
        return f"a {status} JSON body without its content type"
    return None


async def http_campaign(port: int, tid: str, requests: int, seed: int, *, workers: int = 8
                    ) -> tuple[Counter[int], list[tuple[bytes, str]]]:
    """``requests`` hostile requests from ``workers`` at once: how many got
    each status (0: closed without an answer), and the requests whose answer
    had a problem (:func:`http_problem`)."""
    statuses: Counter[int] = Counter()
    problems: list[tuple[bytes, str]] = []
    host = f"127.0.0.1:{port}"

    async def worker(n: int, rng: random.Random) -> None:
        for _ in range(n):
            raw = http_request(rng, host, tid)
            answer = await http_exchange(port, raw)
            statuses[http_status(answer)] += 1
            problem = http_problem(answer)
            if problem is not None:
                problems.append((raw[:300], problem))

    share = [requests // workers + (1 if i < requests % workers else 0) for i in range(workers)]
    await asyncio.gather(*(worker(n, random.Random(seed * 1000 + i)) for i, n in enumerate(share)))
    return statuses, problems


# ---------------------------------------------------------------------- long games

def walk(code: str, length: int, seed: int = 16) -> list[str]:
    """A random legal game of ``length`` commands on ``code``, undos among
    them, never won: moves of every kind, as a seat's longest log may hold."""
    rng, game, out = random.Random(seed), Game(code), []
    while len(out) < length:
        if game.undo_depth and rng.random() < 0.1:
            game.pop()
            out.append("undo")
            continue
        move = rng.choice(game.legal_moves())
        game.push(move)
        if game.is_won:
            game.pop()
            continue
        out.append(str(move))
    return out
