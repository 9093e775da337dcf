"""The server on a Redis Cluster (3 masters, 3 replicas, made by the test with
``redis-cli --cluster create``), with real processes: a race across two
server processes with rooms on different masters, a big room and
tournaments (small and big) across both, the slot of a live room migrated
mid-race, and a master killed mid-race under ``--durability replica`` (its
replica promoted, the players carry on, no acknowledged move lost). Each
server is given one node only: a master for one, a replica for the other."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from harness import Client, RedisCluster, ServerProcess, Servers, eventually
from support.play import (
    CODE,
    FAST,
    SCRIPT,
    Opener,
    acked,
    line,
    log_of,
    play,
    play_through,
    seen,
    start_race,
    stored_log,
    two_racing,
    view_after,
    watch,
)
from support.player import identify
from support.tournament import Entrant, Organizer, results, t_seen

from server.store import keys
from server.store.slots import slot

pytestmark = pytest.mark.slow


def on_cluster(servers: Servers, cluster: RedisCluster, node: int, name: str,
               *args: str) -> ServerProcess:
    """A server given the URL of the cluster's ``node``-th node only."""
    return servers.start(cluster.nodes[node].url, env=FAST, args=["--redis-cluster", *args],
                         name=name)


def a_replica(cluster: RedisCluster) -> int:
    return next(i for i, n in enumerate(cluster.nodes)
                if cluster.info(n, "replication").get("role") == "slave")


async def ended_the_same(clients: list[Client]) -> list[tuple[str, str, int]]:
    results = []
    for client in clients:
        ended = await client.event("ended", timeout=20)
        assert ended["room"]["code"] == CODE
        results.append([(e["nickname"], e["status"], e["rank"]) for e in ended["room"]["results"]])
    assert all(r == results[0] for r in results), results
    return results[0]


async def test_a_race_across_two_processes_with_rooms_on_different_masters(
        redis_cluster: RedisCluster, servers: Servers, clients: Opener) -> None:
    a = on_cluster(servers, redis_cluster, 0, "a")
    b = on_cluster(servers, redis_cluster, a_replica(redis_cluster), "b")
    ann, bob = await clients(a, "ann"), await clients(a, "bob")
    cat, dan, eve = await clients(b, "cat"), await clients(b, "dan"), await clients(b, "eve")
    room = await start_race(ann, [bob, cat, dan])  # four players, two on each process
    await watch(eve, room)
    first_master = redis_cluster.master_of(room)

    # a second room, on another master (room ids are the server's: ask again until then)
    fay, gus = await clients(b, "fay"), await clients(a, "gus")
    for _ in range(30):
        other = (await fay.create("fay", code=CODE))["room"]
        if redis_cluster.master_of(other) is not first_master:
            break
        await fay.send("leave")
        await fay.expect("left")
    else:
        raise AssertionError("every room landed on one master")
    await gus.join(other, "gus")
    await gus.send("ready", {"ready": True})
    await fay.expect("event", lambda d: d["kind"] == "ready")
    await fay.send("start")
    for player in (fay, gus):
        assert (await player.expect("board"))["view"] == view_after([])

    cuts = {"bob": 40, "cat": 25, "dan": 10, "fay": 30, "gus": 15}
    await asyncio.gather(play(ann, SCRIPT), *(play(p, SCRIPT[:cuts[p.name]])
                                              for p in (bob, cat, dan, fay, gus)))
    await eventually(lambda: seen(eve, "lb", lambda d: [line(d["entries"], s).get("moves")
                                                         for s in range(4)]
                                  == [view_after(m)["moves"] for m in
                                      (SCRIPT, SCRIPT[:40], SCRIPT[:25], SCRIPT[:10])]),
                     what="the spectator's leaderboard, players of both processes in it")
    for p in (bob, cat, dan, fay, gus):
        assert (await p.command("resign"))["t"] == "ack"
    assert (await ended_the_same([ann, bob, cat, dan, eve]))[0] == ("ann", "finished", 1)
    assert [n for n, _, _ in await ended_the_same([fay, gus])] == ["fay", "gus"]
    assert redis_cluster.master_of(other) is not first_master
    assert stored_log(first_master.url, room, 0) == log_of(SCRIPT)
    assert stored_log(first_master.url, room, 2) == [*log_of(SCRIPT[:25]), "26 resign"]
    assert stored_log(redis_cluster.master_of(other).url, other, 1) == (
        [*log_of(SCRIPT[:15]), "16 resign"])


