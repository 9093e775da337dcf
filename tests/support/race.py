"""Helpers for the race tests: rooms set up in one call, each racer's game
replayed on the test side with the engine, and scans of every frame a client
received (what may a player or a spectator see, and when).
"""

from __future__ import annotations

import asyncio
import contextlib
import re
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import orjson
import structlog.testing
from harness import Client, RedisServer, ServerProcess, Servers, load_wins
from websockets.asyncio.client import ClientConnection

from server.app.ground.config import Config
from server.app.root.lifespan import App
from server.klondike import Game, card_name

#: The message credit is a server option; these tests play whole games as
#: fast as the server answers, so they raise it (the flood tests keep the default).
FAST_ARGS: Final = ["--msg-burst", "100000", "--msg-rate", "100000"]

ALL_CARDS: Final = frozenset(card_name(i) for i in range(52))
CARD_TOKEN: Final = re.compile(r'"([A2-9TJQK][SHDC])"')
CARD_WORD: Final = re.compile(r"\b([A2-9TJQK][SHDC])\b")
STAT_KEYS: Final = ("foundation", "turned_up", "vegas", "moves", "recycles")


def start_fast_server(redis_server: RedisServer, servers: Servers, *more: str) -> ServerProcess:
    """A module's server on the session's Redis (one of ``servers``, the
    ``module_servers`` fixture), with a message credit that does not slow
    whole games down (and the options ``more``)."""
    return servers.start(redis_server.url, args=[*FAST_ARGS, *more])


class Clock:
    """A server's clock for a test: the machine's, and ``ahead`` seconds more
    when the test moves it on (a deadline comes when the test is ready for
    it, however long the playing before took)."""

    def __init__(self) -> None:
        self.ahead = 0.0

    def __call__(self) -> float:
        return time.time() + self.ahead


@dataclass(frozen=True)
class Served:
    """Where a server of the test's process listens (as a ServerProcess says it)."""

    port: int

    @property
    def ws_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/ws"

    @property
    def http_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"


@contextlib.asynccontextmanager
async def app_on(redis: RedisServer, data: Path, clock: Callable[[], float],
                 **settings: Any) -> AsyncIterator[Served]:
    """A server in this process on ``redis``, reading the time from ``clock``
    (with a message credit that lets games play as fast as it answers, no
    solver, no ``/metrics`` listener unless asked: the default address is one
    per machine, and tests run servers side by side, and ``settings``). Like
    a server process, it fails the test if it logged an error."""
    settings.setdefault("metrics_address", None)
    config = Config(port=0, redis_url=redis.url, data_dir=data, msg_burst=100_000, msg_rate=100_000,
                    solver_workers=0, winnable_pool=0, **settings)
    app = App(config, clock=clock)
    with structlog.testing.capture_logs() as logged:
        await app.start()
        try:
            yield Served(int(app.url.rsplit(":", 1)[1].strip("/")))
        finally:
            await app.stop()
    errors = [line for line in logged if line.get("log_level") in ("error", "critical")]
    assert not errors, f"the server logged errors: {errors}"


def win(code: str) -> dict[str, Any]:
    """The won game of wins.json for ``code``."""
    for game in load_wins():
        if game["code"] == code:
            return game
    raise KeyError(code)


def hidden_cards(game: Game) -> set[str]:
    """Cards face down or in the stock."""
    out = {card_name(c) for c in game.stock}
    for col, down in zip(game.columns, game.down, strict=True):
        out.update(card_name(c) for c in col[:down])
    return out


def stats(game: Game) -> dict[str, Any]:
    """The leaderboard figures a line should show for ``game``."""
    d = {"foundation": game.foundation_cards, "turned_up": game.turned_up, "vegas": game.vegas,
         "moves": game.moves, "recycles": game.recycles}
    if game.code.scoring == "N":
        d["points"] = game.points
    return d


def line_stats(entry: dict[str, Any]) -> dict[str, Any]:
    return {k: entry[k] for k in (*STAT_KEYS, "points") if k in entry}


def public(view: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in view.items() if k not in ("legal", "undo", "autocomplete")}


def as_acked(game: Game, got: dict[str, Any], progress: bool = True) -> dict[str, Any]:
    """The view an ack should make of ``game`` (with ``progress``: in a room
    with assists): the engine's, but ``no_progress`` may be ``null`` when the
    ack could not tell at once (a ``status`` says it once the player pauses);
    when it tells, it must be the engine's answer."""
    view = game.view(progress=progress)
    if progress and got.get("no_progress", False) is None:
        view["no_progress"] = None
    return view


