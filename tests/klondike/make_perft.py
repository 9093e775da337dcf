"""Write perft.json: the engine's legal-move counts along fixed lines of play.

A regression pin in the spirit of chess perft. For each line of :data:`LINES`
the file records ``len(game.legal_moves())`` at every position of a fixed,
deterministic line of play; for each entry of :data:`PERFT`, the number of
move sequences of length 1, 2, … from a position (the start of a deal, or a
point of a vector script). ``test_kl_perft.py`` recomputes them all, and also
checks them against the tests' independent rules model.

Run it by hand, from the repository's root, only when the rules change on
purpose (and say why in the commit)::

    .venv/bin/python tests/klondike/make_perft.py

Lines are of two kinds:

* ``"script"``: the first ``plies`` items of the deal's script in
  ``tests/vectors/kl1.json`` (undos included);
* ``"kth"``: at ply ``i``, the legal move number ``(7 * i + k) % count`` of
  ``legal_moves()`` (its order is part of the API), an undo never.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from server.klondike import Game, replay

HERE = Path(__file__).resolve().parent
PERFT_FILE = HERE / "perft.json"
VECTORS_FILE = HERE.parent / "vectors" / "kl1.json"

#: code, kind of line, its parameter (``plies`` of the script, or ``k``), plies
LINES: list[dict[str, Any]] = [
    {"code": "KL1-D1N-GVMLGBV", "line": "script", "plies": 160},
    {"code": "KL1-D3N-7777777", "line": "script", "plies": 160},
    {"code": "KL1-D1V-RJRSFZD", "line": "script", "plies": 240},
    {"code": "KL1-D3V-UVSPOUZ", "line": "script", "plies": 120},
    {"code": "KL1-D1N-AAAAAAA", "line": "kth", "k": 0, "plies": 120},
    {"code": "KL1-D3N-AAAAAAG", "line": "kth", "k": 3, "plies": 120},
    {"code": "KL1-D1V-AAAAAB7", "line": "kth", "k": 1, "plies": 120},
    {"code": "KL1-D3V-7777777", "line": "kth", "k": 2, "plies": 120},
    {"code": "KL1-D3V-AAAAAAC", "line": "kth", "k": 0, "plies": 120},  # stuck after 8 draws
]

#: code, script items played first (0: the deal's start), depth
PERFT: list[dict[str, Any]] = [
    {"code": "KL1-D1N-AAAAAAA", "after": 0, "depth": 6},
    {"code": "KL1-D3N-7777777", "after": 0, "depth": 5},
    {"code": "KL1-D1V-BCDEFGH", "after": 0, "depth": 6},
    {"code": "KL1-D3V-XDWTPOS", "after": 0, "depth": 5},
    {"code": "KL1-D1N-4INSXYN", "after": 233, "depth": 3},
    {"code": "KL1-D3N-M3GLBI2", "after": 365, "depth": 3},
    {"code": "KL1-D1V-4LO73NN", "after": 114, "depth": 3},
    {"code": "KL1-D3V-AAAAAAG", "after": 115, "depth": 3},
]


def script(code: str) -> list[str]:
    games = json.loads(VECTORS_FILE.read_text())["games"]
    (found,) = [g["script"] for g in games if g["code"] == code]
    return found


def line_items(spec: dict[str, Any]) -> list[str]:
    """The items a line plays, in notation (``'undo'`` included for scripts)."""
    if spec["line"] == "script":
        return script(spec["code"])[: spec["plies"]]
    game = Game(spec["code"])
    items = []
    for i in range(spec["plies"]):
        legal = game.legal_moves()
        if not legal:
            break
        move = legal[(7 * i + spec["k"]) % len(legal)]
        game.push(move)
        items.append(str(move))
    return items


def line_counts(spec: dict[str, Any]) -> list[int]:
    """``len(legal_moves())`` before each item of the line and after the last."""
    game = Game(spec["code"])
    counts = []
    for item in line_items(spec):
        counts.append(len(game.legal_moves()))
        if item == "undo":
            game.pop()
        else:
            game.push(item)
    counts.append(len(game.legal_moves()))
    return counts


def start(spec: dict[str, Any]) -> Game:
    """The position a perft entry starts from."""
    if not spec["after"]:
        return Game(spec["code"])
    return replay(spec["code"], script(spec["code"])[: spec["after"]])


def perft(game: Game, depth: int) -> int:
    """Move sequences of length ``depth`` from ``game`` (1 for depth 0)."""
    if depth == 0:
        return 1
    total = 0
    for move in game.legal_moves():
        game.push(move)
        total += perft(game, depth - 1)
        game.pop()
    return total


def perft_counts(spec: dict[str, Any]) -> list[int]:
    game = start(spec)
    return [perft(game, d) for d in range(1, spec["depth"] + 1)]


def compute() -> dict[str, Any]:
    return {
        "about": "Written by tests/klondike/make_perft.py (see its docstring); checked by test_kl_perft.py.",
        "lines": [{**spec, "counts": line_counts(spec)} for spec in LINES],
        "perft": [{**spec, "counts": perft_counts(spec)} for spec in PERFT],
    }


def dumps(data: dict[str, Any]) -> str:
    """JSON with one entry a line, for readable diffs."""
    parts = [f' "about": {json.dumps(data["about"])}']
    for key in ("lines", "perft"):
        entries = ",\n  ".join(json.dumps(e) for e in data[key])
        parts.append(f' "{key}": [\n  {entries}\n ]')
    return "{\n" + ",\n".join(parts) + "\n}\n"


def main() -> None:
    text = dumps(compute())
    assert json.loads(text) == compute()
    PERFT_FILE.write_text(text)
    print(f"wrote {PERFT_FILE} ({len(text)} bytes)")  # noqa: T201


if __name__ == "__main__":
    main()
