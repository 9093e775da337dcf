"""``klondike-race serve``: the command line."""

from __future__ import annotations

import argparse
import asyncio
import gc
import sys
from collections.abc import Sequence

from . import config as config_mod
from . import logs
from .config import ConfigError
from .server import App


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="klondike-race",
                                     description="Klondike Race: solitaire races on one deal.")
    commands = parser.add_subparsers(dest="command", required=True)
    serve = commands.add_parser("serve", help="serve the web client and the game on one port")
    config_mod.add_arguments(serve)
    args = parser.parse_args(argv)
    try:
        config = config_mod.load(args)
    except ConfigError as exc:
        sys.stderr.write(f"klondike-race: {exc}\n")
        return 2
    logs.setup(config.log_level)

    def ready(url: str) -> None:
        tune_gc()
        sys.stdout.write(f"Klondike Race is running: open {url}\n")
        sys.stdout.flush()

    app = App(config)
    try:
        _run(app.run_until_signal(ready))
    except ConfigError as exc:
        sys.stderr.write(f"klondike-race: {exc}\n")
        return 2
    except OSError as exc:  # the port is taken, and such
        sys.stderr.write(f"klondike-race: {exc}\n")
        return 1
    return 0


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


def _run(coro: object) -> None:
    try:
        import uvloop
    except ImportError:  # not on Linux
        asyncio.run(coro)  # type: ignore[arg-type]
    else:
        uvloop.run(coro)  # type: ignore[arg-type]


if __name__ == "__main__":
    sys.exit(main())
