"""Acks that survive a crash, and Redis coming back with less (real processes):
``--durability fsync`` with redis-server SIGKILLed right after a burst of
acks; the embedded redis-server killed and brought back by its supervisor
(``/healthz`` 503 only while it is down); a Redis restarted from an older
copy of its append-only file, noticed by every process and every client
resynced; a Redis that cannot keep the promise refused at start."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import redis
from harness import ROOT, RedisServer, Servers, eventually
from play_support import (
    CODE,
    FAST,
    SCRIPT,
    Opener,
    acked,
    events_named,
    healthz,
    line,
    log_of,
    metric,
    play,
    play_through,
    redis_children,
    seen,
    send_moves,
    status_is,
    two_racing,
    unix_redis,
    view_after,
    watch,
)

from server.klondike import replay
from server.store import keys

pytestmark = pytest.mark.slow


def seat_log(r: redis.Redis, room: str, seat: int) -> list[str]:
    return [x.decode() for x in r.lrange(keys.log(room, 1, seat), 0, -1)]


# ---------------------------------------------------------------------- fsync

async def test_under_fsync_a_sigkilled_redis_loses_no_acked_move(
        tmp_path: Path, servers: Servers, clients: Opener) -> None:
    data = tmp_path / "data"
    s = servers.start(None, env=FAST, args=["--data-dir", str(data), "--durability", "fsync"])
    assert s.proc is not None
    r = unix_redis(data)
    try:
        assert r.config_get("appendfsync") == {"appendfsync": "always"}
        assert r.config_get("appendonly") == {"appendonly": "yes"}
    finally:
        r.close()
    ann = await clients(s, "ann")
    room = (await ann.solo(nickname="ann", code=CODE))["room"]
    await ann.expect("board")
    await play(ann, SCRIPT[:5])
    await send_moves(ann, SCRIPT[5:40])  # a burst, all in flight
    await ann.expect("ack", lambda d: d["s"] == 40)
    [child] = redis_children(s.proc.pid)
    os.kill(child, signal.SIGKILL)  # right after the last ack: nothing gets to flush
    await eventually(lambda: [p for p in redis_children(s.proc.pid) if p != child], timeout=20,
                     what="the embedded redis-server restarted")
    assert sorted(acked(ann)) == list(range(1, 41))
    r = unix_redis(data)
    try:
        assert seat_log(r, room, 0) == log_of(SCRIPT[:40])
    finally:
        r.close()
    await play_through(ann, SCRIPT[40:45], first_seq=41)


# ---------------------------------------------------------------------- the embedded Redis supervised

async def test_the_embedded_redis_killed_is_restarted_and_healthz_says_503_only_meanwhile(
        tmp_path: Path, servers: Servers, clients: Opener) -> None:
    data = tmp_path / "data"
    s = servers.start(None, env=FAST, args=["--data-dir", str(data)])
    assert s.proc is not None
    ann, cat = await clients(s, "ann"), await clients(s, "cat")
    room = (await ann.solo(nickname="ann", code=CODE))["room"]
    await ann.expect("board")
    await watch(cat, room)
    await play(ann, SCRIPT[:10])
    assert await healthz(s) == 200
    assert await metric(s, "klondike_embedded_redis_up") == 1

    # killed, and kept from starting again for a while (its log file cannot
    # be opened): the server stays up, says 503, and keeps trying
    [child] = redis_children(s.proc.pid)
    (data / "redis.log").rename(data / "redis.log.1")
    (data / "redis.log").mkdir()
    os.kill(child, signal.SIGKILL)
    await eventually(lambda: status_is(healthz(s), 503), what="/healthz 503 while it is down")
    await eventually(lambda: events_named(s, "embedded_redis_restart_failed"), timeout=15,
                     what="a restart tried and failed")
    assert await metric(s, "klondike_embedded_redis_up") == 0
    assert (await ann.move(SCRIPT[10]))["d"]["code"] == "unavailable"
    ann.seq -= 1

    (data / "redis.log").rmdir()  # the next try succeeds, on the same files
    await eventually(lambda: status_is(healthz(s), 200), timeout=20, what="/healthz 200 again")
    [again] = redis_children(s.proc.pid)
    assert again != child
    # (counted once the supervisor saw it answer, a moment after /healthz may have)
    await eventually(lambda: status_is(metric(s, "klondike_embedded_redis_restarts_total"), 1),
                     what="the restart counted")
    assert await metric(s, "klondike_embedded_redis_up") == 1
    [died] = events_named(s, "embedded_redis_died")
    assert died["level"] == "warning" and died["pid"] == child
    assert events_named(s, "embedded_redis_restarted")
    await play_through(ann, SCRIPT[10:20], first_seq=11)
    await eventually(lambda: seen(cat, "lb", lambda d: line(d["entries"], 0).get("moves")
                                  == view_after(SCRIPT[:20])["moves"]),
                     what="the spectator's leaderboard flows again")
    r = unix_redis(data)
    try:
        assert seat_log(r, room, 0) == log_of(SCRIPT[:20])
    finally:
        r.close()


# ---------------------------------------------------------------------- a rollback

async def test_a_restart_from_an_older_append_only_file_is_noticed_and_every_client_resynced(
        own_redis: RedisServer, servers: Servers, clients: Opener) -> None:
    s = servers.start(own_redis.url, env=FAST, name="s")
    t = servers.start(own_redis.url, env=FAST, name="t")
    ann, bob, cat, room = await two_racing(clients, s, t, t)

    own_redis.stop()
    older = own_redis.dir.parent / "older"
    shutil.copytree(own_redis.dir, older)  # the append-only file as it is now
    own_redis.start()
    await play_through(ann, SCRIPT[10:20], first_seq=11)
    # (t's own connections may not be back yet: a move refused `unavailable` is
    # sent again, as the protocol says)
    await play_through(bob, SCRIPT[5:10], first_seq=bob.seq + 1)
    for client in (ann, bob, cat):  # (a racer's leaderboard may come a second after its move)
        await eventually(lambda client=client: seen(
            client, "lb", lambda d: line(d["entries"], 1).get("moves")
            == view_after(SCRIPT[:10])["moves"]), what=f"{client.name} saw bob's later moves")
    seen_v = {c.name: c.v for c in (ann, bob, cat)}
    marks = {c.name: len(c.frames) for c in (ann, bob, cat)}

    own_redis.stop()
    shutil.rmtree(own_redis.dir)
    shutil.copytree(older, own_redis.dir)
    own_redis.start()

    def rolled_back(name: str, client: Any) -> dict[str, Any] | None:
        for msg in client.frames[marks[name]:]:
            if msg["t"] == "sync" and msg["d"].get("reason") == "rollback":
                return dict(msg["d"])
        return None

    for client in (ann, bob, cat):
        sync = await eventually(lambda client=client: rolled_back(client.name, client), timeout=20,
                                what=f"{client.name}: a sync with reason rollback")
        assert sync["v"] < seen_v[client.name]
    for client, moves in ((ann, 10), (bob, 5)):
        board = await eventually(lambda client=client: next(
            (m["d"] for m in client.frames[marks[client.name]:] if m["t"] == "board"), None),
            timeout=20, what=f"{client.name}: the board as stored")
        assert board["s"] == moves and board["view"] == view_after(SCRIPT[:moves])
    for server in (s, t):
        assert await metric(server, "klondike_rollbacks_total", scope="room") == 1
        [logged] = events_named(server, "rollback")
        assert logged["room"] == room and logged["level"] == "warning"

    # ann plays on from the board Redis has (her sequence numbers go on from hers)
    first = ann.seq + 1
    await play_through(ann, SCRIPT[10:15], first_seq=first)
    r = redis.Redis.from_url(own_redis.url)
    try:
        assert seat_log(r, room, 0) == log_of(SCRIPT[:10]) + [
            f"{first + i} {entry.split(' ', 1)[1]}" for i, entry in enumerate(log_of(SCRIPT[10:15]))]
    finally:
        r.close()
    await eventually(lambda: seen(cat, "lb", lambda d: line(d["entries"], 0).get("moves")
                                  == view_after(SCRIPT[:15])["moves"]),
                     what="the spectator follows the race again")


async def test_a_seat_behind_the_connections_game_is_a_rollback_too(
        own_redis: RedisServer, servers: Servers, clients: Opener) -> None:
    """The seat's log version below the one its connection stored (a room
    whose events did not go back): the move is refused ``rolled_back`` and
    the player gets the board as stored."""
    s = servers.start(own_redis.url, env=FAST, name="s")
    ann = await clients(s, "ann")
    room = (await ann.solo(nickname="ann", code=CODE))["room"]
    await ann.expect("board")
    await play(ann, SCRIPT[:10])
    r = redis.Redis.from_url(own_redis.url)
    try:  # as if the last three moves had never reached Redis
        r.hset(keys.seat(room, 1, 0), mapping={"ver": 7, "seq": 7,
                                               "snap": replay(CODE, SCRIPT[:7]).snapshot()})
        r.ltrim(keys.log(room, 1, 0), 0, 6)
    finally:
        r.close()
    mark = len(ann.frames)
    reply = await ann.move(SCRIPT[10])
    assert reply["t"] == "reject" and reply["d"]["code"] == "rolled_back"
    after = [m["t"] for m in ann.frames[mark:]]
    assert after.index("sync") < after.index("board") < after.index("reject")
    assert next(m["d"] for m in ann.frames[mark:] if m["t"] == "sync")["reason"] == "rollback"
    board = next(m["d"] for m in ann.frames[mark:] if m["t"] == "board")
    assert board["s"] == 7 and board["view"] == view_after(SCRIPT[:7])
    assert await metric(s, "klondike_rollbacks_total", scope="seat") == 1
    await play_through(ann, SCRIPT[7:12], first_seq=ann.seq + 1)


# ---------------------------------------------------------------------- a promise Redis cannot keep

def test_fsync_durability_on_a_redis_that_does_not_fsync_every_write_is_refused(
        own_redis: RedisServer, tmp_path: Path, servers: Servers) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("KLONDIKE_")}
    done = subprocess.run([sys.executable, "-m", "server", "serve", "--port", "0", "--redis-url",
                           own_redis.url, "--durability", "fsync"], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and done.stdout == ""
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith("klondike-race: ") and "appendfsync everysec" in last
    assert "Traceback" not in done.stderr
    strict = RedisServer(tmp_path / "strict", appendfsync="always").start()
    try:
        assert servers.start(strict.url, args=["--durability", "fsync"]).stop() == 0
    finally:
        strict.stop()
