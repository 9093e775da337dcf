"""Entering and leaving rooms, and the lobby's commands.

A connection is in at most one room: as a player holding a seat (``create``,
``join``, ``resume``, ``solo``) or as a spectator (``watch``). Entering
follows the room's hub on this process, tells the client where it is
(``joined`` or ``watching``), then catches it up: the events it missed, or
the whole room (``sync``), and frames that arrived meanwhile in order.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any, Final

import orjson

from ...protocol import CloseCode, Reason, frame, reject
from ...protocol import commands as c
from ...race import RaceError
from ...store import StoreUnavailable
from ..edge.connection import Connection
from ..ground.tasks import spawn
from ..rooms.ids import is_room_id
from . import playing

RUNNING: Final = ("countdown", "racing")  # a race's phases: its boards are secrets


def room_id_of(text: str) -> str:
    room_id = text.strip().upper()
    if not is_room_id(room_id):
        raise RaceError(Reason.UNKNOWN_ROOM, f"there is no room {text[:20]!r}")
    return room_id


def need_key_if_rated(conn: Connection, rated: bool) -> None:
    """A rated race's players have a player key (their rating is theirs)."""
    if rated and not conn.player_id:
        raise RaceError(Reason.NOT_IDENTIFIED, "a rated race needs a player key: identify first")


async def on_create(conn: Connection, cmd: c.Create) -> None:
    conn.need_no_room()
    rated = cmd.settings.get("rated") is True
    need_key_if_rated(conn, rated)
    draw = cmd.settings.get("draw", 1)
    label = (await conn.services.ratings.rating_of(conn.player_id, draw)).label() if rated else ""
    quotas = conn.services.quotas
    async with quotas.creating(conn.address, "room") as place, \
            quotas.challenge(conn.address, cmd.settings):  # (a challenge holds days)
        room, token = await conn.services.rooms.create(cmd.nickname, cmd.settings,
                                                       address=conn.address, rating=label)
        await quotas.created(place, room.id, until=room.deadline)
    if room.settings.rated:  # (a fresh room: the host's address is its first)
        await conn.services.store.ratings.claim_address(room.id, conn.address)
    await take_seat(conn, room.id, 0, token, since=None)


async def on_quick(conn: Connection, cmd: c.Quick) -> None:
    """A seat in the next quick race of the mode (app/rooms/quick_races.py):
    rated, so for a player with a key."""
    conn.need_no_room()
    need_key_if_rated(conn, True)
    quotas = conn.services.quotas

    @contextlib.asynccontextmanager
    async def opening() -> AsyncIterator[Callable[[str], Awaitable[None]]]:
        async with quotas.creating(conn.address, "room") as place:
            yield lambda room_id: quotas.created(place, room_id)

    rating = await conn.services.ratings.rating_of(conn.player_id, cmd.draw)
    _, room_id, seat, token = await conn.services.quick.enter(
        cmd.nickname, cmd.draw, cmd.scoring, address=conn.address, creation=opening, rating=rating)
    await take_seat(conn, room_id, seat, token, since=None)


async def on_lobby(conn: Connection, cmd: c.Lobby) -> None:
    """Follow the list of public races (a connection in no room), or stop."""
    lobby = conn.services.lobby
    if cmd.on:
        conn.need_no_room()
        lobby.join(conn)
    else:
        lobby.leave(conn)


async def on_solo(conn: Connection, cmd: c.Solo) -> None:
    conn.need_no_room()
    quotas = conn.services.quotas
    async with quotas.creating(conn.address, "room") as place:
        room, token = await conn.services.rooms.solo(cmd.nickname, cmd.code, cmd.draw,
                                                     cmd.scoring, cmd.deal, cmd.assists)
        await quotas.created(place, room.id)
    await take_seat(conn, room.id, 0, token, since=None)


async def on_join(conn: Connection, cmd: c.Join) -> None:
    """A seat for a new player; in a daily deal's room, as ``daily_play``
    (a player's, counted against the address's attempts)."""
    conn.need_no_room()
    room_id = room_id_of(cmd.room)
    services = conn.services
    daily = (await services.rooms.settings_of(room_id)).daily
    if daily is not None:
        if daily != services.daily.today():
            raise RaceError(Reason.CLOSED)
        mode = (await services.rooms.settings_of(room_id)).public()["mode"]
        room_id, seat, token = await services.daily.join(conn.player_id, conn.address, mode,
                                                         cmd.nickname)
    elif (await services.rooms.settings_of(room_id)).rated:
        need_key_if_rated(conn, True)
        seat, token = await join_rated(conn, room_id, cmd.nickname,
                                       (await services.rooms.settings_of(room_id)).draw)
    else:
        seat, token, _ = await services.rooms.join(room_id, cmd.nickname, address=conn.address)
        await services.quotas.joined("room", room_id)  # in use: it keeps its place
    await take_seat(conn, room_id, seat, token, since=None)


