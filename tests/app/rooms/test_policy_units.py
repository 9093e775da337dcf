"""A room's policy alone (server/app/rooms/policy.py, .starts): which policy
a room's settings give it, and what a live race and a challenge do
differently, with no socket, process or Redis. (tests/app/rooms/test_big_room.py,
test_challenge.py drive the same through real processes.)"""

from __future__ import annotations

from dataclasses import fields
from typing import Any

import pytest

from server.app.rooms.document_seats import DocumentSeats
from server.app.rooms.hashed_seats import HashedSeats
from server.app.rooms.live_board import LiveBoard
from server.app.rooms.policy import FEW, FEW_CHALLENGE, MANY, MANY_CHALLENGE, policy_for
from server.app.rooms.room_config import RoomConfig
from server.app.rooms.starts import CHALLENGE, RACE
from server.app.rooms.ticker import Ticker
from server.race import RaceError, Settings
from server.race.ghosts import decode
from server.race.ranking import rank_score
from server.race.seating import COUNTED, LISTED
from server.race.settings import SMALL_ROOM


def config(**given: int) -> RoomConfig:
    values: dict[str, Any] = {f.name: 0 for f in fields(RoomConfig)}
    return RoomConfig(**{**values, **given})


@pytest.mark.parametrize(("settings", "policy"), [
    (Settings(), FEW),
    (Settings(max_players=SMALL_ROOM), FEW),
    (Settings(max_players=SMALL_ROOM + 1), MANY),
    (Settings(window=3600), FEW_CHALLENGE),
    (Settings(max_players=SMALL_ROOM, window=3600), FEW_CHALLENGE),
    (Settings(max_players=SMALL_ROOM + 1, window=3600), MANY_CHALLENGE),
])
def test_a_room_of_up_to_16_seats_is_few_beyond_many_and_a_window_makes_it_a_challenge(
        settings: Settings, policy: Any) -> None:
    assert policy_for(settings) is policy


def test_a_few_keeps_its_seats_in_its_document_and_many_in_hashes_with_a_ticked_board() -> None:
    for few in (FEW, FEW_CHALLENGE):
        assert few.seating is LISTED and isinstance(few.seats, DocumentSeats)
        assert few.board is LiveBoard
    for many in (MANY, MANY_CHALLENGE):
        assert many.seating is COUNTED and isinstance(many.seats, HashedSeats)
        assert many.board is Ticker
    assert FEW.start is RACE and MANY.start is RACE
    assert FEW_CHALLENGE.start is CHALLENGE and MANY_CHALLENGE.start is CHALLENGE


def test_a_race_ends_when_everyone_is_done_a_challenge_only_when_its_window_closes() -> None:
    assert RACE.ends_when_done and not CHALLENGE.ends_when_done
    assert not RACE.hides_running and CHALLENGE.hides_running
    assert not RACE.replays_to_winners and CHALLENGE.replays_to_winners


def test_a_closed_challenge_is_kept_its_own_ttl_but_never_less_than_a_finished_race() -> None:
    assert RACE.kept_ms(config(finished_ttl=60, challenge_ttl=3600)) == 60_000
    assert CHALLENGE.kept_ms(config(finished_ttl=60, challenge_ttl=3600)) == 3_600_000
    assert CHALLENGE.kept_ms(config(finished_ttl=600, challenge_ttl=30)) == 600_000


RUNNING = {"seat": 2, "nickname": "ann", "status": "racing", "foundation": 9, "vegas": -7,
           "moves": 40, "finish_ms": None, "started": 1_000, "at": 50_000}


def test_a_running_challenge_line_shows_the_others_no_figures_a_race_line_shows_all() -> None:
    assert RACE.seen(RUNNING) == RUNNING
    assert CHALLENGE.seen(RUNNING) == {"seat": 2, "nickname": "ann", "status": "racing",
                                       "started": 1_000}
    over = {**RUNNING, "status": "resigned"}
    assert CHALLENGE.seen(over) == over


def test_a_challenge_game_takes_no_command_once_its_own_time_is_up() -> None:
    public = {"deadline": 10_000_000, "settings": {"time_limit": 600}}
    started = {**RUNNING, "started": 1_000}
    CHALLENGE.check_time(started, public, 600_999)  # a millisecond before its end
    with pytest.raises(RaceError, match="time is up"):
        CHALLENGE.check_time(started, public, 601_000)
    late = {**RUNNING, "started": 9_900_000}  # the window closes before its time limit
    with pytest.raises(RaceError):
        CHALLENGE.check_time(late, public, 10_000_000)
    CHALLENGE.check_time({**RUNNING, "started": None}, public, 10**12)  # not begun: no clock
    RACE.check_time(started, public, 10**12)  # a race's deadline ends everyone at once


def test_a_challenge_keeps_a_ghost_trace_and_a_race_none() -> None:
    line = {**RUNNING, "foundation": 3, "vegas": -52 + 5 * 4}
    assert RACE.trace([], line, 9_000, 1_000, False) == ([], None, None)
    points, text, score = CHALLENGE.trace([], line, 9_000, 1_000, False)
    assert points == [(8, 3, 4)] and text is not None and decode(text) == points
    assert score is None
    same, text, _ = CHALLENGE.trace(points, line, 9_500, 1_000, False)
    assert same is points and text is None  # nothing changed: nothing to write
    done = {**line, "status": "resigned"}
    points, text, score = CHALLENGE.trace(points, done, 20_000, 1_000, True)
    assert points[-1] == (19, 3, 4) and text is not None
    assert score == rank_score(done, 1_000, 20_000)


class Rooms:
    def __init__(self) -> None:
        self.calls: list[tuple[Any, ...]] = []

    async def start_race(self, room_id: str, by: int, at: int | None = None) -> None:
        self.calls.append(("start_race", room_id, by, at))

    async def begin(self, room_id: str, seat: int) -> None:
        self.calls.append(("begin", room_id, seat))


async def test_start_is_the_hosts_start_of_a_race_and_a_players_own_begin_in_a_challenge() -> None:
    rooms = Rooms()
    assert await RACE.start(rooms, "r1", 0, 5_000) is False
    assert await CHALLENGE.start(rooms, "r2", 3, None) is True
    assert rooms.calls == [("start_race", "r1", 0, 5_000), ("begin", "r2", 3)]
