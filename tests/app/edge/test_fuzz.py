"""The fuzz and fault suite, sized for CI: about 20 000 hostile frames of
every class (``support.fuzz.CLASSES``, oversize and bad UTF-8 frames,
commands at the racers' seats), hint floods and ping floods, while an honest
race goes on; and hostile HTTP requests. Asserted: no crash and no ERROR log
line (the ``servers`` fixture fails the test on one), no state changed by any
rejected frame, the honest players' acks keep coming, every flooder closed
with 1008, the HTTP side answers each with a 4xx and never a file outside the
web client. ``bench/fuzz.py`` runs the same campaign at full size.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any, Final

import orjson
import redis
from harness import Client, RedisServer, ServerProcess, Servers
from support.edge import metrics, sample
from support.fuzz import (
    CLASSES,
    CODE,
    Tally,
    flooder,
    honest_race,
    hostile_worker,
    http_campaign,
    j,
    open_socket,
)
from support.tournament import Organizer

from server.klondike import Game

FRAMES: Final = 20_000
WORKERS: Final = 60
HTTP_REQUESTS: Final = 3000

HTTP_PROBES: Final = [
    "GET /api/tournaments/../../../etc/passwd/results HTTP/1.1",
    "GET /api/tournaments/ABCDEFGH/results HTTP/1.1",
    "GET /api/tournaments/%00/results.csv HTTP/1.1",
    "GET /api/tournaments/" + "A" * 300 + "/results HTTP/1.1",
    "GET /api/tournaments/ABCDEFGH/rounds/x/replay/y HTTP/1.1",
    "GET /api/tournaments/ABCDEFGH/rounds/99999999999999999999999/replay/1 HTTP/1.1",
    "GET /api/tournaments/ABCDEFGH/rounds/-1/replay/0 HTTP/1.1",
    "GET /api/ HTTP/1.1",
    "GET /api/tournaments HTTP/1.1",
    "POST /api/tournaments/ABCDEFGH/results HTTP/1.1",
    "DELETE / HTTP/1.1",
    "PUT /index.html HTTP/1.1",
    "OPTIONS * HTTP/1.1",
    "GET /../pyproject.toml HTTP/1.1",
    "GET /../../etc/passwd HTTP/1.1",
    "GET /%2e%2e/%2e%2e/etc/passwd HTTP/1.1",
    "GET /%2E%2E/pyproject.toml HTTP/1.1",
    "GET /js/../../pyproject.toml HTTP/1.1",
    "GET /..%2f..%2fserver/app/http.py HTTP/1.1",
    "GET //etc/passwd HTTP/1.1",
    "GET /css/..%5c..%5cpyproject.toml HTTP/1.1",
    "GET /.git/config HTTP/1.1",
    "GET /\x00 HTTP/1.1",
    "GET /" + "a/" * 5000 + " HTTP/1.1",
    "GET /?" + "x" * 20000 + " HTTP/1.1",
    "GET / HTTP/1.0",
    "GET / HTTP/9.9",
    "BREW /pot HTCPCP/1.0",
    "\x16\x03\x01\x02\x00\x01\x00\x01",  # a TLS hello on the plain port
]
SECRETS: Final = (b"root:", b"[project]", b"[core]", b"import ", b"process_request")


async def http_probe(port: int, line: str, extra: str = "") -> bytes:
    """Send one raw request; the answer's first bytes (b"" when the server closed)."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        writer.write(f"{line}\r\nHost: 127.0.0.1\r\n{extra}\r\n".encode("latin-1"))
        await writer.drain()
        async with asyncio.timeout(10):
            return await reader.read(65536)
    except (ConnectionError, TimeoutError):
        return b""
    finally:
        writer.close()
        with contextlib.suppress(ConnectionError):
            await writer.wait_closed()


def status_of(answer: bytes) -> int:
    head = answer.split(b"\r\n", 1)[0].split()
    return int(head[1]) if len(head) > 1 and head[1].isdigit() else 0


async def http_fuzz(server: ServerProcess, index: bytes) -> list[int]:
    """Each probe's status; a 200 must be the web client's page (the fallback
    for paths without an extension, as room links are), nothing else."""
    statuses = []
    for line in HTTP_PROBES:
        answer = await http_probe(server.port, line)
        status = status_of(answer)
        statuses.append(status)
        for secret in SECRETS:
            assert secret not in answer, (line[:80], answer[:200])
        if status == 200:
            assert answer.partition(b"\r\n\r\n")[2] == index, (line[:80], answer[:300])
    for extra in ("X-Big: " + "x" * 20000 + "\r\n", "".join(f"X-{i}: y\r\n" for i in range(500)),
                  "Content-Length: 99999999\r\n", "Transfer-Encoding: chunked\r\n"):
        statuses.append(status_of(await http_probe(server.port, "GET / HTTP/1.1", extra)))
    return statuses


def room_keys(r: redis.Redis) -> set[bytes]:
    return set(r.scan_iter(match="k?:{*}:room", count=1000)) | set(
        r.scan_iter(match="kt:{*}:t", count=1000))


