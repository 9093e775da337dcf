"""Looking through a room's field: a page of its leaderboard, a nickname's
line, and (for a spectator) following one player.

A room of thousands sends everyone only its top lines and each player's
own place; these commands fetch the rest on demand, a bounded page at a
time. A room of a few answers them from its hub's lines, so a client may use
them anywhere (the room's leaderboard answers: see :mod:`~server.app.rooms.policy`).
"""

from __future__ import annotations

from typing import Any, Final

from ...protocol import Reason, frame
from ...protocol import commands as c
from ...race import RaceError
from ...race.names import check_nickname, fold
from ..edge.connection import Connection
from ..rooms.room_hub import RoomHub

PAGE_MAX: Final = 50  # lines in one page


def _in_room(conn: Connection) -> RoomHub:
    if conn.hub is None:
        raise RaceError(Reason.NOT_IN_ROOM)
    return conn.hub


async def on_lb_page(conn: Connection, cmd: c.LbPage) -> None:
    hub = _in_room(conn)
    if cmd.count > PAGE_MAX:
        raise RaceError(Reason.BAD_FIELD, f"lb_page: field 'count' must be from 1 to {PAGE_MAX}")
    of, lines = await hub.leaderboard.page(cmd.first, cmd.count)
    await conn.send(frame("lb_page", {"first": cmd.first, "of": of, "lines": [
        {**line, "rank": cmd.first + i} for i, line in enumerate(lines)]}))


async def on_lb_find(conn: Connection, cmd: c.LbFind) -> None:
    hub = _in_room(conn)
    name = check_nickname(cmd.nickname)
    found = await _find(conn, hub, name)
    if found is None:
        raise RaceError(Reason.UNKNOWN_SEAT, f"nobody is called {name!r} in this room")
    await conn.send(frame("lb_found", found))


async def _find(conn: Connection, hub: RoomHub, name: str) -> dict[str, Any] | None:
    """The player with this nickname: their seat, rank (0 before they are
    ranked) and line."""
    return await hub.leaderboard.find(name, fold(name))


async def on_follow(conn: Connection, cmd: c.Follow) -> None:
    hub = _in_room(conn)
    if conn.role != "spectator":
        raise RaceError(Reason.NOT_SPECTATOR)
    if cmd.nickname is None:
        conn.following = None
        await conn.send(frame("following", {"seat": None}))
        return
    found = await _find(conn, hub, check_nickname(cmd.nickname))
    if found is None:
        raise RaceError(Reason.UNKNOWN_SEAT, f"nobody is called {cmd.nickname[:20]!r} in this room")
    conn.following = found["seat"]
    await conn.send(frame("following", found))


HANDLERS: dict[str, Any] = {"lb_page": on_lb_page, "lb_find": on_lb_find, "follow": on_follow}
