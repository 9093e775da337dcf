"""The solver's process pool on its own: bounded, typed outcomes, replaced
when a worker dies, stopped whatever its workers are doing; and the
questions it answers (jobs.assess) and what a seat keeps of them."""

from __future__ import annotations

import asyncio
import os
import signal
import threading
import time
from concurrent.futures.process import _ExecutorManagerThread
from pathlib import Path

from harness import eventually

from server.app.solver import jobs
from server.app.solver.pool import WORKER_NICE, SolverPool
from server.app.solver.seat_assists import Known, SeatAssist
from server.klondike import replay


async def test_a_full_pool_refuses_at_once_and_background_work_waits_for_an_idle_worker() -> None:
    pool = SolverPool(1, 1)
    try:
        running = asyncio.ensure_future(pool.run(5, time.sleep, 1.0))
        waiting = asyncio.ensure_future(pool.run(5, time.sleep, 0.1))
        await asyncio.sleep(0)  # both jobs take their first step: they are in flight
        assert pool.in_flight == 2
        assert (await pool.run(5, time.sleep, 0.1)).status == "busy"  # over workers + queue
        assert (await pool.run(5, time.sleep, 0.1, background=True)).status == "busy"
        assert [(await running).status, (await waiting).status] == ["done", "done"]
        assert pool.in_flight == 0
        certified = await pool.run(2, jobs.certify_code, "KL1-D1N-AAAAAAG", 2.0,
                                   background=True)
        assert certified.status == "done" and certified.value == "KL1-D1N-AAAAAAG"
    finally:
        await pool.close()


def _mark_then_sleep(mark: str, seconds: float) -> None:
    """A job that says it has begun (a file), then takes its time."""
    Path(mark).touch()
    time.sleep(seconds)


async def test_a_dead_worker_fails_its_job_and_the_next_job_gets_a_fresh_one(tmp_path: Path) -> None:
    pool = SolverPool(1, 0)
    try:
        assert (await pool.run(5, os.getpid)).status == "done"
        pid = (await pool.run(5, os.getpid)).value
        assert isinstance(pid, int)
        mark = tmp_path / "begun"
        job = asyncio.ensure_future(pool.run(30, _mark_then_sleep, str(mark), 30.0))
        await eventually(mark.exists, timeout=60, what="the job running in the worker")
        os.kill(pid, signal.SIGKILL)
        assert (await job).status == "failed"
        again = await pool.run(5, os.getpid)
        assert again.status == "done" and again.value != pid
        assert pool.replaced == 1
    finally:
        await pool.close()
    # both pools, the one replaced too, have wound down: no manager thread
    # is left to race the interpreter's exit (a traceback at every stop)
    assert not _managers_alive()


async def test_close_stops_a_search_in_flight_and_later_jobs_are_off(tmp_path: Path) -> None:
    pool = SolverPool(1, 0)
    mark = tmp_path / "begun"
    job = asyncio.ensure_future(pool.run(30, _mark_then_sleep, str(mark), 30.0))
    await eventually(mark.exists, timeout=60, what="the job running in the worker")
    started = time.monotonic()
    await pool.close()
    assert not _managers_alive()
    assert (await job).status == "off"
    assert time.monotonic() - started < 10  # not the 30 s the job would have taken
    assert (await pool.run(5, os.getpid)).status == "off"


def _managers_alive() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if isinstance(t, _ExecutorManagerThread) and t.is_alive()]


async def test_workers_run_at_a_lower_priority_than_the_server() -> None:
    pool = SolverPool(1, 0)
    try:
        niceness = await pool.run(5, os.nice, 0)
        assert niceness.status == "done" and niceness.value == min(19, os.nice(0) + WORKER_NICE)
    finally:
        await pool.close()


async def test_no_workers_means_off() -> None:
    assert (await SolverPool(0, 8).run(5, os.getpid)).status == "off"


def test_assess_reports_a_lost_position_and_the_undos_back_to_a_winnable_one() -> None:
    lost = replay("KL1-D1V-Q2OVTPZ", ["draw"] * 24)
    found = jobs.assess(lost.snapshot(), 10.0)
    assert (found.winnable, found.line, found.back) == ("no", None, 15)
    start = jobs.assess(replay("KL1-D1V-Q2OVTPZ", []).snapshot(), 10.0)
    assert start.winnable == "yes" and start.line is not None
    assert replay("KL1-D1V-Q2OVTPZ", start.line).is_won
    assert jobs.assess(lost.snapshot(), 10.0, False).back is None


def test_assess_tells_a_deal_never_winnable_from_a_game_lost_by_a_move() -> None:
    never = "KL1-D1V-AAAAAAE"  # a Vegas deal the solver proves lost from its start at once
    start = jobs.assess(replay(never, []).snapshot(), 10.0, False)
    assert (start.winnable, start.back, start.lost) == ("no", None, "deal")
    drawn = replay(never, ["draw", "draw"]).snapshot()
    assert jobs.assess(drawn, 10.0).lost == "deal"  # every position back to the deal is lost
    assert jobs.assess(drawn, 10.0, False).lost is None  # not looked back: not known
    lost = jobs.assess(replay("KL1-D1V-Q2OVTPZ", ["draw"] * 24).snapshot(), 10.0)
    assert (lost.winnable, lost.back, lost.lost) == ("no", 15, "move")


def test_a_seat_learns_its_deal_from_any_position_and_says_why_a_game_is_lost() -> None:
    """One winnable position means a winnable deal, so a loss found later is a
    move's, even when the search did not look back; a lost deal makes every
    position lost from the deal."""
    seat = SeatAssist()
    won = replay("KL1-D1V-Q2OVTPZ", [])
    assert seat.learn(won.position(), Known("yes", ("draw",))).lost is None
    later = replay("KL1-D1V-Q2OVTPZ", ["draw"] * 24)
    assert seat.learn(later.position(), Known("no")) == Known("no", None, None, "move")
    assert seat.get(later) == Known("no", None, None, "move")

    other = SeatAssist()
    lost = replay("KL1-D1V-AAAAAAE", [])
    other.learn(lost.position(), Known("no", None, None, "deal"))
    game = lost.copy()
    game.push("draw")
    assert other.after(lost.position(), "draw", game) == Known("no", None, None, "deal")
    game.push("draw")
    assert other.learn(game.position(), Known("no")).lost == "deal"


def test_the_acks_no_progress_agrees_with_the_engines() -> None:
    """assists.no_progress (every ack of a room with assists) is the engine's
    Game.no_progress without its shortest-line search: the same answers."""
    import random

    from harness import load_wins

    from server.app.solver.seat_assists import no_progress
    from server.klondike import DealCode, Game

    positions = []
    for won in load_wins():
        game = Game(won["code"])
        for move in won["script"]:
            game.push(move)
            positions.append(game.copy())
    rng = random.Random(12)
    for _ in range(20):
        game = Game(DealCode(rng.randrange(1 << 35), rng.choice((1, 3)), rng.choice("NV")))
        for _ in range(200):
            legal = game.legal_moves()
            if not legal:
                break
            game.push(rng.choice(legal))
            positions.append(game.copy())
    answers = [no_progress(g) for g in positions]
    assert answers == [g.no_progress() for g in positions]
    assert any(answers) and not all(answers)
