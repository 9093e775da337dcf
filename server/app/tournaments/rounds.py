"""A tournament's rounds: each one a room, started, opened, recorded and
settled the same way for a tournament of any size.

A round's start is committed first (round ``starting``); its room is created
next under an id derived from the tournament's and the round's, by the
room's policy (:mod:`~server.app.rooms.policy`: a room of a few seats every player
from the start, a room of thousands seats each the first time they come);
then the round is opened (``running``, with how many may play it). Once the
room's race has ended, the round is recorded: each result is counted into
its player's standing line, a chunk at a time, with a write that lands only
if the line is still the one read; a line counts each round once, so a
recording cut short is simply done again; then the players who could have
played it and did not count it missed (−52 $). Nothing touches a
tournament's keys and a room's in one call: each step may be repeated, and
a process that dies in between leaves nothing that :meth:`Rounds.settle`
cannot finish: it creates a missing room, opens the round, records a round
whose room has ended, and starts a round whose time has come (``starts``,
``interval``). Every process settles the tournaments it has connections
for; a tournament with something to do is also in an index every process's
sweeper reads (:meth:`Rounds.sweep`), so nothing waits on the process that
started it; ending a round's race records it at once.
"""

from __future__ import annotations

import contextlib
import secrets
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final, Protocol

import orjson
import structlog

from ...klondike import DealCode
from ...protocol import Reason
from ...race import RaceError, Room, Settings
from ...race.ranking import rank_score, standing_score
from ...race.standings import MISSED, count_round, round_result
from ...race.tokens import hash_token
from ...race.tournament import Round, Tournament
from ...store import Store, StoreUnavailable, TournamentData
from ..rooms.hashed_seats import CHUNK, fresh_line
from ..rooms.ids import round_room_id
from ..rooms.policy import policy_for
from ..rooms.room_plans import ATTEMPTS
from ..rooms.room_service import Rooms

log = structlog.get_logger("app.tournaments.rounds")

SETTLE_GRACE_MS: Final = 2000  # the starting process's own time to open the round
LOOK_AGAIN_MS: Final = 10_000  # how soon a tournament waiting on something is looked at again
LEAD_MS: Final = 2000  # a round starting by itself is started this long before its countdown
RECORD_LEASE_MS: Final = 60_000  # one process records a round at a time

#: a change to a tournament: changes it and returns its event (``None``: none to record)
@dataclass(frozen=True, slots=True, kw_only=True)
class TournamentConfig:
    """What the tournaments read of the options (the root builds it)."""

    countdown: float  # s from a round's start to its first move (its rooms')
    lobby_ttl: int  # s a tournament nobody registered for is kept
    tournament_ttl: int  # s a tournament with players is kept after its last change


RoundStep = Callable[[Tournament, int, dict[str, int]], dict[str, Any] | None]


class TournamentWork(Protocol):
    """What the rounds use of the tournament service
    (:class:`.tournament_service.Tournaments`)."""

    store: Store
    rooms: Rooms
    config: TournamentConfig

    def now_ms(self) -> int: ...

    def ttl_ms(self, t: Tournament, counts: dict[str, int]) -> int: ...

    async def load(self, tournament_id: str) -> TournamentData: ...

    async def change(self, tournament_id: str, step: RoundStep) -> TournamentData: ...


@dataclass(frozen=True, slots=True)
class _Entrants:
    """A round's players: numbers 0 to ``may_play`` - 1 (see rooms.room_plans.Entrants)."""

    store: Store
    tournament_id: str
    may_play: int

    async def out(self) -> dict[int, str]:
        return {p: how for p, how in (await self.store.tournaments.out_players(self.tournament_id)).items()
                if p < self.may_play}

    async def seated(self) -> list[tuple[int, str, str]]:
        out = await self.out()
        records = await self.store.tournaments.player_records(
            self.tournament_id, [p for p in range(self.may_play) if p not in out])
        return [(p, str(r["nickname"]), str(r["token"])) for p, r in records.items()]


