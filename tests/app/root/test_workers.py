"""``serve --workers N`` with real processes: N workers on one port
(``SO_REUSEPORT``), each a whole server on the shared Redis, supervised,
stopped together; and ``--workers 1``, the single process of before.

Which worker served a connection is read from its handshake's
``Klondike-Worker`` header; connections are opened until the one wanted
turns up (the kernel spreads them over the workers; ``TRIES`` bounds it).
"""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import subprocess
import sys
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
from harness import ROOT, Client, RedisServer, ServerProcess, Servers, eventually
from play_support import (
    CODE,
    FAST,
    SCRIPT,
    acked,
    events_named,
    health,
    is_alive,
    line,
    play,
    reasons,
    redis_children,
    seen,
    start_race,
    view_after,
    watch,
)
from prometheus_client.parser import text_string_to_metric_families
from tournament_support import http_get, scrape

from server.app.ground import config
from server.app.root.supervisor import reserve

TRIES = 200  # connections opened at most to find a given worker (each lands on one at random)
TWO = {**FAST, "KLONDIKE_WORKERS": "2"}


def worker_of(client: Client) -> int:
    assert client.ws.response is not None
    return int(client.ws.response.headers["Klondike-Worker"])


class Openings:
    """Clients of one server, opened until they land on the workers wanted;
    the others are closed at once, the kept ones after the test."""

    def __init__(self, server: ServerProcess) -> None:
        self.server = server
        self.kept: list[Client] = []

    async def on(self, worker: int, name: str) -> Client:
        for _ in range(TRIES):
            client = await Client.open(self.server.ws_url, name)
            if worker_of(client) == worker:
                self.kept.append(client)
                return client
            await client.close()
        raise AssertionError(f"no connection of {TRIES} landed on worker {worker}")

    async def close(self) -> None:
        for client in self.kept:
            await client.close()


@pytest.fixture(scope="module")
def two(redis_server: RedisServer, tmp_path_factory: pytest.TempPathFactory
        ) -> Iterator[ServerProcess]:
    """A server of two workers on the session's Redis, for the tests that kill nothing."""
    group = Servers(tmp_path_factory.mktemp("workers"))
    server = group.start(redis_server.url, env=TWO, name="two")
    yield server
    problems = group.close()
    assert not problems, "server logged errors:\n" + "\n".join(problems)


@pytest.fixture
async def openings(two: ServerProcess) -> AsyncIterator[Openings]:
    opened = Openings(two)
    yield opened
    await opened.close()


def listening_pid(server: ServerProcess, worker: int) -> int:
    """The pid of the last worker ``worker`` that said it listens."""
    lines = [x for x in events_named(server, "listening") if x.get("worker") == worker]
    return int(lines[-1]["pid"])


# ---------------------------------------------------------------------- one port, N workers

async def test_two_workers_share_the_port_and_each_plays_games(openings: Openings) -> None:
    for worker in (0, 1):
        ann = await openings.on(worker, f"ann on {worker}")
        await ann.solo(nickname="ann", code=CODE)
        await ann.expect("board")
        ack = await ann.move(SCRIPT[0])
        assert ack["t"] == "ack" and ack["d"]["view"] == view_after(SCRIPT[:1])


async def test_a_race_whose_players_are_on_different_workers(openings: Openings) -> None:
    ann, bob = await openings.on(0, "ann"), await openings.on(1, "bob")
    cat = await openings.on(1, "cat")
    room = await start_race(ann, [bob])
    await watch(cat, room)
    await play(ann, SCRIPT[:6])
    await play(bob, SCRIPT[:3])
    for client in (ann, bob, cat):
        await eventually(lambda client=client: seen(
            client, "lb", lambda d: line(d["entries"], 0).get("moves") == 6
            and line(d["entries"], 1).get("moves") == 3), what=f"{client.name}: both lines")


