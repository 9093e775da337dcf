"""Helpers for the store's tests: rooms written straight through the Store,
room ids chosen by the master they land on, and an observer that counts what
the store reports."""

from __future__ import annotations

import itertools
import time
from collections import Counter

from harness import RedisCluster, RedisServer

from server.race import Room
from server.race.settings import Settings
from server.store import Store

CODE = "KL1-D1N-AAAAAAG"
_ids = itertools.count()


class Counting:
    """A store observer that keeps what it was told."""

    def __init__(self) -> None:
        self.batches: list[int] = []
        self.redirects: Counter[str] = Counter()
        self.unconfirmed = 0
        self.troubles: Counter[str] = Counter()  # commands refused, by kind of trouble

    def redis_batch(self, size: int, seconds: float) -> None:
        self.batches.append(size)

    def redis_redirect(self, kind: str) -> None:
        self.redirects[kind] += 1

    def replica_unconfirmed(self) -> None:
        self.unconfirmed += 1

    def redis_trouble(self, kind: str, error: str, commands: int) -> None:
        self.troubles[kind] += commands

    def reset(self) -> None:
        self.batches.clear()
        self.redirects.clear()
        self.unconfirmed = 0
        self.troubles.clear()


def room_id() -> str:
    """A fresh room id (tests share Redis: each uses its own rooms)."""
    return f"T{time.monotonic_ns() % 10**9:09d}{next(_ids)}"


def room_ids_on(cluster: RedisCluster, master: RedisServer, count: int) -> list[str]:
    """``count`` fresh room ids whose slot is on ``master``."""
    out: list[str] = []
    while len(out) < count:
        rid = room_id()
        if cluster.master_of(rid) is master:
            out.append(rid)
    return out


async def new_room(store: Store, rid: str) -> Room:
    """A lobby room with one player, committed with its 'created' event."""
    now = int(time.time() * 1000)
    room = Room.create(rid, Settings(code=CODE), CODE, "ann", f"tok-{rid}", now=now)
    committed = await store.rooms.commit(room, None, [{"kind": "created", "seat": 0, "at": now}],
                                   store.rooms.changes(rid).expire(600_000))
    assert committed.ok
    return room


async def bump(store: Store, rid: str, kind: str = "ready") -> int:
    """One more event in a room (a commit of the same state); its version."""
    data = await store.rooms.load(rid)
    assert data is not None
    committed = await store.rooms.commit(data.room, data.rv, [{"kind": kind, "at": 0}])
    assert committed.ok
    return committed.v
