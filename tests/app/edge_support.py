"""Helpers for the edge and rejection tests: the server's /metrics as
numbers, its log lines by event, rooms set up in one call, the next
answer a client gets to a command (so that a wrong answer fails at once
instead of after a timeout), and what Redis holds before and after a flood.
"""

from __future__ import annotations

import asyncio
import urllib.request
from collections.abc import Awaitable, Callable
from typing import Any, Final

import redis
from harness import Client, ServerProcess

from server.klondike import Game

#: A deal whose opening is known: t1 8C, t2 TS, t3 8S, t4 3D, t5 4C, t6 8D, t7 AH.
CODE: Final = "KL1-D1N-AAAAAAA"
OPENING_LEGAL: Final = ["t7>f", "t4>t5", "draw"]

#: Frames that answer a command (room events, leaderboards and boards are not answers).
ANSWERS: Final = frozenset({"reject", "ack", "joined", "watching", "left", "hint", "complete",
                            "pong"})

Opener = Callable[..., Awaitable[Client]]


# ---------------------------------------------------------------------- metrics and logs

def _scrape(url: str) -> str:
    with urllib.request.urlopen(url, timeout=10) as resp:
        return str(resp.read().decode())


async def metrics(server: ServerProcess) -> dict[str, float]:
    """Every sample of the server's /metrics: ``'name{label="v"}'`` -> value."""
    text = await asyncio.to_thread(_scrape, server.metrics_url)
    out = {}
    for line in text.splitlines():
        if line and not line.startswith("#"):
            key, _, value = line.rpartition(" ")
            out[key] = float(value)
    return out


def sample(samples: dict[str, float], name: str, **labels: str) -> float:
    key = name + ("{" + ",".join(f'{k}="{v}"' for k, v in labels.items()) + "}" if labels else "")
    return samples.get(key, 0.0)


def rejected(samples: dict[str, float], reason: str) -> float:
    return sample(samples, "klondike_rejected_total", reason=reason)


def closed(samples: dict[str, float], code: int) -> float:
    return sample(samples, "klondike_closed_total", code=str(code))


async def wait_for_metric(server: ServerProcess, check: Callable[[dict[str, float]], bool],
                          timeout: float = 10.0) -> dict[str, float]:
    """The metrics once ``check`` holds (a counter bumped after a socket closed)."""
    async with asyncio.timeout(timeout):
        while True:
            samples = await metrics(server)
            if check(samples):
                return samples
            await asyncio.sleep(0.05)


def log_events(server: ServerProcess, event: str) -> list[dict[str, Any]]:
    return [line for line in server.log_lines() if line.get("event") == event]


# ---------------------------------------------------------------------- answers

async def next_answer(client: Client, timeout: float = 10.0) -> dict[str, Any]:
    """The next frame that answers a command, skipping events, leaderboards
    and boards; the whole frame ``{"t", "d"}``."""
    async with asyncio.timeout(timeout):
        while True:
            msg = await client.next_frame()
            if msg["t"] == "__closed__":
                raise ConnectionError(f"{client.name}: closed ({client.close_code}) before an answer")
            if msg["t"] in ANSWERS:
                return dict(msg)


async def answer(client: Client, t: str, d: dict[str, Any] | None = None) -> dict[str, Any]:
    """Send one command; its answer."""
    await client.send(t, d)
    return await next_answer(client)


def acked(msg: dict[str, Any]) -> dict[str, Any]:
    """An answer as the client took it: an ``ack``'s view as the client made
    it (whole, or its ``change`` applied: see :class:`harness.Client`),
    without the ``change`` it came as."""
    if msg["t"] != "ack":
        return msg
    return {"t": "ack", "d": {k: v for k, v in msg["d"].items() if k != "change"}}


async def refused(client: Client, t: str, d: dict[str, Any] | None = None) -> dict[str, Any]:
    """Send one command that must be refused; the reject's data."""
    msg = await answer(client, t, d)
    assert msg["t"] == "reject", f"{t} {d}: expected a reject, got {msg}"
    return dict(msg["d"])


async def barrier(client: Client) -> None:
    """A ping and its pong: everything sent before has been handled and answered."""
    msg = await answer(client, "ping")
    assert msg["t"] == "pong", f"expected the pong, got {msg}"


def after(client: Client, mark: int) -> list[dict[str, Any]]:
    return client.frames[mark:]


# ---------------------------------------------------------------------- rooms

async def lobby(connect: Opener, *names: str, **settings: Any) -> list[Client]:
    """A room created by the first name, joined by the others (all in the lobby)."""
    host = await connect(names[0])
    await host.create(names[0], **settings)
    clients = [host]
    for name in names[1:]:
        other = await connect(name)
        await other.join(host.room, name)
        clients.append(other)
    return clients


async def race(connect: Opener, *names: str, **settings: Any) -> list[Client]:
    """A room whose race has started and whose countdown is over: every
    player has received its board."""
    clients = await lobby(connect, *names, **{"code": CODE, **settings})
    host = clients[0]
    for other in clients[1:]:
        await other.send("ready", {"ready": True})
        await host.expect("event", lambda d, seat=other.seat: d["kind"] == "ready" and d["seat"] == seat)
    await host.send("start")
    for client in clients:
        board = await client.expect("board")
        assert board["s"] == 0 and board["view"]["legal"] == OPENING_LEGAL
    return clients


async def room_now(connect: Opener, room: str) -> dict[str, Any]:
    """The room as a newcomer sees it (a spectator's ``sync``), without the clock."""
    watcher = await connect("watcher")
    await watcher.send("watch", {"room": room, "since": 0})
    sync = await watcher.expect("sync")
    await watcher.close()
    sync["room"].pop("now")
    return sync


def played(*moves: str, code: str = CODE) -> Game:
    """The engine's game after ``moves`` (``undo`` pops)."""
    game = Game(code)
    for m in moves:
        if m == "undo":
            game.pop()
        else:
            game.push(m)
    return game


# ---------------------------------------------------------------------- what Redis holds

_SIZE = {"zset": "ZCARD", "set": "SCARD", "hash": "HLEN", "list": "LLEN"}


def footprint(r: redis.Redis) -> dict[str, tuple[str, int]]:
    """Every key but the processes' heartbeats, its type and how many it
    holds (a string: its value if it is a counter, else 0: a blob rewritten
    in place, a room's latest tick, is no growth)."""
    found = {}
    for raw in r.scan_iter(count=1000):
        key = raw.decode()
        if key.startswith("kr:proc:"):
            continue
        kind = r.type(key).decode()
        if kind == "string":
            value = r.get(key) or b""
            found[key] = (kind, int(value) if value.isdigit() else 0)
        else:
            found[key] = (kind, int(r.execute_command(_SIZE[kind], key)) if kind in _SIZE else 0)
    return found


async def flat(r: redis.Redis, flood: Callable[[], Awaitable[None]], what: str) -> None:
    """``flood`` changes no key and grows nothing."""
    before, memory = footprint(r), int(r.info("memory")["used_memory"])
    await flood()
    after = footprint(r)
    assert after == before, (what, {k: (before.get(k), after.get(k))
                                    for k in set(before) | set(after) if before.get(k) != after.get(k)})
    assert int(r.info("memory")["used_memory"]) - memory < 64 * 1024, what
