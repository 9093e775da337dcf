"""Tournaments: fixed deals round after round, cumulative Vegas standings. Pure.

Each round is a race in a room of its own (see :mod:`.room`); this module
keeps what spans the rounds: who registered, the rounds' codes (secret until
each round ends) and results, and the standings.

A tournament of up to :data:`~.settings.SMALL_ROOM` players is *small*: its
document holds every player and every round's results, each round's room
seats everyone from the start, and its events carry it whole. A *big* one
(``settings.big``: up to :data:`MAX_TOURNAMENT_PLAYERS`) keeps only its
header here (name, settings, organizers, registration, the rounds' state and
counts); its players and standings live in the store (server/store/keys.py),
each player's standing line (:func:`standing_line`, :func:`count_round`)
ranked by :func:`standing_score`, and each round is one big room whose
players are seated as they arrive.

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

from ..protocol.reasons import Reason
from .errors import RaceError
from .leaderboard import Entry
from .names import check_name, check_nickname, fold, same_name, taken_text
from .tokens import hash_token, same_token, stored_digest
from .tournament_settings import (
    DEFAULT_TOURNAMENT_PLAYERS,
    MAX_ROUNDS,
    MAX_SCHEDULE_MS,
    MAX_TOURNAMENT_PLAYERS,
    TournamentSettings,
    parse_tournament_settings,
    settings_from_dict,
)

__all__ = [
    "CSV_FIELDS", "DEFAULT_TOURNAMENT_PLAYERS", "HANDOFF_MS", "MAX_ADMINS", "MAX_ROUNDS",
    "MAX_TOURNAMENT_PLAYERS", "MISSED", "MISSED_VEGAS", "TOURNAMENT_TTL_MS", "Round", "TPlayer",
    "Tournament", "TournamentSettings", "count_round", "csv_text", "parse_tournament_settings",
    "played", "results_csv", "results_csv_big", "round_result", "seat_tokens", "standing_key",
    "standing_line", "standing_score", "standing_tail", "standings",
]

MAX_NAME: Final = 60
MISSED_VEGAS: Final = -52  # what a round a player did not play counts
TOURNAMENT_TTL_MS: Final = 30 * 24 * 3600 * 1000  # kept a month after its last change
MAX_ADMINS: Final = 4  # devices holding an admin key at once
HANDOFF_MS: Final = 10 * 60 * 1000  # how long an admin handoff code is valid

Event = dict[str, Any]
RoundStatus = Literal["pending", "starting", "running", "ended"]


@dataclass(slots=True)
class TPlayer:
    """A small tournament's player (a big one's are in the store)."""

    player: int  # registration order, from 0: also the seat in every round's room
    nickname: str
    token: str  # the digest of the player's token (tokens.py): their seat's in every round
    registered: int
    withdrawn: bool = False
    kicked: bool = False  # removed by the organizer: out of the standings, token void


@dataclass(slots=True)
class Round:
    n: int  # 1-based
    status: RoundStatus = "pending"
    room: str | None = None
    start_at: int | None = None
    ended_at: int | None = None
    seats: list[int] = field(default_factory=list)  # a small round's players, seated from the start
    results: list[Entry] | None = None  # a small round's (a big one's are its room's ranking)
    players: int | None = None  # a big round's: who may play it (players 0 .. players-1)
    played: int | None = None  # a big round's, once ended: how many played it

    def public(self, code: str, *, big: bool) -> dict[str, Any]:
        """The round as anyone may see it: its ``code`` and results (a small
        round's lines, a big one's count) only once it has ended."""
        item: dict[str, Any] = {"n": self.n, "status": self.status, "room": self.room,
                                "start_at": self.start_at, "ended_at": self.ended_at}
        if big:
            item["players"] = self.players
        else:
            item["seats"] = self.seats
        if self.status == "ended":
            item["code"] = code
            if big:
                item["played"] = self.played
            else:
                item["results"] = self.results
        return item


@dataclass(slots=True)
class Tournament:
    id: str
    name: str
    settings: TournamentSettings
    admins: list[str]  # the digests of the organizer's admin keys, one per device
    created: int
    registration: bool = True
    players: list[TPlayer] = field(default_factory=list)  # a small tournament's
    rounds: list[Round] = field(default_factory=list)
    invite: str | None = None  # the digest of the invite code, when registering needs one
    banned: list[str] = field(default_factory=list)  # a small tournament's banned folded names
    handoff: dict[str, Any] | None = None  # a pending admin handoff: {"digest", "until"}

    @classmethod
    def create(cls, tournament_id: str, name: str, settings: TournamentSettings, admin: str,
               *, now: int, invite: str | None = None) -> Tournament:
        """A new tournament; ``admin`` is the organizer's token and ``invite``
        the code registering needs (only their digests are kept)."""
        name = check_name(name, what="a tournament's name", longest=MAX_NAME)
        return cls(id=tournament_id, name=name, settings=settings, admins=[hash_token(admin)],
                   created=now, rounds=[Round(n=i + 1) for i in range(len(settings.codes))],
                   invite=None if invite is None else hash_token(_code_text(invite)))

    @property
    def big(self) -> bool:
        return self.settings.big

    # ------------------------------------------------------------------ storage

    def to_json(self) -> bytes:
        return orjson.dumps(asdict(self))

    @classmethod
    def from_json(cls, raw: bytes | str) -> Tournament:
        d = orjson.loads(raw)
        d["settings"] = settings_from_dict(d["settings"])
        d["players"] = [TPlayer(**{**p, "token": stored_digest(p["token"])}) for p in d["players"]]
        d["rounds"] = [Round(**r) for r in d["rounds"]]
        admins = d.pop("admins", None) or [d.pop("admin")]  # stored before handoffs: one key
        d.pop("admin", None)
        d["admins"] = [stored_digest(a) for a in admins]
        return cls(**d)

    # ------------------------------------------------------------------ queries

    def player_of(self, token: str) -> TPlayer | None:
        """A small tournament's player holding ``token`` (a kicked one holds none)."""
        digest = hash_token(token)
        for p in self.players:
            if same_token(p.token, digest) and not p.kicked:
                return p
        return None

    def active(self) -> list[TPlayer]:
        return [p for p in self.players if not p.withdrawn and not p.kicked]

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

    def first_open(self) -> int:
        """The first round not started yet: a player registering now plays
        from it (and missed the rounds before)."""
        nxt = self.next_round()
        return nxt.n if nxt is not None else len(self.rounds) + 1

    def scheduled_start(self) -> int | None:
        """When the next round starts by itself (server ms), if it does: at
        its set time, or ``interval`` seconds after the round before it ended.
        ``None`` while a round is under way, or when it is the organizer's call."""
        if self.current() is not None:
            return None
        nxt = self.next_round()
        if nxt is None:
            return None
        if nxt.n <= len(self.settings.starts):
            return self.settings.starts[nxt.n - 1]
        if self.settings.interval and nxt.n > 1:
            ended = self.rounds[nxt.n - 2].ended_at
            if ended is not None:
                return ended + self.settings.interval * 1000
        return None

    def code(self, n: int) -> str:
        return self.settings.codes[n - 1]

    def public(self, now: int) -> dict[str, Any]:
        """What players and spectators may know of a small tournament: no
        tokens, and a round's code only once that round has ended."""
        rounds = [r.public(self.code(r.n), big=False) for r in self.rounds]
        players = []
        for p in self.players:
            shown: dict[str, Any] = {"player": p.player, "nickname": p.nickname,
                                     "withdrawn": p.withdrawn}
            if p.kicked:
                shown["kicked"] = True
            players.append(shown)
        return {
            "id": self.id, "name": self.name, "settings": self.settings.public(),
            "registration": self.registration, "players": players,
            "rounds": rounds, "standings": standings(self), "now": now,
        }

    def public_big(self, now: int, field_counts: dict[str, int],
                   top: list[dict[str, Any]]) -> dict[str, Any]:
        """What anyone may know of a big tournament: its header, how many
        registered (``field_counts``), and the ``top`` lines of its standings."""
        rounds = [r.public(self.code(r.n), big=True) for r in self.rounds]
        return {"id": self.id, "name": self.name, "settings": self.settings.public(),
                "registration": self.registration, "field": dict(field_counts),
                "rounds": rounds, "top": top, "now": now}

    # ------------------------------------------------------------------ organizers

    def check_admin(self, token: str) -> None:
        digest = hash_token(token)
        if not sum(same_token(digest, a) for a in self.admins):  # every key compared
            raise RaceError(Reason.NOT_HOST, "only the organizer (with the admin token) can do that")

    def start_handoff(self, code: str, *, now: int) -> int:
        """A one-time code that gives another device an admin key (its
        digest kept, valid :data:`HANDOFF_MS`); a new one replaces the last.
        When it expires."""
        until = now + HANDOFF_MS
        self.handoff = {"digest": hash_token(_code_text(code)), "until": until}
        return until

    def claim(self, code: str, admin: str, *, now: int) -> None:
        """The handoff code, once: ``admin`` becomes one of the organizer's
        keys (the oldest of :data:`MAX_ADMINS` is dropped)."""
        pending = self.handoff
        if (pending is None or now > pending["until"]
                or not same_token(hash_token(_code_text(code)), pending["digest"])):
            raise RaceError(Reason.BAD_HANDOFF)
        self.handoff = None
        self.admins = [*self.admins, hash_token(admin)][-MAX_ADMINS:]

    def check_invite(self, code: str | None) -> None:
        if self.invite is None:
            return
        if not code or not same_token(hash_token(_code_text(code)), self.invite):
            raise RaceError(Reason.BAD_INVITE)

    # ------------------------------------------------------------------ changes

    def register(self, nickname: str, token: str, *, now: int, invite: str | None = None) -> Event:
        """A small tournament's new player (a big one's are the store's)."""
        name = check_nickname(nickname)
        if fold(name) in self.banned:  # said first: a ban outlasts any other refusal
            raise RaceError(Reason.BANNED)
        if not self.registration:
            raise RaceError(Reason.RACE_STARTED, "registration is closed")
        self.check_invite(invite)
        present = [p for p in self.players if not p.kicked]
        if len(present) >= self.settings.max_players:
            raise RaceError(Reason.ROOM_FULL, "the tournament is full")
        taken = next((p.nickname for p in present if same_name(p.nickname, name)), None)
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

    def start_round(self, *, now: int, start_at: int, room_id: str,
                    entrants: int | None = None) -> Event:
        """The next round will start at ``start_at`` in room ``room_id``. A
        small round seats every player who has not withdrawn; a big one is
        open to every player registered by now (``entrants`` of them are not
        out). Registration closes, unless it stays open until a later round
        (``late_until``). The round is ``starting`` until its room exists
        (:meth:`open_round`)."""
        if self.current() is not None:
            raise RaceError(Reason.NOT_ENDED, "the current round has not ended yet")
        nxt = self.next_round()
        if nxt is None:
            raise RaceError(Reason.NOT_LOBBY, "every round has been played")
        if (len(self.active()) if entrants is None else entrants) <= 0:
            raise RaceError(Reason.NOT_READY, "nobody is registered")
        if start_at > now + MAX_SCHEDULE_MS:
            raise RaceError(Reason.BAD_SETTINGS, "at: a round starts at most 7 days ahead "
                                                 f"(at most {now + MAX_SCHEDULE_MS}, server ms)")
        if nxt.n >= self.settings.late_until:
            self.registration = False
        nxt.status, nxt.room, nxt.start_at = "starting", room_id, start_at
        if not self.big:
            nxt.seats = [p.player for p in self.active()]
        return {"kind": "round_starting", "round": nxt.n, "start_at": start_at}

    def open_round(self, n: int, *, now: int, players: int | None = None) -> Event:
        """Round ``n``'s room exists: players may join it (a big round's
        ``players``: who may play it, players 0 to ``players`` - 1)."""
        r = self.rounds[n - 1]
        if r.status != "starting":
            raise RaceError(Reason.NOT_LOBBY, f"round {n} is not starting")
        r.status = "running"
        if players is not None:
            r.players = players
        return {"kind": "round_started", "round": n, "room": r.room, "start_at": r.start_at}

    def end_round(self, n: int, results: list[Entry] | None, *, now: int,
                  played: int | None = None) -> Event:
        """Round ``n`` is over: a small round's ``results``, or how many
        ``played`` a big one (its results are its room's ranking)."""
        r = self.rounds[n - 1]
        if r.status != "running":
            raise RaceError(Reason.NOT_PLAYING, f"round {n} is not running")
        r.status, r.ended_at, r.results, r.played = "ended", now, results, played
        return {"kind": "round_ended", "round": n, "code": self.code(n)}

    def withdraw(self, token: str, *, now: int) -> Event:
        player = self.player_of(token)
        if player is None:
            raise RaceError(Reason.BAD_TOKEN)
        if player.withdrawn:
            raise RaceError(Reason.NOT_PLAYING, "you have already withdrawn")
        player.withdrawn = True
        return {"kind": "withdrawn", "player": player.player}

    @property
    def over(self) -> bool:
        """Every round has been played: the standings are final."""
        return all(r.status == "ended" for r in self.rounds)

    def check_not_over(self) -> None:
        """Refuse to change who takes part once the standings are final."""
        if self.over:
            raise RaceError(Reason.NOT_LOBBY, "the tournament is over: its standings are final")

    def kick(self, player: int, *, ban: bool, now: int) -> Event:
        """The organizer removes a small tournament's player: out of the
        standings and of the rounds to come, their token void; ``ban`` also
        refuses their nickname (and its look-alikes) from then on. Not once
        the tournament is over."""
        self.check_not_over()
        found = next((p for p in self.players if p.player == player and not p.kicked), None)
        if found is None:
            raise RaceError(Reason.UNKNOWN_SEAT, f"there is no player {player} in this tournament")
        found.kicked = True
        if ban and fold(found.nickname) not in self.banned:
            self.banned.append(fold(found.nickname))
        return {"kind": "kicked", "player": player, "ban": ban}


