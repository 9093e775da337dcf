"""Tournaments end to end with real processes: rounds played as races on
fixed codes from the vectors, the standings, CSV and replays checked against
each player's game replayed on the test side, the codes kept secret until
each round ends, a process killed mid-round and between rounds, the
organizer's and players' refusals, spectators (docs/protocol.md, "Tournaments").
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any, Final

import pytest
from harness import Client, RedisServer, ServerProcess, Servers, load_kl1, load_wins
from race_support import FAST_ARGS, line_stats, stats
from tournament_support import (
    Entrant,
    Organizer,
    t_seen,
)

WINS: Final = {w["code"]: w for w in load_wins()}
KL1: Final = {g["code"]: g for g in load_kl1()["games"]}
# two won games of wins.json (a Vegas and a Normal deal) and a kl1.json game (with undos)
CODES: Final = ["KL1-D1V-ACT552B", "KL1-D3N-AA3VMOQ", "KL1-D1V-BCDEFGH"]
SCRIPTS: Final = [WINS[CODES[0]]["script"], WINS[CODES[1]]["script"], KL1[CODES[2]]["script"]]
TIME_LIMIT: Final = 12  # seconds: round 2 waits for it (a player never shows up)

class Clients:
    """``await clients(server, "name")``: a client of that server; all are
    kept (``opened``) to scan their frames, and closed after the test."""

    def __init__(self) -> None:
        self.opened: list[Client] = []

    async def __call__(self, server: ServerProcess, name: str) -> Client:
        client = await Client.open(server.ws_url, name)
        self.opened.append(client)
        return client


@pytest.fixture
async def clients() -> AsyncIterator[Clients]:
    group = Clients()
    yield group
    for client in group.opened:
        await client.close()


def fast(servers: Servers, redis: RedisServer, *names: str) -> list[ServerProcess]:
    return [servers.start(redis.url, args=FAST_ARGS, name=n) for n in names]


async def watch_room(client: Client, room: str) -> dict[str, Any]:
    await client.send("watch", {"room": room, "since": 0})
    await client.expect("watching")
    return await client.expect("sync")


async def refused(client: Client, t: str, d: dict[str, Any]) -> dict[str, Any]:
    """Send a command; its reject (anything else fails)."""
    after = len(client.frames)
    await client.send(t, d)
    reply = await client.expect("reject", lambda r: r["cmd"] == t)
    assert not any(f["t"] in ("t_created", "t_registered") for f in client.frames[after:])
    return reply


# ---------------------------------------------------------------------- withdrawing

async def test_a_withdrawn_players_next_move_is_refused_and_their_connection_stays(
        redis_server: RedisServer, servers: Servers, clients: Clients) -> None:
    """Regression: withdrawing takes the player out of the round's race (status
    left, the seat no longer held), but their connection still sat in the
    room; its next move was answered by closing it with 4000 ("the seat was
    opened by another connection": do not reconnect) instead of not_playing."""
    (a,) = fast(servers, redis_server, "a")
    org = Organizer(await clients(a, "org"))
    await org.create("Withdrawals", codes=CODES[:1], time_limit=TIME_LIMIT)
    ann, bob = [Entrant(await clients(a, name), name) for name in ("ann", "bob")]
    for e in (ann, bob):
        await e.register(org.id)
    room = await org.start(1)
    for e in (ann, bob):
        await e.enter(room, CODES[0])
    await ann.play(SCRIPTS[0][:5])
    await ann.client.send("t_withdraw", {"id": org.id, "token": ann.token})
    await t_seen(ann.client, "withdrawn")
    refusal = await ann.client.move(SCRIPTS[0][5])
    assert refusal["t"] == "reject" and refusal["d"]["code"] == "not_playing", refusal
    resign = await ann.client.command("resign")
    assert resign["t"] == "reject" and resign["d"]["code"] == "not_playing", resign
    await ann.client.send("ping")
    await ann.client.expect("pong")
    await bob.resign()
    ended = await t_seen(ann.client, "round_ended", 1)  # still following the tournament
    assert ann.client.close_code is None
    lines = {e["nickname"]: e for e in ended["tournament"]["rounds"][0]["results"]}
    assert lines["ann"]["status"] == "left" and lines["ann"]["moves"] == 5
    assert ann.racer is not None and line_stats(lines["ann"]) == stats(ann.racer.game)
