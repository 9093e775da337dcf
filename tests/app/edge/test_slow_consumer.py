"""A slow consumer: a socket whose write buffer stays over the limit is
closed with 1011 after the grace, logged once and counted, well before the
keepalive would drop it (issue 10, item 7; docs/protocol.md, "Close codes")."""

from __future__ import annotations

import socket

from harness import SUBPROTOCOL, Client, RedisServer, Servers
from support.edge import closed, log_events, metrics, sample, wait_for_metric
from websockets.asyncio.client import connect

GRACE = 2.0


async def test_a_socket_that_stops_reading_is_closed_with_1011_after_the_grace(
        redis_server: RedisServer, servers: Servers) -> None:
    server = servers.start(redis_server.url, args=[
        "--msg-burst", "100000", "--msg-rate", "100000", "--slow-buffer", "65536",
        "--slow-grace", str(GRACE)])
    bystander = await Client.open(server.ws_url, "bystander")
    await bystander.expect("hello")
    raw = socket.socket()
    raw.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)  # a reader that keeps nothing
    raw.connect(("127.0.0.1", server.port))
    ws = await connect(server.ws_url, sock=raw, subprotocols=[SUBPROTOCOL],  # type: ignore[list-item]
                       ping_interval=None, max_size=2**24)
    try:
        await ws.recv()  # hello
        await ws.send('{"t":"solo","d":{"nickname":"slow"}}')
        for _ in range(3):
            await ws.recv()
        assert ws.transport is not None
        ws.transport.pause_reading()  # and it never reads again
        for s in range(1, 20001):  # each acked with its whole view: megabytes it never reads
            command = "move" if s % 2 else "undo"
            await ws.send(f'{{"t":"{command}","d":{{"s":{s},"m":"draw"}}}}')
        samples = await wait_for_metric(server, lambda m: closed(m, 1011) >= 1, timeout=60)
        # closed by the policy, not by the keepalive (which would log keepalive_timeout)
        assert not log_events(server, "keepalive_timeout")
        lines = log_events(server, "slow_consumer")
        assert len(lines) == 1 and lines[0]["level"] == "warning"
        assert lines[0]["buffered"] > 65536 and lines[0]["seconds"] >= GRACE
        # said once (that no later check says it again, whatever the wait:
        # tests/app/ground/test_backpressure.py moves the clock past it)
        assert len(log_events(server, "slow_consumer")) == 1
        assert closed(await metrics(server), 1011) == 1
        await bystander.send("ping")  # nobody else noticed
        await bystander.expect("pong")
        assert sample(samples, "klondike_connections") <= 2
    finally:
        ws.transport.abort()  # type: ignore[union-attr]
        await bystander.close()