def _code_text(code: str) -> str:
    """An invite or handoff code as compared: case and surrounding spaces ignored."""
    return code.strip().upper()


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
    """A small tournament's standings, cumulative over the ended rounds:
    Vegas dollars (a round a player did not play counts −52 $); ties by
    total cards on foundations, then total finishing time of won rounds
    (less first; a player who won no round comes after those who did), then
    registration order. A kicked player is not in them."""
    ended = [r for r in t.rounds if r.status == "ended"]
    lines: list[dict[str, Any]] = []
    for p in t.players:
        if p.kicked:
            continue
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
    lines.sort(key=standing_key)
    for rank, line in enumerate(lines, start=1):
        line["rank"] = rank
    return lines


def standing_key(line: dict[str, Any]) -> tuple[int, int, bool, int, int]:
    """The standings' order: more dollars, more cards, a won round (a player
    without one has no finishing time: behind any who has one), less time
    over the won rounds, registration."""
    return (-line["vegas"], -line["foundation"], line["wins"] == 0, line["time_ms"],
            line["player"])


# ---------------------------------------------------------------------- big standings

#: A big standing line's result of one round: ``[status, vegas, foundation,
#: finish_ms, moves, rank]`` (rank in the round's race), or this when the
#: player did not play it.
MISSED: Final[tuple[Any, ...]] = ("missed", MISSED_VEGAS, 0, None, 0, None)

