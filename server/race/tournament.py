"""Tournaments: fixed deals round after round, cumulative Vegas standings. Pure.

Each round is a race in a room of its own (see :mod:`.room`) in which every
registered player has a seat from the start; this module keeps what spans the
rounds: who registered, the rounds' codes (secret until each round ends) and
results, and the standings.

>>> t = Tournament.create("T1", "Club night", TournamentSettings(codes=(
...     "KL1-D1V-ABYI5NK", "KL1-D1V-ACT552B")), "admin-token", now=0)
>>> t.register("ann", "tok-a", now=1)["player"], t.register("bob", "tok-b", now=2)["player"]
(0, 1)
>>> t.close_registration(now=3)["kind"]
'closed'
>>> t.start_round(now=10, start_at=3010, room_id="ROOMAAAA")["kind"]
'round_starting'
>>> event = t.open_round(1, now=11)
>>> event["room"], t.rounds[0].status, t.public(now=11)["rounds"][0].get("code")
('ROOMAAAA', 'running', None)
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any, Final, Literal

import orjson

from ..klondike import DealCode, InvalidDealCodeError
from ..protocol.reasons import Reason
from .errors import RaceError
from .leaderboard import Entry
from .names import check_name, check_nickname, same_name, taken_text
from .settings import MAX_DELAY, MAX_TIME_LIMIT, Boards
from .tokens import hash_token, same_token, stored_digest

MAX_ROUNDS: Final = 20
MAX_TOURNAMENT_PLAYERS: Final = 8  # every round is one room, whose races seat at most 8
MAX_NAME: Final = 60
MISSED_VEGAS: Final = -52  # what a round a player did not play counts
TOURNAMENT_TTL_MS: Final = 30 * 24 * 3600 * 1000  # kept a month after its last change
MAX_SCHEDULE_MS: Final = 7 * 24 * 3600 * 1000  # a round starts at most a week ahead

Event = dict[str, Any]
RoundStatus = Literal["pending", "starting", "running", "ended"]


@dataclass(frozen=True, slots=True)
class TournamentSettings:
    codes: tuple[str, ...]  # one KL1 code per round, in order: secret until its round ends
    time_limit: int = 600  # seconds per round
    max_players: int = MAX_TOURNAMENT_PLAYERS
    undo: bool = True
    hints: bool = False
    boards: Boards = "after"
    delay: int = 0

    def public(self) -> dict[str, Any]:
        d = asdict(self)
        d["rounds"] = len(d.pop("codes"))
        d["modes"] = [DealCode.parse(c).mode for c in self.codes]
        return d


def parse_tournament_settings(data: dict[str, Any]) -> TournamentSettings:
    """Settings from an organizer's object. Every code is checked; an error
    names the bad one. ``codes`` or ``rounds`` (random deals of ``draw`` and
    ``scoring``)."""
    known = {"codes", "rounds", "draw", "scoring", "time_limit", "max_players", "undo", "hints",
             "boards", "delay"}
    unknown = set(data) - known
    if unknown:
        raise RaceError(Reason.BAD_SETTINGS, f"unknown setting {sorted(unknown)[0]!r}")
    codes_in = data.get("codes")
    if codes_in is not None:
        if not isinstance(codes_in, list) or not codes_in:
            raise RaceError(Reason.BAD_CODE, "codes must be a non-empty list of KL1 codes")
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
                                    ("max_players", MAX_TOURNAMENT_PLAYERS, 1, MAX_TOURNAMENT_PLAYERS),
                                    ("delay", 0, 0, MAX_DELAY)):
        value = data.get(key, default)
        if type(value) is not int or not low <= value <= high:
            raise RaceError(Reason.BAD_SETTINGS,
                            f"{key} must be a whole number from {low} to {high}")
        ints[key] = value
    flags = {}
    for key, default in (("undo", True), ("hints", False)):
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
                              hints=flags["hints"], boards=boards,
                              delay=ints["delay"] if boards == "delayed" else 0)


@dataclass(slots=True)
class TPlayer:
    player: int  # registration order, from 0: also the seat in every round's room
    nickname: str
    token: str  # the digest of the player's token (tokens.py): their seat's in every round
    registered: int
    withdrawn: bool = False


@dataclass(slots=True)
class Round:
    n: int  # 1-based
    status: RoundStatus = "pending"
    room: str | None = None
    start_at: int | None = None
    ended_at: int | None = None
    seats: list[int] = field(default_factory=list)  # players seated in this round
    results: list[Entry] | None = None


@dataclass(slots=True)
class Tournament:
    id: str
    name: str
    settings: TournamentSettings
    admin: str  # the digest of the organizer's token
    created: int
    registration: bool = True
    players: list[TPlayer] = field(default_factory=list)
    rounds: list[Round] = field(default_factory=list)

    @classmethod
    def create(cls, tournament_id: str, name: str, settings: TournamentSettings, admin: str,
               *, now: int) -> Tournament:
        """A new tournament; ``admin`` is the organizer's token (only its digest is kept)."""
        name = check_name(name, what="a tournament's name", longest=MAX_NAME)
        return cls(id=tournament_id, name=name, settings=settings, admin=hash_token(admin),
                   created=now,
                   rounds=[Round(n=i + 1) for i in range(len(settings.codes))])

    # ------------------------------------------------------------------ storage

    def to_json(self) -> bytes:
        return orjson.dumps(asdict(self))

    @classmethod
    def from_json(cls, raw: bytes | str) -> Tournament:
        d = orjson.loads(raw)
        s = d["settings"]
        s["codes"] = tuple(s["codes"])
        d["settings"] = TournamentSettings(**s)
        d["players"] = [TPlayer(**{**p, "token": stored_digest(p["token"])}) for p in d["players"]]
        d["rounds"] = [Round(**r) for r in d["rounds"]]
        d["admin"] = stored_digest(d["admin"])
        return cls(**d)

    # ------------------------------------------------------------------ queries

    def player_of(self, token: str) -> TPlayer | None:
        digest = hash_token(token)
        for p in self.players:
            if same_token(p.token, digest):
                return p
        return None

    def active(self) -> list[TPlayer]:
        return [p for p in self.players if not p.withdrawn]

    def current(self) -> Round | None:
        """The round being started or played, if any."""
        for r in self.rounds:
            if r.status in ("starting", "running"):
                return r
        return None

    def next_round(self) -> Round | None:
        for r in self.rounds:
            if r.status == "pending":
                return r
        return None

    def code(self, n: int) -> str:
        return self.settings.codes[n - 1]

    def public(self, now: int) -> dict[str, Any]:
        """What players and spectators may know: no tokens, and a round's code
        only once that round has ended."""
        rounds = []
        for r in self.rounds:
            item: dict[str, Any] = {"n": r.n, "status": r.status, "room": r.room,
                                    "start_at": r.start_at, "ended_at": r.ended_at,
                                    "seats": r.seats}
            if r.status == "ended":
                item["code"] = self.code(r.n)
                item["results"] = r.results
            rounds.append(item)
        return {
            "id": self.id, "name": self.name, "settings": self.settings.public(),
            "registration": self.registration,
            "players": [{"player": p.player, "nickname": p.nickname, "withdrawn": p.withdrawn}
                        for p in self.players],
            "rounds": rounds, "standings": standings(self), "now": now,
        }

    # ------------------------------------------------------------------ changes

    def check_admin(self, token: str) -> None:
        if not same_token(hash_token(token), self.admin):
            raise RaceError(Reason.NOT_HOST, "only the organizer (with the admin token) can do that")

    def register(self, nickname: str, token: str, *, now: int) -> Event:
        if not self.registration:
            raise RaceError(Reason.RACE_STARTED, "registration is closed")
        name = check_nickname(nickname)
        if len(self.players) >= self.settings.max_players:
            raise RaceError(Reason.ROOM_FULL, "the tournament is full")
        taken = next((p.nickname for p in self.players if same_name(p.nickname, name)), None)
        if taken is not None:
            raise RaceError(Reason.NAME_TAKEN, taken_text(name, taken, "this tournament"))
        player = len(self.players)
        self.players.append(TPlayer(player=player, nickname=name, token=hash_token(token),
                                    registered=now))
        return {"kind": "registered", "player": player, "nickname": name}

    def close_registration(self, *, now: int) -> Event:
        if not self.registration:
            raise RaceError(Reason.NOT_LOBBY, "registration is already closed")
        self.registration = False
        return {"kind": "closed"}

    def start_round(self, *, now: int, start_at: int, room_id: str) -> Event:
        """The next round will start at ``start_at`` in room ``room_id``; it
        seats every player who has not withdrawn. Starting closes registration.
        The round is ``starting`` until its room exists (:meth:`open_round`)."""
        if self.current() is not None:
            raise RaceError(Reason.NOT_ENDED, "the current round has not ended yet")
        nxt = self.next_round()
        if nxt is None:
            raise RaceError(Reason.NOT_LOBBY, "every round has been played")
        if not self.active():
            raise RaceError(Reason.NOT_READY, "nobody is registered")
        if start_at > now + MAX_SCHEDULE_MS:
            raise RaceError(Reason.BAD_SETTINGS, "at: a round starts at most 7 days ahead "
                                                 f"(at most {now + MAX_SCHEDULE_MS}, server ms)")
        self.registration = False
        nxt.status, nxt.room, nxt.start_at = "starting", room_id, start_at
        nxt.seats = [p.player for p in self.active()]
        return {"kind": "round_starting", "round": nxt.n, "start_at": start_at}

    def open_round(self, n: int, *, now: int) -> Event:
        """Round ``n``'s room exists: players may join it."""
        r = self.rounds[n - 1]
        if r.status != "starting":
            raise RaceError(Reason.NOT_LOBBY, f"round {n} is not starting")
        r.status = "running"
        return {"kind": "round_started", "round": n, "room": r.room, "start_at": r.start_at}

    def end_round(self, n: int, results: list[Entry], *, now: int) -> Event:
        r = self.rounds[n - 1]
        if r.status != "running":
            raise RaceError(Reason.NOT_PLAYING, f"round {n} is not running")
        r.status, r.ended_at, r.results = "ended", now, results
        return {"kind": "round_ended", "round": n, "code": self.code(n)}

    def withdraw(self, token: str, *, now: int) -> Event:
        player = self.player_of(token)
        if player is None:
            raise RaceError(Reason.BAD_TOKEN)
        if player.withdrawn:
            raise RaceError(Reason.NOT_PLAYING, "you have already withdrawn")
        player.withdrawn = True
        return {"kind": "withdrawn", "player": player.player}


