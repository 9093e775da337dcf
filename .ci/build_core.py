"""Compiles the engine (server/klondike) in place with mypyc; run by .ci/bootstrap.

    .venv/bin/python .ci/build_core.py           build unless the stamp says it is current
    .venv/bin/python .ci/build_core.py --force   build anyway

The extension modules land beside their sources (``*.so``, kept out of git),
the C sources and objects in ``build/mypyc``. The stamp
(``server/klondike/.compiled.json``) holds the digest of the sources, mypy's
and Python's versions: when all three are unchanged and the modules are
there, nothing is done. A build that fails (no C compiler, no Python headers,
a construct mypyc refuses) removes what it made, writes why into the stamp
(not retried until something changes) and exits 0: the engine then runs as
plain Python and says so (``server.klondike.BUILD``). ``KR_PURE=1`` skips the
build.
"""

from __future__ import annotations

import contextlib
import importlib.machinery
import importlib.util
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from types import ModuleType

TOP = Path(__file__).resolve().parent.parent
PACKAGE = TOP / "server" / "klondike"


def say(text: str) -> None:
    sys.stderr.write(f"[bootstrap] {text}\n")


def load_native() -> ModuleType:
    """server/klondike/_native.py by its path: the package itself may hold a
    stale build, which must not be imported to rebuild it."""
    spec = importlib.util.spec_from_file_location("_klondike_native", PACKAGE / "_native.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    os.environ["KR_PURE"] = "1"  # its import-time choice imports nothing compiled
    spec.loader.exec_module(module)
    return module


def wanted(native: ModuleType) -> dict[str, str]:
    try:
        from mypy.version import __version__ as mypy_version
    except ImportError:
        mypy_version = "none"
    return {"sources": native.source_digest(), "mypy": mypy_version,
            "python": sys.version.split()[0]}


def remove_built(native: ModuleType) -> None:
    for suffix in importlib.machinery.EXTENSION_SUFFIXES:
        for name in (*native.MODULES, native.LIBRARY):
            (PACKAGE / f"{name}{suffix}").unlink(missing_ok=True)


def compile_in_place(native: ModuleType) -> None:
    """mypyc then setuptools' build_ext --inplace, from the project's top
    (the modules' names are their paths there)."""
    script = (
        "import sys\n"
        "from setuptools import setup\n"
        "from mypyc.build import mypycify\n"
        f"modules = {[f'server/klondike/{m}.py' for m in native.MODULES]!r}\n"
        "sys.argv = ['setup.py', 'build_ext', '--inplace', '--build-temp', 'build/mypyc/temp',"
        " '--build-lib', 'build/mypyc/lib']\n"
        "setup(name='klondike-core', script_args=sys.argv[1:], ext_modules=mypycify("
        f"modules, group_name='server.klondike.{native.LIBRARY.removesuffix('__mypyc')}',"
        " target_dir='build/mypyc/c', opt_level='3', debug_level='0'))\n"
    )
    env = dict(os.environ)
    env.pop("KR_PURE", None)
    subprocess.run([sys.executable, "-c", script], cwd=TOP, env=env, check=True,
                   stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


def main(argv: list[str]) -> int:
    if os.environ.get("KR_PURE", "") not in ("", "0"):
        say("KR_PURE is set: the engine is not compiled")
        return 0
    native = load_native()
    want = wanted(native)
    stamp = native.read_stamp()
    current = all(stamp.get(k) == v for k, v in want.items())
    if "--force" not in argv and current and (native.built() or stamp.get("failed")):
        return 0
    remove_built(native)
    (PACKAGE / native.STAMP).unlink(missing_ok=True)
    say("compiling the engine with mypyc (a minute or two)")
    start = time.monotonic()
    try:
        if want["mypy"] == "none":
            raise RuntimeError("mypy (which carries mypyc) is not installed")
        compile_in_place(native)
        if not native.built():
            raise RuntimeError("the build left modules missing")
    except (subprocess.CalledProcessError, RuntimeError, OSError) as exc:
        output = getattr(exc, "stdout", None) or str(exc)
        lines = [line for line in output.splitlines() if line.strip()]
        errors = [line for line in lines if "error" in line.lower()] or lines
        reason = errors[0][:300] if errors else type(exc).__name__
        remove_built(native)
        (PACKAGE / native.STAMP).write_text(json.dumps({**want, "failed": reason}) + "\n")
        say(f"the engine could not be compiled, it runs as plain Python: {reason}")
        with contextlib.suppress(OSError):
            (TOP / "build" / "mypyc").mkdir(parents=True, exist_ok=True)
            (TOP / "build" / "mypyc" / "failed.log").write_text(output)
            say("the build's output: build/mypyc/failed.log")
        return 0
    (PACKAGE / native.STAMP).write_text(json.dumps(want) + "\n")
    say(f"engine compiled in {time.monotonic() - start:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
