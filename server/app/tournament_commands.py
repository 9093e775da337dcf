"""Tournament commands of a connection: organize, register, follow.

A connection follows at most one tournament (its events come as
``t_event``), besides any room it is in: a player plays each round in the
round's room with the ordinary ``resume``.
"""

from __future__ import annotations

from typing import Any

from ..protocol import Reason, frame
from ..protocol import commands as c
from ..race import RaceError
from .connection import Connection


async def follow(conn: Connection, tournament_id: str, *, resync: bool = False) -> None:
    """Follow a tournament's events on this connection (one at a time);
    a ``t_sync`` comes when it starts following (or on ``resync``)."""
    services = conn.services
    tid = tournament_id.strip().upper()
    if conn.thub is not None:
        if conn.thub.id == tid:
            if resync:
                await conn.send(conn.thub.sync_frame())
            return
        if await services.store.load_tournament(tid) is None:  # keep following this one
            raise RaceError(Reason.UNKNOWN_ROOM, "there is no such tournament")
        services.thubs.leave(conn.thub, conn)
        conn.thub = None
    conn.syncing = True
    try:
        thub = await services.thubs.enter(tid, conn)
        if thub is None:
            raise RaceError(Reason.UNKNOWN_ROOM, "there is no such tournament")
        conn.thub = thub
        await conn.send(thub.sync_frame())
    finally:
        await conn.flush_pending()


async def on_t_create(conn: Connection, cmd: c.TCreate) -> None:
    t, admin = await conn.services.tournaments.create(cmd.name, cmd.settings)
    await conn.send(frame("t_created", {"id": t.id, "admin": admin}))
    await follow(conn, t.id)


async def on_t_watch(conn: Connection, cmd: c.TWatch) -> None:
    await follow(conn, cmd.id, resync=True)


async def on_t_register(conn: Connection, cmd: c.TRegister) -> None:
    t, player, token = await conn.services.tournaments.register(cmd.id, cmd.nickname)
    await conn.send(frame("t_registered", {"id": t.id, "player": player, "token": token}))
    await follow(conn, t.id)


async def on_t_resume(conn: Connection, cmd: c.TResume) -> None:
    loaded = await conn.services.store.load_tournament(cmd.id.strip().upper())
    if loaded is None:
        raise RaceError(Reason.UNKNOWN_ROOM, "there is no such tournament")
    player = loaded[0].player_of(cmd.token)
    if player is None:
        raise RaceError(Reason.BAD_TOKEN, "this token is not a player of the tournament")
    await conn.send(frame("t_registered", {"id": loaded[0].id, "player": player.player,
                                           "token": cmd.token}))
    await follow(conn, loaded[0].id)


async def on_t_close(conn: Connection, cmd: c.TClose) -> None:
    await conn.services.tournaments.close(cmd.id, cmd.admin)
    await follow(conn, cmd.id)


async def on_t_start(conn: Connection, cmd: c.TStart) -> None:
    await conn.services.tournaments.start_round(cmd.id, cmd.admin, cmd.at or None)
    await follow(conn, cmd.id)


async def on_t_end(conn: Connection, cmd: c.TEnd) -> None:
    await conn.services.tournaments.end_round(cmd.id, cmd.admin)
    await follow(conn, cmd.id)


async def on_t_withdraw(conn: Connection, cmd: c.TWithdraw) -> None:
    await conn.services.tournaments.withdraw(cmd.id, cmd.token)
    await follow(conn, cmd.id)


async def on_t_standings(conn: Connection, cmd: c.TStandings) -> None:
    results = await conn.services.tournaments.results(cmd.id)
    await conn.send(frame("t_standings", {"id": results["id"], "standings": results["standings"]}))


HANDLERS: dict[str, Any] = {
    "t_create": on_t_create, "t_watch": on_t_watch, "t_register": on_t_register,
    "t_resume": on_t_resume, "t_close": on_t_close, "t_start": on_t_start, "t_end": on_t_end,
    "t_withdraw": on_t_withdraw, "t_standings": on_t_standings,
}
