"""Tournaments: the organizer's and players' commands, and rounds as rooms.

A round is a room whose seats are the registered players (their tournament
token is their seat's token), created when the organizer starts the round.
The tournament is committed first (round running, seats fixed), then the room
is created under an id derived from the tournament's and the round's, so a
process that dies in between leaves nothing that :meth:`Tournaments.settle`
cannot finish: it creates a missing round room and records a round whose room
has ended. Every process settles the tournaments it has connections for; a
round being started is also in an index that every process's sweeper reads
(:meth:`Tournaments.sweep`), so a round never stays ``starting`` because the
process that started it died; ending a round's race settles it at once.
"""

from __future__ import annotations

import contextlib
import hashlib
from collections.abc import Callable
from typing import Any, Final

import structlog

from ..klondike import DealCode, Game
from ..protocol import Reason
from ..race import RaceError, Room, Settings, new_entry
from ..race.tournament import (
    TOURNAMENT_TTL_MS,
    Tournament,
    parse_tournament_settings,
    results_csv,
    seat_tokens,
)
from ..store import Store, StoreUnavailable
from .config import Config
from .rooms import _ID_ALPHABET, ATTEMPTS, ROOM_ID_LENGTH, Rooms, new_room_id, new_token, room_event

log = structlog.get_logger("app.tournaments")

__all__ = ["TOURNAMENT_TTL_MS", "Tournaments", "round_room_id", "tournament_event"]


SETTLE_GRACE_MS: Final = 2000  # the starting process's own time to open the round


def round_room_id(tournament_id: str, n: int) -> str:
    """The room of round ``n``: derived, so that creating it twice is harmless."""
    digest = hashlib.sha256(f"{tournament_id}/{n}".encode()).digest()
    return "".join(_ID_ALPHABET[b % len(_ID_ALPHABET)] for b in digest[:ROOM_ID_LENGTH])


