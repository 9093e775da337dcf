"""What the spectators of a room whose leaderboard travels by ticks see,
each tick (:mod:`.ticker`): the place of the player each one follows, and
the boards of the top players and of the players followed, read from the
seats' snapshots and decoded to public views, as the room's ``boards``
setting allows (live, held ``delay`` seconds, or once the race has ended).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, Final, Protocol

from ...klondike import Game
from ...protocol import frame, place_frame
from ...race import Entry
from ...store import Store, StoreUnavailable
from ..ground.metrics import Metrics
from .delayed_boards import DelayedBoards
from .listener import Listener

BOARDS_SHOWN: Final = 8  # the top players whose boards spectators see


class TickedRoom(Protocol):
    """What a ticked room's leaderboard needs of its room's hub."""

    room_id: str
    store: Store
    metrics: Metrics
    now_ms: Callable[[], int]
    public: dict[str, Any]
    sessions: set[Listener]
    v: int
    boards_mode: str

    @property
    def race(self) -> int: ...

    def phase_now(self) -> str: ...

    def hiding(self) -> bool: ...

    def seen(self, line: Entry) -> Entry: ...

    def watchers(self) -> list[Listener]: ...

    def fault(self) -> None: ...

    def send(self, sessions: Iterable[Listener], data: bytes, *, essential: bool) -> None: ...

    def send_frames(self, session: Listener, frames: list[bytes], data: list[bytes], *,
                    essential: bool) -> None: ...


class TickSpectators:
    """A ticked room's spectators on this process (see the module's docstring).
    ``send_own`` sends a connection a frame of its own unless it got that one
    last (the ticker's)."""

    def __init__(self, hub: TickedRoom, send_own: Callable[[Listener, bytes], None],
                 seen_place: Callable[..., bytes]) -> None:
        self.hub = hub
        self._send_own = send_own
        self._seen_place = seen_place  # a place's lines as a spectator sees them
        self._deal_of: tuple[int, str] | None = None  # (race, code): boards of seats not moved yet
        self._boards: dict[int, dict[str, Any]] = {}  # what spectators see now, by seat
        self._delayed = DelayedBoards(int(hub.public.get("settings", {}).get("delay", 0)) * 1000)

    async def tick(self, watchers: list[Listener], top_seats: list[int]) -> None:
        """A tick for ``watchers``: the places they follow, then the boards
        of ``top_seats`` and the seats followed, those that changed."""
        hub = self.hub
        followed = {w.following for w in watchers if w.following is not None}
        if followed:
            seats = sorted(followed)
            places = await hub.store.ranks.near(hub.room_id, seats)
            by_seat = dict(zip(seats, places, strict=True))
            for w in watchers:
                place = by_seat.get(w.following) if w.following is not None else None
                if place is not None and w.following is not None:
                    self._send_own(w, place_frame("follow", self._seen_place(place, own=False),
                                                  b',"seat":%d' % w.following))
        mode, phase = hub.boards_mode, hub.phase_now()
        if mode == "after" and phase != "ended":
            return
        if phase not in ("racing", "ended"):
            return
        boards = await self._read_boards(set(top_seats[:BOARDS_SHOWN]) | followed)
        if mode == "delayed" and phase == "racing":  # (in bounded memory: .delayed_boards)
            now = hub.now_ms()
            for seat, board in boards.items():
                self._delayed.add(seat, board, now)
            boards = self._delayed.due(now)
        changed = {s: b for s, b in boards.items() if self._boards.get(s) != b}
        if changed:
            self._boards.update(changed)
            hub.send(watchers, frame("boards", {"v": hub.v, "boards": {
                str(s): b for s, b in changed.items()}}), essential=False)

    async def _read_boards(self, seats: Iterable[int]) -> dict[int, dict[str, Any]]:
        """The public boards of these seats, from their stored snapshots."""
        hub = self.hub
        seats = list(seats)
        snaps = await hub.store.seats.snapshots(hub.room_id, hub.race, seats, await self._deal())
        out = {}
        for seat in seats:
            snap = snaps.get(seat)
            if snap:
                out[seat] = Game.from_snapshot(snap).public_view()
            else:  # not moved yet: the deal as dealt (its code stays on the server)
                out[seat] = Game(await self._deal()).public_view()
        return out

    async def _deal(self) -> str:
        if self._deal_of is None or self._deal_of[0] != self.hub.race:
            data = await self.hub.store.rooms.load(self.hub.room_id)
            if data is None:
                raise StoreUnavailable("the room is gone")
            self._deal_of = (data.room.race, data.room.code)
        return self._deal_of[1]

    async def boards_now(self, watcher: Listener) -> None:
        """A new spectator (or a new follow): the boards they may see now."""
        if self._boards:
            self.hub.send((watcher,), frame("boards", {"v": self.hub.v, "boards": {
                str(s): b for s, b in self._boards.items()}}), essential=False)
