"""Which pages may open the websocket: the ``Origin`` check of the handshake.

A browser names, in ``Origin``, the page that opens a websocket; a
handshake from a page of another site is refused with 403, so a page
elsewhere cannot make its visitors' browsers play here, each from the
visitor's own address. Accepted: no ``Origin`` at all (a program, not a
browser), the server's own origin (the ``Origin``'s host and port are the
request's ``Host``: the address the browser asked for, also behind a proxy
that passes ``Host`` on as it came), and the origins of
``--allowed-origins``. The scheme is not compared with ``Host`` (behind a TLS
proxy the server sees plain HTTP): a port left out is the default one of the
``Origin``'s scheme.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final
from urllib.parse import urlsplit

from websockets.http11 import Request

DEFAULT_PORTS: Final = {"http": 80, "https": 443}


def origin_key(origin: str) -> tuple[str, str, int] | None:
    """``(scheme, host, port)`` of an origin such as ``https://example.com``
    (the port its scheme's default if left out), or ``None`` if it is not
    an http(s) origin (``null``, a path, a user, a bad port...).

    >>> origin_key("https://Play.Example.com"), origin_key("http://[::1]:8080")
    (('https', 'play.example.com', 443), ('http', '::1', 8080))
    >>> origin_key("null"), origin_key("https://a.example/x"), origin_key("ftp://a.example")
    (None, None, None)
    """
    try:
        parts = urlsplit(origin.strip())
        port = parts.port
    except ValueError:
        return None
    if (parts.scheme not in DEFAULT_PORTS or not parts.hostname or parts.path or parts.query
            or parts.fragment or parts.username is not None or parts.password is not None):
        return None
    return parts.scheme, parts.hostname.rstrip("."), port or DEFAULT_PORTS[parts.scheme]


def host_key(host: str) -> tuple[str, int | None] | None:
    """``(host, port)`` of a ``Host`` header (``None`` for the port if it
    names none), or ``None`` if it is not one.

    >>> host_key("Play.example.com"), host_key("127.0.0.1:8080"), host_key("[::1]:80")
    (('play.example.com', None), ('127.0.0.1', 8080), ('::1', 80))
    >>> host_key(""), host_key("a.example:x"), host_key("a/b")
    (None, None, None)
    """
    try:
        parts = urlsplit("//" + host.strip())
        port = parts.port
    except ValueError:
        return None
    if not parts.hostname or parts.path or parts.query or parts.fragment or parts.username:
        return None
    return parts.hostname.rstrip("."), port


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
