"""Resilience with real processes: a server killed mid-race, Redis restarted
mid-race, several servers on one Redis, signals, the embedded Redis.

The invariant under every failure: a move the player saw acknowledged is in
Redis afterwards, and the seat's stored game is exactly the acknowledged
moves replayed (plus, at most, commands that were in flight and never
acknowledged, which a resend then recognises).
"""

from __future__ import annotations

import asyncio
import signal
from pathlib import Path
from typing import Any

import pytest
import redis
from harness import Client, RedisServer, Servers, eventually
from play_support import (
    CODE,
    FAST,
    SCRIPT,
    Opener,
    acked,
    healthz,
    is_alive,
    line,
    log_of,
    play,
    redis_children,
    reply_to,
    resend_until_acked,
    seen,
    send_moves,
    socket_inodes,
    start_race,
    status_is,
    stored_log,
    stored_view,
    tcp_listening_inodes,
    two_racing,
    view_after,
    watch,
)

from server.klondike import replay

# ---------------------------------------------------------------------- a process killed

async def test_sigkilled_process_loses_no_acknowledged_move(
        redis_server: RedisServer, servers: Servers, clients: Opener) -> None:
    a, b, c = (servers.start(redis_server.url, env=FAST, name=n) for n in ("a", "b", "c"))
    ann, bob, cat = await clients(a, "ann"), await clients(b, "bob"), await clients(c, "cat")
    room = await start_race(ann, [bob])  # ann on a, bob on b: one race across processes
    await watch(cat, room)  # the spectator on a third process
    await play(ann, SCRIPT[:30])
    await play(bob, SCRIPT[:10])
    await eventually(lambda: seen(cat, "lb", lambda d: line(d["entries"], 0).get("moves") == 30
                                  and line(d["entries"], 1).get("moves") == 10),
                     what="the spectator's leaderboard with both players")

    await send_moves(ann, SCRIPT[30:60])  # in flight when the process dies
    await ann.expect("ack", lambda d: d["s"] == 31)
    a.kill()
    assert await ann.closed() == 1006
    confirmed = acked(ann)
    last = max(confirmed)
    assert sorted(confirmed) == list(range(1, last + 1))
    assert confirmed[last] == view_after(SCRIPT[:last])

    # ann reconnects to another process and resumes her seat from where she was
    ann2 = await clients(b, "ann again")
    joined = await ann2.resume(room, ann.token, since=ann.v)
    assert joined["seat"] == 0
    events = await ann2.expect("events")
    assert events["from"] == ann.v
    board = await ann2.expect("board")
    stored = board["s"]
    assert last <= stored <= 60, "an acknowledged move was lost, or a move never sent was stored"
    assert board["view"] == view_after(SCRIPT[:stored])
    assert board["view"]["moves"] == replay(CODE, SCRIPT[:stored]).view()["moves"] >= last
    assert stored_log(redis_server.url, room, 0) == log_of(SCRIPT[:stored])

    # a resend of the last stored command is recognised, not applied twice
    await ann2.send("move", {"s": stored, "m": SCRIPT[stored - 1]})
    again = await ann2.expect("ack", lambda d: d["s"] == stored)
    assert again.get("again") is True and again["view"] == board["view"]

    ann2.seq = stored
    assert (await play(ann2, SCRIPT[stored:]))["state"] == "won"
    assert (await play(bob, SCRIPT[10:]))["state"] == "won"
    for client in (ann2, bob, cat):
        ended = await client.event("ended")
        assert ended["room"]["code"] == CODE
        results = ended["room"]["results"]
        assert [(e["nickname"], e["status"], e["rank"]) for e in results] == [
            ("ann", "finished", 1), ("bob", "finished", 2)]
        assert results[0]["finish_ms"] < results[1]["finish_ms"]
    for seat in ("0", "1"):
        await eventually(lambda seat=seat: seen(
            cat, "boards", lambda d: d["boards"].get(seat, {}).get("state") == "won"),
            what=f"the spectator sees seat {seat}'s won board")


