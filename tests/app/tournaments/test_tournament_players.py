"""A tournament's players, kept in the store (real Redis, through the
tournament service): registration in order and its refusals in their order,
withdrawals, kicks and bans, the invite code, tokens kept as digests, and a
tournament stored before its players left its document. The same for a
field of a few and a field of thousands (docs/protocol.md, "Tournaments")."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import orjson
import pytest
import redis
from harness import RedisServer
from tournament_support import tournament_service

from server.app.tournaments.tournament_service import Tournaments
from server.protocol import Reason
from server.race import RaceError
from server.race.tokens import hash_token
from server.race.tournament import Tournament
from server.store import Store, keys

CODES = ["KL1-D1V-ABYI5NK", "KL1-D1V-ACT552B"]
NOW = 1_800_000_000_000
LOOK_ALIKES_OF_ANN = ["ANN", "Ann", "ａｎｎ", "аnn", "𝕒𝕟𝕟", "ΑΝΝ", "aոn"]
#: a field of a few (its standings show everyone), and one of thousands
SIZES = pytest.mark.parametrize("size", [8, 100], ids=["few", "many"])


@pytest.fixture
async def service(redis_server: RedisServer) -> AsyncIterator[Tournaments]:
    store = await Store.open(redis_server.url)
    yield tournament_service(store, lambda: NOW)
    await store.close()


async def create(service: Tournaments, size: int, **settings: Any) -> tuple[str, str, str | None]:
    """A new tournament: its id, admin key and invite code."""
    t, admin, invite = await service.create("Club", {"codes": CODES, "max_players": size,
                                                     **settings})
    return t.id, admin, invite


async def refused(coro: Any) -> RaceError:
    with pytest.raises(RaceError) as info:
        await coro
    return info.value


async def names(service: Tournaments, tid: str) -> list[str]:
    return [r["nickname"] for r in (await service.store.tournaments.player_records(tid)).values()]


# ---------------------------------------------------------------------- registering

@SIZES
async def test_players_are_numbered_in_registration_order(service: Tournaments, size: int) -> None:
    tid, _, _ = await create(service, size)
    got = [await service.register(tid, name) for name in ("ann", " bob  smith ", "cat")]
    assert [player for _, player, _ in got] == [0, 1, 2]
    assert await names(service, tid) == ["ann", "bob smith", "cat"]
    for _, player, token in got:
        found = await service.player_of(tid, token)
        assert found is not None and found[1] == player
    assert await service.player_of(tid, "nobody's") is None
    assert await service.player_of(tid, hash_token(got[0][2])) is None  # the digest is no token


@SIZES
@pytest.mark.parametrize("look_alike", LOOK_ALIKES_OF_ANN)
async def test_a_nickname_that_looks_like_a_registered_one_is_taken(
        service: Tournaments, size: int, look_alike: str) -> None:
    tid, _, _ = await create(service, size)
    await service.register(tid, "ann")
    exc = await refused(service.register(tid, look_alike))
    assert exc.reason is Reason.NAME_TAKEN
    assert "'ann'" in exc.text or look_alike.casefold() == "ann"
    assert await names(service, tid) == ["ann"]


@SIZES
async def test_a_bad_nickname_is_refused_and_nothing_is_stored(service: Tournaments,
                                                               size: int) -> None:
    tid, _, _ = await create(service, size)
    for name in ("", "x" * 21, "a<b"):
        assert (await refused(service.register(tid, name))).reason is Reason.BAD_NICKNAME
    assert await names(service, tid) == []


@pytest.mark.parametrize("size", [2, 17], ids=["few", "many"])
async def test_registration_is_refused_when_full(service: Tournaments, size: int) -> None:
    tid, _, _ = await create(service, size)
    for i in range(size):
        await service.register(tid, f"p{i}")
    exc = await refused(service.register(tid, "late"))
    assert exc.reason is Reason.ROOM_FULL and len(await names(service, tid)) == size


@SIZES
async def test_registration_is_refused_once_closed_by_the_organizer_or_by_a_round(
        service: Tournaments, size: int) -> None:
    tid, admin, _ = await create(service, size)
    await service.register(tid, "ann")
    await service.close(tid, admin)
    assert (await refused(service.register(tid, "bob"))).reason is Reason.RACE_STARTED
    assert (await refused(service.close(tid, admin))).reason is Reason.NOT_LOBBY

    tid, admin, _ = await create(service, size)
    await service.register(tid, "ann")
    await service.start_round(tid, admin, None)
    assert not (await service.load(tid)).t.registration
    assert (await refused(service.register(tid, "bob"))).reason is Reason.RACE_STARTED


@SIZES
async def test_registration_stays_open_until_the_round_late_until_names_starts_and_late_ones_play_on(
        service: Tournaments, size: int) -> None:
    tid, admin, _ = await create(service, size, late_until=2)
    await service.register(tid, "ann")
    await service.start_round(tid, admin, None)
    _, late, _ = await service.register(tid, "bob")  # round 1 is under way: bob plays from round 2
    assert late == 1 and (await service.store.tournaments.player_records(tid))[1]["first"] == 2
    assert await service.store.tournaments.round_players(tid, 1) == 1
    assert await service.store.tournaments.round_players(tid, 2) == 2


@SIZES
async def test_a_ban_is_said_before_a_closed_registration_or_a_wrong_invite(
        service: Tournaments, size: int) -> None:
    tid, admin, invite = await create(service, size, invite=True)
    await service.register(tid, "ann", invite)
    await service.register(tid, "bob", invite)
    await service.kick(tid, admin, 1, ban=True)
    assert (await refused(service.register(tid, "BOB", "wrong"))).reason is Reason.BANNED
    await service.close(tid, admin)
    assert (await refused(service.register(tid, "zed", invite))).reason is Reason.RACE_STARTED
    assert (await refused(service.register(tid, "bob"))).reason is Reason.BANNED


@SIZES
async def test_registering_needs_the_invite_code_when_there_is_one(service: Tournaments,
                                                                   size: int) -> None:
    tid, _, invite = await create(service, size, invite=True)
    assert invite is not None
    for code in (None, "", invite[:-1] + ("X" if invite[-1] != "X" else "Y")):
        assert (await refused(service.register(tid, "ann", code))).reason is Reason.BAD_INVITE
    assert (await service.register(tid, "ann", f" {invite.lower()} "))[1] == 0
    assert invite not in str(await service.store.call("HGETALL", keys.tournament(tid)))


# ---------------------------------------------------------------------- leaving

@SIZES
async def test_a_withdrawn_player_is_marked_in_the_standings_and_withdraws_once(
        service: Tournaments, size: int) -> None:
    tid, _, _ = await create(service, size)
    tokens = [(await service.register(tid, name))[2] for name in ("ann", "bob", "cat")]
    assert await service.withdraw(tid, tokens[1]) == (tid, 1)
    assert (await refused(service.withdraw(tid, tokens[1]))).reason is Reason.NOT_PLAYING
    assert (await refused(service.withdraw(tid, "nobody's"))).reason is Reason.BAD_TOKEN
    _, _, lines = await service.standings_page(tid, 1, 10)
    assert [(line["nickname"], bool(line.get("withdrawn"))) for line in lines] == [
        ("ann", False), ("bob", True), ("cat", False)]
    assert (await service.load(tid)).counts == {"players": 3, "withdrawn": 1, "kicked": 0}


@SIZES
async def test_a_kicked_player_is_out_and_a_ban_refuses_their_name_and_its_look_alikes(
        service: Tournaments, size: int) -> None:
    tid, admin, _ = await create(service, size)
    tokens = [(await service.register(tid, name))[2] for name in ("ann", "bob", "cat")]
    await service.kick(tid, admin, 1, ban=True)
    assert await service.player_of(tid, tokens[1]) is None
    _, of, lines = await service.standings_page(tid, 1, 10)
    assert of == 2 and [line["nickname"] for line in lines] == ["ann", "cat"]
    for name in ("bob", "BOB", "b0b"):
        assert (await refused(service.register(tid, name))).reason is Reason.BANNED
    exc = await refused(service.kick(tid, admin, 1, ban=False))
    assert exc.reason is Reason.UNKNOWN_SEAT
    await service.kick(tid, admin, 2, ban=False)
    assert (await service.register(tid, "cat"))[1] == 3  # not banned: may come back
    assert (await service.load(tid)).counts == {"players": 2, "withdrawn": 0, "kicked": 2}
    assert (await refused(service.kick(tid, "not the admin", 0, ban=False))).reason is (
        Reason.NOT_HOST)


# ---------------------------------------------------------------------- tokens at rest

@SIZES
async def test_redis_keeps_only_digests_of_player_and_admin_tokens(
        service: Tournaments, size: int, redis_server: RedisServer) -> None:
    tid, admin, _ = await create(service, size)
    _, _, token = await service.register(tid, "ann")
    r = redis.Redis.from_url(redis_server.url)
    try:
        stored = b"".join(v for k in r.scan_iter(match=f"kt:{{{tid}}}:*") if r.type(k) == b"hash"
                          for kv in r.hgetall(k).items() for v in kv)
    finally:
        r.close()
    assert token.encode() not in stored and admin.encode() not in stored
    assert hash_token(token).encode() in stored and hash_token(admin).encode() in stored


# ---------------------------------------------------------------------- stored before

def legacy(t: Tournament, players: list[dict[str, Any]], banned: list[str],
           rounds: list[dict[str, Any]]) -> bytes:
    """A tournament's document as a server wrote it when it held its players."""
    doc = orjson.loads(t.to_json())
    doc["admin"] = doc.pop("admins")[0]
    doc["players"], doc["banned"] = players, banned
    for r, more in zip(doc["rounds"], rounds, strict=False):
        r.update(more)
    for r in doc["rounds"]:
        r.setdefault("seats", [])
        r.setdefault("results", None)
    return orjson.dumps(doc)