#: The bounds :func:`standing_score` is exact within: what :data:`MAX_ROUNDS`
#: rounds can add up to (Vegas dollars run from −52 to 208 a round), and a
#: total winning time far above what rounds of at most 4 hours reach.
_VEGAS_TOP: Final = 208 * MAX_ROUNDS
_VEGAS_SPAN: Final = 260 * MAX_ROUNDS + 1
_CARDS_TOP: Final = 52 * MAX_ROUNDS
_CARDS_SPAN: Final = _CARDS_TOP + 1
_NO_WIN: Final = 1_500_000_000  # ms: over 400 hours of won rounds, never reached
_TIME_SPAN: Final = _NO_WIN + 1


def standing_score(line: dict[str, Any]) -> int:
    """A standing line's place as one number, lower first, for the
    standings' sorted set: the order of :func:`standing_key` (registration
    order is the member's, a fixed-width player number: see
    :func:`~.leaderboard.seat_member`). A whole number below 2^53, so a
    double holds it exactly.

    >>> ann = {"vegas": 156, "foundation": 52, "wins": 1, "time_ms": 300_000}
    >>> bob = {"vegas": 156, "foundation": 52, "wins": 0, "time_ms": 0}
    >>> cat = {"vegas": 200, "foundation": 40, "wins": 0, "time_ms": 0}
    >>> lines = {"ann": ann, "bob": bob, "cat": cat}
    >>> sorted(lines, key=lambda name: standing_score(lines[name]))
    ['cat', 'ann', 'bob']
    >>> standing_score(ann) < 2**53
    True
    """
    vegas = min(max(int(line["vegas"]), _VEGAS_TOP - _VEGAS_SPAN + 1), _VEGAS_TOP)
    cards = min(max(int(line["foundation"]), 0), _CARDS_TOP)
    time = min(max(int(line["time_ms"]), 0), _NO_WIN - 1) if line["wins"] else _NO_WIN
    return ((_VEGAS_TOP - vegas) * _CARDS_SPAN + _CARDS_TOP - cards) * _TIME_SPAN + time


