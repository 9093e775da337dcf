"""A room: players on seats, a lobby, races one after another. Pure state.

Every method takes the time (milliseconds since the epoch) as an argument,
changes the room or raises :class:`RaceError` leaving it untouched, and
returns the event to record. The caller stores the result atomically (and
retries on a version conflict by re-running the method on fresh state).

>>> room = Room.create("ROOM1", Settings(max_players=2), "KL1-D1N-AAAAAAG", "ann", "tok-a", now=0)
>>> room.join("bob", "tok-b", now=10)["kind"]
'joined'
>>> room.join("cat", "tok-c", now=20)
Traceback (most recent call last):
...
server.race.errors.RaceError: the room is full
>>> room.set_ready(1, True, now=30)["kind"]
'ready'
>>> room.start(0, now=100, countdown_ms=3000)["start_at"]
3100
>>> room.phase_at(2000), room.phase_at(3100)
('countdown', 'racing')

Where the seats live is the room's :mod:`.seating`: in this document (a
room of a few) or in the store (a room of thousands: the room holds its
host, phase and race, and the store seats players, counts them and ranks
them).

>>> big = Room.create("ROOM2", Settings(max_players=500), "KL1-D1N-AAAAAAG", "ann", "tok-a", now=0)
>>> big.seating, big.players, big.host, big.host_name, big.next_seat
(COUNTED, [], 0, 'ann', 1)
>>> big.start(0, now=100, countdown_ms=3000)["start_at"], big.racers
(3100, [])

When a player's clock starts is the room's :mod:`.clocks`: with everyone's,
when the host starts the race (above), or, in a challenge, when each player
chooses (:meth:`Room.begin`), the room open for its window from its creation.

>>> ch = Room.create("ROOM3", Settings(window=600), "KL1-D1N-AAAAAAG", "ann", "tok-a", now=0)
>>> ch.phase, ch.deadline, ch.join("bob", "tok-b", now=10)["kind"], ch.racers
('racing', 600000, 'joined', [])
>>> ch.begin(1, now=5000)
{'kind': 'began', 'seat': 1, 'started': 5000, 'ends': 600000}
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from typing import Any, Final, Literal

import orjson

from ..protocol.reasons import Reason
from .clocks import Clock, clock_for
from .errors import RaceError
from .leaderboard import Entry
from .names import check_nickname, same_name, taken_text
from .seating import Seating, seating_for
from .settings import Settings, settings_from_dict
from .tokens import hash_token, stored_digest

Phase = Literal["lobby", "racing", "ended"]
Event = dict[str, Any]

DEFAULT_MAX_RACE_MS: Final = 24 * 3600 * 1000  # a race with no time limit still ends
MAX_SCHEDULE_MS: Final = 7 * 24 * 3600 * 1000  # how far ahead a start may be set
MAX_ARRIVALS: Final = 64  # addresses a quick race's lobby remembers the first coming of


@dataclass(slots=True)
class Player:
    seat: int
    nickname: str
    joined: int
    ready: bool = False
    left: bool = False  # left during a race: kept for that race's results
    rating: str = ""  # a rated room: the player's rating as shown ("1514?"), the server's


@dataclass(slots=True)
class Room:
    id: str
    settings: Settings
    code: str  # this race's deal: secret until the race ends
    created: int
    race: int = 1
    phase: Phase = "lobby"
    host: int = 0
    next_seat: int = 0
    players: list[Player] = field(default_factory=list)
    tokens: dict[str, int] = field(default_factory=dict)  # seat token's digest -> seat (tokens.py)
    racers: list[int] = field(default_factory=list)
    start_at: int | None = None
    deadline: int | None = None
    ended_at: int | None = None
    results: list[Entry] | None = None  # counted seats: the top lines only
    host_name: str = ""  # counted seats: the host (the players are not listed here)
    scheduled: int | None = None  # counted seats: the race starts then (set by its host)
    #: a quick race's lobby: when each address (a digest) first joined it, so that
    #: leaving and joining again does not push its start back (:meth:`_quick_start`)
    arrivals: dict[str, int] = field(default_factory=dict)
    #: a quick race: whom it accepts while it waits, (its opener's shown rating,
    #: the window's width when it opened, its widening per second, ms after
    #: which it takes anyone): its ``pairing`` (:meth:`pairing_view`)
    pairing: list[int] | None = None

    # ------------------------------------------------------------------ building

    @classmethod
    def create(cls, room_id: str, settings: Settings, code: str, nickname: str, token: str,
               *, now: int, rating: str = "") -> Room:
        """A new room whose first seat (0) is the host's (in this document,
        or by the store: see :mod:`.seating`); ``rating``: the host's, shown
        beside their name in a rated room."""
        room = cls(id=room_id, settings=settings, code=code, created=now)
        room.clock.opened(room, now)
        room.seating.seat_host(room, nickname, token, now=now, rating=rating)
        return room

    @classmethod
    def open(cls, room_id: str, settings: Settings, code: str, *, now: int) -> Room:
        """A room nobody hosts, open from now for everyone who comes: a
        challenge the server itself opens (a daily deal is one). Its first
        player seated in its document, if it keeps them there, becomes its host."""
        room = cls(id=room_id, settings=settings, code=code, created=now, host=-1)
        room.clock.opened(room, now)
        return room

    @classmethod
    def for_round(cls, room_id: str, settings: Settings, code: str,
                  players: list[tuple[int, str]], tokens: dict[str, int], *, start_at: int,
                  now: int) -> Room:
        """A tournament round: racing from ``start_at``, no host (the
        organizer is no player). Listed seats: every player seated (seat =
        player number), ``tokens`` mapping their token digests to their seats;
        counted seats: none yet (the store seats each player when they first
        come)."""
        room = cls(id=room_id, settings=settings, code=code, created=now, phase="racing",
                   host=-1, next_seat=max((s for s, _ in players), default=-1) + 1,
                   players=[Player(seat=s, nickname=n, joined=now, ready=True) for s, n in players],
                   tokens=dict(tokens), racers=[s for s, _ in players], start_at=start_at)
        room.deadline = start_at + settings.time_limit * 1000
        return room

    def to_json(self) -> bytes:
        d = asdict(self)
        for p in d["players"]:  # (a room that is not rated keeps no rating field)
            if not p["rating"]:
                del p["rating"]
        return orjson.dumps(d)

    @classmethod
    def from_json(cls, raw: bytes | str) -> Room:
        d = orjson.loads(raw)
        d["settings"] = settings_from_dict(d["settings"])
        d["players"] = [Player(**p) for p in d["players"]]
        d["tokens"] = {stored_digest(k): int(v) for k, v in d["tokens"].items()}
        return cls(**d)

    # ------------------------------------------------------------------ queries

    @property
    def seating(self) -> Seating:
        """Where the room's seats live (its settings say, once for all)."""
        return seating_for(self.settings)

    @property
    def clock(self) -> Clock:
        """When its players' clocks start (its settings say, once for all)."""
        return clock_for(self.settings)

    def player(self, seat: int) -> Player | None:
        for p in self.players:
            if p.seat == seat:
                return p
        return None

    def present(self) -> list[Player]:
        """Players still in the room (not left), in join order."""
        return [p for p in self.players if not p.left]

    def seat_of(self, token: str) -> int | None:
        """The seat whose token this is (looked up by its digest)."""
        return self.tokens.get(hash_token(token))

    def phase_at(self, now: int) -> str:
        """``lobby``, ``countdown`` (started, before its start time), ``racing`` or ``ended``."""
        if self.phase == "racing" and self.start_at is not None and now < self.start_at:
            return "countdown"
        return self.phase

    def listing(self, now: int, players: int | None = None) -> dict[str, Any]:
        """The room as a public lobby lists it: its mode, its players, its
        times; never its code, nor anything of its deal, in any phase (a
        listed race ends out of the list). ``players``: how many, where the
        seats are counted outside this document."""
        s = self.settings
        host = self.player(self.host)
        return {
            "id": self.id, "phase": self.phase_at(now), "mode": s.public()["mode"],
            "players": len(self.present()) if players is None else players,
            "max": s.max_players, "host": host.nickname if host else self.host_name,
            "quick": s.quick > 0, "start_at": self.start_at if self.phase != "lobby" else self.scheduled,
            "time_limit": s.time_limit, "undo": s.undo, "assists": s.assists, "boards": s.boards,
            "deal": "chosen" if s.code is not None else s.deal, "late": s.late == "admit",
            "rated": s.rated,
        }

    def public(self, now: int, counts: Mapping[str, int] | None = None) -> dict[str, Any]:
        """What anyone in or watching the room may know: no tokens, no code
        before the race has ended. Counted seats: the room names its host but
        lists no players: ``field`` has its ``counts`` (players, ready) instead."""
        settings = self.settings.public()
        # the deal chosen by the host is the first race's: a rematch deals a random one
        settings["fixed_code"] = self.settings.code is not None and self.code == self.settings.code
        d: dict[str, Any] = {
            "id": self.id,
            "race": self.race,
            "phase": self.phase_at(now),
            "settings": settings,
            "host": self.host,
        }
        d.update(self.seating.shown(self, counts or {}))
        d["start_at"] = self.start_at if self.phase != "lobby" else self.scheduled
        d.update(self.clock.shown(self))
        d.update({"ended_at": self.ended_at, "now": now})
        if self.pairing is not None and self.phase == "lobby":
            d["pairing"] = self.pairing_view(now)
        if self.phase == "ended":
            d["code"] = self.code
            d["results"] = self.results
        return d

    def pairing_view(self, now: int) -> dict[str, Any]:
        """A waiting quick race's pairing: since when it waits, and the
        ratings it accepts now (``low``..``high``; ``anyone``: any rating,
        from ``anyone_at`` on), with what the client needs to widen the
        window on its own clock (``base`` ± when it opened, ``widen`` per
        second).

        >>> room = Room(id="Q", settings=Settings(), code="", created=1000, pairing=[1560, 100, 20, 30000])
        >>> view = room.pairing_view(11_000)
        >>> view["opened"], view["anyone_at"], view["low"], view["high"], view["anyone"]
        (1000, 31000, 1260, 1860, False)
        >>> room.pairing_view(31_000)["anyone"]
        True
        """
        assert self.pairing is not None
        rating, base, widen, anyone_after = self.pairing
        half = base + widen * max(0, now - self.created) // 1000
        return {"rating": rating, "opened": self.created, "base": base, "widen": widen,
                "anyone_at": self.created + anyone_after, "low": rating - half,
                "high": rating + half, "anyone": now - self.created >= anyone_after}

    # ------------------------------------------------------------------ lobby

    def join(self, nickname: str, token: str, *, now: int, address: str = "",
             rating: str = "") -> Event:
        if self.settings.tournament is not None:  # its seats are the round's, in every phase
            raise RaceError(Reason.ROUND_ROOM)
        racing = self.clock.admits(self)  # (or refused, as the room says)
        name = check_nickname(nickname)
        if len(self.present()) >= self.settings.max_players:
            raise RaceError(Reason.ROOM_FULL)
        taken = next((p.nickname for p in self.present() if same_name(p.nickname, name)), None)
        if taken is not None:
            raise RaceError(Reason.NAME_TAKEN, taken_text(name, taken, "this room"))
        seat = self.next_seat
        self.next_seat += 1
        self.players.append(Player(seat=seat, nickname=name, joined=self._arrival(address, now),
                                   rating=rating if self.settings.rated else ""))
        self.tokens[hash_token(token)] = seat
        if len(self.present()) == 1:
            self.host = seat
        self._quick_start(now)
        event: Event = {"kind": "joined", "seat": seat, "nickname": name}
        if self.settings.rated and rating:
            event["rating"] = rating
        if racing:  # admitted into the race, on a clock of their own once it has begun
            self.racers.append(seat)
            event["racing"] = True
            event["started"] = max(now, self.start_at or now)
        return event

    def set_ready(self, seat: int, ready: bool, *, now: int) -> Event:
        self._need_lobby()
        player = self._seat(seat)
        player.ready = ready
        return {"kind": "ready", "seat": seat, "ready": ready}

    def kick(self, by: int, seat: int, *, now: int) -> Event:
        self._need_host(by)
        self._need_lobby()
        if seat == by:
            raise RaceError(Reason.CANNOT_KICK_SELF)
        self._seat(seat)
        self._remove(seat)
        return {"kind": "kicked", "seat": seat}

    def leave(self, seat: int, *, now: int) -> Event:
        """The player leaves: gone from the lobby, or marked left in a race
        (kept for its results). The host's role passes to the next player."""
        player = self._seat(seat)
        racing = self.phase == "racing" and seat in self.racers
        if racing:
            player.left = True
            self.tokens = {t: s for t, s in self.tokens.items() if s != seat}
        else:
            self._remove(seat)
            self._quick_start(now)
        event: Event = {"kind": "left", "seat": seat, "racing": racing}
        if seat == self.host:
            rest = self.present()
            if rest:
                self.host = rest[0].seat
                event["host"] = self.host
        return event

    def _arrival(self, address: str, now: int) -> int:
        """When a player from ``address`` first joined this quick race's
        lobby (now, for anyone else)."""
        if not self.settings.quick or not address:
            return now
        key = hash_token(address)[:16]
        if key not in self.arrivals and len(self.arrivals) >= MAX_ARRIVALS:
            return now
        return self.arrivals.setdefault(key, now)

    def _quick_start(self, now: int) -> None:
        """A quick race's room starts by itself: ``quick`` seconds after its
        second player came (each player's first coming from their address:
        leaving and joining again does not restart the wait), at once when it
        is full, not at all while it has fewer than two players (one who left
        takes the start back)."""
        wait = self.settings.quick
        if not wait or self.phase != "lobby":
            return
        present = self.present()
        if len(present) >= self.settings.max_players:
            self.scheduled = now
        elif len(present) < 2:
            self.scheduled = None
        elif self.scheduled is None:
            self.scheduled = sorted(p.joined for p in present)[1] + wait * 1000

    def _remove(self, seat: int) -> None:
        self.players = [p for p in self.players if p.seat != seat]
        self.tokens = {t: s for t, s in self.tokens.items() if s != seat}

    # ------------------------------------------------------------------ races

    def start(self, by: int | None, *, now: int, countdown_ms: int,
              max_race_ms: int = DEFAULT_MAX_RACE_MS) -> Event:
        """The host starts (``by`` their seat), or its time set ahead has come
        (``by`` is ``None``): a countdown to ``start_at`` that every client
        shows. A quick race's room starts only by its time."""
        self.clock.check_start()
        if self.phase != "lobby":
            raise RaceError(Reason.NOT_LOBBY, "the race has already started; after it, ask for a rematch")
        if by is not None:
            self._need_host(by)
            if self.settings.quick:
                raise RaceError(Reason.NOT_HOST, "a quick race starts by itself, "
                                                 f"{self.settings.quick} s after its second player")
            self.seating.check_start(self, by)
        self.phase = "racing"
        self.racers = [p.seat for p in self.present()]  # counted seats: the store's
        self.start_at = max(now + countdown_ms, self.scheduled or 0)
        self.scheduled = None
        self.arrivals = {}
        limit = self.settings.time_limit * 1000
        self.deadline = self.start_at + (limit if limit else max_race_ms)
        return {"kind": "start", "race": self.race, "start_at": self.start_at}

    def schedule(self, by: int, at: int, *, now: int) -> Event:
        """The host of a room with counted seats sets the time its race
        starts (the countdown ends then); players may join until it begins."""
        self._need_host(by)
        self.clock.check_start()
        if self.phase != "lobby":
            raise RaceError(Reason.NOT_LOBBY, "the race has already started; after it, ask for a rematch")
        self.seating.check_schedule()
        if not now < at <= now + MAX_SCHEDULE_MS:
            raise RaceError(Reason.BAD_SETTINGS, "a start time is in the next 7 days")
        self.scheduled = at
        return {"kind": "scheduled", "start_at": at}

    def begin(self, seat: int, *, now: int) -> Event:
        """A challenge's player starts their own game now, on their own clock
        (listed seats: a room of thousands begins a seat in the store). It
        ends at ``ends``: their time limit, or the window's close."""
        self.clock.check_begin(self, now)
        self._seat(seat)
        if seat in self.racers:
            raise RaceError(Reason.NOT_LOBBY, "your game has begun already")
        self.racers.append(seat)
        return {"kind": "began", "seat": seat, "started": now,
                "ends": self.clock.ends_at(self, now)}

    def end(self, entries: list[Entry], *, now: int) -> Event:
        """The race is over: final ranking from the seats' lines (a player still
        playing when time ran out is ``unfinished``); the code is revealed.
        Counted seats: ``entries`` are the top lines, already in the store's order."""
        if self.phase != "racing":
            raise RaceError(Reason.NOT_PLAYING, "the race is not running")
        self.phase = "ended"
        self.ended_at = now
        self.results = self.seating.results(self, entries)
        return {"kind": "ended", "race": self.race, "code": self.code}

    def rematch(self, by: int, code: str, *, now: int) -> Event:
        """A new race in the same room and settings, on a new deal (never in
        a tournament round's room: the tournament deals the next round)."""
        if self.settings.tournament is not None:
            raise RaceError(Reason.ROUND_ROOM, "a tournament round is played once; "
                                               "the organizer starts the next round")
        self._need_host(by)
        if self.phase != "ended":
            raise RaceError(Reason.NOT_ENDED)
        self.race += 1
        self.phase = "lobby"
        self.code = code
        self.players = self.present()
        for p in self.players:
            p.ready = False
            p.joined = now  # (in this race's lobby: its quick start counts from now)
        self.racers = []
        self.start_at = self.deadline = self.ended_at = self.scheduled = None
        self.results = None
        self._quick_start(now)
        self.clock.opened(self, now)  # a challenge opens again for its window
        return {"kind": "rematch", "race": self.race}

    # ------------------------------------------------------------------ checks

    def _seat(self, seat: int) -> Player:
        player = self.player(seat)
        if player is None or player.left:
            raise RaceError(Reason.UNKNOWN_SEAT, f"there is no player in seat {seat}")
        return player

    def _need_host(self, seat: int) -> None:
        if seat != self.host:
            raise RaceError(Reason.NOT_HOST)

    def _need_lobby(self) -> None:
        if self.phase == "racing":
            raise RaceError(Reason.NOT_LOBBY)

