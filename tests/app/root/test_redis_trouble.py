"""Redis's trouble is ``unavailable``, never ``internal`` (issue 16, probe 8),
with real redis-servers put in each state: out of memory, a read-only
replica, a replica that lost its master, busy with a script, a script cache
flushed. Each refused command is answered ``unavailable`` and counted; the
log has one line per episode (not per command), ``/healthz`` says 503 with
the kind meanwhile, and play goes on once Redis is well. Rooms and
tournaments are no longer created past 90 % of ``maxmemory``; the embedded
Redis runs with a ``maxmemory`` sized from the machine and ``noeviction``.

Regression: a move with Redis out of memory was answered ``internal`` with
a traceback in the log, and ``/healthz`` said ok; the embedded Redis ran
with no ``maxmemory``.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest
import redis
from harness import Client, RedisServer, ServerProcess, Servers, eventually, wait_until
from play_support import (
    CODE,
    FAST,
    SCRIPT,
    Opener,
    events_named,
    health,
    metric,
    reasons,
    start_race,
    unix_redis,
)

from server.app.ground.config import ConfigError, parse
from server.app.root.embedded_redis import default_maxmemory


async def answer_to(client: Client, t: str, d: dict[str, Any]) -> dict[str, Any]:
    """Send ``t``; its answer (``joined`` or the reject)."""
    seen = len(client.frames)
    await client.send(t, d)

    def found() -> dict[str, Any] | None:
        for msg in client.frames[seen:]:
            if msg["t"] in ("joined", "t_created") or (
                    msg["t"] == "reject" and msg["d"].get("cmd") == t):
                return msg
        return None
    return dict(await eventually(found, what=f"{client.name}: an answer to {t}"))


def code_of(answer: dict[str, Any]) -> str:
    return str(answer["d"]["code"]) if answer["t"] == "reject" else str(answer["t"])


async def racing(redis: RedisServer, servers: Servers, clients: Opener
                 ) -> tuple[ServerProcess, Client, Client]:
    """A server on ``redis``, and ann and bob racing on it."""
    s = servers.start(redis.url, env=FAST)
    ann, bob = await clients(s, "ann"), await clients(s, "bob")
    await start_race(ann, [bob])
    return s, ann, bob


async def healthy(server: ServerProcess) -> bool:
    return (await health(server))[0] == 200


async def test_redis_out_of_memory_is_unavailable_logged_once_counted_and_shown_by_healthz(
        own_redis: RedisServer, servers: Servers, clients: Opener) -> None:
    s, ann, _ = await racing(own_redis, servers, clients)
    r = own_redis.client()
    try:
        r.config_set("maxmemory", 1)
        for _ in range(5):  # each one refused, none stored, none answered internal
            answer = await ann.move(SCRIPT[0])
            assert (answer["t"], answer["d"]["code"]) == ("reject", "unavailable"), answer
            ann.seq -= 1  # (the same command again: nothing was stored)
        status, report = await health(s)
        assert status == 503 and report["status"] == "degraded" and "oom" in reasons(report)
        assert await metric(s, "klondike_redis_errors_total", kind="oom") >= 5
        assert await metric(s, "klondike_rejected_total", reason="internal") == 0
        troubles = events_named(s, "redis_trouble")
        assert [t["kind"] for t in troubles] == ["oom"], troubles  # once, not once a command
        assert not events_named(s, "command_failed")
    finally:
        r.config_set("maxmemory", 0)
        r.close()
    assert (await ann.move(SCRIPT[0]))["t"] == "ack"
    await eventually(lambda: healthy(s), timeout=30, what="/healthz 200 once Redis is well")
    recovered = await eventually(lambda: events_named(s, "redis_recovered"), what="recovered")
    assert len(recovered) == 1 and recovered[0]["kinds"] == ["oom"]
    assert recovered[0]["commands"] >= 5


async def test_creations_stop_past_ninety_percent_of_maxmemory_while_races_go_on(
        own_redis: RedisServer, servers: Servers, clients: Opener) -> None:
    s = servers.start(own_redis.url, env=FAST)
    ann, bob, cat = await clients(s, "ann"), await clients(s, "bob"), await clients(s, "cat")
    room = await start_race(ann, [bob])
    r = own_redis.client()
    try:
        used = int(r.info("memory")["used_memory"])
        r.config_set("maxmemory", int(used / 0.95))

        async def refused() -> bool:
            return bool((await health(s))[1]["redis_memory"]["creations"] == "refused")
        await eventually(refused, what="creations refused at 95 % of maxmemory")
        for t, d in (("create", {"nickname": "cat", "settings": {}}),
                     ("solo", {"nickname": "cat"}),
                     ("t_create", {"name": "Cup", "settings": {"codes": [CODE]}})):
            assert code_of(await answer_to(cat, t, d)) == "server_full", t
        # the race under way goes on, and anyone may still watch or join rooms
        assert (await ann.move(SCRIPT[0]))["t"] == "ack"
        await cat.send("watch", {"room": room, "since": 0})
        await cat.expect("watching")
        assert len(events_named(s, "creations_refused")) == 1
    finally:
        r.config_set("maxmemory", 0)
        r.close()
    other = await clients(s, "dan")

    async def opened() -> bool:
        return bool((await health(s))[1]["redis_memory"]["creations"] == "open")
    await eventually(opened, what="creations open again")
    assert code_of(await answer_to(other, "create", {"nickname": "dan", "settings": {}})) == "joined"


async def test_a_read_only_replica_answers_unavailable_until_it_is_promoted(
        own_redis: RedisServer, tmp_path: Path, servers: Servers, clients: Opener) -> None:
    replica = RedisServer(tmp_path / "replica",
                          args=["--replicaof", "127.0.0.1", str(own_redis.port)]).start()
    try:
        r = replica.client()
        wait_until(lambda: r.info("replication").get("master_link_status") == "up",
                   what="the replica's link up")
        s = servers.start(replica.url, env=FAST)  # the wrong node (or a failover's old master)
        ann = await clients(s, "ann")
        assert code_of(await answer_to(ann, "create", {"nickname": "ann", "settings": {}})) == (
            "unavailable")
        status, report = await health(s)
        assert status == 503 and "readonly" in reasons(report), report
        assert await metric(s, "klondike_redis_errors_total", kind="readonly") >= 1
        r.execute_command("REPLICAOF", "NO", "ONE")
        r.close()
        assert code_of(await answer_to(ann, "create", {"nickname": "ann", "settings": {}})) == (
            "joined")
        await eventually(lambda: healthy(s), timeout=30, what="/healthz 200 once promoted")
    finally:
        replica.stop()


async def test_a_replica_that_lost_its_master_answers_masterdown_as_unavailable(
        own_redis: RedisServer, tmp_path: Path, servers: Servers, clients: Opener) -> None:
    replica = RedisServer(tmp_path / "replica", args=[
        "--replicaof", "127.0.0.1", str(own_redis.port), "--replica-serve-stale-data", "no"]).start()
    try:
        r = replica.client()
        wait_until(lambda: r.info("replication").get("master_link_status") == "up",
                   what="the replica's link up")
        s = servers.start(replica.url, env=FAST)
        own_redis.kill()
        wait_until(lambda: r.info("replication").get("master_link_status") == "down",
                   what="the replica's link down")
        r.close()
        ann = await clients(s, "ann")
        await ann.send("watch", {"room": "AAAAAAAA", "since": 0})  # a read: MASTERDOWN
        refused = await ann.expect("reject")
        assert refused["code"] == "unavailable", refused
        await eventually(lambda: metric(s, "klondike_redis_errors_total", kind="masterdown"),
                         what="masterdown counted")
        assert "masterdown" in reasons((await health(s))[1])
    finally:
        replica.stop()


async def test_a_busy_redis_answers_unavailable_until_its_script_is_killed(
        tmp_path: Path, servers: Servers, clients: Opener) -> None:
    busy = RedisServer(tmp_path / "redis", args=["--busy-reply-threshold", "50"]).start()
    try:
        s, ann, _ = await racing(busy, servers, clients)
        spinning = busy.client()
        outcome: list[str] = []

        def spin() -> None:  # a script of someone else's that never ends by itself
            try:
                spinning.eval("while true do end", 0)
            except redis.ResponseError as exc:
                outcome.append(str(exc))

        thread = threading.Thread(target=spin)
        thread.start()
        probe = busy.client()

        def is_busy() -> bool:
            try:
                probe.ping()
            except redis.ResponseError as exc:
                return str(exc).startswith("BUSY")
            return False
        try:
            wait_until(is_busy, what="Redis busy with the script")
            answer = await ann.move(SCRIPT[0])
            assert (answer["t"], answer["d"]["code"]) == ("reject", "unavailable"), answer
            ann.seq -= 1
            assert "busy" in reasons((await health(s))[1])
        finally:
            probe.execute_command("SCRIPT", "KILL")
            thread.join()
            probe.close()
            spinning.close()
        assert outcome and "killed" in outcome[0].lower()
        assert (await ann.move(SCRIPT[0]))["t"] == "ack"
    finally:
        busy.stop()


async def test_a_script_cache_flushed_under_the_server_costs_nothing(
        own_redis: RedisServer, servers: Servers, clients: Opener) -> None:
    s, ann, _ = await racing(own_redis, servers, clients)
    r = own_redis.client()
    try:
        r.script_flush()
    finally:
        r.close()
    for move in SCRIPT[:3]:  # NOSCRIPT: the script is sent whole and cached again
        assert (await ann.move(move))["t"] == "ack"
    assert not events_named(s, "redis_trouble")


async def test_the_embedded_redis_has_a_maxmemory_sized_from_the_machine_and_noeviction(
        tmp_path: Path, servers: Servers) -> None:
    for args, expected in (([], default_maxmemory()), (["--redis-maxmemory", "96mb"], 96 * 2**20)):
        data = tmp_path / f"data{len(args)}"
        s = servers.start(None, env=FAST, args=["--data-dir", str(data), *args])
        r = unix_redis(data)
        try:
            conf = r.config_get("maxmemory*")
            assert int(conf["maxmemory"]) == expected
            assert conf["maxmemory-policy"] == "noeviction"
        finally:
            r.close()
        started = events_named(s, "embedded_redis_started")
        assert started[0]["maxmemory"] == expected
        s.stop()
    assert default_maxmemory() >= 64 * 2**20


def test_redis_maxmemory_is_the_embedded_redis_s_and_refused_beside_a_url() -> None:
    assert parse(["--redis-maxmemory", "2gb"]).redis_maxmemory == 2 * 2**30
    assert parse(["--redis-maxmemory", "268435456"]).redis_maxmemory == 2**28
    with pytest.raises(ConfigError, match="redis-maxmemory"):
        parse(["--redis-maxmemory", "lots"])
    with pytest.raises(ConfigError, match="embedded Redis"):
        parse(["--redis-maxmemory", "1gb", "--redis-url", "redis://127.0.0.1:6379/0"])


async def test_healthz_is_json_and_names_an_unreachable_redis(
        own_redis: RedisServer, servers: Servers) -> None:
    s = servers.start(own_redis.url, env=FAST)
    status, report = await health(s)
    assert (status, report["status"]) == (200, "ok")
    own_redis.kill()

    async def unreachable() -> bool:
        status, report = await health(s)
        return status == 503 and "unreachable" in reasons(report)
    await eventually(unreachable, what="/healthz 503: unreachable")
    own_redis.start()
    await eventually(lambda: healthy(s), timeout=30, what="/healthz 200 again")
