"""The HTTP side as careful as the websocket (issue 16, items 3 and 7):
malformed requests get a 4xx with a JSON error, never a 500; a websocket
handshake from a page of another site gets 403; every connection counts
against its address's cap from the moment it is accepted, and one whose
request does not come in time is closed.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

import orjson
import pytest
from edge_support import log_events, metrics, sample
from fuzz_support import http_exchange, http_status
from harness import SUBPROTOCOL, Client, RedisServer, ServerProcess, Servers
from tournament_support import Organizer
from websockets.asyncio.client import connect as ws_connect
from websockets.exceptions import InvalidStatus

from server.app.ground import config


@pytest.fixture(scope="module")
def tid(server: ServerProcess) -> str:
    async def create() -> str:
        org = Organizer(await Client.open(server.ws_url, "org"))
        try:
            await org.create("Edge")
            return org.id
        finally:
            await org.client.close()
    return asyncio.run(create())


async def get(server: ServerProcess, target: str, *headers: str,
              host: str | None = None) -> tuple[int, bytes, bytes]:
    """Status, head and body of one raw GET (the target sent byte for byte)."""
    raw = (f"GET {target} HTTP/1.1\r\nHost: {host or f'127.0.0.1:{server.port}'}\r\n"
           + "".join(h + "\r\n" for h in headers) + "\r\n").encode("latin-1")
    answer = await http_exchange(server.port, raw)
    head, _, body = answer.partition(b"\r\n\r\n")
    return http_status(answer), head, body


async def upgrade(server: ServerProcess, host: str, origin: str) -> int:
    """The status of a websocket handshake sent with this ``Host`` and ``Origin``."""
    reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
    try:
        writer.write("\r\n".join(["GET /ws HTTP/1.1", f"Host: {host}", f"Origin: {origin}",
                                   *UPGRADE, f"Sec-WebSocket-Protocol: {SUBPROTOCOL}", "", ""]
                                  ).encode())
        async with asyncio.timeout(10):
            return http_status(await reader.readuntil(b"\r\n\r\n"))
    finally:
        writer.close()


UPGRADE = ("Upgrade: websocket", "Connection: Upgrade",
           "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==", "Sec-WebSocket-Version: 13")


def refusal(body: bytes) -> str:
    data = orjson.loads(body)
    assert set(data) == {"error", "message"} and data["message"], data
    return str(data["error"])


# ---------------------------------------------------------------------- malformed requests

async def test_a_number_that_isdigit_takes_but_int_does_not_is_a_400_not_a_500(
        server: ServerProcess, tid: str) -> None:
    """Regression (probe 9): ``?first=%C2%B2`` is ``²``, which ``str.isdigit``
    accepts and ``int`` refuses: the handler crashed with a 500."""
    for target in (f"/api/tournaments/{tid}/results?first=%C2%B2",
                   f"/api/tournaments/{tid}/results.csv?count=%D9%A1",
                   f"/api/tournaments/{tid}/rounds/1/replay/0?first=%EF%BC%91"):
        status, head, body = await get(server, target)
        assert status == 400 and b"application/json" in head, (target, status, body)
        assert refusal(body) == "bad_field"
    status, _, body = await get(server, f"/api/tournaments/{tid}/rounds/1\x0b/replay/0")
    assert status == 404 and refusal(body) == "not_found", (status, body)


async def test_an_id_ending_in_a_control_character_is_a_404_not_a_500(
        server: ServerProcess, tid: str) -> None:
    """Regression (probe 9): an id with a trailing ``\\x0b`` was found (the
    lookup strips it) and then put in ``Content-Disposition``, which refused
    it: a 500. An id is now an id before it goes anywhere."""
    for target in (f"/api/tournaments/{tid}\x0b/results.csv", f"/api/tournaments/{tid}\x0c/results",
                   f"/api/tournaments/%20{tid}/results.csv"):
        status, _, body = await get(server, target)
        assert status == 404 and refusal(body) == "unknown_room", (target, status, body)
    status, head, _ = await get(server, f"/api/tournaments/{tid.lower()}/results.csv")
    assert status == 200 and f'filename="tournament-{tid}.csv"'.encode() in head


async def test_a_header_sent_twice_is_one_list_not_a_500(server: ServerProcess) -> None:
    """Regression: ``Headers.get`` raises on a second value of a header, and
    the static files read ``Accept-Encoding`` and ``If-None-Match`` with it."""
    status, head, _ = await get(server, "/js/main.js", "Accept-Encoding: br",
                                "Accept-Encoding: gzip")
    assert status == 200 and b"Content-Encoding: gzip" in head
    etag = next(line.split(b": ", 1)[1] for line in head.split(b"\r\n")
                if line.lower().startswith(b"etag:")).decode()
    status, _, body = await get(server, "/js/main.js", 'If-None-Match: "other"',
                                f"If-None-Match: {etag}")
    assert status == 304 and body == b""


async def test_a_path_the_filesystem_refuses_is_a_404_in_json(server: ServerProcess) -> None:
    """Regression: a segment longer than a file name may be (255 bytes) made
    ``is_file`` raise ``ENAMETOOLONG``: a 500."""
    for target in ("/" + "a" * 300 + ".js", "/js/" + "b" * 4000 + ".css", "/%00.js"):
        status, head, body = await get(server, target)
        assert status in (400, 404) and b"application/json" in head, (target[:40], status)
        assert refusal(body) in ("not_found", "bad_path")


async def test_a_websocket_handshake_the_library_refuses_is_answered_in_json(
        server: ServerProcess) -> None:
    status, head, body = await get(server, "/ws")  # no Upgrade
    assert 400 <= status < 500 and b"application/json" in head, (status, body)
    assert refusal(body) == "bad_request"
    status, _, body = await get(server, "/ws", "Upgrade: websocket", "Connection: Upgrade",
                                "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==",
                                "Sec-WebSocket-Version: 99")
    assert 400 <= status < 500 and refusal(body) == "bad_request", (status, body)
    # a handshake in HTTP/1.0: the library says 505, but 1.x is the version spoken here
    answer = await http_exchange(server.port, b"GET /ws HTTP/1.0\r\nHost: x\r\n\r\n")
    assert http_status(answer) == 400, answer[:200]
    assert refusal(answer.partition(b"\r\n\r\n")[2]) == "bad_request"


# ---------------------------------------------------------------------- origin

async def handshake(server: ServerProcess, *headers: tuple[str, str]) -> int:
    """101 for a websocket opened with these headers, or the refusal's status."""
    try:
        ws = await ws_connect(server.ws_url, subprotocols=[SUBPROTOCOL],  # type: ignore[list-item]
                              additional_headers=list(headers))
    except InvalidStatus as exc:
        return exc.response.status_code
    await ws.close()
    return 101


