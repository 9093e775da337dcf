"""Benchmark of the solver (server.klondike.solver) on random deals.

Run from the project's root::

    .venv/bin/python bench/solver.py                        # 1000 deals of D1N, D3N, D1V
    .venv/bin/python bench/solver.py --deals 100 --jobs 2   # a quicker look, two processes
    nice .venv/bin/python bench/solver.py --modes D3N --budget 60
    .venv/bin/python bench/solver.py --deals 200 --hint-positions 0 --undecided   # the hard cases
    .venv/bin/python bench/solver.py --deals 0                                  # the hint latency only

The deals are the same deal numbers in every mode, drawn from
``random.Random(SEED)`` (``--seed``), so every run solves the same list.
Each deal is solved from its start by one process on one core, with a budget
of ``--budget`` seconds; ``--jobs`` runs that many such processes side by side.
Times are CPU seconds of the solving process (:func:`time.process_time`,
which the budget is measured on too), so that other work on the machine, or
``--jobs``, does not stretch them; wall-clock time on an idle core is about
the same.

Printed per mode: the share of deals decided (winnable or lost) within 0.1 s,
1 s and the budget; the median, 90th and 99th percentile time (an undecided
deal counts at the budget); the median time of the winnable deals; the
winnable share with its bounds (undecided deals counted as lost, then as won);
positions searched per second. Then the solver as a hint mid-game: positions
30 moves into real games (each game played by following ``Game.hint()`` from
the deal), and how long the solver takes to say whether the position can be
won and how (its first move is the hint), p50 and p99, with the share of
positions answered within the budget.
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import statistics
import sys
import time
from collections.abc import Callable, Iterable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from server.klondike import KL1, DealCode, Game
from server.klondike.solver import solve

SEED = 20260412
MODES = ("D1N", "D3N", "D1V")
HINT_PLIES = 30


@dataclass(frozen=True)
class Result:
    code: str
    verdict: str
    seconds: float
    nodes: int


def deal_numbers(count: int, seed: int) -> list[int]:
    """KL1 numbers (codes the server draws are KL2): the same deals as the
    figures recorded before KL2, and the search does not depend on the format."""
    rng = random.Random(seed)
    return [rng.randrange(KL1.max_number + 1) for _ in range(count)]


def mode_codes(mode: str, numbers: list[int]) -> list[str]:
    return [str(DealCode(n, int(mode[1]), mode[2])) for n in numbers]  # type: ignore[arg-type]


def solve_deal(code: str, budget: float) -> Result:
    solution = solve(Game(code), seconds=budget, clock=time.process_time)
    return Result(code, solution.verdict, solution.seconds, solution.nodes)


def played(code: str, plies: int) -> Game | None:
    """The game after ``plies`` moves of following the hints, or None if it ended."""
    game = Game(code)
    for _ in range(plies):
        move = game.hint()
        if move is None:
            return None
        game.push(move)
    return game


def solve_mid_game(code: str, budget: float) -> Result | None:
    game = played(code, HINT_PLIES)
    if game is None:
        return None
    solution = solve(game, seconds=budget, clock=time.process_time)
    return Result(code, solution.verdict, solution.seconds, solution.nodes)


def out(line: str = "") -> None:
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def run_all(jobs: int, fn: Callable[[str, float], Result | None], codes: list[str],
            budget: float, label: str) -> list[Result | None]:
    out: list[Result | None] = []
    start = time.perf_counter()
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        for i, result in enumerate(pool.map(fn, codes, [budget] * len(codes))):
            out.append(result)
            if (i + 1) % 50 == 0 or i + 1 == len(codes):
                sys.stderr.write(f"\r{label}: {i + 1}/{len(codes)} "
                                 f"({time.perf_counter() - start:.0f} s)")
                sys.stderr.flush()
    sys.stderr.write("\n")
    return out


def share(count: int, total: int) -> str:
    return f"{100 * count / total:.1f} %" if total else "n/a"


def ms(seconds: float) -> str:
    if seconds != seconds:  # NaN: no values
        return "n/a"
    return f"{seconds * 1000:.0f} ms" if seconds < 10 else f"{seconds:.1f} s"


def report_deals(mode: str, results: Iterable[Result], budget: float) -> list[str]:
    rs = list(results)
    n = len(rs)
    times = [r.seconds if r.verdict != "unknown" else budget for r in rs]
    decided = [r for r in rs if r.verdict != "unknown"]
    won = [r for r in rs if r.verdict == "winnable"]
    unknown = n - len(decided)
    nodes = sum(r.nodes for r in rs)
    cpu = sum(r.seconds for r in rs)
    return [
        f"| {mode} | {n} "
        f"| {share(sum(r.seconds < 0.1 for r in decided), n)} "
        f"| {share(sum(r.seconds < 1 for r in decided), n)} "
        f"| {share(len(decided), n)} "
        f"| {ms(statistics.median(times))} | {ms(percentile(times, 0.9))} "
        f"| {ms(percentile(times, 0.99))} "
        f"| {ms(statistics.median([r.seconds for r in won])) if won else 'n/a'} "
        f"| {share(len(won), n)} ({share(len(won), n)} – {share(len(won) + unknown, n)}) "
        f"| {share(n - len(won) - unknown, n)} | {nodes / cpu:,.0f} |"
    ]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--deals", type=int, default=1000, help="deals per mode (default 1000, 0: none)")
    parser.add_argument("--jobs", type=int, default=1, help="processes side by side (default 1)")
    parser.add_argument("--budget", type=float, default=10.0, help="seconds per deal (default 10)")
    parser.add_argument("--seed", type=int, default=SEED, help=f"of the deal list (default {SEED})")
    parser.add_argument("--modes", default=",".join(MODES), help="default D1N,D3N,D1V")
    parser.add_argument("--undecided", action="store_true",
                        help="also list each mode's deals left undecided, the hard cases to work on")
    parser.add_argument("--hint-positions", type=int, default=200,
                        help="mid-game positions per mode for the hint latency (default 200, 0: none)")
    args = parser.parse_args()
    modes = [m.strip().upper() for m in args.modes.split(",") if m.strip()]
    numbers = deal_numbers(max(args.deals, args.hint_positions), args.seed)
    cpu = platform.processor()
    info = Path("/proc/cpuinfo")
    if info.exists():
        names = [line.split(":", 1)[1].strip() for line in info.read_text().splitlines()
                 if line.startswith("model name")]
        cpu = names[0] if names else cpu
    out(f"# bench/solver.py: {args.deals} deals per mode, seed {args.seed}, budget {args.budget:g} s, "
        f"{args.jobs} job(s)")
    out(f"# Python {platform.python_version()}, {cpu}, {os.cpu_count()} cores")
    # each table is printed line by line as its modes finish, the deals first
    undecided: list[str] = []
    if args.deals:
        out()
        out("| mode | deals | decided < 0.1 s | < 1 s | < budget | median | p90 | p99 "
            "| median (winnable) | winnable (bounds) | lost | positions/s |")
        out("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for mode in modes if args.deals else ():
        codes = mode_codes(mode, numbers[:args.deals])
        results = [r for r in run_all(args.jobs, solve_deal, codes, args.budget, mode) if r]
        for line in report_deals(mode, results, args.budget):
            out(line)
        if args.undecided:
            undecided.append(f"{mode}: " + (" ".join(r.code for r in results if r.verdict == "unknown")
                                            or "none"))
    if undecided:
        out()
        out(f"Undecided within {args.budget:g} s:")
        for line in undecided:
            out(line)
    if args.hint_positions:
        out()
        out(f"Solver as a hint, {HINT_PLIES} moves into games played by the hints:")
        out()
        out("| mode | positions | p50 | p99 | answered ≤ 0.3 s | answered |")
        out("|---|---|---|---|---|---|")
    for mode in modes if args.hint_positions else ():
        codes = mode_codes(mode, numbers[:args.hint_positions])
        mid = [r for r in run_all(args.jobs, solve_mid_game, codes, args.budget,
                                  f"{mode} mid-game") if r]
        times = [r.seconds if r.verdict != "unknown" else args.budget for r in mid]
        answered = sum(r.verdict != "unknown" for r in mid)
        quick = sum(r.verdict != "unknown" and r.seconds <= 0.3 for r in mid)
        out(f"| {mode} | {len(mid)} | {ms(percentile(times, 0.5))} "
            f"| {ms(percentile(times, 0.99))} | {share(quick, len(mid))} "
            f"| {share(answered, len(mid))} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
