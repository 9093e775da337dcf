"""The lobby's list of public races, one per process (as a room has a hub).

While this process has lobbies open (connections that asked for the list
with ``lobby``), it reads the list every ``--lobby-interval`` seconds: the
rooms listed waiting last and the races started last (a few more of each than
it shows, in case some are gone), then each one's document (one ``HMGET``
apiece). It builds one ``rooms`` frame of at most :data:`WAITING` waiting
rooms, at most one of each address, and :data:`RUNNING` running races;
a waiting room nobody joined for :data:`IDLE_MS` leaves the list. So a few
addresses cannot fill the list with rooms nobody means to start: each shows
one, the newest rooms come first, and an idle one goes. It encodes the frame
once, and sends it to
every lobby here only when it differs from the last one. So what a lobby
receives is one frame per interval at most, of a bounded size, however
many rooms are listed and however many lobbies are open; what Redis does
is bounded per process and interval.

A room that cannot join the list any more (gone, ended, emptied, made
private) is unlisted by the reader that finds it, and one listed in the
wrong place is moved: the list mends what a process killed between a
room's commit and its listing left (see :mod:`.public_rooms`). The race
listed longest and the room listed waiting longest are looked at every
time too, so that one ended but never unlisted, or a lobby idle below
those shown, does not stay listed beyond what any lobby shows.

Nothing here waits on a socket: frames go through each connection's
slow-consumer policy (a lobby behind skips a list; the next supersedes it).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable
from typing import Any, Final, Protocol

import structlog
from websockets.asyncio.server import ServerConnection, broadcast

from ...protocol import frame
from ...race import Room
from ...store import Store, StoreUnavailable
from ..ground.backpressure import Backpressure
from ..ground.health import Health
from ..ground.tasks import spawn
from .public_rooms import PENDING_MS, PublicRooms

log = structlog.get_logger("app.rooms.lobby_hub")

WAITING: Final = 12  # waiting rooms a list shows at most
RUNNING: Final = 8  # running races a list shows at most
LOOK_AHEAD: Final = 3  # rooms read per place shown (some may be gone, full or empty)
#: a waiting room nobody joined for this long leaves the list (the room stays, by its link)
IDLE_MS: Final = 5 * 60_000


class LobbySession(Protocol):
    """What the lobby needs of a connection."""

    ws: ServerConnection
    backpressure: Backpressure


class LobbyHub:
    """This process's lobbies and the list they are sent."""

    def __init__(self, store: Store, public: PublicRooms, now_ms: Callable[[], int],
                 interval: float, health: Health) -> None:
        self.store, self.public, self.now_ms = store, public, now_ms
        self.interval, self.health = interval, health
        self.sessions: set[LobbySession] = set()
        self.last: bytes | None = None  # the list as last sent
        self._task: asyncio.Task[None] | None = None

    def join(self, session: LobbySession) -> None:
        """A lobby opens: the list as it stands now, then each new one."""
        self.sessions.add(session)
        if self.last is not None:
            self._send((session,), self.last)
        if self._task is None or self._task.done():
            self._task = asyncio.create_task(self._run(), name="lobby")

    def leave(self, session: LobbySession) -> None:
        self.sessions.discard(session)

    async def _run(self) -> None:
        """Read and send the list while anyone is in a lobby here."""
        try:
            while self.sessions:
                try:
                    data = await self.build()
                except StoreUnavailable:
                    data = None  # Redis away: the list stays as it was (health says why)
                except Exception:
                    log.exception("lobby_failed")
                    self.health.fault("lobby")
                    data = None
                if data is not None and data != self.last:
                    self.last = data
                    self._send(list(self.sessions), data)
                await asyncio.sleep(self.interval)
        finally:
            self.last = None  # nobody here: the next lobby waits for a fresh list
            self._task = None

    async def build(self) -> bytes:
        """The ``rooms`` frame: the public races to show now."""
        page = await self.store.lobby.public_page(WAITING * LOOK_AHEAD, RUNNING * LOOK_AHEAD)
        ids = dict.fromkeys([r for r, _ in page.waiting] + [r for r, _ in page.running]
                            + ([page.oldest_running] if page.oldest_running else [])
                            + ([page.oldest_waiting[0]] if page.oldest_waiting else []))
        heads = await self.store.lobby.room_heads(list(ids))
        now = self.now_ms()
        mend: list[Any] = []
        shown: dict[str, list[dict[str, Any]]] = {"waiting": [], "running": []}
        by: set[str] = set()  # the addresses whose waiting room is shown: one each
        for place, listed in (("waiting", page.waiting), ("running", page.running)):
            for room_id, score in listed:
                entry = self._look(room_id, score, place, heads, now, mend)
                if entry is None or len(shown[place]) >= (WAITING if place == "waiting"
                                                          else RUNNING):
                    continue
                if place == "waiting":
                    address = page.listed_by.get(room_id, "")
                    if address in by:
                        continue
                    by.add(address)
                shown[place].append(entry)
        if page.oldest_running and page.oldest_running not in {r for r, _ in page.running}:
            self._look(page.oldest_running, 0, "running", heads, now, mend)
        if page.oldest_waiting and page.oldest_waiting not in page.waiting:
            self._look(*page.oldest_waiting, "waiting", heads, now, mend)
        if mend:
            spawn(self._mend(mend))
        return frame("rooms", {"rooms": shown["waiting"] + shown["running"],
                               "waiting": page.waiting_count, "running": page.running_count})

    def _look(self, room_id: str, score: int, place: str,
              heads: dict[str, tuple[bytes, int | None]], now: int,
              mend: list[Any]) -> dict[str, Any] | None:
        """A listed room's line, if it is to be shown; what to mend, if anything."""
        head = heads.get(room_id)
        if head is None:
            if place == "running" or now - score > PENDING_MS:  # (a new room is not there yet)
                mend.append(room_id)
            return None
        room = Room.from_json(head[0])
        entry = room.listing(now, head[1])
        if not room.settings.listed or room.phase == "ended" or (
                room.phase == "lobby" and entry["players"] == 0):
            mend.append(room_id)
            return None
        if (room.phase == "lobby") != (place == "waiting"):
            mend.append(room)  # moved: a process died between the commit and the list
            return None
        if place == "waiting" and now - max([score, *(p.joined for p in room.players)]) > IDLE_MS:
            mend.append(room_id)  # nobody came for minutes: off the list, nobody's to fill
            return None
        if place == "waiting" and entry["players"] >= entry["max"]:
            return None  # full: nobody could join it
        return entry

    async def _mend(self, items: Iterable[Any]) -> None:
        try:
            for item in items:
                if isinstance(item, Room):
                    await self.public.follow(item)
                else:
                    await self.public.drop(item)
        except StoreUnavailable:
            pass

    def _send(self, sessions: Iterable[LobbySession], data: bytes) -> None:
        """Write the list without waiting on anyone; a lobby behind skips it."""
        ready = [s.ws for s in sessions if s.backpressure.admit(essential=False)]
        if ready:
            broadcast(ready, data, text=True)

    async def close(self) -> None:
        self.sessions.clear()
        if self._task is not None:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)
