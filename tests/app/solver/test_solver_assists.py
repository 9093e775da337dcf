"""The solver in the server: certified winnable deals kept ready in Redis,
"can this still be won?" in the player's view, solver hints, spectators'
statuses, bad settings, and a solver worker lost mid-game. Real Redis, real
server processes, real sockets."""

from __future__ import annotations

import asyncio
import os
import re
import signal
import urllib.request
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path

import pytest
from harness import Client, RedisServer, ServerProcess, Servers, eventually, load_wins
from race_support import FAST_ARGS

from server.klondike import Game, replay
from server.klondike.solver import solve
from server.store import keys

#: a Vegas deal the solver wins at once, lost after drawing its whole stock
#: (no card played), winnable again 15 undos back
VEGAS = "KL1-D1V-Q2OVTPZ"
VEGAS_BACK = 15
#: a Vegas deal the solver proves lost from its start at once
NEVER = "KL1-D1V-AAAAAAE"
POOL = 3
KEPT = ("D1N", "D3N")  # the modes the test server keeps ready (the Vegas ones cost far more)


@pytest.fixture(scope="module")
def redis(module_redis: RedisServer) -> RedisServer:
    return module_redis  # its winnable sets start empty


@pytest.fixture(scope="module")
def server(redis: RedisServer, tmp_path_factory: pytest.TempPathFactory
           ) -> Iterator[ServerProcess]:
    group = Servers(tmp_path_factory.mktemp("server"))
    proc = group.start(redis.url, args=FAST_ARGS, env={
        "KLONDIKE_WINNABLE_POOL": str(POOL), "KLONDIKE_WINNABLE_MODES": ",".join(KEPT),
        "KLONDIKE_SOLVER_WORKERS": "1"})
    proc.allowed_errors = set()
    yield proc
    problems = group.close()
    assert not problems, "server logged errors:\n" + "\n".join(problems)


def ready(redis: RedisServer, mode: str) -> set[str]:
    return {c.decode() for c in redis.client().smembers(keys.winnable(mode))}


async def full(redis: RedisServer, mode: str) -> set[str]:
    return await eventually(lambda: len(ready(redis, mode)) >= POOL and ready(redis, mode),
                            timeout=120, what=f"{POOL} winnable {mode} codes")


# ---------------------------------------------------------------------- certified winnable deals

async def test_the_pool_fills_with_codes_that_replay_to_a_win(redis: RedisServer,
                                                              connect: type[Client]) -> None:
    for mode in KEPT:
        codes = await full(redis, mode)
        assert len(codes) == POOL  # refilled to the target, not beyond
        for code in codes:
            assert code.startswith(f"KL2-{mode}-") and len(code) == 21
            solution = solve(Game(code), seconds=30)
            assert solution.verdict == "winnable" and solution.notation is not None
            assert replay(code, solution.notation).is_won
    assert not ready(redis, "D1V") and not ready(redis, "D3V")  # not kept by this server


async def test_a_winnable_solo_deal_comes_from_the_pool_and_the_pool_refills(
        redis: RedisServer, connect: type[Client]) -> None:
    before = await full(redis, "D3N")
    ann = await connect("ann")
    await ann.solo(nickname="ann", draw=3, scoring="N", deal="winnable")
    sync = await ann.expect("sync")
    assert sync["room"]["settings"]["deal"] == "winnable"
    assert "code" not in sync["room"]  # a secret until the race ends
    await ann.expect("board")
    assert (await ann.command("resign"))["t"] == "ack"
    ended = await ann.event("ended")
    code = ended["code"]
    assert code in before and code not in ready(redis, "D3N")  # dealt once
    solution = solve(Game(code), seconds=30)
    assert solution.notation is not None and replay(code, solution.notation).is_won
    after = await full(redis, "D3N")  # refilled after use
    assert code not in after


