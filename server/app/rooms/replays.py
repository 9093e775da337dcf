"""A player's game of a room's race, step by step, a page at a time: the
public view after each stored command (docs/protocol.md, "Replays").

Everyone may see a race's replays once it has ended (its code is public
then). A challenge's stay secret until its window closes, but for a player
who *won* their own game of it (they have seen every card of the deal): they
may see the replays of the games already over, by presenting their seat's
token. A player who resigned waits for the close like everyone: a second
seat resigned at once must not be a way to see the deal before playing it.

This module only says who may see what; the pages are built, in slices and
cached, by the one replay engine (:mod:`.replay_pages`), as a tournament's
rounds' are.
"""

from __future__ import annotations

from typing import Any

import orjson

from ...protocol import Reason
from ...race import RaceError
from ...race.seating import final_line
from .policy import policy_for
from .replay_pages import PAGE_MAX
from .room_service import Rooms

PAGE = PAGE_MAX  # steps per page by default, and at most


def shown_status(line: dict[str, Any], phase: str) -> str:
    """A replay's status, as the race's results say it: once the race has
    ended, a game still playing then is ``unfinished``."""
    return str((final_line(line) if phase == "ended" else line).get("status"))


async def replay(rooms: Rooms, room_id: str, seat: int, *, first: int = 0,
                 count: int = PAGE, token: str | None = None) -> bytes:
    """Steps ``first`` to ``first + count - 1`` of ``seat``'s game of the
    room's race (step 0 is the deal) as JSON, with the room's code once it is
    public; ``token``: the asking player's seat token, for a challenge still
    open."""
    if not 1 <= count <= PAGE_MAX:
        raise RaceError(Reason.BAD_FIELD, f"count must be from 1 to {PAGE_MAX}")
    data = await rooms.load(room_id)
    room = data.room
    store = rooms.store
    if room.phase != "ended":
        viewer = None
        if token and policy_for(room.settings).start.replays_to_winners:
            viewer = await rooms.seat_of(room_id, token)
        line = None if viewer is None else (
            await store.seats.load_seat(room_id, room.race, viewer)).entry
        if line is None or line.get("status") != "finished":
            raise RaceError(Reason.NOT_ENDED, "replays are open once the race has ended (in a "
                                              "challenge, also to a player who won it)")
        if not await store.challenges.is_ghost(room_id, seat):
            raise RaceError(Reason.UNKNOWN_SEAT, f"seat {seat}'s game is not over")
    stored = await store.seats.load_seat(room_id, room.race, seat)
    if not stored.exists or stored.entry is None:
        raise RaceError(Reason.UNKNOWN_SEAT, f"seat {seat} did not play this race")
    page = await rooms.replays.page(room_id, room.race, seat, room.code, first, count)
    head: dict[str, Any] = {"room": room.id, "race": room.race, "seat": seat,
                            "nickname": stored.entry.get("nickname"),
                            "status": shown_status(stored.entry, room.phase), "first": page.first,
                            "of": page.of}
    if room.phase == "ended":
        head["code"] = room.code
    return orjson.dumps(head)[:-1] + b',"steps":' + page.steps + b"}"