# ---------------------------------------------------------------------- Redis restarted

async def test_redis_restart_mid_race_loses_nothing_and_channels_come_back(
        own_redis: RedisServer, servers: Servers, clients: Opener) -> None:
    s = servers.start(own_redis.url, env=FAST, name="s")
    t = servers.start(own_redis.url, env=FAST, name="t")
    ann, bob, cat, room = await two_racing(clients, s, s, t)
    assert await healthz(s) == 200

    own_redis.stop()
    assert await healthz(s) == 503
    assert await healthz(t) == 503
    after = len(ann.frames)
    await send_moves(ann, [SCRIPT[10]])
    reply = await reply_to(ann, 11, after)
    assert reply["t"] == "reject" and reply["d"]["code"] == "unavailable", reply

    own_redis.start()  # same port and files: the append-only file brings the data back
    ack = await resend_until_acked(ann, 11, SCRIPT[10])
    assert "again" not in ack, "a rejected command must not have been applied"
    assert ack["view"] == view_after(SCRIPT[:11])
    for server in (s, t):
        await eventually(lambda server=server: status_is(healthz(server), 200), what="/healthz 200 again")
    assert (await play(ann, SCRIPT[11:20])) == view_after(SCRIPT[:20])
    assert stored_log(own_redis.url, room, 0) == log_of(SCRIPT[:20])
    assert stored_view(own_redis.url, room, 0) == view_after(SCRIPT[:20])
    assert stored_log(own_redis.url, room, 1) == log_of(SCRIPT[:5])

    # the leaderboard keeps flowing on both processes (their channels came back)
    await play(bob, SCRIPT[5:15])
    bob_moves = view_after(SCRIPT[:15])["moves"]
    ann_moves = view_after(SCRIPT[:20])["moves"]
    for client in (ann, cat):
        await eventually(lambda client=client: seen(
            client, "lb", lambda d: line(d["entries"], 1).get("moves") == bob_moves
            and line(d["entries"], 0).get("moves") == ann_moves), what=f"{client.name}: lb")
    await eventually(lambda: seen(cat, "boards", lambda d: d["boards"].get("1", {}).get("moves")
                                  == bob_moves), what="the spectator's boards")
    # and room events too
    assert (await ann.command("resign"))["t"] == "ack"
    assert (await bob.command("resign"))["t"] == "ack"
    for client in (ann, bob, cat):
        ended = await client.event("ended")
        assert ended["room"]["code"] == CODE
        assert {e["seat"]: e["status"] for e in ended["room"]["results"]} == {
            0: "resigned", 1: "resigned"}


async def test_a_server_started_while_redis_is_down_serves_once_redis_is_up(
        own_redis: RedisServer, servers: Servers, clients: Opener) -> None:
    """Regression: the first presence heartbeat at start raised StoreUnavailable
    when Redis was not there yet, and the process died with a traceback
    instead of starting and waiting for Redis (/healthz 503 meanwhile)."""
    own_redis.stop()
    s = await asyncio.to_thread(servers.start, own_redis.url, env=FAST, name="s")
    assert "redis_not_reachable_yet" in [line.get("event") for line in s.log_lines()]
    assert await healthz(s) == 503
    own_redis.start()
    await eventually(lambda: status_is(healthz(s), 200), what="/healthz 200 once Redis is up")
    ann = await clients(s, "ann")
    await ann.solo(nickname="ann", code=CODE)
    await ann.expect("board")
    assert await play(ann, SCRIPT[:3]) == view_after(SCRIPT[:3])


# ---------------------------------------------------------------------- many processes

