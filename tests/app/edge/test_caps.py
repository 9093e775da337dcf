"""Caps (issue 10, items 3, 4 and 6): websockets per address and in all,
refused at the handshake with 429 or 503 and counted; creations per address
and minute, and live rooms in all, refused with a typed reject; and every
page forbids framing.
"""

from __future__ import annotations

import contextlib
import uuid
from typing import Any

import pytest
from edge_support import metrics, sample
from harness import SUBPROTOCOL, Client, RedisServer, Servers
from tournament_support import http_get
from websockets.asyncio.client import ClientConnection
from websockets.asyncio.client import connect as ws_connect
from websockets.exceptions import ConnectionClosed, InvalidStatus

PROXY = ["--proxy-header", "X-Forwarded-For"]


def address() -> str:
    return f"10.{uuid.uuid4().int % 250}.{uuid.uuid4().int % 250}.{uuid.uuid4().int % 250}"


async def open_from(url: str, addr: str) -> ClientConnection:
    return await ws_connect(url, subprotocols=[SUBPROTOCOL],  # type: ignore[list-item]
                            additional_headers={"X-Forwarded-For": f"203.0.113.9, {addr}"})


async def refused_status(url: str, addr: str) -> int:
    with pytest.raises(InvalidStatus) as exc:
        await open_from(url, addr)
    assert exc.value.response.headers["Retry-After"] == "10"
    return exc.value.response.status_code


async def test_websockets_per_address_are_capped_with_429_and_counted(
        redis_server: RedisServer, servers: Servers) -> None:
    server = servers.start(redis_server.url, args=[*PROXY, "--max-connections-per-address", "5"],
                           env={"KLONDIKE_MAX_CONNECTIONS_PER_ADDRESS": "5"})
    school, home = address(), address()
    opened = [await open_from(server.ws_url, school) for _ in range(5)]
    try:
        assert await refused_status(server.ws_url, school) == 429
        other = await open_from(server.ws_url, home)  # another address is not affected
        opened.append(other)
        assert (await http_get(server, "/healthz")).status == 200
        await opened[0].close()
        await opened[0].wait_closed()
        opened.append(await open_from(server.ws_url, school))  # a place freed up
        samples = await metrics(server)
        assert sample(samples, "klondike_refused_connections_total", reason="per_address") == 1
        assert sample(samples, "klondike_connections") == 6
    finally:
        for ws in opened:
            await ws.close()
    lines = [line for line in server.log_lines() if line.get("event") == "connections_refused"]
    assert [line["reason"] for line in lines] == ["per_address"]


async def test_websockets_in_all_are_capped_with_503_and_healthz_still_answers(
        redis_server: RedisServer, servers: Servers) -> None:
    """Regression: 236 sockets from one address took every file descriptor;
    then handshakes and /healthz were reset, with nothing logged."""
    server = servers.start(redis_server.url, args=[*PROXY, "--max-connections", "4"])
    opened = [await open_from(server.ws_url, address()) for _ in range(4)]
    try:
        for _ in range(3):
            assert await refused_status(server.ws_url, address()) == 503
        assert (await http_get(server, "/healthz")).status == 200
        samples = await metrics(server)
        assert sample(samples, "klondike_refused_connections_total", reason="total") == 3
    finally:
        for ws in opened:
            await ws.close()


async def creates(client: Client, kind: str, n: int) -> dict[str, Any]:
    payload = {"room": ("create", {"nickname": f"p{n}", "settings": {}}),
               "solo": ("solo", {"nickname": f"p{n}"}),
               "tournament": ("t_create", {"name": f"T{n}", "settings": {}})}[kind]
    await client.send(*payload)
    while True:
        msg = await client._queue.get()
        if msg["t"] in ("joined", "t_created", "reject"):
            return dict(msg)


async def test_creations_per_address_and_minute_are_capped_with_too_many(
        redis_server: RedisServer, servers: Servers) -> None:
    """Regression: 10 138 tournaments in 20 s from 30 sockets of one address."""
    server = servers.start(redis_server.url, args=PROXY,
                           env={"KLONDIKE_CREATIONS_PER_MINUTE": "4"})
    addr = address()
    clients = []
    try:
        for i, kind in enumerate(["room", "solo", "tournament", "room", "tournament", "solo"]):
            ws = await open_from(server.ws_url, addr)  # a socket each: the cap is the address's
            client = Client(ws, f"c{i}")
            clients.append(client)
            got = await creates(client, kind, i)
            if i < 4:
                assert got["t"] in ("joined", "t_created"), got
            else:
                assert got["t"] == "reject" and got["d"]["code"] == "too_many", got
                assert "at most 4" in got["d"]["msg"]
        elsewhere = Client(await open_from(server.ws_url, address()), "elsewhere")
        clients.append(elsewhere)
        assert (await creates(elsewhere, "room", 9))["t"] == "joined"
    finally:
        for client in clients:
            await client.close()


