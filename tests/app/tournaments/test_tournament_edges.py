"""Tournament edges (issue 10, items 5 and 11): a round's room admits only
the round's players in every phase; after ``t_withdraw`` the socket's
``leave`` works; ``t_start``'s ``at`` is bounded; a registered player who
never came did not play; a round left ``starting`` by a dead process is
opened by any other process's sweeper.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any, Final

import pytest
import redis
from harness import Client, RedisServer, ServerProcess, Servers, load_wins
from support.race import FAST_ARGS, start_fast_server
from support.tournament import (
    Entrant,
    Organizer,
    commit_as_crashed,
    http_get,
    reject_of,
    results,
    results_csv,
    t_seen,
)

from server.app.rooms.ids import round_room_id
from server.store import Store, keys

CODE: Final = "KL1-D1V-ACT552B"
SCRIPT: Final = next(w["script"] for w in load_wins() if w["code"] == CODE)


@pytest.fixture(scope="module")
def server(redis_server: RedisServer, module_servers: Servers
           ) -> ServerProcess:
    return start_fast_server(redis_server, module_servers)


@pytest.fixture
def clients(connect: type[Client]) -> type[Client]:
    """``await clients("name")``: the module's opener (conftest's ``connect``)."""
    return connect


async def tournament(clients: Any, *names: str, codes: list[str] | None = None
                     ) -> tuple[Organizer, list[Entrant]]:
    org = Organizer(await clients("org"))
    await org.create("Edges", codes=codes or [CODE, CODE], time_limit=600)
    entrants = [Entrant(await clients(n), n) for n in names]
    for e in entrants:
        await e.register(org.id)
    return org, entrants


async def test_a_rounds_room_admits_only_its_players_while_racing_and_once_ended(
        clients: Any) -> None:
    org, (ann, bob) = await tournament(clients, "ann", "bob")
    room = await org.start(1)
    await ann.enter(room, CODE)
    stranger = await clients("stranger")
    await stranger.expect("hello")
    for nickname in ("mallory", "ann", "bob"):  # a new name, or a registered player's
        assert (await reject_of(stranger, "join", {"room": room, "nickname": nickname}))[
            "code"] == "round_room"
    await ann.play(SCRIPT)
    await bob.enter(room, CODE)
    await bob.resign()
    await t_seen(org.client, "round_ended", 1)
    # ended: the room was joinable then, and its first joiner became host and could rematch
    for nickname in ("mallory", "ann"):
        assert (await reject_of(stranger, "join", {"room": room, "nickname": nickname}))[
            "code"] == "round_room"
    await stranger.send("watch", {"room": room, "since": 0})  # watching stays open to all
    sync = await stranger.expect("sync")
    assert sync["room"]["host"] == -1
    assert [p["nickname"] for p in sync["room"]["players"]] == ["ann", "bob"]
    # and a player of the round cannot rematch it either
    assert (await reject_of(ann.client, "rematch", {}))["code"] == "round_room"


async def test_after_t_withdraw_the_sockets_leave_and_next_commands_work(clients: Any) -> None:
    """Regression: ``leave`` answered unknown_seat (the withdrawal had taken
    the seat) and every later room command already_in_room."""
    org, (ann, _) = await tournament(clients, "ann", "bob")
    room = await org.start(1)
    await ann.enter(room, CODE)
    await ann.play(SCRIPT[:3])
    await ann.client.send("t_withdraw", {"id": org.id, "token": ann.token})
    await t_seen(ann.client, "withdrawn")
    await ann.client.send("leave")
    assert (await ann.client.expect("left"))["room"] == room
    await ann.client.send("watch", {"room": room, "since": 0})
    await ann.client.expect("watching")
    await ann.client.send("leave")
    await ann.client.expect("left")
    joined = await ann.client.solo(nickname="ann")
    assert joined["role"] == "player"


async def test_t_start_refuses_an_at_beyond_a_week_and_changes_nothing(clients: Any) -> None:
    """Regression: a start in the year 287 912 was taken (and the round
    room's expiry followed it)."""
    org, _ = await tournament(clients, "ann")
    before = await results_of(org)
    for at in (2**53 - 1, int(time.time() * 1000) + 8 * 86_400_000):
        reply = await reject_of(org.client, "t_start", {"id": org.id, "admin": org.admin, "at": at})
        assert reply["code"] == "bad_settings" and "7 days" in reply["msg"], reply
    assert await results_of(org) == before
    soon = int(time.time() * 1000) + 6 * 86_400_000  # within the week: fine
    await org.client.send("t_start", {"id": org.id, "admin": org.admin, "at": soon})
    started = await t_seen(org.client, "round_started", 1)
    assert started["start_at"] == soon


async def results_of(org: Organizer) -> dict[str, Any]:
    await org.client.send("t_standings", {"id": org.id})
    return await org.client.expect("t_standings")


async def test_a_registered_player_who_never_came_did_not_play_the_round(
        clients: Any, server: ServerProcess) -> None:
    """Regression: a player who never connected to the round counted as
    ``played: true``."""
    org, (ann, _, cat) = await tournament(clients, "ann", "bob", "cat", codes=[CODE])
    room = await org.start(1)
    await ann.enter(room, CODE)
    await ann.play(SCRIPT)
    await cat.enter(room, CODE)
    await cat.resign()  # came, and resigned: played
    await org.client.send("t_end", {"id": org.id, "admin": org.admin})
    ended = await t_seen(org.client, "round_ended", 1)
    rounds = {line["nickname"]: line["rounds"][0] for line in ended["tournament"]["standings"]}
    assert rounds["ann"]["played"] and rounds["cat"]["played"]
    assert rounds["bob"] == {"round": 1, "played": False, "vegas": -52, "foundation": 0,
                             "finish_ms": None}
    rows = {r[1]: r for r in await results_csv(server, org.id) if r[2] == "1"}
    assert rows["bob"][4:6] == ["0", "missed"] and rows["cat"][4:6] == ["1", "resigned"]
    assert (await results(server, org.id))["standings"] == ended["tournament"]["standings"]


async def test_a_round_left_starting_by_a_dead_process_is_opened_by_another_processs_sweeper(
        redis_server: RedisServer, servers: Servers) -> None:
    """Regression: a process that died right after committing ``t_start``
    left the round ``starting`` until a player happened to send ``t_resume``
    to a process: now the process that starts a round first puts the
    tournament in the sweepers' index, and any process opens it, with no
    connection to the tournament at all."""
    a = servers.start(redis_server.url, args=FAST_ARGS, name="a")
    org = Organizer(await Client.open(a.ws_url, "org"))
    ann = Entrant(await Client.open(a.ws_url, "ann"), "ann")
    try:
        await org.create("Crash", codes=[CODE])
        await ann.register(org.id)
        room = round_room_id(org.id, 1)
        store = await Store.open(redis_server.url)
        try:  # what the dying process had written: the index, then the starting round
            await store.indexes.tournament_due_add(org.id, int(time.time() * 1000))
        finally:
            await store.close()
        await commit_as_crashed(redis_server.url, org.id, lambda t, now, counts: t.start_round(
            now=now, start_at=now + 500, room_id=room, entrants=counts["players"]))
        a.kill()
        b = servers.start(redis_server.url, args=FAST_ARGS, name="b")  # nobody connects to b
        async with asyncio.timeout(15):
            while True:
                body = (await http_get(b, f"/api/tournaments/{org.id}/results")).json()
                if body["rounds"][0]["status"] == "running":
                    break
                await asyncio.sleep(0.2)
        assert body["rounds"][0]["room"] == room
        player = await Client.open(b.ws_url, "ann on b")
        try:
            joined = await player.resume(room, ann.token)
            assert joined["seat"] == 0
        finally:
            await player.close()
    finally:
        await org.client.close()
        await ann.client.close()


async def test_a_tournament_nobody_registers_for_is_kept_a_day_not_a_month(
        clients: Any, redis_server: RedisServer) -> None:
    """Regression: every tournament was kept 30 days, so empty ones made in
    bulk filled Redis; one nobody joined is kept ``--lobby-ttl`` (a day)."""
    org = Organizer(await clients("org"))
    await org.create("Empty", codes=[CODE])
    r = redis.Redis.from_url(redis_server.url)
    try:
        empty_ttl = r.pttl(keys.tournament(org.id))
        assert 0 < empty_ttl <= 86_400_000
        await Entrant(await clients("ann"), "ann").register(org.id)
        assert r.pttl(keys.tournament(org.id)) > 29 * 86_400_000
    finally:
        r.close()


async def test_two_players_who_tie_after_a_round_are_in_one_order_on_every_page(
        clients: Any, server: ServerProcess) -> None:
    """Regression (issue 25, item 7): bob and cat end round 1 on equal
    dollars and cards, cat with fewer moves and resigned first; the round's
    leaderboard put cat 2nd (fewer moves, then who got there first) and the
    standings bob (registration). A tournament's round breaks ties as its
    standings do: by registration, on the room's results, the tournament's
    round results, its standings and the HTTP results alike."""
    org, (ann, bob, cat) = await tournament(clients, "ann", "bob", "cat", codes=[CODE])
    room = await org.start(1)
    for e in (ann, bob, cat):
        await e.enter(room, CODE)
    await cat.play(["draw"])
    await cat.resign()
    await bob.play(["draw", "draw", "draw"])
    await bob.resign()
    await ann.play(SCRIPT)
    ended = await t_seen(org.client, "round_ended", 1)
    t = ended["tournament"]
    standings = [line["nickname"] for line in t["standings"]]
    round_results = [line["nickname"] for line in t["rounds"][0]["results"]]
    watcher = await clients("watcher")
    await watcher.send("watch", {"room": room, "since": 0})
    await watcher.expect("watching")
    room_results = [line["nickname"] for line in (await watcher.expect("sync"))["room"]["results"]]
    http_standings = [line["nickname"] for line in (await results(server, org.id))["standings"]]
    assert [line["vegas"] for line in t["standings"]][1:] == [-52, -52]  # the tie
    assert standings == round_results == room_results == http_standings == ["ann", "bob", "cat"]
    assert [line["rank"] for line in t["rounds"][0]["results"]] == [1, 2, 3]