class Racer:
    """A player's client and its game, replayed on the test side.

    Every acknowledged command is applied to ``game`` and the ack's view must
    equal the engine's. For the secrecy scans it keeps the public view after
    each step and the cards never yet face up (``secrets``), and ``marks``:
    how many frames the client had received when each step was acknowledged.
    """

    def __init__(self, client: Client, code: str, *, progress: bool = True) -> None:
        self.client = client
        self.code = code
        self.progress = progress  # the room has assists: views carry ``no_progress``
        self.game = Game(code)
        self.seen = set(ALL_CARDS - hidden_cards(self.game))
        self.history: list[dict[str, Any]] = [self.game.public_view()]
        self.secrets: list[frozenset[str]] = [frozenset(ALL_CARDS - self.seen)]
        self.sent_at: list[float] = [0.0]
        self.marks: list[tuple[int, frozenset[str]]] = []
        self.played: list[str] = []

    @property
    def seat(self) -> int:
        return self.client.seat

    @property
    def name(self) -> str:
        return self.client.name

    def _record(self, sent: float) -> None:
        self.seen |= ALL_CARDS - hidden_cards(self.game)
        secret = frozenset(ALL_CARDS - self.seen)
        self.history.append(self.game.public_view())
        self.secrets.append(secret)
        self.sent_at.append(sent)
        self.marks.append((len(self.client.raw), secret))

    async def play(self, moves: list[str]) -> dict[str, Any]:
        """Play ``moves`` (``"undo"`` undoes) one by one; the last ack."""
        ack: dict[str, Any] = {}
        for m in moves:
            sent = time.monotonic()
            if m == "undo":
                ack = await self.client.command("undo")
                assert ack["t"] == "ack", (self.name, m, ack)
                self.game.pop()
            else:
                ack = await self.client.move(m)
                assert ack["t"] == "ack", (self.name, m, ack)
                self.game.push(m)
            self.played.append(m)
            assert ack["d"]["view"] == as_acked(self.game, ack["d"]["view"], self.progress), \
                (self.name, m)
            self._record(sent)
        return ack

    async def resign(self) -> dict[str, Any]:
        sent = time.monotonic()
        ack = await self.client.command("resign")
        assert ack["t"] == "ack", (self.name, ack)
        assert ack["d"]["view"] == as_acked(self.game, ack["d"]["view"], self.progress)
        self._record(sent)
        return ack

    def secret_at(self, index: int) -> frozenset[str]:
        """Cards still unseen in this game when frame ``index`` arrived (at
        most: the set of the first step acknowledged at or after it)."""
        for count, secret in self.marks:
            if count > index:
                return secret
        return self.secrets[-1]

    def step_of(self, board: dict[str, Any]) -> int:
        """The step whose public view ``board`` is (the first, if several)."""
        for i, view in enumerate(self.history):
            if view == board:
                return i
        raise AssertionError(f"{self.name}: a board that this game never showed: {board}")


async def open_room(clients: list[Client], **settings: Any) -> list[dict[str, Any]]:
    """``clients[0]`` creates a room with ``settings``, the others join and get
    ready; nobody starts. The ``joined`` answers."""
    host, *rest = clients
    joined = [await host.create(host.name, **settings)]
    for client in rest:
        joined.append(await client.join(joined[0]["room"], client.name))
        await client.send("ready", {"ready": True})
        await host.expect("event", lambda d, s=client.seat: d["kind"] == "ready" and d["seat"] == s)
    return joined


async def start_race(clients: list[Client]) -> list[dict[str, Any]]:
    """The host starts; every client's first ``board``."""
    await clients[0].send("start")
    return list(await asyncio.gather(*(c.expect("board") for c in clients)))


async def seen_or_next(client: Client, t: str, pred: Callable[[dict[str, Any]], bool],
                       timeout: float = 10.0) -> dict[str, Any]:
    """A frame of type ``t`` matching ``pred``: one already received, or the next."""
    for msg in client.frames:
        if msg["t"] == t and pred(msg["d"]):
            return dict(msg["d"])
    return await client.expect(t, pred, timeout)


