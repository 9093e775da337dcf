"""Helpers for the tests that play races through failures (processes killed,
Redis restarted, a cluster's master lost): a won game to play, clients
opened and closed for the test, what a client saw and what Redis stored.

The invariant they check: a move the player saw acknowledged is in Redis
afterwards, and the seat's stored game is exactly the acknowledged moves
replayed (plus, at most, commands that were in flight and never
acknowledged, which a resend then recognises).
"""

from __future__ import annotations

import asyncio
import json
import os
import urllib.error
import urllib.request
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import redis
from harness import Client, ServerProcess, eventually, load_wins
from prometheus_client.parser import text_string_to_metric_families

from server.klondike import Game, Move, replay
from server.store import game_after, keys
from server.store.seat_state import packed_log, unpack_log

# generous message credit: the tests play whole games as fast as acks come back
FAST = {"KLONDIKE_MSG_RATE": "10000", "KLONDIKE_MSG_BURST": "10000"}
WIN = next(w for w in load_wins() if w["code"] == "KL1-D1V-ACT552B")  # 116 moves to a win
CODE: str = WIN["code"]
SCRIPT: list[str] = WIN["script"]

Opener = Callable[[ServerProcess, str], Awaitable[Client]]


# ---------------------------------------------------------------------- helpers

def seen(client: Client, t: str, pred: Callable[[dict[str, Any]], bool]) -> dict[str, Any] | None:
    """The last frame of type ``t`` the client received that matches ``pred``."""
    for msg in reversed(client.frames):
        if msg["t"] == t and pred(msg.get("d") or {}):
            return dict(msg["d"])
    return None


def line(entries: list[dict[str, Any]], seat: int) -> dict[str, Any]:
    return next((e for e in entries if e["seat"] == seat), {})


def view_after(moves: list[str]) -> dict[str, Any]:
    return replay(CODE, moves).view(progress=True)  # rooms have basic assists by default


def stored_log(url: str, room: str, seat: int, race: int = 1) -> list[str]:
    """A seat's log as ``"seq command"``: its list, or packed in its hash once its game is over."""
    r = redis.Redis.from_url(url)
    try:
        packed = packed_log(r.hgetall(keys.seat(room, race, seat)))
        if packed is not None:
            return [f"{seq} {command}" for seq, command in unpack_log(packed)]
        return [x.decode() for x in r.lrange(keys.log(room, race, seat), 0, -1)]
    finally:
        r.close()


def stored_view(url: str, room: str, seat: int, race: int = 1, code: str = CODE) -> dict[str, Any]:
    """A seat's board as stored: its snapshot, or rebuilt from its packed log."""
    r = redis.Redis.from_url(url)
    try:
        stored = r.hgetall(keys.seat(room, race, seat))
    finally:
        r.close()
    snap, packed = stored.get(b"snap"), packed_log(stored)
    if packed is not None:
        assert not snap, "a packed seat keeps no snapshot"
        return game_after(code, unpack_log(packed)).view(progress=True)
    assert snap, "no snapshot stored"
    return Game.from_snapshot(snap).view(progress=True)


def log_of(moves: list[str]) -> list[str]:
    """The seat log a list of moves makes: ``"seq move"``, notation normalised."""
    return [f"{i} {Move.parse(m)}" for i, m in enumerate(moves, start=1)]


async def play(client: Client, moves: list[str]) -> dict[str, Any]:
    """Play ``moves`` one by one, each acknowledged; the last view."""
    view: dict[str, Any] = {}
    for m in moves:
        reply = await client.move(m)
        assert reply["t"] == "ack", (client.name, m, reply)
        view = reply["d"]["view"]
    return view


async def send_moves(client: Client, moves: list[str]) -> None:
    """Send moves without waiting for their acks (in flight)."""
    for m in moves:
        client.seq += 1
        await client.send("move", {"s": client.seq, "m": m})


def acked(client: Client) -> dict[int, dict[str, Any]]:
    """Sequence number -> view of every ack the client received."""
    return {f["d"]["s"]: f["d"]["view"] for f in client.frames if f["t"] == "ack"}


async def reply_to(client: Client, seq: int, after: int = 0, timeout: float = 10.0) -> dict[str, Any]:
    """The ack or reject of ``seq`` among the frames received after the ``after``-th."""
    def find() -> dict[str, Any] | None:
        for msg in client.frames[after:]:
            if msg["t"] in ("ack", "reject") and (msg.get("d") or {}).get("s") == seq:
                return msg
        return None
    return dict(await eventually(find, timeout=timeout, what=f"{client.name}: an answer to {seq}"))


async def healthz(server: ServerProcess) -> int:
    def get() -> int:
        try:
            with urllib.request.urlopen(server.http_url + "/healthz", timeout=5) as resp:
                return int(resp.status)
        except urllib.error.HTTPError as exc:
            return exc.code
    return await asyncio.to_thread(get)