async def test_rooms_and_tournaments_take_winnable_codes(redis: RedisServer,
                                                         connect: type[Client]) -> None:
    before = await full(redis, "D1N")
    ann = await connect("ann")
    await ann.send("create", {"nickname": "ann", "settings": {"deal": "winnable",
                                                               "boards": "sometimes"}})
    assert (await ann.expect("reject"))["code"] == "bad_settings"
    assert before <= ready(redis, "D1N")  # refused before any code was taken
    await ann.create("ann", deal="winnable", draw=1, scoring="N")
    sync = await ann.expect("sync")
    assert sync["room"]["settings"]["deal"] == "winnable"
    taken = before - ready(redis, "D1N")
    assert len(taken) == 1
    await ann.send("start")
    await ann.expect("board")
    assert (await ann.command("resign"))["t"] == "ack"
    assert (await ann.event("ended"))["code"] in taken

    before = await full(redis, "D1N")  # a rematch deals another certified code
    await ann.send("rematch")
    await ann.event("rematch")
    taken = before - ready(redis, "D1N")
    assert len(taken) == 1
    await ann.send("rematch")  # refused in the lobby: its code goes back
    assert (await ann.expect("reject"))["code"] == "not_ended"
    assert len(before - ready(redis, "D1N")) == 1
    await ann.send("start")
    await ann.expect("board", lambda d: d["race"] == 2)
    assert (await ann.command("resign"))["t"] == "ack"
    assert (await ann.event("ended"))["code"] in taken

    before = await full(redis, "D1N")
    org = await connect("org")
    await org.send("t_create", {"name": "Winnable night", "settings": {
        "rounds": 2, "draw": 1, "scoring": "N", "deal": "winnable"}})
    created = await org.expect("t_sync")
    assert created["tournament"]["settings"]["deal"] == "winnable"
    assert len(before - ready(redis, "D1N")) == 2  # taken out (refills only add others)
    await full(redis, "D1N")


async def test_no_winnable_deal_ready_is_a_typed_refusal_that_changes_nothing(
        redis: RedisServer, connect: type[Client]) -> None:
    ann = await connect("ann")
    await ann.send("create", {"nickname": "ann", "settings": {"deal": "winnable", "draw": 1,
                                                               "scoring": "V"}})
    refused = await ann.expect("reject")
    assert (refused["cmd"], refused["code"]) == ("create", "no_winnable_deal")
    await ann.send("t_create", {"name": "Vegas", "settings": {"rounds": 2, "draw": 3,
                                                              "scoring": "V", "deal": "winnable"}})
    assert (await ann.expect("reject"))["code"] == "no_winnable_deal"
    await ann.create("ann")  # still in no room: a random deal is there at once
    assert not ready(redis, "D1V")


async def test_winnable_kl1_codes_stored_before_kl2_are_never_dealt(
        own_redis: RedisServer, servers: Servers,
        clients: Callable[[ServerProcess, str], Awaitable[Client]]) -> None:
    """A pool filled before KL2 holds 35-bit codes, whose deals a brute force
    finds from the opening table: after an upgrade none is dealt, and the
    first process that refills deletes them."""
    stored = {w["code"] for w in load_wins() if w["code"].startswith("KL1-D1N-")}
    assert len(stored) >= 5
    redis = own_redis.client()
    redis.sadd(keys.winnable_kl1("D1N"), *stored)
    quiet = servers.start(own_redis.url, args=[*FAST_ARGS, "--winnable-pool", "0"])
    ann = await clients(quiet, "ann")
    for kind, d in [("create", {"nickname": "ann", "settings": {"deal": "winnable"}}),
                    ("solo", {"nickname": "ann", "deal": "winnable", "draw": 1, "scoring": "N"}),
                    ("t_create", {"name": "Cup", "settings": {"rounds": 1, "draw": 1,
                                                              "scoring": "N", "deal": "winnable"}})]:
        await ann.send(kind, d)
        assert (await ann.expect("reject"))["code"] == "no_winnable_deal", kind
    assert {c.decode() for c in redis.smembers(keys.winnable_kl1("D1N"))} == stored  # there, unread

    refilling = servers.start(own_redis.url, args=FAST_ARGS, env={
        "KLONDIKE_WINNABLE_POOL": "2", "KLONDIKE_WINNABLE_MODES": "D1N",
        "KLONDIKE_SOLVER_WORKERS": "1"})
    await eventually(lambda: not redis.exists(keys.winnable_kl1("D1N")), timeout=60,
                     what="the KL1 codes deleted")
    await eventually(lambda: redis.scard(keys.winnable("D1N")) >= 2, timeout=120,
                     what="two winnable KL2 codes")
    bob = await clients(refilling, "bob")
    await bob.solo(nickname="bob", deal="winnable", draw=1, scoring="N")
    await bob.expect("board")
    assert (await bob.command("resign"))["t"] == "ack"
    code = (await bob.event("ended"))["code"]
    assert code.startswith("KL2-D1N-") and code not in stored


