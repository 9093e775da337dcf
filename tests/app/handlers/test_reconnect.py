"""Resends and reconnecting: a command is applied once whatever the client
resends; a resumed seat gets what it missed (or a full sync) and its board
exactly as it was, undo history included."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest
from harness import Client, RedisServer, ServerProcess
from race_support import Racer, open_room, start_fast_server, start_race, win

from server.klondike import Game, replay


@pytest.fixture(scope="module")
def server(redis_server: RedisServer, tmp_path_factory: pytest.TempPathFactory
           ) -> Iterator[ServerProcess]:
    yield from start_fast_server(redis_server, tmp_path_factory)


async def answer(client: Client, seq: int) -> dict[str, Any]:
    """The next ack or reject frame for sequence number ``seq``."""
    async with asyncio.timeout(10):
        while True:
            msg = await client.next_frame()
            if msg["t"] == "__closed__":
                raise ConnectionError(f"{client.name}: closed waiting for {seq}")
            if msg["t"] in ("ack", "reject") and msg["d"].get("s") == seq:
                return dict(msg)


async def resend(client: Client, t: str, d: dict[str, Any]) -> dict[str, Any]:
    """Send a game command with the ``s`` given; its answer."""
    await client.send(t, d)
    return await answer(client, d["s"])


async def test_a_resent_command_is_applied_once(connect: type[Client]) -> None:
    won = win("KL1-D1N-AAGWAAO")
    code, script = won["code"], won["script"]
    ann = await connect("ann")
    joined = await ann.solo(nickname="ann", code=code)
    await ann.expect("board")
    game = Game(code)

    first = await resend(ann, "move", {"s": 1, "m": script[0]})
    game.push(script[0])
    assert first["t"] == "ack" and "again" not in first["d"]
    assert first["d"]["view"] == game.view(progress=True)
    again = await resend(ann, "move", {"s": 1, "m": script[0]})
    assert again["t"] == "ack" and again["d"]["again"] is True
    assert again["d"]["view"] == game.view(progress=True) and again["d"]["view"]["moves"] == 1
    stale = await resend(ann, "move", {"s": 1, "m": script[1]})
    assert stale["t"] == "reject" and stale["d"]["code"] == "stale" and stale["d"]["cmd"] == "move"

    second = await resend(ann, "move", {"s": 2, "m": script[1]})
    game.push(script[1])
    assert second["t"] == "ack" and second["d"]["view"]["moves"] == 2
    older = await resend(ann, "move", {"s": 1, "m": script[0]})
    assert older["d"]["again"] is True and older["d"]["view"] == game.view(progress=True)
    undo = await resend(ann, "undo", {"s": 3})
    game.pop()
    assert undo["t"] == "ack" and undo["d"]["view"] == game.view(progress=True)
    undo_again = await resend(ann, "undo", {"s": 3})
    assert undo_again["d"]["again"] is True and undo_again["d"]["view"]["moves"] == 1
    stale = await resend(ann, "resign", {"s": 3})
    assert stale["t"] == "reject" and stale["d"]["code"] == "stale" and stale["d"]["s"] == 3

    await ann.close()
    back = await connect("ann again")
    await back.resume(joined["room"], joined["token"], since=ann.v)
    board = await back.expect("board")
    assert board["s"] == 3 and board["view"] == game.view(progress=True)
    for t, d in (("undo", {"s": 3}), ("move", {"s": 2, "m": script[1]}), ("move", {"s": 1, "m": script[0]})):
        got = await resend(back, t, d)
        assert got["t"] == "ack" and got["d"]["again"] is True, (t, d, got)
        assert got["d"]["view"] == game.view(progress=True)
    stale = await resend(back, "move", {"s": 2, "m": script[0]})
    assert stale["t"] == "reject" and stale["d"]["code"] == "stale"

    # an ack lost with the socket: the same command again is applied at most once
    await back.send("move", {"s": 4, "m": script[1]})
    await back.close()
    third = await connect("ann once more")
    await third.resume(joined["room"], joined["token"], since=back.v)
    board = await third.expect("board")
    assert board["s"] in (3, 4)
    got = await resend(third, "move", {"s": 4, "m": script[1]})
    game.push(script[1])
    assert got["t"] == "ack" and got["d"].get("again", False) is (board["s"] == 4)
    assert got["d"]["view"] == game.view(progress=True) and game.moves == 2
    watcher = await connect("watcher")
    await watcher.send("watch", {"room": joined["room"], "since": 0})
    [line] = (await watcher.expect("sync"))["entries"]
    assert line["moves"] == 2 and line["vegas"] == game.vegas and line["points"] == game.points


async def test_sync_after_the_countdown_says_racing(connect: type[Client]) -> None:
    """Regression: a sync taken from a hub that saw the start event said
    ``countdown`` for the rest of the race."""
    ann, bob = await connect("ann"), await connect("bob")
    joined = await open_room([ann, bob])
    await start_race([ann, bob])
    late = await connect("late")
    await late.send("watch", {"room": joined[0]["room"], "since": 0})
    sync = await late.expect("sync")
    assert sync["room"]["phase"] == "racing" and sync["room"]["now"] >= sync["room"]["start_at"]


async def test_resume_gets_the_missed_events_then_lb_then_the_same_board(connect: type[Client]) -> None:
    won = win("KL1-D1N-AAHUQSR")
    code, script = won["code"], won["script"]
    ann, bob = await connect("ann"), await connect("bob")
    joined = await open_room([ann, bob], code=code, boards="live")
    await start_race([ann, bob])
    racer_ann, racer_bob = Racer(ann, code), Racer(bob, code)
    last = await racer_ann.play(script[:6])
    await ann.expect("lb", lambda d: any(e["nickname"] == "ann" and e["moves"] == 6 for e in d["entries"]))
    since = ann.v
    await ann.close()
    await bob.expect("lb", lambda d: any(e["nickname"] == "ann" and e["status"] == "disconnected"
                                         for e in d["entries"]))
    await racer_bob.play(script[:5])

    back = await connect("ann again")
    await back.resume(joined[0]["room"], joined[0]["token"], since=since)
    board = await back.expect("board")
    types = [f["t"] for f in back.frames]
    assert "sync" not in types
    assert types.index("joined") < types.index("events") < types.index("lb") < types.index("board")
    events = back.frames[types.index("events")]["d"]
    lb = back.frames[types.index("lb")]["d"]
    assert events["from"] == since and events["to"] == lb["v"]
    assert [e["v"] for e in events["events"]] == list(range(since + 1, events["to"] + 1))
    progress = [e for e in events["events"] if e["kind"] == "progress"]
    assert [(e["seat"], e["entry"]["moves"]) for e in progress] == [(bob.seat, n) for n in range(1, 6)]
    presence = [(e["seat"], e["online"]) for e in events["events"] if e["kind"] == "presence"]
    assert presence == [(ann.seat, False), (ann.seat, True)]
    assert not any("board" in e for e in events["events"])  # no other player's board, ever
    lines = {e["nickname"]: e for e in lb["entries"]}
    assert lines["ann"]["moves"] == 6 and lines["bob"]["moves"] == 5

    assert board["race"] == 1 and board["s"] == 6 and board["done"] is False
    assert board["view"] == last["d"]["view"] == racer_ann.game.view(progress=True)
    assert board["view"]["undo"] == 6
    back.seq = ann.seq
    undone = await back.command("undo")
    assert undone["t"] == "ack" and undone["d"]["view"] == replay(code, script[:5]).view(progress=True)
    move = await back.move(script[5])
    assert move["t"] == "ack" and move["d"]["view"] == last["d"]["view"]


async def test_resume_after_more_than_256_events_gets_a_full_sync(connect: type[Client]) -> None:
    won = win("KL1-D1N-AAAAMBZ")
    code, script = won["code"], won["script"]
    ann, bob = await connect("ann"), await connect("bob")
    joined = await open_room([ann, bob], code=code)
    await start_race([ann, bob])
    last = await Racer(ann, code).play(script[:3])
    since = ann.v
    await ann.close()
    await Racer(bob, code).play(script[:260])

    back = await connect("ann again")
    await back.resume(joined[0]["room"], joined[0]["token"], since=since)
    board = await back.expect("board")
    types = [f["t"] for f in back.frames]
    assert "events" not in types and types.index("joined") < types.index("sync") < types.index("board")
    sync = back.frames[types.index("sync")]["d"]
    assert sync["v"] > since + 256
    assert sync["room"]["phase"] == "racing" and "code" not in sync["room"]
    assert {e["nickname"]: e["moves"] for e in sync["entries"]} == {"ann": 3, "bob": 260}
    assert board["s"] == 3 and board["view"] == last["d"]["view"]

    # since=1, long after: a full sync too; this connection takes the seat over
    third = await connect("ann elsewhere")
    await third.resume(joined[0]["room"], joined[0]["token"], since=1)
    board = await third.expect("board")
    types = [f["t"] for f in third.frames]
    assert "events" not in types and types.index("sync") < types.index("board")
    assert board["view"] == last["d"]["view"]
    assert await back.closed() == 4000


async def test_resume_with_a_bad_token_or_room_is_refused(connect: type[Client]) -> None:
    ann, eve = await connect("ann"), await connect("eve")
    joined = await ann.create("ann")
    other = await (await connect("bob")).create("bob")
    for room, token, code in ((joined["room"], "not-a-token", "bad_token"),
                              (joined["room"], other["token"], "bad_token"),
                              ("ZZZZZZZZ", joined["token"], "unknown_room")):
        await eve.send("resume", {"room": room, "token": token, "since": 0})
        refused = await eve.expect("reject")
        assert refused["cmd"] == "resume" and refused["code"] == code
    assert not any(f["t"] in ("joined", "sync", "events") for f in eve.frames)
    await eve.resume(joined["room"], joined["token"])  # the refusals changed nothing
    assert eve.seat == 0
    assert await ann.closed() == 4000


async def test_the_lost_ack_of_a_last_command_comes_back_after_the_race_ended(
        connect: type[Client]) -> None:
    """A resign, or the move that wins, ends the seat's race (and here the
    race): resending it must still get its ack again, not not_playing."""
    won = win("KL1-D1V-ACT552B")
    ann, bob = await connect("ann"), await connect("bob")
    joined = await open_room([ann, bob], code=won["code"])
    await start_race([ann, bob])
    winner = Racer(ann, won["code"])
    await winner.play(won["script"])
    last_move = {"s": ann.seq, "m": won["script"][-1]}
    assert (await bob.command("resign"))["t"] == "ack"
    resign = {"s": bob.seq}
    await bob.event("ended")
    again = await resend(bob, "resign", resign)
    assert again["t"] == "ack" and again["d"]["again"] is True
    await bob.close()
    back = await connect("bob again")
    await back.resume(joined[1]["room"], joined[1]["token"])
    again = await resend(back, "resign", resign)
    assert again["t"] == "ack" and again["d"]["again"] is True
    again = await resend(ann, "move", last_move)
    assert again["t"] == "ack" and again["d"]["again"] is True
    assert again["d"]["view"] == winner.game.view(progress=True) and again["d"]["view"]["state"] == "won"
    late = await resend(ann, "move", {"s": ann.seq + 1, "m": "draw"})
    assert late["t"] == "reject" and late["d"]["code"] == "not_playing"
