"""A tournament's settings: what the organizer chooses, checked once at creation. Pure.

>>> s = parse_tournament_settings({"codes": ["KL1-D1V-ABYI5NK"], "max_players": 500})
>>> s.big, s.public()["rounds"], s.public()["modes"]
(True, 1, ['D1V'])

Typed codes are known to the organizer; drawn rounds are not:

>>> s.typed, parse_tournament_settings({"rounds": 2, "draw": 3}).typed
(True, False)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

from ..klondike import DealCode, InvalidDealCodeError
from ..protocol.reasons import Reason
from .errors import RaceError
from .settings import (
    DEFAULT_TOP,
    MAX_DELAY,
    MAX_TIME_LIMIT,
    MAX_TOP,
    SMALL_ROOM,
    Assists,
    Boards,
    Deal,
    parse_assists,
    parse_deal,
)

MAX_ROUNDS: Final = 20
DEFAULT_TOURNAMENT_PLAYERS: Final = 8
MAX_TOURNAMENT_PLAYERS: Final = 10_000
MAX_SCHEDULE_MS: Final = 7 * 24 * 3600 * 1000  # a round starts at most a week ahead
MAX_STARTS_MS: Final = 4 * MAX_SCHEDULE_MS  # set start times: within four weeks of creation
MAX_INTERVAL: Final = 24 * 3600  # seconds between a round's end and the next one's start


@dataclass(frozen=True, slots=True)
class TournamentSettings:
    codes: tuple[str, ...]  # one deal code per round, in order: secret until its round ends
    time_limit: int = 600  # seconds per round
    max_players: int = DEFAULT_TOURNAMENT_PLAYERS
    undo: bool = True
    hints: bool = False
    boards: Boards = "after"
    delay: int = 0
    top: int = DEFAULT_TOP  # standings lines a big tournament's events carry
    starts: tuple[int, ...] = ()  # server times (ms) the first rounds start at
    interval: int = 0  # seconds from a round's end to the next one's start (0: the organizer's call)
    late_until: int = 0  # registration stays open until this round starts (0 or 1: the first)
    invite: bool = False  # registering needs the invite code
    deal: Deal = "random"  # random rounds: any deals, or deals certified winnable
    assists: Assists = "off"  # in every round's room (see race.settings)
    #: the organizer typed the codes (``codes``), so someone knew the deals: a round's
    #: win and time do not count on a player's public profile (race.profile.typed_deal)
    typed: bool = False

    @property
    def big(self) -> bool:
        """More players than a room of a few seats: the standings show their
        top and each player's place, not everyone (app/tournaments/public_views.py)."""
        return self.max_players > SMALL_ROOM

    def public(self) -> dict[str, Any]:
        """What anyone may know: no codes. The organizer's scheduling and
        invite settings appear only when set; a big tournament says so."""
        d: dict[str, Any] = {k: getattr(self, k) for k in (
            "time_limit", "max_players", "undo", "hints", "boards", "delay")}
        d["rounds"] = len(self.codes)
        d["modes"] = [DealCode.parse(c).mode for c in self.codes]
        if self.big:
            d["big"], d["top"] = True, self.top
        if self.starts:
            d["starts"] = list(self.starts)
        if self.deal != "random":
            d["deal"] = self.deal
        if self.assists == "solver":  # otherwise ``hints`` says it all
            d["assists"] = self.assists
        for key in ("interval", "late_until", "invite", "typed"):
            if getattr(self, key):
                d[key] = getattr(self, key)
        return d


def settings_from_dict(data: dict[str, Any]) -> TournamentSettings:
    """Settings as stored (already valid; those stored before a setting
    existed get its default)."""
    assists = data.get("assists", "basic" if data.get("hints") else "off")
    return TournamentSettings(**{**data, "codes": tuple(data["codes"]),
                                 "starts": tuple(data.get("starts", ())), "assists": assists})


