"""``klondike-race solve CODE [--budget SECONDS]``: the verdict, the line, the exit status."""

from __future__ import annotations

import subprocess
import sys

import pytest
from harness import ROOT

from server.klondike import replay


def solve(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "server", "solve", *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)


def test_a_winnable_deal_prints_its_line_and_exits_0() -> None:
    done = solve("  kl1-d1n-aaaaaag ")
    assert done.returncode == 0
    verdict, *line = done.stdout.splitlines()
    assert verdict == "winnable" and replay("KL1-D1N-AAAAAAG", line).is_won
    assert done.stderr.startswith("klondike-race solve: KL1-D1N-AAAAAAG is winnable in ")
    assert done.stderr.count("\n") == 1


def test_a_kl2_code_is_solved_as_the_deal_of_its_number() -> None:
    done = solve("\tkl2-d1n-aaaaaaaaaaaag\n")
    assert done.returncode == 0
    verdict, *line = done.stdout.splitlines()
    assert verdict == "winnable" and replay("KL2-D1N-AAAAAAAAAAAAG", line).is_won
    assert replay("KL1-D1N-AAAAAAG", line).is_won  # KL1 number 6 is the same deal
    assert done.stderr.startswith("klondike-race solve: KL2-D1N-AAAAAAAAAAAAG is winnable in ")


def test_a_lost_deal_exits_1() -> None:
    done = solve("KL1-D3V-AAAAAAC")
    assert (done.returncode, done.stdout) == (1, "lost\n")
    assert "is lost" in done.stderr


def test_a_spent_budget_is_unknown_and_exits_2() -> None:
    done = solve("KL1-D1V-ACT552B", "--budget", "0.001")  # won, but not in 256 positions
    assert (done.returncode, done.stdout) == (2, "unknown\n")
    assert "the budget ran out" in done.stderr


@pytest.mark.parametrize(("args", "words"), [
    (["KL1-D2N-AAAAAAG"], "bad draw digit '2'"),
    (["hello"], "hello"),
    (["KL2-D1N-QAAAAAAAAAAAA"], "2^64 or more"),
    (["KL2-D1N-AAAAAAG"], "expected 13 in a KL2 code"),
    (["KL1-D1N-AAAAAAG", "--budget", "0"], "above 0"),
    (["KL1-D1N-AAAAAAG", "--budget", "soon"], "'soon'"),
    ([], "the following arguments are required: code"),
])
def test_a_bad_code_or_option_is_one_line_and_exits_64(args: list[str], words: str) -> None:
    done = solve(*args)
    assert done.returncode == 64 and done.stdout == ""
    assert words in done.stderr and "Traceback" not in done.stderr
    assert done.stderr.splitlines()[-1].startswith("klondike-race solve: ")


def test_help_says_what_the_statuses_mean() -> None:
    done = solve("--help")
    assert done.returncode == 0
    assert "0 winnable, 1 lost, 2 unknown, 64 for a bad code" in " ".join(done.stdout.split())
