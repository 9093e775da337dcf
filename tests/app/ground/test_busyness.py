"""How busy a process is, alone (server/app/ground/busyness.py): the event
loop's clock and the process's CPU time as the test moves them; no socket,
no sleep. What it pins: a calm process sends a room's leaderboard five times
a second; a lagging loop or a process using most of a core stretches that to
one a second at most; it comes back once the load is gone."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from support.loop import Loop

from server.app.ground import busyness
from server.app.ground.busyness import (
    FLUSH_INTERVAL,
    MAX_FLUSH_INTERVAL,
    PROBE_EVERY,
    Busyness,
    flush_interval,
)


def test_a_calm_process_flushes_five_times_a_second_and_a_busy_one_once_at_least() -> None:
    assert flush_interval(0.0, 0.0) == FLUSH_INTERVAL == 0.2
    assert flush_interval(0.004, 0.6) == FLUSH_INTERVAL  # at the calm bounds: unstretched
    assert flush_interval(0.006, 0.0) == pytest.approx(0.3)  # grows with the lag
    assert flush_interval(0.0, 0.65) == pytest.approx(0.3)  # and with the share of a core
    assert flush_interval(0.006, 0.8) == pytest.approx(0.6)  # the worse of the two
    assert flush_interval(10.0, 5.0) == MAX_FLUSH_INTERVAL == 1.0  # never slower than once a second


class Cpu:
    """The process's CPU time, moved by the test."""

    def __init__(self) -> None:
        self.used = 0.0

    def process_time(self) -> float:
        return self.used


@pytest.fixture
async def probe(monkeypatch: pytest.MonkeyPatch) -> tuple[Loop, Cpu, Busyness]:
    cpu = Cpu()
    monkeypatch.setattr(busyness, "time", SimpleNamespace(process_time=cpu.process_time))
    loop = Loop(monkeypatch)
    load = Busyness()
    load.start()
    await loop.move(0)  # the probe takes its first readings
    return loop, cpu, load


async def probes(loop: Loop, cpu: Cpu, count: int, *, late: float = 0.0,
                 share: float = 0.0) -> None:
    """``count`` probes, each ``late`` seconds after it was due, the process
    using ``share`` of a core meanwhile."""
    for _ in range(count):
        cpu.used += (PROBE_EVERY + late) * share
        await loop.move(PROBE_EVERY + late)


async def test_a_probe_on_time_on_an_idle_process_stretches_nothing(
        probe: tuple[Loop, Cpu, Busyness]) -> None:
    loop, cpu, load = probe
    await probes(loop, cpu, 50)
    assert load.lag == 0.0 and load.busy == 0.0
    assert load.flush_interval() == FLUSH_INTERVAL
    await load.stop()


async def test_a_lagging_loop_stretches_the_interval_and_it_comes_back_when_calm(
        probe: tuple[Loop, Cpu, Busyness]) -> None:
    loop, cpu, load = probe
    await probes(loop, cpu, 1, late=0.1)
    assert load.lag == pytest.approx(0.01)  # one sample weighs a tenth
    await probes(loop, cpu, 60, late=0.1)
    assert load.lag == pytest.approx(0.1, rel=0.01)
    assert load.flush_interval() == MAX_FLUSH_INTERVAL
    await probes(loop, cpu, 80)
    assert load.lag < 0.001 and load.flush_interval() == FLUSH_INTERVAL
    await load.stop()


async def test_a_process_using_a_whole_core_stretches_the_interval_and_comes_back(
        probe: tuple[Loop, Cpu, Busyness]) -> None:
    loop, cpu, load = probe
    await probes(loop, cpu, 60, share=1.0)
    assert load.busy == pytest.approx(1.0, rel=0.01) and load.lag == 0.0
    assert load.flush_interval() == pytest.approx(MAX_FLUSH_INTERVAL, rel=0.01)
    await probes(loop, cpu, 60, share=0.3)
    assert load.busy == pytest.approx(0.3, abs=0.01)
    assert load.flush_interval() == FLUSH_INTERVAL
    await load.stop()


async def test_stop_ends_the_probe(probe: tuple[Loop, Cpu, Busyness]) -> None:
    loop, cpu, load = probe
    await load.stop()
    await probes(loop, cpu, 5, late=1.0)
    assert load.lag == 0.0