def round_settings(t: Tournament, n: int) -> Settings:
    """The settings of round ``n``'s room: the tournament's, its code."""
    code = t.code(n)
    parsed = DealCode.parse(code)
    ts = t.settings
    return Settings(code=code, draw=parsed.draw, scoring=parsed.scoring,
                    max_players=ts.max_players, undo=ts.undo, hints=ts.hints,
                    assists=ts.assists, time_limit=ts.time_limit, boards=ts.boards,
                    delay=ts.delay, top=ts.top, tournament=t.id, round=n, typed=ts.typed)


class Rounds:
    """The rounds of every tournament (see the module's docstring)."""

    def __init__(self, work: TournamentWork) -> None:
        self.work = work
        self.store = work.store
        self.rooms = work.rooms
        self._holder = secrets.token_hex(6)  # this process, when it holds a lease

    def _lead_ms(self) -> int:
        return round(self.work.config.countdown * 1000) + LEAD_MS

    # ------------------------------------------------------------------ starting

    async def start(self, tournament_id: str, at: int | None, *, admin: str | None = None,
                    expect: int | None = None) -> TournamentData:
        """Start the next round (``expect``: round ``expect`` whose time has
        come, unless it started meanwhile). The tournament goes into the
        sweepers' index before its round is committed ``starting``: a process
        that dies before it has created the round's room leaves the round to
        any other process's sweeper."""
        countdown_ms = round(self.work.config.countdown * 1000)
        await self.store.indexes.tournament_due_add(tournament_id.strip().upper(),
                                            self.work.now_ms() + SETTLE_GRACE_MS)

        def step(t: Tournament, now: int, counts: dict[str, int]) -> dict[str, Any]:
            if admin is not None:
                t.check_admin(admin)
            nxt = t.next_round()
            if expect is not None:
                due = t.scheduled_start()
                if nxt is None or nxt.n != expect or due is None or due - self._lead_ms() > now:
                    raise RaceError(Reason.NOT_LOBBY, f"round {expect} is not due to start")
            start_at = max(at or 0, now + countdown_ms)
            room_id = round_room_id(t.id, nxt.n if nxt else 0)
            return t.start_round(now=now, start_at=start_at, room_id=room_id,
                                 entrants=counts["players"] - counts["withdrawn"])

        data = await self.work.change(tournament_id, step)
        await self.settle(data.t)
        return data

    async def sweep(self) -> None:
        """Settle the tournaments due a look (a round left ``starting`` by a
        process that died, a round to record or to start), whichever process
        has their connections."""
        for tid in await self.store.indexes.claim_due_tournaments(self.work.now_ms()):
            try:
                t = (await self.work.load(tid)).t
            except RaceError:  # gone
                await self.store.indexes.tournament_due_remove(tid)
            else:
                await self.settle(t)

    async def settle(self, t: Tournament) -> None:
        """Finish what a round's start or end left undone: create its room and
        open the round, record its results once the room's race has ended;
        start the next round if its time has come. Then note when the
        tournament needs its next look."""
        current = t.current()
        if current is not None and current.room is not None and current.start_at is not None:
            if current.status == "starting":
                await self._open(t, current)
            else:
                data = await self.store.rooms.load(current.room)
                if data is not None and data.room.phase == "ended":
                    await self.record(t.id, current.n, current.room)
                    return  # recording settles what comes next
        elif current is None and await self._auto_start(t):
            return
        await self.look(t.id)

    async def _open(self, t: Tournament, current: Round) -> None:
        n, room_id, start_at = current.n, current.room, current.start_at
        assert room_id is not None and start_at is not None
        may_play = await self.store.tournaments.round_players(t.id, n)
        settings = round_settings(t, n)
        if await policy_for(settings).seats.create_round(
                self.rooms, room_id, settings, start_at=start_at,
                entrants=_Entrants(self.store, t.id, may_play)):
            log.info("round_started", tournament=t.id, round=n, room=room_id, players=may_play)

        def step(t: Tournament, now: int, _: dict[str, int]) -> dict[str, Any]:
            return t.open_round(n, now=now, players=may_play)

        with contextlib.suppress(RaceError):  # opened meanwhile by another process
            await self.work.change(t.id, step)

    async def _auto_start(self, t: Tournament) -> bool:
        """Start the next round if it starts by itself and its time has come."""
        at, nxt = t.scheduled_start(), t.next_round()
        if at is None or nxt is None or at - self._lead_ms() > self.work.now_ms():
            return False
        try:
            await self.start(t.id, at, expect=nxt.n)
        except RaceError as exc:  # started meanwhile, or nobody to play it
            log.info("round_start_skipped", tournament=t.id, round=nxt.n, reason=exc.reason.value)
            return False
        log.info("round_started_by_schedule", tournament=t.id, round=nxt.n)
        return True

    def _next_look(self, t: Tournament) -> int | None:
        """When the tournament needs a sweeper's look next (``None``: not until
        the organizer acts): a round being opened soon, a round under way
        after its time limit (should its recording have been cut short), the
        next round before its set time."""
        now = self.work.now_ms()
        current = t.current()
        if current is not None:
            if current.status == "starting":
                return now + SETTLE_GRACE_MS
            ends = (current.start_at or now) + t.settings.time_limit * 1000 + SETTLE_GRACE_MS
            return max(ends, now + LOOK_AGAIN_MS)
        at = t.scheduled_start()
        if at is None:
            return None
        start = at - self._lead_ms()
        return start if start > now else now + LOOK_AGAIN_MS

    async def look(self, tournament_id: str) -> None:
        data = await self.store.tournaments.load_tournament_data(tournament_id)
        when = None if data is None else self._next_look(data.t)
        if when is None:
            await self.store.indexes.tournament_due_remove(tournament_id)
        else:
            await self.store.indexes.tournament_due_add(tournament_id, when)

    # ------------------------------------------------------------------ players in a round

    async def may_play(self, room: Room, token: str) -> int | None:
        """The player holding ``token``, if they may play the round of this
        room (seated or not yet: their seat is their number); nothing is changed."""
        assert room.settings.tournament is not None
        found = await self.store.tournaments.token_player(room.settings.tournament, hash_token(token),
                                              room.settings.round)
        if found is None or found.out or found.player >= found.open:
            return None
        return found.player

    async def seat(self, room: Room, token: str) -> int | None:
        """Seat the player holding ``token`` in their round's room, the first
        time they come, if they may play it: their seat (their player number)."""
        tournament_id, n = room.settings.tournament, room.settings.round
        assert tournament_id is not None
        digest = hash_token(token)
        found = await self.store.tournaments.token_player(tournament_id, digest, n)
        if found is None or found.out or found.player >= found.open:
            return None
        now = self.work.now_ms()
        start_at = room.start_at or now
        nickname = str(found.record["nickname"])
        line = {**fresh_line("racing", now, normal=room.settings.scoring == "N"),
                "seat": found.player, "nickname": nickname}
        status = await self.store.seat_hashes.seat_round_player(
            room.id, seat=found.player, race=room.race, nickname=nickname,
            fold=str(found.record["fold"]), token_hash=digest, line=orjson.dumps(line),
            score=rank_score(line, start_at, max(now, start_at), registration=True))
        if status == "ended":
            raise RaceError(Reason.NOT_PLAYING, f"round {n} is over: watch its room for the results")
        if status == "gone":
            raise RaceError(Reason.UNKNOWN_ROOM)
        return found.player if status == "ok" else None

    async def take_out(self, t: Tournament, player: int, *, kick: bool) -> None:
        """The round being played goes on without ``player`` (withdrawn or kicked)."""
        current = t.current()
        if current is None or current.room is None:
            return
        may_play = current.players
        if may_play is None:
            may_play = await self.store.tournaments.round_players(t.id, current.n)
        if player < may_play:
            seats = (await self.rooms.policy_of(current.room)).seats
            with contextlib.suppress(RaceError):  # (no room yet: its creation takes them out)
                await seats.take_out_of_round(self.rooms, current.room, [player], kick=kick)

    # ------------------------------------------------------------------ recording

    async def round_over(self, room: Room) -> None:
        """A round's room has ended its race: record it."""
        assert room.settings.tournament is not None
        await self.record(room.settings.tournament, room.settings.round, room.id)

    async def record(self, tournament_id: str, n: int, room_id: str) -> None:
        """A round's race has ended: its results go into the standings (once),
        then the next round starts if it starts by itself."""
        data = await self.work.load(tournament_id)
        r = data.t.rounds[n - 1] if 0 < n <= len(data.t.rounds) else None
        if r is None or r.status != "running" or r.room != room_id:
            return
        t = data.t
        if not await self.store.tournaments.lease_recording(t.id, self._holder, RECORD_LEASE_MS):
            return  # another process is recording it
        try:
            played = await self._count(t, n, room_id, ttl_ms=self.work.ttl_ms(t, data.counts))
        finally:  # (before the round's end is committed: a process that dies once it has
            # committed leaves no lease for the next recording to wait out)
            await self.store.tournaments.release_recording(t.id, self._holder)

        def step(t: Tournament, now: int, _: dict[str, int]) -> dict[str, Any]:
            if t.rounds[n - 1].room != room_id:
                raise RaceError(Reason.NOT_PLAYING, f"round {n} is not played in {room_id}")
            return t.end_round(n, now=now, played=played)

        try:
            data = await self.work.change(t.id, step)
        except RaceError:  # recorded meanwhile
            return
        t = data.t
        log.info("round_ended", tournament=t.id, round=n)
        if t.next_round() is None:
            await self.keep_rounds(t, self.work.ttl_ms(t, data.counts))
        await self.settle((await self.work.load(t.id)).t)

    async def _count(self, t: Tournament, n: int, room_id: str, *, ttl_ms: int) -> int:
        """Count round ``n``'s results (its room's race has ended) into the
        standing lines: each seated player's line from the room, then −52 $
        for each player who could have played it and did not. How many
        played. Safe to run again, whole or in part."""
        data = await self.store.rooms.load(room_id)
        if data is None:
            raise RaceError(Reason.UNKNOWN_ROOM)
        seats = policy_for(data.room.settings).seats
        played = 0
        async for chunk in seats.round_lines(self.rooms, data):
            results = {int(line["seat"]): round_result(line, rank) for line, rank in chunk}
            counted = await self._count_lines(t.id, n, results)  # a kicked player's is not
            played += sum(1 for p in counted if results[p] is not MISSED)
            # replays: as long as the tournament
            await self.store.rooms.keep_room(room_id, 1, results, ttl_ms)
        may_play = t.rounds[n - 1].players
        if may_play is None:
            may_play = await self.store.tournaments.round_players(t.id, n)
        for start in range(0, may_play, CHUNK):
            await self._count_lines(t.id, n, dict.fromkeys(
                range(start, min(may_play, start + CHUNK)), MISSED))
        return played

    async def _count_lines(self, tournament_id: str, n: int,
                           results: Mapping[int, Sequence[Any]]) -> set[int]:
        """Round ``n``'s ``results`` into these players' lines, unless they
        count it already; a line changed meanwhile (a withdrawal) is read
        again. The players whose line counts the round (not the kicked)."""
        pending = dict(results)
        counted = set(results)
        for _ in range(ATTEMPTS):
            players = list(pending)
            changes = []
            lines = await self.store.tournaments.standing_lines(tournament_id, players)
            for player, raw in zip(players, lines, strict=True):
                if raw is None:  # kicked: out of the standings
                    counted.discard(player)
                    continue
                new = count_round(orjson.loads(raw), n, pending[player])
                if new is not None:
                    changes.append((player, raw, orjson.dumps(new), standing_score(new)))
            changed = await self.store.tournaments.count_standings(tournament_id, changes)
            if not changed:
                return counted
            pending = {p: pending[p] for p in changed}
        raise StoreUnavailable("the standings kept changing; try again")

    async def keep_rounds(self, t: Tournament, ttl_ms: int) -> None:
        """Let every ended round's room and seats live as long as the tournament."""
        for r in t.ended():
            if r.room is None:
                continue
            data = await self.store.rooms.load(r.room)
            if data is not None:
                seats = policy_for(data.room.settings).seats
                await self.store.rooms.keep_room(r.room, 1, await seats.seated_players(self.rooms, data),
                                           ttl_ms)