async def test_a_big_room_and_tournaments_small_and_big_across_two_processes(
        redis_cluster: RedisCluster, servers: Servers, clients: Opener) -> None:
    """Every kind of document on the cluster: a big room's race (its ranking,
    ticks and seats in their own keys), and a round of a small and of a big
    tournament, each with its players on both processes (each tournament's
    keys and its round's room in different slots)."""
    a = on_cluster(servers, redis_cluster, 0, "a")
    b = on_cluster(servers, redis_cluster, a_replica(redis_cluster), "b")
    ann, bob, cat = await clients(a, "ann"), await clients(b, "bob"), await clients(b, "cat")
    room = (await ann.create("ann", code=CODE, max_players=40))["room"]
    await bob.join(room, "bob")
    await cat.join(room, "cat")
    await ann.send("start")
    for player in (ann, bob, cat):
        assert (await player.expect("board", timeout=20))["view"] == view_after([])
    await asyncio.gather(play(ann, SCRIPT), play(bob, SCRIPT[:20]), play(cat, SCRIPT[:5]))
    for player in (bob, cat):
        assert (await player.command("resign"))["t"] == "ack"
    assert (await ended_the_same([ann, bob, cat]))[0] == ("ann", "finished", 1)
    master = redis_cluster.master_of(room)
    assert stored_log(master.url, room, 1) == [*log_of(SCRIPT[:20]), "21 resign"]

    for size in (8, 40):  # a small tournament, then a big one
        org = Organizer(await clients(a, f"org{size}"))
        await org.create(f"Cluster {size}", codes=[CODE], time_limit=600, max_players=size)
        dan = Entrant(await clients(a, f"dan{size}"), "dan")
        eve = Entrant(await clients(b, f"eve{size}"), "eve")
        for entrant in (dan, eve):
            await entrant.register(org.id)
        round_room = await org.start(1)
        for entrant in (dan, eve):
            await entrant.enter(round_room, CODE)
        await dan.play(SCRIPT[:12])
        await eve.play(SCRIPT[:6])
        for entrant in (dan, eve):
            await entrant.resign()
        ended = await t_seen(org.client, "round_ended", 1, timeout=20)
        assert ended["tournament"]["rounds"][0]["status"] == "ended"
        standings = (await results(b, org.id))["standings"]
        assert [line["nickname"] for line in standings] == ["dan", "eve"], standings


async def test_a_live_rooms_slot_migrated_mid_race_loses_nothing(
        redis_cluster: RedisCluster, servers: Servers, clients: Opener) -> None:
    a = on_cluster(servers, redis_cluster, 0, "a")
    b = on_cluster(servers, redis_cluster, 1, "b")
    ann, bob, cat, room = await two_racing(clients, a, b, a, bob_moves=10)
    source = redis_cluster.master_of(room)
    target = next(m for m in redis_cluster.masters() if m is not source)
    loop = asyncio.get_running_loop()

    def moves_during_handover() -> None:  # every key on the target, the slot still the source's
        asyncio.run_coroutine_threadsafe(
            ann.send("move", {"s": 21, "m": SCRIPT[20]}), loop).result(10)

    async def migrate() -> None:
        await play_through(ann, SCRIPT[10:20], first_seq=11)
        await asyncio.to_thread(redis_cluster.migrate_slot, slot(room), target,
                                before_handover=moves_during_handover)

    # bob plays all along on the other process; ann until the migration, one
    # move of hers sent in the middle of it, then on
    await asyncio.gather(play_through(bob, SCRIPT[10:60], first_seq=11), migrate())
    assert redis_cluster.master_of(room) is target
    await play_through(ann, SCRIPT[20:50], first_seq=21)  # 21 again: acked once, at most
    assert sorted(acked(ann)) == list(range(1, 51))
    assert stored_log(target.url, room, 0) == log_of(SCRIPT[:50])
    assert stored_log(target.url, room, 1) == log_of(SCRIPT[:60])
    await eventually(lambda: seen(cat, "lb", lambda d: line(d["entries"], 0).get("moves")
                                  == view_after(SCRIPT[:50])["moves"]
                                  and line(d["entries"], 1).get("moves")
                                  == view_after(SCRIPT[:60])["moves"]),
                     what="the spectator's leaderboard after the migration")
    await eventually(lambda: seen(ann, "lb", lambda d: line(d["entries"], 1).get("moves")
                                  == view_after(SCRIPT[:60])["moves"]),
                     what="bob's moves reach ann's process after the migration")
    assert (await ann.command("resign"))["t"] == "ack"
    assert (await bob.command("resign"))["t"] == "ack"
    await ended_the_same([ann, bob, cat])


