"""The move script's cap on a seat's log (real Redis): the check is in the
script, where the command is stored, so no process can store past it."""

from __future__ import annotations

from collections.abc import AsyncIterator

import orjson
import pytest
from harness import RedisServer
from store_support import new_room, room_id

from server.store import SeatCommand, Store, keys


@pytest.fixture
async def store(redis_server: RedisServer) -> AsyncIterator[Store]:
    s = await Store.open(redis_server.url, lanes=1)
    yield s
    await s.close()


async def test_the_move_script_stores_no_command_past_the_seats_limit(store: Store) -> None:
    rid = room_id()
    room = await new_room(store, rid)
    data = await store.rooms.load(rid)
    assert data is not None
    assert (await store.rooms.commit(room, data.rv, [], store.rooms.changes(rid).start_race(1, [0])
                               .expire(600_000, 1, [0]))).ok
    assert await store.seats.attach(rid, 0, "c1", None)

    async def play(ver: int, limit: int, command: str = "draw") -> str:
        applied = await store.seats.apply(rid, SeatCommand(
            race=1, seat=0, conn="c1", ver=ver, seq=ver + 1, command=command, snap=b"",
            line=orjson.dumps({"seat": 0}), done=False, limit=limit), b'"kind":"x"}')
        return applied.status

    assert await play(0, 2) == "ok"
    assert await play(1, 2) == "ok"
    assert await play(2, 2) == "full"  # nothing written: the log and the seat as they were
    assert await play(2, 3, "resign") == "ok"
    assert await store.seats.log_length(rid, 1, 0) == 3
    assert [c for _, c in await store.seats.log(rid, 1, 0)] == ["draw", "draw", "resign"]
    assert await store.seats.log(rid, 1, 0, 1, 1) == [(2, "draw")]
    seat = await store.call("HGET", keys.seat(rid, 1, 0), "ver")
    assert int(seat) == 3
