"""What a player layer must keep: a player's key, a second device's key and
a device-move code are never in Redis, only their digests; and no profile
(the history a player reads, the public page anyone reads, what Redis keeps
for them) names a race's code before the race has ended."""

from __future__ import annotations

import asyncio

import pytest
import redis
from harness import Client, RedisServer, ServerProcess, Servers
from support.player import history, history_of, identify, public
from support.race import Racer, assert_code_kept, open_room, start_fast_server, start_race, win

from server.race.tokens import hash_token
from server.store import keys


@pytest.fixture(scope="module")
def server(redis_server: RedisServer, module_servers: Servers
           ) -> ServerProcess:
    return start_fast_server(redis_server, module_servers)


def everything_under(r: redis.Redis, pattern: str) -> bytes:
    """Every key matching ``pattern``, its name and every value it holds
    (hash fields and values, list items, set and sorted-set members)."""
    out: list[bytes] = []
    for key in r.scan_iter(match=pattern, count=1000):
        out.append(key)
        kind = r.type(key)
        if kind == b"hash":
            for f, v in r.hgetall(key).items():
                out += [f, v]
        elif kind == b"list":
            out += r.lrange(key, 0, -1)
        elif kind == b"zset":
            out += [m for m, _ in r.zrange(key, 0, -1, withscores=True)]
        elif kind == b"set":
            out += list(r.smembers(key))
        elif kind == b"string":
            out.append(r.get(key) or b"")
    return b"\n".join(out)


async def test_redis_holds_only_digests_of_player_keys_and_device_codes(
        connect: type[Client], redis_server: RedisServer) -> None:
    desk, phone = await connect("desk"), await connect("phone")
    me = await identify(desk, nickname="ann")
    await desk.send("p_move")
    spent = (await desk.expect("p_move"))["code"]
    await phone.send("p_claim", {"code": spent})
    second = (await phone.expect("player"))["key"]
    await desk.send("p_move")
    pending = (await desk.expect("p_move"))["code"]
    secrets = [me["key"], second, spent, pending]
    r = redis_server.client()
    try:
        stored = everything_under(r, "kp:*")
        assert me["id"].encode() in stored
        for secret in secrets:
            for form in (secret, secret.lower()):
                assert form.encode() not in stored, secret
        for key in (me["key"], second):  # a key is found by its digest, and the profile holds it
            assert r.get(keys.key_index(hash_token(key))) == me["id"].encode()
            assert r.hget(keys.player(me["id"]), "k:" + hash_token(key)) is not None
        assert r.hget(keys.player(me["id"]), "move") == hash_token(pending).encode()
    finally:
        r.close()


async def test_no_profile_names_a_race_code_before_the_race_ends(
        connect: type[Client], server: ServerProcess, redis_server: RedisServer) -> None:
    """ann resigns at once and keeps looking at her history (on her table's
    connection and on another device) and at her public page while bob and
    cat race on; none of it, nor what Redis keeps for her, names the code
    until the race has ended; then her history does."""
    won = win("KL1-D3N-AATCXLV")
    code, script = won["code"], won["script"]
    clients = [await connect(n) for n in ("ann", "bob", "cat")]
    ann, bob, cat = clients
    me = await identify(ann, nickname="ann")
    phone = await connect("ann's phone")
    await identify(phone, me["key"])
    await open_room(clients, code=code)
    await start_race(clients)
    await Racer(ann, code).resign()
    cats = Racer(cat, code)
    racing = asyncio.ensure_future(asyncio.gather(Racer(bob, code).play(script),
                                                  cats.play(script[:40])))
    r = redis_server.client()
    looks: list[bytes] = []
    try:
        while not racing.done():
            for client in (ann, phone):
                page = await history(client)
                assert page["of"] == 0
            status, shown = await public(server, me["id"])
            assert status == 200
            looks.append(repr(shown).encode())
            looks.append(everything_under(r, f"kp:{{{me['id']}}}:*"))
            await asyncio.sleep(0.05)
        await racing
        await cats.resign()
        ended = await ann.event("ended")
        assert ended["code"] == code
        [result] = await history_of(ann, 1)
        assert result["code"] == code
        assert code.encode() in everything_under(r, f"kp:{{{me['id']}}}:*")
    finally:
        r.close()
    assert len(looks) >= 4
    for seen in looks:
        for secret in (code, code[-7:]):
            assert secret.encode() not in seen and secret.lower().encode() not in seen
    for client in (ann, phone, bob, cat):
        assert_code_kept(client, code)
    assert not any(code in raw for raw in phone.raw[:-1])  # until its last history page
