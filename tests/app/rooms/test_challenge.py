"""Challenges: a room open for a window, each player beginning their own
game when they choose, on their own clock (docs/protocol.md, "Challenges").
The window is closed by moving the server's clock (``--clock-offset-file``)."""

from __future__ import annotations

import itertools
import re
from pathlib import Path
from typing import Any

import pytest
from harness import ROOT, Client, RedisServer, ServerProcess, Servers, eventually
from support.challenge import TestClock
from support.player import history, history_of, identify
from support.race import FAST_ARGS, seen_or_next, win
from support.tournament import http_get

from server.app.ground.clock import OffsetClock
from server.app.ground.config import Config, pick
from server.app.rooms.room_config import RoomConfig
from server.app.rooms.room_service import Rooms
from server.race import RaceError, parse_settings
from server.store import Store, keys

WIN = "KL1-D1V-ABYI5NK"
HOUR = 3600


@pytest.fixture(scope="module")
def server(redis_server: RedisServer, module_servers: Servers,
           clock_file: Path) -> ServerProcess:
    return module_servers.start(redis_server.url, args=[*FAST_ARGS, "--clock-offset-file", str(clock_file)])


def move_clock(clock_file: Path, seconds: float) -> None:
    """Move every server's clock ``seconds`` further (from where it is now)."""
    TestClock(clock_file).move(round(seconds * 1000))


async def test_reading_the_servers_time_leaves_the_events_that_came_meanwhile(
        connect: type[Client], clock_file: Path) -> None:
    """Regression (issue 30): the tests read a server's time from a
    ``pong``, and waiting for it skipped every frame before it; a day's end
    that came while a test waited for its servers to see the clock moved was
    lost, and the test waited 60 s for an ``ended`` it had thrown away."""
    ann, bob = await connect("ann"), await connect("bob")
    room = (await ann.create("ann"))["room"]
    await bob.join(room, "bob")
    await eventually(lambda: any(f["t"] == "event" and f["d"].get("kind") == "joined"
                                 and f["d"].get("seat") == bob.seat for f in ann.frames))
    assert await TestClock(clock_file).now(ann) > 0  # the event is there before the pong
    assert (await ann.event("joined"))["seat"] == bob.seat


async def test_a_challenge_is_open_from_its_creation_and_a_player_begins_when_they_choose(
        connect: type[Client]) -> None:
    ann = await connect("ann")
    await ann.create("ann", code=WIN, window=HOUR)
    sync = await ann.expect("sync")
    room = sync["room"]
    assert room["phase"] == "racing" and room["settings"]["window"] == HOUR
    assert room["deadline"] - room["start_at"] == HOUR * 1000
    # ann has not begun: her line is the lobby's (shown "disconnected" until
    # the hub hears of her connection: its presence event may follow the sync)
    (line,) = sync["entries"]
    assert line["status"] in ("lobby", "disconnected") and "started" not in line
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
    lb = await ann.expect("lb", lambda d: any(e["seat"] == 1 and e["status"] == "racing"
                                                for e in d["entries"]))
    line = next(e for e in lb["entries"] if e["seat"] == 1)
    # bob's game goes on: the others see that he plays, not how (no figures)
    assert "started" in line and "late" not in line and "moves" not in line
    assert next(e for e in lb["entries"] if e["seat"] == 0)["status"] == "lobby"


def _about_resigned(frame: dict[str, Any]) -> bool:
    """A frame that says seat 1 resigned (its event, or a leaderboard)."""
    d = frame["d"]
    if frame["t"] == "event":
        return d.get("kind") == "progress" and d["entry"]["status"] == "resigned"
    return frame["t"] == "lb" and any(
        e["seat"] == 1 and e["status"] == "resigned" for e in d["entries"])


