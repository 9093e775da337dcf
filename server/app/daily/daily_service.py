"""The daily deal: a challenge the server opens for each UTC day and each
daily mode (``--daily-modes``), played once, ranked, by each player.

Nothing here is a second implementation of a room: a day's deal of a mode
is a room of the ``many challenge`` policy opened by
:meth:`Rooms.open_challenge <server.app.rooms.room_service.Rooms.open_challenge>`
under an id derived from the day and the mode (so that every process opens
the same one, whichever comes first), from the day's 00:00 UTC to its end.
Joining it, beginning, playing, the ghosts, the leaderboard (its top lines,
a player's place and the lines around it, pages, look-ups by nickname), the
end at the window's close, the code and replays once it has closed, and the
players' results are the room's and the players' own. What this adds:

- **one ranked attempt per player and day and mode**: a seat may begin
  only if its player (the first identified player who held it) has no other
  attempt in that room (``before_begin``: the store's ``d:{P}``, set once);
- **attempts per address and day** capped (``--daily-per-address``, over
  every process), counted when a seat is taken;
- **players ranked per address and day and mode** capped
  (``--daily-ranked-per-address``, a household), and a player made within
  ``--daily-fresh`` seconds (a day) ranks only while nobody of their address does: the
  others play the same deal in the day's **practice room** (its twin,
  opened with the same code: played, shown as practice, never ranked, its
  code secret until the day's end like the ranked room's);
- **a nickname already in the day's field** gets a number (``ann 2``):
  a field of thousands shares few names;
- **the result so far** recorded as soon as a player's own game is over
  (``on_game_over``), so that their streak counts today at once; the
  room's end records it again, with the final place and the code;
- what the lobby and the public API show of a day (:meth:`DailyDeals.today`,
  :meth:`DailyDeals.day_page`).
"""

from __future__ import annotations

import asyncio
import secrets
import time
from collections.abc import Callable
from typing import Any, Final

import orjson
import structlog

from ...protocol import Reason
from ...race import RaceError, Settings
from ...race.daily import daily_settings, day_bounds, day_of, past_days
from ...race.leaderboard import public_line, seen_line
from ...race.names import MAX_NICKNAME, check_nickname, fold
from ...race.profile import MODES, day_number, own_game_result
from ...race.seating import final_line
from ...store import RoomData, Store, StoreUnavailable
from ..ground.config import Config
from ..players.player_service import Players
from ..rooms.ids import daily_room_id
from ..rooms.room_service import Rooms

log = structlog.get_logger("app.daily")

OPEN_EVERY_S: Final = 10.0  # how often a process looks whether today's deals are open
NAME_TRIES: Final = 8  # nicknames tried in a day's field before giving up (name_taken)
PAGE_MAX: Final = 100  # lines in one page of the public API
NOT_OPEN_S: Final = 5.0  # how long "not open yet" (no certified deal ready) is remembered
_NOT_OPEN: Final = ("today's deal of this mode is not open yet: no certified winnable deal is "
                    "ready; try again in a little while")


