"""Players across server processes on one Redis: a key made on one process
names the player on another, a race one process ends records the result of
a player identified on the other, a seat taken on one device and resumed on
another (with another player's key, or none) still counts for the player
who took it, a device move made on one process is claimed on the other;
and the caps on new players and on device codes tried, per address."""

from __future__ import annotations

from harness import RedisServer, Servers
from support.play import CODE, FAST, SCRIPT, Opener, play, start_race
from support.player import history, history_of, identify, public, refused


async def test_a_player_identified_on_one_process_gets_a_race_another_process_ended(
        redis_server: RedisServer, servers: Servers, clients: Opener) -> None:
    a, b = (servers.start(redis_server.url, env=FAST, name=n) for n in ("a", "b"))
    ann, bob = await clients(a, "ann"), await clients(b, "bob")
    me = await identify(ann, nickname="ann")
    assert (await identify(await clients(b, "ann elsewhere"), me["key"]))["id"] == me["id"]
    room = await start_race(ann, [bob])  # ann on a, bob on b
    ann.seq = bob.seq = 0
    assert (await ann.command("resign"))["t"] == "ack"
    await play(bob, SCRIPT)  # bob's last move, on b, ends the race: b records it
    await bob.event("ended")
    [r] = await history_of(ann, 1)  # read through a
    assert (r["room"], r["place"], r["of"], r["status"], r["code"]) == (room, 2, 2, "resigned", CODE)
    status, shown = await public(b, me["id"])
    assert status == 200 and shown["games"] == 1 and shown["wins"] == 0


async def test_a_seat_resumed_on_another_device_counts_for_the_player_who_took_it(
        redis_server: RedisServer, servers: Servers, clients: Opener) -> None:
    """ann takes her seat on a; it is resumed on b by a browser of another
    player (bob's key) and then by one that never identified: the race's
    result is still ann's, and nobody else's."""
    a, b = (servers.start(redis_server.url, env=FAST, name=n) for n in ("a", "b"))
    ann = await clients(a, "ann")
    me = await identify(ann, nickname="ann")
    cat = await clients(a, "cat")
    room = await start_race(ann, [cat])
    seat, token = ann.seat, ann.token
    await ann.close()
    elsewhere = await clients(b, "bob's browser")
    bob = await identify(elsewhere, nickname="bob")
    await elsewhere.resume(room, token)
    assert elsewhere.seat == seat
    await elsewhere.close()
    anonymous = await clients(b, "a browser with no key")
    await anonymous.resume(room, token)
    anonymous.seq = 0
    await play(anonymous, SCRIPT)  # ann's game, won from a third connection
    cat.seq = 0
    assert (await cat.command("resign"))["t"] == "ack"
    await cat.event("ended")
    mine = await clients(b, "ann again")
    await identify(mine, me["key"])
    [r] = await history_of(mine, 1)
    assert (r["status"], r["place"], r["won"], r["nickname"]) == ("finished", 1, True, "ann")
    bobs = await clients(a, "bob again")
    await identify(bobs, bob["key"])
    assert (await history(bobs))["of"] == 0


async def test_a_device_move_made_on_one_process_is_claimed_on_the_other(
        redis_server: RedisServer, servers: Servers, clients: Opener) -> None:
    a, b = (servers.start(redis_server.url, name=n) for n in ("a", "b"))
    desk, phone = await clients(a, "desk"), await clients(b, "phone")
    me = await identify(desk, nickname="ann")
    await desk.send("p_move")
    code = (await desk.expect("p_move"))["code"]
    await phone.send("p_claim", {"code": code})
    moved = await phone.expect("player")
    assert moved["id"] == me["id"]
    again = await clients(a, "again")
    assert (await refused(again, "p_claim", {"code": code}))["code"] == "bad_handoff"


async def test_new_players_and_device_codes_tried_are_capped_per_address(
        own_redis: RedisServer, servers: Servers, clients: Opener) -> None:
    """Over every process of a deployment (the counts are in Redis: a Redis
    of the test's own, which no other test's players were counted in)."""
    caps = {"KLONDIKE_PLAYERS_PER_HOUR": "3", "KLONDIKE_CLAIMS_PER_MINUTE": "2"}
    a, b = (servers.start(own_redis.url, env=caps, name=n) for n in ("a", "b"))
    made = [await identify(await clients(s, f"new {i}")) for i, s in enumerate((a, b, a))]
    assert len({m["id"] for m in made}) == 3
    fourth = await clients(b, "fourth")
    refusal = await refused(fourth, "identify", {})
    assert refusal["code"] == "too_many" and "3 new players an hour" in refusal["msg"]
    # a known key is no new player: it still identifies
    assert (await identify(fourth, made[0]["key"]))["id"] == made[0]["id"]
    await fourth.send("p_move")
    code = (await fourth.expect("p_move"))["code"]
    guesser = await clients(a, "guesser")
    for _ in range(2):
        assert (await refused(guesser, "p_claim", {"code": "ABCDEFGHJK"}))["code"] == "bad_handoff"
    # the third try is refused before the code is looked at, on either process
    assert (await refused(guesser, "p_claim", {"code": code}))["code"] == "too_many"
    other = await clients(b, "the same address elsewhere")
    assert (await refused(other, "p_claim", {"code": code}))["code"] == "too_many"
