"""Benchmark of the solver (server.klondike.solver) on random deals.

Run from the project's root::

    .venv/bin/python bench/solver.py                        # 1000 deals of D1N, D3N, D1V
    .venv/bin/python bench/solver.py --deals 100 --jobs 2   # a quicker look, two processes
    nice .venv/bin/python bench/solver.py --modes D3N --budget 60
    .venv/bin/python bench/solver.py --deals 200 --hint-positions 0 --undecided   # the hard cases
    .venv/bin/python bench/solver.py --deals 0                                  # the hint latency only
    .venv/bin/python bench/solver.py --deals 150 --refill 100   # and the pools' refill rate
    .venv/bin/python bench/solver.py --build compiled           # the compiled engine only

Both builds of the engine in one run (``--build both``, the default): the
figures below for the build this process runs (the compiled one wherever
``.ci/bootstrap`` built it, see ``server.klondike.BUILD``), then the same
figures for plain Python on the first ``--plain-deals`` deals of each mode
(a process of its own with ``KR_PURE=1``; plain Python is slow), and last
positions per second of both on those same deals, with the ratio.

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
positions answered within the budget. With ``--refill DEALS``: the
winnable pools' refill rate, deals certified per CPU-second in each mode
(D3V included), on that many random KL2 deals (the same ones in both
builds), each given the server's budget (``CERTIFY_SECONDS`` of
server/app/solver/winnable_deals.py).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Iterable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from server.klondike import BUILD, KL1, KL2, DealCode, Game
from server.klondike.solver import solve

SEED = 20260412
MODES = ("D1N", "D3N", "D1V")
REFILL_MODES = ("D1N", "D3N", "D1V", "D3V")
#: seconds the server's pools give one candidate deal (winnable_deals.CERTIFY_SECONDS)
CERTIFY_SECONDS = 1.0
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


def refill_codes(mode: str, seed: int, count: int) -> list[str]:
    """Random KL2 codes of ``mode``, as the pools draw them (from a seed here)."""
    rng = random.Random(f"{seed}-{mode}")
    draw, scoring = int(mode[1]), mode[2]
    return [str(DealCode(rng.randrange(KL2.max_number + 1), draw, scoring, KL2))  # type: ignore[arg-type]
            for _ in range(count)]


def certify_deal(code: str, budget: float) -> Result:
    """A pool's try: winnable only with a line the engine replayed to a win."""
    solution = solve(Game(code), seconds=budget, clock=time.process_time)
    return Result(code, solution.verdict, solution.seconds, solution.nodes)


def refill(mode: str, deals: int, seed: int, jobs: int) -> tuple[int, int, float]:
    """Deals tried, deals certified, CPU seconds spent, on the first ``deals``
    codes of the mode's list."""
    codes = refill_codes(mode, seed, deals)
    results = [r for r in run_all(jobs, certify_deal, codes, CERTIFY_SECONDS, f"refill {mode}") if r]
    certified = sum(r.verdict == "winnable" for r in results)
    return len(results), certified, sum(r.seconds for r in results)


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


def report_deals(build: str, mode: str, results: Iterable[Result], budget: float) -> list[str]:
    rs = list(results)
    n = len(rs)
    times = [r.seconds if r.verdict != "unknown" else budget for r in rs]
    decided = [r for r in rs if r.verdict != "unknown"]
    won = [r for r in rs if r.verdict == "winnable"]
    unknown = n - len(decided)
    nodes = sum(r.nodes for r in rs)
    cpu = sum(r.seconds for r in rs)
    return [
        f"| {build} | {mode} | {n} "
        f"| {share(sum(r.seconds < 0.1 for r in decided), n)} "
        f"| {share(sum(r.seconds < 1 for r in decided), n)} "
        f"| {share(len(decided), n)} "
        f"| {ms(statistics.median(times))} | {ms(percentile(times, 0.9))} "
        f"| {ms(percentile(times, 0.99))} "
        f"| {ms(statistics.median([r.seconds for r in won])) if won else 'n/a'} "
        f"| {share(len(won), n)} ({share(len(won), n)} – {share(len(won) + unknown, n)}) "
        f"| {share(n - len(won) - unknown, n)} | {rate(nodes, cpu)} |"
    ]


