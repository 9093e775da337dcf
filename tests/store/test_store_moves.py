"""The move script's cap on a seat's log (real Redis): the check is in the
script, where the command is stored, so no process can store past it."""

from __future__ import annotations

import orjson
from harness import load_wins
from store_support import new_room, room_id

from server.klondike import Game
from server.klondike.moves import BY_PARTS
from server.store import SeatCommand, Store, keys

#: a winning line and its deal (the room's own code does not matter to the store)
WIN = next(w for w in load_wins() if w["code"] == "KL1-D1V-ACT552B")
CODE: str = WIN["code"]


async def racing_room(store: Store) -> str:
    """A room racing race 1, its seat 0 held by connection c1 (10 minutes to live)."""
    rid = room_id()
    room = await new_room(store, rid)
    data = await store.rooms.load(rid)
    assert data is not None
    assert (await store.rooms.commit(room, data.rv, [], store.rooms.changes(rid).start_race(1, [0])
                               .expire(600_000, 1, [0]))).ok
    assert await store.seats.attach(rid, 0, "c1", None)
    return rid


async def test_the_move_script_stores_no_command_past_the_seats_limit(store: Store) -> None:
    rid = await racing_room(store)

    async def play(ver: int, limit: int, command: str = "draw") -> str:
        applied = await store.seats.apply(rid, SeatCommand(
            race=1, seat=0, conn="c1", ver=ver, seq=ver + 1, command=command, snap=b"",
            line=orjson.dumps({"seat": 0}), done=False, limit=limit), b'"kind":"x"}')
        return applied.status

    assert await play(0, 2) == "ok"
    assert await play(1, 2) == "ok"
    assert await play(2, 2) == "full"  # nothing written: the log and the seat as they were
    assert await play(2, 3, "resign") == "ok"
    assert await store.seats.log_length(rid, 1, 0) == 3
    assert [c for _, c in await store.seats.log(rid, 1, 0)] == ["draw", "draw", "resign"]
    assert await store.seats.log(rid, 1, 0, 1, 1) == [(2, "draw")]
    seat = await store.call("HGET", keys.seat(rid, 1, 0), "ver")
    assert int(seat) == 3


async def test_a_seat_whose_game_is_over_is_packed_and_read_as_before(store: Store) -> None:
    """Issue 24, item 7: the last command of a game packs its seat (the log
    into its hash, cut in small pieces, no list, no snapshot, a listpack
    again) and every reader gives what it gave before: the log, its length,
    the recent entries, and the board rebuilt from the deal."""
    rid = await racing_room(store)
    game = Game(CODE)
    played: list[tuple[int, str]] = []
    commands = [str(m) for m in WIN["script"][:40]] + ["undo", "resign"]
    seq = 0
    for n, command in enumerate(commands):
        seq += 3 if n in (5, 6, 20) else 1  # a client's seq may skip (resent, refused commands)
        if command == "undo":
            game.pop()
        elif command != "resign":
            game.push(command)
        done = command == "resign"
        applied = await store.seats.apply(rid, SeatCommand(
            race=1, seat=0, conn="c1", ver=n, seq=seq, command=command, snap=game.snapshot(),
            line=orjson.dumps({"seat": 0, "status": "resigned" if done else "racing"}), done=done,
            limit=100), b'"kind":"x"}')
        assert applied.status == "ok"
        played.append((seq, command))
        if not done:  # still playing: the list and the snapshot, as before
            assert await store.call("EXISTS", keys.log(rid, 1, 0)) == 1
    seat = keys.seat(rid, 1, 0)
    assert await store.call("EXISTS", keys.log(rid, 1, 0)) == 0
    assert await store.call("HEXISTS", seat, "snap") == 0
    assert (await store.call("OBJECT", "ENCODING", seat)).decode() == "listpack"
    assert 0 < await store.call("PTTL", seat) <= 600_000
    assert await store.call("HGET", seat, "log2") is not None  # longer than one piece
    assert await store.seats.log(rid, 1, 0) == played
    assert await store.seats.log(rid, 1, 0, 3, 7) == played[3:8]
    assert await store.seats.log_length(rid, 1, 0) == len(played)
    stored = await store.seats.load_seat(rid, 1, 0)
    assert (stored.ver, stored.seq, stored.done, stored.snap) == (len(played), seq, True, None)
    assert stored.log == played and stored.recent == played[-64:]
    assert (await store.seats.snapshots(rid, 1, [0], CODE))[0] == game.snapshot()
    # no more commands: the packed seat is done, as it was
    refused = await store.seats.apply(rid, SeatCommand(
        race=1, seat=0, conn="c1", ver=len(played), seq=seq + 1, command="draw", snap=b"",
        line=b"{}", done=False, limit=100), b'"kind":"x"}')
    assert refused.status == "not_playing"


async def test_a_seat_over_stored_before_packing_is_read_as_it_is(store: Store) -> None:
    """A seat whose game ended before this version (its list and snapshot
    kept, done) is read from them: log, length and board."""
    rid = room_id()
    seat, log = keys.seat(rid, 1, 0), keys.log(rid, 1, 0)
    game = Game(CODE)
    for m in WIN["script"][:3]:
        game.push(m)
    await store.call("HSET", seat, "ver", 4, "seq", 4, "done", 1, "snap", game.snapshot())
    await store.call("RPUSH", log, *(f"{i} {m}" for i, m in
                                     enumerate([*map(str, WIN["script"][:3]), "resign"], 1)))
    assert await store.seats.log_length(rid, 1, 0) == 4
    assert [c for _, c in await store.seats.log(rid, 1, 0)][-1] == "resign"
    assert (await store.seats.snapshots(rid, 1, [0], CODE))[0] == game.snapshot()
    stored = await store.seats.load_seat(rid, 1, 0)
    assert stored.log is None and stored.snap == game.snapshot() and len(stored.recent) == 4


async def test_a_packed_log_gives_back_every_command_as_it_was_sent(store: Store) -> None:
    """Every move's notation, the words, and a command the packing does not
    know, through a packed seat and back unchanged (pack_seat shortens them)."""
    rid = await racing_room(store)
    commands = [*(str(m) for m in BY_PARTS.values()), "draw", "recycle", "undo", "hint", "resign"]
    for n, command in enumerate(commands):
        applied = await store.seats.apply(rid, SeatCommand(
            race=1, seat=0, conn="c1", ver=n, seq=n + 1, command=command, snap=b"x",
            line=b"{}", done=command == "resign", limit=len(commands)), b'"kind":"x"}')
        assert applied.status == "ok"
    assert await store.call("EXISTS", keys.log(rid, 1, 0)) == 0
    assert await store.seats.log(rid, 1, 0) == list(enumerate(commands, 1))
