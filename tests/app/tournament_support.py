"""Helpers for the tournament tests: an organizer, entrants who play each
round in its room (their game replayed on the test side by race_support's
Racer), the HTTP results, and scans of every frame for the rounds' codes."""

from __future__ import annotations

import asyncio
import csv
import io
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import orjson
from harness import Client, ServerProcess
from race_support import Racer, seen_or_next

from server.app.ground.config import Config
from server.app.rooms.room_service import Rooms
from server.app.tournaments.tournament_service import Tournaments
from server.klondike import Move
from server.race.tournament import Tournament
from server.store import Store

# ---------------------------------------------------------------------- HTTP

@dataclass
class Reply:
    status: int
    body: bytes
    headers: dict[str, str]

    @property
    def text(self) -> str:
        return self.body.decode()

    def json(self) -> Any:
        return orjson.loads(self.body)


async def http_get(server: ServerProcess, path: str, *, url: str | None = None) -> Reply:
    """GET ``path`` of the server's players' port (or ``url``, whole)."""
    def get() -> Reply:
        try:
            with urllib.request.urlopen(url or server.http_url + path, timeout=10) as resp:
                return Reply(resp.status, resp.read(), dict(resp.headers))
        except urllib.error.HTTPError as exc:
            with exc:
                return Reply(exc.code, exc.read(), dict(exc.headers))
    return await asyncio.to_thread(get)


async def scrape(server: ServerProcess) -> Reply:
    """The server's ``/metrics``, on its address of its own (``--metrics-address``)."""
    return await http_get(server, "", url=server.metrics_url)


async def results(server: ServerProcess, tid: str) -> dict[str, Any]:
    reply = await http_get(server, f"/api/tournaments/{tid}/results")
    assert reply.status == 200, reply
    assert reply.headers["Content-Type"].startswith("application/json")
    return dict(reply.json())


async def results_csv(server: ServerProcess, tid: str) -> list[list[str]]:
    reply = await http_get(server, f"/api/tournaments/{tid}/results.csv")
    assert reply.status == 200, reply
    assert reply.headers["Content-Type"].startswith("text/csv")
    assert f"tournament-{tid}.csv" in reply.headers["Content-Disposition"]
    return list(csv.reader(io.StringIO(reply.text)))


async def replay_of(server: ServerProcess, tid: str, n: int, player: int, query: str = "") -> Reply:
    """A page of a replay (the first, unless ``query`` says otherwise)."""
    return await http_get(server, f"/api/tournaments/{tid}/rounds/{n}/replay/{player}{query}")


async def whole_replay(server: ServerProcess, tid: str, n: int, player: int) -> dict[str, Any]:
    """A replay with every step, fetched page after page as the web client
    does (each page checked: where it starts, at most 100 steps, ``of``)."""
    steps: list[dict[str, Any]] = []
    while True:
        reply = await replay_of(server, tid, n, player, f"?first={len(steps)}")
        assert reply.status == 200, reply
        body = reply.json()
        assert body["first"] == len(steps) and 0 < len(body["steps"]) <= 100, body
        steps += body["steps"]
        if len(steps) >= body["of"]:
            assert len(steps) == body["of"]
            return {**body, "first": 0, "steps": steps}


# ---------------------------------------------------------------------- the service alone

def tournament_service(store: Store, now_ms: Callable[[], int]) -> Tournaments:
    """The tournament service of one process, without its sockets (its rooms
    deal no winnable codes)."""
    config = Config(countdown=0.0)
    return Tournaments(store, Rooms(store, config, now_ms, None), config, now_ms)  # type: ignore[arg-type]


# ---------------------------------------------------------------------- a process that died

async def commit_as_crashed(url: str, tid: str, change: Callable[[Tournament, int, dict[str, int]],
                                                                 dict[str, Any] | None]) -> None:
    """Commit what a process had committed when it died: ``change`` on the
    stored tournament (with its event, if it returns one), as the service
    does, and nothing after it."""
    store = await Store.open(url)
    try:
        await tournament_service(store, lambda: int(time.time() * 1000)).change(tid, change)
    finally:
        await store.close()


# ---------------------------------------------------------------------- tournament frames

def t_event(kind: str, n: int | None = None) -> Any:
    return lambda d: d.get("kind") == kind and (n is None or d.get("round") == n)


async def reject_of(client: Client, t: str, d: dict[str, Any]) -> dict[str, Any]:
    """Send ``t`` and the reject that answers it."""
    await client.send(t, d)
    return await client.expect("reject", lambda r: r["cmd"] == t)


async def t_seen(client: Client, kind: str, n: int | None = None, timeout: float = 10.0
                 ) -> dict[str, Any]:
    """A tournament event of ``kind`` (for round ``n``): one received already, or the next."""
    return await seen_or_next(client, "t_event", t_event(kind, n), timeout)


