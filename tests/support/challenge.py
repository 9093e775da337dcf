"""Helpers for the challenge tests: the servers' clock moved from the test
(``--clock-offset-file``), and a player whose game is replayed here with the
moments of its progress, so that ghosts and ranks can be checked against a
model computed in the test (docs/protocol.md, "Challenges", "Ghosts")."""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from harness import Client

from server.klondike import Game
from support.race import Racer


class TestClock:
    """The servers' clock: the machine's plus the offset the test writes to
    the file every server process reads (``--clock-offset-file``)."""

    __test__ = False  # (not a test class)

    def __init__(self, path: Path) -> None:
        self.path = path
        self.offset = int(path.read_text() or 0) if path.exists() else 0

    def move(self, ms: int) -> None:
        """Move the servers' clock by ``ms``: the file replaced whole (a
        process never reads it half written)."""
        self.offset += ms
        part = self.path.with_name(self.path.name + ".part")
        part.write_text(str(self.offset))
        part.replace(self.path)

    async def now(self, client: Client) -> int:
        """The server time of ``client``'s process now (a ``pong``; the
        frames that arrive meanwhile are left for the test)."""
        await client.send("ping")
        return int((await client.reply("pong"))["now"])

    async def seen(self, *clients: Client) -> int:
        """Wait until the process of each client runs on the offset as it is
        now (each reads the file again within a tenth of a second); the last
        server time read. A sample every tenth of a second at most, as
        :func:`eventually` polls: a tight loop of pings would spend the
        connection's message credit once its free pings are used up, and a
        ping refused for it gets no ``pong``."""
        now = 0
        for client in clients:
            while True:
                target = int(time.time() * 1000) + self.offset
                now = await self.now(client)
                if now >= target - 20:
                    break
                await asyncio.sleep(0.1)
        return now


def credited(game: Game) -> int:
    """Cards ever put home (Vegas dollars are -52 plus 5 each)."""
    return (game.vegas + 52) // 5


@dataclass
class Change:
    """A change of a player's progress: cards home and credited after a
    command, and the bounds of the server time it was stored at."""

    foundation: int
    credited: int
    lo: int
    hi: int


@dataclass
class Played:
    """A player of a challenge and the model of their game: every change
    of their progress and when (server ms), their own start, their end."""

    racer: Racer
    started: int = 0
    changes: list[Change] = field(default_factory=list)
    end: tuple[str, int, int] | None = None  # (status, lo, hi)

    def seconds(self, change: Change) -> tuple[int, int]:
        """The second of their own clock a change may fall on."""
        return (change.lo - self.started) // 1000, (change.hi - self.started) // 1000


async def play_tracked(played: Played, moves: list[str], clock: TestClock, *, step_ms: int,
                       others: tuple[Client, ...] = ()) -> None:
    """Play ``moves`` (``"resign"`` resigns): before each that changes the
    player's progress (or ends it), the servers' clock moves ``step_ms``, so
    that no two changes share a second of their own clock; each change is
    noted with the server time bounds of its command."""
    racer, client = played.racer, played.racer.client
    for m in moves:
        before = (racer.game.foundation_cards, credited(racer.game))
        after_game = racer.game.copy()
        if m == "undo":
            after_game.pop()
        elif m != "resign":
            after_game.push(m)
        after = (after_game.foundation_cards, credited(after_game))
        ends = m == "resign" or after_game.is_won
        lo = 0
        if after != before or ends:
            clock.move(step_ms)
            lo = await clock.seen(client, *others)
        if m == "resign":
            await racer.resign()
        else:
            await racer.play([m])
        if after != before or ends:
            hi = await clock.now(client)
            if after != before:
                played.changes.append(Change(*after, lo, hi))
            if ends:
                played.end = ("resigned" if m == "resign" else "finished", lo, hi)


def ghost_lines(client: Client) -> list[dict[str, Any]]:
    """Every ``ghosts`` frame the client received, in order."""
    return [f["d"] for f in client.frames if f["t"] == "ghosts"]


def check_ghost(line: dict[str, Any], played: Played, first: int, end: int) -> int:
    """A ghost line of a stretch ``first`` to ``end`` of the receiver's own
    clock agrees with the model of the ghost's game: its first point is the
    ghost's state at ``first`` and every other point one of its changes, in
    order, on a second that change may fall on, with none left out; its
    ``end`` is there exactly when the game ended within the stretch. The
    number of points checked."""
    changes = played.changes
    points = line["p"]
    assert points and points[0][0] == first, line
    # the state at `first`: a change at or before it (or none: the start)
    _, f0, d0 = points[0]
    candidates = [-1] + [i for i, c in enumerate(changes) if played.seconds(c)[0] <= first]
    state = {i: ((0, 0) if i < 0 else (changes[i].foundation, changes[i].credited))
             for i in candidates}
    k = next((i for i in reversed(candidates)
              if state[i] == (f0, (d0 + 52) // 5)
              and (i + 1 >= len(changes) or played.seconds(changes[i + 1])[1] >= first)), None)
    assert k is not None, (line["nickname"], points[0], first)
    assert played.end is not None
    status, end_lo, end_hi = played.end
    for s, f, d in points[1:]:
        now = (0, 0) if k < 0 else (changes[k].foundation, changes[k].credited)
        if (f, (d + 52) // 5) == now:  # no change: the point that ends a game over
            assert status != "finished" and (end_lo - played.started) // 1000 <= s, line
            assert s <= (end_hi - played.started) // 1000, line
            continue
        k += 1
        assert k < len(changes), (line["nickname"], s, f, d)
        change = changes[k]
        lo, hi = played.seconds(change)
        assert (f, (d + 52) // 5) == (change.foundation, change.credited), (line["nickname"], s)
        assert lo <= s <= hi and first < s < end, (line["nickname"], s, lo, hi)
    for later in changes[k + 1:]:  # none left out within the stretch
        assert played.seconds(later)[1] >= end or played.seconds(later)[0] <= first, (
            line["nickname"], later, first, end)
    end_lo, end_hi = end_lo - played.started, end_hi - played.started
    if "end" in line:
        assert line["end"]["status"] == status and line["end"]["ms"] < end * 1000
        if status == "finished":
            assert end_lo <= line["end"]["ms"] <= end_hi
    else:
        assert end_hi // 1000 >= end - 1, (line["nickname"], end_hi, end)
    return len(points)


def foundations_at(played: Played, second: int) -> set[int]:
    """The cards home a ghost may show at ``second`` of a viewer's own
    clock: after every change surely stored by then, and any change that
    may have fallen on a second up to it."""
    out = {0}
    for change in played.changes:
        lo, hi = played.seconds(change)
        if hi <= second:
            out = {change.foundation}
        elif lo <= second:
            out.add(change.foundation)
    return out
