"""The running event loop's clock, moved by a unit test: no time passes,
the timers that came due run (tests/app/ground)."""

from __future__ import annotations

import asyncio

import pytest


class Loop:
    """The running loop's clock, moved by the test: ``move`` runs the timers
    that came due."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.loop = asyncio.get_running_loop()
        self.now = self.loop.time()
        monkeypatch.setattr(self.loop, "time", lambda: self.now)

    async def move(self, seconds: float) -> None:
        self.now += seconds
        for _ in range(3):
            await asyncio.sleep(0)  # (a turn of the loop: what is due runs; no time passes)
