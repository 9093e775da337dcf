"""How busy this process is, and how often leaderboards may go out because of it.

Every second a room's leaderboard can go out five times to each of its
sockets; with thousands of players these writes outnumber the moves'
acknowledgements five to one, and each costs a system call. When the process
gets busy (its share of a core, or the event loop's lag, grows), leaderboards
are sent less often, down to one a second, so that moves keep their latency:
what a player sees is always the latest leaderboard, only a little later.
"""

from __future__ import annotations

import asyncio
import time
from typing import Final

FLUSH_INTERVAL: Final = 0.2  # at most five leaderboards a second per room
MAX_FLUSH_INTERVAL: Final = 1.0
CALM_LAG: Final = 0.004  # seconds of loop lag below which nothing is stretched
CALM_BUSY: Final = 0.6  # share of a core below which nothing is stretched
BUSY_STRETCH: Final = 10.0  # how fast the interval grows with the share above it
PROBE_EVERY: Final = 0.05
SMOOTHING: Final = 0.1  # weight of each new sample in the moving averages


def flush_interval(lag: float, busy: float = 0.0) -> float:
    """Seconds between two leaderboards of a room, for a loop lag of ``lag``
    seconds and a process using ``busy`` of a core.

    >>> flush_interval(0.0), flush_interval(0.004), flush_interval(0.008), flush_interval(1.0)
    (0.2, 0.2, 0.4, 1.0)
    >>> round(flush_interval(0.0, 0.5), 3), round(flush_interval(0.0, 0.7), 3), flush_interval(0.0, 1.0)
    (0.2, 0.4, 1.0)
    """
    stretch = max(1.0, lag / CALM_LAG, 1.0 + (busy - CALM_BUSY) * BUSY_STRETCH)
    return min(MAX_FLUSH_INTERVAL, FLUSH_INTERVAL * stretch)


class Busyness:
    """Moving averages of the event loop's lag and of the process's CPU use,
    sampled every 50 ms."""

    def __init__(self) -> None:
        self.lag = 0.0
        self.busy = 0.0
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self._task = asyncio.create_task(self._probe(), name="load-probe")

    async def _probe(self) -> None:
        loop = asyncio.get_running_loop()
        cpu, wall = time.process_time(), loop.time()
        while True:
            due = loop.time() + PROBE_EVERY
            await asyncio.sleep(PROBE_EVERY)
            now, now_cpu = loop.time(), time.process_time()
            self.lag += SMOOTHING * (max(0.0, now - due) - self.lag)
            if now > wall:
                self.busy += SMOOTHING * ((now_cpu - cpu) / (now - wall) - self.busy)
            cpu, wall = now_cpu, now

    def flush_interval(self) -> float:
        return flush_interval(self.lag, self.busy)

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)
