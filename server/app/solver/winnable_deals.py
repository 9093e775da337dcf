"""Certified winnable deals, kept ready in Redis so that no creation waits on a search.

A room, a solo game or a tournament may ask for "a random winnable deal"
(``deal: "winnable"``). Such a code is dealt only once the engine replayed
the solver's winning line from its start to a win (in the worker:
:func:`.jobs.certify_code`). Searching takes from milliseconds to
seconds, so creations never search: each mode (``D1N``, ``D3N``, ``D1V``,
``D3V``) keeps a set of certified codes in Redis (``kw2:{MODE}``, one slot
each, see :mod:`server.store.keys`), shared by every server process, and
each process refills the sets below ``--winnable-pool`` in the background,
on solver workers that are idle (:class:`.pool.SolverPool`), one mode
after the other so that a mode whose winnable deals are rare (Vegas draw
three) does not starve the others.

A creation takes its codes with ``SPOP`` (atomic: no code is dealt twice);
when the set holds too few it is refused with ``no_winnable_deal`` at once
(the codes it took are put back) rather than kept waiting on a search: the
player may try again a moment later, or pick a random deal.

The codes are KL2 (:meth:`DealCode.random`): a drawn deal's number has 64
bits (the sets of KL1 codes of before are deleted at start:
:mod:`server.store.migrations`).
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Final

import structlog

from ...klondike import DealCode
from ...protocol import Reason
from ...race import RaceError
from ...store import Store, StoreUnavailable
from ..ground.metrics import Metrics
from . import jobs
from .pool import SolverPool

log = structlog.get_logger("app.solver.winnable_deals")

MODES: Final = ("D1N", "D3N", "D1V", "D3V")
#: seconds one candidate deal may be searched; undecided by then, another is drawn
CERTIFY_SECONDS: Final = 1.0
#: seconds between looks at the sets while they are full (a take wakes it at once)
LOOK_EVERY: Final = 5.0


def mode_of(draw: int, scoring: str) -> str:
    return f"D{draw}{scoring}"


class WinnableDeals:
    """The ready codes of every mode, and this process's refilling of them."""

    def __init__(self, store: Store, pool: SolverPool, target: int, metrics: Metrics,
                 modes: tuple[str, ...] = MODES) -> None:
        self.store = store
        self.metrics = metrics
        self.pool = pool
        self.target = target
        self.modes = modes  # the modes this process refills
        self._task: asyncio.Task[None] | None = None
        self._wake = asyncio.Event()
        self._turn = 0

    async def take(self, draw: int, scoring: str, count: int = 1) -> list[str]:
        """``count`` certified winnable codes of the mode, each dealt once;
        raises ``no_winnable_deal`` when fewer are ready (taking none)."""
        mode = mode_of(draw, scoring)
        codes = await self.store.indexes.winnable_take(mode, count)
        self._wake.set()
        if len(codes) < count:
            for code in codes:
                await self.store.indexes.winnable_add(mode, code)
            raise RaceError(Reason.NO_WINNABLE_DEAL,
                            f"{count} certified winnable {mode} deal{'s' if count > 1 else ''} "
                            f"{'are' if count > 1 else 'is'} not ready yet: try again in a "
                            f"little while, or choose a random deal")
        return codes

    async def give_back(self, code: str) -> None:
        """A code taken but not dealt (the command was refused after all)."""
        await self.store.indexes.winnable_add(DealCode.parse(code).mode, code)

    def start(self) -> None:
        if self.target > 0 and self.modes and self.pool.enabled and self._task is None:
            self._task = asyncio.create_task(self._refill(), name="winnable-refill")

    async def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None

    async def _refill(self) -> None:
        while True:
            try:
                short = [m for m in self.modes
                         if await self.store.indexes.winnable_count(m) < self.target]
            except StoreUnavailable:
                short = []
            except Exception:
                log.exception("winnable_look_failed")
                short = []
            if not short:
                self._wake.clear()
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._wake.wait(), LOOK_EVERY)
                continue
            jobs = max(1, self.pool.workers - self.pool.in_flight)
            modes = [short[(self._turn + i) % len(short)] for i in range(jobs)]
            self._turn += jobs
            added = await asyncio.gather(*(self._one(m) for m in modes))
            if not any(x is not None for x in added) and not self.pool.idle:
                await asyncio.sleep(0.5)  # the workers are busy with players: give way

    async def _one(self, mode: str) -> bool | None:
        """Search one random deal of ``mode``; add it if certified. ``None``
        when no idle worker took the job."""
        code = str(DealCode.random(int(mode[1]), mode[2]))  # type: ignore[arg-type]
        outcome = await self.pool.run(CERTIFY_SECONDS, jobs.certify_code, code,
                                      CERTIFY_SECONDS, background=True, kind="certify")
        if outcome.status != "done":
            if outcome.status == "failed":
                await asyncio.sleep(1.0)
            return None
        self.metrics.winnable_tried.labels(mode=mode).inc()
        if outcome.value is None:
            return False
        try:
            await self.store.indexes.winnable_add(mode, outcome.value)
        except StoreUnavailable:
            return False
        self.metrics.winnable_certified.labels(mode=mode).inc()
        log.debug("winnable_certified", mode=mode)
        return True
