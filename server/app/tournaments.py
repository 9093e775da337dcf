"""Tournaments: the organizer's and players' commands, and rounds as rooms.

A round is a room. A small tournament's round room seats every registered
player from the start (their tournament token is their seat's token); a big
tournament's round is a big room in which each player is seated the first
time they come (:mod:`.big_tournaments`). The tournament is committed first
(round ``starting``), then the room is created under an id derived from the
tournament's and the round's, so a process that dies in between leaves
nothing that :meth:`Tournaments.settle` cannot finish: it creates a missing
round room, opens the round, records a round whose room has ended, and
starts a round whose time has come (``starts``, ``interval``). Every process
settles the tournaments it has connections for; a tournament with something
to do is also in an index that every process's sweeper reads
(:meth:`Tournaments.sweep`), so nothing waits on the process that started
it; ending a round's race records it at once.
"""

from __future__ import annotations

import contextlib
import hashlib
import secrets
from collections.abc import Callable
from dataclasses import replace
from typing import Any, Final

import structlog

from ..klondike import DealCode, Game
from ..protocol import Reason
from ..race import RaceError, Room, Settings, new_entry
from ..race.names import check_nickname, same_name
from ..race.tokens import hash_token
from ..race.tournament import (
    TOURNAMENT_TTL_MS,
    Round,
    Tournament,
    parse_tournament_settings,
    results_csv,
    results_csv_big,
    seat_tokens,
    standings,
)
from ..store import Store, StoreUnavailable, TournamentData
from .big_tournaments import BigTournaments
from .config import Config
from .rooms import _ID_ALPHABET, ATTEMPTS, ROOM_ID_LENGTH, Rooms, new_room_id, new_token, room_event

log = structlog.get_logger("app.tournaments")

__all__ = ["TOURNAMENT_TTL_MS", "Tournaments", "round_room_id", "tournament_event"]


SETTLE_GRACE_MS: Final = 2000  # the starting process's own time to open the round
LOOK_AGAIN_MS: Final = 10_000  # how soon a tournament waiting on something is looked at again
LEAD_MS: Final = 2000  # a round starting by itself is started this long before its countdown
RECORD_LEASE_MS: Final = 60_000  # one process records a big round at a time
HANDOFF_LENGTH: Final = 10
INVITE_LENGTH: Final = 8
DEFAULT_PAGE: Final = 100  # standings lines in a big tournament's results, unless asked
MAX_PAGE: Final = 1000

#: a change to a tournament: changes it and returns its event (``None``: none to record)
Step = Callable[[Tournament, int, dict[str, int]], dict[str, Any] | None]


def round_room_id(tournament_id: str, n: int) -> str:
    """The room of round ``n``: derived, so that creating it twice is harmless."""
    digest = hashlib.sha256(f"{tournament_id}/{n}".encode()).digest()
    return "".join(_ID_ALPHABET[b % len(_ID_ALPHABET)] for b in digest[:ROOM_ID_LENGTH])


def new_code(length: int) -> str:
    """An invite or handoff code: letters and digits read aloud safely."""
    return "".join(secrets.choice(_ID_ALPHABET) for _ in range(length))


def tournament_event(event: dict[str, Any], t: Tournament, now: int) -> dict[str, Any]:
    """A small tournament's event as recorded: with the whole tournament."""
    return {**event, "at": now, "tournament": t.public(now)}