def standing_line(player: int, nickname: str, first: int) -> dict[str, Any]:
    """A big tournament's new line: a player who registers once rounds have
    started missed them all (−52 $ each), the one being played included.

    >>> standing_line(7, "ann", 2)["vegas"], standing_line(7, "ann", 2)["rounds"]
    (-52, [('missed', -52, 0, None, 0, None)])
    """
    missed = max(0, first - 1)
    return {"player": player, "nickname": nickname, "vegas": MISSED_VEGAS * missed,
            "foundation": 0, "wins": 0, "time_ms": 0, "played": 0, "rounds": [MISSED] * missed}


def standing_tail(line: dict[str, Any]) -> bytes:
    """A standing line's JSON after its player and nickname, for the store's
    script that writes a new one (``'{"player":' .. p .. ',"nickname":' ..
    name .. tail``)."""
    rest = {k: v for k, v in line.items() if k not in ("player", "nickname")}
    return b"," + orjson.dumps(rest)[1:]


def round_result(entry: Entry, rank: int) -> tuple[Any, ...]:
    """What a big round's line (from its room, once ended) adds to a
    standing line: its figures, or :data:`MISSED` if the player did not play."""
    if not played(entry):
        return MISSED
    status = "unfinished" if entry["status"] == "racing" else entry["status"]
    return (status, entry["vegas"], entry["foundation"], entry["finish_ms"], entry["moves"], rank)


