"""The probes of issue 16 that concern the server's edge, run against a
server of any checkout, so that a change can be shown before and after.

Run from the project's root::

    .venv/bin/python bench/edge_probes.py                          # this checkout's server
    .venv/bin/python bench/edge_probes.py --server-root /tmp/main  # another checkout's

It starts its own ``redis-server`` and two server processes of
``--server-root`` (one behind a pretend proxy, ``--proxy-header
X-Forwarded-For``, so that each probe can come from addresses of its own;
one without, for the connections before the handshake) and prints one line
per probe with what it measured:

- **4 Origin**: a handshake with ``Origin: https://evil.example``, and a
  ``create`` on it;
- **5 global caps** (``--max-tournaments 3``): three ``t_create`` from one
  address, then one from another; how long a room nobody joins holds its
  place in the cap (read from Redis);
- **6 registration floods**: one connection registering nicknames in a
  16-player tournament, then a real player; wrong invite codes from one
  address, and from 30 addresses at one tournament: how many were checked;
- **7 replays**: a seat playing 2 500 commands (how many are stored); the
  replay of its round, and of an injected 30 000-entry log: bytes, time,
  and the longest websocket ping beside 5 such requests at once;
- **9 malformed HTTP**: ``?first=%C2%B2`` and an id ending in ``\\x0b``;
- **10 half-sent requests**: 300 from one address: how many were held, and
  for how long.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import orjson
import redis
from fuzz import HOST, ROOT, free_port, out  # this folder's: bench/fuzz.py
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidStatus

SUBPROTOCOL = "klondike-race.v1"
CODE = "KL1-D1N-AAAAAAA"


class Stack:
    """A redis-server and two server processes, stopped by PID."""

    def __init__(self, server_root: Path, workdir: Path) -> None:
        self.procs: list[subprocess.Popen[bytes]] = []
        self.rport = free_port()
        self.procs.append(subprocess.Popen(
            ["redis-server", "--port", str(self.rport), "--bind", HOST, "--save", "",
             "--appendonly", "no", "--dir", str(workdir), "--daemonize", "no"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        time.sleep(0.3)
        self.redis_url = f"redis://{HOST}:{self.rport}/0"
        env = {**os.environ, "KLONDIKE_COUNTDOWN": "0.2", "KLONDIKE_LOG_LEVEL": "warning",
               "KLONDIKE_WINNABLE_POOL": "0", "PYTHONPATH": str(server_root)}
        proxy = ["--proxy-header", "X-Forwarded-For"]
        self.proxied = self._server(server_root, workdir / "proxied.log", env, [
            *proxy, "--msg-rate", "5000", "--msg-burst", "5000"])
        # the global caps are counted in Redis: this one has a database of its own
        self.capped = self._server(server_root, workdir / "capped.log", env,
                                   [*proxy, "--max-tournaments", "3"], db=1)
        self.direct = self._server(server_root, workdir / "direct.log", env, [])

    def _server(self, root: Path, log: Path, env: dict[str, str], args: list[str],
                db: int = 0) -> int:
        with open(log, "wb") as f:
            proc = subprocess.Popen(
                [sys.executable, "-m", "server", "serve", "--host", HOST, "--port", "0",
                 "--redis-url", self.redis_url[:-1] + str(db), *args],
                cwd=root, env=env, stdout=subprocess.PIPE, stderr=f)
        self.procs.append(proc)
        assert proc.stdout is not None
        line = proc.stdout.readline().decode()
        if "open http://" not in line:
            raise RuntimeError(f"server did not start: {line!r}\n{log.read_text()[-2000:]}")
        return int(line.rsplit(":", 1)[1].strip().rstrip("/"))

    def stop(self) -> None:
        for proc in reversed(self.procs):
            if proc.poll() is None:
                proc.send_signal(signal.SIGTERM)
                try:
                    proc.wait(20)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait()
            if proc.stdout is not None:
                proc.stdout.close()


class Socket:
    """A websocket client from a pretend address (``X-Forwarded-For``)."""

    def __init__(self, ws: ClientConnection) -> None:
        self.ws = ws
        self.frames: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self.reader = asyncio.create_task(self._read())

    @classmethod
    async def open(cls, port: int, address: str, origin: str | None = None) -> Socket:
        headers = {"X-Forwarded-For": address}
        if origin is not None:
            headers["Origin"] = origin
        ws = await connect(f"ws://{HOST}:{port}/ws", subprotocols=[SUBPROTOCOL],  # type: ignore[list-item]
                           additional_headers=headers, max_size=2**24, open_timeout=30)
        return cls(ws)

    async def _read(self) -> None:
        with contextlib.suppress(ConnectionClosed):
            async for raw in self.ws:
                await self.frames.put(orjson.loads(raw))
        await self.frames.put({"t": "__closed__", "d": {}})

    async def send(self, t: str, d: dict[str, Any] | None = None) -> None:
        await self.ws.send(orjson.dumps({"t": t, "d": d or {}}).decode())

    async def answer(self, *types: str, timeout: float = 20.0) -> dict[str, Any]:
        """The next frame of one of ``types``, or a reject."""
        async with asyncio.timeout(timeout):
            while True:
                msg = await self.frames.get()
                if msg["t"] == "__closed__" or msg["t"] in types or msg["t"] == "reject":
                    return msg

    async def close(self) -> None:
        await self.ws.close()
        self.reader.cancel()
        await asyncio.gather(self.reader, return_exceptions=True)


def what(msg: dict[str, Any]) -> str:
    return str(msg["d"].get("code")) if msg["t"] == "reject" else str(msg["t"])


# ---------------------------------------------------------------------- probes

async def probe_origin(stack: Stack) -> str:
    try:
        s = await Socket.open(stack.proxied, "198.51.100.4", origin="https://evil.example")
    except InvalidStatus as exc:
        return f"handshake refused: HTTP {exc.response.status_code}"
    await s.answer("hello")
    await s.send("create", {"nickname": "evil", "settings": {}})
    got = what(await s.answer("joined"))
    await s.close()
    return f"handshake accepted (101), create answered {got}"


async def probe_caps(stack: Stack) -> str:
    junk = await Socket.open(stack.capped, "198.51.100.5")
    answers = []
    for i in range(3):
        await junk.send("t_create", {"name": f"junk {i}", "settings": {}})
        answers.append(what(await junk.answer("t_created")))
    organizer = await Socket.open(stack.capped, "198.51.100.6")
    await organizer.send("t_create", {"name": "club night", "settings": {}})
    honest = what(await organizer.answer("t_created"))
    # a room nobody joins: how long its place counts against the cap
    lonely = await Socket.open(stack.proxied, "198.51.100.7")
    await lonely.send("create", {"nickname": "alone", "settings": {}})
    room = (await lonely.answer("joined"))["d"].get("room")
    r = redis.Redis.from_url(stack.redis_url)
    until = r.zscore("ki:live:rooms", room) if room else None
    held = "?" if until is None else f"{(until - time.time() * 1000) / 1000:.0f} s"
    r.close()
    for s in (junk, organizer, lonely):
        await s.close()
    return (f"one address's 3 t_create: {', '.join(answers)}; another's: {honest}; "
            f"a room nobody joined holds its place {held}")


async def probe_registrations(stack: Stack) -> str:
    organizer = await Socket.open(stack.proxied, "198.51.100.8")
    await organizer.send("t_create", {"name": "cup", "settings": {"max_players": 16}})
    tid = (await organizer.answer("t_created"))["d"]["id"]
    flood = await Socket.open(stack.proxied, "198.51.100.9")
    got: Counter[str] = Counter()
    for i in range(16):
        await flood.send("t_register", {"id": tid, "nickname": f"sock{i}"})
        got[what(await flood.answer("t_registered"))] += 1
    player = await Socket.open(stack.proxied, "198.51.100.10")
    await player.send("t_register", {"id": tid, "nickname": "real"})
    real = what(await player.answer("t_registered"))
    # invite codes: from one address (a connection each), then from 30 addresses
    await organizer.send("t_create", {"name": "private", "settings": {"invite": True}})
    private = (await organizer.answer("t_created"))["d"]["id"]
    one: Counter[str] = Counter()
    for i in range(60):
        guesser = await Socket.open(stack.proxied, "198.51.100.11")
        await guesser.send("t_register", {"id": private, "nickname": f"g{i}", "invite": f"WRONG{i:03d}"})
        one[what(await guesser.answer("t_registered"))] += 1
        await guesser.close()
    many: Counter[str] = Counter()
    await organizer.send("t_create", {"name": "private 2", "settings": {"invite": True}})
    private2 = (await organizer.answer("t_created"))["d"]["id"]
    for i in range(300):
        guesser = await Socket.open(stack.proxied, f"203.0.113.{i % 30 + 1}")
        await guesser.send("t_register", {"id": private2, "nickname": f"h{i}", "invite": f"BAD{i:05d}"})
        many[what(await guesser.answer("t_registered"))] += 1
        await guesser.close()
    for s in (organizer, flood, player):
        await s.close()
    return (f"one connection's 16 registrations: {dict(got)}; then a real player: {real}; "
            f"60 wrong invites from one address: {dict(one)}; 300 from 30 addresses at one "
            f"tournament: {dict(many)}")


async def _ping_rtt(s: Socket) -> float:
    sent = time.perf_counter()
    await s.send("ping")
    await s.answer("pong")
    return (time.perf_counter() - sent) * 1000


async def _get(port: int, path: str) -> tuple[int, bytes]:
    """Status and body of one GET (the whole answer read)."""
    reader, writer = await asyncio.open_connection(HOST, port)
    writer.write(f"GET {path} HTTP/1.1\r\nHost: {HOST}:{port}\r\n\r\n".encode())
    await writer.drain()
    data = await reader.read()
    writer.close()
    head, _, body = data.partition(b"\r\n\r\n")
    status = int(head.split()[1]) if len(head.split()) > 1 else 0
    return status, body


async def _whole(port: int, path: str) -> tuple[int, int, float, int]:
    """Status, bytes, seconds and requests to get a whole replay: one GET,
    or page after page where the server sends pages (``of``)."""
    started, size, pages, first = time.perf_counter(), 0, 0, 0
    while True:
        status, body = await _get(port, f"{path}?first={first}")
        size, pages = size + len(body), pages + 1
        if status != 200:
            break
        reply = orjson.loads(body)
        if "of" not in reply or not reply["steps"]:
            break
        first += len(reply["steps"])
        if first >= reply["of"]:
            break
    return status, size, time.perf_counter() - started, pages


async def _replays_beside_pings(port: int, path: str, pinger: Socket) -> str:
    base = sorted([await _ping_rtt(pinger) for _ in range(20)])[10]
    worst = 0.0
    gets = asyncio.gather(*(_whole(port, path) for _ in range(5)))
    while not gets.done():
        worst = max(worst, await _ping_rtt(pinger))
    status, size, seconds, pages = (await gets)[0]
    return (f"HTTP {status}, the whole replay {size / 1e6:.2f} MB in {pages} request(s), "
            f"{seconds:.2f} s; ping beside 5 clients at once {worst:.0f} ms "
            f"(alone {base:.1f} ms)")


async def probe_replays(stack: Stack) -> list[str]:
    port = stack.proxied
    organizer = await Socket.open(port, "198.51.100.12")
    await organizer.send("t_create", {"name": "long", "settings": {
        "codes": [CODE], "max_players": 2, "time_limit": 14400}})
    created = (await organizer.answer("t_created"))["d"]
    tid, admin = created["id"], created["admin"]
    players = []
    for i in range(2):
        s = await Socket.open(port, f"198.51.100.{13 + i}")
        await s.send("t_register", {"id": tid, "nickname": f"p{i}"})
        players.append((s, (await s.answer("t_registered"))["d"]))
    await organizer.send("t_start", {"id": tid, "admin": admin, "at": 0})
    while True:
        msg = await organizer.answer("t_event")
        if msg["t"] == "t_event" and msg["d"]["kind"] == "round_started":
            room = msg["d"]["room"]
            break
    for s, reg in players:
        await s.send("resume", {"room": room, "token": reg["token"], "since": 0})
        await s.answer("board")
    player = players[0][0]
    stored: Counter[str] = Counter()
    for seq in range(1, 2501):
        if seq % 2:
            await player.send("move", {"s": seq, "m": "draw"})
        else:
            await player.send("undo", {"s": seq})
        while True:
            msg = await player.answer("ack")
            if msg["t"] == "__closed__" or msg["d"].get("s") == seq:
                break
        stored[what(msg)] += 1
    # player 1's log, as the issue's probe made it: 30 000 entries written into Redis
    r = redis.Redis.from_url(stack.redis_url)
    key = f"kr:{{{room}}}:r1:s1:log"
    pipe = r.pipeline()
    for seq in range(1, 30_001):
        pipe.rpush(key, f"{seq} {'draw' if seq % 2 else 'undo'}")
    pipe.execute()
    r.close()
    await organizer.send("t_end", {"id": tid, "admin": admin})
    while True:
        msg = await organizer.answer("t_event")
        if msg["t"] == "t_event" and msg["d"]["kind"] == "round_ended":
            break
    pinger = await Socket.open(port, "198.51.100.20")
    await pinger.answer("hello")
    played = await _replays_beside_pings(port, f"/api/tournaments/{tid}/rounds/1/replay/0", pinger)
    injected = await _replays_beside_pings(port, f"/api/tournaments/{tid}/rounds/1/replay/1", pinger)
    for s in (organizer, pinger, *(s for s, _ in players)):
        await s.close()
    return [f"2 500 commands sent by one seat: {dict(stored)}",
            f"replay of that seat: {played}",
            f"replay of a 30 000-entry log put in Redis: {injected}"]


async def _raw(port: int, request: bytes) -> str:
    reader, writer = await asyncio.open_connection(HOST, port)
    writer.write(request)
    await writer.drain()
    try:
        async with asyncio.timeout(10):
            data = await reader.read(4096)
    except TimeoutError:
        data = b""
    writer.close()
    head, _, body = data.partition(b"\r\n\r\n")
    status = head.split(b"\r\n", 1)[0].decode(errors="replace")
    kind = "JSON" if body[:1] == b"{" else "text"
    return f"{status.split(' ', 1)[-1]} ({kind})" if status else "closed"


async def probe_http(stack: Stack) -> str:
    port = stack.proxied
    organizer = await Socket.open(port, "198.51.100.21")
    await organizer.send("t_create", {"name": "csv", "settings": {}})
    tid = (await organizer.answer("t_created"))["d"]["id"]
    await organizer.close()
    host = f"Host: {HOST}:{port}\r\n\r\n".encode()
    first = await _raw(port, f"GET /api/tournaments/{tid}/results?first=%C2%B2 HTTP/1.1\r\n".encode() + host)
    csv = await _raw(port, f"GET /api/tournaments/{tid}\x0b/results.csv HTTP/1.1\r\n".encode() + host)
    return f"?first=%C2%B2: {first}; id ending in \\x0b, results.csv: {csv}"


async def probe_half_sent(stack: Stack) -> str:
    port = stack.direct
    conns = []
    for _ in range(300):
        try:
            reader, writer = await asyncio.open_connection(HOST, port)
        except OSError:
            continue
        writer.write(b"GET / HTTP/1.1\r\nHost: x\r\n")  # never the blank line that ends it
        conns.append((time.monotonic(), reader, writer))

    async def closed_after(opened: float, reader: asyncio.StreamReader) -> float:
        """Seconds from this connection's opening to the server closing it."""
        with contextlib.suppress(ConnectionError, TimeoutError):
            async with asyncio.timeout(60):
                await reader.read()
        return time.monotonic() - opened

    times = await asyncio.gather(*(closed_after(t, r) for t, r, _ in conns))
    for _, _, w in conns:
        w.close()
    held = [t for t in times if t > 1.0]
    longest = max(held) if held else 0.0
    return (f"300 half-sent requests from one address: {len(held)} held over 1 s, "
            f"the last closed by the server after {longest:.1f} s; "
            f"{len(times) - len(held)} closed at once")


async def run(server_root: Path) -> None:
    with tempfile.TemporaryDirectory(prefix="kr-probes-") as d:
        stack = Stack(server_root, Path(d))
        try:
            out(f"server: {server_root}")
            out(f"4  {await probe_origin(stack)}")
            out(f"5  {await probe_caps(stack)}")
            out(f"6  {await probe_registrations(stack)}")
            for line in await probe_replays(stack):
                out(f"7  {line}")
            out(f"9  {await probe_http(stack)}")
            out(f"10 {await probe_half_sent(stack)}")
        finally:
            stack.stop()


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--server-root", default=str(ROOT), help="the source tree whose server to run")
    a = p.parse_args(argv)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    if shutil.which("redis-server") is None:
        sys.stderr.write("redis-server is not installed (.ci/bootstrap server installs it)\n")
        return 2
    asyncio.run(run(Path(a.server_root).resolve()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
