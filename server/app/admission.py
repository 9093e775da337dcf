"""Who may open a connection, from which page, and how long it may take to ask.

**Every TCP connection counts**, from the moment it is accepted until it
closes, whatever it turns out to be (a websocket, a page, a request still on
its way): against the process's open sockets (``--max-connections`` plus
:data:`~.quotas.HTTP_ROOM` for plain HTTP) and, unless a trusted proxy names
the clients (``--proxy-header``: every connection then comes from the proxy,
which protects itself), against its peer address's cap
(``--max-connections-per-address``). Over either it is closed at once,
before a byte of it is read. A request whose head has not all arrived
``--request-timeout`` seconds after the connection opened is closed too: a
client sending a byte now and then ("slowloris") holds a socket for seconds,
not for ever. This is :func:`guarded`, the websockets server's connection
class.

**Origin.** A browser names, in ``Origin``, the page that opens a websocket;
a handshake from a page of another site is refused with 403, so a page
elsewhere cannot make its visitors' browsers play here, each from the
visitor's own address. Accepted: no ``Origin`` at all (a program, not a
browser), the server's own origin (the ``Origin``'s host and port are the
request's ``Host``: the address the browser asked for, also behind a proxy
that passes ``Host`` on as it came), and the origins of
``--allowed-origins``. The scheme is not compared with ``Host`` (behind a TLS
proxy the server sees plain HTTP): a port left out is the default one of the
``Origin``'s scheme. This is :class:`Origins`.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable
from typing import cast

from websockets.asyncio.server import ServerConnection
from websockets.http11 import Request
from websockets.protocol import Event

from .http import DEFAULT_PORTS, host_key, origin_key
from .quotas import Quotas, grouped


class Origins:
    """The pages whose browsers may open a websocket here."""

    def __init__(self, allowed: Iterable[str] = ()) -> None:
        self.allowed = {key for origin in allowed if (key := origin_key(origin)) is not None}

    def allows(self, request: Request) -> bool:
        """Whether the handshake's ``Origin`` (if any) is this server's own or
        an allowed one; more than one ``Origin`` header is refused."""
        origins = request.headers.get_all("Origin")
        if not origins:
            return True
        if len(origins) > 1:
            return False
        origin = origin_key(origins[0])
        if origin is None:
            return False
        if origin in self.allowed:
            return True
        hosts = request.headers.get_all("Host")
        own = host_key(hosts[0]) if len(hosts) == 1 else None
        if own is None:
            return False
        host, port = own
        return origin[1] == host and origin[2] == (port or DEFAULT_PORTS[origin[0]])


def guarded(quotas: Quotas, *, by_peer: bool, request_timeout: float,
            on_timeout: Callable[[], None]) -> type[ServerConnection]:
    """The server's connection class: each connection holds a place under
    ``quotas`` while it is open (its peer address's too, with ``by_peer``),
    is closed at once when there is none, and is closed when its request has
    not arrived within ``request_timeout`` seconds (``on_timeout`` is told)."""

    class Guarded(ServerConnection):
        _address: str | None = None
        _held = False
        _timer: asyncio.TimerHandle | None = None

        def connection_made(self, transport: asyncio.BaseTransport) -> None:
            peer = transport.get_extra_info("peername")
            self._address = grouped(str(peer[0])) if by_peer and peer else None
            self._held = quotas.open(self._address)
            if not self._held:  # closed before anything is set up for it: a refusal is cheap
                cast(asyncio.Transport, transport).abort()
                return
            super().connection_made(transport)  # its handler ends when the socket does
            self._timer = self.loop.call_later(request_timeout, self._too_slow)

        def _too_slow(self) -> None:
            if self.request is None:
                on_timeout()
                self.transport.abort()

        def process_event(self, event: Event) -> None:
            if self.request is None and self._timer is not None:  # the request: in time
                self._timer.cancel()
            super().process_event(event)

        def connection_lost(self, exc: Exception | None) -> None:
            if not self._held:
                return  # refused: nothing was set up
            self._held = False
            if self._timer is not None:
                self._timer.cancel()
            quotas.close(self._address)
            super().connection_lost(exc)

    return Guarded
