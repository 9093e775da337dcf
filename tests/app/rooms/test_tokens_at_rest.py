"""Tokens at rest: Redis holds only their digests, never a seat's, a
player's or an organizer's token; a room stored before tokens were hashed
still lets its players back in, and is written back hashed
(docs/protocol.md, "joined"; docs/operations.md, "Data and expiry").
"""

from __future__ import annotations

import orjson
import redis
from harness import Client, RedisServer
from support.tournament import Entrant, Organizer

from server.race.tokens import hash_token
from server.store import keys


def stored_values(r: redis.Redis, pattern: str) -> bytes:
    """Every value of every key matching ``pattern``, concatenated."""
    out = []
    for key in r.scan_iter(match=pattern, count=1000):
        kind = r.type(key)
        if kind == b"hash":
            for f, v in r.hgetall(key).items():
                out += [f, v]
        elif kind == b"list":
            out += r.lrange(key, 0, -1)
        elif kind == b"string":
            out.append(r.get(key) or b"")
    return b"\n".join(out)


async def test_redis_holds_only_digests_of_seat_player_and_admin_tokens(
        connect: type[Client], redis_server: RedisServer) -> None:
    host, guest = await connect("host"), await connect("guest")
    await host.create("ann")
    await guest.join(host.room, "bob")
    org = Organizer(await connect("org"))
    await org.create("Club night", codes=["KL1-D1V-ACT552B"])
    entrants = [Entrant(await connect(n), n) for n in ("cat", "dan")]
    for e in entrants:
        await e.register(org.id)
    room = await org.start(1)
    await entrants[0].enter(room, "KL1-D1V-ACT552B")

    r = redis.Redis.from_url(redis_server.url)
    try:
        for pattern, tokens in ((f"kr:{{{host.room}}}:*", [host.token, guest.token]),
                                (f"kt:{{{org.id}}}:*", [org.admin, *(e.token for e in entrants)]),
                                (f"kr:{{{room}}}:*", [e.token for e in entrants])):
            stored = stored_values(r, pattern)
            assert stored
            for token in tokens:
                assert token.encode() not in stored, (pattern, token)
            for token in tokens[-2:]:  # the seats' and players' lookups are by digest
                assert hash_token(token).encode() in stored, (pattern, token)
        assert hash_token(org.admin).encode() in stored_values(r, f"kt:{{{org.id}}}:*")
    finally:
        r.close()


async def test_a_room_stored_with_plain_tokens_still_resumes_and_is_rewritten_hashed(
        connect: type[Client], redis_server: RedisServer) -> None:
    host, guest = await connect("host"), await connect("guest")
    await host.create("ann")
    await guest.join(host.room, "bob")
    r = redis.Redis.from_url(redis_server.url)
    try:
        key = keys.room(host.room)
        state = orjson.loads(r.hget(key, "state") or b"{}")
        # the document as a server before hashing wrote it: token -> seat
        state["tokens"] = {host.token: 0, guest.token: 1}
        r.hset(key, "state", orjson.dumps(state))
        await guest.close()
        back = await connect("guest again")
        joined = await back.resume(host.room, guest.token)
        assert joined["seat"] == 1
        third = await connect("third")
        await third.join(host.room, "cat")  # the room's next change writes it back
        tokens = orjson.loads(r.hget(key, "state") or b"{}")["tokens"]
        assert tokens == {hash_token(host.token): 0, hash_token(guest.token): 1,
                          hash_token(third.token): 2}
    finally:
        r.close()
