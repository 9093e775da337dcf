"""Whole races end to end: four players on one deal of wins.json, the final
ranking and its tie-breaks, solo games, rematches and the leaderboard's pace."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

import pytest
from harness import Client, RedisServer, ServerProcess, Servers
from support.race import (
    Clock,
    Racer,
    app_on,
    assert_code_kept,
    line_stats,
    open_room,
    seen_or_next,
    start_fast_server,
    start_race,
    stats,
    win,
)

from server.klondike import KL2, DealCode, Game, replay


@pytest.fixture(scope="module")
def server(redis_server: RedisServer, module_servers: Servers
           ) -> ServerProcess:
    return start_fast_server(redis_server, module_servers)


def by_nickname(entries: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {e["nickname"]: e for e in entries}


async def test_four_players_race_to_the_end_of_a_won_deal(
        connect: type[Client], own_redis: RedisServer, tmp_path: Path) -> None:
    """Two play the winning script (dan finishes first), cat plays half and
    resigns, ann plays a quarter and stops until the time limit ends the race.
    The server's clock is moved on to the deadline once they have played: the
    limit ends the race then, however long the playing took."""
    clock = Clock()
    async with app_on(own_redis, tmp_path, clock, countdown=0) as served:
        await race_to_the_time_limit(connect, served.ws_url, clock)


async def race_to_the_time_limit(connect: type[Client], url: str, clock: Clock) -> None:
    won = win("KL1-D3N-AA3VMOQ")
    code, script = won["code"], won["script"]
    clients = [await connect(n, url) for n in ("ann", "bob", "cat", "dan")]
    joined = await open_room(clients, code=code, time_limit=600)
    assert [j["seat"] for j in joined] == [0, 1, 2, 3]
    boards = await start_race(clients)
    for board in boards:
        assert board["race"] == 1 and board["s"] == 0 and not board["done"]
        assert board["view"] == Game(code).view(progress=True)
    ann, bob, cat, dan = (Racer(c, code) for c in clients)

    quarter, half = len(script) // 4, len(script) // 2
    await asyncio.gather(ann.play(script[:quarter]), bob.play(script[:-1]),
                         cat.play(script[:half]), dan.play(script[:-1]))
    last = await dan.play(script[-1:])
    assert last["d"]["view"]["state"] == "won"
    await asyncio.sleep(0.02)  # bob's finishing move lands in a later millisecond
    await bob.play(script[-1:])
    await asyncio.sleep(0.02)  # cat's line changes after ann's last one
    await cat.resign()
    clock.ahead += 600  # the deadline has come

    ended = await ann.client.event("ended")
    room = ended["room"]
    assert ended["code"] == room["code"] == code
    assert room["phase"] == "ended" and ended["race"] == 1
    assert room["deadline"] == room["start_at"] + 600_000
    assert room["ended_at"] >= room["deadline"]  # ann still raced: the time limit ended it
    results = room["results"]
    assert [e["nickname"] for e in results] == ["dan", "bob", "cat", "ann"]
    assert [e["rank"] for e in results] == [1, 2, 3, 4]
    assert ended["reset"] is True and ended["entries"] == results
    lines = by_nickname(results)
    assert lines["dan"]["status"] == lines["bob"]["status"] == "finished"
    assert 0 <= lines["dan"]["finish_ms"] < lines["bob"]["finish_ms"]
    assert lines["cat"]["status"] == "resigned" and lines["cat"]["finish_ms"] is None
    assert lines["ann"]["status"] == "unfinished" and lines["ann"]["finish_ms"] is None
    final = won["final"]
    for name in ("dan", "bob"):
        assert line_stats(lines[name]) == stats(replay(code, script)) == {
            "foundation": sum(final["foundations"].values()), "turned_up": lines[name]["turned_up"],
            "vegas": final["vegas"], "moves": final["moves"], "recycles": final["recycles"],
            "points": final["points"]}
    for racer, played in ((cat, script[:half]), (ann, script[:quarter])):
        assert line_stats(lines[racer.name]) == stats(replay(code, played)) == stats(racer.game)
    assert lines["cat"]["vegas"] > lines["ann"]["vegas"]

    for client in clients:
        got = await client.event("ended") if client is not ann.client else ended
        assert got["room"]["results"] == results
        assert_code_kept(client, code)
    late = await connect("late", url)
    await late.send("watch", {"room": joined[0]["room"], "since": 0})
    sync = await late.expect("sync")
    assert sync["room"]["code"] == code and sync["room"]["results"] == results
    refused = await ann.client.move(script[quarter])
    assert refused["t"] == "reject" and refused["d"]["code"] == "not_playing"


async def test_ranking_tie_breaks_vegas_then_foundation_then_moves_then_time(
        connect: type[Client]) -> None:
    """Five lines built to tie step by step on one deal; seats and the order
    of their last commands disagree with the ranking wherever they can."""
    won = win("KL1-D1N-AAAAMBZ")
    code, script = won["code"], won["script"]
    lines = {
        # name: moves, in the order of the seats
        "wes": [*script[:43], "fs>t3"],                   # = xia, later
        "vic": [*script[:43], "fs>t3", "draw"],           # a move more than xia
        "xia": [*script[:43], "fs>t3"],                   # vegas -37, 2 on foundations
        "yan": [*script[:43], "draw", "draw"],            # vegas -37, 3 on foundations
        "zed": [*script[:52], "fs>t3", "fh>t3"],          # vegas -32, only 2 on foundations
    }
    games = {name: replay(code, moves) for name, moves in lines.items()}
    assert games["zed"].vegas > games["yan"].vegas == games["xia"].vegas == games["vic"].vegas
    assert games["zed"].foundation_cards < games["yan"].foundation_cards
    assert games["yan"].foundation_cards > games["xia"].foundation_cards
    assert games["yan"].moves > games["xia"].moves
    assert stats(games["wes"]) == stats(games["xia"]) and games["vic"].moves > games["xia"].moves

    clients = [await connect(n) for n in lines]
    await open_room(clients, code=code)
    await start_race(clients)
    racers = {c.name: Racer(c, code) for c in clients}
    await asyncio.gather(*(racers[name].play(moves) for name, moves in lines.items()))
    for name in ("vic", "xia", "wes", "yan", "zed"):  # the order of their last change ("at")
        await racers[name].resign()
        await asyncio.sleep(0.01)
    ended = await clients[0].event("ended")
    results = ended["room"]["results"]
    assert [e["nickname"] for e in results] == ["zed", "yan", "xia", "wes", "vic"]
    for entry in results:
        assert entry["status"] == "resigned"
        assert line_stats(entry) == stats(games[entry["nickname"]])
    at = {e["nickname"]: e["at"] for e in results}
    assert at["vic"] < at["xia"] < at["wes"] < at["yan"] < at["zed"]


async def test_solo_with_a_code_is_a_race_of_one_to_the_win(connect: type[Client]) -> None:
    won = win("KL1-D1V-ACT552B")
    code = won["code"]
    ann = await connect("ann")
    joined = await ann.solo(nickname="ann", code=code)
    sync = await ann.expect("sync")
    board = await ann.expect("board")
    types = [f["t"] for f in ann.frames]
    assert types.index("joined") < types.index("sync") < types.index("board")
    assert sync["room"]["settings"]["solo"] is True and sync["room"]["settings"]["mode"] == "D1V"
    assert sync["room"]["phase"] == "racing" and sync["room"]["racers"] == [joined["seat"]]
    assert "code" not in sync["room"]
    assert board["view"] == Game(code).view(progress=True) and board["s"] == 0
    racer = Racer(ann, code)
    last = await racer.play(won["script"])
    assert last["d"]["view"]["state"] == "won"
    ended = await ann.event("ended")
    assert ended["code"] == ended["room"]["code"] == code
    [line] = ended["room"]["results"]
    assert line["rank"] == 1 and line["status"] == "finished" and line["nickname"] == "ann"
    assert "points" not in line  # Vegas scoring shows dollars only
    assert line["vegas"] == won["final"]["vegas"] == 208 and line["moves"] == won["final"]["moves"]
    assert line["foundation"] == 52
    assert_code_kept(ann, code)


async def test_the_board_is_dealt_once_the_start_has_come_on_the_server_s_clock(
        connect: type[Client], own_redis: RedisServer, tmp_path: Path) -> None:
    """The countdown's timer may end a moment before the server's clock says
    the race has begun (uvloop's timers count whole milliseconds; here the
    clock runs at half speed): the board waits for the clock, so a move sent
    the moment it comes is played, never refused as not started yet."""
    began = time.time()
    async with app_on(own_redis, tmp_path, lambda: began + (time.time() - began) / 2,
                      countdown=0.2) as served:
        ann = await connect("ann", served.ws_url)
        await ann.create("ann", code="KL1-D1N-AAAAAAA")
        await ann.send("start")
        await ann.event("start")
        board = await ann.expect("board")
        ack = await ann.move(board["view"]["legal"][0])
        assert ack["t"] == "ack", ack


async def test_solo_with_a_random_deal_of_a_mode(connect: type[Client]) -> None:
    ann = await connect("ann")
    await ann.solo(nickname="ann", draw=3, scoring="V")
    sync = await ann.expect("sync")
    assert sync["room"]["settings"]["mode"] == "D3V" and sync["room"]["settings"]["fixed_code"] is False
    board = await ann.expect("board")
    assert (board["view"]["mode"], board["view"]["draw"], board["view"]["scoring"]) == ("D3V", 3, "V")
    move = board["view"]["legal"][0]
    ack = await ann.move(move)
    assert ack["t"] == "ack" and ack["d"]["view"]["moves"] == 1
    assert (await ann.command("resign"))["t"] == "ack"
    ended = await ann.event("ended")
    code = ended["code"]
    assert code.startswith("KL2-D3V-") and len(code) == 21  # drawn: 64 bits
    assert Game(code).view(progress=True) == board["view"]  # the revealed code is the deal that was played
    assert replay(code, [move]).view(progress=True) == ack["d"]["view"]
    assert_code_kept(ann, code)


async def test_drawn_deals_are_kl2_codes_with_numbers_over_64_bits(connect: type[Client]) -> None:
    """8 random solo games and a random room: all their numbers below 2^40
    has odds of 2^-216."""
    numbers = []
    for i in range(9):
        player = await connect(f"p{i}")
        if i < 8:
            await player.solo(nickname=f"p{i}", draw=1, scoring="N")
        else:
            await player.create(f"p{i}", draw=3, scoring="V")
            await player.send("start")
        await player.expect("board")
        assert (await player.command("resign"))["t"] == "ack"
        code = DealCode.parse((await player.event("ended"))["code"])
        assert (code.format, code.mode) == (KL2, "D1N" if i < 8 else "D3V")
        numbers.append(code.number)
    assert any(n >= 2**40 for n in numbers)


async def test_rematch_starts_a_new_race_on_a_new_secret_deal(connect: type[Client]) -> None:
    won = win("KL1-D1N-AAHUQSR")
    code = won["code"]
    ann, bob = await connect("ann"), await connect("bob")
    await open_room([ann, bob], code=code)
    await ann.send("rematch")
    early = await ann.expect("reject")
    assert early["cmd"] == "rematch" and early["code"] == "not_ended"
    await start_race([ann, bob])
    await Racer(ann, code).play(won["script"][:5])
    await Racer(bob, code).play(won["script"][:3])
    for client in (ann, bob):
        assert (await client.command("resign"))["t"] == "ack"
    ended = await ann.event("ended")
    assert ended["room"]["settings"]["fixed_code"] is True  # the race was on the host's code
    await bob.send("rematch")
    refused = await bob.expect("reject")
    assert refused["cmd"] == "rematch" and refused["code"] == "not_host"

    first_frame = {ann.name: len(ann.raw), bob.name: len(bob.raw)}
    await ann.send("rematch")
    rematch = await bob.event("rematch")
    room = rematch["room"]
    assert rematch["race"] == room["race"] == 2 and room["phase"] == "lobby"
    assert "code" not in room and "results" not in room
    assert room["settings"]["fixed_code"] is False  # a rematch's deal is a random one
    assert [p["ready"] for p in room["players"]] == [False, False]
    assert room["racers"] == [] and room["start_at"] is None and room["ended_at"] is None
    assert {e["nickname"]: e["status"] for e in rematch["entries"]} == {"ann": "lobby", "bob": "lobby"}
    assert rematch["reset"] is True

    ann.seq = bob.seq = 0  # a new race counts again from 1
    await bob.send("ready", {"ready": True})
    await ann.event("ready")
    boards = await start_race([ann, bob])
    assert [b["race"] for b in boards] == [2, 2] and [b["s"] for b in boards] == [0, 0]
    assert boards[0]["view"] == boards[1]["view"]
    move = boards[0]["view"]["legal"][0]
    ack = await ann.move(move)
    assert ack["t"] == "ack" and ack["d"]["s"] == 1 and ack["d"]["view"]["moves"] == 1
    for client in (ann, bob):
        assert (await client.command("resign"))["t"] == "ack"
    ended, _ = await asyncio.gather(bob.event("ended"), ann.event("ended"))
    code2 = ended["code"]
    assert ended["race"] == 2 and code2 != code and code2.startswith("KL2-D1N-") and len(code2) == 21
    assert Game(code2).view(progress=True) == boards[0]["view"]
    for client in (ann, bob):
        second_race = client.raw[first_frame[client.name]:]
        end = next(i for i, raw in enumerate(second_race) if '"kind":"ended"' in raw)
        assert code2 in second_race[end]
        assert not any(code2 in raw or code2[-7:] in raw for raw in second_race[:end])


async def test_a_burst_of_moves_gives_fewer_leaderboards_and_the_last_is_right(
        connect: type[Client]) -> None:
    won = win("KL1-D1N-AAOKERG")
    code, moves = won["code"], won["script"][:120]
    ann, bob = await connect("ann"), await connect("bob")
    await open_room([ann, bob], code=code)
    await start_race([ann, bob])
    await seen_or_next(bob, "lb", lambda d: True)  # the start's leaderboard is out: the count begins after it
    first = len(bob.frames)
    began = time.monotonic()
    for s, m in enumerate(moves, start=1):  # bursts of ten, ten times a second
        await ann.send("move", {"s": s, "m": m})
        if s % 10 == 0:
            await asyncio.sleep(0.1)
    acks = [await ann.expect("ack", lambda d, s=s: d["s"] == s) for s in range(1, len(moves) + 1)]
    assert [a["view"]["moves"] for a in acks] == list(range(1, len(moves) + 1))
    expected = stats(replay(code, moves))
    last = await bob.expect("lb", lambda d: any(
        e["nickname"] == "ann" and e["moves"] == len(moves) for e in d["entries"]))
    took = time.monotonic() - began
    lbs = [f for f in bob.frames[first:] if f["t"] == "lb"]
    assert 1 <= len(lbs) < len(moves)
    assert len(lbs) <= took / 0.2 + 3, (len(lbs), took)  # at most five a second
    assert line_stats(by_nickname(last["entries"])["ann"]) == expected
    assert [e["nickname"] for e in last["entries"]] == ["ann", "bob"]
    versions = [f["d"]["v"] for f in lbs]
    assert versions == sorted(versions)