def rate(nodes: int, cpu: float) -> str:
    return f"{nodes / cpu:,.0f}" if cpu > 0 else "n/a"


def build_name() -> str:
    return "compiled" if BUILD == "compiled" else "plain"



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
    parser.add_argument("--refill", type=int, default=0, metavar="DEALS",
                        help="random KL2 deals per mode (D1N, D3N, D1V, D3V) certified as the pools do, "
                             "the same in both builds, for deals certified per CPU-second (default 0: none)")
    parser.add_argument("--build", choices=("both", "compiled", "plain"), default="both",
                        help="the engine's builds to measure: this process's own "
                             "(compiled where built) and plain Python in a child process (default both)")
    parser.add_argument("--plain-deals", type=int, default=30,
                        help="deals per mode for plain Python under --build both (default 30; "
                             "its hint positions are cut in the same proportion)")
    parser.add_argument("--summary", help=argparse.SUPPRESS)  # a child's figures, as JSON, to this file
    args = parser.parse_args()
    if args.build == "plain" and BUILD == "compiled":
        return plain_child(args, args.deals, args.hint_positions, args.refill)
    if args.build == "compiled" and BUILD != "compiled":
        sys.stderr.write(f"the engine is not compiled here: {BUILD}\n")
        return 1
    modes = [m.strip().upper() for m in args.modes.split(",") if m.strip()]
    own = build_name()
    if not args.summary:
        header(args)
    figures = measure(args, modes, own)
    if args.summary:
        Path(args.summary).write_text(json.dumps(figures))
        return 0
    if args.build == "both" and own == "compiled":
        cut = min(1.0, args.plain_deals / args.deals) if args.deals else 0.25
        plain = plain_figures(args, args.plain_deals if args.deals else 0,
                              round(args.hint_positions * cut), args.refill)
        if args.deals:
            out()
            out(f"Positions per second on the first {min(args.plain_deals, args.deals)} deals "
                f"of each mode, both builds:")
            out()
            out("| mode | compiled | plain Python | ratio |")
            out("|---|---|---|---|")
        for mode in modes if args.deals else ():
            c = figures["subset"].get(mode)
            p = plain["all"].get(mode)
            ratio = f"{c / p:.1f} ×" if c and p else "n/a"
            out(f"| {mode} | {c or 0:,.0f} | {p or 0:,.0f} | {ratio} |")
        if args.refill:
            out()
            out("| mode | certified per CPU-second, compiled | plain Python | ratio |")
            out("|---|---|---|---|")
            for mode in REFILL_MODES:
                c, p = figures["refill"].get(mode), plain["refill"].get(mode)
                ratio = f"{c / p:.1f} ×" if c and p else "n/a"
                out(f"| {mode} | {c or 0:.2f} | {p or 0:.2f} | {ratio} |")
    elif args.build == "both":
        out()
        out(f"(plain Python only: {BUILD})")
    return 0


def header(args: argparse.Namespace) -> None:
    cpu = platform.processor()
    info = Path("/proc/cpuinfo")
    if info.exists():
        names = [line.split(":", 1)[1].strip() for line in info.read_text().splitlines()
                 if line.startswith("model name")]
        cpu = names[0] if names else cpu
    out(f"# bench/solver.py: {args.deals} deals per mode, seed {args.seed}, budget {args.budget:g} s, "
        f"{args.jobs} job(s); engine {BUILD}")
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    out(f"# Python {platform.python_version()}, {cpu}, {os.cpu_count()} cores, "
        f"load average {load:.2f} at the start")


def plain_child(args: argparse.Namespace, deals: int, hints: int, refill_deals: int) -> int:
    """This benchmark again in a process of its own running plain Python."""
    return subprocess.run(child_command(args, deals, hints, refill_deals, None),
                          env={**os.environ, "KR_PURE": "1"}).returncode


def child_command(args: argparse.Namespace, deals: int, hints: int, refill_deals: int,
                  summary: str | None) -> list[str]:
    command = [sys.executable, __file__, "--build", "plain", "--deals", str(deals),
               "--jobs", str(args.jobs), "--budget", str(args.budget), "--seed", str(args.seed),
               "--modes", args.modes, "--hint-positions", str(hints), "--refill", str(refill_deals)]
    if args.undecided:
        command.append("--undecided")
    if summary:
        command += ["--summary", summary]
    return command


