"""What a move's ``ack`` carries: what changed in the player's view
(``klondike-race.v2``), or the whole view (``v1``); and the "no useful
move" judgement, never made before the ack: said at once when it follows
from the move, else in a ``status`` once the player pauses. Real Redis, a
real server process, real sockets."""

from __future__ import annotations

import pytest
from harness import Client, RedisServer, ServerProcess, Servers
from support.edge import barrier
from support.race import start_fast_server

from server.klondike import Game, replay

#: draw one, Vegas: after its 24 draws only w>t3 is legal, and nothing makes progress
IDLE = "KL1-D1V-ATDJ4LP"


@pytest.fixture(scope="module")
def server(redis_server: RedisServer, module_servers: Servers
           ) -> ServerProcess:
    return start_fast_server(redis_server, module_servers)


async def solo(client: Client, code: str, assists: str = "basic") -> dict[str, object]:
    await client.solo(nickname=client.name, code=code, assists=assists)
    return await client.expect("board")


def index_of(client: Client, t: str, seq: int) -> int:
    """Where the frame of type ``t`` about command ``seq`` is in what the client received."""
    (found,) = [i for i, f in enumerate(client.frames) if f["t"] == t and f["d"].get("s") == seq]
    return found


async def test_an_ack_carries_what_the_move_changed(connect: type[Client]) -> None:
    ann = await connect("ann")
    board = await solo(ann, "KL1-D1N-AAAAAAA")
    assert board["view"] == Game("KL1-D1N-AAAAAAA").view(progress=True)
    ack = await ann.move("t7>f")
    change = ack["d"]["change"]  # as sent (the test client adds the view it made of it)
    assert set(change["tableau"]) == {"6"} and change["foundations"]["H"] == "AH"
    assert "stock" not in change and "waste" not in change and "mode" not in change
    assert (change["points"], change["moves"], change["no_progress"]) == (15, 1, False)
    assert ack["d"]["view"] == replay("KL1-D1N-AAAAAAA", ["t7>f"]).view(progress=True)
    ack = await ann.move("draw")
    assert set(ack["d"]["change"]) >= {"stock", "waste", "waste_count"}
    assert "tableau" not in ack["d"]["change"] and "foundations" not in ack["d"]["change"]
    undone = await ann.command("undo")
    assert undone["d"]["view"] == replay("KL1-D1N-AAAAAAA", ["t7>f"]).view(progress=True)
    resigned = await ann.command("resign")
    assert "tableau" not in resigned["d"]["change"] and "stock" not in resigned["d"]["change"]
    assert resigned["d"]["view"] == undone["d"]["view"]


async def test_a_v1_client_gets_the_whole_view_in_every_ack(server: ServerProcess,
                                                            connect: type[Client]) -> None:
    ann = await Client.open(server.ws_url, "ann", protocol="klondike-race.v1")
    try:
        hello = await ann.expect("hello")
        assert hello["protocol"] == "klondike-race.v1"
        await solo(ann, IDLE)
        for n in range(1, 25):
            ack = await ann.move("draw")
            assert "change" not in ack["d"]
            expected = replay(IDLE, ["draw"] * n).view(progress=True)
            if n == 24:  # not known at once; v1 gets no status for it
                expected["no_progress"] = None
            assert ack["d"]["view"] == expected
        bob = await connect("bob")  # the same moves on v2, later: its status comes
        await solo(bob, IDLE)
        for _ in range(24):
            await bob.move("draw")
        await bob.expect("status")
        await barrier(ann)
        assert not [f for f in ann.frames if f["t"] == "status"]
    finally:
        await ann.close()


async def test_no_useful_move_is_judged_after_the_ack_once_the_player_pauses(
        connect: type[Client]) -> None:
    """The 24th draw leaves nothing useful: its ack cannot tell without a
    search (``null``), and a ``status`` says it after the ack; a move from
    there and undos back are told at once, with no status."""
    ann = await connect("ann")
    assert (await ann.expect("hello"))["protocol"] == "klondike-race.v2"
    await solo(ann, IDLE)
    for _ in range(23):  # a draw of the stock's first pass makes progress: told at once
        assert (await ann.move("draw"))["d"]["change"]["no_progress"] is False
    last = await ann.move("draw")
    assert last["d"]["change"]["no_progress"] is None
    status = await ann.expect("status", lambda d: d["s"] == 24)
    assert status == {"s": 24, "no_progress": True}
    assert index_of(ann, "ack", 24) < index_of(ann, "status", 24)
    assert ann.view is not None and ann.view["no_progress"] is True  # the notice shows
    played = await ann.move("w>t3")  # the only move left: nothing useful after it either
    assert played["d"]["change"]["no_progress"] is True
    assert (await ann.command("undo"))["d"]["change"]["no_progress"] is True
    assert (await ann.command("undo"))["d"]["change"]["no_progress"] is False
    await barrier(ann)
    assert [f["d"]["s"] for f in ann.frames if f["t"] == "status"] == [24]


async def test_no_status_comes_for_a_move_told_at_once_nor_in_a_room_without_assists(
        connect: type[Client]) -> None:
    ann = await connect("ann")
    await solo(ann, IDLE, assists="off")
    for _ in range(24):
        ack = await ann.move("draw")
        assert "no_progress" not in ack["d"]["change"]
    await barrier(ann)
    assert not [f for f in ann.frames if f["t"] == "status"]
