"""The seat's game: moves, undo, resign, hints, auto-complete.

The connection holding a seat keeps the seat's game as stored
(:class:`~.connection.SeatGame`). A command is checked by the engine on that
copy, played on it, and stored with one atomic script; the player gets its
``ack`` only once Redis has it. On any failure the copy is dropped and
reloaded from Redis before the next command, so the process never believes
in a move Redis does not have.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any, Final

import orjson

from ...klondike import Game, IllegalMoveError, InvalidNotationError, Move, NothingToUndoError
from ...klondike.views import view_change
from ...protocol import MAX_COMMANDS, Reason, frame
from ...protocol import commands as c
from ...race import RaceError, update_from_game
from ...race.ghosts import decode
from ...store import SeatCommand, StoreUnavailable, game_after
from ..edge.connection import Connection
from ..ground.clock import wait_for
from ..ground.tasks import spawn
from ..solver.seat_assists import ProgressTrail, SeatAssist
from .assisting import (
    ack_assists,
    assisted,
    judge_progress_soon,
    judge_soon,
    solver_assists,
    solver_hint,
)

RECENT: Final = 64  # resent commands recognised up to this far back
_BOARD_TRIES: Final = 20  # a board as stored, after a rollback: tried every 0.5 s


async def load_game(conn: Connection, race: int) -> None:
    """The seat's game of ``race`` as stored."""
    store = conn.services.store
    stored = await store.seats.load_seat(conn.room_id, race, conn.seat)
    if stored.snap is not None:
        game = Game.from_snapshot(stored.snap)
    elif stored.log is not None:  # packed: the game is over, its board rebuilt from its log
        game = game_after(await conn.services.rooms.deal_of(conn.room_id, race), stored.log)
    else:
        game = Game(await conn.services.rooms.deal_of(conn.room_id, race))
    play = conn.play
    if play.race != race:
        play.assist = SeatAssist()
    play.trail = ProgressTrail()
    play.game, play.race, play.ver = game, race, stored.ver
    play.last_seq, play.done, play.exists = stored.seq, stored.done, stored.exists
    play.recent = dict(stored.recent)
    play.entry = stored.entry
    play.trace = decode(stored.trace) if stored.trace else []


def is_racer(conn: Connection) -> bool:
    """Whether the connection's seat plays the room's race: the store says,
    once its game is loaded (:func:`load_game`)."""
    hub = conn.hub
    assert hub is not None
    return conn.play.exists and conn.play.race == hub.race


async def send_board(conn: Connection) -> None:
    play = conn.play
    if play.game is None:
        return
    play.boarded = play.race
    view = play.game.view()
    known = assisted(conn, play.game, view)
    if known is None and solver_assists(conn) and not play.done:
        judge_soon(conn)
    d: dict[str, Any] = {"race": play.race, "s": play.last_seq, "done": play.done, "view": view}
    if play.entry is not None and play.entry.get("started") is not None:
        d["started"] = play.entry["started"]  # a clock of the player's own (a challenge, came late)
    await conn.send(frame("board", d))


async def board_at_start(conn: Connection, race: int) -> None:
    """Deal the race's board to this player when the countdown ends."""
    hub = conn.hub
    if hub is None:
        return
    play = conn.play
    try:
        async with conn.lock:
            if play.game is None or play.race != race:
                await load_game(conn, race)
        # by the server's clock, which moves are checked against: a timer may
        # end a little before it (uvloop counts whole milliseconds), and a
        # move sent on a board dealt early would be refused as not started;
        # looked at again every half second at least (a clock moved on deals it then)
        while (start_at := hub.public.get("start_at") or 0) > (now := conn.services.now_ms()):
            await asyncio.sleep(wait_for(start_at, now))
        if conn.hub is hub and play.race == race and play.boarded != race:
            async with conn.lock:
                await send_board(conn)
    except StoreUnavailable:
        play.game = None  # loaded on the player's next command


def on_resync(conn: Connection, reason: str) -> None:
    """The hub sent the whole room again. After a rollback the seat's game as
    this process knew it is gone from Redis: the player gets the board as
    stored (no client keeps playing on a board Redis does not have)."""
    if reason != "rollback" or conn.role != "player":
        return
    conn.play.game = None
    spawn(_board_as_stored(conn))


async def _board_as_stored(conn: Connection) -> None:
    hub = conn.hub
    for _ in range(_BOARD_TRIES):
        if hub is None or conn.hub is not hub:
            return
        if hub.phase_now() not in ("racing", "ended"):
            return  # no board yet (a countdown deals it at its end)
        try:
            async with conn.lock:
                await load_game(conn, hub.race)
                if is_racer(conn):
                    await send_board(conn)
            return
        except StoreUnavailable:
            await asyncio.sleep(0.5)