def plain_figures(args: argparse.Namespace, deals: int, hints: int,
                  refill_deals: int) -> dict[str, dict[str, float]]:
    """The plain-Python figures, printed by a child process, returned too."""
    import tempfile

    with tempfile.NamedTemporaryFile(suffix=".json") as summary:
        command = child_command(args, deals, hints, refill_deals, summary.name)
        done = subprocess.run(command, env={**os.environ, "KR_PURE": "1"})
        if done.returncode:
            raise SystemExit(f"the plain-Python run failed ({done.returncode})")
        figures: dict[str, dict[str, float]] = json.loads(Path(summary.name).read_text())
    return figures


def measure(args: argparse.Namespace, modes: list[str], build: str) -> dict[str, dict[str, float]]:
    """Prints this build's tables; returns positions per second per mode (on
    all deals, and on the first ``--plain-deals``) and the refill rates."""
    figures: dict[str, dict[str, float]] = {"all": {}, "subset": {}, "refill": {}}
    numbers = deal_numbers(max(args.deals, args.hint_positions), args.seed)
    # each table is printed line by line as its modes finish, the deals first
    undecided: list[str] = []
    if args.deals:
        out()
        out("| build | mode | deals | decided < 0.1 s | < 1 s | < budget | median | p90 | p99 "
            "| median (winnable) | winnable (bounds) | lost | positions/s |")
        out("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for mode in modes if args.deals else ():
        codes = mode_codes(mode, numbers[:args.deals])
        results = [r for r in run_all(args.jobs, solve_deal, codes, args.budget, f"{build} {mode}") if r]
        for line in report_deals(build, mode, results, args.budget):
            out(line)
        cpu = sum(r.seconds for r in results)
        figures["all"][mode] = sum(r.nodes for r in results) / cpu if cpu else 0.0
        first = results[:args.plain_deals]
        cpu = sum(r.seconds for r in first)
        figures["subset"][mode] = sum(r.nodes for r in first) / cpu if cpu else 0.0
        if args.undecided:
            undecided.append(f"{mode}: " + (" ".join(r.code for r in results if r.verdict == "unknown")
                                            or "none"))
    if undecided:
        out()
        out(f"Undecided within {args.budget:g} s ({build}):")
        for line in undecided:
            out(line)
    if args.hint_positions:
        out()
        out(f"Solver as a hint, {HINT_PLIES} moves into games played by the hints ({build}):")
        out()
        out("| build | mode | positions | p50 | p99 | answered ≤ 0.3 s | answered ≤ 1 s | answered |")
        out("|---|---|---|---|---|---|---|---|")
    for mode in modes if args.hint_positions else ():
        codes = mode_codes(mode, numbers[:args.hint_positions])
        mid = [r for r in run_all(args.jobs, solve_mid_game, codes, args.budget,
                                  f"{build} {mode} mid-game") if r]
        times = [r.seconds if r.verdict != "unknown" else args.budget for r in mid]
        answered = sum(r.verdict != "unknown" for r in mid)
        quick = sum(r.verdict != "unknown" and r.seconds <= 0.3 for r in mid)
        second = sum(r.verdict != "unknown" and r.seconds <= 1 for r in mid)
        out(f"| {build} | {mode} | {len(mid)} | {ms(percentile(times, 0.5))} "
            f"| {ms(percentile(times, 0.99))} | {share(quick, len(mid))} "
            f"| {share(second, len(mid))} | {share(answered, len(mid))} |")
    if args.refill:
        out()
        out(f"Refilling the winnable pools ({build}): {args.refill} random KL2 deals per mode, "
            f"{CERTIFY_SECONDS:g} s each:")
        out()
        out("| build | mode | deals tried | certified | CPU seconds | certified per CPU-second |")
        out("|---|---|---|---|---|---|")
    for mode in REFILL_MODES if args.refill else ():
        tried, certified, cpu = refill(mode, args.refill, args.seed, args.jobs)
        figures["refill"][mode] = certified / cpu if cpu else 0.0
        out(f"| {build} | {mode} | {tried} | {certified} | {cpu:.1f} | {figures['refill'][mode]:.2f} |")
    return figures


if __name__ == "__main__":
    sys.exit(main())
