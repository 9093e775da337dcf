"""What an ack means, at the store: ``--durability replica`` waits for a
replica once per batch and refuses what no replica confirmed; ``fsync`` and
``replica`` check that Redis can keep their promise (real redis-servers)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
from harness import RedisServer, eventually, wait_until
from store_support import Counting

from server.store import Store, StoreUnavailable


def confirmed(primary: RedisServer) -> bool:
    """The replica acknowledges writes (its link up is not enough: it may still
    be busy with its first append-only file)."""
    r = primary.client()
    try:
        r.set("probe", 1)
        return bool(r.execute_command("WAIT", 1, 200) == 1)
    finally:
        r.close()


def link_up(replica: RedisServer) -> bool:
    r = replica.client()
    try:
        return bool(r.info("replication").get("master_link_status") == "up")
    except OSError:
        return False
    finally:
        r.close()


def calls(server: RedisServer, command: str) -> int:
    r = server.client()
    try:
        return int(r.info("commandstats").get(f"cmdstat_{command}", {}).get("calls", 0))
    finally:
        r.close()


def reset_stats(server: RedisServer) -> None:
    r = server.client()
    try:
        r.config_resetstat()
    finally:
        r.close()


@pytest.fixture
def pair(tmp_path: Path) -> Iterator[tuple[RedisServer, RedisServer]]:
    """A Redis and its replica."""
    primary = RedisServer(tmp_path / "primary").start()
    replica = RedisServer(tmp_path / "replica", args=["--replicaof", "127.0.0.1", str(primary.port)])
    try:
        replica.start()
        wait_until(lambda: link_up(replica) and confirmed(primary), timeout=30,
                   what="the replica to sync and confirm")
        yield primary, replica
    finally:
        replica.stop()
        primary.stop()


@pytest.fixture
async def replica_store(pair: tuple[RedisServer, RedisServer]) -> AsyncIterator[tuple[Store, Counting]]:
    counting = Counting()
    store = await Store.open(pair[0].url, durability="replica", lanes=1, observer=counting,
                             replica_timeout_ms=3000)  # (a busy machine is slow to confirm)
    yield store, counting
    await store.close()


async def test_replica_durability_waits_once_per_batch(
        pair: tuple[RedisServer, RedisServer], replica_store: tuple[Store, Counting]) -> None:
    primary, replica = pair
    store, counting = replica_store
    await store.call("SET", "warm", 1)
    reset_stats(primary)
    counting.reset()
    names = [f"k:{i}" for i in range(50)]
    assert await asyncio.gather(*(store.call("SET", n, i) for i, n in enumerate(names))) == [b"OK"] * 50
    assert counting.batches == [50]
    assert calls(primary, "set") == 50 and calls(primary, "wait") == 1, "one WAIT for the batch"
    r = replica.client()
    try:
        assert r.mget(names) == [str(i).encode() for i in range(50)], "confirmed: on the replica"
    finally:
        r.close()


async def test_a_write_no_replica_confirmed_is_refused_until_one_does(
        pair: tuple[RedisServer, RedisServer], replica_store: tuple[Store, Counting]) -> None:
    primary, replica = pair
    store, counting = replica_store
    await store.call("SET", "before", 1)
    replica.kill()
    with pytest.raises(StoreUnavailable, match="not confirmed by a replica"):
        await store.call("SET", "lonely", 1)
    assert counting.unconfirmed == 1
    # the write is on the primary alone: a resend must not be acknowledged
    # from it before a replica has it
    with pytest.raises(StoreUnavailable, match="not confirmed by a replica"):
        await store.call("GET", "lonely")
    replica.start()
    await eventually(lambda: link_up(replica) and confirmed(primary), timeout=30,
                     what="the replica back in sync")
    reset_stats(primary)
    assert await store.call("GET", "lonely") == b"1"
    assert calls(primary, "publish") == 1, "the first batch after the doubt is ordered after it"
    assert await store.call("GET", "before") == b"1"
    assert calls(primary, "publish") == 1 and calls(primary, "wait") == 2


async def test_durability_checks_name_what_redis_lacks(tmp_path: Path) -> None:
    lax = RedisServer(tmp_path / "lax").start()
    strict = RedisServer(tmp_path / "strict", appendfsync="always").start()
    try:
        stores = {name: await Store.open(url, durability=mode) for name, url, mode in (
            ("lax-fsync", lax.url, "fsync"), ("strict-fsync", strict.url, "fsync"),
            ("lax-replica", lax.url, "replica"), ("lax-os", lax.url, "os"))}
        try:
            [problem] = await stores["lax-fsync"].redis.durability_problems() or ["none"]
            assert "appendfsync everysec" in problem and "appendfsync always" in problem
            assert await stores["strict-fsync"].redis.durability_problems() == []
            [problem] = await stores["lax-replica"].redis.durability_problems() or ["none"]
            assert "no replica" in problem
            assert await stores["lax-os"].redis.durability_problems() == []
        finally:
            for store in stores.values():
                await store.close()
        lax.stop()
        down = await Store.open(lax.url, durability="fsync", timeout=1.0)
        try:
            assert await down.redis.durability_problems() is None, "unreachable: not checked"
        finally:
            await down.close()
    finally:
        lax.stop()
        strict.stop()