async def test_a_page_of_another_site_cannot_open_a_websocket(
        redis_server: RedisServer, servers: Servers) -> None:
    """Regression (probe 4): a handshake with ``Origin: https://evil.example``
    was accepted and could create rooms, from each visitor's own address."""
    server = servers.start(redis_server.url)
    own = f"http://127.0.0.1:{server.port}"
    for origin in ("https://evil.example", "null", f"http://127.0.0.1:{server.port + 1}",
                   f"http://127.0.0.2:{server.port}", f"{own}/page", "https://evil.example, " + own):
        assert await handshake(server, ("Origin", origin)) == 403, origin
    assert await handshake(server, ("Origin", own), ("Origin", "https://evil.example")) == 403
    status, head, body = await get(server, "/ws", "Origin: https://evil.example", *UPGRADE)
    assert status == 403 and b"application/json" in head and refusal(body) == "origin"
    samples = await metrics(server)
    assert sample(samples, "klondike_refused_connections_total", reason="origin") == 8
    logged = [line["origin"] for line in log_events(server, "origin_refused")]
    assert logged.count("https://evil.example") == 1 and "null" in logged  # once per origin
    # the server's own pages, and programs, which send no Origin
    assert await handshake(server) == 101
    assert await handshake(server, ("Origin", own)) == 101
    assert await handshake(server, ("Origin", own.upper().replace("HTTP", "http"))) == 101


async def test_allowed_origins_and_the_host_a_proxy_passes_on_open_the_websocket(
        redis_server: RedisServer, servers: Servers) -> None:
    server = servers.start(redis_server.url, args=[
        "--allowed-origins", "https://play.example.com, http://localhost:5173"])
    for origin in ("https://play.example.com", "https://play.example.com:443",
                   "http://localhost:5173"):
        assert await handshake(server, ("Origin", origin)) == 101, origin
    for origin in ("http://play.example.com", "https://play.example.com:8443",
                   "https://evil.play.example.com", "http://localhost:5174"):
        assert await handshake(server, ("Origin", origin)) == 403, origin
    # behind a proxy that passes the browser's Host on, the server's own origin is the public one
    for host, origin, status in (
            ("klondike.example.org", "https://klondike.example.org", 101),
            ("klondike.example.org", "http://klondike.example.org", 101),
            ("Klondike.Example.org.", "https://klondike.example.org", 101),
            ("klondike.example.org:8443", "https://klondike.example.org:8443", 101),
            ("klondike.example.org", "https://klondike.example.org:8443", 403),
            ("klondike.example.org:80", "https://klondike.example.org", 403),
            ("[::1]:8080", "http://[::1]:8080", 101)):
        assert await upgrade(server, host, origin) == status, (host, origin)


