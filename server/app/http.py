"""Plain HTTP on the websocket port: the web client's files, /healthz, /metrics."""

from __future__ import annotations

import mimetypes
from collections.abc import Awaitable, Callable
from email.utils import formatdate
from http import HTTPStatus
from pathlib import Path
from typing import Final

from websockets.asyncio.server import ServerConnection
from websockets.datastructures import Headers
from websockets.http11 import Request, Response

WS_PATH: Final = "/ws"
_TYPES: Final = {".js": "text/javascript; charset=utf-8", ".mjs": "text/javascript; charset=utf-8",
                 ".css": "text/css; charset=utf-8", ".html": "text/html; charset=utf-8",
                 ".svg": "image/svg+xml", ".json": "application/json", ".png": "image/png",
                 ".ico": "image/x-icon", ".webmanifest": "application/manifest+json"}
_SECURITY: Final = {
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Content-Security-Policy": ("default-src 'self'; connect-src 'self' ws: wss:; "
                                "img-src 'self' data:; style-src 'self'; script-src 'self'; "
                                "frame-ancestors 'none'"),
    "X-Frame-Options": "DENY",  # no page may be framed: the organizer's keeps the admin key
}

ApiHandler = Callable[[str], Awaitable[Response | None]]


def response(status: HTTPStatus, body: bytes, content_type: str,
             extra: dict[str, str] | None = None) -> Response:
    headers = Headers({
        "Content-Type": content_type, "Content-Length": str(len(body)),
        "Cache-Control": "no-cache", "Date": formatdate(usegmt=True), **_SECURITY,
        **(extra or {}),
    })
    return Response(status.value, status.phrase, headers, body)


def text(status: HTTPStatus, body: str) -> Response:
    return response(status, body.encode(), "text/plain; charset=utf-8")


class StaticFiles:
    """Files under a folder; paths without a file extension get ``index.html``
    so that room links like ``/r/ABCD2345`` open the client."""

    def __init__(self, root: Path) -> None:
        self.root = root.resolve()

    def get(self, path: str) -> Response:
        rel = path.lstrip("/") or "index.html"
        target = (self.root / rel).resolve()
        if not target.is_relative_to(self.root):
            return text(HTTPStatus.NOT_FOUND, "not found")
        if not target.is_file():
            if "." in Path(rel).name:
                return text(HTTPStatus.NOT_FOUND, "not found")
            target = self.root / "index.html"
            if not target.is_file():
                return text(HTTPStatus.NOT_FOUND, "the web client is not installed")
        content_type = _TYPES.get(target.suffix) or (
            mimetypes.guess_type(target.name)[0] or "application/octet-stream")
        return response(HTTPStatus.OK, target.read_bytes(), content_type)


Admit = Callable[[ServerConnection, Request], Response | None]


def router(static: StaticFiles, *, health: Callable[[], Awaitable[bool]],
           metrics: Callable[[], bytes], api: ApiHandler | None = None,
           admit: Admit | None = None
           ) -> Callable[[ServerConnection, Request], Awaitable[Response | None]]:
    """The ``process_request`` hook: answer HTTP, or let ``/ws`` upgrade
    (unless ``admit`` answers it first: a connection cap)."""

    async def process_request(connection: ServerConnection, request: Request) -> Response | None:
        path = request.path.split("?", 1)[0]
        if "\x00" in path:  # no file is named so (and the OS refuses such a name)
            return text(HTTPStatus.BAD_REQUEST, "bad path\n")
        if path == WS_PATH:
            return admit(connection, request) if admit is not None else None
        if path == "/healthz":
            if await health():
                return text(HTTPStatus.OK, "ok\n")
            return text(HTTPStatus.SERVICE_UNAVAILABLE, "redis unreachable\n")
        if path == "/metrics":
            return response(HTTPStatus.OK, metrics(), "text/plain; version=0.0.4; charset=utf-8")
        if api is not None and path.startswith("/api/"):
            answer = await api(path)
            return answer or text(HTTPStatus.NOT_FOUND, "not found\n")
        return static.get(path)

    return process_request
