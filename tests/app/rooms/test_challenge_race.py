"""A challenge played by three players at different times, over two server
processes, one of them reconnecting mid-game to the other process: their
ranks and the ghosts each saw are checked against a model of their games
computed here; the deal's code and every replay stay hidden until the window
closes (but for a player who won, who sees the replays of the games over)
and are there after; every frame and every API answer is scanned for cards
and for the code (docs/protocol.md, "Challenges", "Ghosts", "Replays")."""

from __future__ import annotations

import asyncio
import copy
import json
import urllib.error
import urllib.request
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from harness import Client, RedisServer, ServerProcess, Servers
from support.challenge import Played, TestClock, check_ghost, ghost_lines, play_tracked
from support.race import (
    ALL_CARDS,
    CARD_TOKEN,
    FAST_ARGS,
    Racer,
    assert_code_kept,
    scan_racer,
    seen_or_next,
    win,
)

from server.race.ranking import sort_key

WIN = "KL1-D1V-ABYI5NK"  # Vegas: the ghosts' dollars are the cards ever put home
WINDOW = 3 * 3600


def fetch(url: str, token: str | None = None) -> tuple[int, str]:
    """An HTTP GET: its status and body."""
    request = urllib.request.Request(url)
    if token is not None:
        request.add_header("Authorization", f"Bearer {token}")
    try:
        with urllib.request.urlopen(request, timeout=10) as reply:
            return reply.status, reply.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode()


async def replay(server: ServerProcess, room: str, seat: int, token: str | None = None,
                 answers: list[str] | None = None) -> tuple[int, dict[str, Any]]:
    """A seat's whole replay, read a page (100 steps at most) at a time: the
    first page's answer with every page's steps; a refusal as it came."""
    whole: dict[str, Any] | None = None
    while whole is None or len(whole["steps"]) < whole["of"]:
        first = 0 if whole is None else len(whole["steps"])
        status, body = await asyncio.to_thread(
            fetch, f"{server.http_url}/api/rooms/{room}/replay/{seat}?first={first}", token)
        if answers is not None:
            answers.append(body)
        page = json.loads(body)
        if status != 200:
            return status, page
        assert page["first"] == first and len(page["steps"]) <= 100
        if whole is None:
            whole = page
        else:
            assert page["steps"], page  # a page before the end is never empty
            whole["steps"] += page["steps"]
    return 200, whole


async def began(client: Client, seat: int) -> int:
    """The server time a seat's game began (the room's ``began`` event)."""
    event = await seen_or_next(client, "event", lambda d: d["kind"] == "began" and d["seat"] == seat)
    return int(event["started"])


