"""The daily deal's commands: today's deals (``daily``) and a seat in one
(``daily_play``, or ``join`` with a daily room's id). Everything after the
seat is taken is a challenge's: ``start``, the game, the leaderboard's
look-ups (docs/protocol.md, "The daily deal")."""

from __future__ import annotations

from typing import Any

from ...protocol import commands as c
from ...protocol import frame
from ..edge.connection import Connection
from .entering import take_seat


async def on_daily(conn: Connection, cmd: c.Daily) -> None:
    daily = conn.services.daily
    view = await daily.today_view(conn.player_id)
    view["past"] = await daily.past()
    await conn.send(frame("daily", view))


async def on_daily_play(conn: Connection, cmd: c.DailyPlay) -> None:
    conn.need_no_room()
    room_id, seat, token = await conn.services.daily.join(conn.player_id, conn.address,
                                                          cmd.mode, cmd.nickname)
    await take_seat(conn, room_id, seat, token, since=None)


HANDLERS: dict[str, Any] = {"daily": on_daily, "daily_play": on_daily_play}
