"""Logging: structlog, one JSON object per line on standard error.

The standard library's loggers (websockets, asyncio) go through the same
renderer, so every line the server writes is JSON.
"""

from __future__ import annotations

import logging
import sys

import orjson
import structlog
from structlog.typing import Processor

_SHARED: list[Processor] = [
    structlog.contextvars.merge_contextvars,
    structlog.processors.add_log_level,
    structlog.processors.TimeStamper(fmt="iso", utc=True),
]


def _dumps(obj: object, **_: object) -> str:
    return orjson.dumps(obj, default=str).decode()


def setup(level: str = "info") -> None:
    """Configure structlog and the standard library's logging, once."""
    numeric = logging.getLevelName(level.upper())
    renderer = structlog.processors.JSONRenderer(serializer=_dumps)
    structlog.configure(
        processors=[*_SHARED, structlog.processors.format_exc_info, renderer],
        wrapper_class=structlog.make_filtering_bound_logger(numeric),
        logger_factory=structlog.PrintLoggerFactory(sys.stderr),
        cache_logger_on_first_use=True,
    )
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(structlog.stdlib.ProcessorFormatter(
        processors=[structlog.stdlib.ProcessorFormatter.remove_processors_meta, renderer],
        foreign_pre_chain=[*_SHARED, structlog.stdlib.add_logger_name,
                           structlog.processors.format_exc_info],
    ))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(numeric)
    # websockets logs every connection at INFO: keep its warnings only
    logging.getLogger("websockets").setLevel(max(numeric, logging.WARNING))
