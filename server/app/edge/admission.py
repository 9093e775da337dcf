"""Who may open a connection, and how long it may take to ask (the Origin
of a websocket's page is :mod:`.origins`').

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
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import cast

from websockets.asyncio.server import ServerConnection
from websockets.protocol import Event

from .quotas import Quotas, grouped


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