async def test_a_master_killed_mid_race_loses_no_acked_move_under_replica_durability(
        own_redis_cluster: RedisCluster, servers: Servers, clients: Opener) -> None:
    cluster = own_redis_cluster
    a = on_cluster(servers, cluster, 0, "a", "--durability", "replica")
    b = on_cluster(servers, cluster, 1, "b", "--durability", "replica")
    ann, bob, cat, room = await two_racing(clients, a, b, b, bob_moves=10)
    master = cluster.master_of(room)
    before: dict[str, Any] = {}

    async def kill() -> None:
        await eventually(lambda: len(acked(ann)) >= 15, what="ann well into her moves")
        before["ann"], before["bob"] = dict(acked(ann)), dict(acked(bob))
        before["promoted"] = await asyncio.to_thread(cluster.kill_master, master)
        await asyncio.to_thread(cluster.restart, master)  # back, as its replica's replica

    await asyncio.gather(play_through(ann, SCRIPT[10:40], first_seq=11, timeout=90),
                         play_through(bob, SCRIPT[10:30], first_seq=11, timeout=90), kill())
    promoted = before["promoted"]
    assert cluster.master_of(room) is promoted
    # everything acknowledged before the kill, and after, is in the promoted replica
    ann_log, bob_log = stored_log(promoted.url, room, 0), stored_log(promoted.url, room, 1)
    assert ann_log == log_of(SCRIPT[:40]) and bob_log == log_of(SCRIPT[:30])
    assert set(before["ann"]) <= set(range(1, 41)) and set(before["bob"]) <= set(range(1, 31))
    assert (await play(ann, SCRIPT[40:]))["state"] == "won"
    assert (await bob.command("resign"))["t"] == "ack"
    assert (await ended_the_same([ann, bob, cat]))[0] == ("ann", "finished", 1)


async def test_winnable_deals_and_solver_statuses_on_a_cluster(
        redis_cluster: RedisCluster, servers: Servers, clients: Opener) -> None:
    """The winnable sets live on their own slots (one per mode): refilled,
    taken and dealt through single-key commands routed by the cluster; a
    solver status's notice reaches a spectator on the other process."""
    a = on_cluster(servers, redis_cluster, 0, "a", "--winnable-pool", "0")
    b = on_cluster(servers, redis_cluster, a_replica(redis_cluster), "b", "--winnable-pool", "2",
                   "--winnable-modes", "D1N")
    pool = keys.winnable("D1N")
    master = redis_cluster.master_of(pool)
    await eventually(lambda: redis_cluster.ask(master, "SCARD", pool) >= 2, timeout=60,
                     what="two winnable D1N codes on the cluster")
    ann, ada = await clients(a, "ann"), await clients(b, "ada")  # ann's process refills none
    joined = await ann.create("ann", deal="winnable", draw=1, scoring="N", assists="solver",
                              boards="live")
    await ann.send("start")
    await ann.expect("board")
    assert (await ann.expect("status"))["winnable"] == "yes"
    await ada.send("watch", {"room": joined["room"], "since": 0})
    await ada.expect("watching")
    await ada.expect("boards")
    assert (await ann.move("draw"))["t"] == "ack"  # its status: in the ack's board, or a notice
    await eventually(lambda: any(
        f["t"] == "boards" and f["d"]["boards"].get("0", {}).get("winnable") == "yes"
        for f in ada.frames), timeout=30, what="the status on the other process's spectator")
    assert (await ann.command("resign"))["t"] == "ack"
    code = (await ann.event("ended"))["code"]
    assert code.startswith("KL2-D1N-") and len(code) == 21
    assert not redis_cluster.ask(master, "SISMEMBER", pool, code)  # dealt once


async def test_a_spectator_on_another_process_sees_a_lobby_room_start(
        redis_cluster: RedisCluster, servers: Servers, clients: Opener) -> None:
    """Regression: the watching process's first channel on the room's node was
    subscribed only once its connection was up, after the hub had loaded the
    room, and the start published in between never reached the spectator."""
    a = on_cluster(servers, redis_cluster, 0, "a")
    b = on_cluster(servers, redis_cluster, a_replica(redis_cluster), "b")
    for n in range(3):  # rooms on different slots: a fresh hub (and channel) on b each time
        ann, ada = await clients(a, f"ann{n}"), await clients(b, f"ada{n}")
        joined = await ann.create(f"ann{n}")
        await ada.send("watch", {"room": joined["room"], "since": 0})
        await ada.expect("sync")
        await ann.send("start")
        start = await ada.event("start")
        assert start["room"]["phase"] in ("countdown", "racing")


