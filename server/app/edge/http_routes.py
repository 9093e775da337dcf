"""Plain HTTP on the websocket port: the web client's files, /healthz, the
API (``/metrics`` has an address of its own: :mod:`.metrics_listener`).

The web client's files are served so that browsers cache them well without
a build step (see docs/web_client.md, "Loading and caching"):

- every file has an ETag, a hash of its content; a request whose
  ``If-None-Match`` names it is answered ``304 Not Modified``, without a body;
- the page (``index.html``, also sent for every address without a file
  extension, such as ``/r/ROOMID``) is always revalidated (``no-cache``) and
  names every other file by its hash: stylesheets and the icon as
  ``/css/base.css?v=HASH``, and the modules through an import map, so that a
  module's own imports (``./state.js``) load ``/js/state.js?v=HASH`` too;
  ``modulepreload`` hints ask for all of them at once instead of one level
  of imports after the other;
- a file asked for with its current hash is cached for a year (``immutable``);
  with another hash, or none, it is revalidated;
- text files go gzip-compressed to browsers that accept it (each version of
  a file is compressed once and kept in memory).

The import map is an inline script: the page's Content-Security-Policy
allows exactly that one, by its SHA-256. The rule book, ``docs/rules.md``, is
served as ``/rules.md`` (the client's rules page renders it).
"""

from __future__ import annotations

import base64
import gzip
import hashlib
import json
import mimetypes
import re
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from email.utils import formatdate
from http import HTTPStatus
from pathlib import Path
from typing import Final

from websockets.asyncio.server import ServerConnection
from websockets.datastructures import Headers
from websockets.http11 import Request, Response

WS_PATH: Final = "/ws"
RULES: Final = Path(__file__).resolve().parents[3] / "docs" / "rules.md"
_TYPES: Final = {".js": "text/javascript; charset=utf-8", ".mjs": "text/javascript; charset=utf-8",
                 ".css": "text/css; charset=utf-8", ".html": "text/html; charset=utf-8",
                 ".svg": "image/svg+xml", ".json": "application/json", ".png": "image/png",
                 ".ico": "image/x-icon", ".webmanifest": "application/manifest+json",
                 ".md": "text/markdown; charset=utf-8"}
_SECURITY: Final = {
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Content-Security-Policy": ("default-src 'self'; connect-src 'self' ws: wss:; "
                                "img-src 'self' data:; style-src 'self'; script-src 'self'; "
                                "frame-ancestors 'none'"),
    "X-Frame-Options": "DENY",  # no page may be framed: the organizer's keeps the admin key
}
LONG_CACHE: Final = "public, max-age=31536000, immutable"
REVALIDATE: Final = "no-cache"
_COMPRESSIBLE: Final = frozenset({".js", ".mjs", ".css", ".html", ".svg", ".json", ".md", ".webmanifest"})
_GZIP_FROM: Final = 256  # bytes: smaller bodies gain nothing
_MODULES: Final = frozenset({".js", ".mjs"})
_LINK: Final = re.compile(r'\b(href|src)="(/[^"?#]*)"')

#: the request's path and query, and its headers (a seat token, ``Authorization: Bearer``)
ApiHandler = Callable[[str, Headers], Awaitable[Response | None]]


def _headers(content_type: str | None, extra: Mapping[str, str] | None) -> Headers:
    base = {"Content-Type": content_type} if content_type else {}
    return Headers({**base, "Cache-Control": REVALIDATE, "Date": formatdate(usegmt=True),
                    "Connection": "close", **_SECURITY, **(extra or {})})


def response(status: HTTPStatus, body: bytes, content_type: str,
             extra: Mapping[str, str] | None = None) -> Response:
    headers = _headers(content_type, {"Content-Length": str(len(body)), **(extra or {})})
    return Response(status.value, status.phrase, headers, body)


def text(status: HTTPStatus, body: str) -> Response:
    return response(status, body.encode(), "text/plain; charset=utf-8")


def error(status: HTTPStatus, code: str, message: str,
          extra: Mapping[str, str] | None = None) -> Response:
    """A refused request: ``{"error": code, "message": message}``, as every
    4xx and 5xx the server answers itself (``code`` is stable, a reason code
    of docs/protocol.md where there is one)."""
    body = json.dumps({"error": code, "message": message}).encode()
    return response(status, body, "application/json", extra)


def not_found() -> Response:
    return error(HTTPStatus.NOT_FOUND, "not_found", "no such page")


def not_modified(extra: Mapping[str, str]) -> Response:
    """304: the browser's copy is current (no body, no Content-Length)."""
    return Response(HTTPStatus.NOT_MODIFIED.value, HTTPStatus.NOT_MODIFIED.phrase, _headers(None, extra), b"")


