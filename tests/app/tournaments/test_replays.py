"""Bounded replays (issue 16, item 5): a seat stores at most MAX_COMMANDS
commands a race (a resign always fits), and a replay comes a page of steps
at a time, each built in slices that hold the event loop a few milliseconds
at most, even for the longest log a seat can have.

The loop is not timed by the wall clock (a busy machine would make that
flaky): the replay handler's coroutine is driven step by step, and each step
(the work it does between two awaits) is timed in CPU time of this thread,
with the garbage collector off meanwhile (its pauses depend on the whole
heap, not on the request). The budget is 10 ms a step; the slices take
about 1 ms on this project's 2-core test machine, so the margin is wide.
"""

from __future__ import annotations

import asyncio
import gc
import time
from collections.abc import Coroutine, Generator, Iterator
from dataclasses import dataclass
from typing import Any, Final, TypeVar

import orjson
import pytest
from harness import Client, RedisServer, ServerProcess, Servers
from support.fuzz import walk
from support.tournament import (
    Entrant,
    Organizer,
    replay_of,
    t_seen,
    tournament_service,
    whole_replay,
)
from websockets.datastructures import Headers

from server.app.edge.results_api import api
from server.app.rooms.replay_pages import BUILDERS, PAGE_MAX, WAITING
from server.klondike import Game
from server.protocol import MAX_COMMANDS
from server.store import Store

CODE: Final = "KL1-D1N-AAAAAAA"
STALL_BUDGET: Final = 0.010  # seconds of the loop one synchronous step may hold


def now_ms() -> int:
    return int(time.time() * 1000)
T = TypeVar("T")


class Timed:
    """Awaits a coroutine, timing each synchronous step it takes (from one
    await to the next) in CPU time of this thread: what the step computed,
    however busy the machine."""

    def __init__(self, coro: Coroutine[Any, Any, T]) -> None:
        self.coro = coro
        self.steps: list[float] = []

    def __await__(self) -> Generator[Any, Any, Any]:
        sent: Any = None
        thrown: BaseException | None = None
        while True:
            started = time.thread_time()
            try:
                yielded = self.coro.throw(thrown) if thrown is not None else self.coro.send(sent)
            except StopIteration as done:
                self.steps.append(time.thread_time() - started)
                return done.value
            self.steps.append(time.thread_time() - started)
            try:
                sent, thrown = (yield yielded), None
            except BaseException as exc:  # a cancellation goes in as the coroutine's own
                sent, thrown = None, exc


@dataclass
class Capped:
    """A tournament round whose player stored the longest log a seat may."""

    server: ServerProcess
    tid: str
    commands: list[str]
    refused: list[dict[str, Any]]


@pytest.fixture(scope="module")
def capped(redis_server: RedisServer, tmp_path_factory: pytest.TempPathFactory
           ) -> Iterator[Capped]:
    group = Servers(tmp_path_factory.mktemp("replays"))
    server = group.start(redis_server.url, args=["--msg-rate", "100000", "--msg-burst", "100000"])
    try:
        yield asyncio.run(play_to_the_cap(server))
    finally:
        group.check()


async def play_to_the_cap(server: ServerProcess) -> Capped:
    """One round, one player: a random legal game until the log is full but
    for a resign; a move and an undo then, refused; then the resign."""
    org = Organizer(await Client.open(server.ws_url, "org"))
    ann = Entrant(await Client.open(server.ws_url, "ann"), "ann")
    try:
        await org.create("Long", codes=[CODE], max_players=2, time_limit=14400)
        await ann.register(org.id)
        room = await org.start(1)
        await ann.enter(room, CODE)
        client, commands = ann.client, walk(CODE, MAX_COMMANDS - 1)
        for n, command in enumerate(commands):
            reply = await client.command("undo") if command == "undo" \
                else await client.command("move", {"m": command})
            assert reply["t"] == "ack", (n, command, reply)
        refused = [await client.command("move", {"m": "draw"}), await client.command("undo")]
        assert refused[0]["d"]["code"] == "too_many_moves", refused
        client.seq -= 2  # refused commands leave their numbers unused
        assert (await client.command("resign"))["t"] == "ack"
        commands.append("resign")
        await t_seen(org.client, "round_ended", 1)
        return Capped(server, org.id, commands, refused)
    finally:
        await org.client.close()
        await ann.client.close()


async def test_a_seat_stores_at_most_its_cap_of_commands_and_may_still_resign(
        capped: Capped, redis_server: RedisServer) -> None:
    assert [(r["t"], r["d"]["code"]) for r in capped.refused] == [
        ("reject", "too_many_moves"), ("reject", "too_many_moves")]
    assert "resign" in capped.refused[0]["d"]["msg"]
    body = await whole_replay(capped.server, capped.tid, 1, 0)
    assert body["of"] == MAX_COMMANDS + 1  # the deal and every command stored
    assert [s["command"] for s in body["steps"][1:]] == capped.commands