# ---------------------------------------------------------------------- standings

def _line(results: Sequence[Entry] | None, player: int) -> Entry | None:
    """The player's line in a round's results, if they played it: a seat
    that stored no command (a player who never came, or came and did
    nothing) did not play, whatever its final status."""
    for entry in results or ():
        if entry["seat"] == player:
            return entry if played(entry) else None
    return None


def played(entry: Entry) -> bool:
    """Whether a round's line shows the player played: a move stored (a
    card on a foundation needs one), or a resign."""
    return bool(entry["moves"] or entry["foundation"]) or entry["status"] in ("finished",
                                                                              "resigned")


def standings(t: Tournament) -> list[dict[str, Any]]:
    """Cumulative over the ended rounds: Vegas dollars (a round a player did not
    play counts −52 $); ties by total cards on foundations, then total finishing
    time of won rounds (less first; a player who won no round comes after those
    who did), then registration order."""
    ended = [r for r in t.rounds if r.status == "ended"]
    lines: list[dict[str, Any]] = []
    for p in t.players:
        vegas = foundation = time = wins = 0
        per_round = []
        for r in ended:
            entry = _line(r.results, p.player)
            if entry is None:
                per_round.append({"round": r.n, "played": False, "vegas": MISSED_VEGAS,
                                  "foundation": 0, "finish_ms": None})
                vegas += MISSED_VEGAS
                continue
            vegas += entry["vegas"]
            foundation += entry["foundation"]
            if entry["status"] == "finished":
                wins += 1
                time += entry["finish_ms"]
            per_round.append({"round": r.n, "played": True, "vegas": entry["vegas"],
                              "foundation": entry["foundation"], "finish_ms": entry["finish_ms"],
                              "status": entry["status"], "moves": entry["moves"]})
        lines.append({"player": p.player, "nickname": p.nickname, "withdrawn": p.withdrawn,
                      "vegas": vegas, "foundation": foundation, "wins": wins, "time_ms": time,
                      "rounds": per_round})
    # a player without a won round has no finishing time: behind any who has one
    lines.sort(key=lambda e: (-e["vegas"], -e["foundation"], e["wins"] == 0, e["time_ms"],
                              e["player"]))
    for rank, line in enumerate(lines, start=1):
        line["rank"] = rank
    return lines


