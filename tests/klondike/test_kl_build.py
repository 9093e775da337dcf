"""The engine's two builds (server/klondike/_native.py): compiled by mypyc, and
plain Python.

The suite runs against whichever build the package chose (the compiled one
wherever ``.ci/bootstrap`` could build it); the last test here runs the
engine's vectors, properties and solver tests again in plain Python
(``KR_PURE=1``), in a pytest process of their own: every vector and perft
count, the first ten games of each property (profile ``klondike-plain``), and
the solver on small and mid-game positions (its whole-deal searches, marked
``search``, are the compiled pass's: the same source, five to ten times
slower in plain Python, and no rule of the game in them).
"""

from __future__ import annotations

import importlib
import importlib.machinery
import os
import subprocess
import sys
from pathlib import Path

import pytest

from server import klondike
from server.klondike import _native

TOP = Path(__file__).resolve().parents[2]
PLAIN = os.environ.get("KR_PURE", "") not in ("", "0")
#: The engine's tests run again in plain Python: the vectors, the rules'
#: properties, the perft counts, the solver's soundness and the doctests.
PLAIN_RUN = (
    "tests/klondike/test_kl_build.py::test_the_build_in_use_is_the_one_asked_for",
    "tests/klondike/test_kl_vectors.py",
    "tests/klondike/test_kl2_vectors.py",
    "tests/klondike/test_kl_properties.py",
    "tests/klondike/test_kl_perft.py",
    "tests/klondike/test_kl_moves.py",
    "tests/klondike/test_kl_solver.py",
    "server/klondike",  # the modules' doctests
)


def module_files() -> dict[str, str]:
    return {name: str(importlib.import_module(f"server.klondike.{name}").__file__)
            for name in _native.MODULES}


def test_the_build_in_use_is_the_one_asked_for() -> None:
    """``KR_PURE=1``: every module from its source; otherwise the compiled
    build whenever it is built and current (and ``KR_REQUIRE_COMPILED=1``, as
    CI sets it, requires that it is)."""
    files = module_files()
    extension = tuple(importlib.machinery.EXTENSION_SUFFIXES)
    if PLAIN:
        assert klondike.BUILD == "plain Python (KR_PURE is set)"
        assert all(f.endswith(".py") for f in files.values()), files
        return
    current = _native.built() and _native.read_stamp().get("sources") == _native.source_digest()
    if os.environ.get("KR_REQUIRE_COMPILED") == "1":
        assert current, f"the engine is not compiled: {klondike.BUILD}"
    if current:
        assert klondike.BUILD == "compiled" and klondike.COMPILED
        assert all(f.endswith(extension) for f in files.values()), files
    else:
        assert klondike.BUILD.startswith("plain Python (") and not klondike.COMPILED


def test_kr_pure_runs_every_module_from_its_source() -> None:
    code = ("import server.klondike as k, server.klondike.search as s, server.klondike.game as g\n"
            "print(k.BUILD); print(s.__file__); print(g.__file__)")
    env = {**os.environ, "KR_PURE": "1"}
    out = subprocess.run([sys.executable, "-c", code], cwd=TOP, env=env, check=True,
                         capture_output=True, text=True).stdout.splitlines()
    assert out[0] == "plain Python (KR_PURE is set)"
    assert out[1].endswith("search.py") and out[2].endswith("game.py")


def test_changed_sources_are_not_run_from_a_stale_build(tmp_path: Path) -> None:
    """A stamp whose digest is not the sources' (an edit since the build):
    plain Python, and the reason says to build again."""
    package = tmp_path / "server" / "klondike"
    package.mkdir(parents=True)
    (tmp_path / "server" / "__init__.py").write_text("")
    for source in (TOP / "server" / "klondike").glob("*.py"):
        (package / source.name).write_text(source.read_text())
    suffix = importlib.machinery.EXTENSION_SUFFIXES[0]
    for name in (*_native.MODULES, _native.LIBRARY):  # what a build leaves, minus the code
        (package / f"{name}{suffix}").write_bytes(b"")
    (package / _native.STAMP).write_text('{"sources": "0000"}')
    code = "import server.klondike as k; print(k.BUILD)"
    env = {key: v for key, v in os.environ.items() if key != "KR_PURE"}
    out = subprocess.run([sys.executable, "-S", "-c", code], cwd=tmp_path, env=env, check=True,
                         capture_output=True, text=True).stdout.strip()
    assert out == "plain Python (the sources changed since the build: run .ci/bootstrap)"


@pytest.mark.slow
@pytest.mark.skipif(PLAIN, reason="this session is the plain-Python one already")
def test_the_engine_tests_pass_in_plain_python() -> None:
    env = {**os.environ, "KR_PURE": "1", "KLONDIKE_HYPOTHESIS_PROFILE": "klondike-plain"}
    env.pop("KR_REQUIRE_COMPILED", None)
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                           "-x", "-m", "not search", *PLAIN_RUN],
                          cwd=TOP, env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout[-6000:] + done.stderr[-2000:]
