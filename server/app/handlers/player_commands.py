"""Player commands of a connection: who it is, and the player's own profile.

``identify`` makes the connection a player (``conn.player_id``), by their
key or as a new player whose key comes back once; a seat the connection
holds, or takes from then on, counts for that player (the first player who
held it keeps it). The ``p_*`` commands act on the identified player: a new
nickname, a page of their history, a code that moves them to another
device, forgetting them. ``p_claim`` makes this connection the player of a
device-move code, whoever it was before; ``p_profile`` reads anyone's
public profile.
"""

from __future__ import annotations

from typing import Any

from ...protocol import Reason, frame
from ...protocol import commands as c
from ...race import RaceError
from ...race.profile import MAX_PAGE
from ..edge.connection import Connection
from ..players.player_service import Identity


def need_player(conn: Connection) -> str:
    """The connection's player, or ``not_identified``."""
    if not conn.player_id:
        raise RaceError(Reason.NOT_IDENTIFIED)
    return conn.player_id


async def _became(conn: Connection, who: Identity, key: str | None = None) -> None:
    """The connection is this player now: its seat counts for them, and it is told."""
    if conn.role == "player" and conn.room_id:
        await conn.services.players.link_seat(conn.room_id, conn.seat, who.id)
    conn.player_id = who.id
    d: dict[str, Any] = {"id": who.id, "nickname": who.nickname,
                         "ratings": await conn.services.ratings.of_player(who.id)}
    if key is not None:
        d["key"] = key
    await conn.send(frame("player", d))


async def on_identify(conn: Connection, cmd: c.Identify) -> None:
    players = conn.services.players
    if cmd.key is not None:  # (an empty key is no one's: a new player is asked for with none)
        who = await players.identify(cmd.key) if cmd.key else None
        if who is None:
            raise RaceError(Reason.UNKNOWN_PLAYER)
        await _became(conn, who)
        return
    who, key = await players.create(cmd.nickname, conn.address)
    await _became(conn, who, key)


async def on_p_rename(conn: Connection, cmd: c.PRename) -> None:
    who = await conn.services.players.rename(need_player(conn), cmd.nickname)
    await conn.send(frame("player", {"id": who.id, "nickname": who.nickname,
                                     "ratings": await conn.services.ratings.of_player(who.id)}))


async def on_p_history(conn: Connection, cmd: c.PHistory) -> None:
    player = need_player(conn)
    if cmd.count > MAX_PAGE:
        raise RaceError(Reason.BAD_FIELD, f"p_history: count is at most {MAX_PAGE}")
    total, entries = await conn.services.players.history(player, cmd.first, cmd.count)
    await conn.send(b'{"t":"p_history","d":{"first":%d,"of":%d,"results":[%s]}}' % (
        cmd.first, total, b",".join(r.to_json() for r in entries)))


async def on_p_profile(conn: Connection, cmd: c.PProfile) -> None:
    """Anyone's public profile: what ``GET /api/players/{id}`` answers."""
    player_id = cmd.id.strip().upper()
    found = await conn.services.players.public(player_id)
    if found is None:
        raise RaceError(Reason.UNKNOWN_PLAYER, "there is no such player")
    await conn.send(frame("p_profile", {**found, **await conn.services.ratings.public(player_id)}))


async def on_p_move(conn: Connection, cmd: c.PMove) -> None:
    code, until = await conn.services.players.offer_move(need_player(conn))
    await conn.send(frame("p_move", {"code": code, "until": until}))


async def on_p_claim(conn: Connection, cmd: c.PClaim) -> None:
    who, key = await conn.services.players.claim(cmd.code, conn.address)
    await _became(conn, who, key)


async def on_p_forget(conn: Connection, cmd: c.PForget) -> None:
    player = need_player(conn)
    await conn.services.players.forget(player)
    await conn.services.ratings.forget(player)  # (a top list is a slot of its own)
    conn.player_id = ""
    await conn.send(frame("p_forgotten", {"id": player}))


HANDLERS: dict[str, Any] = {
    "identify": on_identify, "p_rename": on_p_rename, "p_history": on_p_history,
    "p_profile": on_p_profile, "p_move": on_p_move, "p_claim": on_p_claim,
    "p_forget": on_p_forget,
}