async def test_every_answer_says_which_worker_gave_it(two: ServerProcess) -> None:
    seen_workers = set()
    for _ in range(TRIES):
        reply = await http_get(two, "/healthz")
        assert reply.status == 200
        seen_workers.add(int(reply.headers["Klondike-Worker"]))
        if seen_workers == {0, 1}:
            return
    raise AssertionError(f"only workers {seen_workers} answered")


async def test_metrics_give_every_worker_labelled_and_server_wide_figures_once(
        openings: Openings) -> None:
    await openings.on(1, "ann")
    await openings.on(0, "bob")
    reply = await scrape(openings.server)
    assert reply.status == 200
    families = {f.name: f for f in text_string_to_metric_families(reply.text)}
    connections = {s.labels["worker"]: s.value for s in families["klondike_connections"].samples}
    assert set(connections) == {"0", "1"} and min(connections.values()) >= 1
    for name, family in families.items():
        if name.startswith("klondike_embedded_redis"):  # the supervisor's: given once
            assert [s.labels for s in family.samples] == [{}], name
        else:
            assert all(s.labels.get("worker") in ("0", "1") for s in family.samples), name


async def test_healthz_answers_for_every_worker(two: ServerProcess) -> None:
    status, report = await health(two)
    assert status == 200 and report["status"] == "ok", report
    assert report["workers"] == [{"worker": 0, "status": "ok"}, {"worker": 1, "status": "ok"}]
    assert report["worker"] in (0, 1) and report["redis_memory"]["creations"] == "open"


def test_each_log_line_of_a_worker_names_it(two: ServerProcess) -> None:
    listening = events_named(two, "listening")
    assert sorted(x["worker"] for x in listening) == [0, 1]
    assert len({x["proc"] for x in listening}) == 2  # a heartbeat and presence of its own each
    [ready] = events_named(two, "workers_ready")
    assert "worker" not in ready and ready["pids"] == [x["pid"] for x in
                                                       sorted(listening, key=lambda x: x["worker"])]


# ---------------------------------------------------------------------- supervised

async def test_a_killed_worker_is_restarted_and_its_players_resume(
        redis_server: RedisServer, servers: Servers) -> None:
    server = servers.start(redis_server.url, env=TWO, name="kill")
    opened = Openings(server)
    try:
        ann = await opened.on(1, "ann")
        joined = await ann.solo(nickname="ann", code=CODE)
        await ann.expect("board")
        await play(ann, SCRIPT[:4])
        doomed = listening_pid(server, 1)
        subprocess.run(["kill", "-KILL", str(doomed)], check=True)
        assert await ann.closed() != 1001  # no goodbye
        # while it is down the others serve, and /healthz says so
        _, report = await eventually(lambda: _down(server, 1), what="worker 1 reported down")
        assert "down" in reasons(report)
        await eventually(lambda: events_named(server, "worker_restarted"),
                         timeout=60, what="worker 1 restarted")
        [died] = events_named(server, "worker_died")
        assert (died["worker"], died["pid"], died["signal"]) == (1, doomed, "SIGKILL")
        assert listening_pid(server, 1) != doomed and not is_alive(doomed)

        again = await opened.on(1, "ann again")  # the new worker 1 takes connections
        await again.resume(joined["room"], ann.token, since=ann.v)
        board = await again.expect("board")
        assert board["s"] == max(acked(ann)) == 4 and board["view"] == view_after(SCRIPT[:4])
        again.seq = board["s"]
        ack = await again.move(SCRIPT[4])
        assert ack["t"] == "ack" and ack["d"]["view"] == view_after(SCRIPT[:5])
    finally:
        await opened.close()


async def _down(server: ServerProcess, worker: int) -> tuple[int, dict[str, Any]] | None:
    try:
        status, report = await health(server)
    except OSError:  # landed in the dying worker's accept queue (see docs/operations.md)
        return None
    if status == 503 and {"worker": worker, "status": "down"} in report.get("workers", []):
        return status, report
    return None