def ended_index(client: Client) -> int:
    """The index of the first frame that reveals the race's end (or len)."""
    for i, msg in enumerate(client.frames):
        d = msg.get("d") or {}
        if msg["t"] == "event" and d.get("kind") == "ended":
            return i
        if msg["t"] == "sync" and d["room"]["phase"] == "ended":
            return i
    return len(client.frames)


def assert_code_kept(client: Client, code: str) -> None:
    """Nothing before the end of the race names its deal code."""
    suffix = code[-7:]
    for raw in client.raw[:ended_index(client)]:
        for secret in (code, code.lower(), suffix, suffix.lower()):
            assert secret not in raw, f"{client.name} received {secret!r} before the end: {raw[:300]}"


def card_names(raw: str, msg: dict[str, Any]) -> set[str]:
    """Card names in a frame: JSON string tokens, and words of a reject's sentence."""
    names = set(CARD_TOKEN.findall(raw))
    if msg["t"] == "reject":
        names |= set(CARD_WORD.findall(msg["d"].get("msg") or ""))
    return names


def has_board(msg: dict[str, Any]) -> bool:
    """Whether a frame carries any player's board other than the receiver's own view."""
    d = msg.get("d") or {}
    if msg["t"] == "boards":
        return True
    if msg["t"] == "event":
        return "board" in d
    if msg["t"] == "events":
        return any("board" in e for e in d["events"])
    return False


def scan_racer(racer: Racer) -> int:
    """A racer's frames: no card it has not seen, cards only in its own views,
    no other board before the end. The number of card names checked."""
    client, checked = racer.client, 0
    end = ended_index(client)
    for i, (raw, msg) in enumerate(zip(client.raw, client.frames, strict=True)):
        names = card_names(raw, msg)
        leaked = names & racer.secret_at(i)
        assert not leaked, f"{racer.name} received unseen cards {leaked}: {raw[:300]}"
        if msg["t"] not in ("ack", "board", "reject"):
            assert not names, f"{racer.name}: cards in a {msg['t']} frame: {raw[:300]}"
        if i < end:
            assert not has_board(msg), f"{racer.name} received a board: {raw[:300]}"
        checked += len(names)
    return checked


def scan_spectator(client: Client, racers: dict[int, Racer], *, boards: str) -> int:
    """A spectator's frames: every board is one its player's game showed, with
    no card unseen there; no board before the end when ``boards`` is
    ``after``; no card anywhere else. The number of boards checked."""
    end, checked = ended_index(client), 0
    for i, (raw, msg) in enumerate(zip(client.raw, client.frames, strict=True)):
        d = msg.get("d") or {}
        shown: list[tuple[int, dict[str, Any]]] = []
        if msg["t"] == "boards":
            shown = [(int(seat), b) for seat, b in d["boards"].items()]
        elif msg["t"] == "event" and "board" in d:
            shown = [(d["seat"], d["board"])]
        elif msg["t"] == "events":
            shown = [(e["seat"], e["board"]) for e in d["events"] if "board" in e]
        if boards == "after" and i < end:
            assert not shown, f"{client.name}: a board before the end: {raw[:300]}"
        rest = raw
        for seat, board in shown:
            racer = racers[seat]
            step = racer.step_of(board)
            names = set(CARD_TOKEN.findall(orjson.dumps(board).decode()))
            leaked = names & racer.secrets[step]
            assert not leaked, f"{client.name}: seat {seat}'s unseen cards {leaked}"
            checked += 1
        if shown:
            body = dict(d)
            body.pop("boards", None)
            body.pop("board", None)
            if msg["t"] == "events":
                body["events"] = [{k: v for k, v in e.items() if k != "board"} for e in d["events"]]
            rest = orjson.dumps(body).decode()
        names = card_names(rest, msg)
        assert not names, f"{client.name}: cards outside any board: {raw[:300]}"
    return checked


class StampedClient(Client):
    """A client that also notes when each frame arrived (``time.monotonic()``)."""

    def __init__(self, ws: ClientConnection, name: str = "") -> None:
        super().__init__(ws, name)
        self.stamps: list[float] = []
        queue, put = self._queue, self._queue.put

        async def stamped(item: dict[str, Any]) -> None:
            if item["t"] != "__closed__":
                self.stamps.append(time.monotonic())
            await put(item)

        queue.put = stamped  # type: ignore[method-assign]
