"""The store on a real Redis Cluster (3 masters, 3 replicas): slots, one round
trip per batch per master, sharded pub/sub from the scripts, and a slot
migrated under the store's feet (ASK, TRYAGAIN, MOVED, the channel re-homed)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest
from harness import RedisCluster, RedisServer, eventually
from store_support import CODE, Counting, bump, new_room, room_id, room_ids_on

from server.store import Store, keys
from server.store.client import RedisClient
from server.store.slots import slot


@pytest.fixture
async def observed(redis_cluster: RedisCluster) -> AsyncIterator[tuple[Store, Counting]]:
    counting = Counting()
    store = await Store.open(redis_cluster.url, cluster=True, lanes=1, observer=counting)
    yield store, counting
    await store.close()


def test_slots_are_the_ones_redis_computes(redis_cluster: RedisCluster) -> None:
    node = redis_cluster.nodes[0]
    names = [keys.room("ABCD2345"), keys.seat("ABCD2345", 3, 7), keys.channel("Z"), "plain",
             "{}", "{}x", "a{b}c{d}", "{a", "a}", "x{}{y}", "é{ü}", *keys.shards(keys.DUE),
             keys.proc("a1b2c3d4"), keys.tournament("F7R7P3H7")]
    for name in names:
        assert slot(name) == int(redis_cluster.ask(node, "CLUSTER", "KEYSLOT", name)), name


async def test_concurrent_commands_take_one_round_trip_per_master(
        redis_cluster: RedisCluster, observed: tuple[Store, Counting]) -> None:
    store, counting = observed
    masters = redis_cluster.masters()
    assert len(masters) == 3
    rooms = {m.addr: room_ids_on(redis_cluster, m, 5) for m in masters}
    for rid in [r for ids in rooms.values() for r in ids]:
        await new_room(store, rid)
        await store.rooms.load(rid)  # the script known to every master (else NOSCRIPT, then EVAL)
    counting.reset()
    every = [r for ids in rooms.values() for r in ids] * 4
    loaded = await asyncio.gather(*(store.rooms.load(rid) for rid in every))
    assert [d.room.id for d in loaded if d is not None] == every
    assert sorted(counting.batches) == [20, 20, 20], "one pipeline per master, each with its rooms"
    assert not counting.redirects


async def test_room_scripts_publish_on_the_shard_of_the_room(
        redis_cluster: RedisCluster, observed: tuple[Store, Counting]) -> None:
    store, _ = observed
    got: list[tuple[str, bytes]] = []
    sub = store.subscriber(lambda ch, data: got.append((ch, data)), lambda: None)
    sub.start()
    try:
        rid = room_id()
        channel = store.rooms.room_channel(rid)
        await sub.subscribe(channel)
        owner = redis_cluster.master_of(rid)
        await eventually(lambda: redis_cluster.ask(owner, "PUBSUB", "SHARDNUMSUB", channel)[1] == 1,
                         what="the shard subscription on the room's master")
        for other in redis_cluster.nodes:  # nothing on the classic (cluster-wide) channels
            assert redis_cluster.ask(other, "PUBSUB", "NUMSUB", channel)[1] == 0
        await new_room(store, rid)
        v = await bump(store, rid)
        await eventually(lambda: len(got) == 2, what="both events")
        assert [ch for ch, _ in got] == [channel, channel]
        assert got[1][1].startswith(b'{"v":%d,' % v)
    finally:
        await sub.close()


async def test_a_slot_migrated_under_the_store_is_followed(
        redis_cluster: RedisCluster, observed: tuple[Store, Counting]) -> None:
    """While a room's slot moves: TRYAGAIN for a script whose keys are not all
    on one node (waited out), ASK for one whose keys all moved, MOVED after
    the handover; the room's channel follows its slot. Nothing written is
    lost and every event arrives."""
    store, counting = observed
    got: list[bytes] = []
    sub = store.subscriber(lambda ch, data: got.append(data), lambda: None)
    sub.start()
    loop = asyncio.get_running_loop()

    async def shard_subscribed(node: RedisServer) -> bool:
        reply = await asyncio.to_thread(redis_cluster.ask, node, "PUBSUB", "SHARDNUMSUB", channel)
        return bool(reply[1] == 1)

    try:
        rid = room_id()
        channel = store.rooms.room_channel(rid)
        s = slot(rid)
        first = redis_cluster.master_of(rid)
        second, third = (m for m in redis_cluster.masters() if m is not first)
        await sub.subscribe(channel)
        await eventually(lambda: shard_subscribed(first), what="subscribed on the room's master")
        await new_room(store, rid)
        v = await bump(store, rid)
        counting.reset()

        # one key moved: a script over the room's keys gets TRYAGAIN (waited
        # out) until the handover, then runs on the new master
        await asyncio.to_thread(redis_cluster.begin_migration, s, second)
        await asyncio.to_thread(redis_cluster.move_keys, first, second, s, [keys.events(rid)])
        pending = asyncio.ensure_future(bump(store, rid))
        await eventually(lambda: counting.redirects["tryagain"] > 0, what="a TRYAGAIN")
        await asyncio.to_thread(redis_cluster.move_keys, first, second, s)
        await asyncio.to_thread(redis_cluster.finish_migration, s, second)
        assert await pending == v + 1
        await eventually(lambda: shard_subscribed(second), what="the channel re-homed")

        # every key of the script already on the target, the slot still the
        # source's: ASK, and the command runs there after ASKING. A store that
        # does not refresh its map by itself (not started) then gets MOVED.
        stale_seen = Counting()
        stale = Store(RedisClient(redis_cluster.url, cluster=True, observer=stale_seen), event_cap=256)
        assert (await stale.rooms.events_since(rid, 0))[0] == v + 1
        asked: list[tuple[int, list[bytes] | None]] = []

        def during_handover() -> None:
            asked.append(asyncio.run_coroutine_threadsafe(
                store.rooms.events_since(rid, 0), loop).result(10))

        await asyncio.to_thread(redis_cluster.migrate_slot, s, third,
                                before_handover=during_handover)
        assert counting.redirects["ask"] >= 1
        [(latest, events)] = asked
        assert latest == v + 1 and events is not None and len(events) == v + 1
        assert redis_cluster.master_of(rid) is third
        try:
            assert (await stale.rooms.events_since(rid, 0))[0] == v + 1
            assert stale_seen.redirects["moved"] == 1
        finally:
            await stale.close()
        assert await bump(store, rid) == v + 2
        data = await store.rooms.load(rid)
        assert data is not None and data.ev == v + 2 and data.room.code == CODE
        await eventually(lambda: shard_subscribed(third), what="the channel re-homed again")
        v_last = await bump(store, rid)
        await eventually(lambda: any(m.startswith(b'{"v":%d,' % v_last) for m in got),
                         what="an event published after the migrations")
    finally:
        await sub.close()


async def test_the_deadline_indexes_are_spread_and_claimed_from_every_shard(
        redis_cluster: RedisCluster, observed: tuple[Store, Counting]) -> None:
    store, _ = observed
    owners = {redis_cluster.master_of(k).addr for k in keys.shards(keys.DUE)}
    assert len(owners) == 3, "the index's shards are on every master"
    rids = [room_id() for _ in range(40)]
    for rid in rids:
        await store.indexes.due_add(rid, 1000)
    assert len({keys.shard_of(r, keys.shards(keys.DUE)) for r in rids}) > 8
    claimed = await store.indexes.claim_due(2000, limit=100)
    assert sorted(set(claimed) & set(rids)) == sorted(rids)
    assert not set(await store.indexes.claim_due(2000, limit=100)) & set(rids), "leased"
    for rid in rids:
        await store.indexes.due_remove(rid)
    # the tournaments' index likewise
    shards = keys.shards(keys.TOURNAMENTS_DUE)
    assert {redis_cluster.master_of(k).addr for k in shards} == owners
    for rid in rids:
        await store.indexes.tournament_due_add(rid, 1000)
    assert sorted(await store.indexes.claim_due_tournaments(2000, limit=100)) == sorted(rids)
    for rid in rids:
        await store.indexes.tournament_due_remove(rid)
    assert await store.indexes.claim_due_tournaments(20_000, limit=100) == []