async def test_a_worker_that_keeps_dying_waits_longer_each_time(
        redis_server: RedisServer, servers: Servers) -> None:
    server = servers.start(redis_server.url, env=TWO, name="loop")
    for death in (1, 2):
        pid = listening_pid(server, 0)
        subprocess.run(["kill", "-KILL", str(pid)], check=True)
        await eventually(lambda death=death: len(events_named(server, "worker_restarted")) == death,
                         timeout=60, what=f"restart {death}")
    waits = [x["restart_in"] for x in events_named(server, "worker_died")]
    assert waits[1] == 2 * waits[0]  # it had run less than STABLE seconds


# ---------------------------------------------------------------------- stopped together

@pytest.mark.parametrize("ctrl_c", [False, True], ids=["SIGTERM", "Ctrl-C to its process group"])
async def test_a_signal_drains_every_worker_and_the_embedded_redis_then_exits_0(
        ctrl_c: bool, tmp_path: Path, servers: Servers) -> None:
    env = {**TWO, "KLONDIKE_WINNABLE_POOL": "1", "KLONDIKE_WINNABLE_MODES": "D1N"}
    server = servers.start(None, env=env, args=["--data-dir", str(tmp_path / "data")], name="stop",
                           session=True)
    assert server.proc is not None
    [embedded] = redis_children(server.proc.pid)
    opened = Openings(server)
    players = [await opened.on(w, f"p{w}") for w in (0, 1)]
    for player in players:
        await player.solo(nickname=player.name, code=CODE)
        await player.expect("board")
    pids = [listening_pid(server, w) for w in (0, 1)]
    # one embedded Redis for both, and the winnable deals refilled by the first alone
    listening = {x["worker"]: x for x in events_named(server, "listening")}
    assert [listening[w]["redis"] for w in (0, 1)] == ["embedded", "embedded"]
    assert [listening[w]["winnable_pool"] for w in (0, 1)] == [1, 0]
    if ctrl_c:  # as a terminal does: SIGINT to every process of its foreground group
        os.killpg(server.proc.pid, signal.SIGINT)
    else:
        server.proc.send_signal(signal.SIGTERM)
    for player in players:
        assert await player.closed() == 1001
    assert await asyncio.to_thread(server.proc.wait, 60) == 0
    assert not any(is_alive(pid) for pid in (*pids, embedded))
    lines = server.log_lines()
    said = [(x["event"], x.get("worker")) for x in lines]
    assert sorted(w for e, w in said if e == "stopped" and w is not None) == [0, 1]
    # the workers drained, then the supervisor stopped Redis, then itself
    assert said.index(("embedded_redis_stopped", None)) > max(
        i for i, (e, w) in enumerate(said) if e == "stopped" and w is not None)
    assert said[-1] == ("stopped", None)
    assert ("embedded_redis_died", None) not in said
    await opened.close()


