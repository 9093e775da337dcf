"""Tournaments: the organizer's and players' commands, the standings and the
results, for a tournament of any size.

A tournament is one model (:mod:`server.race.tournament`): a header
committed with its version, and its players and standings in the store, each
change to them one script (registering, withdrawing, kicking: they never
conflict with each other nor bump the header's version). Its rounds are
:mod:`.rounds`'. What differs by size is how it shows itself
(:mod:`.public_views`): whole, or its top and each player's place.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any, Final

import orjson
import structlog

from ...klondike import DealCode
from ...protocol import Reason
from ...race import Entry, RaceError, check_nickname
from ...race.names import fold, taken_text
from ...race.ranking import standing_score
from ...race.standings import standing_line, standing_tail
from ...race.tokens import hash_token
from ...race.tournament import TOURNAMENT_TTL_MS, Tournament, parse_tournament_settings
from ...store import Store, StoreUnavailable, TournamentData
from ..rooms.ids import new_code, new_room_id, new_token
from ..rooms.policy import policy_for
from ..rooms.replay_pages import PAGE_MAX
from ..rooms.room_plans import ATTEMPTS
from ..rooms.room_service import Rooms
from .moved_documents import migrate
from .public_views import View, view_for
from .rounds import Rounds, RoundStep, TournamentConfig

log = structlog.get_logger("app.tournaments.tournament_service")

__all__ = ["TOURNAMENT_TTL_MS", "Tournaments", "tournament_event"]

HANDOFF_LENGTH: Final = 10
INVITE_LENGTH: Final = 8
_KEPT_ROUNDS: Final = 256  # ended rounds' rooms a process remembers (they never change)

_REGISTER_REFUSED: Final = {
    "gone": (Reason.UNKNOWN_ROOM, "there is no such tournament"),
    "closed": (Reason.RACE_STARTED, "registration is closed"),
    "bad_invite": (Reason.BAD_INVITE, None),
    "full": (Reason.ROOM_FULL, "the tournament is full"),
    "banned": (Reason.BANNED, None),
}


def tournament_event(event: dict[str, Any], public: dict[str, Any], now: int) -> dict[str, Any]:
    """A tournament's event as recorded: with the tournament as it shows itself."""
    return {**event, "at": now, "tournament": public}


