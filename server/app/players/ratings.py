"""Ratings: each rated race's outcome applied to its players, exactly once.

When a rated race ends (a quick race, or a public room its host made rated:
``Settings.rated``), :meth:`Ratings.race_over` (one of the rooms'
``on_race_over``):

1. reads the race's results for the seats linked to players (the same
   reading as their histories': :func:`.race_results.race_results`), places
   those who began (:func:`server.race.rating.placings`) and, with two or
   more, rates them from their ratings now (:func:`server.race.rating.rate`);
2. records that outcome in the room's slot, first-come
   (:meth:`~server.store.rating_state.RatingState.outcome`): whichever
   process computed it first, every process applies that one;
3. applies it to each player (``r_apply``, once per player and race: a
   repeat finds the race in the player's rating history and changes
   nothing), and puts each player no longer provisional in the family's
   top list;
4. writes each rated seat's rating and change into the race's results (a
   ``rated`` room event: every client of the room sees them, a client that
   reconnects too).

The rooms call it again from the sweeper when the process that ended the
race died (or Redis failed) before the room left the sweepers' index, so a
race whose outcome is recorded but not yet applied everywhere is finished
by whichever process sweeps it next. A player in two seats of one race
(one key, two tabs) is not rated by it.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections import Counter
from collections.abc import Callable
from typing import Any, Final

import structlog

from ...race import RaceError, Room
from ...race.rating import FAMILIES, Rating, family_of, placings, rate, shown
from ...store import Store
from ...store.rating_state import RatedRace
from ..rooms.room_plans import Plan, RoomWork, room_event
from .race_results import race_results

log = structlog.get_logger("app.players.ratings")

TOP_MAX: Final = 100  # lines of a top list in one page
CHART: Final = 50  # rated races a player's public page shows


class _Unchanged(Exception):
    """A step with nothing to write."""


def change_of(mu_before: float, mu_after: float) -> int:
    """The change players see: the shown rating's difference."""
    return shown(mu_after) - shown(mu_before)


def rating_view(rating: Rating) -> dict[str, Any]:
    """A rating as the API and frames show it."""
    return {"rating": rating.shown, "provisional": rating.provisional, "races": rating.races}


def rated_race_view(entry: RatedRace) -> dict[str, Any]:
    return {"ref": entry.ref, "family": entry.family, "at": entry.at,
            "rating": shown(entry.mu_after), "change": change_of(entry.mu_before, entry.mu_after),
            "place": entry.place, "of": entry.of}


