"""server.race.clocks: a live race starts everyone's clock at once; a
challenge is open for its window from its creation and each player's clock
starts when they begin (docs/protocol.md, "Challenges")."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import pytest

from server.protocol import Reason
from server.race import RaceError, Room, Settings
from server.race.clocks import own_end

CODE = "KL1-D1N-AAAAAAG"


def challenge(**settings: int) -> Room:
    return Room.create("ROOMC", Settings(window=600, **settings), CODE, "ann", "tok-a", now=1000)


@contextlib.contextmanager
def refused(reason: Reason) -> Iterator[None]:
    """The block is refused with ``reason``."""
    with pytest.raises(RaceError) as info:
        yield
    assert info.value.reason is reason, info.value


def test_a_challenge_is_racing_from_its_creation_until_its_window_closes() -> None:
    room = challenge()
    public = room.public(5000)
    assert public["phase"] == "racing" and public["start_at"] == 1000
    assert public["deadline"] == 601_000 and room.racers == [] and "code" not in public


def test_a_live_race_shows_its_deadline_only_with_a_time_limit() -> None:
    room = Room.create("ROOML", Settings(), CODE, "ann", "tok-a", now=0)
    assert room.public(0)["deadline"] is None and room.phase == "lobby"


def test_a_player_joins_a_challenge_seated_and_begins_on_their_own_clock() -> None:
    room = challenge(time_limit=300)
    joined = room.join("bob", "tok-b", now=2000)
    assert "racing" not in joined and room.racers == []
    began = room.begin(1, now=10_000)
    assert began == {"kind": "began", "seat": 1, "started": 10_000, "ends": 310_000}
    assert room.racers == [1]
    with refused(Reason.NOT_LOBBY):
        room.begin(1, now=11_000)


def test_nobody_starts_a_challenge_for_everyone_nor_schedules_it() -> None:
    room = challenge()
    with refused(Reason.NOT_LOBBY):
        room.start(0, now=2000, countdown_ms=0)
    with refused(Reason.NOT_LOBBY):
        room.schedule(0, 50_000, now=2000)


def test_a_live_races_player_cannot_begin_alone() -> None:
    room = Room.create("ROOML", Settings(), CODE, "ann", "tok-a", now=0)
    with refused(Reason.NOT_LOBBY):
        room.begin(0, now=10)


def test_once_the_window_closes_nobody_joins_or_begins_and_a_rematch_opens_it_again() -> None:
    room = challenge()
    room.join("bob", "tok-b", now=2000)
    with refused(Reason.CLOSED):
        room.begin(1, now=601_000)
    room.end([], now=601_000)
    with refused(Reason.CLOSED):
        room.join("cat", "tok-c", now=601_500)
    room.rematch(0, "KL1-D1N-AAAAAAH", now=700_000)
    assert room.phase == "racing" and room.start_at == 700_000 and room.deadline == 1_300_000
    assert room.begin(1, now=700_001)["ends"] == 1_300_000


@pytest.mark.parametrize(("started", "limit", "ends"), [
    (0, 0, 600_000), (0, 60, 60_000), (590_000, 60, 600_000), (100, 600, 600_000)])
def test_a_game_ends_at_its_time_limit_or_at_the_close_whichever_comes_first(
        started: int, limit: int, ends: int) -> None:
    assert own_end(started, limit, 600_000) == ends