async def test_a_game_going_on_shows_nothing_per_move_to_a_seated_player_or_a_spectator(
        connect: type[Client]) -> None:
    """Observers of a challenge's running game (a seated player who has not
    begun, a spectator) watch 20 of its moves and receive nothing per move:
    not a frame, until the game is over; then its line shows its final
    figures (docs/protocol.md, "What each client may see")."""
    ann = await connect("ann")
    await ann.create("ann", code=WIN, window=HOUR)
    bob, spec = await connect("bob"), await connect("spec")
    await bob.join(ann.room, "bob")
    await spec.send("watch", {"room": ann.room, "since": 0})
    await spec.expect("sync")
    await bob.send("start")
    await bob.expect("board")
    observers = (ann, spec)
    for obs in observers:
        lb = await obs.expect("lb", lambda d: any(e["seat"] == 1 and e["status"] == "racing"
                                                    for e in d["entries"]))
        line = next(e for e in lb["entries"] if e["seat"] == 1)
        assert set(line) <= {"seat", "nickname", "status", "started", "rank"}
    marks = [len(obs.frames) for obs in observers]
    for m in win(WIN)["script"][:20]:
        assert (await bob.move(m))["t"] == "ack"
    assert (await bob.command("resign"))["t"] == "ack"
    for obs, mark in zip(observers, marks, strict=True):
        lb = await obs.expect("lb", lambda d: any(e["seat"] == 1 and e["status"] == "resigned"
                                                    for e in d["entries"]))
        final = next(e for e in lb["entries"] if e["seat"] == 1)
        assert final["moves"] == 20 and "foundation" in final and "vegas" in final
        after = obs.frames[mark:]
        first = next(i for i, f in enumerate(after) if _about_resigned(f))
        assert after[:first] == [], f"{obs.name} got frames while bob played: {after[:first]}"


async def test_the_window_closes_the_race_reveals_the_code_and_joining_is_refused(
        connect: type[Client], clock_file: Path, server: ServerProcess) -> None:
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
    # the replay says what the results say (docs/protocol.md, "Replays")
    reply = await http_get(server, f"/api/rooms/{ann.room}/replay/0")
    assert reply.status == 200 and reply.json()["status"] == "unfinished"
    # a page holds as many steps as docs/protocol.md says, in both places it says it
    docs = (ROOT / "docs" / "protocol.md").read_text()
    most = int(re.search(r"Replays: pages of at most (\d+) steps", docs)[1])  # type: ignore[index]
    assert f"`count` (1 to {most}, the default)" in docs
    reply = await http_get(server, f"/api/rooms/{ann.room}/replay/0?count={most}")
    assert reply.status == 200 and reply.json()["of"] == 2
    reply = await http_get(server, f"/api/rooms/{ann.room}/replay/0?count={most + 1}")
    assert (reply.status, reply.json()["error"]) == (400, "bad_field")
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


async def test_a_players_time_limit_ends_their_own_game_as_it_stands_and_makes_them_a_ghost(
        connect: type[Client], clock_file: Path) -> None:
    """A challenge with a time limit: each game ends at its own limit. The
    sweeper marks it unfinished (the player need not be there); a command
    after it is refused; the next player sees it as a ghost that ended so."""
    ann = await connect("ann")
    await ann.create("ann", code=WIN, window=HOUR, time_limit=600)
    await ann.send("start")
    await ann.expect("board")
    for m in win(WIN)["script"][:8]:
        assert (await ann.move(m))["t"] == "ack"
    move_clock(clock_file, 601)
    lb = await ann.expect("lb", lambda d: d["entries"][0]["status"] == "unfinished", timeout=15)
    line = lb["entries"][0]
    assert line["moves"] == 8 and line["at"] - line["started"] == 600_000
    refused = await ann.move(win(WIN)["script"][8])
    assert refused["t"] == "reject" and refused["d"]["code"] == "not_playing"
    assert "time is up" in refused["d"]["msg"]
    bob = await connect("bob")
    await bob.join(ann.room, "bob")
    await bob.send("start")
    await bob.expect("board")
    ghosts = await bob.expect("ghosts", timeout=5)
    ghost, = ghosts["lines"]
    assert ghost["nickname"] == "ann" and "end" not in ghost  # it ends at 600 s of her clock
    assert ghosts["lines"][0]["p"][0][0] == 0


async def test_a_game_begun_near_the_close_ends_when_the_window_closes(
        connect: type[Client], clock_file: Path) -> None:
    ann = await connect("ann")
    await ann.create("ann", code=WIN, window=600, time_limit=3600)
    move_clock(clock_file, 590)
    await ann.send("start")
    await ann.expect("board")
    began = next(f["d"] for f in ann.frames if f["t"] == "event" and f["d"]["kind"] == "began")
    assert began["ends"] == began["room"]["deadline"] < began["started"] + 3600_000
    move_clock(clock_file, 11)
    ended = await ann.event("ended", timeout=15)
    assert [e["status"] for e in ended["room"]["results"]] == ["unfinished"]


