"""Challenges: a room open for a window, each player beginning their own
game when they choose, on their own clock (docs/protocol.md, "Challenges").
The window is closed by moving the server's clock (``--clock-offset-file``)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from harness import Client, RedisServer, ServerProcess, Servers
from race_support import FAST_ARGS, win

WIN = "KL1-D1V-ABYI5NK"
HOUR = 3600


@pytest.fixture(scope="module")
def clock_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("clock") / "offset"
    path.write_text("0")
    return path


@pytest.fixture(scope="module")
def server(redis_server: RedisServer, tmp_path_factory: pytest.TempPathFactory,
           clock_file: Path) -> Iterator[ServerProcess]:
    group = Servers(tmp_path_factory.mktemp("server"))
    proc = group.start(redis_server.url, args=[*FAST_ARGS, "--clock-offset-file", str(clock_file)])
    yield proc
    problems = group.close()
    assert not problems, "server logged errors:\n" + "\n".join(problems)


def move_clock(clock_file: Path, seconds: float) -> None:
    """Move every server's clock ``seconds`` further (from where it is now)."""
    offset = int(clock_file.read_text() or 0) + round(seconds * 1000)
    clock_file.write_text(str(offset))


async def test_a_challenge_is_open_from_its_creation_and_a_player_begins_when_they_choose(
        connect: type[Client]) -> None:
    ann = await connect("ann")
    await ann.create("ann", code=WIN, window=HOUR)
    sync = await ann.expect("sync")
    room = sync["room"]
    assert room["phase"] == "racing" and room["settings"]["window"] == HOUR
    assert room["deadline"] - room["start_at"] == HOUR * 1000
    assert [e["status"] for e in sync["entries"]] == ["lobby"]
    assert not [f for f in ann.frames if f["t"] == "board"]
    bob = await connect("bob")
    await bob.join(ann.room, "bob")
    await bob.send("start")
    board = await bob.expect("board")
    assert board["view"]["moves"] == 0
    script = win(WIN)["script"]
    for m in script[:5]:
        ack = await bob.move(m)
        assert ack["t"] == "ack", ack
    lb = await ann.expect("lb", lambda d: any(e["seat"] == 1 and e["moves"] == 5
                                                for e in d["entries"]))
    line = next(e for e in lb["entries"] if e["seat"] == 1)
    assert line["status"] == "racing" and "started" in line and "late" not in line
    assert next(e for e in lb["entries"] if e["seat"] == 0)["status"] == "lobby"


async def test_the_window_closes_the_race_reveals_the_code_and_joining_is_refused(
        connect: type[Client], clock_file: Path) -> None:
    ann = await connect("ann")
    await ann.create("ann", code=WIN, window=600)
    await ann.send("start")
    await ann.expect("board")
    ack = await ann.move(win(WIN)["script"][0])
    assert ack["t"] == "ack"
    assert not any(WIN in raw for raw in ann.raw)
    move_clock(clock_file, 601)
    ended = await ann.event("ended", timeout=15)
    assert ended["code"] == WIN and ended["room"]["phase"] == "ended"
    assert [e["status"] for e in ended["room"]["results"]] == ["unfinished"]
    late = await connect("late")
    await late.send("join", {"room": ann.room, "nickname": "late"})
    refused = await late.expect("reject")
    assert refused["code"] == "closed"


async def test_ghosts_show_a_finished_player_to_the_next_one_by_their_own_clock(
        connect: type[Client]) -> None:
    ann = await connect("ann")
    await ann.create("ann", code=WIN, window=HOUR)
    await ann.send("start")
    await ann.expect("board")
    for m in win(WIN)["script"]:
        ack = await ann.move(m)
        assert ack["t"] == "ack", ack
    assert ack["d"]["view"]["state"] == "won"
    bob = await connect("bob")
    await bob.join(ann.room, "bob")
    await bob.send("start")
    await bob.expect("board")
    ghosts = await bob.expect("ghosts", timeout=5)
    assert ghosts["from"] == 0 and ghosts["to"] == 20
    line, = ghosts["lines"]
    assert line["nickname"] == "ann" and line["seat"] == 0
    first = line["p"][-1]
    assert first[1] == 52 and first[2] == 208
    assert line["end"]["status"] == "finished"
