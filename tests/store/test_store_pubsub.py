"""Subscriptions (real Redis, one and a cluster): ``subscribe`` returns only
once Redis has confirmed it, so a message published right after it is
received, even by a subscriber whose connection is still being made (a
node's first channel on a cluster). Regression: it returned before asking
Redis, so a hub loading a room missed the events published meanwhile (a
spectator on another process never saw the race start)."""

from __future__ import annotations

import asyncio

from harness import RedisCluster, RedisServer
from store_support import room_id

from server.store import Store


async def subscribe_then_publish(store: Store, node: RedisServer, command: str,
                                 channel: str) -> list[tuple[str, bytes]]:
    got: list[tuple[str, bytes]] = []
    sub = store.subscriber(lambda ch, data: got.append((ch, data)), lambda: None)
    sub.start()  # not yet connected: the subscription goes out with the connection
    try:
        await sub.subscribe(channel)
        r = node.client()
        try:
            assert r.execute_command(command, channel, b"first") == 1, "one subscriber heard it"
        finally:
            r.close()
        async with asyncio.timeout(10):
            while not got:
                await asyncio.sleep(0.01)
        return got
    finally:
        await sub.close()


async def test_a_message_right_after_subscribe_arrives(redis_server: RedisServer) -> None:
    store = await Store.open(redis_server.url, lanes=1)
    try:
        channel = store.room_channel(room_id())
        assert await subscribe_then_publish(store, redis_server, "PUBLISH", channel) == [
            (channel, b"first")]
    finally:
        await store.close()


async def test_a_sharded_message_right_after_subscribe_arrives(redis_cluster: RedisCluster) -> None:
    store = await Store.open(redis_cluster.url, cluster=True, lanes=1)
    try:
        channel = store.room_channel(room_id())
        master = redis_cluster.master_of(channel)
        assert await subscribe_then_publish(store, master, "SPUBLISH", channel) == [
            (channel, b"first")]
    finally:
        await store.close()
