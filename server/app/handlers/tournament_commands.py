"""Tournament commands of a connection: organize, register, follow.

A connection follows at most one tournament (its events come as
``t_event``), besides any room it is in: a player plays each round in the
round's room with the ordinary ``resume``. A connection that registered or
resumed as a player also gets its own place (``t_me``) where the standings
show their top.
"""

from __future__ import annotations

from typing import Any, Final

from ...protocol import Reason, frame
from ...protocol import commands as c
from ...race import RaceError
from ..edge.connection import Connection

PAGE_MAX: Final = 50  # standings lines in one t_page


async def follow(conn: Connection, tournament_id: str, *, resync: bool = False,
                 player: int | None = None) -> None:
    """Follow a tournament's events on this connection (one at a time);
    a ``t_sync`` comes when it starts following (or on ``resync``), then a
    player gets their place (``t_me``) where the standings show their top.
    ``player``: this connection is that player of the tournament."""
    services = conn.services
    tid = tournament_id.strip().upper()
    if conn.tournament_hub is not None and conn.tournament_hub.id != tid:
        if await services.store.tournaments.load_tournament(tid) is None:  # keep following this one
            raise RaceError(Reason.UNKNOWN_ROOM, "there is no such tournament")
        services.tournament_hubs.leave(conn.tournament_hub, conn)
        conn.tournament_hub, conn.t_player = None, -1
    if player is not None:
        conn.t_player = player
    if conn.tournament_hub is not None:
        if resync:
            await conn.send(await conn.tournament_hub.sync_frame_now())
        if conn.tournament_hub.view.sends_places and (resync or player is not None):
            await conn.tournament_hub.send_me([conn])
        return
    conn.syncing = True
    try:
        tournament_hub = await services.tournament_hubs.enter(tid, conn)
        if tournament_hub is None:
            raise RaceError(Reason.UNKNOWN_ROOM, "there is no such tournament")
        conn.tournament_hub = tournament_hub
        await conn.send(await tournament_hub.sync_frame_now())
    finally:
        await conn.flush_pending()
    if tournament_hub.view.sends_places:
        await tournament_hub.send_me([conn])


async def on_t_create(conn: Connection, cmd: c.TCreate) -> None:
    quotas = conn.services.quotas
    async with quotas.creating(conn.address, "tournament") as place:
        t, admin, invite = await conn.services.tournaments.create(cmd.name, cmd.settings)
        await quotas.created(place, t.id)
    created: dict[str, Any] = {"id": t.id, "admin": admin}
    if invite is not None:
        created["invite"] = invite
    await conn.send(frame("t_created", created))
    await follow(conn, t.id)


async def on_t_watch(conn: Connection, cmd: c.TWatch) -> None:
    await follow(conn, cmd.id, resync=True)


async def on_t_register(conn: Connection, cmd: c.TRegister) -> None:
    """Register a player, within the registration rates (see :mod:`.quotas`);
    a wrong invite code counts against the address and the tournament."""
    quotas, tid = conn.services.quotas, cmd.id.strip().upper()
    async with quotas.registering(conn, conn.address, tid,
                                  invite=bool(cmd.invite and cmd.invite.strip())):
        t, player, token = await conn.services.tournaments.register(cmd.id, cmd.nickname,
                                                                    cmd.invite)
    await quotas.joined("tournament", t.id)
    await conn.send(frame("t_registered", {"id": t.id, "player": player, "token": token}))
    await follow(conn, t.id, player=player)


async def on_t_resume(conn: Connection, cmd: c.TResume) -> None:
    found = await conn.services.tournaments.player_of(cmd.id, cmd.token)
    if found is None:
        raise RaceError(Reason.BAD_TOKEN, "this token is not a player of the tournament")
    t, player = found
    await conn.send(frame("t_registered", {"id": t.id, "player": player, "token": cmd.token}))
    await follow(conn, t.id, player=player)


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
    tid, player = await conn.services.tournaments.withdraw(cmd.id, cmd.token)
    await follow(conn, cmd.id)
    hub = conn.tournament_hub
    answer = hub.view.withdrawn_answer(tid, player) if hub is not None else None
    if answer is not None:  # no event to everyone: an answer of its own
        await conn.send(answer)


async def on_t_kick(conn: Connection, cmd: c.TKick) -> None:
    await conn.services.tournaments.kick(cmd.id, cmd.admin, cmd.player, ban=cmd.ban)
    await follow(conn, cmd.id)


async def on_t_handoff(conn: Connection, cmd: c.THandoff) -> None:
    code, until = await conn.services.tournaments.handoff(cmd.id, cmd.admin)
    await conn.send(frame("t_handoff", {"id": cmd.id.strip().upper(), "code": code,
                                        "until": until}))


async def on_t_claim(conn: Connection, cmd: c.TClaim) -> None:
    t, admin = await conn.services.tournaments.claim(cmd.id, cmd.code)
    await conn.send(frame("t_claimed", {"id": t.id, "admin": admin}))
    await follow(conn, t.id)


async def on_t_standings(conn: Connection, cmd: c.TStandings) -> None:
    await conn.send(frame("t_standings", await conn.services.tournaments.standings_top(cmd.id)))


async def on_t_page(conn: Connection, cmd: c.TPage) -> None:
    if cmd.count > PAGE_MAX:
        raise RaceError(Reason.BAD_FIELD, f"t_page: field 'count' must be from 1 to {PAGE_MAX}")
    tid, of, lines = await conn.services.tournaments.standings_page(cmd.id, cmd.first, cmd.count)
    await conn.send(frame("t_page", {"id": tid, "first": cmd.first, "of": of, "lines": lines}))


async def on_t_find(conn: Connection, cmd: c.TFind) -> None:
    tid, found = await conn.services.tournaments.find(cmd.id, cmd.nickname)
    if found is None:
        raise RaceError(Reason.UNKNOWN_SEAT,
                        f"nobody is called {cmd.nickname[:20]!r} in this tournament")
    await conn.send(frame("t_found", {"id": tid, **found}))


HANDLERS: dict[str, Any] = {
    "t_create": on_t_create, "t_watch": on_t_watch, "t_register": on_t_register,
    "t_resume": on_t_resume, "t_close": on_t_close, "t_start": on_t_start, "t_end": on_t_end,
    "t_withdraw": on_t_withdraw, "t_standings": on_t_standings, "t_page": on_t_page,
    "t_find": on_t_find, "t_kick": on_t_kick, "t_handoff": on_t_handoff, "t_claim": on_t_claim,
}
