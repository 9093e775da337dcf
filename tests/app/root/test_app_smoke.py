"""The server end to end with real processes: a quick race of two."""

from __future__ import annotations

from harness import Client


async def test_two_players_race_to_the_end(connect: type[Client]) -> None:
    ann, bob = await connect("ann"), await connect("bob")
    joined = await ann.create("ann", code="KL1-D1N-AAAAAAA")
    await bob.join(joined["room"], "bob")
    await bob.send("ready", {"ready": True})
    await ann.event("ready")
    await ann.send("start")
    start = await ann.event("start")
    assert start["room"]["phase"] == "countdown"
    board = await ann.expect("board")
    assert board["view"]["legal"] == ["t7>f", "t4>t5", "draw"]
    ack = await ann.move("t7>f")
    assert ack["t"] == "ack" and ack["d"]["view"]["points"] == 15
    assert (await ann.command("resign"))["t"] == "ack"
    assert (await bob.command("resign"))["t"] == "ack"
    ended = await bob.event("ended")
    assert ended["room"]["code"] == "KL1-D1N-AAAAAAA"
    assert [e["nickname"] for e in ended["room"]["results"]] == ["ann", "bob"]