async def test_players_and_spectators_on_three_processes_share_one_race(
        redis_server: RedisServer, servers: Servers, clients: Opener) -> None:
    procs = [servers.start(redis_server.url, env=FAST, name=n) for n in ("a", "b", "c")]
    a, b, c = procs
    ann, bob, cy = await clients(a, "ann"), await clients(b, "bob"), await clients(c, "cy")
    early = await clients(b, "early")  # a spectator from the lobby on
    joined = await ann.create("ann", code=CODE, boards="live")
    room = joined["room"]
    await watch(early, room)
    for player in (bob, cy):
        await player.join(room, player.name)
        await player.send("ready", {"ready": True})
        await ann.expect("event", lambda d, s=player.seat: d["kind"] == "ready" and d["seat"] == s)
    await early.expect("event", lambda d: d["kind"] == "ready" and d["seat"] == cy.seat)
    await ann.send("start")
    for player in (ann, bob, cy):
        assert (await player.expect("board"))["view"] == view_after([])
    await play(ann, SCRIPT[:20])
    await play(bob, SCRIPT[:5])

    # spectators arriving mid-race, on every process, see the boards as they are
    late = [await clients(p, f"late-{i}") for i, p in enumerate(procs)]
    for spectator in late:
        await watch(spectator, room)
        # boards frames carry the boards that changed: a client merges them (a
        # flush of the moves just played may come before the newcomer's full set)
        boards: dict[str, Any] = {}
        while set(boards) != {"0", "1", "2"}:
            boards.update((await spectator.expect("boards"))["boards"])
        assert boards["0"] == replay(CODE, SCRIPT[:20]).public_view()
        assert boards["1"] == replay(CODE, SCRIPT[:5]).public_view()
        assert boards["2"] == replay(CODE, []).public_view()

    # bob opens his seat on another process: the first connection steps aside
    bob2 = await clients(c, "bob again")
    await bob2.resume(room, bob.token, since=bob.v)
    assert await bob.closed() == 4000
    assert (await bob2.expect("board"))["s"] == 5
    bob2.seq = 5
    await play(bob2, SCRIPT[5:30])
    await play(cy, SCRIPT[:10])
    assert (await bob2.command("resign"))["t"] == "ack"
    assert (await cy.command("resign"))["t"] == "ack"
    assert (await play(ann, SCRIPT[20:]))["state"] == "won"

    expected = [("ann", "finished", 1), ("bob", "resigned", 2), ("cy", "resigned", 3)]
    assert replay(CODE, SCRIPT[:30]).vegas > replay(CODE, SCRIPT[:10]).vegas  # why bob ranks over cy
    results = []
    for client in (ann, bob2, cy, early, *late):
        ended = await client.event("ended")
        assert [(e["nickname"], e["status"], e["rank"]) for e in ended["room"]["results"]] == expected
        results.append(ended["room"]["results"])
    assert all(r == results[0] for r in results)
    for spectator in (early, *late):
        await eventually(lambda spectator=spectator: seen(
            spectator, "lb", lambda d: [(e["nickname"], e["rank"]) for e in d["entries"]]
            == [(n, r) for n, _, r in expected]), what=f"{spectator.name}: the final leaderboard")
        await eventually(lambda spectator=spectator: seen(
            spectator, "boards", lambda d: d["boards"].get("0", {}).get("state") == "won"),
            what=f"{spectator.name}: the winner's board")


# ---------------------------------------------------------------------- signals

@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
async def test_signal_closes_sockets_with_1001_after_commands_in_flight(
        sig: signal.Signals, redis_server: RedisServer, servers: Servers, clients: Opener) -> None:
    a = servers.start(redis_server.url, env=FAST, name="a")
    ann, cat = await clients(a, "ann"), await clients(a, "cat")
    joined = await ann.solo(nickname="ann", code=CODE)
    await ann.expect("board")
    await watch(cat, joined["room"])
    await play(ann, SCRIPT[:5])
    await send_moves(ann, SCRIPT[5:40])
    await ann.expect("ack", lambda d: d["s"] == 6)
    assert a.proc is not None
    a.proc.send_signal(sig)
    assert await ann.closed() == 1001
    assert await cat.closed() == 1001
    # the listening socket is closed before any connection is
    with pytest.raises(OSError):
        await Client.open(a.ws_url, "late")
    assert await asyncio.to_thread(a.proc.wait, 20) == 0
    assert a.stop() == 0
    events = [line.get("event") for line in a.log_lines()]
    assert events.index("shutting_down") < events.index("stopped")

    confirmed = acked(ann)
    last = max(confirmed)
    assert sorted(confirmed) == list(range(1, last + 1))
    b = servers.start(redis_server.url, env=FAST, name="b")
    ann2 = await clients(b, "ann again")
    await ann2.resume(joined["room"], ann.token, since=ann.v)
    board = await ann2.expect("board")
    assert last <= board["s"] <= 40
    assert board["view"] == view_after(SCRIPT[:board["s"]])
    assert stored_log(redis_server.url, joined["room"], 0) == log_of(SCRIPT[:board["s"]])


