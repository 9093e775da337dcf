"""A delayed room's boards wait in bounded memory (server/app/rooms/delayed_boards.py):
whatever its players do, a room keeps at most ``STEPS + 2`` steps of one
board per seat, and no board goes out before its moment plus the delay.
Regression: the hub kept every board of every move for the whole delay."""

from __future__ import annotations

import random

import pytest

from server.app.rooms.delayed_boards import MIN_STEP_MS, STEPS, DelayedBoards

SEATS = 16


@pytest.mark.parametrize("delay_s", [1, 10, 600])
def test_delayed_boards_keep_a_bounded_queue_and_release_none_early(delay_s: int) -> None:
    delay_ms = delay_s * 1000
    queue = DelayedBoards(delay_ms)
    rng = random.Random(delay_s)
    shown_at: dict[tuple[int, int], int] = {}  # (seat, n) -> the moment its player saw it
    latest: dict[int, int] = {}
    released: list[tuple[int, int, int]] = []  # (when, seat, n)
    now, most = 0, 0
    # 16 racers, each moving every 5 to 60 ms for twice the delay (up to 400 000 boards)
    while now < 2 * delay_ms:
        now += rng.randint(0, 4)
        seat = rng.randrange(SEATS)
        n = latest.get(seat, 0) + 1
        latest[seat] = n
        shown_at[seat, n] = now
        queue.add(seat, {"seat": seat, "n": n}, now)
        most = max(most, queue.boards())
        for s, board in queue.due(now).items():
            released.append((now, s, board["n"]))
    assert len(queue) <= STEPS + 2
    assert most <= (STEPS + 2) * SEATS
    step = max(MIN_STEP_MS, -(-delay_ms // STEPS))
    for when, seat, n in released:
        assert when >= shown_at[seat, n] + delay_ms, "a board went out before its delay"
        # and at most a step late (due() is asked at every move here)
        assert when <= shown_at[seat, n] + delay_ms + step + 4
    # each seat's boards go out in the order its player saw them, the last one included
    final = queue.due(now + delay_ms + step)
    for seat in range(SEATS):
        order = [n for _, s, n in released if s == seat] + ([final[seat]["n"]] if seat in final else [])
        assert order == sorted(order) and order[-1] == latest[seat]


def test_a_board_from_a_clock_behind_waits_with_the_last_step_never_sooner() -> None:
    queue = DelayedBoards(delay_ms=2000)
    queue.add(0, {"n": 1}, at=10_000)
    queue.add(1, {"n": 2}, at=9_000)  # another process's clock, a second behind
    assert queue.due(11_999) == {}
    assert queue.due(12_200) == {0: {"n": 1}, 1: {"n": 2}}