async def test_players_on_a_cluster_a_key_a_race_a_device_move_and_forgetting(
        redis_cluster: RedisCluster, servers: Servers, clients: Opener) -> None:
    """A player's keys live on their id's slot, a key's index on its
    digest's: identify, the results a race's end records, a device move and
    forgetting each reach the masters they need, from either process."""
    a = on_cluster(servers, redis_cluster, 0, "a")
    b = on_cluster(servers, redis_cluster, a_replica(redis_cluster), "b")
    ann, bob = await clients(a, "ann"), await clients(b, "bob")
    await ann.send("identify", {"nickname": "ann"})
    me = await ann.expect("player")
    room = await start_race(ann, [bob])
    assert (await ann.command("resign"))["t"] == "ack"
    await play(bob, SCRIPT)
    await bob.event("ended", timeout=20)

    phone = await clients(b, "ann's phone")
    await ann.send("p_move")
    code = (await ann.expect("p_move"))["code"]
    await phone.send("p_claim", {"code": code})
    assert (await phone.expect("player"))["id"] == me["id"]

    async def recorded() -> list[dict[str, Any]]:
        await phone.send("p_history", {})
        return list((await phone.expect("p_history"))["results"])

    [r] = await eventually(recorded, timeout=20)
    assert (r["room"], r["code"], r["place"], r["of"]) == (room, CODE, 2, 2)
    await phone.send("p_forget")
    await phone.expect("p_forgotten")
    await ann.send("identify", {"key": me["key"]})
    assert (await ann.expect("reject"))["code"] == "unknown_player"


async def test_public_rooms_and_quick_races_on_a_cluster(
        redis_cluster: RedisCluster, servers: Servers, clients: Opener) -> None:
    """The list's keys and each quick race's key are slots of their own: a
    public room is listed across two processes and leaves the list when its
    race ends, and two quick players on two processes share a room."""
    proxied = ("--proxy-header", "X-Forwarded-For")  # a quick race: one seat per address
    a = on_cluster(servers, redis_cluster, 0, "a", "--lobby-interval", "0.2",
                   "--quick-wait", "1", *proxied)
    b = on_cluster(servers, redis_cluster, a_replica(redis_cluster), "b", "--lobby-interval",
                   "0.2", "--quick-wait", "1", *proxied)
    looker = await clients(b, "looker")
    await looker.send("lobby", {"on": True})
    ann = await clients(a, "ann")
    await ann.create("ann", public=True, max_players=2)

    def listed() -> set[str]:
        lists = [f["d"]["rooms"] for f in looker.frames if f["t"] == "rooms"]
        return {r["id"] for r in lists[-1]} if lists else set()

    await eventually(lambda: ann.room in listed(), what="the public room listed on b")
    bob = await clients(b, "bob")
    await bob.join(ann.room, "bob")
    await bob.send("ready", {"ready": True})
    await ann.expect("event", lambda d: d["kind"] == "ready")
    await ann.send("start")
    for racer in (ann, bob):
        await racer.expect("board")
        assert (await racer.command("resign"))["t"] == "ack"
    await ann.expect("event", lambda d: d["kind"] == "ended")
    await eventually(lambda: ann.room not in listed(), what="off the list once ended")

    cat, dan = await clients(a, "cat", "198.51.100.1"), await clients(b, "dan", "198.51.100.2")
    await asyncio.gather(identify(cat), identify(dan))  # a quick race is rated: keys
    await asyncio.gather(cat.send("quick", {"nickname": "cat", "draw": 3}),
                         dan.send("quick", {"nickname": "dan", "draw": 3}))
    cat_in, dan_in = await asyncio.gather(cat._joined(), dan._joined())
    assert cat_in["room"] == dan_in["room"]
    await cat.expect("event", lambda d: d["kind"] == "start")
    for racer in (cat, dan):  # its ratings: the players' slots, the room's, the top list's
        await racer.expect("board")
        assert (await racer.command("resign"))["t"] == "ack"
    rated = await cat.expect("event", lambda d: d["kind"] == "rated")
    assert sorted(rated["ratings"]) == ["0", "1"]