def tournament_event(event: dict[str, Any], t: Tournament, now: int) -> dict[str, Any]:
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
        rooms.on_round_over = self.round_over

    def ttl_ms(self, t: Tournament) -> int:
        """How long a tournament is kept after its last change: a day
        (``--lobby-ttl``) while nobody has registered, then ``--tournament-ttl``."""
        if not t.players:
            return self.config.lobby_ttl * 1000
        return self.config.tournament_ttl * 1000

    async def _load(self, tournament_id: str) -> tuple[Tournament, int]:
        loaded = await self.store.load_tournament(tournament_id.strip().upper())
        if loaded is None:
            raise RaceError(Reason.UNKNOWN_ROOM, "there is no such tournament")
        t, rv, _ = loaded
        return t, rv

    async def change(self, tournament_id: str,
                     step: Callable[[Tournament, int], dict[str, Any]]) -> Tournament:
        """Run ``step`` (which changes the tournament and returns its event)
        until its commit lands."""
        for _ in range(ATTEMPTS):
            t, rv = await self._load(tournament_id)
            now = self.now_ms()
            event = step(t, now)
            committed = await self.store.commit_tournament(
                t, rv, [tournament_event(event, t, now)], ttl_ms=self.ttl_ms(t))
            if committed.ok:
                return t
        raise StoreUnavailable("the tournament kept changing; try again")

    # ------------------------------------------------------------------ commands

    async def create(self, name: str, data: dict[str, Any]) -> tuple[Tournament, str]:
        """A new tournament and its admin token (the tournament keeps only its digest)."""
        settings = parse_tournament_settings(data)
        admin = new_token()
        for _ in range(ATTEMPTS):
            now = self.now_ms()
            t = Tournament.create(new_room_id(), name, settings, admin, now=now)
            committed = await self.store.commit_tournament(
                t, None, [tournament_event({"kind": "created"}, t, now)], ttl_ms=self.ttl_ms(t))
            if committed.ok:
                log.info("tournament_created", tournament=t.id, rounds=len(t.rounds))
                return t, admin
        raise StoreUnavailable("could not find a free tournament id")

    async def register(self, tournament_id: str, nickname: str) -> tuple[Tournament, int, str]:
        token = new_token()
        t = await self.change(tournament_id, lambda t, now: t.register(nickname, token, now=now))
        player = t.player_of(token)
        assert player is not None
        return t, player.player, token

    async def close(self, tournament_id: str, admin: str) -> None:
        def step(t: Tournament, now: int) -> dict[str, Any]:
            t.check_admin(admin)
            return t.close_registration(now=now)

        await self.change(tournament_id, step)

    async def start_round(self, tournament_id: str, admin: str, at: int | None) -> Tournament:
        """The next round, at the server time ``at`` (ms) or after the countdown.

        The tournament goes into the sweepers' index before its round is
        committed ``starting``: a process that dies before it has created the
        round's room leaves the round to any other process's sweeper."""
        countdown_ms = round(self.config.countdown * 1000)
        checked, _ = await self._load(tournament_id)
        checked.check_admin(admin)
        await self.store.tournament_due_add(checked.id, self.now_ms() + SETTLE_GRACE_MS)

        def step(t: Tournament, now: int) -> dict[str, Any]:
            t.check_admin(admin)
            start_at = max(at or 0, now + countdown_ms)
            nxt = t.next_round()
            room_id = round_room_id(t.id, nxt.n if nxt else 0)
            return t.start_round(now=now, start_at=start_at, room_id=room_id)

        t = await self.change(tournament_id, step)
        await self.settle(t)
        await self.store.tournament_due_remove(t.id)
        return t

    async def sweep(self) -> None:
        """Settle the tournaments due a look (a round left ``starting`` by a
        process that died), whichever process has their connections."""
        for tid in await self.store.claim_due_tournaments(self.now_ms()):
            loaded = await self.store.load_tournament(tid)
            if loaded is not None:
                await self.settle(loaded[0])
            await self.store.tournament_due_remove(tid)

    async def end_round(self, tournament_id: str, admin: str) -> None:
        """The organizer ends the round being played now (players still
        playing are unfinished): for no-shows, or a round that drags on."""
        t, _ = await self._load(tournament_id)
        t.check_admin(admin)
        current = t.current()
        if current is None or current.status != "running" or current.room is None:
            raise RaceError(Reason.NOT_PLAYING, "no round is being played")
        await self.rooms.end_race(current.room, now_anyway=True)

    async def withdraw(self, tournament_id: str, token: str) -> None:
        t = await self.change(tournament_id, lambda t, now: t.withdraw(token, now=now))
        current = t.current()
        player = t.player_of(token)
        if current is not None and current.room and player and player.player in current.seats:
            with contextlib.suppress(RaceError):  # already out of that race
                await self.rooms.leave(current.room, player.player)

    # ------------------------------------------------------------------ rounds

    async def settle(self, t: Tournament) -> None:
        """Finish what a round's start or end left undone: create its room and
        open the round, record its results once the room's race has ended."""
        current = t.current()
        if current is None or current.room is None or current.start_at is None:
            return
        if current.status == "starting":
            if await self.store.load(current.room) is None:
                await self._create_round_room(t, current.n, current.room, current.start_at)
            n = current.n

            def step(t: Tournament, now: int) -> dict[str, Any]:
                return t.open_round(n, now=now)

            with contextlib.suppress(RaceError):  # opened meanwhile by another process
                await self.change(t.id, step)
            return
        data = await self.store.load(current.room)
        if data is not None and data.room.phase == "ended":
            await self.record_round(t.id, current.n, current.room, data.room.results or [])

    async def _create_round_room(self, t: Tournament, n: int, room_id: str, start_at: int) -> None:
        now = self.now_ms()
        code = t.code(n)
        parsed = DealCode.parse(code)
        ts = t.settings
        settings = Settings(code=code, draw=parsed.draw, scoring=parsed.scoring,
                            max_players=max(1, len(t.rounds[n - 1].seats)), undo=ts.undo,
                            hints=ts.hints, time_limit=ts.time_limit, boards=ts.boards,
                            delay=ts.delay, tournament=t.id, round=n)
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

    async def round_over(self, room: Room) -> None:
        """A round's room has ended its race: record it."""
        assert room.settings.tournament is not None
        await self.record_round(room.settings.tournament, room.settings.round, room.id,
                                room.results or [])

    async def record_round(self, tournament_id: str, n: int, room_id: str,
                           results: list[dict[str, Any]]) -> None:
        """A round's race has ended: its results go into the standings (once)."""
        for _ in range(ATTEMPTS):
            t, rv = await self._load(tournament_id)
            r = t.rounds[n - 1] if 0 < n <= len(t.rounds) else None
            if r is None or r.status != "running" or r.room != room_id:
                return
            now = self.now_ms()
            event = t.end_round(n, results, now=now)
            committed = await self.store.commit_tournament(
                t, rv, [tournament_event(event, t, now)], ttl_ms=self.ttl_ms(t))
            if committed.ok:
                log.info("round_ended", tournament=t.id, round=n)
                for played in t.rounds:  # replays live as long as the tournament
                    if played.status == "ended" and played.room:
                        await self.store.keep_room(played.room, 1, played.seats, self.ttl_ms(t))
                return
        raise StoreUnavailable("the tournament kept changing; try again")

    # ------------------------------------------------------------------ results

    async def results(self, tournament_id: str) -> dict[str, Any]:
        t, _ = await self._load(tournament_id)
        public = t.public(self.now_ms())
        return {"id": t.id, "name": t.name, "rounds": public["rounds"],
                "standings": public["standings"]}

    async def results_csv(self, tournament_id: str) -> str:
        t, _ = await self._load(tournament_id)
        return results_csv(t)

    async def replay(self, tournament_id: str, n: int, player: int) -> dict[str, Any]:
        """A player's round move by move, once the round has ended: the code,
        the stored commands and the board after each."""
        t, _ = await self._load(tournament_id)
        if not 0 < n <= len(t.rounds) or t.rounds[n - 1].status != "ended":
            raise RaceError(Reason.NOT_ENDED, f"round {n} has not ended")
        r = t.rounds[n - 1]
        if player not in r.seats or r.room is None:
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
