"""Secrets stay on the server: every frame sent to every racer and spectator
during whole races is scanned against the racers' games replayed here.

- no frame names a card that is still unseen (face down, or in a stock never
  yet turned) in the game it shows; a racer's frames name cards only in its
  own views (and in its rejections' sentences), a spectator's only in boards;
- a racer never receives another board; a spectator receives boards only as
  the room's ``boards`` setting allows, each one a view the player's game showed;
- the deal code (nor its number) is in no frame before the race has ended.
"""

from __future__ import annotations

import asyncio

import pytest
from harness import Client, RedisServer, ServerProcess, Servers
from support.race import (
    Racer,
    assert_code_kept,
    open_room,
    scan_racer,
    scan_spectator,
    start_fast_server,
    start_race,
    win,
)

from server.klondike import Move


@pytest.fixture(scope="module")
def server(redis_server: RedisServer, module_servers: Servers
           ) -> ServerProcess:
    return start_fast_server(redis_server, module_servers)


def illegal_moves(legal: list[str]) -> list[str]:
    """Moves of every shape that the position refuses."""
    shapes = ["draw", "recycle", "w>f"]
    for a in range(1, 8):
        shapes += [f"t{a}>f", f"w>t{a}", *(f"f{s}>t{a}" for s in "shdc")]
        for b in range(1, 8):
            if a != b:
                shapes += [f"t{a}>t{b}", *(f"t{a}:{n}>t{b}" for n in (2, 3, 5))]
    return [m for m in shapes if str(Move.parse(m)) not in legal]


async def play_with_undos(racer: Racer, script: list[str]) -> None:
    """Half the script with undos along the way, then resign."""
    half = len(script) // 2
    for start in range(0, half, 20):
        chunk = script[start:min(start + 20, half)]
        await racer.play([*chunk, "undo", "undo", *chunk[-2:]] if len(chunk) >= 2 else chunk)
    await racer.resign()


async def play_with_assists(racer: Racer, script: list[str]) -> None:
    """Hints now and then; the script until auto-complete is offered; then the
    moves ``complete`` gives."""
    client = racer.client
    await client.send("complete")
    refused = await client.expect("reject")
    assert refused["cmd"] == "complete" and refused["code"] == "no_autocomplete"
    for i, move in enumerate(script):
        view = racer.game.view()
        if view["autocomplete"]:
            break
        if i % 25 == 0:
            await client.send("hint")
            hint = await client.expect("hint")
            assert hint["m"] is None or hint["m"] in view["legal"]
        await racer.play([move])
    await client.send("complete")
    finish = (await client.expect("complete"))["moves"]
    last = await racer.play(finish)
    assert last["d"]["view"]["state"] == "won"


async def play_badly_then_leave(racer: Racer, script: list[str]) -> None:
    """A third of the script with every kind of illegal move tried at a few
    positions (their sentences name cards), then leave the race."""
    client = racer.client
    third = len(script) // 3
    for start in range(0, third, third // 3):
        legal = racer.game.view()["legal"]
        for bad in illegal_moves(legal):
            refused = await client.move(bad)
            assert refused["t"] == "reject" and refused["d"]["code"] == "illegal_move", (bad, refused)
        await racer.play(script[start:start + third // 3])
    await client.send("leave")
    await client.expect("left")


@pytest.mark.parametrize(("boards", "code"), [("live", "KL1-D3N-AATCXLV"), ("after", "KL1-D1N-AAOKERG")])
async def test_no_secret_reaches_any_racer_or_spectator(
        connect: type[Client], boards: str, code: str) -> None:
    script = win(code)["script"]
    clients = [await connect(n) for n in ("ann", "bob", "cat", "dan")]
    joined = await open_room(clients, code=code, boards=boards)
    room = joined[0]["room"]
    early = await connect("early watcher")
    await early.send("watch", {"room": room, "since": 0})
    await early.expect("sync")
    await start_race(clients)
    ann, bob, cat, dan = racers = [Racer(c, code) for c in clients]

    async def ann_and_a_late_watcher() -> Client:
        """ann plays half her game, a spectator comes in (the race is on: ann
        is still in it), ann plays on; the spectator."""
        half = len(script) // 2
        await ann.play(script[:half])
        late = await connect("late watcher")
        await late.send("watch", {"room": room, "since": 0})
        sync = await late.expect("sync")
        assert sync["room"]["phase"] == "racing"
        await ann.play(script[half:])
        return late

    late, *_ = await asyncio.gather(ann_and_a_late_watcher(), play_with_undos(bob, script),
                                    play_with_assists(cat, script), play_badly_then_leave(dan, script))
    ended = await early.event("ended")
    assert ended["code"] == code
    assert {e["nickname"]: e["status"] for e in ended["room"]["results"]} == {
        "ann": "finished", "cat": "finished", "bob": "resigned", "dan": "left"}
    by_seat = {r.seat: r for r in racers}
    finals = {str(r.seat): r.game.public_view() for r in racers}
    for watcher in (early, late):  # after the end every spectator sees every final board
        if watcher is late:
            await late.event("ended")
        await watcher.expect("boards", lambda d: d["boards"] == finals)

    checked = sum(scan_racer(r) for r in racers)
    assert checked > 1000  # the scans did look at the cards the views name
    for watcher in (early, late):
        seen = scan_spectator(watcher, by_seat, boards=boards)
        if boards == "live":  # boards came during the race, not only at the end
            assert seen > len(racers) * 2
    for client in (*clients, early, late):
        assert_code_kept(client, code)
        if client is not dan.client:  # it left before the end
            assert any(code in raw for raw in client.raw)
