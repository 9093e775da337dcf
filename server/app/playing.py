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

from ..klondike import Game, IllegalMoveError, InvalidNotationError, Move, NothingToUndoError
from ..protocol import Reason, frame
from ..protocol import commands as c
from ..race import RaceError, update_from_game
from ..race.leaderboard import line_of, rank_score
from ..store import Ranked, StoreUnavailable, event_body
from . import solver_jobs
from .assists import (
    DEBOUNCE,
    HINT_SECONDS,
    STATUS_SECONDS,
    Known,
    SeatAssist,
    first_move,
    no_progress,
)
from .background import spawn
from .connection import Connection, SeatGame

RECENT: Final = 64  # resent commands recognised up to this far back
_BOARD_TRIES: Final = 20  # a board as stored, after a rollback: tried every 0.5 s
#: view fields spectators never see: what only the player needs, and the player's assists
#: (a spectator's board may carry ``winnable``, see _send_status)
PLAYER_ONLY: Final = ("legal", "undo", "autocomplete", "no_progress", "back", "lost")
_BUSY_TRIES: Final = 20  # a status waits this many seconds at most for room in the solver pool


async def load_game(conn: Connection, race: int) -> None:
    """The seat's game of ``race`` as stored."""
    store = conn.services.store
    stored = await store.load_seat(conn.room_id, race, conn.seat)
    if stored.snap is not None:
        game = Game.from_snapshot(stored.snap)
    else:
        game = Game(await conn.services.rooms.deal_of(conn.room_id, race))
    play = conn.play
    if play.race != race:
        play.assist = SeatAssist()
    play.game, play.race, play.ver = game, race, stored.ver
    play.last_seq, play.done, play.exists = stored.seq, stored.done, stored.exists
    play.recent = dict(stored.recent)
    play.entry = stored.entry


def is_racer(conn: Connection) -> bool:
    """Whether the connection's seat plays the room's race: a small room
    lists its racers; a big room's seat has a game in it (once loaded)."""
    hub = conn.hub
    assert hub is not None
    if hub.big:
        return conn.play.exists and conn.play.race == hub.race
    return conn.seat in hub.public.get("racers", ())


async def send_board(conn: Connection) -> None:
    play = conn.play
    if play.game is None:
        return
    play.boarded = play.race
    view = play.game.view()
    known = assisted(conn, play.game, view)
    if known is None and solver_assists(conn) and not play.done:
        judge_soon(conn)
    await conn.send(frame("board", {"race": play.race, "s": play.last_seq, "done": play.done,
                                    "view": view}))


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
        wait = ((hub.public.get("start_at") or 0) - conn.services.now_ms()) / 1000
        if wait > 0:
            await asyncio.sleep(wait)
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
        if conn.seat not in hub.public.get("racers", ()) or hub.phase_now() not in ("racing",
                                                                                   "ended"):
            return  # no board yet (a countdown deals it at its end)
        try:
            async with conn.lock:
                await load_game(conn, hub.race)
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
    if hub.big and phase in ("racing", "ended") and (play.game is None or play.race != hub.race):
        await load_game(conn, hub.race)
    racer = is_racer(conn)
    if racer and phase in ("racing", "ended"):
        if play.game is None or play.race != hub.race:
            await load_game(conn, hub.race)
        if seq is not None and _resent(conn, seq, command):
            await _ack_again(conn, seq)
            return None
    if phase != "racing" or not racer:
        raise RaceError(Reason.NOT_PLAYING, "there is no race for you to play now")
    if play.done:
        raise RaceError(Reason.NOT_PLAYING, "your race is over")
    return play.game


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
    before = game.position() if solver_assists(conn) else None
    game.push_unchecked(move)
    await _commit(conn, cmd.s, str(move), before=before)


async def on_undo(conn: Connection, cmd: c.Undo) -> None:
    game = await _playing(conn, cmd.s, "undo")
    if game is None:
        return
    hub = conn.hub
    assert hub is not None
    if not hub.public["settings"]["undo"]:
        raise RaceError(Reason.UNDO_DISABLED)
    try:
        game.pop()
    except NothingToUndoError:
        raise RaceError(Reason.NOTHING_TO_UNDO) from None
    await _commit(conn, cmd.s, "undo")


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
    if solver_assists(conn):
        known = play.assist.get(game)
        move = first_move(known, game)
        if move is not None:
            await conn.send(frame("hint", {"m": str(move), "by": "solver", "s": play.last_seq}))
            return
        lost = known is not None and known.winnable == "no"  # no winning line to search for
        if not lost and not play.hinting and conn.services.solver.enabled:
            # the search runs off this connection's command lock: moves go on meanwhile
            play.hinting = True
            spawn(_solver_hint(conn, play, game.copy(), play.last_seq))
            return
    move = game.hint()
    await conn.send(frame("hint", {"m": None if move is None else str(move), "by": "basic",
                                   "s": play.last_seq}))


async def _solver_hint(conn: Connection, play: SeatGame, game: Game, seq: int) -> None:
    """The first move of a winning line from ``game`` (as it was when the
    hint was asked), or the basic hint if the solver finds none in time."""
    try:
        outcome = await conn.services.solver.run(HINT_SECONDS, solver_jobs.assess,
                                                 game.snapshot(), HINT_SECONDS, False,
                                                 kind="hint")
        move = None
        if outcome.status == "done" and outcome.value is not None:
            verdict = outcome.value
            known = Known(verdict.winnable, None if verdict.line is None else tuple(verdict.line),
                          None, verdict.lost)
            if verdict.winnable != "unknown":
                play.assist.learn(game.position(), known)
            move = first_move(known, game)
        by = "solver" if move is not None else "basic"
        if move is None:
            move = game.hint()
        if conn.play is play:
            conn.write(frame("hint", {"m": None if move is None else str(move), "by": by,
                                      "s": seq}))
    finally:
        play.hinting = False


