"""Issue 16's probes 2, 3, 8 and 11, run from outside against a server:
what a racer's second tab can learn, boards during the countdown, Redis out
of memory, and what grows or stops in a server's memory.

Run from the project's root::

    .venv/bin/python bench/probes.py                          # every probe, this tree's server
    .venv/bin/python bench/probes.py --server-root /tmp/old   # another checkout's server
    .venv/bin/python bench/probes.py --probe 3 --probe 8

Each probe starts its own ``redis-server`` (free port, a temporary folder)
and a server process from ``--server-root`` (default: this repository), and
prints one line per finding:

- **2** (a racer's second tab): ann and bob race on a fixed deal in a room
  with the default settings, then in one with ``"boards": "live"``; bob plays
  40 moves. A second connection of ann watches the room, once presenting her
  seat token (``watch`` with ``token``: what the web client sends) and once
  presenting nothing; and ann's own connection asks to watch. Printed: the
  answer, and how many of ann's face-down cards the boards it received named.
- **3** (the countdown): a 3 s countdown, a spectator in the lobby and one
  arriving half way through the countdown; live boards, then delayed by 1 s (less than
  the countdown). Printed: when each spectator's first board came, against
  ``start_at`` (and ``start_at`` + the delay).
- **8** (Redis out of memory): ``CONFIG SET maxmemory 1`` under a race; a
  move's answer, ``/healthz``, the log lines at error level, then a room
  created with Redis at 95 % of its ``maxmemory``; and the embedded Redis's
  ``maxmemory`` and policy.
- **11** (memory and faults): a room with boards delayed 600 s and a
  spectator, ann playing 6 000 commands: the server's resident memory before
  and after. Then a message that is not JSON published on the room's channel
  and, in another room, an unreadable event stored and announced by a gap in
  the versions (a catch-up that fails): do bob's moves still reach ann, and
  what ``/healthz`` says.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from harness import Client, RedisServer, load_wins  # noqa: E402
from support.race import StampedClient  # noqa: E402

from server.klondike import Game, card_name  # noqa: E402

HOST = "127.0.0.1"
FAST = ["--msg-burst", "100000", "--msg-rate", "100000"]
CODE = "KL1-D1N-AAOKERG"
WALL = time.time() - time.monotonic()  # monotonic stamps to the wall clock (the server's)


def out(text: str) -> None:
    sys.stdout.write(text + "\n")
    sys.stdout.flush()


# ---------------------------------------------------------------------- processes

class Server:
    """One server process from ``root``, stopped by PID."""

    def __init__(self, root: Path, workdir: Path, redis_url: str | None, *args: str,
                 countdown: float = 0.3) -> None:
        self.log = workdir / f"server-{time.monotonic_ns()}.log"
        self.data = workdir / "data"
        env = {**os.environ, "KLONDIKE_COUNTDOWN": str(countdown), "KLONDIKE_LOG_LEVEL": "info",
               "KLONDIKE_WINNABLE_POOL": "0", "KLONDIKE_CREATIONS_PER_MINUTE": "1000000",
               "KLONDIKE_MAX_CONNECTIONS_PER_ADDRESS": "100000", "PYTHONPATH": str(root),
               "KLONDIKE_WORKERS": "1"}  # one process, as the probes measure (an older server ignores it)
        cmd = [sys.executable, "-m", "server", "serve", "--host", HOST, "--port", "0",
               "--data-dir", str(self.data), *FAST, *args]
        if redis_url is not None:
            cmd += ["--redis-url", redis_url]
        with open(self.log, "wb") as log:
            self.proc = subprocess.Popen(cmd, cwd=root, env=env, stdout=subprocess.PIPE,
                                         stderr=log)
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline().decode()
        if "open http://" not in line:
            self.stop()
            raise RuntimeError(f"server did not start: {line!r}\n{self.log.read_text()[-2000:]}")
        self.port = int(line.rsplit(":", 1)[1].strip().rstrip("/"))
        self.ws = f"ws://{HOST}:{self.port}/ws"

    def lines(self) -> list[dict[str, Any]]:
        found = []
        for raw in self.log.read_text().splitlines():
            try:
                found.append(json.loads(raw))
            except ValueError:
                found.append({"level": "raw", "event": raw[:200]})
        return found

    def errors(self) -> list[str]:
        return [str(x.get("event")) for x in self.lines() if x.get("level") in ("error", "raw")]

    def rss_mb(self) -> float:
        for row in Path(f"/proc/{self.proc.pid}/status").read_text().splitlines():
            if row.startswith("VmRSS:"):
                return int(row.split()[1]) / 1024
        return 0.0

    def healthz(self) -> tuple[int, str]:
        try:
            with urllib.request.urlopen(f"http://{HOST}:{self.port}/healthz", timeout=5) as r:
                return r.status, r.read().decode().strip()
        except urllib.error.HTTPError as exc:
            return exc.code, exc.read().decode().strip()

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        if self.proc.stdout is not None:
            self.proc.stdout.close()


@contextlib.contextmanager
def stack(root: Path, *args: str, countdown: float = 0.3,
          redis_args: list[str] | None = None) -> Iterator[tuple[RedisServer, Server]]:
    with tempfile.TemporaryDirectory(prefix="kr-probe-") as tmp:
        redis = RedisServer(Path(tmp) / "redis", args=redis_args).start()
        server = None
        try:
            server = Server(root, Path(tmp), redis.url, *args, countdown=countdown)
            yield redis, server
        finally:
            if server is not None:
                server.stop()
            redis.stop()


# ---------------------------------------------------------------------- helpers

def hidden_at_start(code: str) -> set[str]:
    game = Game(code)
    hidden = {card_name(c) for c in game.stock}
    for col, down in zip(game.columns, game.down, strict=True):
        hidden |= {card_name(c) for c in col[:down]}
    return hidden


def board_cards(board: dict[str, Any]) -> set[str]:
    text = json.dumps(board)
    return {card_name(i) for i in range(52) if f'"{card_name(i)}"' in text}


def boards_of(client: Client, *, but: int, before: Callable[[int], bool]) -> list[dict[str, Any]]:
    """The boards of seats other than ``but`` that ``client`` received while
    ``before(index)`` holds."""
    found = []
    for i, msg in enumerate(client.frames):
        if not before(i):
            break
        d = msg.get("d") or {}
        if msg["t"] == "boards":
            found += [b for s, b in d["boards"].items() if int(s) != but]
        elif msg["t"] == "event" and "board" in d and d.get("seat") != but:
            found.append(d["board"])
        elif msg["t"] == "events":
            found += [e["board"] for e in d["events"] if "board" in e and e.get("seat") != but]
    return found


def ended_at(client: Client) -> int:
    for i, msg in enumerate(client.frames):
        d = msg.get("d") or {}
        if (msg["t"] == "event" and d.get("kind") == "ended") or (
                msg["t"] == "sync" and d["room"]["phase"] == "ended"):
            return i
    return len(client.frames)


async def answer(client: Client, t: str, d: dict[str, Any]) -> str:
    """Send ``t``; ``watching`` or the reject's code."""
    seen = len(client.frames)
    await client.send(t, d)
    async with asyncio.timeout(10):
        while True:
            for msg in client.frames[seen:]:
                if msg["t"] in ("watching", "joined"):
                    return str(msg["t"])
                if msg["t"] == "reject" and msg["d"].get("cmd") == t:
                    return f"reject {msg['d']['code']}"
            await asyncio.sleep(0.01)