def count_round(line: dict[str, Any], n: int, result: Sequence[Any]) -> dict[str, Any] | None:
    """The standing line with round ``n``'s ``result`` counted, or ``None``
    if it counts that round already (a line remembers the rounds it counts:
    its ``rounds``, in order), so that counting a round twice is harmless."""
    rounds = list(line["rounds"])
    if len(rounds) >= n:
        return None
    rounds += [MISSED] * (n - 1 - len(rounds))  # (never: rounds are counted in order)
    rounds.append(tuple(result))
    new = dict(line)
    new["rounds"] = rounds
    new["vegas"], new["foundation"] = sum(r[1] for r in rounds), sum(r[2] for r in rounds)
    won = [r for r in rounds if r[0] == "finished"]
    new["wins"], new["time_ms"] = len(won), sum(r[3] for r in won)
    new["played"] = sum(1 for r in rounds if r[0] != "missed")
    return new


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


def results_csv_big(t: Tournament, lines: Sequence[dict[str, Any]]) -> str:
    """A page of a big tournament's results: for each standing line (with
    its ``rank``), in rank order, one row per ended round then its total.
    The columns and the neutralised cells are :func:`results_csv`'s."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_FIELDS)
    ended = [r.n for r in t.rounds if r.status == "ended"]
    for line in lines:
        name = csv_text(line["nickname"])
        for n in ended:
            status, vegas, cards, finish_ms, moves, rank = (
                line["rounds"][n - 1] if n <= len(line["rounds"]) else MISSED)
            writer.writerow([line["player"], name, n, t.code(n), int(status != "missed"), status,
                             vegas, cards, moves, "" if finish_ms is None else finish_ms,
                             "" if rank is None else rank])
        writer.writerow([line["player"], name, "total", "", line["played"],
                         "withdrawn" if line.get("withdrawn") else "", line["vegas"],
                         line["foundation"], "", line["time_ms"], line["rank"]])
    return out.getvalue()


def seat_tokens(t: Tournament, seats: Iterable[int]) -> dict[str, int]:
    """The round room's seat token digests: a player's tournament token is their seat's."""
    wanted = set(seats)
    return {p.token: p.player for p in t.players if p.player in wanted}
