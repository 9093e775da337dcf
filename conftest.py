"""What pytest collects depends on the engine's build (server/klondike/_native.py).

Compiled modules keep no docstrings, so the doctests of server/klondike's
modules run in the plain-Python pass of tests/klondike/test_kl_build.py, and
are not collected from a compiled build (docs/engine.md's run either way).
"""

from __future__ import annotations

from pathlib import Path

from server.klondike import COMPILED
from server.klondike._native import HERE, MODULES

COMPILED_SOURCES = {HERE / f"{name}.py" for name in MODULES}


def pytest_ignore_collect(collection_path: Path) -> bool | None:
    if COMPILED and collection_path in COMPILED_SOURCES:
        return True
    return None
