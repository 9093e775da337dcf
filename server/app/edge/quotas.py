"""Caps that keep one address, or everyone at once, from taking the whole
server: open connections (every TCP connection from its accept, per peer
address and in all: closed at once over them, see :mod:`.admission`), open
websockets (per address and in all, refused at the handshake with an HTTP
status), and creations (per address and minute, and live rooms and
tournaments in all, refused with a typed reject).

The connection caps are this process's (each process has its own file
descriptors); the creation caps are kept in Redis, so they hold across every
process of one deployment. An IPv6 address counts by its /64 (:func:`grouped`):
one host is usually given a whole /64, and would otherwise have 2⁶⁴
addresses to spread over.
"""

from __future__ import annotations

import contextlib
import ipaddress
import resource
import time
import weakref
from collections import Counter, deque
from collections.abc import AsyncIterator, Callable, Mapping
from dataclasses import dataclass
from http import HTTPStatus
from typing import Any, Final, Literal

import structlog
from websockets.asyncio.server import ServerConnection
from websockets.http11 import Request

from ...protocol import Reason
from ...race import RaceError
from ...store import Store, StoreUnavailable
from ..ground.config import Config
from ..ground.health import Health
from ..ground.metrics import Metrics

log = structlog.get_logger("app.edge.quotas")

FD_RESERVE: Final = 64  # descriptors kept for Redis, files and the listening socket
HTTP_ROOM: Final = 64  # sockets beyond the websockets' cap: pages and /healthz still answered
FLOODS: Final = 10  # flooders closed within a minute before their address is barred
BARRED_S: Final = 30.0  # how long it is then refused new websockets
REGISTRATIONS_PER_CONNECTION: Final = 3  # players one connection registers...
REGISTRATION_WINDOW_S: Final = 600  # ...in this many seconds
INVITE_WINDOW_S: Final = 600  # wrong invite codes are counted over this many seconds:
INVITE_GUESSES_PER_ADDRESS: Final = 10  # from one address (then it may try no code)
INVITE_GUESSES_PER_TOURNAMENT: Final = 100  # at one tournament (then nobody may)
Kind = Literal["room", "tournament"]