async def two_racing(url: str, **settings: Any) -> tuple[Client, Client, str]:
    ann, bob = await Client.open(url, "ann"), await Client.open(url, "bob")
    room = (await ann.create("ann", code=CODE, **settings))["room"]
    await bob.join(room, "bob")
    await bob.send("ready", {"ready": True})
    await ann.expect("event", lambda d: d["kind"] == "ready")
    await ann.send("start")
    await asyncio.gather(ann.expect("board"), bob.expect("board"))
    return ann, bob, room


async def play(client: Client, moves: list[str]) -> None:
    for m in moves:
        ack = await client.move(m)
        assert ack["t"] == "ack", ack


# ---------------------------------------------------------------------- probe 2

async def probe_2(root: Path) -> None:
    script = next(g for g in load_wins() if g["code"] == CODE)["script"]
    hidden = hidden_at_start(CODE)
    with stack(root) as (_, server):
        for label, settings in (("default boards", {}), ("boards live", {"boards": "live"})):
            ann, bob, room = await two_racing(server.ws, **settings)
            own = await answer(ann, "watch", {"room": room, "since": 0})
            tab = await Client.open(server.ws, "ann's second tab")
            with_token = await answer(tab, "watch", {"room": room, "since": 0, "token": ann.token})
            anon = await Client.open(server.ws, "ann's private window")
            nothing = await answer(anon, "watch", {"room": room, "since": 0})
            await play(bob, script[:40])
            await asyncio.sleep(1.0)  # the boards of the last moves reach the watchers
            for name, client, said in (("second tab with her token", tab, with_token),
                                       ("window presenting nothing", anon, nothing)):
                end = ended_at(client)
                seen: set[str] = set()
                for board in boards_of(client, but=ann.seat, before=lambda i, e=end: i < e):
                    seen |= board_cards(board)
                out(f"probe 2, {label}: ann's own connection asks to watch: {own}; her {name}: "
                    f"{said}, learns {len(seen & hidden)} of her {len(hidden)} hidden cards")
            for c in (ann, bob, tab, anon):
                await c.close()


