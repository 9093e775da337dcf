"""What every part of the store runs on: the Redis client, the script runner
and one routed command. :class:`~.store.Store` holds its sections by name
(``store.rooms``, ``store.players``, ...), each a module of its own whose
class derives from :class:`Section`."""

from __future__ import annotations

import secrets
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from . import scripts
from .client import RedisClient

Run = Callable[[scripts.Script, Sequence[str], Sequence[Any]], Awaitable[Any]]


class Section:
    """The store's plumbing, shared by its sections.

    Every command goes through :meth:`call` (routed by its first key, its
    first argument) or ``_run`` (a script, routed by its first key): on a
    Redis Cluster each reaches the master of its slot, so a new method only
    has to follow that and keep a room's keys under its hash tag.
    """

    def __init__(self, client: RedisClient, *, event_cap: int) -> None:
        self.redis = client
        self.event_cap = event_cap  # events a room or a tournament keeps
        #: run a script on the node of its first key (see :meth:`RedisClient.run`)
        self._run: Run = client.run

    async def call(self, *args: Any) -> Any:
        """One command whose first argument after its name is its (first) key."""
        return await self.redis.execute(args[1], *args)

    async def _window(self, key: str, now_ms: int, window_ms: int, cap: int) -> tuple[int, bool]:
        """One more in the rolling window ``key`` unless it holds ``cap``
        already (the ``window`` script): how many it holds now, and whether
        this one was counted. A refusal stores nothing, so a flood of them
        costs no memory; the window never holds more than ``cap`` entries."""
        held, added = await self._run(scripts.WINDOW, [key],
                                      [now_ms, window_ms, secrets.token_hex(8), cap])
        return int(held), bool(added)

    async def _counter(self, key: str, left_ms: int, cap: int) -> tuple[int, bool]:
        """One more in the fixed-window counter ``key`` (its period ends in
        ``left_ms``) unless it holds ``cap`` already (the ``counter``
        script): how many it holds now, and whether this one was counted.
        One integer whatever the count; a refusal stores nothing."""
        held, added = await self._run(scripts.COUNTER, [key], [cap, max(1, left_ms)])
        return int(held), bool(added)


def pairs(reply: Any) -> list[tuple[Any, Any]]:
    """A hash as Redis answered it: a map (RESP3) or a flat list (RESP2)."""
    if isinstance(reply, dict):
        return list(reply.items())
    return list(zip(reply[::2], reply[1::2], strict=True))


__all__ = ["Run", "Section", "pairs"]