async def test_a_tournament_stored_with_its_players_in_its_document_is_moved_and_goes_on(
        service: Tournaments, redis_server: RedisServer) -> None:
    """Its players (one withdrawn, one kicked and banned, one with a token
    stored plain), their tokens, the ended round's results: the standings,
    registering and kicking work as for any tournament, and no plain token
    is left."""
    tid, admin, _ = await create(service, 8)
    t = (await service.load(tid)).t
    t.rounds[0].status, t.rounds[0].room, t.rounds[0].ended_at = "ended", "OLDROOM1", NOW
    results = [{"seat": 0, "nickname": "ann", "status": "finished", "foundation": 52,
                "turned_up": 24, "vegas": 208, "moves": 116, "recycles": 0, "finish_ms": 90_000,
                "at": NOW, "rank": 1},
               {"seat": 1, "nickname": "bob", "status": "resigned", "foundation": 3,
                "turned_up": 5, "vegas": -37, "moves": 9, "recycles": 0, "finish_ms": None,
                "at": NOW, "rank": 2}]
    players = [{"player": 0, "nickname": "ann", "token": "tok-ann", "registered": 1,
                "withdrawn": False, "kicked": False},
               {"player": 1, "nickname": "bob", "token": hash_token("tok-bob"), "registered": 2,
                "withdrawn": True, "kicked": False},
               {"player": 2, "nickname": "cat", "token": hash_token("tok-cat"), "registered": 3,
                "withdrawn": False, "kicked": True}]
    r = redis.Redis.from_url(redis_server.url)
    try:
        r.hdel(keys.tournament(tid), "max", "reg", "first", "next", "players", "withdrawn",
               "kicked")
        r.hset(keys.tournament(tid), "state", legacy(t, players, ["cat"],
                                                     [{"seats": [0, 1, 2], "results": results}]))
        data = await service.load(tid)
        assert not data.legacy and data.counts == {"players": 2, "withdrawn": 1, "kicked": 1}
        assert (await service.player_of(tid, "tok-ann")) == (data.t, 0)
        assert await service.player_of(tid, "tok-cat") is None
        _, _, lines = await service.standings_page(tid, 1, 10)
        assert [(line["nickname"], line["vegas"], line["withdrawn"]) for line in lines] == [
            ("ann", 208, False), ("bob", -37, True)]
        assert data.t.rounds[0].players == 3 and data.t.rounds[0].played == 2
        assert (await refused(service.register(tid, "CAT"))).reason is Reason.BANNED
        assert (await service.register(tid, "dan"))[1] == 3
        await service.kick(tid, admin, 0, ban=False)
        assert b"tok-ann" not in b"".join(
            v for kv in r.hgetall(keys.tournament_tokens(tid)).items() for v in kv)
    finally:
        r.close()