async def _rolled_back(conn: Connection, stored_ver: int) -> None:
    """Redis has fewer of the seat's commands than this connection stored:
    say so once, count it, and send the room (``sync`` with reason
    ``rollback``) and the board as stored."""
    play = conn.play
    conn.log.warning("rollback", room=conn.room_id, seat=conn.seat, seen=play.ver,
                     stored=stored_ver)
    conn.services.metrics.rollbacks.labels(scope="seat").inc()
    await load_game(conn, play.race)
    if conn.hub is not None:  # the client drops its unacknowledged commands at this sync
        await conn.send(conn.hub.sync_frame("rollback"))
    await send_board(conn)


async def _playing(conn: Connection, seq: int | None = None, command: str = "") -> Game | None:
    """The seat's game if it may play now; otherwise the reason why not.

    ``None`` when ``(seq, command)`` resends a command already applied: it
    was acknowledged again. A resend is recognised even once the seat's
    race is over, so the lost ack of a last move or a resign comes back.
    """
    conn.need_seat()
    hub = conn.hub
    assert hub is not None
    play = conn.play
    phase = hub.phase_now()
    if phase == "countdown":
        raise RaceError(Reason.NOT_STARTED)
    if phase in ("racing", "ended") and (play.game is None or play.race != hub.race):
        await load_game(conn, hub.race)
    racer = is_racer(conn)
    if racer and phase in ("racing", "ended") and seq is not None and _resent(conn, seq, command):
        await _ack_again(conn, seq)
        return None
    if phase != "racing" or not racer:
        raise RaceError(Reason.NOT_PLAYING, "there is no race for you to play now")
    if play.done:
        raise RaceError(Reason.NOT_PLAYING, "your race is over")
    if play.entry is not None:  # a challenge's game ends at its player's own time
        hub.policy.start.check_time(play.entry, hub.public, conn.services.now_ms())
    return play.game


def _limit(command: str) -> int:
    """How many commands the seat's log may hold once ``command`` is in it:
    the last place is kept for a resign, so a player at the cap can still end
    their race."""
    return MAX_COMMANDS if command == "resign" else MAX_COMMANDS - 1


def _room_in_log(conn: Connection, command: str) -> None:
    """Refuse ``command`` before it is played when the seat's log is full
    (the ``move`` script refuses it too: this spares the round trip)."""
    if conn.play.ver >= _limit(command):
        raise _log_full()


def _log_full() -> RaceError:
    return RaceError(Reason.TOO_MANY_MOVES, f"this seat has stored as many commands as a race "
                     f"allows ({MAX_COMMANDS}, a resign included): you may still resign")


def _resent(conn: Connection, seq: int, command: str) -> bool:
    """A sequence number already used: ``True`` if it is the same command
    (acknowledged again), else the command is stale."""
    play = conn.play
    if seq > play.last_seq:
        return False
    if play.recent.get(seq) == command:
        return True
    raise RaceError(Reason.STALE, f"sequence number {seq} was already used "
                                  f"(last applied: {play.last_seq})")


async def on_move(conn: Connection, cmd: c.MoveCommand) -> None:
    conn.need_seat()
    try:
        move = Move.parse(cmd.m)
    except InvalidNotationError as exc:
        raise RaceError(Reason.BAD_NOTATION, str(exc)) from None
    game = await _playing(conn, cmd.s, str(move))
    if game is None:
        return
    reason = game.reason_illegal(move)
    if reason is not None:
        raise RaceError(Reason.ILLEGAL_MOVE, IllegalMoveError(move, reason).reason)
    _room_in_log(conn, str(move))
    before = game.position() if solver_assists(conn) else None
    game.push_unchecked(move)
    await _commit(conn, cmd.s, str(move), moved=move, before=before)


async def on_undo(conn: Connection, cmd: c.Undo) -> None:
    game = await _playing(conn, cmd.s, "undo")
    if game is None:
        return
    hub = conn.hub
    assert hub is not None
    if not hub.public["settings"]["undo"]:
        raise RaceError(Reason.UNDO_DISABLED)
    _room_in_log(conn, "undo")
    try:
        undone = game.pop()
    except NothingToUndoError:
        raise RaceError(Reason.NOTHING_TO_UNDO) from None
    await _commit(conn, cmd.s, "undo", moved=undone, undone=True)


async def on_resign(conn: Connection, cmd: c.Resign) -> None:
    if await _playing(conn, cmd.s, "resign") is None:
        return
    await _commit(conn, cmd.s, "resign", resign=True)


async def on_hint(conn: Connection, cmd: c.Hint) -> None:
    game = await _playing(conn)
    assert game is not None
    hub = conn.hub
    assert hub is not None
    if not hub.public["settings"]["hints"]:
        raise RaceError(Reason.HINTS_DISABLED)
    play = conn.play
    if solver_assists(conn) and await solver_hint(conn, game):
        return
    move = game.hint()
    await conn.send(frame("hint", {"m": None if move is None else str(move), "by": "basic",
                                   "s": play.last_seq}))


