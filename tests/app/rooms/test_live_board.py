"""How a small room's leaderboard travels (server/app/rooms/live_board.py):
encoded once per flush, one write per connection; a racer gets it with
their acks, everyone else from the flushes, and a racer who stops moving
still gets the last one.

The first tests drive a ``LiveBoard`` through the hub's side of it (a
stand-in for the room's hub that records each write: nothing of Redis is
involved); the last one plays a race on a real server."""

from __future__ import annotations

import asyncio
from collections.abc import Iterable, Iterator
from typing import Any

import pytest
from harness import Client, RedisServer, ServerProcess, eventually
from race_support import open_room, start_fast_server, start_race

from server.app.ground.backpressure import Backpressure
from server.app.ground.metrics import Metrics
from server.app.rooms.live_board import RACER_INTERVAL, LiveBoard

CODE = "KL1-D1N-AAAAAAA"


class _Transport:
    def get_write_buffer_size(self) -> int:
        return 0


class Session:
    """A connection in the room, as the hub sees it."""

    def __init__(self, name: str, role: str, seat: int = -1) -> None:
        self.conn_id, self.role, self.seat, self.following = name, role, seat, None
        self.transport = _Transport()
        self.syncing, self.pending = False, []
        self.backpressure = Backpressure(self, lambda size, since: None)
        self.writes: list[list[bytes]] = []  # each write: the payloads of its frames


class Busy:
    def flush_interval(self) -> float:
        return 0.0


class Room:
    """The hub's side of a live leaderboard: its connections, and their writes."""

    def __init__(self, sessions: list[Session]) -> None:
        self.room_id, self.v, self.boards_mode, self.loaded_v = "ROOM", 1, "live", 0
        self.metrics, self.busyness = Metrics(), Busy()
        self.public: dict[str, Any] = {"phase": "racing", "start_at": 1, "settings": {}}
        self.sessions = set(sessions)

    def now_ms(self) -> int:
        return 1000

    @property
    def phase(self) -> str:
        return "racing"

    @property
    def race(self) -> int:
        return 1

    def phase_now(self) -> str:
        return "racing"

    def watchers(self) -> list[Any]:
        return [s for s in self.sessions if s.role == "spectator"]

    def send(self, sessions: Iterable[Any], data: bytes, *, essential: bool) -> None:
        for session in sessions:
            session.writes.append([data])

    def send_frames(self, session: Any, frames: list[bytes], data: list[bytes], *,
                    essential: bool) -> None:
        session.writes.append(list(data))


def line(seat: int, moves: int, status: str = "racing") -> dict[str, Any]:
    done = {"finish_ms": 5000} if status == "finished" else {}
    return {"seat": seat, "nickname": f"p{seat}", "status": status, "foundation": 0,
            "turned_up": 0, "vegas": -52, "moves": moves, "recycles": 0, "at": 1000 + moves,
            **done}


def moved(board: LiveBoard, seat: int, moves: int, status: str = "racing") -> None:
    board.on_line_event({"kind": "progress", "seat": seat, "at": 1000 + moves,
                         "entry": line(seat, moves, status),
                         "board": {"moves": moves}})


def kinds(session: Session) -> list[list[str]]:
    """Each write's frame types."""
    return [[frame.split(b'"', 4)[3].decode() for frame in write] for write in session.writes]


async def flushed() -> None:
    for _ in range(3):
        await asyncio.sleep(0)


async def test_a_racer_gets_the_leaderboard_with_its_next_ack_and_others_from_the_flush() -> None:
    ann, bob = Session("ann", "player", 0), Session("bob", "player", 1, )
    eve = Session("eve", "spectator")
    room = Room([ann, bob, eve])
    board = LiveBoard(room, 1.0)  # type: ignore[arg-type]
    moved(board, 0, 1)
    moved(board, 1, 1)
    await flushed()  # nobody has had a leaderboard: everyone gets this one, in one write each
    assert kinds(ann) == [["lb"]] and kinds(bob) == [["lb"]]
    assert kinds(eve) == [["lb", "boards"]]  # a spectator's boards in the same write
    assert ann.writes[0][0] == bob.writes[0][0] == eve.writes[0][0]  # encoded once

    moved(board, 1, 2)
    await flushed()  # the racers had one just now: it waits for their acks; the spectator's comes
    assert kinds(ann) == [["lb"]] and kinds(eve) == [["lb", "boards"], ["lb", "boards"]]
    board.send_ack(ann, b'{"t":"ack","d":{"s":1}}')
    assert kinds(ann) == [["lb"], ["ack", "lb"]]  # one write: the ack and the leaderboard
    assert ann.writes[1][1] == eve.writes[1][0]
    board.send_ack(ann, b'{"t":"ack","d":{"s":2}}')
    assert kinds(ann) == [["lb"], ["ack", "lb"], ["ack"]]  # nothing new since: the ack alone

    moved(board, 0, 2, "finished")  # ann is done: she watches, flushes reach her again
    await flushed()
    assert kinds(ann)[-1] == ["lb"] and kinds(bob) == [["lb"]]
    board.close()