@pytest.mark.parametrize(("settings", "code", "solo_code"), [
    ({"deal": "always"}, "bad_settings", "bad_settings"),
    ({"deal": "winnable", "code": "KL1-D1N-AAAAAAG"}, "bad_settings", "bad_settings"),
    ({"assists": "oracle"}, "bad_settings", "bad_settings"),
    ({"assists": 2}, "bad_settings", "bad_field"),  # solo's fields are typed
    ({"assists": "solver", "hints": False}, "bad_settings", None),  # solo has no hints
    ({"assists": "off", "hints": True}, "bad_settings", None),
])
async def test_bad_deal_and_assist_settings_are_refused(connect: type[Client],
                                                        settings: dict[str, object],
                                                        code: str, solo_code: str | None) -> None:
    ann = await connect("ann")
    await ann.send("create", {"nickname": "ann", "settings": settings})
    refused = await ann.expect("reject")
    assert (refused["cmd"], refused["code"]) == ("create", code)
    if solo_code is not None:
        await ann.send("solo", {"nickname": "ann", **settings})
        refused = await ann.expect("reject")
        assert (refused["cmd"], refused["code"]) == ("solo", solo_code)
    tournament = {k: v for k, v in settings.items() if k != "code"}
    if "code" in settings:
        tournament["codes"] = [settings["code"]]
    await ann.send("t_create", {"name": "T", "settings": tournament})
    refused = await ann.expect("reject")
    assert (refused["cmd"], refused["code"]) == ("t_create", code)
    await ann.create("ann")  # nothing changed: the connection is in no room yet


# ---------------------------------------------------------------------- winnable: yes | no

async def test_the_status_reaches_the_view_and_undo_leads_back(connect: type[Client]) -> None:
    ann = await connect("ann")
    await ann.solo(nickname="ann", code=VEGAS, assists="solver")
    sync = await ann.expect("sync")
    assert sync["room"]["settings"]["assists"] == "solver"
    board = await ann.expect("board")
    assert "winnable" in board["view"]
    status = await ann.expect("status")
    assert (status["s"], status["winnable"]) == (0, "yes")

    for _ in range(24):  # the whole stock drawn, nothing played: lost
        ack = await ann.command("move", {"m": "draw"})
        assert ack["t"] == "ack" and "winnable" in ack["d"]["view"]  # known or null: never waited for
    status = await status_for(ann, ann.seq)
    assert (status["winnable"], status["back"], status["lost"]) == ("no", VEGAS_BACK, "move")

    for n in range(1, VEGAS_BACK + 1):  # every step back is known at once, in the ack
        view = (await ann.command("undo"))["d"]["view"]
        if n < VEGAS_BACK:
            assert (view["winnable"], view["back"], view["lost"]) == ("no", VEGAS_BACK - n, "move")
        else:
            assert (view["winnable"], view["back"], view["lost"]) == ("yes", None, None)
    hint = await asyncio.wait_for(_hint(ann), 30)
    assert hint["by"] == "solver" and hint["s"] == ann.seq
    position = replay(VEGAS, ["draw"] * (24 - VEGAS_BACK) + [hint["m"]])
    assert solve(position, seconds=30).verdict == "winnable"  # the first move of a winning line


async def status_for(client: Client, seq: int) -> dict[str, object]:
    """The status of the position after command ``seq``: in its ack's view
    when it was known at once, else in the ``status`` frame that follows."""
    def known() -> dict[str, object] | None:
        for f in client.frames:
            d = f["d"]
            if f["t"] == "status" and d["s"] == seq and "winnable" in d:
                return dict(d)
            if f["t"] == "ack" and d["s"] == seq and d["view"].get("winnable") is not None:
                view = d["view"]
                return {"s": seq, "winnable": view["winnable"], "back": view["back"], "lost": view["lost"]}
        return None
    return await eventually(known, timeout=30, what=f"the status after command {seq}")


async def test_a_deal_never_winnable_says_so_from_the_start_and_after_each_move(
        connect: type[Client]) -> None:
    ann = await connect("ann")
    await ann.solo(nickname="ann", code=NEVER, assists="solver")
    await ann.expect("board")
    status = await ann.expect("status")
    assert (status["s"], status["winnable"], status["back"], status["lost"]) == (0, "no", None, "deal")
    view = (await ann.command("move", {"m": "draw"}))["d"]["view"]
    # every position after a lost one is lost too, and for the same reason: known at once
    assert (view["winnable"], view["back"], view["lost"]) == ("no", None, "deal")
    view = (await ann.command("undo"))["d"]["view"]
    assert (view["winnable"], view["lost"]) == ("no", "deal")


