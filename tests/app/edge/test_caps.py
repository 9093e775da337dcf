"""Caps (issue 10, items 3, 4 and 6; issue 16, item 4): websockets per
address and in all, refused at the handshake with 429 or 503 and counted;
creations per address and minute, and live rooms in all, refused with a
typed reject; places in the global caps that an unjoined lobby lets go of
within minutes, and that one address holds a share of at most;
registrations per connection and per address, and invite-code guesses per
address and per tournament; and every page forbids framing.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
import uuid
from pathlib import Path
from typing import Any

import pytest
import redis
from challenge_support import TestClock
from edge_support import metrics, sample
from harness import SUBPROTOCOL, Client, RedisServer, Servers
from race_support import FAST_ARGS
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
        msg = await client.next_frame()
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


async def test_a_challenge_holds_its_place_in_its_address_s_share_until_its_window_closes(
        redis_server: RedisServer, servers: Servers, tmp_path: Path) -> None:
    """Regression (challenges met the places of rooms): a challenge is a room
    made from an address like any other, so it takes a place in the
    address's share, and holds it until its window closes, not the
    --unjoined-hold seconds of a lobby nobody joins (one hold, one script:
    the open challenges' cap is kept the same way)."""
    path = tmp_path / "clock"
    path.write_text("0")
    clock = TestClock(path)
    server = servers.start(redis_server.url, args=[*PROXY, *FAST_ARGS, "--max-rooms", "100",
                                                   "--address-share", "1",
                                                   "--clock-offset-file", str(path)])
    addr = address()
    first = Client(await open_from(server.ws_url, addr), "c")
    second = Client(await open_from(server.ws_url, addr), "d")
    try:
        await first.send("create", {"nickname": "ann", "settings": {"window": 3600}})
        await first.expect("joined")
        await second.send("create", {"nickname": "bob", "settings": {}})
        assert (await second.expect("reject"))["code"] == "address_full"
        clock.move(1200 * 1000)  # twice --unjoined-hold: an unjoined lobby's place is free by now
        await clock.seen(second)
        await second.send("create", {"nickname": "bob", "settings": {}})
        assert (await second.expect("reject"))["code"] == "address_full"
        clock.move(2500 * 1000)  # past the challenge's close
        await clock.seen(second)
        await second.send("create", {"nickname": "bob", "settings": {}})
        await second.expect("joined")
    finally:
        await first.close()
        await second.close()


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


# ---------------------------------------------------------------------- places no one takes from all

def live_until(r: redis.Redis, index: str, ident: str) -> float:
    """Seconds from now until which a room or tournament holds its place."""
    score = r.zscore(index, ident)
    assert score is not None, (index, ident)
    return float(score) / 1000 - time.time()


async def test_a_lobby_nobody_joins_frees_its_place_within_minutes(
        own_redis: RedisServer, servers: Servers) -> None:
    """Regression (probe 5): every creation held a place in the global cap
    for a day, abandoned or not. A lobby nobody joins now holds it
    ``--unjoined-hold`` seconds (10 minutes by default; 1 here); a join
    holds it as long as a lobby is kept (``--lobby-ttl``), from the join."""
    server = servers.start(own_redis.url, args=[*PROXY, "--max-rooms", "2", "--unjoined-hold", "1"])
    r = own_redis.client()
    clients = [Client(await open_from(server.ws_url, address()), f"c{i}") for i in range(5)]
    try:
        lonely = await creates(clients[0], "room", 0)
        joined = await creates(clients[1], "room", 1)
        assert lonely["t"] == joined["t"] == "joined"
        await clients[2].join(joined["d"]["room"], "guest")
        assert live_until(r, "kr:live", joined["d"]["room"]) > 86_400 - 60  # held a day from the join
        assert live_until(r, "kr:live", lonely["d"]["room"]) <= 1
        got = await creates(clients[3], "room", 3)
        assert got["t"] == "reject" and got["d"]["code"] == "server_full", got
        # the lonely lobby's place frees up (the room itself stays: it may still be joined)
        retries = 0
        while got["t"] == "reject":
            await asyncio.sleep(0.2)
            got = await creates(clients[4], "room", 4 + retries)
            retries += 1
        assert got["t"] == "joined"
        await clients[0].send("leave")  # the lonely room is still there
        assert r.exists(f"kr:{{{lonely['d']['room']}}}:room")
    finally:
        r.close()
        for client in clients:
            await client.close()


async def test_one_address_holds_at_most_its_share_of_the_global_caps(
        own_redis: RedisServer, servers: Servers) -> None:
    """Regression (probe 5): with ``--max-tournaments 3``, three ``t_create``
    from one socket made the next organizer's fail ``server_full``. One
    address now holds at most ``--address-share`` per cent of each cap (at
    least one place): past it ``address_full``, and others still create.
    Joining one's own room keeps its place, still counted against its maker."""
    server = servers.start(own_redis.url, args=[*PROXY, "--max-tournaments", "3",
                                                "--max-rooms", "200", "--address-share", "1"])
    junk, organizer = address(), address()
    clients = [Client(await open_from(server.ws_url, junk), f"junk{i}") for i in range(5)]
    honest = Client(await open_from(server.ws_url, organizer), "organizer")
    clients.append(honest)
    try:
        await clients[0].send("t_create", {"name": "Bad", "settings": {"max_players": 0}})
        assert (await clients[0].expect("reject"))["code"] == "bad_settings"  # keeps no place
        assert (await creates(clients[0], "tournament", 0))["t"] == "t_created"
        for client in clients[1:3]:  # not in a room yet: they create one below
            got = await creates(client, "tournament", 1)
            assert got["t"] == "reject" and got["d"]["code"] == "address_full", got
            assert "1 places" in got["d"]["msg"] or "1 place" in got["d"]["msg"]
        assert (await creates(honest, "tournament", 9))["t"] == "t_created"
        # rooms: 1 % of 200 is 2 places; a join (by the same address) keeps the place, counted
        rooms = [await creates(c, "room", i) for i, c in enumerate(clients[1:3])]
        assert [g["t"] for g in rooms] == ["joined", "joined"]
        await clients[3].join(rooms[0]["d"]["room"], "myself")
        got = await creates(clients[4], "room", 4)
        assert got["t"] == "reject" and got["d"]["code"] == "address_full", got
    finally:
        for client in clients:
            await client.close()
    said = [line for line in server.log_lines() if line.get("event") == "creation_refused"]
    assert [(line["reason"], line["address"]) for line in said] == [("address_full", junk)]


async def registers(client: Client, tid: str, nickname: str, invite: str | None = None
                    ) -> dict[str, Any]:
    await client.send("t_register", {"id": tid, "nickname": nickname,
                                     **({} if invite is None else {"invite": invite})})
    while True:
        msg = await client.next_frame()
        if msg["t"] in ("t_registered", "reject"):
            return dict(msg)


async def test_one_connection_or_address_cannot_register_a_whole_tournament(
        redis_server: RedisServer, servers: Servers) -> None:
    """Regression (probe 6): one connection registered 16 nicknames of a
    16-player tournament, and a real player then got ``room_full``. A
    connection registers at most 3 players in 10 minutes, an address makes
    at most ``--registrations-per-minute`` attempts."""
    server = servers.start(redis_server.url, args=[*PROXY, "--registrations-per-minute", "5"])
    crowd, player = address(), address()
    org = Client(await open_from(server.ws_url, address()), "org")
    flood = Client(await open_from(server.ws_url, crowd), "flood")
    others = [Client(await open_from(server.ws_url, crowd), f"crowd{i}") for i in range(3)]
    real = Client(await open_from(server.ws_url, player), "real")
    try:
        tid = (await creates(org, "tournament", 0))["d"]["id"]
        got = [await registers(flood, tid, f"sock{i}") for i in range(5)]
        assert [g["t"] for g in got] == ["t_registered"] * 3 + ["reject"] * 2, got
        assert got[3]["d"]["code"] == "too_many" and "this connection" in got[3]["d"]["msg"]
        # the address: 5 attempts a minute (those its connection refused did not get that far)
        got = [await registers(c, tid, f"other{i}") for i, c in enumerate(others)]
        assert [g["t"] for g in got] == ["t_registered"] * 2 + ["reject"], got
        assert "a minute from one address" in got[2]["d"]["msg"]
        assert (await registers(real, tid, "real"))["t"] == "t_registered"
    finally:
        for client in (org, flood, real, *others):
            await client.close()


async def test_invite_codes_cannot_be_guessed_from_one_address_or_at_one_tournament(
        redis_server: RedisServer, servers: Servers) -> None:
    """Regression (probe 6): invite codes (40 bits) could be guessed without
    limit. 10 wrong codes from an address in 10 minutes, and it may try no
    code (not even the right one); 100 wrong codes at a tournament, and
    registering there with a code pauses for everyone."""
    server = servers.start(redis_server.url, args=PROXY)
    org = Client(await open_from(server.ws_url, address()), "org")
    opened = [org]
    try:
        await org.send("t_create", {"name": "Private", "settings": {"invite": True}})
        created = await org.expect("t_created")
        tid, invite = created["id"], created["invite"]
        guesser = Client(await open_from(server.ws_url, address()), "guesser")
        opened.append(guesser)
        got = [await registers(guesser, tid, f"g{i}", f"WRONG{i:03d}") for i in range(11)]
        assert [g["d"]["code"] for g in got] == ["bad_invite"] * 10 + ["too_many"], got
        assert (await registers(guesser, tid, "g", invite))["d"]["code"] == "too_many"
        assert (await registers(guesser, tid, "g"))["d"]["code"] == "bad_invite"  # no code: no guess
        friend = Client(await open_from(server.ws_url, address()), "friend")
        opened.append(friend)
        assert (await registers(friend, tid, "friend", invite))["t"] == "t_registered"
        # many addresses, one tournament: 100 wrong codes pause registering with a code there
        wrong = 10
        while wrong < 100:
            many = Client(await open_from(server.ws_url, address()), f"many{wrong}")
            opened.append(many)
            for _ in range(min(9, 100 - wrong)):
                assert (await registers(many, tid, "m", f"BAD{wrong:05d}"))["d"]["code"] == "bad_invite"
                wrong += 1
        late = Client(await open_from(server.ws_url, address()), "late")
        opened.append(late)
        got = await registers(late, tid, "late", invite)
        assert got["d"]["code"] == "too_many" and "this tournament" in got["d"]["msg"], got
        # another tournament is not affected
        await org.send("t_create", {"name": "Other", "settings": {"invite": True}})
        other = await org.expect("t_created")
        assert (await registers(late, other["id"], "late", other["invite"]))["t"] == "t_registered"
    finally:
        for client in opened:
            await client.close()
    said = [line for line in server.log_lines() if line.get("event") == "invite_guessing"]
    assert [line["by"] for line in said] == ["address", "tournament"]


async def test_a_class_behind_one_address_registers_with_the_right_code_at_once(
        redis_server: RedisServer, servers: Servers) -> None:
    """Codes sent at the same moment are checked against the count of wrong
    ones as it was: twenty right codes from one address at once all register,
    even beside twenty wrong ones; once those are counted, the address may
    try no more codes (the right one included)."""
    server = servers.start(redis_server.url, args=PROXY)
    school = address()
    org = Client(await open_from(server.ws_url, address()), "org")
    pupils = [Client(await open_from(server.ws_url, school), f"p{i}") for i in range(41)]
    try:
        await org.send("t_create", {"name": "Class", "settings": {"invite": True,
                                                                  "max_players": 100}})
        created = await org.expect("t_created")
        tid, invite = created["id"], created["invite"]
        got = await asyncio.gather(*(
            registers(p, tid, f"p{i}", invite if i % 2 else f"TYPO{i:04d}")
            for i, p in enumerate(pupils[:40])))
        assert [g["t"] for g in got[1::2]] == ["t_registered"] * 20, got
        assert {g["d"]["code"] for g in got[::2]} == {"bad_invite"}
        late = await registers(pupils[40], tid, "late", invite)
        assert late["d"]["code"] == "too_many", late
    finally:
        for client in (org, *pupils):
            await client.close()