class Tournaments:
    """Tournament commands. Built after the rooms: its rounds tell them what
    to do when a round's race has ended, and how to seat a round's player."""

    def __init__(self, store: Store, rooms: Rooms, config: TournamentConfig,
                 now_ms: Callable[[], int]) -> None:
        self.store = store
        self.rooms = rooms
        self.config = config
        self.now_ms = now_ms
        self.rounds = Rounds(self)
        self.replays = rooms.replays  # one cache and one set of builders per process
        self._ended: dict[str, tuple[list[int], list[Entry] | None]] = {}

    def ttl_ms(self, t: Tournament, counts: dict[str, int]) -> int:
        """How long a tournament is kept after its last change: a day
        (``--lobby-ttl``) while nobody has registered, then ``--tournament-ttl``;
        and a day past its last set start time."""
        kept = (self.config.tournament_ttl if counts.get("players") else self.config.lobby_ttl) * 1000
        now = self.now_ms()
        ahead = [at for at in t.settings.starts if at > now]
        if ahead:
            kept = max(kept, max(ahead) - now + self.config.lobby_ttl * 1000)
        return kept

    @staticmethod
    def view(t: Tournament) -> View:
        """How the tournament shows itself (:mod:`.public_views`)."""
        return view_for(t.settings)

    async def load(self, tournament_id: str) -> TournamentData:
        """The tournament as stored (``unknown_room`` if there is none); one
        stored before its players moved out of its document is moved now."""
        tid = tournament_id.strip().upper()
        data = await self.store.tournaments.load_tournament_data(tid)
        if data is not None and data.legacy:
            await migrate(self.store, data, ttl_ms=TOURNAMENT_TTL_MS)
            data = await self.store.tournaments.load_tournament_data(tid)
        if data is None:
            raise RaceError(Reason.UNKNOWN_ROOM, "there is no such tournament")
        return data

    async def public(self, t: Tournament, counts: dict[str, int]) -> dict[str, Any]:
        """The tournament as anyone may see it now."""
        return await self.view(t).public(self, t, counts)

    async def round_room(self, room_id: str) -> tuple[list[int], list[Entry] | None] | None:
        """A round's room: its seated players and, once ended, its results."""
        known = self._ended.get(room_id)
        if known is not None:
            return known
        data = await self.store.rooms.load(room_id)
        if data is None:
            return None
        seats = policy_for(data.room.settings).seats
        found = (await seats.seated_players(self.rooms, data), data.room.results)
        if data.room.phase == "ended":
            if len(self._ended) >= _KEPT_ROUNDS:
                self._ended.clear()
            self._ended[room_id] = found
        return found

    async def change(self, tournament_id: str, step: RoundStep) -> TournamentData:
        """Run ``step`` (which changes the tournament and returns its event)
        until its commit lands."""
        for _ in range(ATTEMPTS):
            data = await self.load(tournament_id)
            t, now = data.t, self.now_ms()
            event = step(t, now, data.counts)
            events = [] if event is None else [
                tournament_event(event, await self.public(t, data.counts), now)]
            committed = await self.store.tournaments.commit_tournament(
                t, data.rv, events, ttl_ms=self.ttl_ms(t, data.counts))
            if committed.ok:
                return data
        raise StoreUnavailable("the tournament kept changing; try again")

    async def announce(self, tournament_id: str, event: dict[str, Any]) -> TournamentData:
        """Record an event that changes nothing in the header (what happened
        to a player): the tournament as it shows itself now goes with it."""
        return await self.change(tournament_id, lambda t, now, counts: event)

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
        counts = {"players": 0, "withdrawn": 0, "kicked": 0}
        for _ in range(ATTEMPTS):
            now = self.now_ms()
            t = Tournament.create(new_room_id(), name, settings, admin, now=now, invite=invite)
            event = tournament_event({"kind": "created"}, await self.public(t, counts), now)
            committed = await self.store.tournaments.commit_tournament(
                t, None, [event], ttl_ms=self.ttl_ms(t, counts),
                fields={"max": settings.max_players, "next": 0, **counts})
            if committed.ok:
                log.info("tournament_created", tournament=t.id, rounds=len(t.rounds),
                         max_players=settings.max_players)
                await self.rounds.look(t.id)
                return t, admin, invite
        raise StoreUnavailable("could not find a free tournament id")

    async def register(self, tournament_id: str, nickname: str,
                       invite: str | None = None) -> tuple[Tournament, int, str]:
        """A new player: their number and token. Their line starts with the
        rounds already started counted as missed; which those are is the
        store's to say (a round may start meanwhile): it gets one line per
        possible first round."""
        token = new_token()
        t = (await self.load(tournament_id)).t
        name = check_nickname(nickname)
        lines = []
        for first in range(1, len(t.rounds) + 1):
            line = standing_line(0, "", first)
            lines.append((standing_tail(line), standing_score(line)))
        got = await self.store.tournaments.register_player(
            t.id, nickname=name, fold=fold(name), token_hash=hash_token(token),
            registered=self.now_ms(), invited=t.invite_ok(invite), lines=lines,
            ttl_ms=self.ttl_ms(t, {"players": 1}))
        if got.status == "name_taken":
            taken = await self.store.tournaments.player_records(t.id, [got.player])
            raise RaceError(Reason.NAME_TAKEN, taken_text(
                name, str(taken.get(got.player, {}).get("nickname", name)), "this tournament"))
        if got.status != "ok":
            reason, text = _REGISTER_REFUSED[got.status]
            raise RaceError(reason, text)
        if self.view(t).announces_players:
            await self.announce(t.id, {"kind": "registered", "player": got.player,
                                       "nickname": name})
        return t, got.player, token

    async def player_of(self, tournament_id: str, token: str) -> tuple[Tournament, int] | None:
        """The tournament and the number of the player holding ``token``
        (``None``: nobody, or kicked)."""
        t = (await self.load(tournament_id)).t
        found = await self.store.tournaments.token_player(t.id, hash_token(token), 1)
        return None if found is None else (t, found.player)

    async def close(self, tournament_id: str, admin: str) -> None:
        def step(t: Tournament, now: int, _: dict[str, int]) -> dict[str, Any]:
            t.check_admin(admin)
            return t.close_registration(now=now)

        await self.change(tournament_id, step)

    async def start_round(self, tournament_id: str, admin: str, at: int | None) -> Tournament:
        """The next round, at the server time ``at`` (ms) or after the countdown."""
        (await self.load(tournament_id)).t.check_admin(admin)
        return (await self.rounds.start(tournament_id, at, admin=admin)).t

    async def end_round(self, tournament_id: str, admin: str) -> None:
        """The organizer ends the round being played now (players still
        playing are unfinished): for no-shows, or a round that drags on."""
        t = (await self.load(tournament_id)).t
        t.check_admin(admin)
        current = t.current()
        if current is None or current.status != "running" or current.room is None:
            raise RaceError(Reason.NOT_PLAYING, "no round is being played")
        await self.rooms.end_race(current.room, now_anyway=True)

    async def withdraw(self, tournament_id: str, token: str) -> tuple[str, int]:
        """The player holding ``token`` leaves the tournament: the tournament's
        id and their number. They are out of the round being played (status
        ``left``) and of those to come, and stay in the standings, marked."""
        t = (await self.load(tournament_id)).t
        status, player = await self.store.tournaments.take_out_player(t.id, kind="withdrawn",
                                                          token_hash=hash_token(token))
        if status == "unknown":
            raise RaceError(Reason.BAD_TOKEN)
        if status == "already":
            raise RaceError(Reason.NOT_PLAYING, "you have already withdrawn")
        if self.view(t).announces_players:
            await self.announce(t.id, {"kind": "withdrawn", "player": player})
        # the header as it is now: a round may have started meanwhile
        await self.rounds.take_out((await self.load(t.id)).t, player, kick=False)
        return t.id, player

    async def kick(self, tournament_id: str, admin: str, player: int, *, ban: bool) -> None:
        """The organizer removes a player: out of the standings, of the round
        being played and of those to come; ``ban`` refuses their nickname.
        Not once every round has been played: the standings are final."""
        t = (await self.load(tournament_id)).t
        t.check_admin(admin)
        t.check_not_over()
        status, _ = await self.store.tournaments.take_out_player(t.id, kind="kicked", player=player, ban=ban)
        if status == "unknown":
            raise RaceError(Reason.UNKNOWN_SEAT, f"there is no player {player} in this tournament")
        data = await self.announce(t.id, {"kind": "kicked", "player": player, "ban": ban})
        await self.rounds.take_out(data.t, player, kick=True)
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
        """Finish what a round's start or end left undone (see :mod:`.rounds`)."""
        await self.rounds.settle(t)

    async def sweep(self) -> None:
        """Settle the tournaments due a look, whichever process has their connections."""
        await self.rounds.sweep()

    # ------------------------------------------------------------------ standings

    async def standings_top(self, tournament_id: str) -> dict[str, Any]:
        """``{"id", "standings"}`` as the tournament shows them (its top lines
        with ``of``, how many are ranked, where it shows its top)."""
        t = (await self.load(tournament_id)).t
        return await self.view(t).top(self, t)

    async def standings_page(self, tournament_id: str, first: int, count: int
                             ) -> tuple[str, int, list[dict[str, Any]]]:
        """The tournament's id, how many are ranked, and the standings from
        rank ``first`` on."""
        t = (await self.load(tournament_id)).t
        of, lines = await self.view(t).page(self, t, first, count)
        return t.id, of, lines

    async def find(self, tournament_id: str, nickname: str) -> tuple[str, dict[str, Any] | None]:
        """A player's place by nickname: ``{"player", "rank", "line"}``."""
        t = (await self.load(tournament_id)).t
        return t.id, await self.view(t).find(self, t, nickname)

    async def near(self, tournament_id: str, players: list[int]) -> list[bytes | None]:
        """The standings around these players."""
        return await self.store.ranks.standings_near(tournament_id, players)

    # ------------------------------------------------------------------ results

    async def results(self, tournament_id: str, first: int | None = None,
                      count: int | None = None) -> dict[str, Any]:
        """The standings and the rounds (whole, or a page, as the tournament shows them)."""
        data = await self.load(tournament_id)
        return await self.view(data.t).results(self, data, first, count)

    async def results_csv(self, tournament_id: str, first: int | None = None,
                          count: int | None = None) -> str:
        t = (await self.load(tournament_id)).t
        return await self.view(t).results_csv(self, t, first, count)

    async def replay(self, tournament_id: str, n: int, player: int, first: int = 0,
                     count: int = PAGE_MAX) -> bytes:
        """A page of a player's round, once the round has ended, as JSON: the
        code, and the board after each stored command from step ``first``
        (0: the deal), ``of`` steps in all (see :mod:`.replays`)."""
        t = (await self.load(tournament_id)).t
        if not 0 < n <= len(t.rounds) or t.rounds[n - 1].status != "ended":
            raise RaceError(Reason.NOT_ENDED, f"round {n} has not ended")
        r = t.rounds[n - 1]
        data = await self.store.rooms.load(r.room) if r.room is not None else None
        if (data is None or r.room is None or not 0 <= player < (r.players or 0) or not await
                policy_for(data.room.settings).seats.has_player(self.rooms, data, player)):
            raise RaceError(Reason.UNKNOWN_SEAT, f"player {player} did not play round {n}")
        if not 1 <= count <= PAGE_MAX:
            raise RaceError(Reason.BAD_FIELD, f"count is from 1 to {PAGE_MAX} steps")
        code = t.code(n)
        page = await self.replays.page(r.room, 1, player, code, first, count)
        head = orjson.dumps({"tournament": t.id, "round": n, "player": player, "code": code,
                             "first": page.first, "of": page.of})
        return head[:-1] + b',"steps":' + page.steps + b"}"

