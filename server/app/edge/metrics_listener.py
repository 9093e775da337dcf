"""``/metrics`` on an address of its own (``--metrics-address``, loopback by
default): the operator's figures are not the players' business, and a
scrape storm from anyone who can reach the players' port must not reach
them (that port answers ``/metrics`` 404).

The listener answers ``GET /metrics`` and nothing else (404 JSON, as any
page the server has not; no websocket). With ``--workers`` every worker
listens on the address (``SO_REUSEPORT``) and answers for them all, each
merge cached a second and made once at a time (:mod:`..root.siblings`).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from http import HTTPStatus
from typing import Final

from websockets.asyncio.server import Server, ServerConnection, serve
from websockets.http11 import Request, Response

from .http_routes import not_found, response

CONTENT_TYPE: Final = "text/plain; version=0.0.4; charset=utf-8"


async def _no_websocket(connection: ServerConnection) -> None:
    """(Never called: every request is answered before any upgrade.)"""


async def serve_metrics(address: tuple[str, int], metrics: Callable[[], Awaitable[bytes]], *,
                        reuse_port: bool) -> Server:
    """Listen on ``address`` for the scraper."""

    async def answer(connection: ServerConnection, request: Request) -> Response:
        if request.path.split("?", 1)[0] == "/metrics":
            return response(HTTPStatus.OK, await metrics(), CONTENT_TYPE)
        return not_found()

    host, port = address
    return await serve(_no_websocket, host, port, process_request=answer,
                       server_header="klondike-race", reuse_port=reuse_port,
                       open_timeout=5, close_timeout=1)
