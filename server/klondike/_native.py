"""Which build of the engine runs: the compiled one, or plain Python.

The engine's modules (:data:`MODULES`) are compiled in place by mypyc
(``.ci/build_core.py``, run by ``.ci/bootstrap``) into extension modules
that sit beside the sources; Python imports an extension module before a
source file of the same name. This module, never compiled itself, decides
before the package imports any of them:

- ``KR_PURE=1`` in the environment: plain Python, whatever is built;
- nothing built (no C compiler, or the build failed), sources changed since
  the build (the stamp's digest differs), or the compiled library does not
  load: plain Python, with the reason;
- otherwise the compiled modules.

For plain Python it puts a finder first on ``sys.meta_path`` that loads the
engine's modules from their sources only. :data:`BUILD` says which build
runs and why, for the server's log and the benchmark.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.abc
import importlib.machinery
import json
import os
import sys
from pathlib import Path
from types import ModuleType
from typing import Final

#: The modules compiled, in the package; ``__init__`` and this one stay Python.
MODULES: Final = (
    "cards", "codes", "deal", "errors", "moves", "history", "table", "snapshot", "views",
    "assist", "relax", "search", "progress", "game", "solver",
)
#: The library the compiled modules share (mypyc's group), in the package.
LIBRARY: Final = "_core__mypyc"
#: What the build wrote: the digest of the sources it compiled, or why it failed.
STAMP: Final = ".compiled.json"

HERE: Final = Path(__file__).resolve().parent
PACKAGE: Final = __name__.rpartition(".")[0]


def source_digest() -> str:
    """The digest of the compiled modules' sources, as the build stamps it."""
    digest = hashlib.sha256()
    for name in MODULES:
        digest.update(name.encode() + b"\0")
        digest.update((HERE / f"{name}.py").read_bytes())
    return digest.hexdigest()


def read_stamp() -> dict[str, str]:
    try:
        stamp = json.loads((HERE / STAMP).read_text())
    except (OSError, ValueError):
        return {}
    return stamp if isinstance(stamp, dict) else {}


def built() -> bool:
    """Whether every compiled module has its extension beside its source."""
    suffix = importlib.machinery.EXTENSION_SUFFIXES[0]
    return all((HERE / f"{name}{suffix}").exists() for name in (*MODULES, LIBRARY))


class _SourceOnly(importlib.abc.MetaPathFinder):
    """Finds the engine's modules as source files, never as extensions."""

    def find_spec(self, fullname: str, path: object = None,
                  target: ModuleType | None = None) -> importlib.machinery.ModuleSpec | None:
        package, _, name = fullname.rpartition(".")
        if package != PACKAGE or name not in MODULES:
            return None
        finder = importlib.machinery.FileFinder(
            str(HERE), (importlib.machinery.SourceFileLoader, importlib.machinery.SOURCE_SUFFIXES))
        return finder.find_spec(fullname)


def _why_plain() -> str | None:
    """Why the plain-Python build runs, or ``None`` for the compiled one."""
    if os.environ.get("KR_PURE", "") not in ("", "0"):
        return "KR_PURE is set"
    stamp = read_stamp()
    if not built():
        failed = stamp.get("failed")
        return f"not built: {failed}" if failed else "not built"
    if stamp.get("sources") != source_digest():
        return "the sources changed since the build: run .ci/bootstrap"
    try:
        importlib.import_module(f"{PACKAGE}.{LIBRARY}")
    except ImportError as exc:
        return f"the compiled library does not load: {exc}"
    return None


def _choose() -> str:
    reason = _why_plain()
    if reason is None:
        return "compiled"
    if not any(isinstance(f, _SourceOnly) for f in sys.meta_path):
        sys.meta_path.insert(0, _SourceOnly())
    return f"plain Python ({reason})"


#: ``'compiled'``, or ``'plain Python (why)'``.
BUILD: Final = _choose()
COMPILED: Final = BUILD == "compiled"


def settle() -> None:
    """Once the package is imported: every compiled module loaded, and its
    ``__file__`` its extension's path (mypyc names a path that does not exist
    for a module that another compiled module imported first)."""
    if not COMPILED:
        return
    suffix = importlib.machinery.EXTENSION_SUFFIXES[0]
    for name in MODULES:
        module = importlib.import_module(f"{PACKAGE}.{name}")
        module.__file__ = str(HERE / f"{name}{suffix}")
