"""Keys of an earlier version moved once at start (store/migrations.py), on a
Redis of the test's own: the renamed indexes keep their members, scores and
expiry, a key both versions wrote is merged, the KL1 pools are deleted, and a
second run finds nothing to do. Also on a Redis Cluster, shards included."""

from __future__ import annotations

from harness import RedisCluster, RedisServer

from server.store import Store, keys

#: the names of before: the room and tournament prefixes held the indexes
OLD_DUE, OLD_TDUE, OLD_LIVE = "kr:due", "kt:due", "kr:live"
OLD_HELD = "kr:held:{10.0.0.7}:challenge"
OLD_MADE = "kr:made:{10.0.0.7}"
OLD_PUBLIC = ("kr:{pub}:wait", "kr:{pub}:run", "kr:{pub}:who", "kr:{pub}:n")


async def test_an_earlier_versions_keys_are_moved_once(own_redis: RedisServer) -> None:
    r = own_redis.client()
    r.zadd(OLD_DUE, {"ROOM1": 1_000, "ROOM2:3": 2_000})
    r.zadd(OLD_TDUE, {"CUP1": 3_000})
    r.zadd(OLD_LIVE, {"ROOM1": 9_000})
    r.zadd(OLD_HELD, {"ROOM1": 9_000})
    r.pexpire(OLD_HELD, 600_000)
    r.zadd(OLD_MADE, {"x": 1})
    r.zadd(OLD_PUBLIC[0], {"ROOM1": 5})
    r.hset(OLD_PUBLIC[2], "ROOM1", "10.0.0.7")
    r.hset(OLD_PUBLIC[3], "10.0.0.7", 2)
    r.sadd("kw:{D1N}", "KL1-D1N-AAAAAAG")
    r.set("kr:proc:gone", 1, px=60_000)
    r.hset("kr:{ROOM1}:room", "rv", 1)  # a room's own key: not an index, not touched
    # a process of this version already listed a room and counted its address
    r.zadd(keys.PUBLIC_KEYS[0], {"ROOM9": 7})
    r.hset(keys.PUBLIC_KEYS[3], "10.0.0.7", 1)
    # the daily seats an address took: one entry per seat, now a count
    seats = keys.daily_attempts("2026-12-07", "10.0.0.7")
    r.zadd(seats, {"ROOM1:0": 1, "ROOM1:1": 2, "ROOM2:0": 3})
    r.pexpire(seats, 600_000)
    r.set(keys.daily_attempts("2026-12-07", "10.0.0.8"), 2, px=600_000)  # a count already

    store = await Store.open(own_redis.url, lanes=1)
    try:
        assert await store.migrate() == 10
        assert r.get(seats) == b"3" and 0 < r.pttl(seats) <= 600_000
        assert r.get(keys.daily_attempts("2026-12-07", "10.0.0.8")) == b"2"
        assert r.zrange(keys.DUE, 0, -1, withscores=True) == [(b"ROOM1", 1000.0), (b"ROOM2:3", 2000.0)]
        assert r.zrange(keys.TOURNAMENTS_DUE, 0, -1, withscores=True) == [(b"CUP1", 3000.0)]
        assert r.zscore(keys.LIVE_ROOMS, "ROOM1") == 9000
        held = keys.held("10.0.0.7", "challenge")
        assert r.zscore(held, "ROOM1") == 9000 and 0 < r.pttl(held) <= 600_000
        assert r.zcard(keys.creations("10.0.0.7")) == 1
        assert r.zrange(keys.PUBLIC_KEYS[0], 0, -1) == [b"ROOM1", b"ROOM9"]  # merged
        assert r.hget(keys.PUBLIC_KEYS[2], "ROOM1") == b"10.0.0.7"
        assert r.hget(keys.PUBLIC_KEYS[3], "10.0.0.7") == b"3"  # counts added
        for old in (OLD_DUE, OLD_TDUE, OLD_LIVE, OLD_HELD, OLD_MADE, *OLD_PUBLIC, "kw:{D1N}"):
            assert not r.exists(old), old
        assert r.exists("kr:proc:gone") and r.exists("kr:{ROOM1}:room")  # left to expire; a room's own

        # what the store reads now finds what was written before
        assert await store.indexes.claim_due(5_000) == ["ROOM1", "ROOM2:3"]
        assert (await store.lobby.public_page(10, 10)).waiting == [("ROOM9", 7), ("ROOM1", 5)]  # newest first
        assert await store.migrate() == 0
    finally:
        await store.close()
        r.close()


async def test_the_shards_of_a_cluster_are_moved_in_their_slots(redis_cluster: RedisCluster) -> None:
    old_shards = tuple(k.replace(keys.DUE, OLD_DUE, 1) for k in keys.shards(keys.DUE))
    store = await Store.open(redis_cluster.url, cluster=True, lanes=1)
    try:
        for n, old in enumerate(old_shards):
            await store.call("ZADD", old, 100 + n, f"MIGR{n}")
        assert await store.migrate() >= len(old_shards)
        for n, new in enumerate(keys.shards(keys.DUE)):
            assert float(await store.call("ZSCORE", new, f"MIGR{n}")) == 100 + n
            assert not await store.call("EXISTS", old_shards[n])
        await store.call("ZREM", keys.shards(keys.DUE)[0], "MIGR0")
    finally:
        await store.close()
