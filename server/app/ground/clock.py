"""The server's clock: the machine's, or the machine's moved by an offset
kept in a file (``--clock-offset-file``), so that a rehearsal or a test can
bring a time that is days away (a challenge's close, a day's end) to now,
on every server process alike, without waiting for it. The protocol, the
rooms and the sweepers all read this one clock (``App.now_ms``); clients
follow it through ``hello`` and ``pong``.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Final

import structlog

log = structlog.get_logger("app.ground.clock")

LOOK_EVERY: Final = 0.1  # seconds between two looks at the file


class OffsetClock:
    """``base()`` plus the milliseconds written in ``path`` (one whole
    number, may be negative; no file: 0), read again when the file changes,
    looked at every :data:`LOOK_EVERY` seconds at most. A file that does not
    hold a whole number is said once and the last offset kept.

    An empty file is one being written (``echo 5000 > file`` truncates, then
    writes): the last offset is kept and the file read again at the next
    look. Read as 0, it put the clock back to the machine's for a moment, by
    days in a rehearsal: a process then opened the wrong day's daily deals,
    and waited on a day's end it had seen."""

    def __init__(self, path: Path, base: Callable[[], float] = time.time) -> None:
        self.path = path
        self.base = base
        self.offset_ms = 0
        self._seen: tuple[int, int, int] | None = None  # the file's (inode, mtime, size) last read
        self._next = 0.0
        self._read()

    def __call__(self) -> float:
        now = time.monotonic()
        if now >= self._next:
            self._next = now + LOOK_EVERY
            self._read()
        return self.base() + self.offset_ms / 1000

    def _read(self) -> None:
        try:
            st = os.stat(self.path)
        except OSError:
            self.offset_ms, self._seen = 0, None
            return
        seen = (st.st_ino, st.st_mtime_ns, st.st_size)
        if seen == self._seen:
            return
        try:
            text = self.path.read_text().strip()
        except OSError:  # replaced or removed between the two looks: the next one sees
            return
        if not text:  # being written: the next look reads it
            return
        self._seen = seen
        try:
            offset = int(text)
        except ValueError:
            log.warning("clock_offset_unreadable", path=str(self.path), text=text[:40])
            return
        if offset != self.offset_ms:
            log.info("clock_offset", ms=offset)
        self.offset_ms = offset


#: the longest a timer set on the server's clock sleeps before it looks at the clock again
TIMER_LOOK: Final = 0.5


def wait_for(at_ms: int, now_ms: int) -> float:
    """Seconds an event loop timer for the server time ``at_ms`` waits, the
    server time being ``now_ms``: at most :data:`TIMER_LOOK`, so that the
    timer wakes, finds the time not yet come, and is set again. A timer set
    for the whole wait would keep the machine's time it was set by: a clock
    moved on (a rehearsal, a test) would come to it only when the machine's
    time did.

    >>> wait_for(10_000, 9_800), wait_for(70_000, 10_000), wait_for(5_000, 10_000)
    (0.2, 0.5, 0.0)
    """
    return min(TIMER_LOOK, max(0.0, (at_ms - now_ms) / 1000))
