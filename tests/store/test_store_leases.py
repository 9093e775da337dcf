"""The lease of a big tournament's recording (real Redis): one holder at a
time, and a holder whose lease ran out cannot give back the next one's."""

from __future__ import annotations

import asyncio

from store_support import room_id

from server.store import Store


async def test_one_holder_at_a_time(store: Store) -> None:
    t = room_id()
    assert await store.tournaments.lease_recording(t, "a", 10_000)
    assert not await store.tournaments.lease_recording(t, "b", 10_000)
    assert await store.tournaments.release_recording(t, "a")
    assert await store.tournaments.lease_recording(t, "b", 10_000)


async def test_a_lapsed_holder_leaves_the_next_ones_lease_alone(store: Store) -> None:
    t = room_id()
    assert await store.tournaments.lease_recording(t, "slow", 50)
    while not await store.tournaments.lease_recording(t, "next", 10_000):  # the slow one's lease runs out
        await asyncio.sleep(0.02)
    assert not await store.tournaments.release_recording(t, "slow")
    assert not await store.tournaments.lease_recording(t, "third", 10_000), "the next holder still holds it"
    assert await store.tournaments.release_recording(t, "next")
