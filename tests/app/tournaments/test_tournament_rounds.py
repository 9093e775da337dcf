"""A tournament's rounds through the service alone (real Redis, no sockets):
recorded once, whatever dies when (docs/architecture.md, "Tournaments")."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from typing import Any

import pytest
from harness import RedisServer
from tournament_support import tournament_service

from server.app.tournaments.tournament_service import Tournaments
from server.store import Store, keys

CODES = ["KL1-D1V-ABYI5NK", "KL1-D1V-ACT552B"]


@pytest.fixture
async def service(redis_server: RedisServer) -> AsyncIterator[Tournaments]:
    store = await Store.open(redis_server.url)
    yield tournament_service(store, lambda: int(time.time() * 1000))
    await store.close()


@pytest.mark.parametrize("size", [8, 100], ids=["few", "many"])
async def test_a_rounds_recording_lease_is_given_back_before_its_end_is_committed(
        service: Tournaments, size: int) -> None:
    """Regression: the lease of a round's recording was given back after the
    round's end was committed, so a process killed between the two (the end
    announced, its players moving on) held the next recording up for a
    minute: a fresh process finishing a cut-short recording waited it out."""
    t, admin, _ = await service.create("Club", {"codes": CODES, "max_players": size})
    await service.register(t.id, "ann")
    room = (await service.start_round(t.id, admin, None)).rounds[0].room
    assert room is not None
    leases: list[bool] = []
    commit = service.store.tournaments.commit_tournament

    async def watched(tournament: Any, rv: Any, events: Any, **kw: Any) -> Any:
        if any(e["kind"] == "round_ended" for e in events):
            leases.append(bool(await service.store.call("EXISTS", keys.recording(t.id))))
        return await commit(tournament, rv, events, **kw)

    service.store.tournaments.commit_tournament = watched  # type: ignore[method-assign]
    await service.rooms.end_race(room, now_anyway=True)  # ends the race, then records the round
    assert leases == [False]
    assert (await service.load(t.id)).t.rounds[0].status == "ended"