@dataclass(frozen=True, slots=True)
class Asset:
    """One file as it is sent: its bytes, gzipped when that pays, its hash."""

    body: bytes
    gzipped: bytes | None
    tag: str
    content_type: str

    @classmethod
    def of(cls, body: bytes, suffix: str) -> Asset:
        tag = hashlib.sha256(body).hexdigest()[:20]
        squeezed = gzip.compress(body, compresslevel=9, mtime=0) \
            if suffix in _COMPRESSIBLE and len(body) >= _GZIP_FROM else None
        if squeezed is not None and len(squeezed) >= len(body):
            squeezed = None
        content_type = _TYPES.get(suffix) or (
            mimetypes.guess_type("x" + suffix)[0] or "application/octet-stream")
        return cls(body, squeezed, tag, content_type)


def accepts_gzip(accept_encoding: str | None) -> bool:
    """Whether an ``Accept-Encoding`` header takes gzip (``q=0`` refuses it)."""
    if not accept_encoding:
        return False
    weights: dict[str, float] = {}
    for part in accept_encoding.lower().split(","):
        name, _, params = part.strip().partition(";")
        q = 1.0
        for param in params.split(";"):
            key, _, value = param.strip().partition("=")
            if key == "q":
                try:
                    q = float(value)
                except ValueError:
                    q = 0.0
        weights[name.strip()] = q
    return weights.get("gzip", weights.get("*", 0.0)) > 0


def matches(if_none_match: str | None, tag: str) -> bool:
    """Whether ``If-None-Match`` names this content (weak comparison, any encoding of it)."""
    if not if_none_match:
        return False
    for candidate in if_none_match.split(","):
        value = candidate.strip()
        if value == "*":
            return True
        if value.removeprefix("W/").strip('"').removesuffix("-gz") == tag:
            return True
    return False


def _joined(headers: Headers, name: str) -> str | None:
    """A list-valued header sent once or several times, as one value (the
    two are the same, RFC 9110 § 5.3; ``Headers.get`` raises on the second)."""
    values = headers.get_all(name)
    return ", ".join(values) if values else None


def _with_script_hash(csp: str, digest: str) -> str:
    """The policy with one more allowed inline script, named by its hash."""
    source = f"'sha256-{digest}'"
    directives = [d.strip() for d in csp.split(";") if d.strip()]
    for i, directive in enumerate(directives):
        if directive.split()[0] == "script-src":
            directives[i] = f"{directive} {source}"
            return "; ".join(directives)
    return "; ".join([*directives, f"script-src 'self' {source}"])


class StaticFiles:
    """Files under a folder (and a few named files elsewhere: ``extra``, by
    default the rule book as ``rules.md``); paths without a file extension get
    ``index.html``, so that room links like ``/r/ABCD2345`` open the client."""

    def __init__(self, root: Path, *, extra: Mapping[str, Path] | None = None) -> None:
        self.root = root.resolve()
        self.extra = dict({"rules.md": RULES} if extra is None else extra)
        self._assets: dict[Path, tuple[tuple[int, int], Asset]] = {}
        self._page: tuple[tuple[tuple[str, int, int], ...], Asset, dict[str, str]] | None = None

    def get(self, path: str, headers: Headers | None = None) -> Response:
        path, _, query = path.partition("?")
        request = headers if headers is not None else Headers()
        rel = path.lstrip("/") or "index.html"
        target = self._find(rel)
        if target is None:
            if "." in Path(rel).name:
                return not_found()
            target = self.root / "index.html"
        if target == self.root / "index.html":
            page = self._the_page()
            if page is None:
                return error(HTTPStatus.NOT_FOUND, "not_found", "the web client is not installed")
            return self._send(page[0], request, REVALIDATE, page[1])
        found = self._asset(target)
        if found is None:
            return not_found()
        current = f"v={found.tag}" in query.split("&")
        return self._send(found, request, LONG_CACHE if current else REVALIDATE)

    def _find(self, rel: str) -> Path | None:
        """The file at ``rel``, if it is one under the root (a name the OS
        refuses, too long or with a NUL, is no file either)."""
        try:
            if rel in self.extra:
                return self.extra[rel] if self.extra[rel].is_file() else None
            target = (self.root / rel).resolve()
            if not target.is_relative_to(self.root) or not target.is_file():
                return None
        except (OSError, ValueError, RuntimeError):  # ENAMETOOLONG, NUL, a symlink loop
            return None
        return target

    def _asset(self, target: Path) -> Asset | None:
        try:
            st = target.stat()
        except OSError:
            return None
        stamp = (st.st_mtime_ns, st.st_size)
        kept = self._assets.get(target)
        if kept is not None and kept[0] == stamp:
            return kept[1]
        try:
            asset = Asset.of(target.read_bytes(), target.suffix)
        except OSError:
            return None
        self._assets[target] = (stamp, asset)
        return asset

    def _files(self) -> list[tuple[str, Path]]:
        """Every file that may be served, as (address, path)."""
        out = [("/" + p.relative_to(self.root).as_posix(), p)
               for p in sorted(self.root.rglob("*")) if p.is_file()]
        return out + [("/" + name, p) for name, p in sorted(self.extra.items()) if p.is_file()]

    def _the_page(self) -> tuple[Asset, dict[str, str]] | None:
        """index.html naming every file by its hash (remade when a file changed)."""
        files = self._files()
        stamps = []
        for url, p in files:
            try:
                st = p.stat()
            except OSError:
                continue
            stamps.append((url, st.st_mtime_ns, st.st_size))
        key = tuple(stamps)
        if self._page is not None and self._page[0] == key:
            return self._page[1], self._page[2]
        index = self._asset(self.root / "index.html")
        if index is None:
            return None
        assets = {url: a for url, p in files if (a := self._asset(p)) is not None}
        html = index.body.decode()
        html = _LINK.sub(lambda m: f'{m[1]}="{m[2]}?v={assets[m[2]].tag}"'
                         if m[2] in assets and m[2] != "/index.html" else m[0], html)
        modules = {url: f"{url}?v={a.tag}" for url, a in assets.items() if Path(url).suffix in _MODULES}
        extra: dict[str, str] = {}
        if modules:
            importmap = json.dumps({"imports": modules}, indent=1)
            digest = base64.b64encode(hashlib.sha256(importmap.encode()).digest()).decode()
            preload = "".join(f'<link rel="modulepreload" href="{v}">\n' for v in modules.values())
            head = f'<script type="importmap">{importmap}</script>\n{preload}'
            at = html.find('<script type="module"')
            at = at if at >= 0 else max(0, html.find("</head>"))
            html = html[:at] + head + html[at:]
            extra["Content-Security-Policy"] = _with_script_hash(_SECURITY["Content-Security-Policy"], digest)
        page = Asset.of(html.encode(), ".html")
        self._page = (key, page, extra)
        return page, extra

    def _send(self, asset: Asset, request: Headers, cache: str,
              extra: Mapping[str, str] | None = None) -> Response:
        gz = asset.gzipped is not None and accepts_gzip(_joined(request, "Accept-Encoding"))
        meta = {"ETag": f'"{asset.tag}-gz"' if gz else f'"{asset.tag}"', "Cache-Control": cache,
                **(extra or {})}
        if asset.gzipped is not None:
            meta["Vary"] = "Accept-Encoding"
        if matches(_joined(request, "If-None-Match"), asset.tag):
            return not_modified(meta)
        body = asset.body
        if gz and asset.gzipped is not None:
            meta["Content-Encoding"] = "gzip"
            body = asset.gzipped
        return response(HTTPStatus.OK, body, asset.content_type, meta)


