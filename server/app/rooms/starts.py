"""When a player's clock starts, at the edge: what a live race and a
challenge do differently in the room service, a hub and a seat's game (the
pure half is :mod:`server.race.clocks`), one object chosen with the room's
policy (:mod:`.policy`) when the room is created.

============  ===================================  =====================================
              a live race (:data:`RACE`)           a challenge (:data:`CHALLENGE`)
============  ===================================  =====================================
``start``     the host starts everyone's race      a player begins their own game
the end       when everyone is done, or at the     when the window closes (someone may
              deadline                             still come)
kept          ``--finished-ttl`` after the end     ``--challenge-ttl`` after the close
a seat's      its line                             its line and its ghost trace, and its
commands                                           own time limit
a hub         \u2014                                   sends its players their ghosts
============  ===================================  =====================================
"""

from __future__ import annotations

from typing import Any, Final, Protocol

from ...protocol import Reason
from ...race import Entry, RaceError, Room
from ...race.clocks import own_end
from ...race.ghosts import Point, encode, record
from ...race.leaderboard import seen_line
from ...race.ranking import rank_score
from ...store import Changes
from .ghost_feed import GhostFeed, GhostRoom
from .room_config import RoomConfig


class Starter(Protocol):
    """What a start needs of the room service (:class:`.room_service.Rooms`)."""

    async def start_race(self, room_id: str, by: int, at: int | None = None) -> None: ...

    async def begin(self, room_id: str, seat: int) -> None: ...


class RaceStarts:
    """A live race: one start for everyone, by the host."""

    name: Final = "race"
    ends_when_done: Final = True  # the race ends once every racer is done
    replays_to_winners: Final = False  # replays are everyone's once the race ends, no sooner
    hides_running: Final = False  # every line shows its figures as they change
    #: a racer may not watch the race until it ends, even once their own game is over
    watch_once_done: Final = False

    def kept_ms(self, config: RoomConfig) -> int:
        """How long an ended race's room is kept."""
        return config.finished_ttl * 1000

    def feed(self, hub: GhostRoom) -> GhostFeed | None:
        """(A race has no ghosts.)"""
        return None

    async def start(self, rooms: Starter, room_id: str, seat: int, at: int | None) -> bool:
        """``start`` from the host: the race (now, or at ``at``); ``False``:
        the boards come with the race's start."""
        await rooms.start_race(room_id, seat, at)
        return False

    def opened(self, changes: Changes, room: Room) -> None:
        """(A new room or a rematch is a lobby: nothing more to write.)"""

    def check_time(self, entry: Entry, public: dict[str, Any], now: int) -> None:
        """(The race's deadline ends everyone's game at once.)"""

    def trace(self, points: list[Point], entry: Entry, now: int, start_at: int,
              done: bool) -> tuple[list[Point], str | None, int | None]:
        """(A live race keeps no ghosts.)"""
        return points, None, None

    def seen(self, line: Entry) -> Entry:
        """A line as the others see it: whole (everyone races at once)."""
        return line


class ChallengeStarts:
    """A challenge: open for its window, each player beginning their own
    game when they choose, on their own clock."""

    name: Final = "challenge"
    ends_when_done: Final = False  # only the window's close ends it
    #: a player who won their game sees the replays of the games over before the window
    #: closes (.replays): they have seen every card of the deal
    replays_to_winners: Final = True
    #: a game not over shows no figures to the others while the window is open (:meth:`seen`)
    hides_running: Final = True
    #: a player whose own game is not on (not begun, or over) may watch the room as any
    #: watcher does: a watcher gets no board before the close, and a game over is played once
    watch_once_done: Final = True

    def kept_ms(self, config: RoomConfig) -> int:
        """How long a closed challenge is kept: its results and replays
        (``--challenge-ttl``, at least ``--finished-ttl``)."""
        return max(config.challenge_ttl, config.finished_ttl) * 1000

    def feed(self, hub: GhostRoom) -> GhostFeed:
        """A hub's ghosts, sent to its players as they play (.ghost_feed)."""
        ghosts = GhostFeed(hub)
        ghosts.start()
        return ghosts

    async def start(self, rooms: Starter, room_id: str, seat: int, at: int | None) -> bool:
        """``start`` from any player: their own game begins now (``True``:
        the caller deals them their board)."""
        await rooms.begin(room_id, seat)
        return True

    def opened(self, changes: Changes, room: Room) -> None:
        """A new challenge, or its rematch, open at once: its race takes
        moves (none racing yet), the last race's ghosts are gone."""
        changes.racers_to_come(0, room.race).reset_ghosts()

    def check_time(self, entry: Entry, public: dict[str, Any], now: int) -> None:
        """A game whose own time is up takes no more commands: it counts as
        it stands (the sweeper marks it ``unfinished``)."""
        started = entry.get("started")
        deadline = public.get("deadline")
        if started is None or deadline is None:
            return
        if now >= own_end(int(started), int(public["settings"]["time_limit"]), int(deadline)):
            raise RaceError(Reason.NOT_PLAYING, "your time is up: your game counts as it stands")

    def trace(self, points: list[Point], entry: Entry, now: int, start_at: int,
              done: bool) -> tuple[list[Point], str | None, int | None]:
        """The seat's ghost trace after a command (its line is ``entry``):
        the new points, their text when they changed, and once the game is
        over its place among the ghosts."""
        started = int(entry.get("started") or start_at)
        credited = (int(entry["vegas"]) + 52) // 5
        new = record(points, (now - started) // 1000, int(entry["foundation"]), credited, end=done)
        return new, None if new is points else encode(new), (
            rank_score(entry, start_at, now) if done else None)


    def seen(self, line: Entry) -> Entry:
        """A line as the others see it while the window is open: a game not
        over shows no figures (they would tell those yet to play what its
        draws turned up), one over its final figures (as its ghost does)."""
        return seen_line(line)


Starts = RaceStarts | ChallengeStarts
RACE: Final = RaceStarts()
CHALLENGE: Final = ChallengeStarts()
