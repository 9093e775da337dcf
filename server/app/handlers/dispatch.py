"""Which module answers which command: the table a connection dispatches on."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

from ..edge.connection import Handler
from . import daily_commands, entering, lookups, player_commands, playing, tournament_commands

HANDLERS: Final[Mapping[str, Handler]] = {
    **entering.HANDLERS, **playing.HANDLERS, **lookups.HANDLERS, **tournament_commands.HANDLERS,
    **player_commands.HANDLERS, **daily_commands.HANDLERS,
}

on_room_event: Final = entering.on_room_event
on_resync: Final = playing.on_resync
