"""How a tournament shows itself: the one thing a club night of 8 and a cup
of 10 000 do differently, chosen once from its settings (:func:`view_for`)
when it is created. Both read the same model (a header, the players and the
standing lines in the store: server/store/keys.py).

- :class:`EveryoneView` (a field of a few, up to 16): its events carry the
  tournament whole, every player and every line of the standings, each
  round's seats and results; registrations and withdrawals are events.
- :class:`TopView` (more): its events carry the header, the counts and the
  top of the standings; registrations are counted, not announced (a
  hub polls the counts: ``t_field``), a withdrawal is answered to its sender
  (``t_withdrawn``), and each player gets their own place (``t_me``).
  Results come a page at a time.
"""

from __future__ import annotations

from typing import Any, Final, Protocol

import orjson

from ...protocol import Reason, frame
from ...race import Entry, RaceError, check_nickname
from ...race.names import fold, same_name
from ...race.standings import everyone_csv, everyone_standings, page_csv
from ...race.tournament import Round, Tournament
from ...race.tournament_settings import TournamentSettings
from ...store import Store, TournamentData

DEFAULT_PAGE: Final = 100  # standings lines in a page of results, unless asked
MAX_PAGE: Final = 1000
EVERYONE: Final = 1000  # lines read at once where the standings show everyone


class Reads(Protocol):
    """What a view reads through the tournament service."""

    store: Store

    def now_ms(self) -> int: ...

    async def round_room(self, room_id: str) -> tuple[list[int], list[Entry] | None] | None: ...


def _lines(raw: list[bytes], first: int) -> list[Entry]:
    return [{**orjson.loads(line), "rank": first + i} for i, line in enumerate(raw)]


def _page(first: int | None, count: int | None) -> tuple[int, int]:
    first = 1 if first is None else first
    count = DEFAULT_PAGE if count is None else count
    if first < 1 or not 1 <= count <= MAX_PAGE:
        raise RaceError(Reason.BAD_FIELD, f"first is 1 or more and count from 1 to {MAX_PAGE}")
    return first, count


def _codes(t: Tournament) -> list[str]:
    return [t.code(r.n) for r in t.ended()]


class EveryoneView:
    """Standings that show everyone (see the module's docstring)."""

    announces_players: Final = True  # registrations and withdrawals are events
    sends_places: Final = False  # everyone's line is in the standings
    polls_counts: Final = False  # the counts change with events

    async def _all_lines(self, reads: Reads, t: Tournament) -> list[Entry]:
        _, raw = await reads.store.ranks.standings_page(t.id, 1, EVERYONE)
        return [orjson.loads(line) for line in raw]

    async def standings(self, reads: Reads, t: Tournament) -> list[Entry]:
        """Every player's line over the ended rounds, ranked."""
        return everyone_standings(await self._all_lines(reads, t), len(t.ended()))

    async def _rounds(self, reads: Reads, t: Tournament, records: dict[int, dict[str, Any]],
                      out: dict[int, str]) -> list[dict[str, Any]]:
        rounds = []
        for r in t.rounds:
            item: dict[str, Any] = {"n": r.n, "status": r.status, "room": r.room,
                                    "start_at": r.start_at, "ended_at": r.ended_at,
                                    "seats": await self._seats(reads, r, records, out)}
            if r.status == "ended":
                item["code"] = t.code(r.n)
                found = await reads.round_room(r.room) if r.room else None
                item["results"] = found[1] if found else None
            rounds.append(item)
        return rounds

    async def _seats(self, reads: Reads, r: Round, records: dict[int, dict[str, Any]],
                     out: dict[int, str]) -> list[int]:
        """A round's players seated from its start: its room's; before its
        room exists, those who may play it and are not out."""
        if r.status == "pending":
            return []
        found = await reads.round_room(r.room) if r.room and r.status != "starting" else None
        if found is not None:
            return found[0]
        return [p for p, record in records.items() if record.get("first", 1) <= r.n and p not in out]

    async def public(self, reads: Reads, t: Tournament, counts: dict[str, int]) -> dict[str, Any]:
        """The tournament whole: no tokens, and a round's code and results
        only once that round has ended."""
        records = await reads.store.tournaments.player_records(t.id)
        out = await reads.store.tournaments.out_players(t.id)
        players = []
        for p, record in records.items():
            shown: dict[str, Any] = {"player": p, "nickname": record["nickname"],
                                     "withdrawn": out.get(p) == "withdrawn"}
            if out.get(p) == "kicked":
                shown["kicked"] = True
            players.append(shown)
        header = t.header(reads.now_ms())
        now = header.pop("now")
        return {**header, "players": players, "rounds": await self._rounds(reads, t, records, out),
                "standings": await self.standings(reads, t), "now": now}

    async def top(self, reads: Reads, t: Tournament) -> dict[str, Any]:
        """``t_standings``: the whole standings."""
        return {"id": t.id, "standings": await self.standings(reads, t)}

    async def page(self, reads: Reads, t: Tournament, first: int, count: int
                   ) -> tuple[int, list[Entry]]:
        table = await self.standings(reads, t)
        return len(table), table[first - 1:first - 1 + count]

    async def find(self, reads: Reads, t: Tournament, nickname: str) -> dict[str, Any] | None:
        name = check_nickname(nickname)
        for line in await self.standings(reads, t):
            if same_name(line["nickname"], name):
                return {"player": line["player"], "rank": line["rank"], "line": line}
        return None

    async def results(self, reads: Reads, data: TournamentData, first: int | None,
                      count: int | None) -> dict[str, Any]:
        """Whole, always (``first`` and ``count`` are ignored)."""
        public = await self.public(reads, data.t, data.counts)
        return {"id": data.t.id, "name": data.t.name, "rounds": public["rounds"],
                "standings": public["standings"]}

    async def results_csv(self, reads: Reads, t: Tournament, first: int | None,
                          count: int | None) -> str:
        return everyone_csv(await self._all_lines(reads, t), _codes(t))

    def withdrawn_answer(self, tournament_id: str, player: int) -> bytes | None:
        """Nothing: the ``withdrawn`` event says it to everyone."""
        return None


