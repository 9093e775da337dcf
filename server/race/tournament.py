"""Tournaments: fixed deals round after round, cumulative Vegas standings. Pure.

Each round is a race in a room of its own (see :mod:`.room`); this module
keeps a tournament's header, the same for a club night of 8 and a cup of
10 000: its name and settings, its organizers' keys, whether registration
is open, and its rounds (their codes secret until each ends). Its players
and its standings live in the store (server/store/keys.py), each player's
standing line (:mod:`.standings`) ranked by :func:`~.ranking.standing_score`;
every round's room seats the players who may play it.

>>> t = Tournament.create("T1", "Club night", TournamentSettings(codes=(
...     "KL1-D1V-ABYI5NK", "KL1-D1V-ACT552B")), "admin-token", now=0)
>>> t.close_registration(now=3)["kind"]
'closed'
>>> t.start_round(now=10, start_at=3010, room_id="ROOMAAAA", entrants=2)["kind"]
'round_starting'
>>> event = t.open_round(1, now=11, players=2)
>>> event["room"], t.rounds[0].status, t.rounds[0].public(t.code(1)).get("code")
('ROOMAAAA', 'running', None)
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Final, Literal

import orjson

from ..protocol.reasons import Reason
from .errors import RaceError
from .names import check_name
from .tokens import code_text, hash_token, same_token, stored_digest
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
    "DEFAULT_TOURNAMENT_PLAYERS", "HANDOFF_MS", "MAX_ADMINS", "MAX_ROUNDS",
    "MAX_TOURNAMENT_PLAYERS", "TOURNAMENT_TTL_MS", "Round", "Tournament", "TournamentSettings",
    "parse_tournament_settings",
]

MAX_NAME: Final = 60
TOURNAMENT_TTL_MS: Final = 30 * 24 * 3600 * 1000  # kept a month after its last change
MAX_ADMINS: Final = 4  # devices holding an admin key at once
HANDOFF_MS: Final = 10 * 60 * 1000  # how long an admin handoff code is valid

Event = dict[str, Any]
RoundStatus = Literal["pending", "starting", "running", "ended"]


@dataclass(slots=True)
class Round:
    n: int  # 1-based
    status: RoundStatus = "pending"
    room: str | None = None
    start_at: int | None = None
    ended_at: int | None = None
    players: int | None = None  # once it has started: who may play it (players 0 .. players-1)
    played: int | None = None  # once ended: how many played it

    def public(self, code: str) -> dict[str, Any]:
        """The round as anyone may see it: its ``code`` only once it has ended."""
        item: dict[str, Any] = {"n": self.n, "status": self.status, "room": self.room,
                                "start_at": self.start_at, "ended_at": self.ended_at}
        if self.status == "ended":
            item["code"] = code
        return item


#: what a header stored before its players moved to the store held besides
_LEGACY: Final = ("players", "banned")
_LEGACY_ROUND: Final = ("seats", "results")


@dataclass(slots=True)
class Tournament:
    id: str
    name: str
    settings: TournamentSettings
    admins: list[str]  # the digests of the organizer's admin keys, one per device
    created: int
    registration: bool = True
    rounds: list[Round] = field(default_factory=list)
    invite: str | None = None  # the digest of the invite code, when registering needs one
    handoff: dict[str, Any] | None = None  # a pending admin handoff: {"digest", "until"}

    @classmethod
    def create(cls, tournament_id: str, name: str, settings: TournamentSettings, admin: str,
               *, now: int, invite: str | None = None) -> Tournament:
        """A new tournament; ``admin`` is the organizer's token and ``invite``
        the code registering needs (only their digests are kept)."""
        name = check_name(name, what="a tournament's name", longest=MAX_NAME)
        return cls(id=tournament_id, name=name, settings=settings, admins=[hash_token(admin)],
                   created=now, rounds=[Round(n=i + 1) for i in range(len(settings.codes))],
                   invite=None if invite is None else hash_token(code_text(invite)))

    # ------------------------------------------------------------------ storage

    def to_json(self) -> bytes:
        return orjson.dumps(asdict(self))

    @classmethod
    def from_json(cls, raw: bytes | str) -> Tournament:
        d = orjson.loads(raw)
        for key in _LEGACY:
            d.pop(key, None)
        d["settings"] = settings_from_dict(d["settings"])
        d["rounds"] = [Round(**{k: v for k, v in r.items() if k not in _LEGACY_ROUND})
                       for r in d["rounds"]]
        admins = d.pop("admins", None) or [d.pop("admin")]  # stored before handoffs: one key
        d.pop("admin", None)
        d["admins"] = [stored_digest(a) for a in admins]
        return cls(**d)

    # ------------------------------------------------------------------ queries

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

    def ended(self) -> list[Round]:
        """The rounds played, in order."""
        return [r for r in self.rounds if r.status == "ended"]

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

    def header(self, now: int) -> dict[str, Any]:
        """What anyone may know of the tournament's header: no keys, and a
        round's code only once that round has ended (the standings and the
        field are shown beside it as the tournament shows them)."""
        return {"id": self.id, "name": self.name, "settings": self.settings.public(),
                "registration": self.registration, "now": now}

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
        self.handoff = {"digest": hash_token(code_text(code)), "until": until}
        return until

    def claim(self, code: str, admin: str, *, now: int) -> None:
        """The handoff code, once: ``admin`` becomes one of the organizer's
        keys (the oldest of :data:`MAX_ADMINS` is dropped)."""
        pending = self.handoff
        if (pending is None or now > pending["until"]
                or not same_token(hash_token(code_text(code)), pending["digest"])):
            raise RaceError(Reason.BAD_HANDOFF)
        self.handoff = None
        self.admins = [*self.admins, hash_token(admin)][-MAX_ADMINS:]

    def invite_ok(self, code: str | None) -> bool:
        """Whether ``code`` is the invite code registering needs (any, when none is)."""
        if self.invite is None:
            return True
        return bool(code) and same_token(hash_token(code_text(code or "")), self.invite)

    # ------------------------------------------------------------------ changes

    def close_registration(self, *, now: int) -> Event:
        if not self.registration:
            raise RaceError(Reason.NOT_LOBBY, "registration is already closed")
        self.registration = False
        return {"kind": "closed"}

    def start_round(self, *, now: int, start_at: int, room_id: str, entrants: int) -> Event:
        """The next round will start at ``start_at`` in room ``room_id``, open
        to every player registered by now (``entrants`` of them are not
        out). Registration closes, unless it stays open until a later round
        (``late_until``). The round is ``starting`` until its room exists
        (:meth:`open_round`)."""
        if self.current() is not None:
            raise RaceError(Reason.NOT_ENDED, "the current round has not ended yet")
        nxt = self.next_round()
        if nxt is None:
            raise RaceError(Reason.NOT_LOBBY, "every round has been played")
        if entrants <= 0:
            raise RaceError(Reason.NOT_READY, "nobody is registered")
        if start_at > now + MAX_SCHEDULE_MS:
            raise RaceError(Reason.BAD_SETTINGS, "at: a round starts at most 7 days ahead "
                                                 f"(at most {now + MAX_SCHEDULE_MS}, server ms)")
        if nxt.n >= self.settings.late_until:
            self.registration = False
        nxt.status, nxt.room, nxt.start_at = "starting", room_id, start_at
        return {"kind": "round_starting", "round": nxt.n, "start_at": start_at}

    def open_round(self, n: int, *, now: int, players: int) -> Event:
        """Round ``n``'s room exists: players may enter it (``players``: who
        may play it, players 0 to ``players`` - 1)."""
        r = self.rounds[n - 1]
        if r.status != "starting":
            raise RaceError(Reason.NOT_LOBBY, f"round {n} is not starting")
        r.status, r.players = "running", players
        return {"kind": "round_started", "round": n, "room": r.room, "start_at": r.start_at}

    def end_round(self, n: int, *, now: int, played: int) -> Event:
        """Round ``n`` is over: ``played`` of its players played it (its
        results are its room's)."""
        r = self.rounds[n - 1]
        if r.status != "running":
            raise RaceError(Reason.NOT_PLAYING, f"round {n} is not running")
        r.status, r.ended_at, r.played = "ended", now, played
        return {"kind": "round_ended", "round": n, "code": self.code(n)}


    @property
    def over(self) -> bool:
        """Every round has been played: the standings are final."""
        return all(r.status == "ended" for r in self.rounds)

    def check_not_over(self) -> None:
        """Refuse to change who takes part once the standings are final."""
        if self.over:
            raise RaceError(Reason.NOT_LOBBY, "the tournament is over: its standings are final")

