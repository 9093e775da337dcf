"""Ratings in the store (real Redis): an outcome applied to a player once
whatever the number of calls, a rating moved by another race meanwhile
takes this race's change on top, the top list, the outcome recorded
first-come, forgetting, and the bytes a rated player costs."""

from __future__ import annotations

import itertools
import time

import pytest

from server.race.rating import Rating
from server.race.tokens import hash_token
from server.store import Store, keys

TTL = 3_600_000
_ids = itertools.count()


async def new_player(store: Store) -> str:
    pid = f"P{time.monotonic_ns() % 10**8:08d}{next(_ids)}"
    assert await store.players.create_player(pid, "ann", hash_token(pid), now_ms=1, ttl_ms=TTL)
    return pid


async def test_an_outcome_is_applied_once(store: Store) -> None:
    pid = await new_player(store)
    (before, read), = (await store.ratings.ratings(pid, ["d1"])).values()
    assert (before, read) == (Rating(), "")
    after = Rating(27.5, 8.1, 1)
    first = await store.ratings.apply(pid, "d1", "R/1/0", read=read, after=after, at=5, place=1, of=3)
    again = await store.ratings.apply(pid, "d1", "R/1/0", read=read, after=after, at=5, place=1, of=3)
    assert first is not None and again is not None
    assert (first.applied, again.applied) == (True, False)
    assert first.rating == again.rating == Rating(27.5, 8.1, 1)
    assert first.mu_before == again.mu_before == 25.0
    total, page = await store.ratings.history(pid, 0, 10)
    assert total == 1 and page[0].ref == "R/1/0" and (page[0].place, page[0].of) == (1, 3)
    assert (page[0].mu_before, page[0].mu_after) == (25.0, 27.5)
    assert (await store.ratings.ratings(pid, ["d1", "d3"]))["d3"] == (Rating(), "")


async def test_a_rating_moved_meanwhile_takes_the_change_on_top(store: Store) -> None:
    pid = await new_player(store)
    _, read = (await store.ratings.ratings(pid, ["d3"]))["d3"]
    await store.ratings.apply(pid, "d3", "A/1/0", read=read, after=Rating(27.0, 8.0), at=1, place=1, of=2)
    # computed from the rating before A, applied after A
    got = await store.ratings.apply(pid, "d3", "B/1/0", read=read, after=Rating(24.0, 7.0), at=2,
                                    place=2, of=2)
    assert got is not None and got.applied
    assert got.rating.mu == pytest.approx(26.0) and got.rating.sigma == pytest.approx(8.0 * 7 / (25 / 3))
    assert got.rating.races == 2 and got.mu_before == 27.0


async def test_the_outcome_recorded_first_is_the_one(store: Store) -> None:
    rid = f"R{next(_ids)}"
    assert await store.ratings.recorded(rid, 1) is None
    first = await store.ratings.outcome(rid, 1, {"f": "d1", "n": 1}, ttl_ms=TTL)
    second = await store.ratings.outcome(rid, 1, {"f": "d1", "n": 2}, ttl_ms=TTL)
    assert first == second == {"f": "d1", "n": 1}
    assert 0 < await store.call("PTTL", keys.race_ratings(rid)) <= TTL


async def test_top_list_and_forgetting(store: Store) -> None:
    a, b = await new_player(store), await new_player(store)
    await store.ratings.rank("d9", a, 1600)
    await store.ratings.rank("d9", b, 1700)
    assert await store.ratings.top("d9", 0, 10) == (2, [(b, 1700), (a, 1600)])
    assert await store.ratings.top("d9", 1, 1) == (2, [(a, 1600)])
    await store.ratings.rank("d9", b, None)
    await store.ratings.apply(a, "d9", "R/1/0", read="", after=Rating(26.0, 8.0), at=1, place=1, of=2)
    await store.players.forget_player(a)
    await store.ratings.unrank(["d9"], a)
    assert await store.ratings.top("d9", 0, 10) == (0, [])
    assert await store.call("EXISTS", keys.rating_history(a)) == 0
    assert await store.ratings.apply(a, "d9", "R/2/0", read="", after=Rating(), at=1, place=1, of=2) is None
    assert await store.call("EXISTS", keys.rating_history(a)) == 0


async def test_bytes_per_rated_player(store: Store) -> None:
    """What one rated player with one rated race adds: the profile's field,
    one history entry (a new list) and a top-list line, measured."""
    pid = await new_player(store)
    profile = int(await store.call("MEMORY", "USAGE", keys.player(pid)))
    await store.ratings.apply(pid, "d1", "ABCDEFGHJK/12/3", read="", after=Rating(27.123456789, 8.05),
                              at=1_765_000_000_000, place=2, of=6)
    await store.ratings.rank("d1", pid, 1628)
    grown = int(await store.call("MEMORY", "USAGE", keys.player(pid))) - profile
    field = len("r:d1") + int(await store.call("HSTRLEN", keys.player(pid), "r:d1"))
    history = int(await store.call("MEMORY", "USAGE", keys.rating_history(pid)))
    # The field itself, exactly: "mu sigma races" and its name.
    assert 20 < field < 70, field
    # MEMORY USAGE counts the allocator's size classes: a profile of a few
    # hundred bytes grows by whole classes of 64 B or not at all (0 seen once
    # in CI: the field fitted the slack of the profile's last class), and by
    # 134 B once, in a run where the module's players had longer ids.
    assert 0 <= grown < 200 and 0 < history < 250
