"""A refusal stores nothing (issue 24, item 1): floods of every refused
attempt one address can make — new players, device-move codes, creations
over the address's rate and over the server's cap, registrations, wrong
invite codes — leave Redis as it was: no key added, no window, set or hash
grown (by count), and ``used_memory`` within the allocator's noise."""

from __future__ import annotations

from typing import Any

from edge_support import flat
from harness import Client, RedisServer, Servers
from race_support import FAST_ARGS
from test_caps import PROXY, address, creates, open_from, registers

FLOOD = 40  # refusals of each kind


async def test_a_flood_of_every_refused_attempt_stores_nothing(
        own_redis: RedisServer, servers: Servers) -> None:
    server = servers.start(own_redis.url, args=[
        *PROXY, *FAST_ARGS, "--creations-per-minute", "2", "--registrations-per-minute", "10",
        "--max-rooms", "3"], env={"KLONDIKE_PLAYERS_PER_HOUR": "2", "KLONDIKE_CLAIMS_PER_MINUTE": "2"})
    r = own_redis.client()
    flooder, other, org_address = address(), address(), address()
    opened: list[Client] = []

    async def client(addr: str) -> Client:
        opened.append(Client(await open_from(server.ws_url, addr), f"c{len(opened)}"))
        return opened[-1]

    async def refusals(c: Client, t: str, d: dict[str, Any], code: str) -> None:
        for _ in range(FLOOD):
            await c.send(t, d)
            got = await c.expect("reject", lambda m: m["cmd"] == t)
            assert got["code"] == code, got

    try:
        c = await client(flooder)
        # new players: two an hour from the address, then refusals
        for _ in range(2):
            await c.send("identify", {})
            await c.expect("player")
        await flat(r, lambda: refusals(c, "identify", {}, "too_many"), "new players")
        # device-move codes: two tries a minute, then refusals
        for _ in range(2):
            await c.send("p_claim", {"code": "ABCDEFGHJK"})
            await c.expect("reject")
        await flat(r, lambda: refusals(c, "p_claim", {"code": "ABCDEFGHJK"}, "too_many"),
                   "device codes")
        # creations: two a minute from the address, then refusals
        assert (await creates(c, "room", 0))["t"] == "joined"
        assert (await creates(await client(flooder), "room", 1))["t"] == "joined"
        maker = await client(flooder)
        await flat(r, lambda: refusals(maker, "create", {"nickname": "x", "settings": {}},
                                       "too_many"), "creations over the rate")
        # the server's cap of rooms: another address, under its rate, is refused too
        assert (await creates(await client(other), "room", 2))["t"] == "joined"
        late = await client(other)
        await flat(r, lambda: refusals(late, "create", {"nickname": "y", "settings": {}},
                                       "server_full"), "creations over the server's cap")
        # wrong invite codes (ten from an address in ten minutes), which fill its
        # registrations' rate (ten a minute) as well: then both refuse
        org = await client(org_address)
        await org.send("t_create", {"name": "Private", "settings": {"invite": True}})
        tid = (await org.expect("t_created"))["id"]
        guesser = await client(address())
        for i in range(10):
            got = await registers(guesser, tid, "g", f"WRONG{i:03d}")
            assert got["d"]["code"] == "bad_invite", got
        await flat(r, lambda: refusals(guesser, "t_register",
                                       {"id": tid, "nickname": "g", "invite": "WRONG999"},
                                       "too_many"), "wrong invite codes and registrations")
    finally:
        for opened_client in opened:
            await opened_client.close()
