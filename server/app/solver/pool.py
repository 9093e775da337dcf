"""The solver's process pool: searches run in worker processes, never on the event loop.

A search can take seconds of pure Python; the event loop must not wait for
one, and one process's GIL would make threads no better. So the server keeps
``--solver-workers`` worker processes (a
:class:`concurrent.futures.ProcessPoolExecutor` started with ``spawn``, so no
worker inherits the server's sockets or threads) and hands them the plain
functions of :mod:`.jobs`.

**Back-pressure.** At most ``workers + queue`` (``--solver-queue``) jobs are
in the pool at once, running or waiting; one more is refused at once with
the outcome ``busy``, never queued without bound. Background work (refilling
the winnable deals, :mod:`.winnable_deals`) is admitted only while a worker is
idle, so it never makes a player's request wait or be refused.

**Priority.** Workers run niced (:data:`WORKER_NICE`): on a busy machine a
search takes the CPU the event loops leave, never the other way round.

**Budgets.** Every job carries its budget in seconds (the solver stops
itself when it is spent); a job that has not answered well after its budget
(``budget + GRACE``) counts as ``failed``, and the pool is replaced, as it is
when a worker dies (``BrokenProcessPool``: a crash, the OOM killer): the
jobs in flight then answer ``failed`` and the next job gets fresh workers.

Every outcome is typed (:class:`Outcome`); the callers decide what a player
gets instead (the basic hint, ``unknown``, a typed refusal).
"""

from __future__ import annotations

import asyncio
import contextlib
import multiprocessing
import os
import threading
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from typing import Any, Final, Generic, Literal, TypeVar

import structlog

log = structlog.get_logger("app.solver.pool")

T = TypeVar("T")
Status = Literal["done", "busy", "failed", "off"]
#: told of every job: its kind, its outcome, the seconds from submission to answer
Observer = Callable[[str, str, float], None]

#: seconds a job may overrun its budget before it counts as lost
GRACE: Final = 5.0
#: the workers' niceness, above the server's (a lower priority)
WORKER_NICE: Final = 10
#: seconds a stopped pool is given to wind down
JOIN_TIMEOUT: Final = 10.0


@dataclass(frozen=True, slots=True)
class Outcome(Generic[T]):
    """What became of a job: ``done`` with its ``value``; ``busy`` (the pool
    was full: refused at once, nothing ran); ``failed`` (a worker died or
    overran, or the job raised: logged); ``off`` (no workers configured)."""

    status: Status
    value: T | None = None


class SolverPool:
    """``workers`` processes and room for ``queue`` waiting jobs."""

    def __init__(self, workers: int, queue: int, observe: Observer | None = None) -> None:
        self.workers = workers
        self._observe = observe
        self.capacity = workers + queue
        self.in_flight = 0
        self.replaced = 0  # pools replaced after a crash or an overrun
        self._executor: ProcessPoolExecutor | None = None
        self._winding: list[threading.Thread] = []  # manager threads of pools dropped
        self._closed = False

    @property
    def enabled(self) -> bool:
        return self.workers > 0 and not self._closed

    @property
    def idle(self) -> bool:
        """A worker has nothing to do: background work may have it."""
        return self.enabled and self.in_flight < self.workers

    def _pool(self) -> ProcessPoolExecutor:
        if self._executor is None:
            self._executor = ProcessPoolExecutor(
                max_workers=self.workers, mp_context=multiprocessing.get_context("spawn"),
                initializer=lower_priority)
        return self._executor

    async def run(self, budget: float, fn: Callable[..., T], *args: Any,
                  background: bool = False, kind: str = "job") -> Outcome[T]:
        """Run ``fn(*args)`` in a worker; ``budget`` is the seconds it was
        told it may take. ``background`` jobs run only on an idle worker.
        ``kind`` names the job for the metrics."""
        started = time.monotonic()
        outcome = await self._run(budget, fn, args, background)
        if self._observe is not None:
            self._observe(kind, outcome.status, time.monotonic() - started)
        return outcome

    async def _run(self, budget: float, fn: Callable[..., T], args: tuple[Any, ...],
                   background: bool) -> Outcome[T]:
        if not self.enabled:
            return Outcome("off")
        if self.in_flight >= (self.workers if background else self.capacity):
            return Outcome("busy")
        self.in_flight += 1
        executor = self._pool()
        try:
            future = executor.submit(fn, *args)
            value = await asyncio.wait_for(asyncio.wrap_future(future), budget + GRACE)
        except BrokenProcessPool:
            if self._closed:
                return Outcome("off")
            log.warning("solver_worker_lost", job=getattr(fn, "__name__", "?"))
            self._replace(executor)
            return Outcome("failed")
        except TimeoutError:
            # a warning, not an error: the workers run below the server's
            # priority, and a machine busy with other work starves them (the
            # budget counts from the submission: a cold pool's spawn too); a
            # solver bug shows as overruns on a quiet machine
            log.warning("solver_job_overran", job=getattr(fn, "__name__", "?"), budget=budget)
            self._replace(executor)
            return Outcome("failed")
        except Exception:
            if self._closed:
                return Outcome("off")
            log.exception("solver_job_failed", job=getattr(fn, "__name__", "?"))
            return Outcome("failed")
        finally:
            self.in_flight -= 1
        return Outcome("done", value)

    def _replace(self, executor: ProcessPoolExecutor) -> None:
        """Drop a broken (or stuck) pool; the next job starts a fresh one."""
        if self._executor is executor:
            self._executor = None
            self.replaced += 1
            self._winding = [t for t in self._winding if t.is_alive()]
            self._winding.extend(_terminate(executor))

    async def close(self) -> None:
        """Stop the workers, whatever they are doing: jobs in flight answer
        ``off``. Waits (off the loop) until the pools, this one and any
        replaced before, have wound down: a pool's manager thread still
        running when the interpreter exits races its exit hook, which then
        prints a traceback (``BrokenPipeError`` in ``_python_exit``)."""
        self._closed = True
        executor, self._executor = self._executor, None
        if executor is not None:
            self._winding.extend(_terminate(executor))
        winding, self._winding = self._winding, []
        await asyncio.to_thread(_join, winding)


def lower_priority() -> None:
    """Run in each worker as it starts: searches yield the CPU to the event
    loops of this machine (the acks), taking what they leave. Measured on 2
    cores, the winnable pools' refill at start-up otherwise took 0.7 of a
    core from a race of 2 000 moves a second."""
    with contextlib.suppress(OSError):
        os.nice(WORKER_NICE)


def _terminate(executor: ProcessPoolExecutor) -> list[threading.Thread]:
    """Kill an executor's worker processes (``shutdown`` alone would wait for
    the searches they are running) and let it wind down; its manager thread
    (to join: ``shutdown(wait=False)`` forgets it) is returned."""
    processes = dict(getattr(executor, "_processes", None) or {})
    manager = getattr(executor, "_executor_manager_thread", None)
    executor.shutdown(wait=False, cancel_futures=True)
    for process in processes.values():
        with contextlib.suppress(Exception):
            process.terminate()
    return [manager] if isinstance(manager, threading.Thread) else []


def _join(threads: list[threading.Thread]) -> None:
    for thread in threads:
        thread.join(JOIN_TIMEOUT)
        if thread.is_alive():
            log.warning("solver_pool_not_wound_down")
