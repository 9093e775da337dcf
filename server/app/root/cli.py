"""The command line: ``klondike-race serve`` and ``klondike-race solve CODE``."""

from __future__ import annotations

import argparse
import sys
import textwrap
from collections.abc import Sequence
from typing import NoReturn

from ...klondike import InvalidDealCodeError
from ...klondike.solver import DEFAULT_SECONDS, solve_code
from ..ground import config as config_mod
from ..ground import logs
from ..ground.config import ConfigError
from . import runner
from .lifespan import App
from .supervisor import StartFailed, Supervisor

#: Exit statuses of ``solve``: winnable, lost, unknown (the budget ran out),
#: and a bad command line (EX_USAGE of sysexits.h), such as a bad deal code.
SOLVE_STATUS = {"winnable": 0, "lost": 1, "unknown": 2}
EX_USAGE = 64


class _Parser(argparse.ArgumentParser):
    """An argument parser whose usage errors exit with ``usage_status``."""

    usage_status = 2

    def error(self, message: str) -> NoReturn:
        self.print_usage(sys.stderr)
        self.exit(self.usage_status, f"{self.prog}: error: {message}\n")


class _HelpFormatter(argparse.HelpFormatter):
    """argparse's, wrapping lines at spaces only: an option named in a help
    line (``--redis-url``) is never cut at its hyphen."""

    def _split_lines(self, text: str, width: int) -> list[str]:
        return textwrap.wrap(" ".join(text.split()), width, break_on_hyphens=False)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="klondike-race", description="Klondike Race: solitaire races on one deal.",
        epilog="'klondike-race COMMAND --help' tells a command's options.")
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_Parser,
                                     title="commands", metavar="COMMAND")
    serve = commands.add_parser(
        "serve", help="serve the web client and the game on one port", usage="%(prog)s [options]",
        formatter_class=lambda prog: _HelpFormatter(prog, max_help_position=34),
        description="Serve the web client, the websocket (/ws), /healthz and /metrics on one port. "
                    "Each option can be set in the environment too (its env); the command line "
                    "wins. docs/operations.md tells more of each.")
    config_mod.add_arguments(serve)
    solve = commands.add_parser(
        "solve", help="say whether a deal can be won, and how (no server needed)",
        description="Solve a deal from its start: print 'winnable' and a winning line, one "
                    "move per line, or 'lost', or 'unknown' when the budget ran out. Exit "
                    "status 0 winnable, 1 lost, 2 unknown, 64 for a bad code.")
    solve.usage_status = EX_USAGE
    solve.add_argument("code", help="a KL1 or KL2 deal code, like KL2-D1N-AAAAAAAAAAAAG")
    solve.add_argument("--budget", type=_seconds, default=DEFAULT_SECONDS, metavar="SECONDS",
                       help=f"search for at most this long [default: {DEFAULT_SECONDS:g}]")
    args = parser.parse_args(argv)
    if args.command == "solve":
        return _solve(args.code, args.budget)
    try:
        config = config_mod.load(args)
    except ConfigError as exc:
        sys.stderr.write(f"klondike-race: {exc}\n")
        return 2
    logs.setup(config.log_level)

    def ready(url: str) -> None:
        runner.tune_gc()
        sys.stdout.write(f"Klondike Race is running: open {url}\n")
        sys.stdout.flush()

    # one worker: this process is the server, as it always was
    server = App(config) if config.workers == 1 else Supervisor(config)
    try:
        runner.run(server.run_until_signal(ready))
    except ConfigError as exc:
        sys.stderr.write(f"klondike-race: {exc}\n")
        return 2
    except StartFailed as exc:  # a worker's own line
        sys.stderr.write(f"klondike-race: {exc}\n")
        return exc.status
    except OSError as exc:  # the port is taken, and such
        sys.stderr.write(f"klondike-race: {exc}\n")
        return 1
    return 0


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0 < value < float("inf"):
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds above 0")
    return value


def _solve(code: str, budget: float) -> int:
    """``klondike-race solve``: the verdict on stdout, then the line, one move a
    line; a one-line summary on stderr."""
    try:
        solution = solve_code(code, seconds=budget)
    except InvalidDealCodeError as exc:
        sys.stderr.write(f"klondike-race solve: {exc}\n")
        return EX_USAGE
    lines = [solution.verdict, *(solution.notation or [])]
    sys.stdout.write("\n".join(lines) + "\n")
    summary = {"winnable": f"winnable in {len(solution.notation or [])} moves",
               "lost": "lost: no line wins", "unknown": "unknown: the budget ran out"}
    positions = "1 position" if solution.nodes == 1 else f"{solution.nodes} positions"
    sys.stderr.write(f"klondike-race solve: {code.strip().upper()} is {summary[solution.verdict]} "
                     f"({positions} in {solution.seconds:.2f} s)\n")
    return SOLVE_STATUS[solution.verdict]


if __name__ == "__main__":
    sys.exit(main())