async def test_starting_twice_or_after_the_close_is_refused(
        connect: type[Client], clock_file: Path) -> None:
    ann = await connect("ann")
    await ann.create("ann", code=WIN, window=600)
    bob = await connect("bob")
    await bob.join(ann.room, "bob")
    await ann.send("start")
    await ann.expect("board")
    await ann.send("start")
    assert (await ann.expect("reject"))["code"] == "not_lobby"
    move_clock(clock_file, 601)
    await bob.event("ended", timeout=15)
    await bob.send("start")
    assert (await bob.expect("reject"))["code"] == "closed"


async def test_a_player_who_never_began_is_listed_as_such_and_leaves_without_a_trace(
        connect: type[Client]) -> None:
    ann = await connect("ann")
    await ann.create("ann", code=WIN, window=HOUR)
    bob = await connect("bob")
    await bob.join(ann.room, "bob")
    lb = await ann.expect("lb", lambda d: len(d["entries"]) == 2)
    assert [e["status"] for e in lb["entries"]] == ["lobby", "lobby"]
    await bob.send("leave")
    await bob.expect("left")
    lb = await ann.expect("lb", lambda d: len(d["entries"]) == 1)
    assert lb["entries"][0]["nickname"] == "ann"


@pytest.mark.parametrize("settings", [
    {"window": 599}, {"window": 604_801}, {"window": True}, {"window": HOUR, "boards": "live"},
    {"window": HOUR, "late": "admit"}])
async def test_bad_challenge_settings_are_refused(connect: type[Client],
                                                  settings: dict[str, Any]) -> None:
    ann = await connect("ann")
    await ann.send("create", {"nickname": "ann", "settings": settings})
    assert (await ann.expect("reject"))["code"] == "bad_settings"


async def test_a_big_challenge_seats_players_to_begin_later_ranks_them_and_sends_ghosts(
        connect: type[Client], clock_file: Path) -> None:
    """A challenge of thousands (a daily deal is one): seats in hashes, a
    begin is one script, the ranking and the ghosts in Redis, ticks."""
    ann = await connect("ann")
    await ann.create("ann", code=WIN, window=HOUR, max_players=50, time_limit=900)
    bob, cat = await connect("bob"), await connect("cat")
    await bob.join(ann.room, "bob")
    await cat.join(ann.room, "cat")
    await ann.send("start")
    await ann.expect("board")
    for m in win(WIN)["script"]:
        ack = await ann.move(m)
        assert ack["t"] == "ack", ack
    assert ack["d"]["rank"] == 1 and ack["d"]["of"] == 3
    await bob.send("start")
    await bob.expect("board")
    ghosts = await bob.expect("ghosts", timeout=5)
    line, = ghosts["lines"]
    assert line["nickname"] == "ann" and line["p"][-1][1:] == [52, 208]
    assert (await bob.move(win(WIN)["script"][0]))["t"] == "ack"
    top = await cat.expect("top", lambda d: [x["status"] for x in d["top"]] == [
        "finished", "racing", "lobby"], timeout=10)
    assert top["n"] == 3 and top["status"] == {"finished": 1, "racing": 1}
    move_clock(clock_file, 901)  # bob's own time runs out: the ranking says so
    await cat.expect("top", lambda d: [x["status"] for x in d["top"]] == [
        "finished", "unfinished", "lobby"], timeout=15)
    await cat.send("leave")  # never began: gone, as from a lobby
    await cat.expect("left")
    await ann.expect("top", lambda d: d["n"] == 2, timeout=10)
    move_clock(clock_file, HOUR)
    ended = await ann.event("ended", timeout=15)
    assert ended["code"] == WIN
    assert [x["nickname"] for x in ended["room"]["results"]] == ["ann", "bob"]
    dan = await connect("dan")
    await dan.send("join", {"room": ann.room, "nickname": "dan"})
    assert (await dan.expect("reject"))["code"] == "closed"


