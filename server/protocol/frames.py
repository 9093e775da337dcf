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


def wrap_raw(t: str, raw_json: bytes) -> bytes:
    """A frame around data that is already JSON (room events from Redis)."""
    return b'{"t":"' + t.encode() + b'","d":' + raw_json + b"}"