# ---------------------------------------------------------------------- probe 3

async def probe_3(root: Path) -> None:
    with stack(root, countdown=3.0) as (_, server):
        for label, settings, delay in (("live", {"boards": "live"}, 0),
                                       ("delayed 1 s", {"boards": "delayed", "delay": 1}, 1)):
            ann = await Client.open(server.ws, "ann")
            room = (await ann.create("ann", code=CODE, **settings))["room"]
            early = await StampedClient.open(server.ws, "early")
            await early.send("watch", {"room": room, "since": 0})
            await early.expect("sync")
            await ann.send("start")
            start_at = (await ann.event("start"))["room"]["start_at"]
            await asyncio.sleep(1.5)  # half way through the countdown
            late = await StampedClient.open(server.ws, "late")
            await late.send("watch", {"room": room, "since": 0})
            await late.expect("sync")
            await asyncio.sleep(start_at / 1000 - time.time() + delay + 2)
            for c in (early, late):
                stamps = [at for at, msg in zip(c.stamps, c.frames, strict=True)
                          if msg["t"] == "boards"]
                when = "no board within 2 s" if not stamps else (
                    f"{(stamps[0] + WALL) * 1000 - start_at - delay * 1000:+.0f} ms from start_at"
                    + (f" + {delay} s" if delay else ""))
                out(f"probe 3, boards {label}: spectator watching since the "
                    f"{'lobby' if c is early else 'countdown'}: first board {when}")
            for c in (ann, early, late):
                await c.close()


# ---------------------------------------------------------------------- probe 8

async def probe_8(root: Path) -> None:
    with stack(root) as (redis, server):
        ann, bob, _ = await two_racing(server.ws)
        r = redis.client()
        r.config_set("maxmemory", 1)
        try:
            ack = await ann.move("draw")
            code = ack["d"]["code"] if ack["t"] == "reject" else "ack"
            await asyncio.sleep(0.2)
            ack2 = await bob.move("draw")
            code2 = ack2["d"]["code"] if ack2["t"] == "reject" else "ack"
            status, body = server.healthz()
            errors = server.errors()
            tracebacks = sum(1 for x in server.lines() if "exception" in x)
            out(f"probe 8, Redis out of memory: a move is answered {code}, the next {code2}; "
                f"/healthz {status} {body!r}; {len(errors)} error lines ({sorted(set(errors))}), "
                f"{tracebacks} tracebacks")
        finally:
            r.config_set("maxmemory", 0)
        ack = await ann.move("draw")
        back = time.monotonic()
        while server.healthz()[0] != 200 and time.monotonic() < back + 30:
            await asyncio.sleep(0.2)
        out(f"probe 8, memory back: a move is answered {ack['t']}; /healthz "
            f"{server.healthz()[0]} after {time.monotonic() - back:.1f} s")
        used = int(r.info("memory")["used_memory"])
        r.config_set("maxmemory", int(used / 0.95))
        try:
            host = await Client.open(server.ws, "host")
            said = await answer(host, "create", {"nickname": "host", "settings": {}})
            await asyncio.sleep(2.5)  # a monitor reading INFO every few seconds
            other = await Client.open(server.ws, "host2")
            said2 = await answer(other, "create", {"nickname": "host2", "settings": {}})
            await other.close()
            out(f"probe 8, Redis at 95 % of maxmemory: create answered {said}, "
                f"a few seconds later {said2}")
            await host.close()
        finally:
            r.config_set("maxmemory", 0)
            r.close()
        for c in (ann, bob):
            await c.close()
    with tempfile.TemporaryDirectory(prefix="kr-probe-") as tmp:
        server = Server(root, Path(tmp), None)
        try:
            import redis as redis_py
            c = redis_py.Redis(unix_socket_path=str(server.data / "redis.sock"))
            conf = c.config_get("maxmemory*")
            c.close()
            out(f"probe 8, embedded Redis: maxmemory {int(conf['maxmemory']) / 2**20:.0f} MiB, "
                f"policy {conf['maxmemory-policy']}")
        finally:
            server.stop()