def solver_assists(conn: Connection) -> bool:
    hub = conn.hub
    return hub is not None and hub.public["settings"].get("assists") == "solver"


def assisted(conn: Connection, game: Game, view: dict[str, Any],
             known: Known | None = None) -> Known | None:
    """Add the room's assists to a player's view: ``no_progress`` unless
    assists are off; with the solver's, ``winnable`` and ``back`` (``null``
    while the solver has not answered). The status known, if any."""
    hub = conn.hub
    assists = "off" if hub is None else hub.public["settings"].get(
        "assists", "basic" if hub.public["settings"].get("hints") else "off")
    if assists == "off":
        return None
    view["no_progress"] = no_progress(game)
    if assists != "solver":
        return None
    if known is None:
        known = conn.play.assist.get(game)
    view.update(known.fields() if known is not None else _PENDING)
    return known


_PENDING: Final = {"winnable": None, "back": None, "lost": None}


def judge_soon(conn: Connection) -> None:
    """Have the seat's position judged once the player pauses (see
    :mod:`.assists`); one judgement at a time per seat."""
    play = conn.play
    if play.assist.busy or not conn.services.solver.enabled:
        return
    play.assist.busy = True
    spawn(_judge(conn, play))


async def _judge(conn: Connection, play: SeatGame) -> None:
    assist, pool = play.assist, conn.services.solver
    tries = 0
    try:
        while True:
            await asyncio.sleep(DEBOUNCE)
            game, hub = play.game, conn.hub
            if conn.play is not play or game is None or play.done or hub is None:
                return
            position, seq = game.position(), play.last_seq
            known = assist.get(game)
            if known is None:
                judged = game.copy()
                undo = bool(hub.public["settings"]["undo"])
                outcome = await pool.run(STATUS_SECONDS, solver_jobs.assess, judged.snapshot(),
                                         STATUS_SECONDS, undo, kind="status")
                if outcome.status == "busy" and tries < _BUSY_TRIES:
                    tries += 1
                    await asyncio.sleep(1.0)
                    continue
                if outcome.status == "done" and outcome.value is not None:
                    verdict = outcome.value
                    known = Known(verdict.winnable,
                                  None if verdict.line is None else tuple(verdict.line),
                                  verdict.back, verdict.lost)
                    known = assist.learn(position, known)
                    assist.learn_back(judged, known)
                else:
                    known = Known("unknown")
            if play.game is None or play.game.position() != position or play.last_seq != seq:
                continue  # moved meanwhile: judge where the player is now
            _send_status(conn, play, seq, known)
            return
    finally:
        assist.busy = False


def _send_status(conn: Connection, play: SeatGame, seq: int, known: Known) -> None:
    """The player's status, and the spectators' (as the room shows boards)."""
    if play.assist.sent == (seq, known):
        return
    play.assist.sent = (seq, known)
    conn.write(frame("status", {"s": seq, **known.fields()}))
    hub, game = conn.hub, play.game
    if hub is None or game is None or hub.big or hub.boards_mode == "after":
        return
    board = {**game.public_view(), "winnable": known.winnable}
    notice = orjson.dumps({"x": "status", "seat": conn.seat, "at": conn.services.now_ms(),
                           "board": board})
    spawn(_publish(conn, conn.room_id, notice))


async def _publish(conn: Connection, room_id: str, notice: bytes) -> None:
    with contextlib.suppress(StoreUnavailable):  # the next move's board carries it anyway
        await conn.services.store.notice(room_id, notice)


async def on_complete(conn: Connection, cmd: c.Complete) -> None:
    game = await _playing(conn)
    assert game is not None
    moves = game.autocomplete_moves()
    if moves is None:
        raise RaceError(Reason.NO_AUTOCOMPLETE)
    await conn.send(frame("complete", {"moves": [str(m) for m in moves]}))


async def _commit(conn: Connection, seq: int, command: str, *, resign: bool = False,
                  before: Any = None) -> None:
    """Store the command just played on the local game; acknowledge it
    once Redis has it. On any failure the local game is reloaded."""
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
    view = game.view()
    solver = solver_assists(conn)
    known = play.assist.after(before, command, game) if solver else None
    known = assisted(conn, game, view, known)
    ranking, body = None, b""
    if hub.big:  # no event: its place in the ranking and the field's progress
        entry = line_of(entry)
        ranking = Ranked(rank_score(entry, start_at, now),
                         base["foundation"], entry["foundation"], base["status"], entry["status"])
    else:
        event: dict[str, Any] = {"kind": "progress", "seat": conn.seat, "at": now, "entry": entry}
        if hub.boards_mode != "after":
            event["board"] = {k: v for k, v in view.items() if k not in PLAYER_ONLY}
        body = event_body(event)
    store = services.store
    try:
        applied = await store.apply(
            store.seat_keys(conn.room_id, play.race, conn.seat),
            race=play.race, seat=conn.seat, conn=conn.conn_id, ver=play.ver, seq=seq,
            command=command, snap=game.snapshot(), entry=orjson.dumps(entry),
            event=body, done=done, ranking=ranking)
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
    services.metrics.moves_accepted.inc()
    if ranking is None:
        conn.write(frame("ack", {"s": seq, "view": view}))
    else:  # a big room's player learns their place with each ack
        conn.write(frame("ack", {"s": seq, "view": view, "rank": applied.rank, "of": applied.of}))
    if solver and not done:
        if known is None:
            judge_soon(conn)
        else:
            play.assist.sent = (seq, known)
    if done and applied.active == 0:
        spawn(_end_race(conn, conn.room_id))


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
