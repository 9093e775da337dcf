"""Encoding commands in RESP, the Redis protocol, for the batcher.

redis-py's own packer handles every type and encoding option and costs
about 12 µs for a move's script call; commands here carry only ``bytes``,
``str`` and ``int``, which this does in a few.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any


def pack(commands: Iterable[tuple[Any, ...]]) -> bytes:
    """Several commands as one RESP buffer."""
    parts: list[bytes] = []
    add = parts.append
    for args in commands:
        add(b"*%d\r\n" % len(args))
        for arg in args:
            kind = type(arg)
            if kind is bytes:
                data = arg
            elif kind is str:
                data = arg.encode()
            elif kind is int:
                data = b"%d" % arg
            else:
                raise TypeError(f"cannot send {kind.__name__} to Redis: {arg!r}")
            add(b"$%d\r\n%b\r\n" % (len(data), data))
    return b"".join(parts)