def test_a_worker_that_cannot_start_stops_the_start_with_its_one_line(
        own_redis: RedisServer) -> None:
    """Every worker refuses a Redis that does not fsync each write under
    ``--durability fsync``: the server says so once, with a worker's status."""
    clean = {"PATH": "/usr/bin:/bin", "KLONDIKE_WORKERS": "2"}
    done = subprocess.run(
        [sys.executable, "-m", "server", "serve", "--port", "0", "--redis-url", own_redis.url,
         "--durability", "fsync"], cwd=ROOT, env=clean, capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and done.stdout == "" and "Traceback" not in done.stderr
    said = [x for x in done.stderr.splitlines() if x.startswith("klondike-race: ")]
    assert len(said) == 1 and "appendfsync everysec" in said[0]
    assert said[0] == done.stderr.strip().splitlines()[-1]
    assert '"event":"stopped"' in done.stderr.strip().splitlines()[-2]  # the supervisor, last


# ---------------------------------------------------------------------- one worker

async def test_one_worker_is_the_single_process_of_before(
        redis_server: RedisServer, servers: Servers) -> None:
    server = servers.start(redis_server.url, env={"KLONDIKE_WORKERS": "1"}, name="one")
    assert server.proc is not None
    [listening] = events_named(server, "listening")
    assert listening["pid"] == server.proc.pid and "worker" not in listening
    assert not events_named(server, "workers_ready")
    ann = await Client.open(server.ws_url, "ann")
    try:
        assert ann.ws.response is not None and "Klondike-Worker" not in ann.ws.response.headers
    finally:
        await ann.close()
    reply = await scrape(server)
    assert "Klondike-Worker" not in reply.headers and "worker=" not in reply.text
    status, report = await health(server)
    assert status == 200 and "workers" not in report


def test_without_the_option_the_server_runs_a_worker_per_core(
        redis_server: RedisServer, servers: Servers) -> None:
    """The README's command gives no --workers."""
    server = servers.start(redis_server.url, env={"KLONDIKE_WORKERS": ""}, name="default")
    assert server.proc is not None
    cores = config.available_cores()
    listening = events_named(server, "listening")
    if cores == 1:  # one process, as before
        assert [x["pid"] for x in listening] == [server.proc.pid]
    else:
        [ready] = events_named(server, "workers_ready")
        assert ready["workers"] == cores == len(ready["pids"])
        assert sorted(x["worker"] for x in listening) == list(range(cores))


# ---------------------------------------------------------------------- the port

def test_the_port_is_chosen_once_and_held_against_anyone_else() -> None:
    port, held = reserve("127.0.0.1", 0)
    try:
        with socket.socket() as other, pytest.raises(OSError, match=r"(?i)address already in use"):
            other.bind(("127.0.0.1", port))
        with socket.socket() as worker:  # as a worker binds: beside the reservation
            worker.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            worker.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
            worker.bind(("127.0.0.1", port))
            worker.listen()
            with socket.create_connection(("127.0.0.1", port), timeout=5):
                worker.settimeout(5)
                accepted, _ = worker.accept()  # connections go to the listening socket
                accepted.close()
    finally:
        for sock in held:
            sock.close()


def test_a_port_another_server_has_is_refused_even_one_with_workers(two: ServerProcess) -> None:
    clean = {"PATH": "/usr/bin:/bin"}
    done = subprocess.run(
        [sys.executable, "-m", "server", "serve", "--port", str(two.port), "--workers", "2",
         "--redis-url", "redis://127.0.0.1:1/0"], cwd=ROOT, env=clean, capture_output=True,
        text=True, timeout=60)
    assert done.returncode == 1 and done.stdout == "" and "Traceback" not in done.stderr
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith("klondike-race: ") and "address already in use" in last


# ---------------------------------------------------------------------- the option

def test_workers_default_to_the_cores_this_process_may_use() -> None:
    assert config.parse([], env={}).workers == config.available_cores() >= 1
    assert config.parse(["--workers", "3"], env={"KLONDIKE_WORKERS": "5"}).workers == 3
    assert config.parse([], env={"KLONDIKE_WORKERS": "5"}).workers == 5
    for bad in ("0", "-1", "two", str(config.MAX_WORKERS + 1)):
        with pytest.raises(config.ConfigError, match="--workers"):
            config.parse(["--workers", bad], env={})


@pytest.mark.parametrize(("cpu_max", "cores"), [
    ("50000 100000", 1), ("150000 100000", 2), ("max 100000", None), ("garbage", None)])
def test_a_containers_cpu_quota_lowers_the_default(
        cpu_max: str, cores: int | None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    affinity = len(os.sched_getaffinity(0))
    (tmp_path / "cpu.max").write_text(cpu_max + "\n")
    monkeypatch.setattr(config, "_CPU_MAX", str(tmp_path / "cpu.max"))
    assert config.available_cores() == (affinity if cores is None else min(cores, affinity))
