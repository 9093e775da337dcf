"""Presence: who holds a seat right now, even when a process dies without a goodbye."""

from __future__ import annotations

from harness import Client, RedisServer, Servers


async def test_players_of_a_killed_process_show_as_disconnected(
        redis_server: RedisServer, servers: Servers) -> None:
    # 3 s, not 1: a process that beats every timeout/3 is taken for dead when a
    # loaded machine holds its loop past the timeout (a clean run saw ann, on the
    # live process, shown disconnected); the kill is still seen within the wait
    env = {"KLONDIKE_PRESENCE_TIMEOUT": "3"}
    doomed = servers.start(redis_server.url, env=env)
    survivor = servers.start(redis_server.url, env=env)
    ann = await Client.open(survivor.ws_url, "ann")
    bob = await Client.open(doomed.ws_url, "bob")
    try:
        room = (await ann.create("ann"))["room"]
        await bob.join(room, "bob")
        lb = await ann.expect("lb", lambda d: len(d["entries"]) == 2)
        assert {e["nickname"]: e["status"] for e in lb["entries"]} == {"ann": "lobby", "bob": "lobby"}
        doomed.kill()
        lb = await ann.expect("lb", lambda d: any(
            e["nickname"] == "bob" and e["status"] == "disconnected" for e in d["entries"]))
        assert {e["nickname"]: e["status"] for e in lb["entries"]} == {
            "ann": "lobby", "bob": "disconnected"}
    finally:
        await ann.close()
        await bob.close()


async def test_a_closed_socket_shows_as_disconnected_and_resume_brings_it_back(
        connect: type[Client]) -> None:
    ann, bob = await connect("ann"), await connect("bob")
    room = (await ann.create("ann"))["room"]
    joined = await bob.join(room, "bob")
    await ann.expect("lb", lambda d: len(d["entries"]) == 2)
    await bob.close()
    await ann.expect("lb", lambda d: any(
        e["nickname"] == "bob" and e["status"] == "disconnected" for e in d["entries"]))
    again = await connect("bob again")
    await again.resume(room, joined["token"])
    await ann.expect("lb", lambda d: any(
        e["nickname"] == "bob" and e["status"] == "lobby" for e in d["entries"]))
