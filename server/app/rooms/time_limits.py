"""A challenge player's own time limit (docs/protocol.md, "Challenges"):
each game ends at its player's ``started`` plus the room's time limit, or
when the window closes. Beginning a game with a time limit puts ``R:seat``
in the sweepers' deadline index; when it comes, :func:`time_up` ends the
game as it stands, whether its player is there or not: their line
``unfinished``, counted out of the race, and a ghost (its trace ended
then), in one ``seat_over`` script.
"""

from __future__ import annotations

import structlog

from ...race.ghosts import decode, encode, record
from ...race.ranking import rank_score, registration_ties
from ...store import StoreUnavailable
from .policy import policy_for
from .room_plans import ATTEMPTS, RoomWork

log = structlog.get_logger("app.rooms.time_limits")


def seat_due(room_id: str, seat: int) -> str:
    """A challenge player's time limit in the sweepers' index: ``R:seat``."""
    return f"{room_id}:{seat}"


async def time_up(rooms: RoomWork, room_id: str, seat: int) -> bool:
    """A challenge player's own time is up: if their game is still on, it
    is over as it stands (``unfinished``), counted out of the race and among
    the ghosts. Safe to call again (and early: the deadline is put back).
    Whether this call ended the game."""
    store = rooms.store
    for _ in range(ATTEMPTS):
        data = await store.rooms.load(room_id)
        if data is None or data.room.phase != "racing":
            return False
        room = data.room
        stored = await store.seats.load_seat(room_id, room.race, seat)
        line = stored.entry
        if stored.done or line is None or line.get("status") != "racing" or "started" not in line:
            return False
        started = int(line["started"])
        ends = room.clock.ends_at(room, started)
        assert ends is not None and room.start_at is not None
        if rooms.now_ms() < ends:
            await store.indexes.due_add(seat_due(room_id, seat), ends)
            return False
        over = {**line, "status": "unfinished", "at": ends}
        points = decode(stored.trace or "")
        f, c = points[-1][1:] if points else (0, 0)
        trace = encode(record(points, (ends - started) // 1000, f, c, end=True))
        policy = policy_for(room.settings)
        board = policy.board
        done = await store.challenges.seat_over(
            room_id, room.race, seat, stored.ver, over, trace=trace,
            score=board.ranked_score(over, room.start_at, ends,
                                     registration=registration_ties(room.settings)),
            ghost=rank_score(over, room.start_at, ends), event=board.line_event(seat, over, ends),
            counted_at=int(policy.start.seen(line).get("foundation", 0)))
        if done.status != "changed":
            if done.status == "ok":
                log.info("time_up", room=room_id, seat=seat)
            return done.status == "ok"
    raise StoreUnavailable("the seat kept changing; try again")