async def _hint(client: Client) -> dict[str, object]:
    await client.send("hint")
    return await client.expect("hint")


async def test_basic_assists_have_no_status_and_off_has_no_hints(connect: type[Client]) -> None:
    ann = await connect("ann")
    await ann.solo(nickname="ann", code=VEGAS)
    await ann.expect("board")
    ack = await ann.command("move", {"m": "draw"})
    assert "winnable" not in ack["d"]["view"]
    hint = await _hint(ann)
    assert hint["by"] == "basic"
    bob = await connect("bob")
    await bob.solo(nickname="bob", code=VEGAS, assists="off")
    await bob.expect("board")
    await bob.send("hint")
    assert (await bob.expect("reject"))["code"] == "hints_disabled"
    assert not any(f["t"] == "status" for f in ann.frames + bob.frames)


async def watched_solver_race(connect: type[Client], boards: str) -> tuple[Client, Client]:
    """ann races alone in a room with solver assists and ``boards``, ada
    watching from the lobby on; returns once ann has the deal's status."""
    ann, ada = await connect("ann"), await connect("ada")
    joined = await ann.create("ann", code=VEGAS, assists="solver", boards=boards)
    await ada.send("watch", {"room": joined["room"], "since": 0})
    await ada.expect("watching")
    await ann.send("start")
    await ann.expect("board")
    await ann.expect("status")  # no move: the status of the deal itself comes as a notice
    return ann, ada


async def test_spectators_see_the_status_in_live_boards(connect: type[Client]) -> None:
    _, ada = await watched_solver_race(connect, "live")

    def status_board() -> bool:
        return any(f["t"] == "boards" and f["d"]["boards"].get("0", {}).get("winnable") == "yes"
                   for f in ada.frames)
    await eventually(status_board, timeout=30, what="a spectator's board with its status")
    for f in ada.frames:  # a spectator never gets what only the player sees
        for b in f["d"].get("boards", {}).values() if f["t"] == "boards" else ():
            assert "back" not in b and "lost" not in b and "legal" not in b


async def test_after_boards_show_spectators_no_status(connect: type[Client]) -> None:
    ann, ada = await watched_solver_race(connect, "after")
    await ann.command("move", {"m": "draw"})
    await status_for(ann, ann.seq)
    await ann.command("resign")  # its events follow every notice published before on the channel
    await ada.event("ended")
    ended = next(i for i, f in enumerate(ada.frames) if f["t"] == "event"
                 and f["d"]["kind"] == "ended")
    assert not any(f["t"] == "boards" for f in ada.frames[:ended])


def test_the_solver_is_in_the_metrics(server: ServerProcess) -> None:
    """After the tests above: statuses judged and deals certified, counted."""
    with urllib.request.urlopen(server.metrics_url, timeout=10) as answer:
        text = answer.read().decode()
    def value(name: str) -> float:
        found = re.search(rf"^{re.escape(name)} (\S+)$", text, re.MULTILINE)
        assert found, name
        return float(found.group(1))
    assert value('klondike_solver_jobs_total{kind="status",outcome="done"}') > 0
    assert value('klondike_solver_jobs_total{kind="certify",outcome="done"}') > 0
    assert value('klondike_winnable_certified_total{mode="D1N"}') >= POOL
    assert value("klondike_solver_in_flight") >= 0


# ---------------------------------------------------------------------- a lost worker

def solver_workers(pid: int) -> list[int]:
    """The server's solver worker processes (children started by spawn)."""
    out = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        for child in (task / "children").read_text().split():
            cmdline = Path(f"/proc/{child}/cmdline").read_bytes()
            if b"spawn_main" in cmdline:
                out.append(int(child))
    return out


async def test_a_killed_solver_worker_is_replaced(server: ServerProcess,
                                                  connect: type[Client]) -> None:
    ann = await connect("ann")
    await ann.solo(nickname="ann", code=VEGAS, assists="solver")
    await ann.expect("status")
    assert server.proc is not None
    workers = await eventually(lambda: solver_workers(server.proc.pid), what="a solver worker")
    for pid in workers:
        os.kill(pid, signal.SIGKILL)
    # whatever was in flight answers "unknown"; the next judgement has a fresh worker
    for _ in range(3):
        await ann.command("move", {"m": "draw"})
        last = await status_for(ann, ann.seq)
    assert last["winnable"] == "yes"
    assert set(solver_workers(server.proc.pid)).isdisjoint(workers)
