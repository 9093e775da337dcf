"""The results of an ended race for the players its seats count for.

A seat counts for the first identified player who held it (the store's
``link_seat``). When a room's race ends, its results are read a chunk at a
time as its policy keeps them (a room of a few: its document's results; a
room of thousands: its ranking, 500 lines at a time) and each linked seat's
line becomes a :class:`~server.race.profile.GameResult`, with its rank, the
field's size and the code (public now: the race has ended). A challenge's
seat whose player never began has no result: they played no game.
"""

from __future__ import annotations

from collections.abc import Mapping

from ...race import Entry, Room
from ...race.profile import GameResult, room_result
from ..rooms.policy import policy_for
from ..rooms.room_plans import RoomWork


async def race_results(rooms: RoomWork, room: Room, seats: Mapping[int, str]
                       ) -> list[tuple[str, GameResult]]:
    """Each linked seat's player and result in ``room``'s ended race (none
    if the room has moved on to another race since)."""
    data = await rooms.store.rooms.load(room.id)
    if data is None or data.room.phase != "ended" or data.room.race != room.race:
        return []
    picked: list[tuple[Entry, int]] = []
    field = 0
    async for chunk in policy_for(data.room.settings).seats.round_lines(rooms, data):
        played = [(line, rank) for line, rank in chunk if line["status"] != "lobby"]
        field += len(played)
        picked += [(line, rank) for line, rank in played if int(line["seat"]) in seats]
    return [(seats[int(line["seat"])], room_result(data.room, line, rank, field))
            for line, rank in picked]
