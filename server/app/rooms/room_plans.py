"""What a room command writes: its events, as recorded (:func:`room_event`),
and the :class:`~server.store.Changes` beside them (:class:`Plan`); what the
commands of a room's seats need of the room service (:class:`RoomWork`); and
a tournament round's room, created once (:func:`commit_round`) for its
:class:`Entrants`."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final, Protocol

from ...race import Entry, Room
from ...store import Changes, RoomData, Store

ATTEMPTS: Final = 10  # commits tried before a command gives up (the room kept changing)


def room_event(event: dict[str, Any], room: Room, now: int, *, entries: Sequence[Entry] = (),
               reset: bool = False, dropped: Sequence[int] = (),
               counts: Mapping[str, int] | None = None) -> dict[str, Any]:
    """A room event as recorded: what happened, when, the room as anyone may
    see it now (with its ``counts`` when its seats are counted), and the
    leaderboard lines it changed (only where the lines travel as events)."""
    out = dict(event)
    out["at"] = now
    out["room"] = room.public(now, counts)
    if entries or reset:
        out["entries"] = list(entries)
    if reset:
        out["reset"] = True
    if dropped:
        out["dropped"] = list(dropped)
    return out


@dataclass(slots=True)
class Plan:
    """What a transition wants written."""

    events: list[dict[str, Any]]
    changes: Changes
    result: Any = None
    after: list[Callable[[], Any]] = field(default_factory=list)


#: a room transition: the room as stored and the time -> what to write
RoomStep = Callable[[RoomData, int], Plan]


class RoomWork(Protocol):
    """What a room's seat commands use of the room service (:class:`.room_service.Rooms`)."""

    store: Store

    def now_ms(self) -> int: ...

    def ttl_ms(self, room: Room) -> int: ...

    async def load(self, room_id: str) -> RoomData: ...

    async def change(self, room_id: str, step: RoomStep) -> tuple[Room, Any, int]: ...

    async def end_race(self, room_id: str, *, now_anyway: bool = False) -> bool: ...

    async def round_seat(self, room: Room, token: str) -> int | None: ...

    async def round_player(self, room: Room, token: str) -> int | None: ...


class Entrants(Protocol):
    """A tournament's players who may play a round: numbers 0 to ``may_play`` - 1."""

    @property
    def may_play(self) -> int: ...

    async def seated(self) -> list[tuple[int, str, str]]:
        """Those not out: (player, nickname, token digest)."""
        ...

    async def out(self) -> dict[int, str]:
        """Those out: player -> ``withdrawn`` or ``kicked``."""
        ...


async def commit_round(rooms: RoomWork, room: Room, event: dict[str, Any], changes: Changes
                        ) -> bool:
    """A round's room, created racing (once: ``False`` if it existed), with
    its deadline in the sweepers' index (again, if it existed: a process may
    have died in between)."""
    created = (await rooms.store.rooms.commit(room, None, [event], changes)).ok
    assert room.deadline is not None
    await rooms.store.indexes.due_add(room.id, room.deadline)
    return created
