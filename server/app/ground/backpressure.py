"""The slow-consumer policy: one per socket, used by every write path (a
room hub's fan-out, a connection's own answers, a tournament hub's events).

Nothing that writes to a socket waits for it. While a socket's write buffer
(what the kernel would not take yet) is over ``limit`` bytes, frames that the
next one supersedes (leaderboards, boards) are skipped, and the others are
still queued; a socket that stays over the limit for ``grace`` seconds is too
slow, and ``on_slow`` is called once (the connection closes it with 1011,
logs it once and counts it). A timer checks again when the grace is up, so a
socket that stops reading is closed on time even if nothing more is written
to it: well before the keepalive (20 s ping, 20 s timeout) would drop it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Final, Protocol

SLOW_BUFFER: Final = 256 * 1024  # bytes waiting on a socket before it counts as behind
SLOW_GRACE: Final = 10.0  # seconds behind before it is too slow


class _Transport(Protocol):
    def get_write_buffer_size(self) -> int: ...


class _Socket(Protocol):
    @property
    def transport(self) -> _Transport | None: ...


class Backpressure:
    """A socket's standing against the write-buffer limit."""

    __slots__ = ("_timer", "grace", "limit", "on_slow", "over_since", "slow", "ws")

    def __init__(self, ws: _Socket, on_slow: Callable[[int, float], None], *,
                 limit: int = SLOW_BUFFER, grace: float = SLOW_GRACE) -> None:
        self.ws, self.on_slow, self.limit, self.grace = ws, on_slow, limit, grace
        self.over_since: float | None = None  # loop time it went over the limit
        self.slow = False  # on_slow was called
        self._timer: asyncio.TimerHandle | None = None

    def buffered(self) -> int:
        transport = self.ws.transport
        return transport.get_write_buffer_size() if transport is not None else 0

    def admit(self, *, essential: bool) -> bool:
        """Whether to write a frame now (``essential``: one that nothing
        supersedes, a room event or an answer)."""
        if self.slow:
            return False
        if self.buffered() <= self.limit:
            if self.over_since is not None:
                self._clear()
            return True
        loop = asyncio.get_running_loop()
        if self.over_since is None:
            self.over_since = loop.time()
            self._timer = loop.call_later(self.grace, self._check)
        elif loop.time() - self.over_since >= self.grace:
            self._too_slow(loop.time())
            return False
        return essential

    def _check(self) -> None:
        self._timer = None
        if self.slow or self.over_since is None:
            return
        loop = asyncio.get_running_loop()
        if self.buffered() <= self.limit:
            self.over_since = None
        elif loop.time() - self.over_since >= self.grace:
            self._too_slow(loop.time())
        else:  # it dipped under the limit and went over again since
            self._timer = loop.call_later(self.over_since + self.grace - loop.time(), self._check)

    def _too_slow(self, now: float) -> None:
        assert self.over_since is not None
        self.slow = True
        self.on_slow(self.buffered(), now - self.over_since)

    def _clear(self) -> None:
        self.over_since = None
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def close(self) -> None:
        """The socket is gone: no more checks."""
        self.slow = True
        self._clear()