def test_allowed_origins_are_checked_at_start() -> None:
    cfg = config.parse(["--allowed-origins", "HTTPS://Play.Example.com,http://[::1]:8080,"],
                       env={})
    assert cfg.allowed_origins == ("https://play.example.com:443", "http://[::1]:8080")
    assert config.parse([], env={"KLONDIKE_ALLOWED_ORIGINS": "http://a.example"}
                        ).allowed_origins == ("http://a.example:80",)
    for bad in ("play.example.com", "https://a.example/path", "ftp://a.example", "null",
                "https://a.example:99999"):
        with pytest.raises(config.ConfigError, match="is not an origin"):
            config.parse(["--allowed-origins", bad], env={})


# ---------------------------------------------------------------------- before the handshake

async def half_sent(port: int) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    """A connection whose request never ends (no blank line after its head)."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(b"GET / HTTP/1.1\r\nHost: x\r\n")
    await writer.drain()
    return reader, writer


async def closed_by_server(reader: asyncio.StreamReader, timeout: float = 30.0) -> bytes:
    """What the server sent before closing (waits for the close)."""
    with contextlib.suppress(ConnectionError):
        async with asyncio.timeout(timeout):
            return await reader.read()
    return b""


async def test_half_sent_requests_count_against_the_address_cap_and_are_closed_in_time(
        redis_server: RedisServer, servers: Servers) -> None:
    """Regression (probe 10): 300 half-sent requests from one address were
    all accepted and held for 10 s. Now each connection counts against its
    address's cap from its accept (a websocket too): one over it is closed at
    once, unread; a request not whole after ``--request-timeout`` is closed."""
    server = servers.start(redis_server.url, args=[
        "--max-connections-per-address", "5", "--request-timeout", "1"])
    ws = await Client.open(server.ws_url, "ws")  # a websocket holds a place too
    held = [await half_sent(server.port) for _ in range(4)]
    try:
        reader, writer = await half_sent(server.port)
        assert await closed_by_server(reader, timeout=5) == b""  # the sixth: closed, unread
        writer.close()
        for reader, _ in held:  # the others: closed once their time is up, without an answer
            assert await closed_by_server(reader) == b""
        await ws.send("ping")
        assert (await ws.expect("pong"))["now"] > 0  # the websocket's request came in time
        status, _, _ = await get(server, "/healthz")  # the places are free again
        assert status == 200
    finally:
        for _, writer in held:
            writer.close()
        await ws.close()
    samples = await metrics(server)
    assert sample(samples, "klondike_refused_connections_total", reason="open_per_address") >= 1
    assert sample(samples, "klondike_request_timeouts_total") == 4
    assert [line["reason"] for line in log_events(server, "connections_refused")] == [
        "open_per_address"]


async def test_behind_a_proxy_connections_count_only_in_all_before_the_handshake(
        redis_server: RedisServer, servers: Servers) -> None:
    """With ``--proxy-header`` every connection comes from the proxy: the
    per-address cap then applies to the clients it names, at the handshake."""
    server = servers.start(redis_server.url, args=[
        "--proxy-header", "X-Forwarded-For", "--max-connections-per-address", "2"])
    opened: list[Any] = []
    try:
        for i in range(4):  # four clients through one proxy: more than 2 sockets from its address
            opened.append(await ws_connect(
                server.ws_url, subprotocols=[SUBPROTOCOL],  # type: ignore[list-item]
                additional_headers={"X-Forwarded-For": f"198.51.100.{i}"}))
        opened.append(await ws_connect(server.ws_url, subprotocols=[SUBPROTOCOL],  # type: ignore[list-item]
                                       additional_headers={"X-Forwarded-For": "198.51.100.0"}))
        with pytest.raises(InvalidStatus) as refused:
            await ws_connect(server.ws_url, subprotocols=[SUBPROTOCOL],  # type: ignore[list-item]
                             additional_headers={"X-Forwarded-For": "198.51.100.0"})
        assert refused.value.response.status_code == 429
        assert refusal(refused.value.response.body) == "too_many"
    finally:
        for ws in opened:
            await ws.close()
