"""Where a room's seats live: the one thing a room of a few and a room of
thousands do differently in their document, chosen once from the room's
settings (:func:`seating_for`) when the room is created.

- :data:`LISTED` (up to :data:`~.settings.SMALL_ROOM` seats): every player
  is in the room's document, with their ready flag, and the document lists
  the race's racers; everyone sees everyone. The host starts once everyone
  is ready; the results are every racer's line.
- :data:`COUNTED` (more): the players live in the store's hashes
  (server/store/keys.py) and the document names only its host; anyone may
  see how many there are (``field``). The host starts when they choose, or
  at a time set ahead; the results are the top lines of the store's ranking.

The rest of a room (its phases, its races, its rules) is the same for both.

>>> seating_for(Settings()) is LISTED, seating_for(Settings(max_players=500)) is COUNTED
(True, True)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final, Protocol

from ..protocol.reasons import Reason
from .errors import RaceError
from .leaderboard import Entry
from .names import check_nickname
from .ranking import ranked, registration_ties
from .settings import Settings


class Seat(Protocol):
    seat: int
    nickname: str
    ready: bool
    left: bool
    rating: str


class SeatedRoom(Protocol):
    """What a seating needs of its room (:class:`.room.Room`)."""

    host_name: str
    next_seat: int
    start_at: int | None
    settings: Settings

    @property
    def players(self) -> Sequence[Seat]: ...

    @property
    def racers(self) -> list[int]: ...

    def present(self) -> Sequence[Seat]: ...

    def join(self, nickname: str, token: str, *, now: int, address: str = "",
             rating: str = "") -> dict[str, Any]: ...


def final_line(entry: Entry) -> Entry:
    """A line as the race's results show it: still playing at the end is ``unfinished``."""
    return {**entry, "status": "unfinished"} if entry["status"] == "racing" else entry


class ListedSeats:
    """Seats in the room's document."""

    name: Final = "listed"

    def seat_host(self, room: SeatedRoom, nickname: str, token: str, *, now: int,
                  rating: str = "") -> None:
        """The first seat (0) is the host's, in the document."""
        room.join(nickname, token, now=now, rating=rating)

    def shown(self, room: SeatedRoom, counts: Mapping[str, int]) -> dict[str, Any]:
        """The room's public members about its seats: every player, the racers."""
        return {"players": [{"seat": p.seat, "nickname": p.nickname, "ready": p.ready,
                             "left": p.left, **({"rating": p.rating} if p.rating else {})}
                            for p in room.players],
                "racers": room.racers}

    def check_start(self, room: SeatedRoom, by: int) -> None:
        """Everyone but the host must be ready."""
        waiting = [p.nickname for p in room.present() if p.seat != by and not p.ready]
        if waiting:
            raise RaceError(Reason.NOT_READY, f"not ready yet: {', '.join(waiting)}")

    def check_schedule(self) -> None:
        raise RaceError(Reason.NOT_LOBBY, "only a big room's race starts at a set time: "
                                          "here the host starts when everyone is ready")

    def results(self, room: SeatedRoom, entries: list[Entry]) -> list[Entry]:
        """Every racer's final line, ranked."""
        return ranked((final_line(e) for e in entries if e["seat"] in room.racers),
                      since=room.start_at or 0, registration=registration_ties(room.settings))

    def __repr__(self) -> str:
        return "LISTED"


class CountedSeats:
    """Seats in the store's hashes, counted in the document's public view."""

    name: Final = "counted"

    def seat_host(self, room: SeatedRoom, nickname: str, token: str, *, now: int,
                  rating: str = "") -> None:
        """The host, seat 0, is named here and seated by the store (a big
        room is never rated: no ``rating``)."""
        room.host_name = check_nickname(nickname)
        room.next_seat = 1

    def shown(self, room: SeatedRoom, counts: Mapping[str, int]) -> dict[str, Any]:
        """The room's public members about its seats: its host's name, its counts."""
        return {"host_name": room.host_name, "field": dict(counts)}

    def check_start(self, room: SeatedRoom, by: int) -> None:
        """The host starts when they choose."""

    def check_schedule(self) -> None:
        """The host may set the start ahead."""

    def results(self, room: SeatedRoom, entries: list[Entry]) -> list[Entry]:
        """The top lines, ``entries`` already in the store's order."""
        return [{**final_line(e), "rank": rank} for rank, e in enumerate(entries, 1)]

    def __repr__(self) -> str:
        return "COUNTED"


Seating = ListedSeats | CountedSeats
LISTED: Final = ListedSeats()
COUNTED: Final = CountedSeats()


def seating_for(settings: Settings) -> Seating:
    """The seating of a room with these settings (they never change)."""
    return COUNTED if settings.big else LISTED