async def health(server: ServerProcess) -> tuple[int, dict[str, Any]]:
    """``/healthz``: its status and its JSON."""
    def get() -> tuple[int, dict[str, Any]]:
        try:
            with urllib.request.urlopen(server.http_url + "/healthz", timeout=5) as resp:
                return int(resp.status), json.loads(resp.read())
        except urllib.error.HTTPError as exc:
            with exc:
                return exc.code, json.loads(exc.read())
    return await asyncio.to_thread(get)


def reasons(report: dict[str, Any]) -> set[str]:
    """The kinds of trouble a ``/healthz`` report names."""
    return {r["kind"] for r in report.get("reasons", ())}


async def metric(server: ServerProcess, name: str, **labels: str) -> float:
    def get() -> str:
        with urllib.request.urlopen(server.metrics_url, timeout=5) as resp:
            return str(resp.read().decode())
    text = await asyncio.to_thread(get)
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            if sample.name == name and all(sample.labels.get(k) == v for k, v in labels.items()):
                return float(sample.value)
    return 0.0


def events_named(server: ServerProcess, event: str) -> list[dict[str, Any]]:
    return [x for x in server.log_lines() if x.get("event") == event]


def unix_redis(data: Path) -> redis.Redis:
    return redis.Redis(unix_socket_path=str(data / "redis.sock"), socket_timeout=10)


async def start_race(host: Client, others: list[Client]) -> str:
    """A room on the winning deal with live boards; the race started and
    every player's board dealt."""
    joined = await host.create(host.name, code=CODE, boards="live")
    room = str(joined["room"])
    for other in others:
        await other.join(room, other.name)
        await other.send("ready", {"ready": True})
        await host.expect("event", lambda d, s=other.seat: d["kind"] == "ready" and d["seat"] == s)
    await host.send("start")
    for player in (host, *others):
        board = await player.expect("board")
        assert board["view"] == view_after([])
    return room


async def two_racing(clients: Opener, ann_on: ServerProcess, bob_on: ServerProcess,
                     cat_on: ServerProcess, *, ann_moves: int = 10, bob_moves: int = 5
                     ) -> tuple[Client, Client, Client, str]:
    """ann and bob racing on the winning deal (live boards), each on the given
    process, cat watching; their first moves played. The clients and the room."""
    ann, bob, cat = await clients(ann_on, "ann"), await clients(bob_on, "bob"), await clients(cat_on, "cat")
    room = await start_race(ann, [bob])
    await watch(cat, room)
    await play(ann, SCRIPT[:ann_moves])
    await play(bob, SCRIPT[:bob_moves])
    return ann, bob, cat, room


async def watch(client: Client, room: str, since: int = 0) -> dict[str, Any]:
    await client.send("watch", {"room": room, "since": since})
    return await client.expect("watching")


async def resend_until_acked(client: Client, seq: int, move: str, timeout: float = 15.0
                             ) -> dict[str, Any]:
    """Send the same command until it is acknowledged (the protocol's advice on
    ``unavailable``); its ack."""
    async with asyncio.timeout(timeout):
        while True:
            after = len(client.frames)
            await client.send("move", {"s": seq, "m": move})
            reply = await reply_to(client, seq, after, timeout=timeout)
            if reply["t"] == "ack":
                return dict(reply["d"])
            assert reply["d"]["code"] == "unavailable", reply
            await asyncio.sleep(0.1)


async def play_through(client: Client, moves: list[str], *, first_seq: int,
                       timeout: float = 15.0) -> None:
    """Play ``moves`` one at a time from sequence number ``first_seq``, each
    sent again until acknowledged (through a failure, nothing is skipped)."""
    for seq, move in enumerate(moves, start=first_seq):
        await resend_until_acked(client, seq, move, timeout=timeout)
    client.seq = max(client.seq, first_seq + len(moves) - 1)


async def status_is(status: Awaitable[int], expected: int) -> bool:
    return await status == expected


def proc_stat(pid: int) -> tuple[str, str, int] | None:
    """(comm, state, parent pid) of a process, or ``None`` if it is gone."""
    try:
        raw = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    comm = raw[raw.index("(") + 1: raw.rindex(")")]
    state, ppid = raw[raw.rindex(")") + 2:].split()[:2]
    return comm, state, int(ppid)


def is_alive(pid: int) -> bool:
    stat = proc_stat(pid)
    return stat is not None and stat[1] not in ("Z", "X")


def redis_children(pid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            child = int(entry.name)
            stat = proc_stat(child)
            if stat is not None and stat[0] == "redis-server" and stat[2] == pid and is_alive(child):
                found.append(child)
    return found


def socket_inodes(pid: int) -> set[str]:
    out = set()
    for fd in Path(f"/proc/{pid}/fd").iterdir():
        try:
            target = os.readlink(fd)
        except OSError:
            continue
        if target.startswith("socket:["):
            out.add(target[8:-1])
    return out


def tcp_listening_inodes() -> set[str]:
    out = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        for row in Path(table).read_text().splitlines()[1:]:
            fields = row.split()
            if fields[3] == "0A":  # TCP_LISTEN
                out.add(fields[9])
    return out