async def answer(client: Client, after: int, *types: str, timeout: float = 10.0) -> dict[str, Any]:
    """The first frame of one of ``types`` among those received after the ``after``-th."""
    async with asyncio.timeout(timeout):
        while True:
            for msg in client.frames[after:]:
                if msg["t"] in types:
                    return msg
            await asyncio.sleep(0.02)


class Organizer:
    def __init__(self, client: Client) -> None:
        self.client = client
        self.id = ""
        self.admin = ""

    async def create(self, name: str, **settings: Any) -> dict[str, Any]:
        """The tournament; the ``t_sync`` that follows ``t_created``."""
        await self.client.send("t_create", {"name": name, "settings": settings})
        created = await self.client.expect("t_created")
        self.id, self.admin = created["id"], created["admin"]
        sync = await self.client.expect("t_sync")
        assert sync["tournament"]["id"] == self.id
        return sync

    async def start(self, n: int, at: int = 0) -> str:
        """Start the next round (``n``), at the server time ``at`` (ms) or
        after the countdown; its room once the round has started."""
        await self.client.send("t_start", {"id": self.id, "admin": self.admin, "at": at})
        starting = await t_seen(self.client, "round_starting", n)
        started = await t_seen(self.client, "round_started", n)
        assert started["start_at"] == starting["start_at"] >= at
        assert started["tournament"]["rounds"][n - 1]["start_at"] == started["start_at"]
        assert started["tournament"]["rounds"][n - 1]["status"] == "running"
        return str(started["room"])


@dataclass
class Entrant:
    """A registered player: their current connection and this round's game."""

    client: Client
    nickname: str
    tid: str = ""
    player: int = -1
    token: str = ""
    racer: Racer | None = None
    commands: list[str] = field(default_factory=list)  # this round's stored commands

    async def register(self, tid: str) -> dict[str, Any]:
        await self.client.send("t_register", {"id": tid, "nickname": self.nickname})
        got = await self.client.expect("t_registered")
        assert got["id"] == tid
        self.tid, self.player, self.token = tid, got["player"], got["token"]
        await self.client.expect("t_sync")
        return got

    async def enter(self, room: str, code: str, *, client: Client | None = None) -> dict[str, Any]:
        """Take this player's seat in a round's room, on ``client`` (a new
        connection) or on the current one (leaving the room it was in); the
        first board."""
        if client is not None:
            self.client = client
        elif self.client.room:
            await self.client.send("leave")
            await self.client.expect("left")
        self.client.seq = 0
        joined = await self.client.resume(room, self.token)
        assert joined["seat"] == self.player and joined["role"] == "player"
        board = await self.client.expect("board")
        assert board["s"] == 0 and not board["done"]
        self.racer = Racer(self.client, code, progress=False)  # tournaments: no hints by default
        self.commands = []
        assert board["view"] == self.racer.game.view()
        return board

    async def play(self, moves: list[str]) -> dict[str, Any]:
        assert self.racer is not None
        ack = await self.racer.play(moves)
        self.commands += [m if m == "undo" else str(Move.parse(m)) for m in moves]
        return ack

    async def resign(self) -> dict[str, Any]:
        assert self.racer is not None
        ack = await self.racer.resign()
        self.commands.append("resign")
        return ack


# ---------------------------------------------------------------------- secrecy

def reveals(msg: dict[str, Any], n: int, room: str) -> bool:
    """Whether a frame is (or carries) round ``n``'s end."""
    d = msg.get("d") or {}
    t = msg["t"]
    if t in ("t_event", "t_sync"):
        rounds = d["tournament"]["rounds"]
        return len(rounds) >= n and rounds[n - 1]["status"] == "ended"
    if t == "event":
        return d["kind"] == "ended" and d["room"]["id"] == room
    if t == "sync":
        return d["room"]["id"] == room and d["room"]["phase"] == "ended"
    if t == "events":
        return any(e["kind"] == "ended" and e["room"]["id"] == room for e in d["events"]
                   if "room" in e)
    return False


def assert_round_code_kept(client: Client, n: int, room: str, code: str) -> int:
    """No frame before the client learnt of round ``n``'s end names its code
    or its deal number; the number of frames scanned."""
    secrets = (code, code.lower(), code[-7:], code[-7:].lower())
    scanned = 0
    for raw, msg in zip(client.raw, client.frames, strict=True):
        if reveals(msg, n, room):
            break
        for secret in secrets:
            assert secret not in raw, f"{client.name}: {secret!r} before round {n} ended: {raw[:300]}"
        scanned += 1
    return scanned


def assert_text_keeps(text: str, codes: list[str], what: str) -> None:
    for code in codes:
        for secret in (code, code[-7:]):
            assert secret.lower() not in text.lower(), f"{what} names {secret!r}: {text[:300]}"
