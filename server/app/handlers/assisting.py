"""A seat's assists, on the connection that holds it: the player's view
with the room's assists (``no_progress``; with the solver's, ``winnable``
and ``back``), never searched for on a move's path: a position judged once
the player pauses ("no progress" in the event loop, the solver's status in
its pool), a solver hint searched off the connection's command lock, and
the status sent to the player and, as the room shows boards (the solver's),
to its spectators. What the seat learns, and the jobs, are the solver's
(:mod:`~server.app.solver`).
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any, Final

import orjson

from ...klondike import Game, Move
from ...protocol import frame
from ...store import StoreUnavailable
from ..edge.connection import Connection, SeatGame
from ..ground.tasks import spawn
from ..solver import jobs
from ..solver.seat_assists import DEBOUNCE, HINT_SECONDS, STATUS_SECONDS, Known, first_move, no_progress

_BUSY_TRIES: Final = 20  # a status waits this many seconds at most for room in the solver pool


async def solver_hint(conn: Connection, game: Game) -> bool:
    """Answer ``hint`` with the solver's move, known or searched for now (off
    the command lock: moves go on meanwhile); ``False`` when the basic hint
    must do (the position is lost, a search is under way, or no pool)."""
    play = conn.play
    known = play.assist.get(game)
    move = first_move(known, game)
    if move is not None:
        await conn.send(frame("hint", {"m": str(move), "by": "solver", "s": play.last_seq}))
        return True
    lost = known is not None and known.winnable == "no"  # no winning line to search for
    if lost or play.hinting or not conn.services.solver.enabled:
        return False
    play.hinting = True
    spawn(_solver_hint(conn, play, game.copy(), play.last_seq))
    return True


async def _solver_hint(conn: Connection, play: SeatGame, game: Game, seq: int) -> None:
    """The first move of a winning line from ``game`` (as it was when the
    hint was asked), or the basic hint if the solver finds none in time."""
    try:
        outcome = await conn.services.solver.run(HINT_SECONDS, jobs.assess,
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


def assists_of(conn: Connection) -> str:
    """The room's assists: ``off``, ``basic`` or ``solver``."""
    hub = conn.hub
    if hub is None:
        return "off"
    settings = hub.public["settings"]
    return str(settings.get("assists", "basic" if settings.get("hints") else "off"))


def solver_assists(conn: Connection) -> bool:
    return assists_of(conn) == "solver"


def assisted(conn: Connection, game: Game, view: dict[str, Any],
             known: Known | None = None) -> Known | None:
    """Add the room's assists to a player's whole view (a ``board``, an ack
    sent again): ``no_progress`` unless assists are off, judged now (these
    are not a move's answer); with the solver's, ``winnable`` and ``back``
    (``null`` while the solver has not answered). The status known, if any."""
    assists = assists_of(conn)
    if assists == "off":
        return None
    play = conn.play
    verdict = no_progress(game)
    if game is play.game:
        play.trail.now = verdict
    view["no_progress"] = verdict
    if assists != "solver":
        return None
    if known is None:
        known = play.assist.get(game)
    view.update(known.fields() if known is not None else _PENDING)
    return known


def ack_assists(conn: Connection, game: Game, legal: list[Move], moved: Move | None,
                undone: bool, known: Known | None) -> dict[str, Any]:
    """An ack's assists, with no search: ``no_progress`` as the seat's trail
    says (``null`` while not known: the position is judged once the player
    pauses, :func:`judge_progress_soon`); with the solver's, ``winnable`` and
    ``back`` as known (``known``), else ``null``."""
    assists = assists_of(conn)
    if assists == "off":
        return {}
    trail = conn.play.trail
    if moved is None:
        verdict = trail.now
    elif undone:
        verdict = trail.undone(game, legal)
    else:
        verdict = trail.moved(game, legal)
    fields: dict[str, Any] = {"no_progress": verdict}
    if assists == "solver":
        fields.update(known.fields() if known is not None else _PENDING)
    return fields


_PENDING: Final = {"winnable": None, "back": None, "lost": None}


def judge_progress_soon(conn: Connection) -> None:
    """Judge "no progress" for the seat's position once the player pauses
    (:data:`DEBOUNCE` after their last command: a burst of moves is judged
    once, at its end), after the ack that said ``null``; when there is none
    left, a ``status`` frame says so (``no_progress: true``). One judgement
    at a time per seat; in the event loop (a search of at most
    :data:`~server.klondike.progress.SEARCH_BUDGET` positions, usually well
    under a millisecond)."""
    play = conn.play
    if play.judging:
        return
    play.judging = True
    spawn(_judge_progress(conn, play))


async def _judge_progress(conn: Connection, play: SeatGame) -> None:
    try:
        while True:
            seq = play.last_seq
            await asyncio.sleep(DEBOUNCE)
            game = play.game
            if conn.play is not play or game is None or play.done or conn.hub is None:
                return
            if play.last_seq != seq:
                continue  # moved meanwhile: wait for the pause
            if play.trail.now is not None:
                return  # known meanwhile (an undo back to a position judged, a board)
            verdict = no_progress(game)
            play.trail.now = verdict
            if verdict:
                conn.write(frame("status", {"s": seq, "no_progress": True}))
            return
    finally:
        play.judging = False


def judge_soon(conn: Connection) -> None:
    """Have the seat's position judged once the player pauses (see
    :mod:`~server.app.solver.seat_assists`); one judgement at a time per seat."""
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
                outcome = await pool.run(STATUS_SECONDS, jobs.assess, judged.snapshot(),
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
    if hub is None or game is None or not hub.leaderboard.shares_status(hub.boards_mode):
        return
    board = {**game.public_view(), "winnable": known.winnable}
    notice = orjson.dumps({"x": "status", "seat": conn.seat, "at": conn.services.now_ms(),
                           "board": board})
    spawn(_publish(conn, conn.room_id, notice))


async def _publish(conn: Connection, room_id: str, notice: bytes) -> None:
    with contextlib.suppress(StoreUnavailable):  # the next move's board carries it anyway
        await conn.services.store.rooms.notice(room_id, notice)