async def test_what_a_player_receives_of_the_ghosts_is_bounded_whatever_the_field(
        connect: type[Client], clock_file: Path) -> None:
    """80 players played before (more than a process keeps at hand): the
    next one gets, per stretch of 20 seconds of their own clock, one frame of
    at most 7 ghost lines (the 3 best, and the 4 nearest them), each of at
    most 21 points, the stretches one after the other."""
    script = win(WIN)["script"]
    host = await connect("host")
    await host.create("host", code=WIN, window=HOUR, max_players=100)
    for i in range(80):
        p = await connect(f"p{i}")
        await p.join(host.room, f"p{i}")
        await p.send("start")
        await p.expect("board")
        moves = script if i < 4 else script[:(i * 7) % 90]
        for m in moves:
            assert (await p.move(m))["t"] == "ack"
        if i >= 4:
            assert (await p.command("resign"))["t"] == "ack"
        await p.close()
    await host.send("lb_page", {"first": 1, "count": 3})
    best = [line["seat"] for line in (await host.expect("lb_page"))["lines"]]
    viewer = await connect("viewer")
    await viewer.join(host.room, "viewer")
    await viewer.send("start")
    await viewer.expect("board")
    clock = TestClock(clock_file)
    for _ in range(12):  # a minute of the viewer's own clock, five seconds at a time
        clock.move(5000)
        await clock.seen(viewer)
    await seen_or_next(viewer, "ghosts", lambda d: d["to"] > 60)
    frames = [f["d"] for f in viewer.frames if f["t"] == "ghosts"]
    raw = [r for r in viewer.raw if r.startswith('{"t":"ghosts"')]
    assert 2 <= len(frames) <= 5
    for before, after in itertools.pairwise(frames):
        assert after["from"] >= before["to"]
    for frame, text in zip(frames, raw, strict=True):
        assert frame["to"] - frame["from"] == 20 and len(text) < 2500
        seats = [line["seat"] for line in frame["lines"]]
        assert len(seats) == len(set(seats)) == 7 and seats[:3] == best
        assert all(len(line["p"]) <= 21 for line in frame["lines"])


async def test_a_challenge_the_server_opens_has_no_host_and_seats_whoever_comes(
        redis_server: RedisServer, connect: type[Client], clock_file: Path) -> None:
    """What a daily deal is built on: the server opens a challenge of
    thousands nobody hosts (Rooms.open_challenge); players come by its id."""
    store = await Store.open(redis_server.url)
    try:
        clock = OffsetClock(clock_file)
        rooms = Rooms(store, pick(Config(), RoomConfig), lambda: int(clock() * 1000), None)  # type: ignore[arg-type]
        with pytest.raises(RaceError):
            await rooms.open_challenge(parse_settings({"max_players": 10_000}))
        room = await rooms.open_challenge(parse_settings(
            {"code": WIN, "window": HOUR, "max_players": 10_000, "time_limit": 900}))
    finally:
        await store.close()
    ann = await connect("ann")
    await ann.join(room.id, "ann")
    sync = await ann.expect("sync")
    assert sync["room"]["host"] == -1 and sync["room"]["phase"] == "racing"
    assert sync["room"]["field"] == {"players": 1, "ready": 0}
    await ann.send("start")
    assert (await ann.expect("board"))["started"] >= sync["room"]["start_at"]
    assert (await ann.move(win(WIN)["script"][0]))["t"] == "ack"
    assert (await ann.command("resign"))["t"] == "ack"
    bob = await connect("bob")
    await bob.join(room.id, "bob")
    await bob.send("start")
    await bob.expect("board")
    line, = (await bob.expect("ghosts", timeout=5))["lines"]
    assert line["nickname"] == "ann" and line["end"]["status"] == "resigned"


async def test_a_closed_challenge_is_kept_a_week_with_its_replays_and_ghosts(
        redis_server: RedisServer, connect: type[Client], clock_file: Path) -> None:
    """--challenge-ttl (7 days) after the close, not --finished-ttl (an
    hour): the room, every seat's moves (its replays) and its ghosts."""
    ann = await connect("ann")
    await ann.create("ann", code=WIN, window=600)
    await ann.send("start")
    await ann.expect("board")
    for m in win(WIN)["script"][:10]:
        assert (await ann.move(m))["t"] == "ack"
    assert (await ann.command("resign"))["t"] == "ack"
    move_clock(clock_file, 601)
    await ann.event("ended", timeout=15)
    room = ann.room
    r = redis_server.client()
    try:
        week = 7 * 86400 * 1000
        for key in (f"kr:{{{room}}}:room", f"kr:{{{room}}}:gh", f"kr:{{{room}}}:gz",
                    f"kr:{{{room}}}:r1:s0"):
            assert week - 600_000 < r.pttl(key) <= week, key
        # the game is over: its log is packed into the seat's hash (kept as long), no list left
        assert r.hexists(f"kr:{{{room}}}:r1:s0", "log") and not r.exists(f"kr:{{{room}}}:r1:s0:log")
    finally:
        r.close()