CSV_FIELDS: Final = ("player", "nickname", "round", "code", "played", "status", "vegas",
                     "foundation", "moves", "finish_ms", "rank")


#: what a spreadsheet takes for the start of a formula (OWASP, "CSV Injection")
FORMULA_STARTS: Final = ("=", "+", "-", "@", "\t", "\r", "\n")


def csv_text(text: str) -> str:
    """A text cell a spreadsheet shows as text: one starting like a formula
    gets a leading ``'`` (OWASP's advice for CSV injection). Numbers are
    written as numbers and need none.

    >>> csv_text("-ann"), csv_text("=HYPERLINK(1)"), csv_text("ann")
    ("'-ann", "'=HYPERLINK(1)", 'ann')
    """
    return "'" + text if text.startswith(FORMULA_STARTS) else text


def results_csv(t: Tournament) -> str:
    """One row per player and ended round, then one row of totals per player.
    Every cell holding text is neutralised (:func:`csv_text`), and quoted
    when it holds a separator or a quote."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_FIELDS)
    table = standings(t)
    for line in sorted(table, key=lambda e: e["player"]):
        for item in line["rounds"]:
            entry = _line(t.rounds[item["round"] - 1].results, line["player"])
            writer.writerow([line["player"], csv_text(line["nickname"]), item["round"],
                             t.code(item["round"]), int(item["played"]),
                             entry["status"] if entry else "missed", item["vegas"],
                             item["foundation"], entry["moves"] if entry else 0,
                             item["finish_ms"] if item["finish_ms"] is not None else "",
                             entry["rank"] if entry else ""])
    for line in table:
        writer.writerow([line["player"], csv_text(line["nickname"]), "total", "", len(
            [i for i in line["rounds"] if i["played"]]), "withdrawn" if line["withdrawn"] else "",
            line["vegas"], line["foundation"], "", line["time_ms"], line["rank"]])
    return out.getvalue()


def seat_tokens(t: Tournament, seats: Iterable[int]) -> dict[str, int]:
    """The round room's seat token digests: a player's tournament token is their seat's."""
    wanted = set(seats)
    return {p.token: p.player for p in t.players if p.player in wanted}
