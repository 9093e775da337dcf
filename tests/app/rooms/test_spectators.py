"""Spectators: what they get on arrival, what they may not do, when boards
reach them (live, delayed), and watching from another server process."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from harness import Client, RedisServer, ServerProcess, Servers
from support.challenge import TestClock
from support.race import (
    FAST_ARGS,
    Racer,
    assert_code_kept,
    ended_index,
    open_room,
    scan_spectator,
    seen_or_next,
    start_fast_server,
    start_race,
    win,
)

from server.klondike import Game


@pytest.fixture(scope="module")
def server(redis_server: RedisServer, module_servers: Servers, clock_file: Path
           ) -> ServerProcess:
    return start_fast_server(redis_server, module_servers, "--clock-offset-file", str(clock_file))


GAME_COMMANDS = [("move", {"s": 1, "m": "draw"}), ("undo", {"s": 2}), ("resign", {"s": 3}),
                 ("hint", {}), ("complete", {})]
LOBBY_COMMANDS = [("ready", {"ready": True}), ("start", {}), ("kick", {"seat": 1}), ("rematch", {})]


async def test_a_spectator_gets_sync_and_boards_and_may_not_play(connect: type[Client]) -> None:
    code = "KL1-D1N-AAPIVDJ"
    ann, bob = await connect("ann"), await connect("bob")
    joined = await open_room([ann, bob], code=code, boards="live")
    await start_race([ann, bob])
    ada = await connect("ada")
    await ada.send("watch", {"room": joined[0]["room"], "since": 0})
    boards = await ada.expect("boards")
    types = [f["t"] for f in ada.frames]
    assert types.index("watching") < types.index("sync") < types.index("boards")
    assert boards["boards"] == {str(seat): Game(code).public_view() for seat in (0, 1)}

    for t, d in GAME_COMMANDS + LOBBY_COMMANDS:
        await ada.send(t, d)
        refused = await ada.expect("reject")
        assert (refused["cmd"], refused["code"]) == (t, "spectator")
        assert refused.get("s") == d.get("s")
    for t, d in (("create", {"nickname": "ada", "settings": {}}), ("join", {"room": joined[0]["room"],
                                                                             "nickname": "ada"})):
        await ada.send(t, d)
        refused = await ada.expect("reject")
        assert (refused["cmd"], refused["code"]) == (t, "already_in_room")
    # nothing happened to the race
    first = await ann.move(str(Game(code).legal_moves()[0]))
    assert first["t"] == "ack" and first["d"]["view"]["moves"] == 1
    lb = await ada.expect("lb", lambda d: any(e["moves"] == 1 for e in d["entries"]))
    assert {e["nickname"]: e["moves"] for e in lb["entries"]} == {"ann": 1, "bob": 0}
    assert all(e["status"] == "racing" for e in lb["entries"])
    assert not any(f["t"] == "event" and f["d"]["kind"] in ("ready", "start", "kicked", "rematch")
                   for f in ada.frames)
    await ada.send("leave")
    assert (await ada.expect("left"))["room"] == joined[0]["room"]


DELAY = 60  # s: longer than any test runs, so only the moved clock brings a board


async def test_delayed_boards_reach_spectators_only_after_the_delay(
        connect: type[Client], server: ServerProcess, clock_file: Path) -> None:
    """The boards come when the servers' clock, moved by the test, passes
    each board's moment plus the delay: none before (each frame that came
    before a move shows only boards whose time had come)."""
    clock = TestClock(clock_file)
    won = win("KL1-D1V-ABYI5NK")
    code, script = won["code"], won["script"]
    ann = await connect("ann")
    joined = await open_room([ann], code=code, boards="delayed", delay=DELAY)
    early = await Client.open(server.ws_url, "early")
    late = await Client.open(server.ws_url, "late")
    watchers = (early, late)

    async def move(seconds: int) -> dict[Client, int]:
        """The frames each watcher had before the clock moved ``seconds``."""
        before = {watcher: len(watcher.frames) for watcher in watchers}
        clock.move(seconds * 1000)
        await clock.seen(ann)
        return before

    try:
        await early.send("watch", {"room": joined[0]["room"], "since": 0})
        await early.expect("sync")
        await start_race([ann])
        racer = Racer(ann, code)
        await racer.play(script[:3])
        await late.send("watch", {"room": joined[0]["room"], "since": 0})
        await late.expect("sync")
        await move(DELAY // 2)
        await racer.play(script[3:6])
        first_due = await move(DELAY // 2 + 2)  # the start and the first three moves are due
        for watcher in watchers:
            await seen_or_next(watcher, "boards", lambda d: d["boards"].get("0") == racer.history[3])
        second_due = await move(DELAY // 2)  # and the next three
        for watcher in watchers:
            await seen_or_next(watcher, "boards", lambda d: d["boards"].get("0") == racer.history[6])
        await racer.resign()
        await ann.event("ended")
        for watcher in watchers:
            await watcher.expect("boards", lambda d: d["boards"].get("0") == racer.history[-1])
            end = ended_index(watcher)
            shown = [(i, racer.step_of(f["d"]["boards"]["0"]))
                     for i, f in enumerate(watcher.frames[:end]) if f["t"] == "boards"]
            steps = [step for _, step in shown]
            assert steps == sorted(steps) and steps[-1] == 6 and 3 in steps, steps
            assert not [s for i, s in shown if i < first_due[watcher]], shown
            assert all(s <= 3 for i, s in shown if i < second_due[watcher]), shown
            assert not any("board" in f["d"] for f in watcher.frames[:end] if f["t"] == "event")
            scan_spectator(watcher, {0: racer}, boards="delayed")
            assert_code_kept(watcher, code)
    finally:
        await early.close()
        await late.close()


async def test_spectators_may_watch_from_another_process(
        redis_server: RedisServer, servers: Servers) -> None:
    won = win("KL1-D1N-AAQHFVM")
    code, script = won["code"], won["script"]
    players_server = servers.start(redis_server.url, args=FAST_ARGS)
    watchers_server = servers.start(redis_server.url, args=FAST_ARGS)
    ann = await Client.open(players_server.ws_url, "ann")
    bob = await Client.open(players_server.ws_url, "bob")
    early = await Client.open(watchers_server.ws_url, "early")
    late = await Client.open(watchers_server.ws_url, "late")
    try:
        joined = await open_room([ann, bob], code=code, boards="live")
        await early.send("watch", {"room": joined[0]["room"], "since": 0})
        sync = await early.expect("sync")
        assert [p["nickname"] for p in sync["room"]["players"]] == ["ann", "bob"]
        await start_race([ann, bob])
        racers = {0: Racer(ann, code), 1: Racer(bob, code)}
        await asyncio.gather(racers[0].play(script[:40]), racers[1].play(script[:25]))
        await seen_or_next(early, "boards", lambda d: d["boards"].get("0") == racers[0].history[-1])
        await late.send("watch", {"room": joined[0]["room"], "since": 0})
        arrival = await late.expect("boards")
        assert arrival["boards"] == {str(s): r.game.public_view() for s, r in racers.items()}
        since = late.v
        await late.send("leave")
        await late.expect("left")
        await racers[1].play(script[25:30])
        await late.send("watch", {"room": joined[0]["room"], "since": since})
        events = await late.expect("events")
        assert events["from"] == since
        shown = [e["board"] for e in events["events"] if e["kind"] == "progress"]
        assert shown == racers[1].history[-5:]  # a live room's gap comes with its boards
        for watcher in (early, late):
            await seen_or_next(watcher, "boards", lambda d: d["boards"].get("1") == racers[1].history[-1])
            lb = await seen_or_next(watcher, "lb", lambda d: sorted(e["moves"] for e in d["entries"]) == [
                30, 40])
            assert {e["nickname"]: e["vegas"] for e in lb["entries"]} == {
                "ann": racers[0].game.vegas, "bob": racers[1].game.vegas}
        await racers[0].resign()
        await racers[1].resign()
        for watcher in (early, late):
            ended = await watcher.event("ended")
            assert ended["code"] == code
            assert scan_spectator(watcher, racers, boards="live") >= 2
            assert_code_kept(watcher, code)
    finally:
        for client in (ann, bob, early, late):
            await client.close()


async def test_delayed_boards_for_a_spectator_on_a_process_that_missed_the_race(
        redis_server: RedisServer, servers: Servers, clock_file: Path) -> None:
    """A hub that did not follow the race rebuilds what the delay allows: a quiet
    seat's stored board, a busy seat's board of ``delay`` seconds ago from the
    stored events, and the younger boards once they are old enough (the
    servers' clock moved by the test)."""
    clock = TestClock(clock_file)
    code = "KL1-D1N-AAQHFVM"
    script = win(code)["script"]
    args = [*FAST_ARGS, "--clock-offset-file", str(clock_file)]
    players_server = servers.start(redis_server.url, args=args)
    watchers_server = servers.start(redis_server.url, args=args)
    ann = await Client.open(players_server.ws_url, "ann")
    bob = await Client.open(players_server.ws_url, "bob")
    watcher = await Client.open(watchers_server.ws_url, "watcher")
    try:
        joined = await open_room([ann, bob], code=code, boards="delayed", delay=DELAY)
        await start_race([ann, bob])
        quiet, busy = Racer(ann, code), Racer(bob, code)
        await quiet.play(script[:3])
        await busy.play(script[:2])
        clock.move((DELAY + 1) * 1000)
        await clock.seen(ann, watcher)
        await busy.play(script[2:4])
        await watcher.send("watch", {"room": joined[0]["room"], "since": 0})
        first = await watcher.expect("boards")
        assert first["boards"] == {"0": quiet.history[3], "1": busy.history[2]}
        before = len(watcher.frames)
        clock.move((DELAY + 1) * 1000)
        await clock.seen(watcher)
        later = await seen_or_next(watcher, "boards", lambda d: d["boards"].get("1") == busy.history[4])
        assert "0" not in later["boards"] or later["boards"]["0"] == quiet.history[3]
        young = [i for i, frame in enumerate(watcher.frames) if frame["t"] == "boards"
                 and frame["d"]["boards"].get("1") in busy.history[3:]]
        assert young and min(young) >= before, (young, before)  # not before their time came
        scan_spectator(watcher, {0: quiet, 1: busy}, boards="delayed")
    finally:
        for client in (ann, bob, watcher):
            await client.close()
