"""Fixtures shared by every test: real Redis and server processes (see harness.py)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from pathlib import Path

import pytest
from harness import Client, RedisCluster, RedisServer, ServerProcess, Servers


@pytest.fixture(scope="session")
def redis_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RedisServer]:
    """One Redis for the whole run; tests keep apart by using their own rooms."""
    server = RedisServer(tmp_path_factory.mktemp("redis")).start()
    yield server
    server.stop()


@pytest.fixture(scope="module")
def module_redis(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RedisServer]:
    """A Redis of the test module's own (for keys shared across rooms, such as
    the winnable deals: they start empty, whatever other modules did)."""
    server = RedisServer(tmp_path_factory.mktemp("redis")).start()
    yield server
    server.stop()


@pytest.fixture
def own_redis(tmp_path: Path) -> Iterator[RedisServer]:
    """A Redis for this test alone (to restart or stop it)."""
    server = RedisServer(tmp_path / "redis").start()
    yield server
    server.stop()


@pytest.fixture(scope="module")
def redis_cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RedisCluster]:
    """A Redis Cluster for a test module: 3 masters and 3 replicas (made with
    ``redis-cli --cluster create``); tests keep apart by using their own rooms.
    A test that kills or restarts nodes takes ``own_redis_cluster``."""
    cluster = RedisCluster(tmp_path_factory.mktemp("cluster"))
    try:
        yield cluster.start()
    finally:
        cluster.stop()


@pytest.fixture
def own_redis_cluster(tmp_path: Path) -> Iterator[RedisCluster]:
    """A Redis Cluster for this test alone (to kill a master, say)."""
    cluster = RedisCluster(tmp_path / "cluster")
    try:
        yield cluster.start()
    finally:
        cluster.stop()


@pytest.fixture
def servers(tmp_path: Path) -> Iterator[Servers]:
    """Start servers with ``servers.start(redis_url)``; all are stopped after the
    test, which fails if one of them logged an error."""
    group = Servers(tmp_path)
    yield group
    group.check()


@pytest.fixture(scope="module")
def module_servers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Servers]:
    """The servers of a test module, each started with its own options
    (``module_servers.start(redis.url, args=[...], env={...})``); all are
    stopped after the module's last test, which fails if one of them logged
    an error. A module's ``server`` fixture is one line of it."""
    group = Servers(tmp_path_factory.mktemp("server"))
    yield group
    group.check()


@pytest.fixture(scope="module")
def clock_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The module's servers' clock offset (``--clock-offset-file``), moved by
    its tests (support.challenge.TestClock): a time the product waits for
    comes when the test moves it there."""
    path = tmp_path_factory.mktemp("clock") / "offset"
    path.write_text("0")
    return path


@pytest.fixture(scope="module")
def server(redis_server: RedisServer, module_servers: Servers) -> ServerProcess:
    """One server process per test module, on the session's Redis."""
    return module_servers.start(redis_server.url)


@pytest.fixture
async def connect(server: ServerProcess) -> AsyncIterator[type[Client]]:
    """``await connect("name")``: a client on the module's server, closed after the test."""
    clients: list[Client] = []

    class Opener:
        def __new__(cls, name: str = "", url: str | None = None):  # type: ignore[misc]
            async def go() -> Client:
                client = await Client.open(url or server.ws_url, name)
                clients.append(client)
                return client
            return go()

    yield Opener  # type: ignore[misc]
    for client in clients:
        await client.close()


@pytest.fixture
async def clients() -> AsyncIterator[Callable[..., Awaitable[Client]]]:
    """``await clients(server, "name")``: a client of that server, closed after the test
    (``address=``: it says it comes from there, in the header a server started with
    ``--proxy-header X-Forwarded-For`` trusts)."""
    opened: list[Client] = []

    async def open_(server: ServerProcess, name: str, address: str | None = None) -> Client:
        client = await Client.open(server.ws_url, name, address=address)
        opened.append(client)
        return client

    yield open_
    for client in opened:
        await client.close()