async def test_every_page_of_the_longest_replay_holds_the_loop_under_10_ms(
        capped: Capped, redis_server: RedisServer) -> None:
    """The replay handler of a real process (its code, on the same Redis),
    driven page by page over the longest log a seat can store: in order (each
    page starts from the last one's end), again (from the cache), and a last
    page asked for first by a fresh process (from the deal)."""
    store = await Store.open(redis_server.url)
    try:
        warm, cold = (api(tournament_service(store, now_ms)) for _ in range(2))
        gc.collect()
        gc.disable()  # a collection's pause is the whole heap's, not the handler's work
        base = f"/api/tournaments/{capped.tid}/rounds/1/replay/0"
        longest: dict[str, float] = {}
        steps: list[dict[str, Any]] = []
        pages: list[bytes] = []
        for first in range(0, MAX_COMMANDS + 1, PAGE_MAX):
            timed = Timed(warm(f"{base}?first={first}", Headers()))
            reply = await timed
            assert reply.status_code == 200
            pages.append(reply.body)
            body = orjson.loads(reply.body)
            assert body["first"] == first and body["of"] == MAX_COMMANDS + 1
            steps += body["steps"]
            longest["in order"] = max(longest.get("in order", 0.0), *timed.steps)
        for first in range(0, MAX_COMMANDS + 1, PAGE_MAX):
            timed = Timed(warm(f"{base}?first={first}", Headers()))
            assert (await timed).body == pages[first // PAGE_MAX]
            longest["cached"] = max(longest.get("cached", 0.0), *timed.steps)
        timed = Timed(cold(f"{base}?first={MAX_COMMANDS - 50}&count=100", Headers()))
        last = orjson.loads((await timed).body)
        longest["last page cold"] = max(timed.steps)
        assert last["steps"] == steps[MAX_COMMANDS - 50:]
        assert max(longest.values()) < STALL_BUDGET, longest
    finally:
        gc.enable()
        await store.close()
    # the steps are the boards after each command, as the engine has them
    game = Game(CODE)
    assert steps[0] == {"command": None, "view": game.public_view()}
    assert len(steps) == MAX_COMMANDS + 1
    for i, command in enumerate(capped.commands, 1):
        if command == "undo":
            game.pop()
        elif command != "resign":
            game.push(command)
        assert steps[i] == {"s": i, "command": command, "view": game.public_view()}, i


async def test_replay_pages_wanted_all_at_once_are_built_a_few_at_a_time_and_past_a_queue_refused(
        capped: Capped, redis_server: RedisServer) -> None:
    """A hundred different pages asked for at once (a client that wants the
    loop busy): a few are built at a time, some wait, the rest get a 503
    ``busy`` with ``Retry-After``; each page sent is right."""
    store = await Store.open(redis_server.url)
    try:
        handle = api(tournament_service(store, now_ms))
        base = f"/api/tournaments/{capped.tid}/rounds/1/replay/0"
        replies = await asyncio.gather(*(handle(f"{base}?first={i * 19}&count=50", Headers())
                                         for i in range(100)))
        whole = await whole_replay(capped.server, capped.tid, 1, 0)
    finally:
        await store.close()
    busy = [r for r in replies if r.status_code == 503]
    built = [(i, r) for i, r in enumerate(replies) if r.status_code == 200]
    assert busy and len(busy) + len(built) == 100
    assert len(built) >= BUILDERS + WAITING
    assert all(refusal == busy[0].body for refusal in (r.body for r in busy))
    assert orjson.loads(busy[0].body)["error"] == "busy" and busy[0].headers["Retry-After"] == "1"
    for i, reply in built:
        assert orjson.loads(reply.body)["steps"] == whole["steps"][i * 19:i * 19 + 50]


@pytest.mark.parametrize(("query", "error"), [
    ("?count=0", "bad_field"), ("?count=101", "bad_field"), ("?first=-1", "bad_field"),
    ("?first=%C2%B2", "bad_field"), ("?count=x", "bad_field"),
])
async def test_a_replay_page_out_of_bounds_is_a_400_with_its_reason(
        capped: Capped, query: str, error: str) -> None:
    reply = await replay_of(capped.server, capped.tid, 1, 0, query)
    assert reply.status == 400 and reply.json()["error"] == error, reply


async def test_a_replay_page_past_the_end_is_empty(capped: Capped) -> None:
    reply = await replay_of(capped.server, capped.tid, 1, 0, f"?first={MAX_COMMANDS + 1}")
    assert reply.status == 200
    assert reply.json()["steps"] == [] and reply.json()["of"] == MAX_COMMANDS + 1
