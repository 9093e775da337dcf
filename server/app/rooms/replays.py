"""A player's game of a room's race, step by step, a page at a time: the
public view after each stored command (docs/protocol.md, "Replays").

Everyone may see a race's replays once it has ended (its code is public
then). A challenge's stay secret until its window closes, but for a player
who *won* their own game of it (they have seen every card of the deal): they
may see the replays of the games already over, by presenting their seat's
token. A player who resigned waits for the close like everyone: a second
seat resigned at once must not be a way to see the deal before playing it.

Building a page replays the seat's log from its start on the engine (a few
microseconds a command) and makes the views of that page only; the loop is
given back every :data:`YIELD_EVERY` commands.
"""

from __future__ import annotations

import asyncio
from typing import Any, Final

from ...klondike import Game
from ...protocol import Reason
from ...race import RaceError
from .policy import policy_for
from .room_service import Rooms

PAGE: Final = 100  # steps per page by default
MAX_PAGE: Final = 500
YIELD_EVERY: Final = 500  # commands replayed between two looks at the event loop


async def replay(rooms: Rooms, room_id: str, seat: int, *, first: int = 0,
                 count: int = PAGE, token: str | None = None) -> dict[str, Any]:
    """Steps ``first`` to ``first + count`` of ``seat``'s game of the room's
    race (step 0 is the deal), with the room's code once it is public;
    ``token``: the asking player's seat token, for a challenge still open."""
    if not 1 <= count <= MAX_PAGE:
        raise RaceError(Reason.BAD_FIELD, f"count must be from 1 to {MAX_PAGE}")
    data = await rooms.load(room_id)
    room = data.room
    store = rooms.store
    if room.phase != "ended":
        viewer = None
        if token and policy_for(room.settings).start.replays_to_winners:
            viewer = await rooms.seat_of(room_id, token)
        line = None if viewer is None else (
            await store.load_seat(room_id, room.race, viewer)).entry
        if line is None or line.get("status") != "finished":
            raise RaceError(Reason.NOT_ENDED, "replays are open once the race has ended (in a "
                                              "challenge, also to a player who won it)")
        if not await store.is_ghost(room_id, seat):
            raise RaceError(Reason.UNKNOWN_SEAT, f"seat {seat}'s game is not over")
    stored = await store.load_seat(room_id, room.race, seat)
    if not stored.exists or stored.entry is None:
        raise RaceError(Reason.UNKNOWN_SEAT, f"seat {seat} did not play this race")
    log = await store.log(room_id, room.race, seat)
    game = Game(room.code)
    steps: list[dict[str, Any]] = []
    if first == 0:
        steps.append({"command": None, "view": game.public_view()})
    for i, (seq, command) in enumerate(log[:first + count - 1], start=1):
        if command == "undo":
            game.pop()
        elif command != "resign":
            game.push(command)
        if i >= first:
            steps.append({"s": seq, "command": command, "view": game.public_view()})
        if i % YIELD_EVERY == 0:
            await asyncio.sleep(0)
    out: dict[str, Any] = {"room": room.id, "race": room.race, "seat": seat,
                           "nickname": stored.entry.get("nickname"),
                           "status": stored.entry.get("status"), "first": first,
                           "of": len(log) + 1, "steps": steps}
    if room.phase == "ended":
        out["code"] = room.code
    return out
