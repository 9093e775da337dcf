"""Benchmark of the rules engine (server.klondike) on real games.

Run from the project's root::

    .venv/bin/python bench/engine.py              # 5 runs of each figure
    .venv/bin/python bench/engine.py --repeat 9   # more runs, steadier medians
    .venv/bin/python bench/engine.py --quick      # less work per run, a rough look

Every figure is the median of ``--repeat`` runs, measured with
:func:`time.perf_counter` in this one process, pinned to one CPU where the OS
allows it, with the garbage collector disabled inside the timed loops (it is
collected before each run). Positions and moves come from the test vectors in
``tests/vectors``: the 40 scripted games of ``kl1.json`` and the 14 won
games of ``wins.json``. Work that is not being measured (parsing notation,
building fresh games, sampling positions) happens outside the timed sections.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import platform
import statistics
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from server.klondike import KL2, Game, Move, deal, replay

VECTORS = Path(__file__).resolve().parents[1] / "tests" / "vectors"

#: A script with its undos kept: a Move to push, or None for an undo (pop).
Script = list[Move | None]
#: One run of a benchmark: (operations done, seconds spent in the timed sections).
Run = tuple[int, float]

REPLAY_LENGTH = 300


@dataclass(frozen=True)
class Workload:
    scripts: list[tuple[str, Script]]  # kl1.json games then wins.json games
    lines: list[tuple[str, list[Move]]]  # the same games, moves in effect only (undos applied)
    positions: list[Game]  # the game after every move of every script, undo history included
    replay_code: str
    replay_moves: list[str]  # notation, REPLAY_LENGTH moves of a wins.json script


@dataclass(frozen=True)
class Figure:
    name: str
    runs: list[float]
    unit: str
    target: str = ""
    met: Callable[[float], bool] | None = None

    @property
    def median(self) -> float:
        return statistics.median(self.runs)


# ---------------------------------------------------------------------- workload


def load_workload(quick: bool) -> Workload:
    kl1 = json.loads((VECTORS / "kl1.json").read_text())
    wins = json.loads((VECTORS / "wins.json").read_text())
    games = kl1["games"] + wins
    scripts: list[tuple[str, Script]] = [
        (g["code"], [None if tok == "undo" else Move.parse(tok) for tok in g["script"]]) for g in games
    ]
    lines: list[tuple[str, list[Move]]] = []
    positions: list[Game] = []
    for code, script in scripts:
        game = Game(code)
        line: list[Move] = []
        for move in script:
            if move is None:
                game.pop()
                line.pop()
            else:
                game.push(move)
                line.append(move)
            positions.append(game.copy())
        lines.append((code, line))
    if quick:
        positions = positions[::5]
    long_win = next(g for g in wins if len(g["script"]) >= REPLAY_LENGTH and "undo" not in g["script"])
    return Workload(scripts, lines, positions, long_win["code"], long_win["script"][:REPLAY_LENGTH])


# ---------------------------------------------------------------------- timing


@contextmanager
def no_gc() -> Iterator[None]:
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def runs_of(bench: Callable[[], Run], repeat: int) -> list[Run]:
    out: list[Run] = []
    for _ in range(repeat):
        gc.collect()
        with no_gc():
            out.append(bench())
    return out


def per_second(runs: list[Run]) -> list[float]:
    return [count / seconds for count, seconds in runs]


def bench_deals(count: int) -> Run:
    """deal() over deal numbers spread across the whole KL2 range 0..2^64-1."""
    numbers = [(i * 0x9E3779B97F4A7C15) % (KL2.max_number + 1) for i in range(count)]
    t0 = time.perf_counter()
    for number in numbers:
        deal(number)
    return len(numbers), time.perf_counter() - t0


def bench_legal_moves(positions: list[Game]) -> Run:
    t0 = time.perf_counter()
    for game in positions:
        game.legal_moves()
    return len(positions), time.perf_counter() - t0


def bench_push(scripts: list[tuple[str, Script]], passes: int) -> Run:
    """Game.push(Move) along the scripts; their undos are pop() and their time counts too."""
    pushes, seconds = 0, 0.0
    for _ in range(passes):
        for code, script in scripts:
            game = Game(code)
            push, pop = game.push, game.pop
            t0 = time.perf_counter()
            for move in script:
                if move is None:
                    pop()
                else:
                    push(move)
            seconds += time.perf_counter() - t0
            pushes += len(script) - script.count(None)
    return pushes, seconds


def bench_pop(lines: list[tuple[str, list[Move]]], passes: int) -> Run:
    """Game.pop() along whole games: push up to 100 moves (untimed), pop them all (timed), push again."""
    pops, seconds = 0, 0.0
    for _ in range(passes):
        for code, line in lines:
            game = Game(code)
            push, pop = game.push, game.pop
            for start in range(0, len(line), 100):
                chunk = line[start : start + 100]
                for move in chunk:
                    push(move)
                t0 = time.perf_counter()
                for _ in chunk:
                    pop()
                seconds += time.perf_counter() - t0
                pops += len(chunk)
                for move in chunk:
                    push(move)
    return pops, seconds


def bench_replay(code: str, moves: list[str], times: int) -> Run:
    t0 = time.perf_counter()
    for _ in range(times):
        replay(code, moves)
    return times, time.perf_counter() - t0


def bench_encode(positions: list[Game]) -> Run:
    t0 = time.perf_counter()
    for game in positions:
        game.snapshot()
    return len(positions), time.perf_counter() - t0


def bench_decode(snapshots: list[bytes]) -> Run:
    from_snapshot = Game.from_snapshot
    t0 = time.perf_counter()
    for data in snapshots:
        from_snapshot(data)
    return len(snapshots), time.perf_counter() - t0


def bench_view(positions: list[Game]) -> Run:
    t0 = time.perf_counter()
    for game in positions:
        game.view()
    return len(positions), time.perf_counter() - t0


# ---------------------------------------------------------------------- report


def pin_to_one_cpu() -> str:
    if not hasattr(os, "sched_setaffinity"):
        return "not pinned (no sched_setaffinity on this OS)"
    cpu = max(os.sched_getaffinity(0))
    os.sched_setaffinity(0, {cpu})
    return f"pinned to CPU {cpu}"


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def fmt(value: float) -> str:
    if value >= 1000:
        return f"{value:,.0f}".replace(",", " ")
    if value >= 10:
        return f"{value:.1f}"
    return f"{value:.3f}"


def show(figures: list[Figure], repeat: int) -> bool:
    """Print the table; return whether every target is met."""
    print(f"{'figure':<34} {'median':>12} {'unit':<6} {'min .. max of ' + str(repeat):>26}  target")  # noqa: T201
    all_met = True
    for f in figures:
        spread = f"{fmt(min(f.runs))} .. {fmt(max(f.runs))}"
        verdict = ""
        if f.met is not None:
            ok = f.met(f.median)
            all_met &= ok
            verdict = f"{f.target:<14} {'met' if ok else 'NOT MET'}"
        print(f"{f.name:<34} {fmt(f.median):>12} {f.unit:<6} {spread:>26}  {verdict}".rstrip())  # noqa: T201
    return all_met


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--repeat", type=int, default=5, metavar="N", help="runs per figure (default 5)")
    parser.add_argument("--quick", action="store_true", help="less work per run: rough figures, fast")
    args = parser.parse_args(argv)
    if args.repeat < 1:
        parser.error("--repeat must be at least 1")
    repeat: int = args.repeat
    quick: bool = args.quick

    pinned = pin_to_one_cpu()
    work = load_workload(quick)
    snapshots = [g.snapshot() for g in work.positions]
    n_deals = 2_000 if quick else 20_000
    passes = 1 if quick else 3
    replays = 20 if quick else 200
    n_moves = sum(len(s) for _, s in work.scripts)

    print("Klondike engine benchmark (server.klondike)")  # noqa: T201
    print(  # noqa: T201
        f"python {platform.python_version()} ({platform.python_implementation()}), "
        f"{platform.system()} {platform.machine()}, nproc {os.cpu_count()}, CPU {cpu_model()}"
    )
    print(  # noqa: T201
        f"one process, {pinned}, gc disabled in timed loops; median of {repeat} runs"
        f"{', --quick' if quick else ''}"
    )
    print(  # noqa: T201
        f"workload: {len(work.scripts)} scripted games ({n_moves} tokens), "
        f"{len(work.positions)} positions along them, {n_deals} deals, "
        f"replay of {work.replay_code} ({len(work.replay_moves)} moves)\n"
    )

    deal_runs = runs_of(lambda: bench_deals(n_deals), repeat)
    replay_runs = runs_of(lambda: bench_replay(work.replay_code, work.replay_moves, replays), repeat)
    figures = [
        Figure("deals per second", per_second(deal_runs), "/s"),
        Figure("one deal", [s / n * 1e6 for n, s in deal_runs], "µs", "< 100 µs", lambda v: v < 100),
        Figure(
            "legal_moves() per second",
            per_second(runs_of(lambda: bench_legal_moves(work.positions), repeat)),
            "/s",
        ),
        Figure(
            "validated moves (push) per second",
            per_second(runs_of(lambda: bench_push(work.scripts, passes), repeat)),
            "/s",
            ">= 100 000 /s",
            lambda v: v >= 100_000,
        ),
        Figure(
            "undos (pop) per second", per_second(runs_of(lambda: bench_pop(work.lines, passes), repeat)), "/s"
        ),
        Figure(
            f"replay of {REPLAY_LENGTH} moves",
            [s / n * 1e3 for n, s in replay_runs],
            "ms",
            "< 5 ms",
            lambda v: v < 5,
        ),
        Figure(
            "snapshot() per second", per_second(runs_of(lambda: bench_encode(work.positions), repeat)), "/s"
        ),
        Figure(
            "Game.from_snapshot() per second",
            per_second(runs_of(lambda: bench_decode(snapshots), repeat)),
            "/s",
        ),
        Figure("view() per second", per_second(runs_of(lambda: bench_view(work.positions), repeat)), "/s"),
    ]
    all_met = show(figures, repeat)
    undos = sum(s.count(None) for _, s in work.scripts)
    print(  # noqa: T201
        f"\npush: Game.push(Move) with pre-parsed moves; the scripts' {undos} undos are pop() calls "
        "inside the timed loop (not counted as moves)\n"
        "pop: every move of the games undone, 100 at a time (the undo limit), re-pushed untimed\n"
        "replay: server.klondike.replay(code, notation strings), dealing included\n"
        f"legal_moves, snapshot, view: the game after {'every 5th' if quick else 'every'} move of each script"
    )
    print(f"\nall targets met: {'yes' if all_met else 'NO'}")  # noqa: T201
    return 0


if __name__ == "__main__":
    sys.exit(main())
