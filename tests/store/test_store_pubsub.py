"""Subscriptions (real Redis, one and a cluster): ``subscribe`` returns only
once Redis has confirmed it, so a message published right after it is
received, even by a subscriber whose connection is still being made (a
node's first channel on a cluster). Regression: it returned before asking
Redis, so a hub loading a room missed the events published meanwhile (a
spectator on another process never saw the race start)."""

from __future__ import annotations

import asyncio

import pytest
from harness import RedisCluster, RedisServer
from store_support import room_id

from server.store import Store, Subscriber


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
        channel = store.rooms.room_channel(room_id())
        assert await subscribe_then_publish(store, redis_server, "PUBLISH", channel) == [
            (channel, b"first")]
    finally:
        await store.close()


async def test_a_sharded_message_right_after_subscribe_arrives(redis_cluster: RedisCluster) -> None:
    store = await Store.open(redis_cluster.url, cluster=True, lanes=1)
    try:
        channel = store.rooms.room_channel(room_id())
        master = redis_cluster.master_of(channel)
        assert await subscribe_then_publish(store, master, "SPUBLISH", channel) == [
            (channel, b"first")]
    finally:
        await store.close()


async def test_the_subscriber_survives_a_failing_handler_and_keeps_delivering(
        redis_server: RedisServer) -> None:
    """Regression (issue 16, probe 11): an exception in the handler of one
    message ended the subscriber loop, and with it every room's events."""
    store = await Store.open(redis_server.url, lanes=1)
    got: list[bytes] = []
    faults: list[str] = []

    def on_message(channel: str, data: bytes) -> None:
        if data == b"bad":
            raise ValueError("a handler that fails")
        got.append(data)

    sub = store.subscriber(on_message, lambda: None, faults.append)
    sub.start()
    try:
        channel = store.rooms.room_channel(room_id())
        await sub.subscribe(channel)
        r = redis_server.client()
        try:
            for data in (b"bad", b"good", b"bad", b"still good"):
                assert r.publish(channel, data) == 1
        finally:
            r.close()
        async with asyncio.timeout(10):
            while len(got) < 2:
                await asyncio.sleep(0.01)
        assert got == [b"good", b"still good"] and faults == ["subscriber", "subscriber"]
    finally:
        await sub.close()
        await store.close()


async def test_the_subscriber_starts_again_after_any_exception_and_resubscribes(
        redis_server: RedisServer, monkeypatch: pytest.MonkeyPatch) -> None:
    """Anything else that fails in the loop (here: reading a message) drops
    the connection and makes a new one: every channel subscribed again, and
    ``on_reconnect`` called, so that the hubs fetch what they missed."""
    store = await Store.open(redis_server.url, lanes=1)
    got: list[bytes] = []
    faults: list[str] = []
    reconnected = asyncio.Event()
    sub = store.subscriber(lambda ch, data: got.append(data), reconnected.set, faults.append)
    assert isinstance(sub, Subscriber)
    dispatch = sub._dispatch

    def fail_once(msg: object) -> None:
        monkeypatch.setattr(sub, "_dispatch", dispatch)
        raise RuntimeError("a bug in the loop")

    sub.start()
    try:
        channel = store.rooms.room_channel(room_id())
        await sub.subscribe(channel)
        monkeypatch.setattr(sub, "_dispatch", fail_once)
        r = redis_server.client()
        try:
            assert r.publish(channel, b"lost") == 1
            async with asyncio.timeout(10):
                await reconnected.wait()
            assert r.publish(channel, b"after") == 1  # (subscribed again: one subscriber)
        finally:
            r.close()
        async with asyncio.timeout(10):
            while not got:
                await asyncio.sleep(0.01)
        assert got == [b"after"] and faults == ["subscriber"]
    finally:
        await sub.close()
        await store.close()
