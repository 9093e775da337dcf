"""The daily deal as data: which UTC day a moment is in, when a day begins
and ends, and the settings of a day's challenge of one mode. Pure.

A daily deal (docs/protocol.md, "The daily deal") is a challenge the server
opens for each UTC day and each daily mode: a certified winnable KL2 deal,
open from 00:00 to 24:00 UTC, ranked as any race is, its code a secret until
the day ends. Everything else about it is a challenge's.

>>> day_bounds("2026-12-02")
(1796169600000, 1796256000000)
>>> day_of(1796256000000 - 1), day_of(1796256000000)
('2026-12-02', '2026-12-03')
>>> s = daily_settings("2026-12-02", "D3V", time_limit=1800)
>>> (s.draw, s.scoring, s.window, s.deal, s.daily, s.challenge, s.big)
(3, 'V', 86400, 'winnable', '2026-12-02', True, True)
>>> daily_settings("2026-12-02", "D2N", time_limit=1800)
Traceback (most recent call last):
...
ValueError: a daily mode is one of D1N, D3N, D1V, D3V, not 'D2N'
"""

from __future__ import annotations

from typing import Final

from .profile import MODES, day_number, day_of, day_text
from .settings import DEFAULT_TOP, Settings

DAY_MS: Final = 86_400_000
#: a day's field of one mode holds at most this many players: a ranking's
#: members are seats on five digits (race.ranking.SEAT_DIGITS), 0 to 99 999
DAILY_SEATS: Final = 100_000
#: past days a client is offered (their rooms are kept --challenge-ttl: a week)
PAST_DAYS: Final = 7

__all__ = ["DAILY_SEATS", "DAY_MS", "PAST_DAYS", "daily_settings", "day_bounds", "day_of",
           "day_text", "past_days"]


def day_bounds(day: str) -> tuple[int, int]:
    """When a ``YYYY-MM-DD`` day begins and ends (server ms, UTC); ``ValueError``
    if it is none."""
    start = day_number(day) * DAY_MS
    return start, start + DAY_MS


def past_days(today: str, count: int = PAST_DAYS) -> list[str]:
    """The ``count`` days before ``today``, the latest first.

    >>> past_days("2026-03-01", 2)
    ['2026-02-28', '2026-02-27']
    """
    n = day_number(today)
    return [day_text(n - i) for i in range(1, count + 1)]


def daily_settings(day: str, mode: str, *, time_limit: int, practice: str | None = None
                   ) -> Settings:
    """The settings of ``day``'s daily challenge of ``mode``: open the whole
    day, a certified winnable deal, room for :data:`DAILY_SEATS`, each
    attempt limited to ``time_limit`` seconds (or the day's end), boards
    shown after the close, undo and the engine's hints as in any race.
    With ``practice`` (the day's code): its practice room, the same deal
    played by the attempts that may not rank (docs/protocol.md)."""
    if mode not in MODES:
        raise ValueError(f"a daily mode is one of {', '.join(MODES)}, not {mode!r}")
    day_number(day)
    return Settings(draw=int(mode[1]), scoring=mode[2], max_players=DAILY_SEATS,
                    time_limit=time_limit, boards="after", top=DEFAULT_TOP, deal="winnable",
                    assists="basic", window=DAY_MS // 1000, daily=day, code=practice,
                    practice=practice is not None)