def parse_tournament_settings(data: dict[str, Any], *, now: int = 0) -> TournamentSettings:
    """Settings from an organizer's object. Every code is checked; an error
    names the bad one. ``codes`` or ``rounds`` (random deals of ``draw`` and
    ``scoring``). Set start times (``starts``) are checked against ``now``."""
    known = {"codes", "rounds", "draw", "scoring", "time_limit", "max_players", "undo", "hints",
             "boards", "delay", "top", "starts", "interval", "late_until", "invite", "deal",
             "assists"}
    unknown = set(data) - known
    if unknown:
        raise RaceError(Reason.BAD_SETTINGS, f"unknown setting {sorted(unknown)[0]!r}")
    codes_in = data.get("codes")
    if codes_in is not None:
        if not isinstance(codes_in, list) or not codes_in:
            raise RaceError(Reason.BAD_CODE, "codes must be a non-empty list of deal codes (KL1 or KL2)")
        codes = []
        for i, text in enumerate(codes_in, start=1):
            try:
                if not isinstance(text, str):
                    raise InvalidDealCodeError(f"{text!r} is not text")
                codes.append(str(DealCode.parse(text)))
            except InvalidDealCodeError as exc:
                raise RaceError(Reason.BAD_CODE, f"round {i}: {exc}") from None
    else:
        rounds = data.get("rounds", 3)
        draw, scoring = data.get("draw", 1), data.get("scoring", "V")
        if type(rounds) is not int or not 1 <= rounds <= MAX_ROUNDS:
            raise RaceError(Reason.BAD_SETTINGS, f"rounds must be a whole number from 1 to {MAX_ROUNDS}")
        if type(draw) is not int or draw not in (1, 3) or scoring not in ("N", "V"):
            raise RaceError(Reason.BAD_SETTINGS, "draw must be 1 or 3 and scoring 'N' or 'V'")
        codes = [str(DealCode.random(draw, scoring)) for _ in range(rounds)]  # type: ignore[arg-type]
    if len(codes) > MAX_ROUNDS:
        raise RaceError(Reason.BAD_SETTINGS, f"at most {MAX_ROUNDS} rounds")
    ints = {}
    for key, default, low, high in (("time_limit", 600, 10, MAX_TIME_LIMIT),
                                    ("max_players", DEFAULT_TOURNAMENT_PLAYERS, 1,
                                     MAX_TOURNAMENT_PLAYERS),
                                    ("delay", 0, 0, MAX_DELAY), ("top", DEFAULT_TOP, 1, MAX_TOP),
                                    ("interval", 0, 0, MAX_INTERVAL),
                                    ("late_until", 0, 0, len(codes))):
        value = data.get(key, default)
        if type(value) is not int or not low <= value <= high:
            raise RaceError(Reason.BAD_SETTINGS,
                            f"{key} must be a whole number from {low} to {high}")
        ints[key] = value
    flags = {}
    deal = parse_deal(data, fixed=codes_in is not None)
    assists = parse_assists(data, hints_default=False)
    for key, default in (("undo", True), ("invite", False)):
        value = data.get(key, default)
        if not isinstance(value, bool):
            raise RaceError(Reason.BAD_SETTINGS, f"{key} must be true or false")
        flags[key] = value
    boards = data.get("boards", "after")
    if boards not in ("live", "delayed", "after"):
        raise RaceError(Reason.BAD_SETTINGS, "boards must be one of live, delayed, after")
    if boards == "delayed" and ints["delay"] <= 0:
        raise RaceError(Reason.BAD_SETTINGS, "delayed boards need a delay of 1 second or more")
    return TournamentSettings(codes=tuple(codes), time_limit=ints["time_limit"],
                              max_players=ints["max_players"], undo=flags["undo"],
                              hints=assists != "off", boards=boards,
                              delay=ints["delay"] if boards == "delayed" else 0, top=ints["top"],
                              starts=_starts(data.get("starts", []), len(codes), now),
                              interval=ints["interval"], late_until=ints["late_until"],
                              invite=flags["invite"], deal=deal, assists=assists,
                              typed=codes_in is not None)


def _starts(value: Any, rounds: int, now: int) -> tuple[int, ...]:
    """Set start times: server times (ms), one per round from the first, in
    order, in the future and within four weeks."""
    if not isinstance(value, list) or len(value) > rounds:
        raise RaceError(Reason.BAD_SETTINGS, f"starts must be a list of at most {rounds} "
                                             "server times (ms), one per round")
    last = now
    for i, at in enumerate(value, start=1):
        if type(at) is not int or not last < at <= now + MAX_STARTS_MS:
            raise RaceError(Reason.BAD_SETTINGS, f"starts: round {i} must start after "
                            f"{'now' if i == 1 else f'round {i - 1}'} and within 28 days "
                            f"(server ms, now {now})")
        last = at
    return tuple(value)