def descriptor_room() -> int:
    """How many sockets this process may open: its soft limit of open files,
    raised to the hard limit, less a reserve."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard == resource.RLIM_INFINITY or hard > soft:
        target = 1 << 16 if hard == resource.RLIM_INFINITY else hard
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
            soft = target
        except (ValueError, OSError):
            pass
    return max(1, soft - FD_RESERVE)


def grouped(address: str) -> str:
    """The address as the caps count it: an IPv6 address by its /64 (an
    IPv4 one mapped into IPv6 as itself), anything else as it is.

    >>> grouped("203.0.113.9"), grouped("2001:db8:1:2:3:4:5:6"), grouped("::ffff:10.0.0.1")
    ('203.0.113.9', '2001:db8:1:2::/64', '10.0.0.1')
    >>> grouped("not an address")
    'not an address'
    """
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return address
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.IPv6Network((ip, 64), strict=False))
    return str(ip)


def client_address(ws: ServerConnection, request: Request, proxy_header: str | None) -> str:
    """Who is connecting (:func:`grouped`): the peer's address, or, behind a
    trusted proxy (``--proxy-header``), the last address that proxy wrote in
    its header."""
    if proxy_header is not None:
        named = request.headers.get_all(proxy_header)
        if named:
            return grouped(named[-1].rsplit(",", 1)[-1].strip()[:64] or "?")
    peer = ws.remote_address
    return grouped(str(peer[0])) if peer else "?"


class Quotas:
    def __init__(self, config: Config, metrics: Metrics, store: Store,
                 now_ms: Callable[[], int], health: Health) -> None:
        self.config, self.metrics, self.store, self.now_ms = config, metrics, store, now_ms
        self.health = health  # no creation while Redis is nearly full
        room = descriptor_room()
        self.max_connections = max(1, min(config.max_connections, room - HTTP_ROOM))
        self.max_open = min(self.max_connections + HTTP_ROOM, max(room, self.max_connections))
        self.per_address: Counter[str] = Counter()  # websockets
        self.total = 0
        self.open_per_address: Counter[str] = Counter()  # every connection, from its accept
        self.open_total = 0
        metrics.open_sockets.set_function(lambda: self.open_total)
        self._floods: dict[str, deque[float]] = {}  # address -> when its flooders were closed
        self._barred: dict[str, float] = {}  # address -> until when it may not connect
        self._registered: weakref.WeakKeyDictionary[object, deque[float]] = (
            weakref.WeakKeyDictionary())  # a connection -> when it registered players
        self._said: dict[tuple[str, str], float] = {}  # (event, address) -> when logged

    # ------------------------------------------------------------------ connections

    def open(self, address: str | None) -> bool:
        """Take a place for a connection just accepted (under ``address``
        too, unless ``None``: behind a trusted proxy), or say it has none."""
        why: str | None = None
        if self.open_total >= self.max_open:
            why = "open_total"
        elif address is not None and (self.open_per_address[address]
                                      >= self.config.max_connections_per_address):
            why = "open_per_address"
        if why is not None:
            self._refused(why, address or "?", self.max_open if why == "open_total"
                          else self.config.max_connections_per_address)
            return False
        self.open_total += 1
        if address is not None:
            self.open_per_address[address] += 1
        return True

    def close(self, address: str | None) -> None:
        """A connection that held a place (see :meth:`open`) closed."""
        self.open_total -= 1
        if address is not None:
            self.open_per_address[address] -= 1
            if self.open_per_address[address] <= 0:
                del self.open_per_address[address]

    def _refused(self, why: str, address: str, cap: int) -> None:
        self.metrics.refused_connections.labels(reason=why).inc()
        self._once("connections_refused", why, reason=why, address=address, cap=cap,
                   open=self.open_total if why.startswith("open") else self.total)

    def admit(self, address: str) -> HTTPStatus | None:
        """Take a place for a websocket from ``address``, or the status to refuse it with."""
        why: str | None = None
        barred = self._barred.get(address)
        if barred is not None and barred <= time.monotonic():
            del self._barred[address]
            barred = None
        if barred is not None:
            status, why = HTTPStatus.TOO_MANY_REQUESTS, "flooding"
        elif self.total >= self.max_connections:
            status, why = HTTPStatus.SERVICE_UNAVAILABLE, "total"
        elif self.per_address[address] >= self.config.max_connections_per_address:
            status, why = HTTPStatus.TOO_MANY_REQUESTS, "per_address"
        if why is not None:
            self._refused(why, address, self.max_connections if why == "total"
                          else self.config.max_connections_per_address)
            return status
        self.total += 1
        self.per_address[address] += 1
        return None

    def release(self, address: str) -> None:
        self.total -= 1
        self.per_address[address] -= 1
        if self.per_address[address] <= 0:
            del self.per_address[address]

    def flooded(self, address: str) -> None:
        """A connection from ``address`` was closed for flooding. An address
        whose flooders were closed ``FLOODS`` times within a minute may open
        no websocket for ``BARRED_S`` seconds: a flooder that reconnects at
        once would otherwise cost a burst of work each time."""
        now = time.monotonic()
        closes = self._floods.setdefault(address, deque())
        closes.append(now)
        while closes and closes[0] < now - 60:
            closes.popleft()
        if len(closes) >= FLOODS:
            closes.clear()
            self._barred[address] = now + BARRED_S
            log.warning("address_barred", address=address, seconds=BARRED_S)
        if len(self._floods) > 10_000:  # forget the quiet ones
            for quiet in [a for a, c in self._floods.items() if not c or c[-1] < now - 60]:
                del self._floods[quiet]
            for free in [a for a, until in self._barred.items() if until <= now]:
                del self._barred[free]

    # ------------------------------------------------------------------ creations

    def share(self, kind: Kind) -> int:
        """How many places of ``kind`` one address may hold: ``--address-share``
        per cent of the cap, at least one."""
        cap = self.config.max_rooms if kind == "room" else self.config.max_tournaments
        return max(1, int(cap * self.config.address_share / 100))

    @contextlib.asynccontextmanager
    async def creating(self, address: str, kind: Kind) -> AsyncIterator[Place]:
        """A place kept for a creation from ``address`` while the block
        makes it (and calls :meth:`created`), or a refusal (nothing is then
        created). A block that fails gives the place back."""
        place = await self._creation(address, kind)
        try:
            yield place
        except BaseException:
            with contextlib.suppress(StoreUnavailable):
                await self.store.indexes.drop_reservation(kind, address, place.reservation)
            raise

    async def _creation(self, address: str, kind: Kind) -> Place:
        """Count a creation from ``address`` and keep a place for it, or
        refuse it. Refusals are counted by the connection."""
        self.health.creation(kind)
        cap = self.config.max_rooms if kind == "room" else self.config.max_tournaments
        rate, share = self.config.creations_per_minute, self.share(kind)
        counted = await self.store.indexes.count_creation(address, kind, self.now_ms(), rate=rate,
                                                  share=share)
        if counted.live >= cap:
            if counted.reservation is not None:
                await self.store.indexes.drop_reservation(kind, address, counted.reservation)
            log.warning("creation_refused", reason="server_full", kind=kind, live=counted.live,
                        cap=cap)
            raise RaceError(Reason.SERVER_FULL, f"the server holds {cap} {kind}s, as many as it "
                                                "may: try again later")
        if counted.made > rate:
            self._once("creation_refused", address, reason="too_many", kind=kind, address=address)
            raise RaceError(Reason.TOO_MANY, f"at most {rate} rooms and tournaments a minute "
                                             "from one address: wait a minute")
        if counted.reservation is None:
            self._once("creation_refused", address, reason="address_full", kind=kind, address=address,
                       held=counted.held)
            raise RaceError(Reason.ADDRESS_FULL, f"the {kind}s made from your address hold "
                            f"{counted.held} places, as many as one address may: one that "
                            f"nobody joins frees its place {self._minutes()}")
        return Place(kind, address, counted.reservation)

    async def created(self, place: Place, ident: str, until: int | None = None) -> None:
        """The room or tournament ``place`` was kept for is made: it holds
        its place for ``--unjoined-hold`` seconds, unless someone joins it
        (:meth:`joined`), or until ``until`` (server ms) if that is later (a
        challenge holds its place until its window closes)."""
        until = max(until or 0, self.now_ms() + self.config.unjoined_hold * 1000)
        await self.store.indexes.hold_place(place.kind, ident, place.address, until, place.reservation)

    @contextlib.asynccontextmanager
    async def challenge(self, address: str, settings: Mapping[str, Any]) -> AsyncIterator[None]:
        """A place for a challenge made from ``address`` while the block
        makes it (nothing for a live race): a challenge holds a place in the
        server's room cap for days, so one address holds at most
        ``--challenges-per-address`` open at once (``too_many`` beyond), on
        top of its share of rooms. Its places are held as a room's are (the
        store's ``hold`` script, with a cap). A block that fails gives the
        place back. Refusals are counted by the connection."""
        window = settings.get("window")
        if not isinstance(window, int) or isinstance(window, bool) or window <= 0:
            yield
            return
        cap = self.config.challenges_per_address
        now = self.now_ms()
        place = await self.store.indexes.hold_challenge(address, now, now + window * 1000, cap)
        if place is None:
            self._once("creation_refused", address, reason="challenges", address=address, cap=cap)
            raise RaceError(Reason.TOO_MANY, f"{cap} challenges made from your address are "
                                             "open: one more once one of them closes")
        try:
            yield
        except BaseException:
            with contextlib.suppress(StoreUnavailable):
                await self.store.indexes.drop_reservation("challenge", address, place)
            raise

    async def joined(self, kind: Kind, ident: str) -> None:
        """Someone joined a room (registered in a tournament): it holds its
        place as long as an idle lobby is kept, from now. Not knowing it (a
        storage hiccup) only lets the place go sooner: the join stands."""
        with contextlib.suppress(StoreUnavailable):
            await self.store.indexes.renew_place(kind, ident, self.now_ms() + self.config.lobby_ttl * 1000)

    def _minutes(self) -> str:
        minutes = max(1, round(self.config.unjoined_hold / 60))
        return f"{minutes} minute{'s' if minutes > 1 else ''} after it was made"

    # ------------------------------------------------------------------ registrations

    @contextlib.asynccontextmanager
    async def registering(self, conn: object, address: str, tournament_id: str, *,
                          invite: bool) -> AsyncIterator[None]:
        """A registration from a connection and its address, within their
        rates, while the block registers; or a refusal (nothing registered).
        A connection registers at most :data:`REGISTRATIONS_PER_CONNECTION`
        players in :data:`REGISTRATION_WINDOW_S`, an address makes at most
        ``--registrations-per-minute`` attempts. With an ``invite`` code,
        neither the address nor the tournament may have had too many wrong
        codes lately; a block that fails with ``bad_invite`` counts one more
        for both. (Codes sent at once are all checked against the count as it
        was: so a class behind one address registering with the right code
        at the same moment is never refused, and a guesser's codes in flight
        at once may pass the limit by as many.)"""
        mine = self._registered.setdefault(conn, deque())
        now = time.monotonic()
        while mine and mine[0] <= now - REGISTRATION_WINDOW_S:
            mine.popleft()
        if len(mine) >= REGISTRATIONS_PER_CONNECTION:
            self._once("registration_refused", address, reason="per_connection", address=address)
            raise RaceError(Reason.TOO_MANY, f"this connection registered "
                            f"{REGISTRATIONS_PER_CONNECTION} players in the last "
                            f"{REGISTRATION_WINDOW_S // 60} minutes: a player registers once; "
                            "wait a few minutes")
        _, counted = await self.store.indexes.count_registration(
            address, self.now_ms(), self.config.registrations_per_minute)
        if not counted:
            self._once("registration_refused", address, reason="per_address", address=address)
            raise RaceError(Reason.TOO_MANY, f"at most {self.config.registrations_per_minute} "
                            "registrations a minute from one address: wait a minute")
        if invite:
            await self._guesses_left(address, tournament_id)
        try:
            yield
        except RaceError as exc:
            if invite and exc.reason is Reason.BAD_INVITE:
                with contextlib.suppress(StoreUnavailable):
                    await self.store.indexes.invite_guesses(
                        address, tournament_id, self.now_ms(), INVITE_WINDOW_S * 1000,
                        wrong=(INVITE_GUESSES_PER_ADDRESS, INVITE_GUESSES_PER_TOURNAMENT))
            raise
        mine.append(time.monotonic())

    async def _guesses_left(self, address: str, tournament_id: str) -> None:
        """Refuse an attempt with an invite code if the address, or the
        tournament, had too many wrong ones lately."""
        by_address, by_tournament = await self.store.indexes.invite_guesses(
            address, tournament_id, self.now_ms(), INVITE_WINDOW_S * 1000)
        if by_address >= INVITE_GUESSES_PER_ADDRESS:
            self._once("invite_guessing", address, by="address", address=address)
            raise RaceError(Reason.TOO_MANY, f"{by_address} wrong invite codes from your "
                            f"address in the last {INVITE_WINDOW_S // 60} minutes: wait a while")
        if by_tournament >= INVITE_GUESSES_PER_TOURNAMENT:
            self._once("invite_guessing", tournament_id, by="tournament",
                       tournament=tournament_id)
            raise RaceError(Reason.TOO_MANY, f"{by_tournament} wrong invite codes for this "
                            f"tournament in the last {INVITE_WINDOW_S // 60} minutes: "
                            "registering with a code is paused; try again later")

    def _once(self, event: str, key: str, **fields: object) -> None:
        """A warning, once a minute at most per event and ``key`` (an address,
        a reason): a refusal repeated a thousand times is one line."""
        now = time.monotonic()
        said = self._said.get((event, key))
        if said is not None and said > now - 60:
            return
        if len(self._said) > 10_000:
            self._said = {k: t for k, t in self._said.items() if t > now - 60}
        self._said[event, key] = now
        log.warning(event, **fields)


@dataclass(frozen=True, slots=True)
class Place:
    """A place kept under the caps for a creation from ``address``."""

    kind: Kind
    address: str
    reservation: str