# ---------------------------------------------------------------------- probe 11

async def probe_11(root: Path) -> None:
    with stack(root) as (redis, server):
        ann, bob, room = await two_racing(server.ws, boards="delayed", delay=600)
        watcher = await Client.open(server.ws, "watcher")
        await watcher.send("watch", {"room": room, "since": 0})
        await watcher.expect("sync")
        before = server.rss_mb()
        legal = ["draw"]
        for _ in range(6000):
            m = "draw" if "draw" in legal else "recycle"
            ack = await ann.move(m)
            assert ack["t"] == "ack", ack
            legal = ack["d"]["view"]["legal"]
        await asyncio.sleep(0.5)
        out(f"probe 11, delayed boards (600 s) with a spectator, 6 000 commands: resident "
            f"memory {before:.0f} -> {server.rss_mb():.0f} MiB")
        for c in (ann, bob, watcher):
            await c.close()
    for label in ("a message that is not JSON on the room's channel",
                  "a catch-up that fails (an unreadable stored event, a gap)"):
        with stack(root) as (redis, server):
            r = redis.client()
            try:
                ann, bob, room = await two_racing(server.ws)
            except TimeoutError:
                out(f"probe 11, {label}: no room can start any more")
                continue
            if label.startswith("a message"):
                r.publish(f"kr:{{{room}}}:ch", b"not json")
            else:
                # an event the hub has not seen, that it cannot read, announced by a gap
                v = r.hincrby(f"kr:{{{room}}}:room", "ev", 1)
                r.rpush(f"kr:{{{room}}}:ev", b"garbage")
                r.publish(f"kr:{{{room}}}:ch", json.dumps(
                    {"v": v + 5, "kind": "presence", "seat": 0, "online": True, "at": 0}))
            await asyncio.sleep(0.3)
            await play(bob, ["draw"])
            try:
                await ann.expect("lb", lambda d, seat=bob.seat: any(
                    e["seat"] == seat and e.get("moves") for e in d["entries"]), timeout=3)
                await play(bob, ["draw"])  # and the next one too
                await ann.expect("lb", lambda d, seat=bob.seat: any(
                    e["seat"] == seat and e.get("moves") == 2 for e in d["entries"]), timeout=3)
                flows = "still reach"
            except (TimeoutError, ConnectionError):
                flows = "no longer reach"
            # a room opened afterwards on the same process
            others, opened = "stop", [ann, bob]
            with contextlib.suppress(TimeoutError, ConnectionError, AssertionError):
                other_ann, other_bob = await Client.open(server.ws), await Client.open(server.ws)
                opened += [other_ann, other_bob]
                other = (await other_ann.create("cat"))["room"]
                await other_bob.join(other, "dan")
                await other_ann.expect("event", lambda d: d["kind"] == "joined", timeout=3)
                others = "flow"
            status, body = server.healthz()
            out(f"probe 11, {label}: bob's moves {flows} ann; another room's events {others}; "
                f"/healthz {status} {body[:120]!r}")
            for c in opened:
                await c.close()
            r.close()


PROBES = {"2": probe_2, "3": probe_3, "8": probe_8, "11": probe_11}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--server-root", default=str(ROOT),
                        help="the checkout whose server runs (default: this one)")
    parser.add_argument("--probe", action="append", choices=sorted(PROBES),
                        help="a probe to run (repeatable; default: all)")
    a = parser.parse_args()
    root = Path(a.server_root).resolve()
    for name in a.probe or ["2", "3", "8", "11"]:
        asyncio.run(PROBES[name](root))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