async def test_sigterm_is_not_held_up_by_a_connection_with_many_commands_queued(
        redis_server: RedisServer, servers: Servers, clients: Opener) -> None:
    """Regression: with more commands queued than the socket's read buffer
    (max_queue, 32), an answer written after the 1001 close frame waited for
    the client's close frame, which sat unread behind the queue, until the
    close timeout (5 s) aborted the connection."""
    a = servers.start(redis_server.url, env=FAST, name="a")
    ann = await clients(a, "ann")
    joined = await ann.solo(nickname="ann", code=CODE)
    await ann.expect("board")
    await send_moves(ann, SCRIPT[:50])  # more than 32: reading from the socket pauses
    await ann.expect("ack", lambda d: d["s"] == 1)
    assert a.proc is not None
    a.proc.send_signal(signal.SIGTERM)
    async with asyncio.timeout(4.5):  # under the 5 s close timeout that the bug always waited out
        assert await ann.closed() == 1001
        await eventually(lambda: a.proc is not None and a.proc.poll() is not None, timeout=4.5)
    assert a.proc.returncode == 0
    b = servers.start(redis_server.url, env=FAST, name="b")
    ann2 = await clients(b, "ann again")
    await ann2.resume(joined["room"], ann.token, since=ann.v)
    board = await ann2.expect("board")
    assert max(acked(ann)) <= board["s"] <= 50
    assert board["view"] == view_after(SCRIPT[:board["s"]])


# ---------------------------------------------------------------------- embedded Redis

async def test_embedded_redis_on_a_unix_socket_keeps_data_and_stops_with_the_server(
        tmp_path: Path, servers: Servers, clients: Opener) -> None:
    data = tmp_path / "data"
    first = servers.start(None, args=["--data-dir", str(data)], name="embedded")
    assert first.proc is not None
    [child] = redis_children(first.proc.pid)
    # no TCP port of its own (the method sees the server's own listening socket)
    listening = tcp_listening_inodes()
    assert socket_inodes(first.proc.pid) & listening
    assert not socket_inodes(child) & listening
    socket_path = data / "redis.sock"
    assert socket_path.is_socket()
    r = redis.Redis(unix_socket_path=str(socket_path))
    try:
        assert r.config_get("port") == {"port": "0"}
        assert r.config_get("appendonly") == {"appendonly": "yes"}
        assert Path(r.config_get("dir")["dir"]) == data.resolve()
    finally:
        r.close()

    ann = await clients(first, "ann")
    room = (await ann.create("ann", code=CODE))["room"]
    await ann.close()
    assert first.stop() == 0
    await eventually(lambda: not is_alive(child), what="the embedded redis-server to stop")

    second = servers.start(None, args=["--data-dir", str(data)], name="embedded-again")
    assert second.proc is not None
    [child2] = redis_children(second.proc.pid)
    cat = await clients(second, "cat")
    await watch(cat, room)
    sync = await cat.expect("sync")
    assert sync["room"]["id"] == room
    assert [p["nickname"] for p in sync["room"]["players"]] == ["ann"]

    # killed outright, the server still takes its Redis with it; the data stays
    second.kill()
    await eventually(lambda: not is_alive(child2), what="the orphaned redis-server to stop")
    third = servers.start(None, args=["--data-dir", str(data)], name="embedded-third")
    dan = await clients(third, "dan")
    await watch(dan, room)
    assert (await dan.expect("sync"))["room"]["id"] == room
