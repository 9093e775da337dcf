"""One worker of ``serve --workers N``: a whole server process, started by
the supervisor (:mod:`.supervisor`) through ``multiprocessing`` (``spawn``).

It runs :class:`.lifespan.App` as a single server does, told who it is
(:class:`.siblings.WorkerSpec`), and keeps a pipe to its supervisor, the
*link*:

- to the supervisor: ``("ready", proc_id)`` once it listens, or
  ``("failed", exit_status, line)`` when its start failed (the supervisor
  prints the line, once for the whole server);
- from the supervisor: ``("redis", up, restarts)``, the embedded Redis's
  state, for ``/metrics``.

The link's end (the supervisor is gone, even killed by SIGKILL) stops the
worker as SIGTERM does: it drains its sockets (1001) and exits. A worker has
a session of its own, so Ctrl-C in a terminal reaches the supervisor alone,
which stops every worker with SIGTERM, each once.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys
from multiprocessing.connection import Connection

import structlog

from ..ground import logs
from ..ground.config import Config, ConfigError
from . import runner
from .lifespan import App
from .siblings import WorkerSpec

log = structlog.get_logger("app.root.worker")

READY, FAILED, REDIS = "ready", "failed", "redis"


def worker_main(config: Config, spec: WorkerSpec, link: Connection) -> None:
    """The worker process's entry point: serve until told to stop; exit 0,
    or with the status of a failed start (2: a setting, 1: the port...)."""
    with contextlib.suppress(OSError):
        os.setsid()
    logs.setup(config.log_level, worker=spec.index)
    sys.exit(runner.run(_serve(config, spec, link)))


async def _serve(config: Config, spec: WorkerSpec, link: Connection) -> int:
    app = App(config, worker=spec)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()

    def heard() -> None:
        try:
            while link.poll():
                message = link.recv()
                if message[0] == REDIS:
                    app.metrics.embedded(bool(message[1]), int(message[2]))
        except (EOFError, OSError):
            loop.remove_reader(link.fileno())
            if not stop.is_set():
                log.warning("supervisor_gone")
                stop.set()

    def ready(url: str) -> None:
        runner.tune_gc()
        link.send((READY, app.proc_id))

    loop.add_reader(link.fileno(), heard)
    try:
        await app.run_until_signal(ready, stop=stop)
    except ConfigError as exc:
        return _failed(link, 2, str(exc))
    except OSError as exc:  # the port, and such
        return _failed(link, 1, str(exc))
    finally:
        with contextlib.suppress(OSError, ValueError):
            loop.remove_reader(link.fileno())
    return 0


def _failed(link: Connection, status: int, line: str) -> int:
    with contextlib.suppress(OSError):
        link.send((FAILED, status, line))
    return status