class DailyDeals:
    """Today's deals, their attempts, and what anyone may see of a day."""

    def __init__(self, rooms: Rooms, players: Players, store: Store, config: Config,
                 now_ms: Callable[[], int]) -> None:
        self.rooms, self.players, self.store = rooms, players, store
        self.config, self.now_ms = config, now_ms
        self.modes: tuple[str, ...] = config.daily_modes
        self._past: tuple[str, list[dict[str, Any]]] | None = None  # (today, past days kept)
        self._refused: set[tuple[str, str]] = set()  # (day, mode) whose opening was logged
        self._closed: dict[tuple[str, str], float] = {}  # (day, mode) -> not open until (monotonic)
        self._opening: dict[tuple[str, str], asyncio.Task[RoomData | None]] = {}
        rooms.before_begin.append(self.before_begin)
        rooms.on_game_over.append(self.game_over)

    def today(self) -> str:
        return day_of(self.now_ms())

    def check_mode(self, mode: str) -> str:
        """A daily mode of this server, or ``no_daily``."""
        mode = mode.strip().upper()
        if mode not in self.modes:
            raise RaceError(Reason.NO_DAILY, f"there is no daily deal of mode {mode[:8]!r}: "
                                             f"the modes are {', '.join(self.modes) or 'none'}")
        return mode

    # ------------------------------------------------------------------ the rooms

    async def room_of(self, day: str, mode: str, *, open_it: bool = False) -> RoomData | None:
        """The room of ``day``'s deal of ``mode``, if there is one; with
        ``open_it``, today's is opened if it is not yet (``no_winnable_deal``
        while no certified deal of the mode is ready). A request never polls:
        while today's is not open, at most one opening is tried by this
        process at a time (others asking meanwhile share its outcome), and
        an opening refused for want of a deal is remembered for
        :data:`NOT_OPEN_S` seconds, in which asking costs no Redis command."""
        room_id = daily_room_id(day, mode)
        today = day == self.today() and mode in self.modes
        if today and self._not_open(day, mode):
            if open_it:
                raise RaceError(Reason.NO_WINNABLE_DEAL, _NOT_OPEN)
            return None
        data = await self.store.rooms.load(room_id)
        if data is None and open_it and today:
            opening = self._opening.get((day, mode))
            if opening is None:
                opening = asyncio.create_task(self._open(day, mode, room_id),
                                              name=f"daily-open-{mode}")
                self._opening[day, mode] = opening
                opening.add_done_callback(self._opened)
            data = await asyncio.shield(opening)
        if data is None or data.room.settings.daily != day:
            return None
        return data

    def _opened(self, task: asyncio.Task[RoomData | None]) -> None:
        """An opening try is over: the next request may try again (its
        outcome was given to those who waited; taken here too, so that a
        try nobody waits for any more is not reported as never looked at)."""
        self._opening = {k: t for k, t in self._opening.items() if t is not task}
        if not task.cancelled():
            task.exception()

    def _not_open(self, day: str, mode: str) -> bool:
        until = self._closed.get((day, mode))
        return until is not None and until > time.monotonic()

    async def _open(self, day: str, mode: str, room_id: str) -> RoomData | None:
        """Open today's room of ``mode`` (this process's one try at a time):
        ``no_winnable_deal`` while no certified deal is ready, remembered
        for :data:`NOT_OPEN_S` seconds. The pool's last code may have been
        another process's, opening this room now: it is looked for once,
        and the next try finds it."""
        start, _ = day_bounds(day)
        settings = daily_settings(day, mode, time_limit=self.config.daily_time_limit)
        try:
            await self.rooms.open_challenge(settings, room_id=room_id, opens_at=start)
            log.info("daily_opened", day=day, mode=mode, room=room_id)
        except RaceError as exc:
            if exc.reason is not Reason.NO_WINNABLE_DEAL:
                raise
            data = await self.store.rooms.load(room_id)
            if data is None:
                self._closed = {k: t for k, t in self._closed.items() if k[0] == day}
                self._closed[day, mode] = time.monotonic() + NOT_OPEN_S
                raise
            return data
        return await self.store.rooms.load(room_id)

    async def open_today(self) -> None:
        """Open today's deals that are not yet (each process looks now and
        then: the first opens them, the others find them)."""
        day = self.today()
        for mode in self.modes:
            try:
                await self.room_of(day, mode, open_it=True)
            except RaceError as exc:  # no winnable deal ready yet: the next look tries again
                if (day, mode) not in self._refused:
                    self._refused = {(d, m) for d, m in self._refused if d == day} | {(day, mode)}
                    log.warning("daily_not_opened", day=day, mode=mode, reason=exc.reason.value)

    async def run(self) -> None:
        """Keep today's deals open, as days come (a background task)."""
        while True:
            try:
                await self.open_today()
            except StoreUnavailable:
                log.info("daily_open_deferred")
            except Exception:  # a bug: logged, and the next look tries again
                log.exception("daily_open_failed")
            await asyncio.sleep(OPEN_EVERY_S)

    # ------------------------------------------------------------------ attempts

    async def join(self, player_id: str, address: str, mode: str, nickname: str
                   ) -> tuple[str, int, str]:
        """A seat in today's deal of ``mode`` for the player: the room, the
        seat and its token. Refused: no player (``not_identified``), an
        attempt already begun (``daily_played``), too many seats taken from
        the address today (``too_many``)."""
        if not player_id:
            raise RaceError(Reason.NOT_IDENTIFIED, "the daily deal is played as a player: "
                                                   "identify first")
        mode = self.check_mode(mode)
        name = check_nickname(nickname)
        day = self.today()
        data = await self.room_of(day, mode, open_it=True)
        if data is None:  # (opening it raised when it could not)
            raise RaceError(Reason.NO_DAILY)
        room_id = data.room.id
        if await self.store.daily.daily_attempt(room_id, player_id) is not None:
            raise RaceError(Reason.DAILY_PLAYED)
        cap = self.config.daily_per_address
        made, counted = await self.store.daily.count_daily_attempt(
            day, address, left_ms=day_bounds(day)[1] - self.now_ms(), cap=cap)
        if counted and made == cap:
            log.warning("daily_attempts_capped", address=address, day=day, cap=cap)
        if not counted:
            raise RaceError(Reason.TOO_MANY, f"at most {cap} daily attempts a day from one "
                                             "address: try again tomorrow")
        if not await self._may_rank(day, mode, address, player_id):
            room_id = await self._practice_room(day, mode, data)
        for candidate in _names(name):
            try:
                seat, token, _ = await self.rooms.join(room_id, candidate)
            except RaceError as exc:
                if exc.reason is not Reason.NAME_TAKEN:
                    raise
                continue
            return room_id, seat, token
        raise RaceError(Reason.NAME_TAKEN, f"{name!r} and its numbered forms are taken in "
                                           "today's field: choose another nickname")

    async def _may_rank(self, day: str, mode: str, address: str, player_id: str) -> bool:
        """Whether the player's attempt ranks, from ``address`` (see the
        module's docstring); a ranked place of the address taken if so."""
        made = await self.players.made_at(player_id)
        fresh = made is None or made > self.now_ms() - self.config.daily_fresh * 1000
        return await self.store.daily.may_rank(
            day, mode, address, player_id, cap=self.config.daily_ranked_per_address,
            left_ms=day_bounds(day)[1] - self.now_ms(), fresh=fresh)

    async def _practice_room(self, day: str, mode: str, ranked: RoomData) -> str:
        """The day's practice room of ``mode``: opened with the ranked room's
        code if it is not yet (every process opens the same one)."""
        room_id = daily_room_id(day, mode, practice=True)
        if await self.store.rooms.load(room_id) is None:
            start, _ = day_bounds(day)
            settings = daily_settings(day, mode, time_limit=self.config.daily_time_limit,
                                      practice=ranked.room.code)
            await self.rooms.open_challenge(settings, room_id=room_id, opens_at=start)
        return room_id

    async def before_begin(self, settings: Settings, room_id: str, seat: int) -> None:
        """A daily seat begins only as its player's one ranked attempt (a
        practice seat as often as its player takes one)."""
        if settings.daily is None or settings.practice:
            return
        player = await self.store.daily.seat_player(room_id, seat)
        if player is None:
            raise RaceError(Reason.NOT_IDENTIFIED, "the daily deal is played as a player: "
                                                   "identify, then begin")
        if await self.store.daily.claim_daily_attempt(room_id, player, seat) != seat:
            raise RaceError(Reason.DAILY_PLAYED)

    async def game_over(self, settings: Settings, room_id: str, seat: int) -> None:
        """A daily attempt is over: its result so far, in its player's
        history (their streak counts today); the day's end replaces it. A
        practice game's is recorded at the day's end only (as a challenge's
        on a deal not drawn for it: no streak, no win, no best)."""
        if settings.daily is None or settings.practice:
            return
        player = await self.store.daily.seat_player(room_id, seat)
        data = await self.store.rooms.load(room_id)
        if player is None or data is None:
            return
        place = await self._place(room_id, seat)
        if place is None or place.get("line") is None:
            return
        _, played, _ = await self.store.daily.daily_counts(room_id)
        result = own_game_result(data.room, place["line"], place["rank"], played,
                                 now=self.now_ms())
        await self.players.record_result(player, result)

    async def _place(self, room_id: str, seat: int) -> dict[str, Any] | None:
        """A seat's place: rank, of, and the lines above, its own and below."""
        found = (await self.store.ranks.near(room_id, [seat]))[0]
        return None if found is None else dict(orjson.loads(b"{" + found + b"}"))

    # ------------------------------------------------------------------ what is shown

    async def today_view(self, player_id: str = "") -> dict[str, Any]:
        """Today's deals: each mode's room, how many played and finished,
        when the day ends; with a player, their attempt's place in each and
        their streak; and the past days still kept. The modes are read at
        once (a few round trips in all, not a few per mode)."""
        now, day = self.now_ms(), self.today()
        _, ends = day_bounds(day)
        reads: list[Any] = [self._mode_view(day, mode, player_id) for mode in self.modes]
        if player_id:
            reads.append(self.players.public(player_id))
        found = await asyncio.gather(*reads)
        view: dict[str, Any] = {"day": day, "now": now, "ends_at": ends,
                                "time_left_ms": max(0, ends - now),
                                "time_limit": self.config.daily_time_limit,
                                "modes": found[:len(self.modes)]}
        if player_id:
            view["streak"] = (found[-1] or {}).get("streak", {"days": 0, "best": 0})
        return view

    async def _mode_view(self, day: str, mode: str, player_id: str) -> dict[str, Any]:
        try:
            data = await self.room_of(day, mode, open_it=True)
        except RaceError:  # not open yet: no winnable deal of the mode ready
            data = None
        shown: dict[str, Any] = {"mode": mode, "room": None, "players": 0, "played": 0,
                                 "finished": 0}
        if data is None:
            return shown
        room_id = data.room.id
        counts, seat = await asyncio.gather(
            self.store.daily.daily_counts(room_id),
            self.store.daily.daily_attempt(room_id, player_id) if player_id else _none())
        ranked, played, finished = counts
        shown.update(room=room_id, players=ranked, played=played, finished=finished)
        if player_id:
            shown["mine"] = None if seat is None else {
                "seat": seat, **_seen_around(await self._place(room_id, seat) or {}), "of": played}
        return shown

    async def past(self) -> list[dict[str, Any]]:
        """The past days whose rooms are kept, the latest first, each with
        its modes' rooms and their codes (read once a day by each process,
        once yesterday's have ended: their codes are public from then)."""
        day = self.today()
        if self._past is not None and self._past[0] == day:
            return self._past[1]
        days: list[dict[str, Any]] = []
        for past in past_days(day):
            rooms: list[dict[str, Any]] = []
            for mode in MODES:
                data = await self.room_of(past, mode)
                if data is not None:
                    ended = data.room.phase == "ended"
                    rooms.append({"mode": mode, "room": data.room.id,
                                  "code": data.room.code if ended else None})
            if rooms:
                days.append({"day": past, "modes": rooms})
        if all(m["code"] for d in days for m in d["modes"]):  # (else: the sweepers are at it)
            self._past = (day, days)
        return days

    async def day_page(self, day: str, mode: str, first: int, count: int,
                       find: str | None = None) -> dict[str, Any] | None:
        """A page of a day's leaderboard of a mode, as the public API gives
        it (``None``: there is no such day's deal): the counts, the lines from
        rank ``first`` on, once the day has ended its code and each line's
        replay; with ``find``, that nickname's place and the lines around it."""
        day_number(day)  # (ValueError: not a day)
        if mode not in MODES:
            return None
        try:
            data = await self.room_of(day, mode, open_it=True)
        except RaceError:  # today's, not open yet: no winnable deal of the mode ready
            data = None
        if data is None:
            return None
        room = data.room
        room_id = room.id
        ended = room.phase == "ended"
        ranked, played, finished = await self.store.daily.daily_counts(room_id)
        _, raw = await self.store.ranks.page(room_id, first, count)
        lines = [_line(orjson.loads(line), first + i, room_id, ended) for i, line in enumerate(raw)]
        out: dict[str, Any] = {
            "day": day, "mode": mode, "room": room_id, "open": not ended,
            "ends_at": room.deadline, "players": ranked, "played": played,
            "finished": finished, "first": first, "count": len(lines), "lines": lines,
            "code": room.code if ended else None}
        if find is not None:
            out["found"] = await self._found(room_id, find, ended)
        return out

    async def _found(self, room_id: str, nickname: str, ended: bool) -> dict[str, Any] | None:
        name = check_nickname(nickname)
        hit = await self.store.ranks.find(room_id, fold(name))
        if hit is None:
            return None
        seat, rank, _ = hit
        place = await self._place(room_id, seat) if rank else None
        if place is None:
            return {"seat": seat, "rank": None}
        out: dict[str, Any] = {"seat": seat, "rank": place["rank"], "of": place["of"]}
        for k in ("above", "line", "below"):
            line = place.get(k)
            out[k] = None if line is None else _line(line, place["rank"] + {
                "above": -1, "line": 0, "below": 1}[k], room_id, ended)
        return out