async def test_twenty_thousand_hostile_frames_beside_an_honest_race(
        own_redis: RedisServer, servers: Servers) -> None:
    server = servers.start(own_redis.url)  # the default credit and caps (lifted per address)
    ann, bob = await honest_race(server.ws_url)
    r = redis.Redis.from_url(own_redis.url)
    tally = Tally()
    try:
        documents = room_keys(r)
        before = await metrics(server)

        async def honest(seconds: float) -> None:
            await asyncio.gather(ann.play(seconds), bob.play(seconds))

        per = [FRAMES // WORKERS] * WORKERS
        hostile = asyncio.gather(*(hostile_worker(server.ws_url, ann.room, ["ann", "bob"], n,
                                                  seed, tally) for seed, n in enumerate(per)))
        floods = asyncio.gather(
            # 10 frames every 50 ms: far over the refill even on a starved machine
            *(flooder(server.ws_url, j("hint"), 15.0, tally, per_tick=10, tick=0.05)
              for _ in range(3)),
            *(flooder(server.ws_url, j("ping"), 15.0, tally, per_tick=100, tick=0)
              for _ in range(2)),
            *(flooder(server.ws_url, "{", 15.0, tally, per_tick=50, tick=0) for _ in range(1)))
        # the web client's page as served (the fallback for paths without an extension)
        index = (await http_probe(server.port, "GET / HTTP/1.1")).partition(b"\r\n\r\n")[2]
        assert b"<html" in index
        http = asyncio.ensure_future(http_fuzz(server, index))
        acks_before = ann.acks + bob.acks
        play = asyncio.ensure_future(honest(1.0))
        while not hostile.done():  # the honest race goes on the whole time, second by second
            await play
            assert ann.acks + bob.acks > acks_before, "the honest acks stopped"
            acks_before = ann.acks + bob.acks
            play = asyncio.ensure_future(honest(1.0))
            await asyncio.wait([hostile], timeout=0)
        await play
        await hostile
        flood_codes = await floods
        statuses = await http

        # ---- every class was sent, and the flooders were closed with 1008
        assert tally.frames >= FRAMES
        assert set(CLASSES) | {"oversize", "bad_utf8", "other_seat"} <= set(tally.sent)
        assert flood_codes == [1008] * 6, flood_codes
        # ---- the honest race: every command acknowledged, none refused
        assert not ann.rejects and not bob.rejects, (ann.rejects[:3], bob.rejects[:3])
        assert ann.acks == ann.seq and bob.acks == bob.seq
        # ---- no state changed: no room or tournament made, the race's room as it was
        assert room_keys(r) == documents
        watcher = await open_socket(server.ws_url)
        await watcher.send(j("watch", {"room": ann.room, "since": 0}))
        sync: dict[str, Any] = {}
        while sync.get("t") != "sync":
            sync = orjson.loads(await watcher.recv())
        await watcher.close()
        room = sync["d"]["room"]
        assert [(p["seat"], p["nickname"], p["left"]) for p in room["players"]] == [
            (0, "ann", False), (1, "bob", False)]
        assert room["host"] == 0 and room["phase"] == "racing"
        game = Game(CODE)
        lines = {e["seat"]: e for e in sync["d"]["entries"]}
        for player in (ann, bob):  # draw then undo, over and over: the opening or one draw in
            if player.seq % 2:
                game.push("draw")
            assert lines[player.seat]["moves"] == player.moves == game.moves
            assert lines[player.seat]["status"] == "racing"
            if player.seq % 2:
                game.pop()
        # ---- every refused frame was answered or closed, counted, none was internal
        after = await metrics(server)
        assert sample(after, "klondike_rejected_total", reason="internal") == 0
        assert (sample(after, "klondike_moves_accepted_total")
                - sample(before, "klondike_moves_accepted_total")) >= ann.acks + bob.acks - 4
        assert "bad_json" in tally.answers and "spectator" in tally.answers
        assert "not_in_room" in tally.answers and "bad_token" in tally.answers
        assert tally.closes[1009] > 0 and tally.closes[1007] > 0
        # ---- HTTP: a 4xx for each probe (or a closed socket, or the client's page), no 5xx
        assert all(s in (0, 200) or 400 <= s < 500 for s in statuses), statuses
        healthz = await http_probe(server.port, "GET /healthz HTTP/1.1")
        assert status_of(healthz) == 200
    finally:
        r.close()
        await ann.close()
        await bob.close()


async def test_thousands_of_hostile_http_requests_get_a_4xx_in_json_and_never_a_500(
        server: ServerProcess) -> None:
    """Paths (the API's with odd ids and numbers, the pages, junk), query
    strings, headers (doubled, folded, huge, too many), methods and bodies,
    each valid, odd or broken: every answer is a page, a 304 or a 4xx with a
    JSON body (the websockets library's own 400 to a request it cannot read
    is plain text), none a 5xx, none a secret; and no ERROR in the log."""
    org = Organizer(await Client.open(server.ws_url, "org"))
    try:
        await org.create("Fuzzed")
    finally:
        await org.client.close()
    statuses, problems = await http_campaign(server.port, org.id, HTTP_REQUESTS, seed=16)
    assert not problems, problems[:10]
    assert sum(statuses.values()) == HTTP_REQUESTS
    assert statuses[200] and statuses[304] and statuses[400] and statuses[404], statuses
    assert statuses[0] < HTTP_REQUESTS // 4, statuses  # most reach the server's own code
    assert not [s for s in statuses if s >= 500], statuses