def first_answer(*handlers: ApiHandler) -> ApiHandler:
    """One API handler of several (each answers its own paths, ``None`` to the rest)."""

    async def handle(target: str, headers: Headers) -> Response | None:
        for handler in handlers:
            answer = await handler(target, headers)
            if answer is not None:
                return answer
        return None

    return handle


Admit = Callable[[ServerConnection, Request], Response | None]


def json_errors(connection: ServerConnection, request: Request, answer: Response) -> Response:
    """The ``process_response`` hook: a refusal the websockets library wrote
    itself for a handshake it read (a ``/ws`` request missing a header, say:
    plain text) gets the JSON body of every other refusal."""
    if (answer.status_code < 400 or request.path.split("?", 1)[0] != WS_PATH
            or answer.body.startswith(b"{")):
        return answer
    reason = answer.body.decode(errors="replace").strip().splitlines()[:1] or [""]
    status = HTTPStatus(answer.status_code)
    if status is HTTPStatus.HTTP_VERSION_NOT_SUPPORTED:  # HTTP/1.0: 1.x is the version we speak
        status = HTTPStatus.BAD_REQUEST
    refused = error(status, "bad_request" if status < 500 else "unavailable",
                    reason[0][:200] or status.phrase)
    for name in ("Upgrade", "Sec-WebSocket-Version", "Server"):  # what it told the client
        for value in answer.headers.get_all(name):
            refused.headers[name] = value
    return refused


def router(static: StaticFiles, *, health: Callable[[], Awaitable[tuple[bool, object]]],
           api: ApiHandler | None = None, admit: Admit | None = None
           ) -> Callable[[ServerConnection, Request], Awaitable[Response | None]]:
    """The ``process_request`` hook: answer HTTP, or let ``/ws`` upgrade
    (unless ``admit`` answers it first: a connection cap)."""

    async def process_request(connection: ServerConnection, request: Request) -> Response | None:
        path = request.path.split("?", 1)[0]
        if "\x00" in path:  # no file is named so (and the OS refuses such a name)
            return error(HTTPStatus.BAD_REQUEST, "bad_path", "a path holds no NUL character")
        if path == WS_PATH:
            return admit(connection, request) if admit is not None else None
        if path == "/healthz":  # (server/app/ground/health.py)
            ok, body = await health()
            return response(HTTPStatus.OK if ok else HTTPStatus.SERVICE_UNAVAILABLE,
                            json.dumps(body).encode(), "application/json")
        if path == "/metrics":  # the operator's, on --metrics-address (not the web client's page)
            return not_found()
        if api is not None and path.startswith("/api/"):
            answer = await api(request.path, request.headers)  # with its query: a page
            return answer or not_found()
        return static.get(request.path, request.headers)

    return process_request
