"""Frames the server sends, encoded once as JSON bytes (orjson).

Every frame is ``{"t": type, "d": data}``; docs/protocol.md lists them all.
Pre-encoded bytes go to many sockets at once with ``websockets.broadcast``.
"""

from __future__ import annotations

from typing import Any

import orjson

from .reasons import DEFAULT_TEXT, Reason

_dumps = orjson.dumps


def frame(t: str, d: Any) -> bytes:
    """The encoded frame ``{"t": t, "d": d}``."""
    return _dumps({"t": t, "d": d})


def reject(command: str | None, reason: Reason, text: str | None = None,
           seq: int | None = None) -> bytes:
    """A typed rejection: which command, a stable reason code, a sentence."""
    d: dict[str, Any] = {"cmd": command, "code": reason.value, "msg": text or DEFAULT_TEXT[reason]}
    if seq is not None:
        d["s"] = seq
    return _dumps({"t": "reject", "d": d})


def place_frame(t: str, place: bytes, extra: bytes = b"") -> bytes:
    """A player's own place, ``{"rank", "of", "above", "line", "below"}`` (and
    ``extra`` members), from JSON members the store built: nothing parsed,
    nothing encoded again.

    >>> place_frame("me", b'"rank":2,"of":9', b',"id":"T"')
    b'{"t":"me","d":{"rank":2,"of":9,"id":"T"}}'
    """
    return b'{"t":"' + t.encode() + b'","d":{' + place + extra + b"}}"


def wrap_raw(t: str, raw_json: bytes) -> bytes:
    """A frame around data that is already JSON (room events from Redis)."""
    return b'{"t":"' + t.encode() + b'","d":' + raw_json + b"}"
