"""A player's profile as data: results checked when they are made, a win
is a first place among two or more, days and the daily streak, what the
public page shows, a room's line as a result."""

from __future__ import annotations

from typing import Any

import pytest

from server.race import Room, Settings
from server.race.profile import (
    GameResult,
    current_streak,
    day_number,
    day_of,
    day_text,
    public_profile,
    room_result,
)


def result(**over: Any) -> GameResult:
    base: dict[str, Any] = {"ref": "R/1/0", "kind": "race", "at": 5, "mode": "D1N",
                            "nickname": "ann", "status": "finished"}
    return GameResult(**{**base, **over})


@pytest.mark.parametrize(("over", "message"), [
    ({"ref": ""}, "ref"), ({"ref": 'x","kind'}, "ref"), ({"ref": "r" * 81}, "ref"),
    ({"kind": "bingo"}, "kind"), ({"mode": "D2N"}, "mode"),
    ({"kind": "daily"}, "daily result has its day"), ({"day": "2030-01-01"}, "only a daily"),
    ({"kind": "daily", "day": "2030-1-1"}, "YYYY-MM-DD"),
    ({"kind": "daily", "day": "2030-02-30"}, "day"),
])
def test_a_result_that_could_not_be_stored_as_documented_is_refused_when_made(
        over: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        result(**over)


@pytest.mark.parametrize(("place", "of", "won"), [(1, 2, True), (1, 1, False), (2, 8, False),
                                                  (None, None, False), (1, None, False)])
def test_a_win_is_a_first_place_in_a_field_of_two_or_more(place: int | None, of: int | None,
                                                            won: bool) -> None:
    assert result(place=place, of=of, status="resigned").won is won


def test_a_result_as_sent_begins_with_its_ref_and_leaves_out_what_it_lacks() -> None:
    d = result(code=None, points=None).to_dict()
    assert next(iter(d)) == "ref"
    assert d["code"] is None and d["place"] is None and d["time_ms"] is None
    assert "points" not in d and "day" not in d and "tournament" not in d
    daily = result(kind="daily", day="2030-01-02", ref="daily/2030-01-02/D1N").to_dict()
    assert daily["day"] == "2030-01-02" and daily["finished"] is True


def test_days_are_utc_days_counted_from_1970() -> None:
    assert day_number("1970-01-01") == 0 and day_text(0) == "1970-01-01"
    assert day_of(86_400_000 - 1) == "1970-01-01" and day_of(86_400_000) == "1970-01-02"
    assert day_text(day_number("2030-03-01") - 1) == "2030-02-28"


def test_a_streak_stands_while_its_last_day_is_today_or_yesterday() -> None:
    fields = {"streak": "5", "streak_day": str(day_number("2030-01-10"))}
    for day, days in (("2030-01-10", 5), ("2030-01-11", 5), ("2030-01-12", 0)):
        assert current_streak(fields, today=day_number(day)) == days
    assert current_streak({}, today=3) == 0


def test_the_public_profile_shows_the_totals_and_nothing_else() -> None:
    fields = {"nick": "ann", "created": "1", "seen": "2", "games": "12", "wins": "3",
              "finished": "7", "best:D1N": "83000", "best:D3V": "120000", "streak": "2",
              "streak_best": "4", "streak_day": str(day_number("2030-01-10")),
              "move": "ab" * 32, "move_until": "99"}
    shown = public_profile("ABCDEFGHJK", fields, today=day_number("2030-01-11"))
    assert shown == {"id": "ABCDEFGHJK", "nickname": "ann", "games": 12, "wins": 3,
                     "finished": 7, "best": {"D1N": 83000, "D3V": 120000},
                     "streak": {"days": 2, "best": 4}}


def test_a_rooms_line_becomes_a_result_with_the_code_once_the_race_has_ended() -> None:
    room = Room.create("ROOMROOM", Settings(code="KL1-D3V-AAAAAAG"), "KL1-D3V-AAAAAAG", "ann",
                       "tok", now=0)
    room.start(0, now=0, countdown_ms=0)
    line = {"seat": 0, "nickname": "ann", "status": "racing", "foundation": 12, "vegas": 8,
            "moves": 40, "finish_ms": None, "at": 100}
    room.end([line], now=900)
    r = room_result(room, line, 1, 1)
    assert (r.ref, r.kind, r.mode, r.status, r.code, r.at, r.vegas, r.points) == (
        "ROOMROOM/1/0", "race", "D3V", "unfinished", "KL1-D3V-AAAAAAG", 900, 8, None)
    solo = Room.create("SOLOSOLO", Settings(solo=True, max_players=1), "KL1-D1N-AAAAAAG", "ann",
                       "tok", now=0)
    assert room_result(solo, {**line, "points": 3}, 1, 1).kind == "solo"
