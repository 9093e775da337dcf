"""Nothing stops the events of a process (issue 16, probe 11): a message on a
room's or a tournament's channel that fails to apply, or a catch-up that
fails, is logged with its traceback, counted in ``klondike_faults_total``
and shown by ``/healthz``; the hub reloads its room (or tournament) and
the events flow on, in that room and in every other.

Regression: one unreadable message on a room's channel ended the process's
subscriber loop, silently: no room or tournament of the process got an
event any more, and ``/healthz`` said ok. A catch-up that failed left its
room's hub waiting forever."""

from __future__ import annotations

from typing import Any

import orjson
from harness import Client, RedisServer, ServerProcess, Servers
from play_support import CODE, FAST, SCRIPT, Opener, health, metric, reasons, start_race
from tournament_support import Entrant, Organizer, t_seen

from server.store import keys


def moved(client: Client, seat: int, moves: int) -> Any:
    """A leaderboard frame that shows ``seat`` with ``moves`` moves."""
    return client.expect("lb", lambda d: any(
        e["seat"] == seat and e["moves"] == moves for e in d["entries"]))


async def flows(s: ServerProcess, clients: Opener) -> None:
    """A room opened now gets its events."""
    cat, dan = await clients(s, "cat"), await clients(s, "dan")
    room = (await cat.create("cat"))["room"]
    await dan.join(room, "dan")
    await cat.expect("event", lambda d: d["kind"] == "joined" and d["seat"] == dan.seat)


async def racing(redis_server: RedisServer, servers: Servers, clients: Opener, fault: str
                 ) -> tuple[ServerProcess, Client, Client, str]:
    """A server that may log ``fault`` (the error it is about to meet), and
    ann and bob racing on it."""
    s = servers.start(redis_server.url, env=FAST)
    s.allowed_errors = {fault}
    ann, bob = await clients(s, "ann"), await clients(s, "bob")
    return s, ann, bob, await start_race(ann, [bob])


async def faulted(s: ServerProcess, where: str) -> None:
    status, report = await health(s)
    assert status == 503 and where in reasons(report), report
    assert report["faults"][where] >= 1
    assert await metric(s, "klondike_faults_total", where=where) >= 1


async def test_an_unreadable_message_on_a_rooms_channel_stops_no_event(
        redis_server: RedisServer, servers: Servers, clients: Opener) -> None:
    s, ann, bob, room = await racing(redis_server, servers, clients, "room_message_failed")
    r = redis_server.client()
    try:
        assert r.publish(keys.channel(room), b"not json") == 1
    finally:
        r.close()
    # the hub reloads the room and resyncs its connections; bob's moves wait
    # for that (regression, issue 30: a move stored before the reload came
    # in the sync's lines, never in an ``lb``, and ann waited for one 10 s)
    resynced = await ann.expect("sync", lambda d: d.get("reason") == "missed")
    assert bob.seat in {e["seat"] for e in resynced["entries"]}
    for n, move in enumerate(SCRIPT[:3], start=1):
        assert (await bob.move(move))["t"] == "ack"
        await moved(ann, bob.seat, n)
    await flows(s, clients)
    await faulted(s, "room")
    [failed] = [x for x in s.log_lines() if x["event"] == "room_message_failed"]
    assert "Traceback" in failed["exception"] and failed["room"] == room


async def test_a_catch_up_that_fails_reloads_the_room_and_its_events_flow_again(
        redis_server: RedisServer, servers: Servers, clients: Opener) -> None:
    s, ann, bob, room = await racing(redis_server, servers, clients, "catch_up_failed")
    r = redis_server.client()
    try:  # an event stored that nobody can read, and a message announcing a later one
        v = r.hincrby(keys.room(room), "ev", 1)
        r.rpush(keys.events(room), b"garbage")
        r.publish(keys.channel(room), orjson.dumps({"v": v + 5, "kind": "presence", "seat": 0,
                                                    "online": True, "at": 0}))
    finally:
        r.close()
    resynced = await ann.expect("sync", lambda d: d.get("reason") == "missed")
    assert resynced["v"] == v
    for n, move in enumerate(SCRIPT[:3], start=1):
        assert (await bob.move(move))["t"] == "ack"
        await moved(ann, bob.seat, n)
    await flows(s, clients)
    await faulted(s, "room")


async def test_an_unreadable_message_on_a_tournaments_channel_stops_no_event(
        redis_server: RedisServer, servers: Servers, clients: Opener) -> None:
    s = servers.start(redis_server.url, env=FAST)
    s.allowed_errors = {"tournament_message_failed"}
    org = Organizer(await clients(s, "org"))
    await org.create("Club night", codes=[CODE], max_players=8)
    r = redis_server.client()
    try:
        assert r.publish(keys.tournament_channel(org.id), b"[1, 2") == 1
    finally:
        r.close()
    ann = Entrant(await clients(s, "ann"), "ann")
    await ann.register(org.id)
    await t_seen(org.client, "registered")
    await flows(s, clients)
    await faulted(s, "tournament")