class TopView:
    """Standings that show their top and each player's place (see the
    module's docstring)."""

    announces_players: Final = False  # counted, not announced
    sends_places: Final = True  # t_me
    polls_counts: Final = True  # t_field, at most once a tick

    async def public(self, reads: Reads, t: Tournament, counts: dict[str, int]) -> dict[str, Any]:
        """The header, how many registered, and the ``top`` lines of the standings."""
        rounds = []
        for r in t.rounds:
            item: dict[str, Any] = {"n": r.n, "status": r.status, "room": r.room,
                                    "start_at": r.start_at, "ended_at": r.ended_at,
                                    "players": r.players}
            if r.status == "ended":
                item["code"], item["played"] = t.code(r.n), r.played
            rounds.append(item)
        header = t.header(reads.now_ms())
        now = header.pop("now")
        return {**header, "field": dict(counts), "rounds": rounds,
                "top": (await self.page(reads, t, 1, t.settings.top))[1], "now": now}

    async def top(self, reads: Reads, t: Tournament) -> dict[str, Any]:
        """``t_standings``: the top lines, and how many are ranked."""
        of, lines = await self.page(reads, t, 1, t.settings.top)
        return {"id": t.id, "standings": lines, "of": of}

    async def page(self, reads: Reads, t: Tournament, first: int, count: int
                   ) -> tuple[int, list[Entry]]:
        of, raw = await reads.store.ranks.standings_page(t.id, first, count)
        return of, _lines(raw, first)

    async def find(self, reads: Reads, t: Tournament, nickname: str) -> dict[str, Any] | None:
        found = await reads.store.ranks.standings_find(t.id, fold(check_nickname(nickname)))
        if found is None:
            return None
        player, rank, raw = found
        if raw is None:  # kicked: out of the standings
            return None
        return {"player": player, "rank": rank, "line": {**orjson.loads(raw), "rank": rank}}

    async def results(self, reads: Reads, data: TournamentData, first: int | None,
                      count: int | None) -> dict[str, Any]:
        """A page: ``first``, ``count`` (100 by default), ``of`` how many are ranked."""
        first, count = _page(first, count)
        of, lines = await self.page(reads, data.t, first, count)
        public = await self.public(reads, data.t, data.counts)
        return {"id": data.t.id, "name": data.t.name, "rounds": public["rounds"], "first": first,
                "of": of, "standings": lines}

    async def results_csv(self, reads: Reads, t: Tournament, first: int | None,
                          count: int | None) -> str:
        first, count = _page(first, count)
        return page_csv((await self.page(reads, t, first, count))[1], _codes(t))

    def withdrawn_answer(self, tournament_id: str, player: int) -> bytes | None:
        """``t_withdrawn``: no event to everyone, so an answer of its own."""
        return frame("t_withdrawn", {"id": tournament_id, "player": player})


View = EveryoneView | TopView
_EVERYONE: Final = EveryoneView()
_TOP: Final = TopView()


def view_for(settings: TournamentSettings) -> View:
    """How a tournament with these settings shows itself (they never change).

    >>> from server.race.tournament import TournamentSettings as S
    >>> type(view_for(S(codes=()))).__name__, type(view_for(S(codes=(), max_players=500))).__name__
    ('EveryoneView', 'TopView')
    """
    return _TOP if settings.big else _EVERYONE
