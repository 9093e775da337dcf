"""The store's challenges: a room open for a window whose players each start
their own game when they choose (server.race.clocks). What is theirs alone:
a hashed seat beginning its game, a player whose time ran out, and the
ghosts (:mod:`server.race.ghosts`): each seat's trace (``gh``) and the seats
whose game is over ranked among the ghosts (``gz``), written by the seats'
game commands (``seat_command``) and read here a few at a time.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import orjson

from ..race import Entry
from ..race.ranking import seat_member
from . import keys, scripts
from .section import Section


@dataclass(frozen=True, slots=True)
class Over:
    """What :meth:`ChallengeState.seat_over` wrote: ``ok`` (the game is over
    now: ``active`` seats still play), ``no`` (over already, never begun, or
    the race is), or ``changed`` (a command landed meanwhile: read again)."""

    status: str
    active: int = -1


@dataclass(frozen=True, slots=True)
class GhostRecord:
    """A ghost as stored: its seat, final line and trace."""

    seat: int
    line: Entry
    trace: str


class ChallengeState(Section):
    """Beginning a hashed seat's game, a game whose time ran out, ghosts read."""

    async def begin_seat(self, room_id: str, race: int, seat: int, tail: bytes,
                         score: int) -> tuple[str, int]:
        """A hashed seat begins its game of ``race`` (see the ``begin``
        script): the status (``ok``, ``closed``, ``unknown``, ``begun``) and
        the seats racing then."""
        r = room_id
        reply = await self._run(scripts.BEGIN, [
            keys.room(r), keys.players(r), keys.board(r), keys.ranking(r), keys.histogram(r),
            keys.seat(r, race, seat), keys.left(r)], [race, seat, tail, score])
        return reply[0].decode(), int(reply[1]) if len(reply) > 1 else -1

    async def seat_over(self, room_id: str, race: int, seat: int, ver: int, line: Entry, *,
                        trace: str, score: int | None, ghost: int, event: bytes | None,
                        counted_at: int = 0) -> Over:
        """A seat's time ran out: its game ends as ``line`` says (see the
        ``seat_over`` script) and its ghost ``trace`` with it; ``score`` its
        place in a ranked room's ranking, ``ghost`` among the ghosts, ``event``
        the progress event's body where lines travel as events;
        ``counted_at``: the cards home the field's progress counted it at."""
        r = room_id
        reply = await self._run(scripts.SEAT_OVER, [
            keys.room(r), keys.seat(r, race, seat), keys.board(r), keys.ranking(r),
            keys.histogram(r), keys.ghosts(r), keys.events(r), keys.channel(r),
            keys.ghost_traces(r), keys.log(r, race, seat)], [
            race, seat, ver, orjson.dumps(line), "" if score is None else score, ghost,
            event or b"", self.event_cap, trace, int(line.get("foundation", 0)), counted_at])
        status = reply[0].decode()
        return Over(status, int(reply[1]) if status == "ok" else -1)

    async def ghost_count(self, room_id: str) -> int:
        """How many seats' games of a challenge are over (its ghosts)."""
        return int(await self.call("ZCARD", keys.ghosts(room_id)))

    async def ghosts(self, room_id: str, places: Sequence[int]) -> tuple[int, list[GhostRecord]]:
        """How many ghosts there are, and those at ``places`` (0 the best)."""
        r = room_id
        count, flat = await self._run(scripts.GHOSTS, [keys.ghosts(r), keys.board(r),
                                                       keys.ghost_traces(r)], list(places))
        out = []
        for i in range(0, len(flat), 3):
            seat, line, trace = flat[i:i + 3]
            if line:
                out.append(GhostRecord(int(seat), orjson.loads(line),
                                       trace.decode() if trace else ""))
        return int(count), out

    async def is_ghost(self, room_id: str, seat: int) -> bool:
        """Whether the seat's game of the challenge is over (it is a ghost)."""
        return await self.call("ZSCORE", keys.ghosts(room_id), seat_member(seat)) is not None
