"""Fixtures of the app's tests (the session-wide ones are in tests/conftest.py)."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from harness import Client, ServerProcess
from play_support import Opener


@pytest.fixture
async def clients() -> AsyncIterator[Opener]:
    """``await clients(server, "name")``: a client of that server, closed after the test."""
    opened: list[Client] = []

    async def open_(server: ServerProcess, name: str) -> Client:
        client = await Client.open(server.ws_url, name)
        opened.append(client)
        return client

    yield open_
    for client in opened:
        await client.close()