async def test_an_ack_carries_a_leaderboard_built_then_but_not_one_a_move() -> None:
    ann, bob = Session("ann", "player", 0), Session("bob", "player", 1)
    board = LiveBoard(Room([ann, bob]), 1.0)  # type: ignore[arg-type]
    moved(board, 0, 1)
    await flushed()
    ann.writes.clear()
    board.forget(ann)  # (as if ann had had no leaderboard for a while)
    moved(board, 1, 5)  # bob moves; ann's ack comes before the room's next flush
    board.send_ack(ann, b'{"t":"ack","d":{"s":1}}')
    assert kinds(ann) == [["ack", "lb"]] and b'"moves":5' in ann.writes[0][1]  # bob's move in it
    moved(board, 1, 6)
    board.send_ack(ann, b'{"t":"ack","d":{"s":2}}')  # at once again: no leaderboard built for it
    assert kinds(ann) == [["ack", "lb"], ["ack"]]
    board.close()


async def test_a_racer_who_stops_moving_gets_the_last_leaderboard_a_moment_later() -> None:
    ann, bob = Session("ann", "player", 0), Session("bob", "player", 1)
    room = Room([ann, bob])
    board = LiveBoard(room, 1.0)  # type: ignore[arg-type]
    moved(board, 0, 1)
    await flushed()
    moved(board, 1, 1)  # ann does not move any more
    await flushed()
    assert kinds(ann) == [["lb"]]
    await eventually(lambda: len(ann.writes) == 2, timeout=RACER_INTERVAL + 10,
                     what="the leaderboard that waited for ann's ack")
    assert b'"moves":1' in ann.writes[1][0] and kinds(ann) == [["lb"], ["lb"]]
    board.close()


async def test_a_leaderboard_older_than_a_room_event_rides_no_ack() -> None:
    ann, bob = Session("ann", "player", 0), Session("bob", "player", 1)
    board = LiveBoard(Room([ann, bob]), 1.0)  # type: ignore[arg-type]
    moved(board, 0, 1)
    await flushed()
    moved(board, 1, 1)
    await flushed()  # a leaderboard ann has not had yet, waiting for her ack
    board.on_room_event({"kind": "ready", "room": {}, "entries": []})
    board.send_ack(ann, b'{"t":"ack","d":{"s":1}}')
    assert kinds(ann) == [["lb"], ["ack"]]  # the event's lines come with the next flush instead
    board.close()


# ---------------------------------------------------------------------- a real race

@pytest.fixture(scope="module")
def server(redis_server: RedisServer, tmp_path_factory: pytest.TempPathFactory
           ) -> Iterator[ServerProcess]:
    yield from start_fast_server(redis_server, tmp_path_factory)


def moves_shown(client: Client, seat: int) -> int:
    """The move count of ``seat`` in the last leaderboard the client got (-1: none)."""
    for f in reversed(client.frames):
        if f["t"] == "lb":
            return next((e["moves"] for e in f["d"]["entries"] if e["seat"] == seat), -1)
    return -1


async def test_in_a_race_every_leaderboard_reaches_racers_and_spectators(
        connect: type[Client]) -> None:
    ann, bob, eve = await connect("ann"), await connect("bob"), await connect("eve")
    await open_room([ann, bob], code=CODE, boards="live")
    await eve.send("watch", {"room": ann.room})
    await eve.expect("watching")
    await start_race([ann, bob])
    for n in range(10):  # draw and undo
        await ann.command("move" if n % 2 == 0 else "undo", {"m": "draw"} if n % 2 == 0 else {})
        await bob.command("move" if n % 2 == 0 else "undo", {"m": "draw"} if n % 2 == 0 else {})
    last = await bob.move("draw")  # ann has stopped: bob's last move reaches her all the same
    shown = last["d"]["view"]["moves"]
    await eventually(lambda: moves_shown(ann, bob.seat) == shown, timeout=10,
                     what="bob's last move in ann's leaderboard")
    await eventually(lambda: moves_shown(eve, bob.seat) == shown, timeout=10,
                     what="bob's last move in the spectator's leaderboard")
    assert not [f for f in ann.frames if f["t"] == "boards"]
    await eventually(lambda: [f for f in eve.frames if f["t"] == "boards"], timeout=10,
                     what="the spectator's live boards")
