"""When a player's clock starts: the one thing a live race and a challenge
do differently in a room's document, chosen once from the room's settings
(:func:`clock_for`) when the room is created.

- :data:`SHARED` (a live race): the room waits in its lobby until its host
  starts the race; everyone's clock starts at the same ``start_at`` (a late
  arrival, where the room admits them, on a clock of their own), and the
  race ends at its ``deadline`` or once everyone is done.
- :data:`OWN` (a challenge: the settings have a ``window``): the room opens
  when it is created and stays open until ``deadline``, ``window`` seconds
  later. A player who joins is seated, not racing; they start their own game
  when they choose (:meth:`~.room.Room.begin`), on their own clock, which
  ends at their time limit or when the window closes, whichever comes first
  (:meth:`OwnClock.ends_at`). The race ends when the window closes, never
  before: someone may still come. Its code and boards stay secret until then.

The rest of a room (its seats, its rules, its orders) is the same for both.

>>> from .settings import Settings
>>> clock_for(Settings()) is SHARED, clock_for(Settings(window=3600)) is OWN
(True, True)
"""

from __future__ import annotations

from typing import Any, Final, Protocol

from ..protocol.reasons import Reason
from .errors import RaceError
from .settings import Settings


class ClockedRoom(Protocol):
    """What a clock needs of its room (:class:`.room.Room`)."""

    settings: Settings
    phase: Any
    start_at: int | None
    deadline: int | None


class SharedClock:
    """One start for everyone, set by the host."""

    name: Final = "shared"

    def opened(self, room: ClockedRoom, now: int) -> None:
        """A new room, or one after its rematch: in its lobby until the host starts."""

    def arrivals(self, settings: Settings) -> str:
        """What a room of thousands' ``join`` script does with a player who
        comes while the race runs: ``refuse``, or ``admit`` as a racer."""
        return settings.late

    def admits(self, room: ClockedRoom) -> bool:
        """Whether a player joining now races at once (a race running
        admits them, on a clock of their own, only if the room says so)."""
        if room.phase != "racing":
            return False
        if room.settings.late != "admit":
            raise RaceError(Reason.RACE_STARTED)
        return True

    def check_start(self) -> None:
        """The host starts everyone's race."""

    def check_begin(self, room: ClockedRoom, now: int) -> None:
        raise RaceError(Reason.NOT_LOBBY, "everyone's clock starts with the race: the host "
                                          "starts it")

    def ends_at(self, room: ClockedRoom, started: int) -> int | None:
        """When a player's game ends: with the race."""
        return room.deadline

    def shown(self, room: ClockedRoom) -> dict[str, Any]:
        """The room's public members about time: its deadline, with a time limit."""
        return {"deadline": room.deadline if room.settings.time_limit else None}

    def __repr__(self) -> str:
        return "SHARED"


class OwnClock:
    """A challenge: open for its window, each player starting when they choose."""

    name: Final = "own"

    def opened(self, room: ClockedRoom, now: int) -> None:
        """Open at once for the window: racing from now until ``deadline``."""
        room.phase = "racing"
        room.start_at = now
        room.deadline = now + room.settings.window * 1000

    def arrivals(self, settings: Settings) -> str:
        """A room of thousands' ``join`` script seats a player who comes
        while the window is open in its lobby (``wait``), to begin when they
        choose, and refuses them once it has closed."""
        return "wait"

    def admits(self, room: ClockedRoom) -> bool:
        """Seated, not racing: they begin when they choose. Refused once the
        window has closed."""
        if room.phase != "racing":
            raise RaceError(Reason.CLOSED)
        return False

    def check_start(self) -> None:
        raise RaceError(Reason.NOT_LOBBY, "in a challenge each player starts their own game "
                                          "when they choose")

    def check_begin(self, room: ClockedRoom, now: int) -> None:
        """A game may begin while the window is open."""
        if room.phase != "racing" or room.deadline is None or now >= room.deadline:
            raise RaceError(Reason.CLOSED)

    def ends_at(self, room: ClockedRoom, started: int) -> int | None:
        """When a game begun at ``started`` ends: at its time limit, or when
        the window closes, whichever comes first.

        >>> from .settings import Settings
        >>> class R:
        ...     settings, deadline = Settings(window=3600, time_limit=600), 3_600_000
        >>> OWN.ends_at(R(), 0), OWN.ends_at(R(), 3_300_000)
        (600000, 3600000)
        """
        assert room.deadline is not None
        return own_end(started, room.settings.time_limit, room.deadline)

    def shown(self, room: ClockedRoom) -> dict[str, Any]:
        """The room's public members about time: when the window closes."""
        return {"deadline": room.deadline}

    def __repr__(self) -> str:
        return "OWN"


def own_end(started: int, time_limit: int, closes: int) -> int:
    """When a challenge's game begun at ``started`` ends: ``time_limit``
    seconds later (0: none), or when the window ``closes``, whichever comes first."""
    return min(started + time_limit * 1000, closes) if time_limit else closes


Clock = SharedClock | OwnClock
SHARED: Final = SharedClock()
OWN: Final = OwnClock()


def clock_for(settings: Settings) -> Clock:
    """The clock of a room with these settings (they never change)."""
    return OWN if settings.challenge else SHARED
