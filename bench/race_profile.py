"""Summaries of a py-spy ``--format raw`` profile (collapsed stacks) for ``bench/race.py``.

Each line of the input is ``frame;frame;...;leaf COUNT`` with frames written
``function (path:line)``. Percentages are of the samples taken while the
process was busy (py-spy leaves idle samples out), so they are shares of the
server's CPU time.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Final

_FRAME: Final = re.compile(r"^(?P<func>.*?) \((?P<path>[^()]*?)(?::(?P<line>\d+))?\)$")

#: path fragments -> area, first match wins
AREAS: Final = (
    ("/server/klondike/", "engine (server.klondike)"),
    ("/server/race/", "race (server.race)"),
    ("/server/protocol/", "protocol (server.protocol)"),
    ("/server/store/", "store (server.store)"),
    ("/server/app/edge/", "app: edge (connections, HTTP)"),
    ("/server/app/handlers/", "app: handlers (the commands)"),
    ("/server/app/rooms/", "app: rooms (hubs, boards, room commands)"),
    ("/server/app/tournaments/", "app: tournaments"),
    ("/server/app/solver/", "app: solver"),
    ("/server/app/", "app: process"),
    ("/websockets/", "websockets"),
    ("/redis/", "redis-py"),
    ("/structlog/", "structlog"),
    ("/prometheus_client/", "prometheus_client"),
    ("/asyncio/", "asyncio"),
    ("uvloop", "uvloop"),
)


def _split(frame: str) -> tuple[str, str]:
    """(function with its short path, path)."""
    m = _FRAME.match(frame.strip())
    if m is None:
        return frame.strip(), ""
    path = m.group("path")
    return f"{m.group('func')} ({_short(path)})", path


def _short(path: str) -> str:
    """``websockets/asyncio/connection.py``, ``server/app/edge/connection.py``: enough to tell them apart."""
    for marker in ("site-packages/", "/lib/python3"):
        if marker in path:
            rest = path.split(marker, 1)[1]
            return rest.split("/", 1)[1] if marker == "/lib/python3" and "/" in rest else rest
    if "/server/" in path:
        return "server/" + path.split("/server/", 1)[1]
    return "/".join(path.split("/")[-2:])


def area(path: str) -> str:
    for fragment, name in AREAS:
        if fragment in path:
            return name
    return "other (stdlib, C)" if path else "native"


def report(raw: str, *, top: int = 25) -> str:
    self_time: Counter[str] = Counter()
    inclusive: Counter[str] = Counter()
    areas_self: Counter[str] = Counter()
    total = 0
    for line in raw.splitlines():
        stack, _, count_text = line.rpartition(" ")
        if not stack or not count_text.isdigit():
            continue
        count = int(count_text)
        frames = [_split(f) for f in stack.split(";") if f]
        frames = [f for f in frames if not f[0].startswith(("process ", "thread "))]
        if not frames:
            continue
        total += count
        leaf, leaf_path = frames[-1]
        self_time[leaf] += count
        areas_self[area(leaf_path)] += count
        for name in {name for name, _ in frames}:
            inclusive[name] += count
    if not total:
        return "no samples"

    def table(title: str, counts: Counter[str], n: int) -> list[str]:
        rows = [f"{title} (% of {total} busy samples)"]
        rows += [f"  {100.0 * c / total:5.1f}%  {name}" for name, c in counts.most_common(n)]
        return rows

    lines = table("by area, self time", areas_self, len(areas_self))
    lines += table("functions, self time", self_time, top)
    lines += table("functions, inclusive (self + callees)", inclusive, top)
    return "\n".join(lines)
