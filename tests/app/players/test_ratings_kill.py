"""A rated race of four over two server processes whose ending process is
SIGKILLed right as the race ends (the test sees the room's ``ended`` event
on its Redis channel and kills the process then, wherever it was in its
results and ratings): the other process's sweeper finishes the race's
ratings, and every player's rating moves exactly once, as openskill's
Plackett–Luce computes it here independently."""

from __future__ import annotations

import asyncio
import os
import signal
import time
from typing import Any

import redis.asyncio as aioredis
from harness import Client, RedisServer, Servers, eventually
from openskill.models import PlackettLuce
from support.player import identify

from server.race.rating import placings
from server.store import keys

ARGS = ["--proxy-header", "X-Forwarded-For"]
#: the players' ratings before the race (mu, sigma, rated races): all apart, so that
#: even the tie of those who gave up moves each one differently
BEFORE = {"ann": (27.0, 5.0, 9), "bob": (25.0, 25 / 3, 0), "cat": (23.5, 6.5, 3), "dan": (26.0, 7.0, 5)}


def stored(r: Any, player: str) -> tuple[float, float, int]:
    mu, sigma, races, _ = r.hget(keys.player(player), "r:d1").decode().split()
    return float(mu), float(sigma), int(races)


async def test_the_process_that_ends_a_rated_race_killed_right_then_leaves_every_rating_applied_once(
        own_redis: RedisServer, servers: Servers, clients: Any) -> None:
    a = servers.start(own_redis.url, args=ARGS, name="a")
    b = servers.start(own_redis.url, args=ARGS, name="b")
    names = ("ann", "bob", "cat", "dan")  # ann and cat on a, bob and dan on b
    players: list[Client] = [await clients(a if i % 2 == 0 else b, n, f"198.51.100.{60 + i}")
                             for i, n in enumerate(names)]
    ids = {n: (await identify(c, nickname=n))["id"] for c, n in zip(players, names, strict=True)}
    r = own_redis.client()
    try:
        for n, (mu, sigma, races) in BEFORE.items():
            r.hset(keys.player(ids[n]), "r:d1", f"{mu!r} {sigma!r} {races} 0")
    finally:
        r.close()
    ann, bob, cat, dan = players
    await ann.create("ann", public=True, rated=True, max_players=4, draw=1)
    for c, n in zip(players[1:], names[1:], strict=True):
        await c.join(ann.room, n)
        await c.send("ready", {"ready": True})
    await eventually(lambda: sum(1 for f in ann.frames if f["t"] == "event"
                                 and f["d"].get("kind") == "ready") >= 3, what="ready")
    await ann.send("start")
    for c in players:
        await c.expect("board", timeout=15)
    room_id = ann.room
    assert (await ann.move("draw"))["t"] == "ack"
    assert (await bob.move("draw"))["t"] == "ack"
    assert (await bob.command("resign"))["t"] == "ack"
    assert (await dan.command("resign"))["t"] == "ack"
    assert (await cat.command("resign"))["t"] == "ack"

    # ann's resign, on a, ends the race: a is killed as soon as its end is published
    watcher = aioredis.Redis.from_url(own_redis.url)
    channel = watcher.pubsub()
    await channel.subscribe(keys.channel(room_id))
    ann.seq += 1
    await ann.send("resign", {"s": ann.seq})  # (no waiting for its ack: a dies meanwhile)
    async with asyncio.timeout(15):
        while True:
            message = await channel.get_message(ignore_subscribe_messages=True, timeout=1)
            if message and b'"kind":"ended"' in message["data"]:
                break
    assert a.proc is not None
    os.kill(a.proc.pid, signal.SIGKILL)
    killed_at = time.monotonic()
    a.kill()  # (reaped)
    await channel.aclose()
    await watcher.aclose()

    r = own_redis.client()
    try:
        # b's sweeper finishes the race: its rated event reaches bob, on b
        rated = await bob.event("rated", timeout=20)
        assert time.monotonic() - killed_at < 15  # soon: not at the race's deadline
        results = rated["room"]["results"]
        seats = {c.seat: ids[n] for c, n in zip(players, names, strict=True)}
        lines = [(seats[e["seat"]], e["status"], e["rank"]) for e in results]
        placed = placings(lines)
        assert len(placed) == 4
        model = PlackettLuce()
        before = {ids[n]: v for n, v in BEFORE.items()}
        teams = [[model.rating(mu=before[p][0], sigma=before[p][1])] for p, _ in placed]
        after = model.rate(teams, ranks=[place for _, place in placed])
        for (player, _), team in zip(placed, after, strict=True):
            # applied exactly once: one race more, one entry in the history
            assert stored(r, player) == (team[0].mu, team[0].sigma, before[player][2] + 1)
            assert r.llen(keys.rating_history(player)) == 1
        assert {str(s) for s in seats} == set(rated["ratings"])
    finally:
        r.close()
