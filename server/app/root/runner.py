"""How a server process runs: its event loop (uvloop where there is one)
and, once started, its garbage collector's thresholds."""

from __future__ import annotations

import asyncio
import gc
from collections.abc import Coroutine
from typing import Any, TypeVar

T = TypeVar("T")

#: Collections of the youngest generation every 50 000 allocations instead of
#: 700; older generations as rarely. A move allocates a few hundred objects
#: that live as long as its round trip: with the default thresholds they were
#: promoted and then swept by full collections over every connection's state,
#: pauses of 100-400 ms under load (bench/race.py --gc-stats).
GC_THRESHOLDS = (50_000, 20, 100)


def tune_gc() -> None:
    """Once started: what was built so far stays out of every collection
    (``gc.freeze``), and collections become rare."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLDS)


def run(coro: Coroutine[Any, Any, T]) -> T:
    """Run ``coro`` on a new event loop: uvloop's where it is installed."""
    try:
        import uvloop
    except ImportError:  # not on Linux
        return asyncio.run(coro)
    return uvloop.run(coro)
