"""Logging: structlog, one JSON object per line on standard error.

The standard library's loggers (websockets, asyncio) go through the same
renderer, so every line the server writes is JSON. A worker of ``serve
--workers N`` stamps each of its lines with ``worker`` (its index); the
supervisor's own lines have none, but those about a worker name it the same
way.
"""

from __future__ import annotations

import logging
import sys

import orjson
import structlog
from structlog.typing import EventDict, Processor, WrappedLogger

_SHARED: list[Processor] = [
    structlog.contextvars.merge_contextvars,
    structlog.processors.add_log_level,
    structlog.processors.TimeStamper(fmt="iso", utc=True),
]


def _dumps(obj: object, **_: object) -> str:
    return orjson.dumps(obj, default=str).decode()


class _Worker:
    """A processor: the worker's index on every line."""

    def __init__(self, index: int) -> None:
        self.index = index

    def __call__(self, _: WrappedLogger, __: str, event: EventDict) -> EventDict:
        event.setdefault("worker", self.index)
        return event


def setup(level: str = "info", *, worker: int | None = None) -> None:
    """Configure structlog and the standard library's logging, once;
    ``worker``: this process's index among the workers of one server."""
    numeric = logging.getLevelName(level.upper())
    renderer = structlog.processors.JSONRenderer(serializer=_dumps)
    shared: list[Processor] = [*_SHARED, *([_Worker(worker)] if worker is not None else [])]
    structlog.configure(
        processors=[*shared, structlog.processors.format_exc_info, renderer],
        wrapper_class=structlog.make_filtering_bound_logger(numeric),
        # one write per line, newline included: the workers of one server share stderr
        logger_factory=structlog.WriteLoggerFactory(sys.stderr),
        cache_logger_on_first_use=True,
    )
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(structlog.stdlib.ProcessorFormatter(
        processors=[structlog.stdlib.ProcessorFormatter.remove_processors_meta, renderer],
        foreign_pre_chain=[*shared, structlog.stdlib.add_logger_name,
                           structlog.processors.format_exc_info],
    ))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(numeric)
    # websockets logs every connection at INFO: keep its warnings only
    logging.getLogger("websockets").setLevel(max(numeric, logging.WARNING))
