"""The batcher's RESP encoder writes exactly what redis-py would."""

from __future__ import annotations

import pytest
from redis.asyncio.connection import Connection

from server.store.resp import pack


def test_pack_matches_redis_py_for_the_types_we_send() -> None:
    commands = [("EVALSHA", "a" * 40, 2, "kr:{R}:room", "kr:{R}:ev", b"\x00\xffsnap", -3, "é"),
                ("PING",), ("SET", "k", b"", "PX", 15000)]
    assert pack(commands) == b"".join(Connection().pack_commands(commands))


def test_pack_refuses_what_it_cannot_encode() -> None:
    with pytest.raises(TypeError, match="float"):
        pack([("SET", "k", 1.5)])