async def join_rated(conn: Connection, room_id: str, nickname: str, draw: int
                     ) -> tuple[int, str]:
    """A seat in a rated room: one per address (IPv6 by its /64); the
    player's rating in the room's family shown beside them."""
    label = (await conn.services.ratings.rating_of(conn.player_id, draw)).label()
    ratings = conn.services.store.ratings
    if not await ratings.claim_address(room_id, conn.address):
        raise RaceError(Reason.ADDRESS_FULL, "a rated race seats one player per address: "
                                             "yours has a seat in this one")
    try:
        seat, token, _ = await conn.services.rooms.join(room_id, nickname, rating=label)
    except BaseException:
        await ratings.release_address(room_id, conn.address)
        raise
    await conn.services.quotas.joined("room", room_id)
    return seat, token


async def on_resume(conn: Connection, cmd: c.Resume) -> None:
    conn.need_no_room()
    room_id = room_id_of(cmd.room)
    seat = await conn.services.rooms.seat_of(room_id, cmd.token)
    if seat is None:
        raise RaceError(Reason.BAD_TOKEN)
    await take_seat(conn, room_id, seat, cmd.token, since=cmd.since)


async def on_watch(conn: Connection, cmd: c.Watch) -> None:
    """Follow a room as a spectator, unless the connection races in it: by
    the seat it holds, or the token it presents (``own_race``). Everyone
    races the same deal, so the boards of a running race name cards still
    face down on each racer's own table. A spectator whose token names a
    seat is refused the same way when a race of that seat starts
    (:func:`on_room_event`)."""
    room_id = room_id_of(cmd.room)
    conn.services.lobby.leave(conn)
    hub = conn.hub
    if conn.role == "player" and conn.room_id == room_id and hub is not None and (
            hub.phase_now() in RUNNING):
        raise RaceError(Reason.OWN_RACE)
    conn.need_no_room()
    watch_seat = await seat_named(conn, room_id, cmd.token) if cmd.token else None
    conn.syncing = True
    try:
        hub = await conn.services.room_hubs.enter(room_id, conn)
    except BaseException:
        await conn.leave_hub(detach=False)  # hold nothing back: the reject must go out
        raise
    if hub is None:
        conn.syncing = False
        raise RaceError(Reason.UNKNOWN_ROOM)
    conn.hub, conn.role, conn.room_id, conn.watch_seat = hub, "spectator", room_id, watch_seat
    await conn.send(frame("watching", {"room": room_id}))
    await catch_up(conn, cmd.since, spectator=True)
    await hub.send_boards_to([conn])


async def seat_named(conn: Connection, room_id: str, token: str) -> int | None:
    """The seat of the room that ``token`` names (a round's player who has
    not come yet: the seat they would take), if any; refused ``own_race`` if
    that seat races in the race running there. Read only."""
    found = await conn.services.rooms.seat_named(room_id, token)
    if found is None:
        return None  # (entering the room says unknown_room)
    seat, racing, phase = found
    if racing and phase in RUNNING:
        raise RaceError(Reason.OWN_RACE)
    return seat


async def take_seat(conn: Connection, room_id: str, seat: int, token: str,
                    since: int | None) -> None:
    """Hold the seat on this connection; tell the client where things stand."""
    services = conn.services
    services.lobby.leave(conn)  # in a room: no more lists of the others
    conn.syncing = True
    try:
        hub = await services.room_hubs.enter(room_id, conn)
        if hub is None:
            raise RaceError(Reason.UNKNOWN_ROOM)
        conn.hub, conn.role, conn.room_id, conn.seat, conn.token = hub, "player", room_id, seat, token
        await services.store.seats.attach(room_id, seat, conn.conn_id,
                                    hub.policy.seats.presence(seat, True, services.now_ms()))
    except BaseException:
        await conn.leave_hub(detach=False)  # out of the room, nothing held back
        raise
    await conn.send(frame("joined", {"room": room_id, "seat": seat, "token": token,
                                     "role": "player"}))
    if conn.player_id:
        await link_seat(conn)
    await catch_up(conn, since, spectator=False)
    if hub.phase in ("countdown", "racing", "ended"):
        await playing.load_game(conn, hub.race)  # whether the seat races is the store's to say
        if playing.is_racer(conn):
            if hub.phase_now() != "countdown":
                await playing.send_board(conn)
            else:
                spawn(playing.board_at_start(conn, hub.race))
        await hub.leaderboard.joined(conn)


async def link_seat(conn: Connection) -> None:
    """The seat counts for the connection's player (unless another player
    held it first). Redis's trouble here costs the player this seat's
    results, never the seat: the seat is taken already."""
    try:
        await conn.services.players.link_seat(conn.room_id, conn.seat, conn.player_id)
    except StoreUnavailable:
        conn.log.info("seat_not_linked", room=conn.room_id, seat=conn.seat)


