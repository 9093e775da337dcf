"""Replays of a seat's race, a page of steps at a time, never holding the loop:
the one engine behind every replay (a tournament's round, a room's race, a
challenge's game over), which each caller pages after checking who may see it.

A step is the public view of the seat's board after one of its stored
commands (step 0: the deal). Replaying a whole log on the event loop costs
about 40 µs a step (a push and a view), so a long one would stall every
player of the process: a page holds at most :data:`PAGE_MAX` steps, and it
is built in slices (:data:`PUSH_SLICE` pushes, :data:`VIEW_SLICE` views)
with the loop given back between them, a couple of milliseconds each. A
seat's log is bounded too (``MAX_COMMANDS`` in :mod:`server.protocol`).

An ended race's log never changes (nor does a challenge's game's once it is
over: the only ones served before the race ends), so what was built is kept
in a cache bounded by bytes (:data:`CACHE_BYTES`, least recently used out first): the
pages as encoded JSON, and the game at the end of each page built (a
snapshot, about 1 KiB), from which the next page starts instead of from the
deal.

Pages not in the cache are built :data:`BUILDERS` at a time, so that
however many are asked for at once (a client asking for page after page at
random steps, from many connections), the loop has at most that many slices
of replay work ready between two of anything else; up to :data:`WAITING`
more wait their turn, and past them a request is refused (:class:`Busy`).
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any, Final

import orjson

from ...klondike import Game
from ...store import Store

PAGE_MAX: Final = 100  # steps in a page, at most
PUSH_SLICE: Final = 200  # pushes between two yields to the loop (about 1 ms)
VIEW_SLICE: Final = 25  # views between two yields (about 1 ms)
CACHE_BYTES: Final = 16 * 2**20
BUILDERS: Final = 2  # pages built at once by a process
WAITING: Final = 32  # pages waiting to be built, at most


class Busy(Exception):
    """Too many pages are being built or waiting: try again in a moment."""


@dataclass(frozen=True, slots=True)
class Page:
    """Steps ``first`` onwards of a seat's race, of ``of`` in all (its
    commands and the deal), as a JSON array."""

    first: int
    of: int
    steps: bytes


class Replays:
    """Pages of the seats' replays, built in slices and cached."""

    def __init__(self, store: Store, *, cache_bytes: int = CACHE_BYTES) -> None:
        self.store = store
        self.cache_bytes = cache_bytes
        self._cache: OrderedDict[tuple[Any, ...], tuple[Any, int]] = OrderedDict()
        self._size = 0
        self._builders = asyncio.Semaphore(BUILDERS)
        self._waiting = 0

    async def page(self, room_id: str, race: int, seat: int, code: str, first: int,
                   count: int) -> Page:
        """Steps ``first`` to ``first + count - 1`` (fewer at the end) of the
        seat's ``race``, whose deal is ``code``. The race must be over: its
        log is taken as final."""
        where = (room_id, race, seat)
        total = await self.store.seats.log_length(room_id, race, seat) + 1
        last = min(first + min(count, PAGE_MAX), total) - 1  # the page's last step
        if last < first:
            return Page(first, total, b"[]")
        key = ("page", *where, first, last)
        cached = self._get(key)
        if cached is not None:
            return Page(first, total, cached)
        if self._waiting >= BUILDERS + WAITING:
            raise Busy(f"{self._waiting} replay pages are being built or waiting")
        self._waiting += 1
        try:
            async with self._builders:
                cached = self._get(key)  # built meanwhile, for someone else
                body = cached if cached is not None else await self._build(
                    where, code, first, last)
        finally:
            self._waiting -= 1
        return Page(first, total, body)

    async def _build(self, where: tuple[str, int, int], code: str, first: int, last: int
                     ) -> bytes:
        """Steps ``first`` to ``last`` as JSON, cached with the game at ``last``."""
        room_id, race, seat = where
        key = ("page", *where, first, last)
        # step k is the game after k commands: step k > 0 plays command k - 1
        marks: dict[int, bytes] = self._get(("marks", *where)) or {}
        begin = max(first - 1, 0)  # the first command whose step is sent
        start = max((step for step in marks if step <= begin), default=0)
        game = Game.from_snapshot(marks[start]) if start else Game(code)
        entries = await self.store.seats.log(room_id, race, seat, start, last - 1) if last else []
        for i, (_, command) in enumerate(entries[:begin - start], 1):
            _play(game, command)
            if i % PUSH_SLICE == 0:
                await asyncio.sleep(0)
        steps: list[dict[str, Any]] = []
        if first == 0:
            steps.append({"command": None, "view": game.public_view()})
        for seq, command in entries[begin - start:]:
            _play(game, command)
            steps.append({"s": seq, "command": command, "view": game.public_view()})
            if len(steps) % VIEW_SLICE == 0:
                await asyncio.sleep(0)
        body = orjson.dumps(steps)
        self._put(key, body, len(body))
        marks = {**marks, last: game.snapshot()}
        self._put(("marks", *where), marks, sum(map(len, marks.values())))
        return body

    def _get(self, key: tuple[Any, ...]) -> Any:
        found = self._cache.get(key)
        if found is None:
            return None
        self._cache.move_to_end(key)
        return found[0]

    def _put(self, key: tuple[Any, ...], value: Any, size: int) -> None:
        old = self._cache.pop(key, None)
        if old is not None:
            self._size -= old[1]
        if size > self.cache_bytes:
            return
        self._cache[key] = (value, size)
        self._size += size
        while self._size > self.cache_bytes:
            _, (_, dropped) = self._cache.popitem(last=False)
            self._size -= dropped


def _play(game: Game, command: str) -> None:
    """One stored command, as the seat played it."""
    if command == "undo":
        game.pop()
    elif command != "resign":
        game.push(command)