async def test_a_closed_challenge_records_a_challenge_result_and_none_for_a_player_who_never_began(
        connect: type[Client], clock_file: Path) -> None:
    """Regression: a challenge's results were recorded as a race's, and a
    seat whose player never began got an ``unfinished`` game in their
    history and counted in everyone's field."""
    ann, bob = await connect("ann"), await connect("bob")
    await identify(ann, nickname="ann")
    await identify(bob, nickname="bob")
    await ann.create("ann", code=WIN, window=600)
    await bob.join(ann.room, "bob")
    await ann.send("start")
    await ann.expect("board")
    for m in win(WIN)["script"]:
        assert (await ann.move(m))["t"] == "ack"
    move_clock(clock_file, 601)
    await ann.event("ended", timeout=15)
    [r] = await history_of(ann, 1)
    assert (r["kind"], r["place"], r["of"], r["status"], r["code"]) == (
        "challenge", 1, 1, "finished", WIN)
    assert (await history(bob))["of"] == 0


async def test_a_deadline_that_fails_keeps_no_other_waiting(
        own_redis: RedisServer, servers: Servers, clients: Any, tmp_path: Path) -> None:
    """Regression (issue 30): the sweeper handled the deadlines it claimed
    one after the other, and the first that raised ended the batch: every
    deadline after it (a day's end) waited for its lease, and again, as long
    as the bad one was there. A room whose state cannot be read is due
    first; the challenge's close still ends it, at once."""
    clock = TestClock(tmp_path / "offset")
    s = servers.start(own_redis.url, args=[*FAST_ARGS, "--clock-offset-file", str(clock.path)])
    s.allowed_errors = {"due_failed"}
    ann = await clients(s, "ann")
    await ann.create("ann", code=WIN, window=600)
    r = own_redis.client()
    try:
        r.hset(keys.room("BROKEN00"), "state", b"not a room")
        r.zadd(keys.DUE, {"BROKEN00": 0})
    finally:
        r.close()
    clock.move(601_000)
    ended = await ann.event("ended", timeout=15)  # (not 10 s and more: its lease)
    assert ended["room"]["phase"] == "ended"
    failed, *_ = await eventually(lambda: [x for x in s.log_lines() if x["event"] == "due_failed"])
    assert failed["member"] == "BROKEN00" and "Traceback" in failed["exception"]


@pytest.mark.parametrize("max_players", [8, 50])  # seats in the room's document, and in hashes
async def test_a_player_whose_own_game_is_over_may_watch_the_challenge(
        connect: type[Client], max_players: int) -> None:
    """Issue 25 item 4: a daily deal's player who has played goes to its
    ranked page like anyone. In a challenge each plays their own game once:
    while it is on, a second tab presenting its seat's token is refused
    (``own_race``); once it is over, that tab watches like any other."""
    ann = await connect("ann")
    await ann.create("ann", code=WIN, window=HOUR, max_players=max_players)
    bob = await connect("bob")
    await bob.join(ann.room, "bob")
    await bob.send("start")
    await bob.expect("board")
    tab = await connect("bob's second tab")
    await tab.send("watch", {"room": ann.room, "since": 0, "token": bob.token})
    assert (await tab.expect("reject", lambda d: d["cmd"] == "watch"))["code"] == "own_race"
    for m in win(WIN)["script"][:5]:
        assert (await bob.move(m))["t"] == "ack"
    assert (await bob.command("resign"))["t"] == "ack"
    await tab.send("watch", {"room": ann.room, "since": 0, "token": bob.token})
    await tab.expect("watching")
    # ann's seat has not begun: her second tab is a watcher like any (no board before the close)
    other = await connect("ann's second tab")
    await other.send("watch", {"room": ann.room, "since": 0, "token": ann.token})
    await other.expect("watching")
    assert not any(f["t"] == "boards" and f["d"]["boards"] for f in (*tab.frames, *other.frames))