async def on_complete(conn: Connection, cmd: c.Complete) -> None:
    game = await _playing(conn)
    assert game is not None
    moves = game.autocomplete_moves()
    if moves is None:
        raise RaceError(Reason.NO_AUTOCOMPLETE)
    await conn.send(frame("complete", {"moves": [str(m) for m in moves]}))


def _whole(game: Game, moved: Move | None, legal: list[Move]) -> tuple[str, dict[str, Any]]:
    return "view", game.view()


def _changed(game: Game, moved: Move | None, legal: list[Move]) -> tuple[str, dict[str, Any]]:
    return "change", view_change(game, moved, legal)


#: what an ack carries of the player's view, by the connection's subprotocol:
#: what changed, or (klondike-race.v1) the whole view
ACK_VIEWS: Final = {"klondike-race.v1": _whole, "klondike-race.v2": _changed}


async def _commit(conn: Connection, seq: int, command: str, *, moved: Move | None = None,
                  undone: bool = False, resign: bool = False, before: Any = None) -> None:
    """Store the command just played on the local game (``moved``: the move
    played, or undone); acknowledge it once Redis has it, with what changed
    in the player's view. On any failure the local game is reloaded.
    Nothing here searches: what the assists cannot say at once is judged
    after the ack, once the player pauses."""
    play, hub, services = conn.play, conn.hub, conn.services
    game = play.game
    assert game is not None and hub is not None
    now = services.now_ms()
    base = play.entry
    if base is None:
        raise RaceError(Reason.NOT_PLAYING)
    start_at = int(hub.public.get("start_at") or now)
    entry = update_from_game(base, game, now, start_at)
    if resign:
        entry["status"] = "resigned"
    done = entry["status"] != "racing"
    legal = game.legal_moves()
    solver = solver_assists(conn)
    known = play.assist.after(before, command, game) if solver else None
    fields = ack_assists(conn, game, legal, moved, undone, known)
    key, shown = ACK_VIEWS.get(conn.subprotocol, _changed)(game, moved, legal)
    shown.update(fields)
    board = hub.leaderboard  # how the line travels: as an event, or ranked for the ticks
    entry = board.line_of(entry)
    trace, trace_text, ghost = hub.policy.start.trace(play.trace, entry, now, start_at, done)
    stored = SeatCommand(race=play.race, seat=conn.seat, conn=conn.conn_id, ver=play.ver, seq=seq,
                         command=command, snap=game.snapshot(), line=orjson.dumps(entry),
                         done=done, limit=_limit(command), trace=trace_text, ghost=ghost)
    try:
        seen = hub.policy.start.seen
        applied = await board.record(services.store, conn.room_id, stored, entry=entry, base=base,
                                     seen=seen(entry), seen_before=seen(base),
                                     board=lambda: {**game.public_view(), **fields},
                                     boards_mode=hub.boards_mode, now=now, start_at=start_at)
    except BaseException:
        play.game = None
        raise
    if applied.status != "ok":
        play.game = None
        if applied.status == "version" and applied.ver < play.ver:
            await _rolled_back(conn, applied.ver)
            raise RaceError(Reason.ROLLED_BACK)
        if applied.status == "taken_over":
            conn.taken_over()
            return
        if applied.status == "full":
            raise _log_full()
        if applied.status == "seq":  # applied meanwhile, through another connection
            await load_game(conn, play.race)
            if _resent(conn, seq, command):
                await _ack_again(conn, seq)
            return
        raise RaceError(Reason.NOT_PLAYING, "this race is over" if applied.status ==
                        "not_playing" else "your game changed elsewhere; it was reloaded")
    play.ver += 1
    play.last_seq = seq
    play.recent[seq] = command
    if len(play.recent) > RECENT:
        del play.recent[min(play.recent)]
    play.entry = entry
    play.done = done
    play.trace = trace
    services.metrics.moves_accepted.inc()
    board.send_ack(conn, frame("ack", board.ack({"s": seq, key: shown}, applied)))
    if done:
        spawn(services.rooms.game_over(conn.room_id, conn.seat))
        if applied.active == 0:
            spawn(_end_race(conn, conn.room_id))
        return
    if fields.get("no_progress", False) is None and key == "change":
        judge_progress_soon(conn)
    if solver:
        if known is None:
            judge_soon(conn)
        else:
            play.assist.sent = (seq, known)


async def _ack_again(conn: Connection, seq: int) -> None:
    game = conn.play.game
    assert game is not None
    view = game.view()
    assisted(conn, game, view)
    await conn.send(frame("ack", {"s": seq, "view": view, "again": True}))


async def _end_race(conn: Connection, room_id: str) -> None:
    with contextlib.suppress(StoreUnavailable):  # else the deadline sweeper ends it
        await conn.services.rooms.end_race(room_id)


HANDLERS: dict[str, Any] = {
    "move": on_move, "undo": on_undo, "resign": on_resign, "hint": on_hint,
    "complete": on_complete,
}