class Tournaments:
    """Tournament commands. Built after the rooms: it tells them what to do
    when a round's race has ended."""

    def __init__(self, store: Store, rooms: Rooms, config: Config,
                 now_ms: Callable[[], int]) -> None:
        self.store = store
        self.rooms = rooms
        self.config = config
        self.now_ms = now_ms
        self.big = BigTournaments(store, rooms, now_ms)
        self._holder = secrets.token_hex(6)  # this process, when it holds a lease
        rooms.on_round_over = self.round_over

    def ttl_ms(self, t: Tournament, counts: dict[str, int] | None = None) -> int:
        """How long a tournament is kept after its last change: a day
        (``--lobby-ttl``) while nobody has registered, then ``--tournament-ttl``;
        and a day past its last set start time."""
        registered = (counts or {}).get("players", 0) if t.big else len(t.players)
        kept = (self.config.tournament_ttl if registered else self.config.lobby_ttl) * 1000
        now = self.now_ms()
        ahead = [at for at in t.settings.starts if at > now]
        if ahead:
            kept = max(kept, max(ahead) - now + self.config.lobby_ttl * 1000)
        return kept

    def _lead_ms(self) -> int:
        return round(self.config.countdown * 1000) + LEAD_MS

    async def _load(self, tournament_id: str) -> TournamentData:
        data = await self.store.load_tournament_data(tournament_id.strip().upper())
        if data is None:
            raise RaceError(Reason.UNKNOWN_ROOM, "there is no such tournament")
        return data

    async def public(self, t: Tournament, counts: dict[str, int]) -> dict[str, Any]:
        """The tournament as anyone may see it now (a big one: its header,
        counts and the top of its standings)."""
        now = self.now_ms()
        if not t.big:
            return t.public(now)
        return t.public_big(now, counts, await self.big.top(t))

    async def change(self, tournament_id: str, step: Step) -> TournamentData:
        """Run ``step`` (which changes the tournament and returns its event)
        until its commit lands."""
        for _ in range(ATTEMPTS):
            data = await self._load(tournament_id)
            t, now = data.t, self.now_ms()
            event = step(t, now, data.counts)
            events = [] if event is None else [
                {**event, "at": now, "tournament": await self.public(t, data.counts)}]
            committed = await self.store.commit_tournament(
                t, data.rv, events, ttl_ms=self.ttl_ms(t, data.counts))
            if committed.ok:
                return data
        raise StoreUnavailable("the tournament kept changing; try again")

    # ------------------------------------------------------------------ commands

    async def create(self, name: str, data: dict[str, Any]) -> tuple[Tournament, str, str | None]:
        """A new tournament, its admin token and its invite code (if it needs
        one): the tournament keeps only their digests."""
        settings = parse_tournament_settings(data, now=self.now_ms())
        if settings.deal == "winnable":  # certified codes instead of the random ones drawn
            mode = DealCode.parse(settings.codes[0])
            codes = await self.rooms.winnable.take(mode.draw, mode.scoring, len(settings.codes))
            settings = replace(settings, codes=tuple(codes))
        admin = new_token()
        invite = new_code(INVITE_LENGTH) if settings.invite else None
        fields = ({"big": 1, "max": settings.max_players, "players": 0, "next": 0,
                   "withdrawn": 0, "kicked": 0} if settings.big else None)
        for _ in range(ATTEMPTS):
            now = self.now_ms()
            t = Tournament.create(new_room_id(), name, settings, admin, now=now, invite=invite)
            counts = dict.fromkeys(("players", "withdrawn", "kicked"), 0) if t.big else {}
            public = t.public_big(now, counts, []) if t.big else t.public(now)
            committed = await self.store.commit_tournament(
                t, None, [{"kind": "created", "at": now, "tournament": public}],
                ttl_ms=self.ttl_ms(t, counts), fields=fields)
            if committed.ok:
                log.info("tournament_created", tournament=t.id, rounds=len(t.rounds),
                         max_players=settings.max_players)
                await self._look(t.id)
                return t, admin, invite
        raise StoreUnavailable("could not find a free tournament id")

    async def register(self, tournament_id: str, nickname: str,
                       invite: str | None = None) -> tuple[Tournament, int, str]:
        token = new_token()
        data = await self._load(tournament_id)
        if data.t.big:
            player = await self.big.register(data.t, nickname, token, invite,
                                             ttl_ms=self.ttl_ms(data.t, {"players": 1}))
            return data.t, player, token
        data = await self.change(tournament_id, lambda t, now, _: t.register(
            nickname, token, now=now, invite=invite))
        registered = data.t.player_of(token)
        assert registered is not None
        return data.t, registered.player, token

    async def player_of(self, tournament_id: str, token: str) -> tuple[Tournament, int] | None:
        """The tournament and the number of the player holding ``token``
        (``None``: nobody, or kicked)."""
        t = (await self._load(tournament_id)).t
        if t.big:
            found = await self.big.player_of(t, token)
            return None if found is None else (t, found[0])
        player = t.player_of(token)
        return None if player is None else (t, player.player)

    async def close(self, tournament_id: str, admin: str) -> None:
        def step(t: Tournament, now: int, _: dict[str, int]) -> dict[str, Any]:
            t.check_admin(admin)
            return t.close_registration(now=now)

        await self.change(tournament_id, step)

    async def start_round(self, tournament_id: str, admin: str, at: int | None) -> Tournament:
        """The next round, at the server time ``at`` (ms) or after the countdown."""
        (await self._load(tournament_id)).t.check_admin(admin)
        return (await self._start(tournament_id, at, admin=admin)).t

    async def _start(self, tournament_id: str, at: int | None, *, admin: str | None = None,
                     expect: int | None = None) -> TournamentData:
        """Start the next round (``expect``: round ``expect`` whose time has
        come, unless it started meanwhile). The tournament goes into the
        sweepers' index before its round is committed ``starting``: a process
        that dies before it has created the round's room leaves the round to
        any other process's sweeper."""
        countdown_ms = round(self.config.countdown * 1000)
        await self.store.tournament_due_add(tournament_id.strip().upper(),
                                            self.now_ms() + SETTLE_GRACE_MS)

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
            entrants = counts["players"] - counts["withdrawn"] if t.big else None
            return t.start_round(now=now, start_at=start_at, room_id=room_id, entrants=entrants)

        data = await self.change(tournament_id, step)
        await self.settle(data.t)
        return data

    async def sweep(self) -> None:
        """Settle the tournaments due a look (a round left ``starting`` by a
        process that died, a round to record or to start), whichever process
        has their connections."""
        for tid in await self.store.claim_due_tournaments(self.now_ms()):
            data = await self.store.load_tournament_data(tid)
            if data is None:
                await self.store.tournament_due_remove(tid)
            else:
                await self.settle(data.t)

    async def end_round(self, tournament_id: str, admin: str) -> None:
        """The organizer ends the round being played now (players still
        playing are unfinished): for no-shows, or a round that drags on."""
        t = (await self._load(tournament_id)).t
        t.check_admin(admin)
        current = t.current()
        if current is None or current.status != "running" or current.room is None:
            raise RaceError(Reason.NOT_PLAYING, "no round is being played")
        await self.rooms.end_race(current.room, now_anyway=True)

    async def withdraw(self, tournament_id: str, token: str) -> int:
        """The player holding ``token`` leaves the tournament: their number."""
        t = (await self._load(tournament_id)).t
        if t.big:
            status, player = await self.store.big_tournaments.out(
                t.id, kind="withdrawn", token_hash=hash_token(token))
            if status == "unknown":
                raise RaceError(Reason.BAD_TOKEN)
            if status == "already":
                raise RaceError(Reason.NOT_PLAYING, "you have already withdrawn")
            # the header as it is now: a round may have started meanwhile
            await self.big.take_out((await self._load(t.id)).t, player, kick=False)
            return player
        withdrawn: list[int] = []

        def step(t: Tournament, now: int, _: dict[str, int]) -> dict[str, Any]:
            event = t.withdraw(token, now=now)
            withdrawn.append(event["player"])
            return event

        current = (await self.change(tournament_id, step)).t.current()
        player = withdrawn[-1]
        if current is not None and current.room and player in current.seats:
            with contextlib.suppress(RaceError):  # already out of that race
                await self.rooms.leave(current.room, player)
        return player

    async def kick(self, tournament_id: str, admin: str, player: int, *, ban: bool) -> None:
        """The organizer removes a player: out of the standings, of the round
        being played and of those to come; ``ban`` refuses their nickname."""
        t = (await self._load(tournament_id)).t
        t.check_admin(admin)
        t.check_not_over()
        if t.big:
            status, _ = await self.store.big_tournaments.out(t.id, kind="kicked", player=player,
                                                             ban=ban)
            if status == "unknown":
                raise RaceError(Reason.UNKNOWN_SEAT,
                                f"there is no player {player} in this tournament")

            def announce(t: Tournament, now: int, _: dict[str, int]) -> dict[str, Any]:
                return {"kind": "kicked", "player": player, "ban": ban}

            data = await self.change(t.id, announce)
            await self.big.take_out(data.t, player, kick=True)
            log.info("player_kicked", tournament=t.id, player=player, ban=ban)
            return

        def step(t: Tournament, now: int, _: dict[str, int]) -> dict[str, Any]:
            t.check_admin(admin)
            return t.kick(player, ban=ban, now=now)

        data = await self.change(t.id, step)
        current = data.t.current()
        if current is not None and current.room and player in current.seats:
            with contextlib.suppress(RaceError):  # already out of that race
                await self.rooms.leave(current.room, player)
        log.info("player_kicked", tournament=t.id, player=player, ban=ban)

    async def handoff(self, tournament_id: str, admin: str) -> tuple[str, int]:
        """A one-time code that gives another device an admin key, and until when."""
        code = new_code(HANDOFF_LENGTH)
        until: list[int] = []

        def step(t: Tournament, now: int, _: dict[str, int]) -> None:
            t.check_admin(admin)
            until.append(t.start_handoff(code, now=now))

        await self.change(tournament_id, step)
        return code, until[-1]

    async def claim(self, tournament_id: str, code: str) -> tuple[Tournament, str]:
        """A new admin key for this device, given the handoff code."""
        admin = new_token()

        def step(t: Tournament, now: int, _: dict[str, int]) -> None:
            t.claim(code, admin, now=now)

        data = await self.change(tournament_id, step)
        log.info("admin_claimed", tournament=data.t.id, keys=len(data.t.admins))
        return data.t, admin

    # ------------------------------------------------------------------ rounds

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
                data = await self.store.load(current.room)
                if data is not None and data.room.phase == "ended":
                    await self.record_round(t.id, current.n, current.room, data.room.results or [])
                    return  # recording settles what comes next
        elif current is None and await self._auto_start(t):
            return
        await self._look(t.id)

    async def _open(self, t: Tournament, current: Round) -> None:
        n, room_id, start_at = current.n, current.room, current.start_at
        assert room_id is not None and start_at is not None
        may_play = None
        if t.big:
            may_play = await self.store.big_tournaments.round_players(t.id, n)
            if await self.store.load(room_id) is None:
                await self._create_big_round_room(t, n, room_id, start_at, may_play)
            await self.big.close_out_seats(t, n, room_id, may_play)
        elif await self.store.load(room_id) is None:
            await self._create_round_room(t, n, room_id, start_at)

        def step(t: Tournament, now: int, _: dict[str, int]) -> dict[str, Any]:
            return t.open_round(n, now=now, players=may_play)

        with contextlib.suppress(RaceError):  # opened meanwhile by another process
            await self.change(t.id, step)

    async def _auto_start(self, t: Tournament) -> bool:
        """Start the next round if it starts by itself and its time has come."""
        at, nxt = t.scheduled_start(), t.next_round()
        if at is None or nxt is None or at - self._lead_ms() > self.now_ms():
            return False
        try:
            await self._start(t.id, at, expect=nxt.n)
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
        now = self.now_ms()
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

    async def _look(self, tournament_id: str) -> None:
        data = await self.store.load_tournament_data(tournament_id)
        when = None if data is None else self._next_look(data.t)
        if when is None:
            await self.store.tournament_due_remove(tournament_id)
        else:
            await self.store.tournament_due_add(tournament_id, when)

    async def _create_round_room(self, t: Tournament, n: int, room_id: str, start_at: int) -> None:
        now = self.now_ms()
        code = t.code(n)
        parsed = DealCode.parse(code)
        ts = t.settings
        settings = Settings(code=code, draw=parsed.draw, scoring=parsed.scoring,
                            max_players=max(1, len(t.rounds[n - 1].seats)), undo=ts.undo,
                            hints=ts.hints, assists=ts.assists, time_limit=ts.time_limit,
                            boards=ts.boards, delay=ts.delay, tournament=t.id, round=n)
        seats = t.rounds[n - 1].seats
        names = {p.player: p.nickname for p in t.players}
        room = Room.for_round(room_id, settings, code, [(s, names[s]) for s in seats],
                              seat_tokens(t, seats), start_at=start_at, now=now)
        entries = [new_entry(s, names[s], "racing", now, normal=parsed.scoring == "N")
                   for s in seats]
        rooms = self.rooms
        changes = self.store.changes(room_id)
        for entry in entries:
            changes.set_entry(entry)
        assert room.deadline is not None
        changes.start_race(room.race, room.racers).expire(rooms._ttl_ms(room), room.race, seats)
        event = room_event({"kind": "start", "race": room.race, "start_at": start_at}, room, now,
                           entries=entries, reset=True)
        if (await self.store.commit(room, None, [event], changes)).ok:
            await self.store.due_add(room_id, room.deadline)
            log.info("round_started", tournament=t.id, round=n, room=room_id, players=len(seats))

    async def _create_big_round_room(self, t: Tournament, n: int, room_id: str, start_at: int,
                                     may_play: int) -> None:
        """A big round's room: racing from ``start_at``, every player who may
        play it counted among its racers, none seated yet."""
        now = self.now_ms()
        code = t.code(n)
        parsed = DealCode.parse(code)
        ts = t.settings
        settings = Settings(code=code, draw=parsed.draw, scoring=parsed.scoring,
                            max_players=ts.max_players, undo=ts.undo, hints=ts.hints,
                            assists=ts.assists, time_limit=ts.time_limit, boards=ts.boards, delay=ts.delay,
                            top=ts.top, tournament=t.id, round=n)
        room = Room.for_big_round(room_id, settings, code, start_at=start_at, now=now)
        changes = (self.store.changes(room_id).big_round(ts.max_players, may_play, room.race)
                   .expire(self.rooms._ttl_ms(room)))
        event = room_event({"kind": "start", "race": room.race, "start_at": start_at}, room, now,
                           counts={"players": 0, "ready": 0})
        if (await self.store.commit(room, None, [event], changes)).ok:
            assert room.deadline is not None
            await self.store.due_add(room_id, room.deadline)
            log.info("round_started", tournament=t.id, round=n, room=room_id, players=may_play)

    async def round_over(self, room: Room) -> None:
        """A round's room has ended its race: record it."""
        assert room.settings.tournament is not None
        await self.record_round(room.settings.tournament, room.settings.round, room.id,
                                room.results or [])

    async def record_round(self, tournament_id: str, n: int, room_id: str,
                           results: list[dict[str, Any]]) -> None:
        """A round's race has ended: its results go into the standings (once),
        then the next round starts if it starts by itself."""
        data = await self._load(tournament_id)
        r = data.t.rounds[n - 1] if 0 < n <= len(data.t.rounds) else None
        if r is None or r.status != "running" or r.room != room_id:
            return

        def step(t: Tournament, now: int, _: dict[str, int],
                 played: int | None = None) -> dict[str, Any]:
            if t.rounds[n - 1].room != room_id:
                raise RaceError(Reason.NOT_PLAYING, f"round {n} is not played in {room_id}")
            return t.end_round(n, None if t.big else results, now=now, played=played)

        t = data.t
        try:
            if t.big:
                if not await self.store.big_tournaments.lease(t.id, self._holder, RECORD_LEASE_MS):
                    return  # another process is recording it
                try:
                    played = await self.big.record(t, n, room_id, ttl_ms=self.ttl_ms(t, data.counts))
                    data = await self.change(t.id, lambda t, now, c: step(t, now, c, played))
                finally:
                    await self.store.big_tournaments.release(t.id, self._holder)
            else:
                data = await self.change(t.id, step)
        except RaceError:  # recorded meanwhile
            return
        t = data.t
        log.info("round_ended", tournament=t.id, round=n)
        ttl = self.ttl_ms(t, data.counts)
        for played_round in t.rounds:  # replays live as long as the tournament
            if played_round.status == "ended" and played_round.room:
                await self.store.keep_room(played_round.room, 1, played_round.seats, ttl)
        if t.big and t.next_round() is None:
            await self.big.keep_rounds(t, ttl)
        await self.settle((await self._load(t.id)).t)

    # ------------------------------------------------------------------ standings

    async def standings_top(self, tournament_id: str) -> dict[str, Any]:
        """``{"id", "standings"}``: a small tournament's whole standings, a big
        one's top lines (its ``top`` setting), with ``of``: how many are ranked."""
        t = (await self._load(tournament_id)).t
        if not t.big:
            return {"id": t.id, "standings": standings(t)}
        of, lines = await self.big.page(t.id, 1, t.settings.top)
        return {"id": t.id, "standings": lines, "of": of}

    async def standings_page(self, tournament_id: str, first: int, count: int
                             ) -> tuple[str, int, list[dict[str, Any]]]:
        """The tournament's id, how many are ranked, and the standings from
        rank ``first`` on."""
        t = (await self._load(tournament_id)).t
        if t.big:
            of, lines = await self.big.page(t.id, first, count)
            return t.id, of, lines
        table = standings(t)
        return t.id, len(table), table[first - 1:first - 1 + count]

    async def find(self, tournament_id: str, nickname: str) -> tuple[str, dict[str, Any] | None]:
        """A player's place by nickname: ``{"player", "rank", "line"}``."""
        t = (await self._load(tournament_id)).t
        if t.big:
            return t.id, await self.big.find(t.id, nickname)
        name = check_nickname(nickname)
        for line in standings(t):
            if same_name(line["nickname"], name):
                return t.id, {"player": line["player"], "rank": line["rank"], "line": line}
        return t.id, None

    async def near(self, tournament_id: str, players: list[int]) -> list[bytes | None]:
        """A big tournament's standings around these players."""
        return await self.store.standings_near(tournament_id, players)

    # ------------------------------------------------------------------ results

    async def results(self, tournament_id: str, first: int | None = None,
                      count: int | None = None) -> dict[str, Any]:
        """The standings and the rounds: a small tournament's whole; a big
        one's a page (``first``, ``count``, ``of``: how many are ranked)."""
        data = await self._load(tournament_id)
        t = data.t
        if not t.big:
            public = t.public(self.now_ms())
            return {"id": t.id, "name": t.name, "rounds": public["rounds"],
                    "standings": public["standings"]}
        first, count = _page(first, count)
        of, lines = await self.big.page(t.id, first, count)
        public = t.public_big(self.now_ms(), data.counts, [])
        return {"id": t.id, "name": t.name, "rounds": public["rounds"], "first": first,
                "of": of, "standings": lines}

    async def results_csv(self, tournament_id: str, first: int | None = None,
                          count: int | None = None) -> str:
        t = (await self._load(tournament_id)).t
        if not t.big:
            return results_csv(t)
        first, count = _page(first, count)
        return results_csv_big(t, (await self.big.page(t.id, first, count))[1])

    async def replay(self, tournament_id: str, n: int, player: int) -> dict[str, Any]:
        """A player's round move by move, once the round has ended: the code,
        the stored commands and the board after each."""
        t = (await self._load(tournament_id)).t
        if not 0 < n <= len(t.rounds) or t.rounds[n - 1].status != "ended":
            raise RaceError(Reason.NOT_ENDED, f"round {n} has not ended")
        r = t.rounds[n - 1]
        if t.big:
            seated = (r.room is not None and 0 <= player < (r.players or 0)
                      and await self.store.nickname(r.room, player) is not None)
        else:
            seated = player in r.seats
        if not seated or r.room is None:
            raise RaceError(Reason.UNKNOWN_SEAT, f"player {player} did not play round {n}")
        code = t.code(n)
        game = Game(code)
        steps: list[dict[str, Any]] = [{"command": None, "view": game.public_view()}]
        for seq, command in await self.store.log(r.room, 1, player):
            if command == "undo":
                game.pop()
            elif command != "resign":
                game.push(command)
            steps.append({"s": seq, "command": command, "view": game.public_view()})
        return {"tournament": t.id, "round": n, "player": player, "code": code, "steps": steps}


def _page(first: int | None, count: int | None) -> tuple[int, int]:
    first = 1 if first is None else first
    count = DEFAULT_PAGE if count is None else count
    if first < 1 or not 1 <= count <= MAX_PAGE:
        raise RaceError(Reason.BAD_FIELD, f"first is 1 or more and count from 1 to {MAX_PAGE}")
    return first, count

