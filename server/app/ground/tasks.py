"""Tasks that run beside a command (ending a race, dealing a board at the
countdown's end): kept referenced until done, their failures logged."""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import Any

import structlog

from ...store import StoreUnavailable

log = structlog.get_logger("app.ground.tasks")

_running: set[asyncio.Task[Any]] = set()


def spawn(coro: Coroutine[Any, Any, Any], *, name: str | None = None) -> asyncio.Task[Any]:
    task = asyncio.create_task(coro, name=name)
    _running.add(task)
    task.add_done_callback(_finished)
    return task


def _finished(task: asyncio.Task[Any]) -> None:
    _running.discard(task)
    if task.cancelled():
        return
    exc = task.exception()
    if isinstance(exc, StoreUnavailable):  # Redis's trouble: logged once per episode (health.py)
        log.info("background_task_unavailable", task=task.get_name(), error=str(exc))
    elif exc is not None:
        log.error("background_task_failed", task=task.get_name(), exc_info=exc)
