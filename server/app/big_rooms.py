"""A big room's seats: join, leave, kick and ready without the room's version.

A big room (more than :data:`~server.race.settings.SMALL_ROOM` seats) keeps
its players in Redis hashes, not in its JSON document, so that thousands can
join at once: each seat change is one script (server/store/scripts.py) that
checks what must hold (a free nickname, room left, the phase) and never
conflicts with the others. Only the room's own changes (start, end,
rematch, a new host) go through :meth:`Rooms.change <.rooms.Rooms.change>`.
Nothing here is announced to the room: its counts and its leaderboard ticks
say what changed.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

import structlog

from ..protocol import Reason
from ..race import Entry, RaceError, Room, Settings, check_nickname, new_entry
from ..race.leaderboard import line_of, line_tail
from ..race.names import fold, taken_text
from ..race.ranking import rank_score
from ..race.tokens import hash_token
from ..store import RoomData, Store

log = structlog.get_logger("app.big_rooms")

_JOIN_REFUSED: Final = {
    "gone": (Reason.UNKNOWN_ROOM, None),
    "race_started": (Reason.RACE_STARTED, None),
    "full": (Reason.ROOM_FULL, None),
}


def fresh_line(status: str, now: int, *, normal: bool, started: int | None = None) -> Entry:
    """A big room's line before its player's first move (seat and nickname
    are the store's to fill in)."""
    return line_of(new_entry(0, "", status, now, normal=normal, started=started))


class BigRooms:
    def __init__(self, store: Store, now_ms: Callable[[], int]) -> None:
        self.store = store
        self.now_ms = now_ms

    async def join(self, room_id: str, settings: Settings, nickname: str,
                   token: str) -> tuple[int, str]:
        """Seat a new player: their seat and the room's phase then."""
        name = check_nickname(nickname)
        now = self.now_ms()
        normal = settings.scoring == "N"
        lobby = fresh_line("lobby", now, normal=normal)
        late = fresh_line("racing", now, normal=normal, started=now)
        # every lobby line scores alike (seat order decides); a late racer
        # ranks after those of equal figures who started before
        joined = await self.store.join_seat(
            room_id, nickname=name, fold=fold(name), token_hash=hash_token(token),
            lobby_tail=line_tail(lobby), lobby_score=rank_score(lobby, now, now),
            late_tail=line_tail(late), late_score=rank_score(late, now, now))
        if joined.status == "small":  # (settings say big: never)
            raise RaceError(Reason.UNKNOWN_ROOM)
        if joined.status == "name_taken":
            raise RaceError(Reason.NAME_TAKEN, taken_text(name, name, "this room"))
        if joined.status != "ok":
            reason, text = _JOIN_REFUSED[joined.status]
            raise RaceError(reason, text)
        return joined.seat, joined.phase

    async def ready(self, data: RoomData, seat: int, ready: bool) -> None:
        if data.room.phase == "racing":
            raise RaceError(Reason.NOT_LOBBY)
        if await self.store.ready_seat(data.room.id, seat, ready) < 0:
            raise RaceError(Reason.UNKNOWN_SEAT, f"there is no player in seat {seat}")

    async def leave(self, data: RoomData, seat: int, *, kick: bool = False,
                    round_kick: bool = False) -> tuple[int, int]:
        """Out of the room (from a race: marked left, kept in its results).
        The seats still racing (-1: unchanged) and the new host (-1: none).
        ``round_kick``: a tournament's organizer kicked the player, who
        leaves their round's race and whose connection is closed."""
        room, now = data.room, self.now_ms()
        line, score, status = None, 0, ""
        if room.phase == "racing" and not kick:
            stored = await self.store.line(room.id, seat)
            if stored is not None and stored["status"] == "racing":
                status = stored["status"]
                line = {**stored, "status": "left"}
                score = rank_score(line, room.start_at or now, now)
        left = await self.store.leave_seat(room.id, seat=seat, race=room.race, line=line,
                                           score=score, status_before=status, host=room.host,
                                           kick=kick, round_kick=round_kick)
        if left.status == "unknown":
            raise RaceError(Reason.UNKNOWN_SEAT, f"there is no player in seat {seat}")
        if left.status == "racing":
            raise RaceError(Reason.NOT_LOBBY)
        return left.active, left.host

    @staticmethod
    def check_kick(room: Room, by: int, seat: int) -> None:
        if by != room.host:
            raise RaceError(Reason.NOT_HOST)
        if room.phase == "racing":
            raise RaceError(Reason.NOT_LOBBY)
        if seat == by:
            raise RaceError(Reason.CANNOT_KICK_SELF)
