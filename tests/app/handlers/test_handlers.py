"""The dispatch table: every command has exactly one handler."""

from __future__ import annotations

from server.app.handlers.dispatch import HANDLERS
from server.protocol import COMMANDS


def test_every_command_but_ping_has_a_handler() -> None:
    # ping is answered at the edge, before any credit is taken
    assert set(HANDLERS) == set(COMMANDS) - {"ping"}