async def test_live_rooms_in_all_are_capped_with_server_full(
        own_redis: RedisServer, servers: Servers) -> None:
    server = servers.start(own_redis.url, args=[*PROXY, "--max-rooms", "2"])
    clients = [Client(await open_from(server.ws_url, address()), f"c{i}") for i in range(3)]
    try:
        assert (await creates(clients[0], "room", 0))["t"] == "joined"
        assert (await creates(clients[1], "solo", 1))["t"] == "joined"
        got = await creates(clients[2], "room", 2)
        assert got["t"] == "reject" and got["d"]["code"] == "server_full", got
        assert (await creates(clients[2], "tournament", 3))["t"] == "t_created"  # its own cap
    finally:
        for client in clients:
            await client.close()


async def test_open_challenges_per_address_are_capped_and_a_refused_one_holds_no_place(
        redis_server: RedisServer, servers: Servers) -> None:
    """A challenge holds a place for its whole window (up to 7 days): one
    address holds at most --challenges-per-address open at once. A
    challenge refused for its settings gives its place back."""
    server = servers.start(redis_server.url, args=[*PROXY, "--challenges-per-address", "2"])
    addr = address()
    client = Client(await open_from(server.ws_url, addr), "c")
    others = Client(await open_from(server.ws_url, address()), "d")
    try:
        for i, settings in enumerate([{"window": 600, "boards": "live"}, {"window": 600},
                                      {"window": 3600}, {"window": 600}, {}]):
            await client.send("create", {"nickname": f"n{i}", "settings": settings})
            got = await client.expect("joined" if i in (1, 2, 4) else "reject")
            if i == 0:
                assert got["code"] == "bad_settings"
            elif i == 3:
                assert got["code"] == "too_many" and "2 challenges" in got["msg"], got
            if "room" in got:
                await client.send("leave")
                await client.expect("left")
        await others.send("create", {"nickname": "x", "settings": {"window": 600}})
        await others.expect("joined")
    finally:
        await client.close()
        await others.close()


@pytest.mark.parametrize("path", ["/", "/index.html", "/t/ABCDEFGH", "/r/ABCD2345",
                                  "/js/main.js", "/healthz", "/metrics", "/missing.png",
                                  "/api/tournaments/ZZZZZZZZ/results"])
async def test_every_page_forbids_being_framed(path: str, server: Any) -> None:
    """Regression: organizer pages (which keep the admin key) could be framed by any site."""
    reply = await http_get(server, path)
    assert reply.headers["X-Frame-Options"] == "DENY", (path, reply.status)
    assert "frame-ancestors 'none'" in reply.headers["Content-Security-Policy"], path


async def test_an_address_whose_flooders_keep_coming_back_is_barred_for_a_while(
        redis_server: RedisServer, servers: Servers) -> None:
    """A flooder closed with 1008 that reconnects at once costs a burst of
    work each time: after 10 such closes in a minute its address may open no
    websocket for 30 s (HTTP 429); other addresses are not affected."""
    server = servers.start(redis_server.url, args=PROXY, env={"KLONDIKE_MSG_BURST": "5",
                                                              "KLONDIKE_MSG_RATE": "1"})
    flooder = address()
    for _ in range(10):
        ws = await open_from(server.ws_url, flooder)
        with contextlib.suppress(ConnectionClosed):
            for _ in range(200):
                await ws.send('{"t":"hint"}')
        await ws.wait_closed()
        assert ws.close_code == 1008
    assert await refused_status(server.ws_url, flooder) == 429
    other = await open_from(server.ws_url, address())
    await other.close()
    samples = await metrics(server)
    assert sample(samples, "klondike_refused_connections_total", reason="flooding") == 1
    assert [line["address"] for line in server.log_lines()
            if line.get("event") == "address_barred"] == [flooder]
