"""Big rooms (more than 16 seats): counted joins, a ranking in Redis, a
shared top-N tick and each player's own place, paging and lookups, following
a player, scheduled starts, late arrivals (docs/protocol.md, "Big rooms")."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator
from typing import Any

import pytest
from harness import ROOT, Client, RedisServer, ServerProcess, Servers, eventually
from support.race import seen_or_next, start_fast_server, win

WIN = "KL1-D1V-ABYI5NK"
TICK = "0.3"


@pytest.fixture(scope="module")
def server(redis_server: RedisServer, module_servers: Servers
           ) -> ServerProcess:
    return start_fast_server(redis_server, module_servers, "--tick", TICK)


@pytest.fixture
async def field(connect: type[Client]) -> AsyncIterator[Any]:
    async def make(n: int, **settings: Any) -> list[Client]:
        host = await connect("p0")
        await host.create("p0", max_players=max(n, 20), **settings)
        players = [host]
        for i in range(1, n):
            c = await connect(f"p{i}")
            await c.join(host.room, f"p{i}")
            players.append(c)
        return players

    yield make


async def start(players: list[Client]) -> None:
    await players[0].send("start")
    for p in players:
        await p.event("start")
        await p.expect("board")


async def test_a_big_room_event_carries_no_player_list(field: Any) -> None:
    players = await field(3)
    host = players[0]
    sync = next(f["d"] for f in host.frames if f["t"] == "sync")
    room = sync["room"]
    assert room["settings"]["big"] is True and "players" not in room and "racers" not in room
    assert room["host_name"] == "p0"
    # the joins of the others were not announced to the host
    assert not [f for f in host.frames if f["t"] == "event" and f["d"]["kind"] == "joined"]


async def test_the_lobbys_tick_counts_the_players_and_the_ready_ones(field: Any) -> None:
    """A big room's lobby announces no ready flag: its ticks count them, so
    the host sees how many are ready as it changes."""
    players = await field(4)
    host = players[0]
    for p in players[1:3]:
        await p.send("ready", {"ready": True})
    top = await host.expect("top", lambda d: d["ready"] == 2)
    assert top["n"] == 4
    await players[1].send("ready", {"ready": False})
    top = await host.expect("top", lambda d: d["ready"] == 1)
    assert top["n"] == 4


async def test_start_without_ready_flags_and_acks_carry_the_rank(field: Any) -> None:
    players = await field(3)
    await start(players)
    ann = players[0]
    board = next(f["d"] for f in reversed(ann.frames) if f["t"] == "board")
    move = board["view"]["legal"][0]
    ack = await ann.move(move)
    assert ack["t"] == "ack", ack
    assert ack["d"]["of"] == 3 and 1 <= ack["d"]["rank"] <= 3
    # the shape docs/protocol.md gives ("Big rooms"): on v2, what changed in the view
    # (as it came: the test's client adds the view it makes from the change)
    sent = next(json.loads(raw) for raw in reversed(ann.raw) if raw.startswith('{"t":"ack"'))
    assert set(sent["d"]) == {"s", "change", "rank", "of"}
    docs = (ROOT / "docs" / "protocol.md").read_text()
    assert '`{"s": 12, "change": CHANGE, "rank": 37, "of": 4212}`' in docs


async def test_ticks_show_the_top_and_each_players_own_place(field: Any) -> None:
    players = await field(4, code=WIN)
    await start(players)
    script = win(WIN)["script"]
    lead = players[2]
    for m in script[:12]:
        ack = await lead.move(m)
        assert ack["t"] == "ack", ack
    top = await lead.expect("top", lambda d: d["top"] and d["top"][0]["nickname"] == "p2")
    assert top["n"] == 4 and len(top["top"]) == 4
    assert sum(top["hist"]) == 4
    me = await players[0].expect("me", lambda d: d["rank"] > 1)
    assert me["of"] == 4 and me["line"]["nickname"] == "p0"
    mine = await lead.expect("me", lambda d: d["rank"] == 1)
    assert mine["above"] is None and mine["line"]["seat"] == lead.seat


async def test_paging_and_finding_a_nickname(field: Any) -> None:
    players = await field(5)
    await start(players)
    ann = players[0]
    await ann.send("lb_page", {"first": 2, "count": 2})
    page = await ann.expect("lb_page")
    assert page["of"] == 5 and [line["rank"] for line in page["lines"]] == [2, 3]
    await ann.send("lb_find", {"nickname": "P3"})
    found = await ann.expect("lb_found")
    assert found["seat"] == players[3].seat and found["line"]["nickname"] == "p3"
    await ann.send("lb_find", {"nickname": "nobody"})
    assert (await ann.expect("reject"))["code"] == "unknown_seat"


async def test_a_spectator_follows_a_player_by_nickname(field: Any, connect: type[Client]) -> None:
    players = await field(3, code=WIN, boards="live")
    await start(players)
    watcher = await connect("watcher")
    await watcher.send("watch", {"room": players[0].room})
    await watcher.expect("watching")
    await watcher.send("follow", {"nickname": "p1"})
    following = await watcher.expect("following")
    assert following["seat"] == players[1].seat
    for m in win(WIN)["script"][:5]:
        assert (await players[1].move(m))["t"] == "ack"
    followed = await watcher.expect("follow", lambda d: d["line"]["moves"] >= 5)
    assert followed["seat"] == players[1].seat
    # (the tick that carried the fifth move may have written its boards before
    # the follow frame: a board already received counts)
    seat = str(players[1].seat)
    boards = await seen_or_next(
        watcher, "boards", lambda d: (d["boards"].get(seat) or {}).get("moves", 0) >= 1)
    assert boards["boards"][seat]["moves"] >= 1


async def test_leave_kick_and_a_new_host(field: Any) -> None:
    players = await field(4)
    host, bob, cat, _dan = players
    await host.send("kick", {"seat": cat.seat})
    assert await cat.closed() == 4001
    await host.send("leave")
    await host.expect("left")
    event = await bob.event("host")
    assert event["seat"] == bob.seat and event["room"]["host_name"] == "p1"
    await bob.send("lb_page", {"first": 1, "count": 10})
    page = await bob.expect("lb_page")
    assert sorted(line["nickname"] for line in page["lines"]) == ["p1", "p3"]


async def test_a_scheduled_start_and_a_late_arrival(field: Any, connect: type[Client]) -> None:
    players = await field(2, late="admit")
    host = players[0]
    hello = next(f["d"] for f in host.frames if f["t"] == "hello")
    at = hello["now"] + 1500
    await host.send("start", {"at": at})
    scheduled = await host.event("scheduled")
    assert scheduled["room"]["start_at"] == at and scheduled["room"]["phase"] == "lobby"
    late_comer = await connect("late")
    await late_comer.join(host.room, "early")  # still the lobby: an ordinary player
    start_ev = await host.event("start", timeout=10)
    assert start_ev["room"]["start_at"] >= at
    await late_comer.expect("board")
    really_late = await connect("later")
    await asyncio.sleep(0)
    await really_late.join(host.room, "later")
    board = await really_late.expect("board")
    ack = await really_late.move(board["view"]["legal"][0])
    assert ack["t"] == "ack" and ack["d"]["of"] == 4


async def test_a_small_room_may_admit_late_arrivals_too(connect: type[Client]) -> None:
    ann, bob = await connect("ann"), await connect("bob")
    await ann.create("ann", late="admit", code=WIN)
    await ann.send("start")
    start_at = (await ann.event("start"))["room"]["start_at"]
    await ann.expect("board")
    # one who comes in within the start's own millisecond is on time: bob comes later
    await eventually(lambda: time.time() * 1000 >= start_at + 1, what="the start's millisecond over")
    await bob.join(ann.room, "bob")
    board = await bob.expect("board")
    joined = await ann.event("joined")
    assert joined["racing"] is True and bob.seat in joined["room"]["racers"]
    for m in win(WIN)["script"]:
        ack = await bob.move(m)
        assert ack["t"] == "ack", ack
    assert board["view"]["moves"] == 0
    lb = await ann.expect("lb", lambda d: any(e["status"] == "finished" for e in d["entries"]))
    line = next(e for e in lb["entries"] if e["seat"] == bob.seat)
    # bob's clock started when he came in, after the race had begun
    assert line["late"] is True and line["started"] > start_at
    assert line["finish_ms"] <= line["at"] - line["started"]
    assert not [f for f in bob.frames if f["t"] == "board"][1:], "one board, not two"


async def watcher_of(connect: type[Client], room: str) -> Client:
    watcher = await connect("watcher")
    await watcher.send("watch", {"room": room})
    await watcher.expect("watching")
    return watcher


async def test_a_spectator_pages_and_finds_like_a_player(field: Any, connect: type[Client]) -> None:
    players = await field(4)
    await start(players)
    watcher = await watcher_of(connect, players[0].room)
    await watcher.send("lb_page", {"first": 1, "count": 3})
    page = await watcher.expect("lb_page")
    assert page["of"] == 4 and [line["rank"] for line in page["lines"]] == [1, 2, 3]
    await watcher.send("lb_find", {"nickname": "p2"})
    assert (await watcher.expect("lb_found"))["seat"] == players[2].seat
    # a player may not follow another (their boards are no business of a racer's)
    await players[1].send("follow", {"nickname": "p2"})
    assert (await players[1].expect("reject"))["code"] == "not_spectator"


async def test_boards_after_the_race_only(field: Any, connect: type[Client]) -> None:
    players = await field(3, code=WIN, boards="after")
    await start(players)
    watcher = await watcher_of(connect, players[0].room)
    for m in win(WIN)["script"][:8]:
        assert (await players[0].move(m))["t"] == "ack"
    await watcher.expect("top", lambda d: any(line["seat"] == players[0].seat and
                                              line["moves"] == 8 for line in d["top"]))
    for p in players:
        assert (await p.command("resign"))["t"] == "ack"
    await watcher.event("ended")
    boards = await watcher.expect("boards")
    assert boards["boards"][str(players[0].seat)]["moves"] == 8
    ended = next(i for i, f in enumerate(watcher.frames) if f["t"] == "event"
                 and f["d"]["kind"] == "ended")
    assert not [f for f in watcher.frames[:ended] if f["t"] == "boards"], "no board before the end"


async def test_delayed_boards_show_each_move_only_after_the_delay(
        field: Any, connect: type[Client]) -> None:
    players = await field(2, code=WIN, boards="delayed", delay=1)
    await start(players)
    watcher = await watcher_of(connect, players[0].room)
    script = win(WIN)["script"]
    sent_at = []
    for m in script[:3]:
        sent_at.append(asyncio.get_running_loop().time())
        assert (await players[0].move(m))["t"] == "ack"
    seat = str(players[0].seat)
    boards = await watcher.expect("boards", lambda d: d["boards"].get(seat, {}).get("moves") == 3,
                                  timeout=10)
    # shown no earlier than the delay after it was played: move 3 was played after we
    # sent it, so its board cannot reach us before a second after that (0.05 s for
    # the two clocks' granularity)
    assert asyncio.get_running_loop().time() - sent_at[2] >= 0.95, boards