async def catch_up(conn: Connection, since: int | None, *, spectator: bool) -> None:
    """The events missed since ``since``, or the whole room; then what
    arrived meanwhile."""
    hub = conn.hub
    assert hub is not None
    try:
        sent = False
        if since:
            v, events = await conn.services.store.rooms.events_since(conn.room_id, since)
            if events is not None:
                items = [_redact(conn, e, spectator) for e in events]
                await conn.send(b'{"t":"events","d":{"from":%d,"to":%d,"events":[%s]}}' % (
                    since, v, b",".join(items)))
                board = hub.board_frame()
                if board is not None:
                    await conn.send(board)
                sent = True
            elif v < since:  # the client saw more than Redis has now
                await conn.send(hub.sync_frame("rollback"))
                sent = True
        if not sent:
            await conn.send(hub.sync_frame())
    finally:
        await conn.flush_pending()


def _redact(conn: Connection, raw: bytes, spectator: bool) -> bytes:
    """A stored event as this client may see it: boards only to spectators
    of a live room (delayed boards come through the hub's delay)."""
    if b'"board":' not in raw:
        return raw
    if spectator and conn.hub is not None and conn.hub.boards_mode == "live":
        return raw
    event = orjson.loads(raw)
    event.pop("board", None)
    return orjson.dumps(event)


async def on_ready(conn: Connection, cmd: c.Ready) -> None:
    conn.need_seat()
    await conn.services.rooms.ready(conn.room_id, conn.seat, cmd.ready)


async def on_start(conn: Connection, cmd: c.Start) -> None:
    """The host starts the race; in a challenge, the player begins their
    own game: their board at once, and their ghosts."""
    conn.need_seat()
    if not await conn.services.rooms.start(conn.room_id, conn.seat, cmd.at or None):
        return
    hub = conn.hub
    assert hub is not None
    await playing.load_game(conn, hub.race)
    await playing.send_board(conn)
    if hub.ghosts is not None:
        hub.ghosts.again(conn)


async def on_kick(conn: Connection, cmd: c.Kick) -> None:
    conn.need_seat()
    await conn.services.rooms.kick(conn.room_id, conn.seat, cmd.seat)


async def on_rematch(conn: Connection, cmd: c.Rematch) -> None:
    conn.need_seat()
    await conn.services.rooms.rematch(conn.room_id, conn.seat, address=conn.address)


async def on_leave(conn: Connection, cmd: c.Leave) -> None:
    if conn.role == "spectator":
        await conn.leave_hub(detach=False)
        await conn.send(frame("left", {"room": conn.room_id}))
        return
    conn.need_seat()
    room_id = conn.room_id
    before_race = conn.hub is not None and conn.hub.phase_now() == "lobby"
    try:
        await conn.services.rooms.leave(room_id, conn.seat)
        if before_race and (await conn.services.rooms.settings_of(room_id)).rated:
            await conn.services.store.ratings.release_address(room_id, conn.address)
    except RaceError as exc:
        # the seat is gone already (its player withdrew from the tournament,
        # perhaps from another connection): this connection leaves all the same
        if exc.reason is not Reason.UNKNOWN_SEAT:
            raise
    await conn.leave_hub(detach=False)
    await conn.send(frame("left", {"room": room_id}))


def on_room_event(conn: Connection, event: dict[str, Any]) -> None:
    """A room event, as it concerns this connection's seat; a spectator
    whose token named a seat that races in a race starting now stops
    watching (``own_race``: before any board of that race is sent)."""
    if conn.role == "spectator" and event["kind"] == "start" and conn.watch_seat is not None:
        racers = event["room"].get("racers")  # (a room of thousands lists none: every seat races)
        if racers is None or conn.watch_seat in racers:
            conn.write(reject("watch", Reason.OWN_RACE))
            spawn(conn.leave_hub(detach=False))
        return
    if conn.role != "player":
        return
    kind = event["kind"]
    if kind == "kicked" and event["seat"] == conn.seat:
        conn.role = None
        conn.close(CloseCode.KICKED, "removed from the room by the host")
    elif kind == "start":  # every player in the room races (a board when its countdown ends)
        spawn(playing.board_at_start(conn, event["race"]))
    elif kind == "joined" and event.get("racing") and event["seat"] == conn.seat:
        # admitted into a running race: the board, unless taking the seat sent it already
        spawn(playing.board_at_start(conn, event["room"]["race"]))


HANDLERS: dict[str, Any] = {
    "create": on_create, "quick": on_quick, "lobby": on_lobby, "solo": on_solo, "join": on_join,
    "resume": on_resume,
    "watch": on_watch, "ready": on_ready, "start": on_start, "kick": on_kick,
    "rematch": on_rematch, "leave": on_leave,
}