class Ratings:
    """Rated races' outcomes, players' ratings, the top lists."""

    def __init__(self, store: Store, rooms: RoomWork, now_ms: Callable[[], int],
                 ttl_ms: Callable[[Room], int]) -> None:
        self.store = store
        self.rooms = rooms
        self.now_ms = now_ms
        self.room_ttl_ms = ttl_ms

    async def race_over(self, room: Room) -> None:
        """A room's race has ended (or is looked at again by a sweeper):
        apply its outcome, once (see the module's docstring). Redis's
        trouble goes up: the sweeper calls again."""
        if room.phase != "ended" or not room.settings.rated:
            return
        outcome = await self.store.ratings.recorded(room.id, room.race)
        if outcome is None:
            outcome = await self.store.ratings.outcome(
                room.id, room.race, await self._compute(room), ttl_ms=self.room_ttl_ms(room))
        if not outcome["p"]:
            return
        seats = await self._apply(room, outcome)
        if seats:
            await self._show(room, {seat: view for seat, (view, _) in seats.items()},
                             {seat: label for seat, (_, label) in seats.items()})
        log.info("race_rated", room=room.id, race=room.race, players=len(outcome["p"]))

    async def _compute(self, room: Room) -> dict[str, Any]:
        """The race's outcome from the players' ratings now."""
        family = family_of(room.settings.draw)
        linked, _ = await self.store.players.seat_players(room.id)
        results = await race_results(self.rooms, room, linked)
        twice = {p for p, n in Counter(p for p, _ in results).items() if n > 1}
        lines = [(p, r.status, r.place or 0) for p, r in results if p not in twice]
        placed = placings(lines)
        seat_of = {p: seat for seat, p in linked.items()}
        if len(placed) < 2:
            return {"f": family, "at": room.ended_at or 0, "p": []}
        read = await asyncio.gather(*(self.store.ratings.ratings(p, [family]) for p, _ in placed))
        before = [r[family] for r in read]
        after = rate([(rating, place) for (rating, _), (_, place) in zip(before, placed, strict=True)])
        return {"f": family, "at": room.ended_at or 0, "of": len(placed),
                "p": [[p, seat_of[p], place, text, a.mu, a.sigma]
                      for (p, place), (_, text), a in zip(placed, before, after, strict=True)]}

    async def _apply(self, room: Room, outcome: dict[str, Any]
                     ) -> dict[int, tuple[dict[str, Any], str]]:
        """Apply the outcome to each player: each seat's rating now and
        change, and its label (``"1514?"``)."""
        family, at, of = outcome["f"], outcome["at"], outcome["of"]

        async def one(player: str, seat: int, place: int, read: str, mu: float, sigma: float
                      ) -> tuple[int, tuple[dict[str, Any], str]] | None:
            done = await self.store.ratings.apply(
                player, family, f"{room.id}/{room.race}", read=read, after=Rating(mu, sigma),
                at=at, place=place, of=of)
            if done is None:  # forgotten meanwhile
                return None
            rating = done.rating
            await self.store.ratings.rank(family, player,
                                          None if rating.provisional else rating.shown)
            view = {**rating_view(rating), "change": change_of(done.mu_before, rating.mu)}
            return seat, (view, rating.label())

        got = await asyncio.gather(*(one(*line) for line in outcome["p"]))
        return dict(g for g in got if g is not None)

    async def _show(self, room: Room, seats: dict[int, dict[str, Any]],
                    labels: dict[int, str]) -> None:
        """Each rated seat's rating and change into the race's results, and
        its new label beside the player (the next race's lines show it)."""
        race = room.race

        def step(data: Any, now: int) -> Plan:
            ended = data.room
            if ended.race != race or ended.phase != "ended" or not ended.results:
                raise _Unchanged  # moved on: nothing to show
            if all("rating" in line for line in ended.results if int(line["seat"]) in seats):
                raise _Unchanged  # shown already
            for line in ended.results:
                if int(line["seat"]) in seats:
                    line.update(seats[int(line["seat"])])
            for player in ended.players:
                if player.seat in labels:
                    player.rating = labels[player.seat]
            event = {"kind": "rated", "race": race,
                     "ratings": {str(seat): view for seat, view in seats.items()}}
            return Plan([room_event(event, ended, now)],
                        self.store.rooms.changes(room.id).expire(self.room_ttl_ms(ended)))

        with contextlib.suppress(_Unchanged, RaceError):  # (unknown_room: gone meanwhile)
            await self.rooms.change(room.id, step)

    # ------------------------------------------------------------------ reading

    async def of_player(self, player_id: str) -> dict[str, dict[str, Any]]:
        """The player's rating in each family."""
        found = await self.store.ratings.ratings(player_id, FAMILIES)
        return {f: rating_view(r) for f, (r, _) in found.items()}

    async def rating_of(self, player_id: str, draw: int) -> Rating:
        """The player's rating in the family of a draw count (a quick race
        pairs by its shown figure, a rated room shows its label beside
        them; the family of draw one for a bad draw, refused later)."""
        family = family_of(draw if draw in (1, 3) else 1)
        (rating, _), = (await self.store.ratings.ratings(player_id, [family])).values()
        return rating

    async def public(self, player_id: str) -> dict[str, Any]:
        """What a player's public page shows of their ratings: each
        family's, and their last :data:`CHART` rated races (the day only,
        no room)."""
        ratings = await self.of_player(player_id)
        _, page = await self.store.ratings.history(player_id, 0, CHART)
        rated = [{"family": e.family, "day": e.at // 86_400_000, "rating": shown(e.mu_after),
                  "change": change_of(e.mu_before, e.mu_after), "place": e.place, "of": e.of}
                 for e in page]
        return {"ratings": ratings, "rated": rated}

    async def history(self, player_id: str, first: int, count: int
                      ) -> tuple[int, list[dict[str, Any]]]:
        total, page = await self.store.ratings.history(player_id, first, count)
        return total, [rated_race_view(e) for e in page]

    async def top(self, family: str, first: int, count: int) -> tuple[int, list[dict[str, Any]]]:
        """A page of the family's top list: place, player, nickname, rating.
        A player gone (forgotten, expired) met here leaves the list."""
        total, page = await self.store.ratings.top(family, first, count)
        names = await asyncio.gather(*(self.store.players.player_nickname(p) for p, _ in page))
        lines = []
        for i, ((player, rating), name) in enumerate(zip(page, names, strict=True)):
            if name is None:
                await self.store.ratings.unrank([family], player)
                continue
            lines.append({"place": first + i + 1, "id": player, "nickname": name, "rating": rating})
        return total, lines

    async def forget(self, player_id: str) -> None:
        """A forgotten player leaves every top list."""
        await self.store.ratings.unrank(FAMILIES, player_id)