async def test_a_challenge_played_at_three_times_ranks_and_ghosts_everyone_by_their_own_clock(
        redis_server: RedisServer, servers: Servers, tmp_path: Path,
        clients: Callable[[ServerProcess, str], Awaitable[Client]]) -> None:
    path = tmp_path / "clock"
    path.write_text("0")
    clock = TestClock(path)
    args = [*FAST_ARGS, "--clock-offset-file", str(path)]
    one = servers.start(redis_server.url, args=args, name="one")
    two = servers.start(redis_server.url, args=args, name="two")
    script = win(WIN)["script"]
    answers: list[str] = []  # every API answer, scanned at the end

    ann = await clients(one, "ann")
    room = (await ann.create("ann", code=WIN, window=WINDOW))["room"]
    dan = await clients(two, "dan")  # joins and never begins: listed as such
    await dan.join(room, "dan")

    # ann, first, wins: two seconds of her own clock for each card put home
    await ann.send("start")
    await ann.expect("board")
    a = Played(Racer(ann, WIN))
    a.started = await began(ann, 0)
    await play_tracked(a, script, clock, step_ms=2000)
    assert a.end is not None and a.end[0] == "finished"

    # bob, an hour later on the other process, plays a third, loses his
    # connection, comes back on the first process and resigns later on
    clock.move(3600 * 1000)
    bob = await clients(two, "bob")
    joined = await bob.join(room, "bob")
    await bob.send("start")
    await bob.expect("board")
    b = Played(Racer(bob, WIN))
    b.started = await began(bob, 2)
    await play_tracked(b, script[:45], clock, step_ms=1500)
    first_bob = copy.copy(b.racer)
    first_bob.marks = list(b.racer.marks)
    await bob.close()
    bob2 = await clients(one, "bob again")
    await bob2.resume(room, joined["token"], bob.v)
    board = await bob2.expect("board")
    assert board["view"] == b.racer.game.view(progress=True) and board["s"] == bob.seq
    bob2.seq = bob.seq
    b.racer.client, b.racer.marks = bob2, []
    await play_tracked(b, [*script[45:80], "resign"], clock, step_ms=1500)

    # before the window closes: no replay for anyone but a winner
    for seat in (0, 2):
        status, body = await replay(one, room, seat, answers=answers)
        assert (status, body["error"]) == (404, "not_ended")
        status, body = await replay(two, room, seat, joined["token"], answers)  # bob resigned
        assert (status, body["error"]) == (404, "not_ended")

    # cat, last, on the first process, wins faster than ann
    cat = await clients(one, "cat")
    cat_seat = await cat.join(room, "cat")
    await cat.send("start")
    await cat.expect("board")
    c = Played(Racer(cat, WIN))
    c.started = await began(cat, 3)
    await play_tracked(c, script, clock, step_ms=1000)

    # the window is still open: everyone is done who began, the race goes on
    assert ann.frames[-1]["t"] != "event" or ann.frames[-1]["d"]["kind"] != "ended"
    status, body = await replay(one, room, 0, cat_seat["token"], answers)
    assert status == 200 and "code" not in body
    assert [s["view"] for s in body["steps"]] == a.racer.history
    status, body = await replay(two, room, 2, cat_seat["token"], answers)
    assert status == 200 and [s["view"] for s in body["steps"]] == b.racer.history

    # ranks: the room's order on each player's own clock, against the model
    model = []
    for played, seat, name in ((a, 0, "ann"), (b, 2, "bob"), (c, 3, "cat")):
        game = played.racer.game
        assert played.end is not None
        status_, lo, hi = played.end
        model.append({"seat": seat, "nickname": name, "status": status_,
                      "foundation": game.foundation_cards, "vegas": game.vegas,
                      "moves": game.moves, "finish_ms": (hi - played.started)
                      if status_ == "finished" else None, "at": hi, "lo": lo - played.started})
    model.append({"seat": 1, "nickname": "dan", "status": "lobby", "foundation": 0, "vegas": -52,
                  "moves": 0, "finish_ms": None, "at": 0, "lo": None})
    expected = [m["nickname"] for m in sorted(model, key=sort_key)]
    assert expected == ["cat", "ann", "bob", "dan"]
    lb = await seen_or_next(dan, "lb", lambda d: [e["nickname"] for e in d["entries"]] == expected
                            and d["entries"][0]["status"] == "finished")
    for line in lb["entries"]:
        want = next(m for m in model if m["seat"] == line["seat"])
        # a seat not begun shows its status alone (docs/protocol.md, "What each client may see")
        shown = ("status",) if want["status"] == "lobby" else ("status", "foundation", "vegas",
                                                                 "moves")
        for key in shown:
            assert line[key] == want[key], (line, want)
        if want["status"] == "finished":
            assert want["lo"] <= line["finish_ms"] <= want["finish_ms"], (line, want)

    # the ghosts each saw: ann none (she was first), bob ann's, cat ann's and bob's
    assert all(not frame["lines"] for frame in ghost_lines(ann))
    # (how many frames and points come depends on how fast the games went:
    # every line each viewer got is checked, and each viewer got a line of
    # each of its ghosts, with at least one point each)
    for viewer, ghosts in ((bob, {0: a}), (bob2, {0: a}), (cat, {0: a, 2: b})):
        frames = ghost_lines(viewer)
        assert frames, viewer.name
        checked = lines = 0
        for frame in frames:
            assert {line["seat"] for line in frame["lines"]} == set(ghosts), (viewer.name, frame)
            for line in frame["lines"]:
                assert set(line) <= {"seat", "nickname", "p", "end"}
                checked += check_ghost(line, ghosts[line["seat"]], frame["from"], frame["to"])
                lines += 1
        assert lines >= len(ghosts) and checked >= lines, (viewer.name, lines, checked)

    # the window closes: the code, the results in the model's order, every replay
    clock.move(WINDOW * 1000)
    ended = await seen_or_next(ann, "event", lambda d: d["kind"] == "ended", timeout=20)
    assert ended["code"] == WIN
    assert [e["nickname"] for e in ended["room"]["results"]] == ["cat", "ann", "bob"]
    for played, seat in ((a, 0), (b, 2), (c, 3)):
        status, body = await replay(two, room, seat, answers=answers)
        assert status == 200 and body["code"] == WIN
        assert [s["view"] for s in body["steps"]] == played.racer.history
    late = await clients(two, "eve")
    await late.send("join", {"room": room, "nickname": "eve"})
    assert (await late.expect("reject"))["code"] == "closed"

    # secrets: no card unseen by its receiver, no board, no code before the close
    for racer in (a.racer, first_bob, b.racer, c.racer):
        scan_racer(racer)
        assert_code_kept(racer.client, WIN)
    for client in (dan, late):
        assert not any(CARD_TOKEN.search(raw) for raw in client.raw), client.name
        assert_code_kept(client, WIN)
    for body in answers:
        if WIN in body:
            assert '"code"' in body  # only once the window has closed
    before_close = [body for body in answers if WIN not in body]
    seen_by_cat = ALL_CARDS  # cat won: every card of the deal was face up before him
    for body in before_close:
        assert set(CARD_TOKEN.findall(body)) <= seen_by_cat
        if '"steps"' not in body:
            assert not CARD_TOKEN.search(body), body[:200]
