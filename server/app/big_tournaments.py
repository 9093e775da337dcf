"""A big tournament's players, their seats in its rounds, and its standings.

A big tournament (more than :data:`~server.race.settings.SMALL_ROOM`
players) keeps its players and standings in Redis, beside a document that
holds only its header (server/store/keys.py). Registering, withdrawing and
kicking are one script each on the tournament's keys: they never conflict
with each other, nor bump the header's version. Each round is one big room;
a player is seated in it the first time they ``resume`` into it with their
tournament token (:meth:`BigTournaments.seat`).

Anything that touches a tournament and a round's room is two calls, the
tournament's first, each of which may be repeated: a process that dies in
between leaves nothing another process cannot finish.

- Seating: is this token's player one who may play the round (registered
  before it started, not out)? Then a seat in the room, unless the seat was
  closed meanwhile (they withdrew).
- Taking a player out (withdrawn, kicked): marked out in the tournament,
  then in the round: a seat taken is left (the race goes on without them),
  a seat never taken is closed and counted out of the room's racers, so
  that the round ends once everyone who may still play has finished.
- Recording a round (:meth:`BigTournaments.record`): once its race has
  ended, each result is added to the player's standing line, a chunk at a
  time, with a write that lands only if the line is still the one read; a
  line counts each round once (its ``rounds``), so a recording cut short is
  simply done again.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Final

import orjson
import structlog

from ..protocol import Reason
from ..race import Entry, RaceError
from ..race.leaderboard import rank_score
from ..race.names import check_nickname, fold, taken_text
from ..race.tokens import hash_token
from ..race.tournament import (
    MISSED,
    Tournament,
    count_round,
    round_result,
    standing_line,
    standing_score,
    standing_tail,
)
from ..store import Store, StoreUnavailable
from .big_rooms import fresh_line
from .rooms import ATTEMPTS, Rooms

log = structlog.get_logger("app.big_tournaments")

CHUNK: Final = 500  # lines read, counted and written per call when recording a round
OUT_CHUNK: Final = 200  # seats closed between two looks at the event loop

_REGISTER_REFUSED: Final = {
    "gone": (Reason.UNKNOWN_ROOM, "there is no such tournament"),
    "small": (Reason.UNKNOWN_ROOM, "there is no such tournament"),
    "closed": (Reason.RACE_STARTED, "registration is closed"),
    "full": (Reason.ROOM_FULL, "the tournament is full"),
    "banned": (Reason.BANNED, None),
}


def loads(raw: bytes) -> dict[str, Any]:
    return dict(orjson.loads(raw))


class BigTournaments:
    def __init__(self, store: Store, rooms: Rooms, now_ms: Callable[[], int]) -> None:
        self.store = store
        self.t_store = store.big_tournaments
        self.rooms = rooms
        self.now_ms = now_ms

    # ------------------------------------------------------------------ players

    async def register(self, t: Tournament, nickname: str, token: str, invite: str | None,
                       *, ttl_ms: int) -> int:
        """A new player's number. Their line starts with the rounds already
        started counted as missed; which those are is the store's to say (a
        round may start meanwhile): it gets one line per possible first round."""
        t.check_invite(invite)
        name = check_nickname(nickname)
        lines = []
        for first in range(1, len(t.rounds) + 1):
            line = standing_line(0, "", first)
            lines.append((standing_tail(line), standing_score(line)))
        got = await self.t_store.register(t.id, nickname=name, fold=fold(name),
                                          token_hash=hash_token(token), registered=self.now_ms(),
                                          lines=lines, ttl_ms=ttl_ms)
        if got.status == "name_taken":
            raise RaceError(Reason.NAME_TAKEN, taken_text(name, name, "this tournament"))
        if got.status != "ok":
            reason, text = _REGISTER_REFUSED[got.status]
            raise RaceError(reason, text)
        return got.player

    async def player_of(self, t: Tournament, token: str) -> tuple[int, str] | None:
        """The number and nickname of the player holding ``token`` (``None``:
        nobody, or kicked)."""
        found = await self.t_store.player(t.id, hash_token(token), 1)
        if found is None:
            return None
        return found.player, str(found.record["nickname"])

    async def may_play(self, tournament_id: str, n: int, token: str) -> int | None:
        """The player holding ``token``, if they may play round ``n`` (seated
        or not yet: their seat is their number); nothing is changed."""
        found = await self.t_store.player(tournament_id, hash_token(token), n)
        if found is None or found.out or found.player >= found.open:
            return None
        return found.player

    async def seat(self, tournament_id: str, n: int, room_id: str, token: str) -> int | None:
        """Seat the player holding ``token`` in round ``n``'s room if they may
        play it: their seat (their player number), or ``None``."""
        digest = hash_token(token)
        found = await self.t_store.player(tournament_id, digest, n)
        if found is None or found.out or found.player >= found.open:
            return None
        data = await self.store.load(room_id)
        if data is None:
            raise RaceError(Reason.UNKNOWN_ROOM)
        room, now = data.room, self.now_ms()
        start_at = room.start_at or now
        nickname = str(found.record["nickname"])
        line = {**fresh_line("racing", now, normal=room.settings.scoring == "N"),
                "seat": found.player, "nickname": nickname}
        status = await self.t_store.seat(
            room_id, seat=found.player, race=room.race, nickname=nickname,
            fold=str(found.record["fold"]), token_hash=digest, line=orjson.dumps(line),
            score=rank_score(line, start_at, max(now, start_at)))
        if status == "ended":
            raise RaceError(Reason.NOT_PLAYING, f"round {n} is over: watch its room for the results")
        if status == "gone":
            raise RaceError(Reason.UNKNOWN_ROOM)
        return found.player if status == "ok" else None

    async def take_out(self, t: Tournament, player: int, *, kick: bool) -> None:
        """The round being played goes on without ``player`` (withdrawn or
        kicked): out of its race if seated, their seat closed if not."""
        current = t.current()
        if current is None or current.room is None:
            return
        may_play = current.players
        if may_play is None:
            may_play = await self.t_store.round_players(t.id, current.n)
        if player < may_play:
            await self._close_seats(current.room, [player], kick=kick)

    async def close_out_seats(self, t: Tournament, n: int, room_id: str, may_play: int) -> None:
        """A round's room has just been created: the players out by now
        (their own step may have found no room yet) are out of it too."""
        out = await self.t_store.out_players(t.id)
        for kind in ("withdrawn", "kicked"):
            players = sorted(p for p, how in out.items() if how == kind and p < may_play)
            for i in range(0, len(players), OUT_CHUNK):
                await self._close_seats(room_id, players[i:i + OUT_CHUNK], kick=kind == "kicked")

    async def _close_seats(self, room_id: str, players: Sequence[int], *, kick: bool) -> None:
        ended = False
        for player in players:
            status, active = await self.t_store.close_seat(room_id, player, 1)
            if status == "seated":
                try:
                    await self.rooms.leave(room_id, player, round_kick=kick)
                except RaceError as exc:  # left already
                    if exc.reason is not Reason.UNKNOWN_SEAT:
                        raise
            elif active == 0:
                ended = True
        if ended:  # nobody else may still play: the round is over
            await self.rooms.end_race(room_id)

    # ------------------------------------------------------------------ recording

    async def record(self, t: Tournament, n: int, room_id: str, *, ttl_ms: int) -> int:
        """Count round ``n``'s results (its room's race has ended) into the
        standing lines: each seated player's line from the room, then −52 $
        for each player who could have played it and did not. How many
        played. Safe to run again, whole or in part."""
        played = 0
        first = 1
        while True:
            _, raw = await self.store.page(room_id, first, CHUNK)
            lines = [loads(line) for line in raw]
            results = {int(line["seat"]): round_result(line, first + i)
                       for i, line in enumerate(lines)}
            counted = await self._count(t.id, n, results)  # a kicked player's is not
            played += sum(1 for p in counted if results[p] is not MISSED)
            await self.store.keep_room(room_id, 1, results, ttl_ms)  # replays: as long as the tournament
            if len(raw) < CHUNK:
                break
            first += CHUNK
        may_play = t.rounds[n - 1].players
        if may_play is None:
            may_play = await self.t_store.round_players(t.id, n)
        for start in range(0, may_play, CHUNK):
            await self._count(t.id, n, dict.fromkeys(range(start, min(may_play, start + CHUNK)),
                                                    MISSED))
        return played

    async def _count(self, tournament_id: str, n: int,
                     results: Mapping[int, Sequence[Any]]) -> set[int]:
        """Round ``n``'s ``results`` into these players' lines, unless they
        count it already; a line changed meanwhile (a withdrawal) is read
        again. The players whose line counts the round (not the kicked)."""
        pending = dict(results)
        counted = set(results)
        for _ in range(ATTEMPTS):
            players = list(pending)
            changes = []
            for player, raw in zip(players, await self.t_store.lines(tournament_id, players),
                                   strict=True):
                if raw is None:  # kicked: out of the standings
                    counted.discard(player)
                    continue
                new = count_round(loads(raw), n, pending[player])
                if new is not None:
                    changes.append((player, raw, orjson.dumps(new), standing_score(new)))
            changed = await self.t_store.count(tournament_id, changes)
            if not changed:
                return counted
            pending = {p: pending[p] for p in changed}
        raise StoreUnavailable("the standings kept changing; try again")

    async def keep_rounds(self, t: Tournament, ttl_ms: int) -> None:
        """Let every ended round's room and seats live as long as the tournament."""
        for r in t.rounds:
            if r.status != "ended" or r.room is None:
                continue
            first = 1
            while True:
                _, raw = await self.store.page(r.room, first, CHUNK)
                await self.store.keep_room(r.room, 1, [int(loads(x)["seat"]) for x in raw], ttl_ms)
                if len(raw) < CHUNK:
                    break
                first += CHUNK

    # ------------------------------------------------------------------ standings

    async def top(self, t: Tournament) -> list[Entry]:
        """The first lines of the standings (the ``top`` setting), with ranks."""
        return (await self.page(t.id, 1, t.settings.top))[1]

    async def page(self, tournament_id: str, first: int, count: int) -> tuple[int, list[Entry]]:
        """How many are ranked, and the lines from rank ``first`` on, with ranks."""
        of, raw = await self.store.standings_page(tournament_id, first, count)
        return of, [{**loads(line), "rank": first + i} for i, line in enumerate(raw)]

    async def find(self, tournament_id: str, nickname: str) -> dict[str, Any] | None:
        """A player by nickname (folded): number, rank and line."""
        found = await self.store.standings_find(tournament_id, fold(check_nickname(nickname)))
        if found is None:
            return None
        player, rank, raw = found
        if raw is None:  # kicked: out of the standings
            return None
        return {"player": player, "rank": rank, "line": {**loads(raw), "rank": rank}}
