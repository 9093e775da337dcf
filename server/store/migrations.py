"""Keys written by an earlier version, moved once to where this one reads them.

Run at every start (:meth:`~.store.Store.migrate`), by every process: each
step is safe to repeat and to run on two processes at once, and finds
nothing to do once done. Each old key is renamed within its own slot (the
new name keeps its hash tag, or on one Redis has none), so a move is one
``RENAMENX`` and keeps the key's expiry; where the new key already exists (a
process of this version wrote it first) the two are merged and the old one
deleted.

- the indexes over rooms and tournaments left the room and tournament
  prefixes: ``kr:due`` -> ``ki:due:rooms``, ``kt:due`` ->
  ``ki:due:tournaments``, ``kr:live`` -> ``ki:live:rooms``, ``kt:live`` ->
  ``ki:live:tournaments`` (and their shards on a Redis Cluster), and what one
  address did lately, ``kr:made:``, ``kr:held:``, ``kr:reg:``, ``kr:guess:``
  -> ``ki:…``; heartbeats (``kr:proc:``) are not moved: they expire within
  seconds and a process beats again;
- the lobby's list of public rooms, ``kr:{pub}:…`` -> ``kl:{pub}:…``;
- the sets of winnable KL1 codes of before KL2 (``kw:{MODE}``, 35-bit numbers
  a brute force finds) are deleted: never dealt;
- the daily seats an address took in a day (``kd:made:DAY:ADDR``) were a
  sorted set of one entry per seat: each becomes the count it held, with its
  expiry (a refusal now stores nothing: the count is checked before it grows).
"""

from __future__ import annotations

from typing import Any, Final

from redis.exceptions import ResponseError

from . import keys
from .client import RedisClient
from .section import pairs

#: old prefix -> new prefix, for keys found by scanning
RENAMED_PREFIXES: Final = (
    ("kr:due", keys.DUE), ("kt:due", keys.TOURNAMENTS_DUE),
    ("kr:live", keys.LIVE_ROOMS), ("kt:live", keys.LIVE_TOURNAMENTS),
    ("kr:made:", "ki:made:"), ("kr:held:", "ki:held:"), ("kr:reg:", "ki:reg:"),
    ("kr:guess:", "ki:guess:"),
)
#: the names of indexes and per-address keys of before (never a room's or a
#: tournament's key, whose prefix is followed by ``{``)
OLD_PATTERNS: Final = ("kr:[a-z]*", "kt:[a-z]*")
OLD_PUBLIC: Final = tuple(k.replace("kl:", "kr:", 1) for k in keys.PUBLIC_KEYS)
#: hashes whose values are counts (merged by adding)
COUNTS: Final = frozenset({keys.PUBLIC_KEYS[3]})
KL1_MODES: Final = ("D1N", "D3N", "D1V", "D3V")


def renamed(old: str) -> str | None:
    """The name this version gives ``old``, or ``None`` if it keeps none.

    >>> renamed("kr:due"), renamed("kr:due:{d3-11}"), renamed("kr:held:{1.2.3.4}:room")
    ('ki:due:rooms', 'ki:due:rooms:{d3-11}', 'ki:held:{1.2.3.4}:room')
    >>> renamed("kr:{pub}:n"), renamed("kr:proc:a1"), renamed("kr:{R1}:room")
    ('kl:{pub}:n', None, None)
    """
    if old in OLD_PUBLIC:
        return keys.PUBLIC_KEYS[OLD_PUBLIC.index(old)]
    for before, after in RENAMED_PREFIXES:
        if old == before or old.startswith(before + ":{") or (before.endswith(":")
                                                              and old.startswith(before)):
            return after + old[len(before):]
    return None


async def migrate(client: RedisClient) -> int:
    """Move every key of an earlier version; how many were moved or deleted."""
    found = list(OLD_PUBLIC)
    for pattern in OLD_PATTERNS:
        found += await client.scan(pattern)
    moved = 0
    for old in dict.fromkeys(found):
        new = renamed(old)
        if new is not None and await _move(client, old, new):
            moved += 1
    for mode in KL1_MODES:
        old = f"kw:{{{mode}}}"
        moved += int(await client.execute(old, "DEL", old))
    for key in await client.scan(keys.daily_attempts("*", "*")):
        moved += await _counted(client, key)
    return moved


#: a sorted set made the count of its entries, with its expiry, in one step
_COUNTED: Final = """
if redis.call('TYPE', KEYS[1]).ok ~= 'zset' then return 0 end
local n, ttl = redis.call('ZCARD', KEYS[1]), redis.call('PTTL', KEYS[1])
redis.call('DEL', KEYS[1])
if ttl > 0 then redis.call('SET', KEYS[1], n, 'PX', ttl) end
return 1
"""


async def _counted(client: RedisClient, key: str) -> int:
    """A sorted set of one entry per attempt made the count it holds (1 if done)."""
    return int(await client.execute(key, "EVAL", _COUNTED, 1, key))


async def _move(client: RedisClient, old: str, new: str) -> bool:
    try:
        if await client.execute(old, "RENAMENX", old, new):
            return True
    except ResponseError:  # no such key: nothing to move (or another process moved it)
        return False
    kind = _text(await client.execute(old, "TYPE", old))
    ttl = max(int(await client.execute(old, "PTTL", old)), int(await client.execute(new, "PTTL", new)))
    if kind == "zset":  # both: keep each member's later score
        await client.execute(old, "ZUNIONSTORE", new, 2, new, old, "AGGREGATE", "MAX")
    elif kind == "hash":
        fields = await client.execute(old, "HGETALL", old)
        for field, value in pairs(fields):
            if new in COUNTS:
                await client.execute(new, "HINCRBY", new, field, int(value))
            else:
                await client.execute(new, "HSETNX", new, field, value)
    if ttl > 0:
        await client.execute(new, "PEXPIRE", new, ttl)
    await client.execute(old, "DEL", old)
    return True


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)