def _seen_around(place: dict[str, Any]) -> dict[str, Any]:
    """A player's place with the lines around theirs as the others see them
    (the day runs: a game not over shows no figures)."""
    return {k: seen_line(v) if k in ("above", "below") and v else v for k, v in place.items()}


def _line(line: dict[str, Any], rank: int, room_id: str, ended: bool) -> dict[str, Any]:
    """A leaderboard line as the API shows it, to anyone: its rank, no time
    that says when its player played; while the day runs a game not over
    shows no figures; once the day has ended, the line's final state and
    the address of its replay."""
    out = {**public_line(final_line(line) if ended else seen_line(line)), "rank": rank}
    if ended and line.get("status") != "lobby":
        out["replay"] = f"/api/rooms/{room_id}/replay/{line['seat']}"
    return out


async def _none() -> None:
    return None


def _names(name: str) -> list[str]:
    """The nicknames tried in a day's field: the player's, then numbered
    (``ann 2``, ``ann 3``), then with a random number."""
    base = name[:MAX_NICKNAME - 6].rstrip()
    numbered = [f"{base} {n}" for n in (2, 3)]
    drawn = [f"{base} {secrets.randbelow(9000) + 1000}" for _ in range(NAME_TRIES - 3)]
    return [name, *numbered, *drawn]
