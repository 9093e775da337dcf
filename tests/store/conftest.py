"""Fixtures of the store's tests."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from harness import RedisServer

from server.store import Store


@pytest.fixture
async def store(redis_server: RedisServer) -> AsyncIterator[Store]:
    """A store of one lane on the session's Redis, closed after the test."""
    s = await Store.open(redis_server.url, lanes=1)
    yield s
    await s.close()
