"""Caps that keep one address, or everyone at once, from taking the whole
server: open websockets (per address and in all, refused at the handshake
with an HTTP status), and creations (per address and minute, and live rooms
and tournaments in all, refused with a typed reject).

The connection caps are this process's (each process has its own file
descriptors); the creation caps are kept in Redis, so they hold across every
process of one deployment.
"""

from __future__ import annotations

import contextlib
import resource
import time
from collections import Counter, deque
from collections.abc import AsyncIterator, Callable, Mapping
from http import HTTPStatus
from typing import Any, Final, Literal

import structlog
from websockets.asyncio.server import ServerConnection
from websockets.http11 import Request

from ...protocol import Reason
from ...race import RaceError
from ...store import Store, StoreUnavailable
from ..process.config import Config
from ..process.health import Health
from ..process.metrics import Metrics

log = structlog.get_logger("app.edge.quotas")

FD_RESERVE: Final = 64  # descriptors kept for Redis, files and the listening socket
FLOODS: Final = 10  # flooders closed within a minute before their address is barred
BARRED_S: Final = 30.0  # how long it is then refused new websockets
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


def client_address(ws: ServerConnection, request: Request, proxy_header: str | None) -> str:
    """Who is connecting: the peer's address, or, behind a trusted proxy
    (``--proxy-header``), the last address that proxy wrote in its header."""
    if proxy_header is not None:
        named = request.headers.get(proxy_header)
        if named:
            return named.rsplit(",", 1)[-1].strip()[:64] or "?"
    peer = ws.remote_address
    return str(peer[0]) if peer else "?"


class Quotas:
    def __init__(self, config: Config, metrics: Metrics, store: Store,
                 now_ms: Callable[[], int], health: Health) -> None:
        self.config, self.metrics, self.store, self.now_ms = config, metrics, store, now_ms
        self.health = health  # no creation while Redis is nearly full
        self.max_connections = min(config.max_connections, descriptor_room())
        self.per_address: Counter[str] = Counter()
        self.total = 0
        self._logged: set[str] = set()
        self._floods: dict[str, deque[float]] = {}  # address -> when its flooders were closed
        self._barred: dict[str, float] = {}  # address -> until when it may not connect

    # ------------------------------------------------------------------ connections

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
            self.metrics.refused_connections.labels(reason=why).inc()
            if why not in self._logged:  # once per reason until a place frees up
                self._logged.add(why)
                log.warning("connections_refused", reason=why, address=address,
                            open=self.total, cap=self.max_connections if why == "total"
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
        self._logged.clear()

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

    async def creation(self, address: str, kind: Kind) -> None:
        """Count a creation from ``address``, or refuse it (nothing created)."""
        self.health.creation(kind)
        made, live = await self.store.count_creation(address, kind, self.now_ms())
        cap = self.config.max_rooms if kind == "room" else self.config.max_tournaments
        if live >= cap:
            self.metrics.rejected.labels(reason=Reason.SERVER_FULL.value).inc()
            log.warning("creation_refused", reason="server_full", kind=kind, live=live, cap=cap)
            raise RaceError(Reason.SERVER_FULL, f"the server holds {cap} {kind}s, as many as it "
                                                "may: try again later")
        if made > self.config.creations_per_minute:
            self.metrics.rejected.labels(reason=Reason.TOO_MANY.value).inc()
            if made == self.config.creations_per_minute + 1:
                log.warning("creation_refused", reason="too_many", kind=kind, address=address)
            raise RaceError(Reason.TOO_MANY, f"at most {self.config.creations_per_minute} rooms "
                                             "and tournaments a minute from one address: "
                                             "wait a minute")

    async def created(self, kind: Kind, ident: str, until: int | None = None) -> None:
        """A document was created: it counts as live for as long as an idle
        one is kept, or until ``until`` (server ms) if that is later (a
        challenge holds its place until its window closes)."""
        await self.store.live_add(kind, ident, max(until or 0,
                                                   self.now_ms() + self.config.lobby_ttl * 1000))

    @contextlib.asynccontextmanager
    async def challenge(self, address: str, settings: Mapping[str, Any]) -> AsyncIterator[None]:
        """A place for a challenge made from ``address`` while the block
        makes it (nothing for a live race): a challenge holds a place in the
        server's room cap for days, so one address holds at most
        ``--challenges-per-address`` open at once (``too_many`` beyond). A
        block that fails gives the place back."""
        window = settings.get("window")
        if not isinstance(window, int) or isinstance(window, bool) or window <= 0:
            yield
            return
        cap = self.config.challenges_per_address
        now = self.now_ms()
        place = await self.store.hold_challenge(address, now, now + window * 1000, cap)
        if place is None:
            self.metrics.rejected.labels(reason=Reason.TOO_MANY.value).inc()
            log.warning("creation_refused", reason="challenges", address=address, cap=cap)
            raise RaceError(Reason.TOO_MANY, f"{cap} challenges made from your address are "
                                             "open: one more once one of them closes")
        try:
            yield
        except BaseException:
            with contextlib.suppress(StoreUnavailable):
                await self.store.drop_challenge(address, place)
            raise
