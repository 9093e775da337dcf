"""Every reason code a command can get (docs/protocol.md, "Rejections: reason
codes"), provoked over a real socket: the reject names the command, the code
and a sentence for the player, carries ``s`` for a game command, and the room
and the game are as they were. Also the closes a room command causes: 4001
for a kicked player, 4000 for a seat opened elsewhere; and the host's role
passing on when the host leaves.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterator
from typing import Any, Final

import pytest
from harness import Client, RedisServer, ServerProcess, Servers
from support.edge import (
    CODE,
    acked,
    answer,
    barrier,
    closed,
    lobby,
    metrics,
    played,
    race,
    refused,
    rejected,
    room_now,
    sample,
    wait_for_metric,
)

from server.klondike import Game, InvalidNotationError, Move

UNKNOWN_ROOM: Final = "there is no such room"
NOT_HOST: Final = "only the host can do that"
NOT_IN_ROOM: Final = "join or watch a room first"
BAD_NICKNAME: Final = "a nickname is 1 to 20 letters, digits, spaces or - _ ."
NO_RACE: Final = "there is no race for you to play now"
ALREADY: Final = "this connection is already in a room"
GAME: Final = [("move", {"s": 1, "m": "t7>f"}), ("undo", {"s": 1}), ("resign", {"s": 1}),
               ("hint", {}), ("complete", {})]
LOBBY: Final = [("ready", {"ready": True}), ("start", {}), ("kick", {"seat": 1}), ("rematch", {})]


def reject(cmd: str, code: str, msg: str, s: int | None = None) -> dict[str, Any]:
    d: dict[str, Any] = {"cmd": cmd, "code": code, "msg": msg}
    if s is not None:
        d["s"] = s
    return d


def seq_of(d: dict[str, Any]) -> int | None:
    return d.get("s")


@pytest.fixture(scope="module")
def countdown_server(redis_server: RedisServer, tmp_path_factory: pytest.TempPathFactory
                     ) -> Iterator[ServerProcess]:
    """A server whose races count down for 30 s: the countdown lasts the whole test."""
    group = Servers(tmp_path_factory.mktemp("countdown"))
    proc = group.start(redis_server.url, env={"KLONDIKE_COUNTDOWN": "30"})
    yield proc
    group.check()


@pytest.fixture
def slow(connect: type[Client], countdown_server: ServerProcess) -> Callable[..., Awaitable[Client]]:
    def opener(name: str = "") -> Awaitable[Client]:
        return connect(name, url=countdown_server.ws_url)  # type: ignore[call-arg]
    return opener


async def counting_down(opener: Callable[..., Awaitable[Client]]) -> list[Client]:
    """ann (host) and bob, their race started, its countdown running."""
    ann, bob = await lobby(opener, "ann", "bob", code=CODE)
    await bob.send("ready", {"ready": True})
    await ann.event("ready")
    await ann.send("start")
    start = await bob.event("start")
    assert start["room"]["phase"] == "countdown"
    return [ann, bob]


# ---------------------------------------------------------------------- entering a room

async def test_name_taken_regardless_of_case(connect: type[Client]) -> None:
    ann, cat = await lobby(connect, "ann", "Straße")
    before = await room_now(connect, ann.room)
    bob = await connect("bob")
    for name, shown in [("ANN", "ANN"), (" aNn ", "aNn"), ("STRASSE", "STRASSE"), ("straße", "straße")]:
        d = await refused(bob, "join", {"room": ann.room, "nickname": name})
        assert d == reject("join", "name_taken", f"the nickname {shown!r} is taken in this room")
    assert await room_now(connect, ann.room) == before
    # the refused joins took no seat: bob's is the next one
    assert (await bob.join(ann.room.lower(), "bob"))["seat"] == cat.seat + 1


async def test_look_alike_nicknames_cannot_share_a_room(connect: type[Client]) -> None:
    ann, _ = await lobby(connect, "ann", "bob")
    before = await room_now(connect, ann.room)
    other = await connect("other")
    for name in ("ａｎｎ", "\u0430nn", "𝕒𝕟𝕟", "b0b"):
        d = await refused(other, "join", {"room": ann.room, "nickname": name})
        assert d["code"] == "name_taken" and ("'ann'" in d["msg"] or "'bob'" in d["msg"]), (name, d)
    assert await room_now(connect, ann.room) == before
    joined = await other.join(ann.room, "ｃａｔ")  # stored as typed once NFKC-normalised
    sync = await other.expect("sync")
    assert joined["seat"] == 2 and sync["room"]["players"][-1]["nickname"] == "cat"


async def test_room_full_until_someone_leaves(connect: type[Client]) -> None:
    ann, bob = await lobby(connect, "ann", "bob", max_players=2)
    before = await room_now(connect, ann.room)
    cat = await connect("cat")
    assert await refused(cat, "join", {"room": ann.room, "nickname": "cat"}) == reject(
        "join", "room_full", "the room is full")
    assert await room_now(connect, ann.room) == before
    assert (await answer(bob, "leave"))["t"] == "left"
    assert (await cat.join(ann.room, "cat"))["seat"] == 2


async def test_race_started_during_the_countdown_and_the_race(
        connect: type[Client], slow: Callable[..., Awaitable[Client]]) -> None:
    ann, _ = await counting_down(slow)
    cat = await slow("cat")
    expected = reject("join", "race_started", "the race has already started")
    assert await refused(cat, "join", {"room": ann.room, "nickname": "cat"}) == expected
    racing, _ = await race(connect, "ann", "bob")
    dan = await connect("dan")
    before = await room_now(connect, racing.room)
    assert await refused(dan, "join", {"room": racing.room, "nickname": "dan"}) == expected
    assert await room_now(connect, racing.room) == before


@pytest.mark.parametrize("room", ["nope", "ABCDEFG1", "ABCDEFGHJ", "ABCDEF0O", "", "ÀBCDEFGH", " " * 30])
async def test_unknown_room_for_a_malformed_id(connect: type[Client], room: str) -> None:
    client = await connect("lost")
    msg = f"there is no room {room[:20]!r}"
    for t, d in [("join", {"room": room, "nickname": "ann"}), ("watch", {"room": room}),
                 ("resume", {"room": room, "token": "x" * 24})]:
        assert await refused(client, t, d) == reject(t, "unknown_room", msg)


async def test_unknown_room_for_a_well_formed_id(connect: type[Client]) -> None:
    client = await connect("lost")
    for room in ["ZZZZZZZZ", "zzzzzzzz", " 23456789 "]:
        for t, d in [("join", {"room": room, "nickname": "ann"}), ("watch", {"room": room, "since": 3}),
                     ("resume", {"room": room, "token": "x" * 24, "since": 0})]:
            assert await refused(client, t, d) == reject(t, "unknown_room", UNKNOWN_ROOM)
    # nothing stuck to the connection: it can still enter a room
    ann = await connect("ann")
    await ann.create("ann")
    assert (await client.join(f" {ann.room.lower()} ", "bob"))["seat"] == 1


BAD_NAMES: Final = ["", "   ", "a" * 21, "ann!", "😀", "<b>", "a\nb" * 8, "x" * 200]
HIDDEN_NAMES: Final = ["x\u0000y", "zero\u200bwidth", "esc\x1b[31m", "rtl\u202eann", "fill\u3164er"]
HIDDEN: Final = "a nickname may not hold control, bidi or invisible characters"


async def test_bad_nickname_for_create_join_and_solo(connect: type[Client]) -> None:
    ann = await connect("ann")
    await ann.create("ann")
    client = await connect("client")
    for name in BAD_NAMES:
        for t, d in [("create", {"nickname": name, "settings": {}}),
                     ("join", {"room": ann.room, "nickname": name}),
                     ("solo", {"nickname": name})]:
            assert await refused(client, t, d) == reject(t, "bad_nickname", BAD_NICKNAME), (t, name)
    for name in HIDDEN_NAMES:
        for t, d in [("create", {"nickname": name, "settings": {}}),
                     ("join", {"room": ann.room, "nickname": name}),
                     ("solo", {"nickname": name})]:
            assert await refused(client, t, d) == reject(t, "bad_nickname", HIDDEN), (t, name)
    assert (await client.join(ann.room, "  O'Brien-Zoë_2.  "))["seat"] == 1
    sync = await client.expect("sync")
    assert [p["nickname"] for p in sync["room"]["players"]] == ["ann", "O'Brien-Zoë_2."]


CODES: Final = [
    ("KL3-D1N-AAAAAAA", "bad prefix 'KL3' in 'KL3-D1N-AAAAAAA': expected 'KL1' or 'KL2'"),
    ("KL1-D2N-AAAAAAA", "bad draw digit '2' in 'KL1-D2N-AAAAAAA': expected 1 or 3"),
    ("KL1-D1X-AAAAAAA", "bad scoring letter 'X' in 'KL1-D1X-AAAAAAA': expected N (Normal) or V (Vegas)"),
    ("KL1-D1N-AAAAAA1", "bad character '1' in the deal number of 'KL1-D1N-AAAAAA1': "
                        "the alphabet is ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"),
    ("KL1-D1N-AAAA", "bad deal number length in 'KL1-D1N-AAAA': 4 characters, expected 7 in a KL1 code"),
    ("nonsense", "'nonsense' is not a deal code: expected three parts like 'KL1-D1N-AAAAAAG'"),
    ("KL2-D1N-AAAAAAA", "bad deal number length in 'KL2-D1N-AAAAAAA': 7 characters, "
                        "expected 13 in a KL2 code"),
    ("KL2-D3V-QAAAAAAAAAAAA", "deal number 'QAAAAAAAAAAAA' in 'KL2-D3V-QAAAAAAAAAAAA' is 2^64 or "
                              "more: a KL2 deal number has 64 bits, so its first digit is A to P"),
    ("KL2-D3X-AAAAAAAAAAAAA", "bad scoring letter 'X' in 'KL2-D3X-AAAAAAAAAAAAA': expected N (Normal) "
                              "or V (Vegas)"),
    ("KL2-D1N-AAAAAAAAAAAA9", "bad character '9' in the deal number of 'KL2-D1N-AAAAAAAAAAAA9': "
                              "the alphabet is ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"),
]


async def test_bad_code_names_the_wrong_part(connect: type[Client]) -> None:
    client = await connect("client")
    for code, msg in CODES:
        assert await refused(client, "create", {"nickname": "ann", "settings": {"code": code}}) == reject(
            "create", "bad_code", msg)
        assert await refused(client, "solo", {"nickname": "ann", "code": code}) == reject(
            "solo", "bad_code", msg)
    assert await refused(client, "create", {"nickname": "ann", "settings": {"code": 7}}) == reject(
        "create", "bad_code", "code must be a deal code string (KL1 or KL2) or null")
    # nothing was created: the connection is free to create a room
    joined = await client.create("ann", code=" kl1-d3v-aaaaaag ")
    assert joined["seat"] == 0
    sync = await client.expect("sync")
    assert sync["room"]["settings"]["mode"] == "D3V" and "code" not in sync["room"]


@pytest.mark.parametrize("kind", ["create", "solo"])
async def test_a_typed_kl2_code_is_dealt_as_typed(connect: type[Client], kind: str) -> None:
    """A KL2 code is accepted wherever a KL1 one is; the deal is its number's,
    and the code comes back in KL2 when the race ends."""
    code = "KL2-D3V-P777777777777"
    ann = await connect("ann")
    if kind == "create":
        await ann.create("ann", code=" kl2-d3v-p777777777777\n")
        assert (await ann.expect("sync"))["room"]["settings"]["mode"] == "D3V"
        await ann.send("start")
    else:
        await ann.solo(nickname="ann", code="\tKl2-D3v-P777777777777 ")
        assert (await ann.expect("sync"))["room"]["settings"]["mode"] == "D3V"
    board = await ann.expect("board")
    assert board["view"] == Game(code).view(progress=True)
    assert (await ann.command("resign"))["t"] == "ack"
    assert (await ann.event("ended"))["code"] == code


SETTINGS: Final = [
    ({"draw": 2}, "draw must be 1 or 3"),
    ({"draw": 1.0}, "draw must be 1 or 3"),  # used to fail on the server (internal)
    ({"draw": 3.0}, "draw must be 1 or 3"),
    ({"draw": True}, "draw must be 1 or 3"),
    ({"scoring": "X"}, "scoring must be 'N' (Normal) or 'V' (Vegas)"),
    ({"max_players": 0}, "max_players must be a whole number from 1 to 10000"),
    ({"max_players": 10_001}, "max_players must be a whole number from 1 to 10000"),
    ({"max_players": "8"}, "max_players must be a whole number from 1 to 10000"),
    ({"undo": "yes"}, "undo must be true or false"),
    ({"hints": None}, "hints must be true or false"),
    ({"time_limit": 4 * 3600 + 1}, "time_limit must be a whole number from 0 to 14400"),
    ({"time_limit": -5}, "time_limit must be a whole number from 0 to 14400"),
    ({"boards": "sometimes"}, "boards must be one of live, delayed, after"),
    ({"boards": "delayed", "delay": 0}, "delayed boards need a delay of 1 second or more"),
    ({"boards": "delayed", "delay": 601}, "delay must be a whole number from 0 to 600"),
    ({"speed": "fast"}, "unknown setting 'speed'"),
]


@pytest.mark.parametrize(("settings", "msg"), SETTINGS, ids=[str(s) for s, _ in SETTINGS])
async def test_bad_settings(connect: type[Client], settings: dict[str, Any], msg: str) -> None:
    client = await connect("client")
    d = await refused(client, "create", {"nickname": "ann", "settings": settings})
    assert d == reject("create", "bad_settings", msg)
    await client.create("ann", draw=3)  # and the connection is not in a room


async def test_bad_settings_of_a_solo_game(connect: type[Client]) -> None:
    client = await connect("client")
    assert await refused(client, "solo", {"draw": 2}) == reject("solo", "bad_settings", "draw must be 1 or 3")
    assert await refused(client, "solo", {"scoring": "v"}) == reject(
        "solo", "bad_settings", "scoring must be 'N' (Normal) or 'V' (Vegas)")
    await client.solo(draw=3, scoring="V")


# ---------------------------------------------------------------------- the lobby

async def test_not_host_for_start_kick_and_rematch(connect: type[Client]) -> None:
    ann, bob, cat = await lobby(connect, "ann", "bob", "cat")
    for c in (bob, cat):
        await c.send("ready", {"ready": True})
        await ann.event("ready")
    before = await room_now(connect, ann.room)
    for t, d in [("start", {}), ("kick", {"seat": 2}), ("kick", {"seat": 0}), ("rematch", {})]:
        assert await refused(bob, t, d) == reject(t, "not_host", NOT_HOST)
    assert await room_now(connect, ann.room) == before
    # after the race too: only the host asks for a rematch
    await ann.send("start")
    for c in (ann, bob, cat):
        await c.expect("board")
        assert (await c.command("resign"))["t"] == "ack"
    await cat.event("ended")
    assert await refused(cat, "rematch") == reject("rematch", "not_host", NOT_HOST)
    await ann.send("rematch")
    assert (await cat.event("rematch"))["room"]["phase"] == "lobby"


async def test_not_lobby_during_the_countdown(slow: Callable[..., Awaitable[Client]]) -> None:
    ann, bob = await counting_down(slow)
    before = await room_now(slow, ann.room)
    assert await refused(bob, "ready", {"ready": False}) == reject(
        "ready", "not_lobby", "that can only be done in the lobby")
    assert await refused(ann, "kick", {"seat": bob.seat}) == reject(
        "kick", "not_lobby", "that can only be done in the lobby")
    assert await refused(ann, "start") == reject(
        "start", "not_lobby", "the race has already started; after it, ask for a rematch")
    assert await room_now(slow, ann.room) == before


async def test_not_ready_names_the_players_not_ready(connect: type[Client]) -> None:
    ann, bob, cat, dan = await lobby(connect, "ann", "bob", "cat", "dan")
    await cat.send("ready", {"ready": True})
    await ann.event("ready")
    before = await room_now(connect, ann.room)
    assert await refused(ann, "start") == reject("start", "not_ready", "not ready yet: bob, dan")
    await bob.send("ready", {"ready": True})
    await ann.expect("event", lambda d: d["kind"] == "ready" and d["seat"] == bob.seat)
    await dan.send("ready", {"ready": True})
    await ann.expect("event", lambda d: d["kind"] == "ready" and d["seat"] == dan.seat)
    await dan.send("ready", {"ready": False})
    await ann.expect("event", lambda d: d["kind"] == "ready" and d["ready"] is False)
    assert await refused(ann, "start") == reject("start", "not_ready", "not ready yet: dan")
    after = await room_now(connect, ann.room)
    assert after["room"]["phase"] == before["room"]["phase"] == "lobby"
    assert after["v"] == before["v"] + 3  # the three ready events, nothing from the refusals


async def test_unknown_seat_and_cannot_kick_self(connect: type[Client]) -> None:
    ann, bob, cat = await lobby(connect, "ann", "bob", "cat")
    assert (await answer(cat, "leave"))["t"] == "left"
    await ann.event("left")
    before = await room_now(connect, ann.room)
    for seat in (cat.seat, 7, 10**6):
        assert await refused(ann, "kick", {"seat": seat}) == reject(
            "kick", "unknown_seat", f"there is no player in seat {seat}")
    assert await refused(ann, "kick", {"seat": ann.seat}) == reject(
        "kick", "cannot_kick_self", "the host cannot remove themselves: leave instead")
    assert await room_now(connect, ann.room) == before
    assert bob.close_code is None


async def test_not_ended_in_the_lobby_and_during_the_countdown(
        connect: type[Client], slow: Callable[..., Awaitable[Client]]) -> None:
    ann, _ = await lobby(connect, "ann", "bob")
    assert await refused(ann, "rematch") == reject("rematch", "not_ended", "the race is not over yet")
    ann, _ = await counting_down(slow)
    before = await room_now(slow, ann.room)
    assert await refused(ann, "rematch") == reject("rematch", "not_ended", "the race is not over yet")
    assert await room_now(slow, ann.room) == before


# ---------------------------------------------------------------------- playing

async def test_not_started_during_the_countdown(slow: Callable[..., Awaitable[Client]]) -> None:
    ann, bob = await counting_down(slow)
    for t, d in GAME:
        assert await refused(ann, t, d) == reject(t, "not_started", "the race has not started yet",
                                                  seq_of(d))
    assert await refused(bob, "move", {"s": 5, "m": "draw"}) == reject(
        "move", "not_started", "the race has not started yet", 5)
    now = await room_now(slow, ann.room)
    assert now["room"]["phase"] == "countdown"
    assert all(e["moves"] == 0 and e["status"] == "racing" for e in now["entries"])
    assert not any(f["t"] in ("board", "ack") for f in ann.frames + bob.frames)


async def test_not_playing_in_the_lobby(connect: type[Client]) -> None:
    ann, _ = await lobby(connect, "ann", "bob")
    for t, d in GAME:
        assert await refused(ann, t, d) == reject(t, "not_playing", NO_RACE, seq_of(d))


async def test_not_playing_after_resigning_while_the_others_play_on(connect: type[Client]) -> None:
    ann, bob = await race(connect, "ann", "bob")
    assert (await ann.command("move", {"m": "t7>f"}))["t"] == "ack"
    assert (await ann.command("resign"))["d"]["view"] == played("t7>f").view(progress=True)
    for t, d in [("move", {"s": 3, "m": "t4>t5"}), ("undo", {"s": 3}), ("resign", {"s": 3}),
                 ("hint", {}), ("complete", {})]:
        assert await refused(ann, t, d) == reject(t, "not_playing", "your race is over", seq_of(d))
    assert (await bob.command("move", {"m": "t4>t5"}))["d"]["view"] == played("t4>t5").view(progress=True)
    lines = {e["nickname"]: e for e in (await room_now(connect, ann.room))["entries"]}
    assert lines["ann"]["status"] == "resigned" and lines["ann"]["moves"] == 1
    assert lines["bob"]["status"] == "racing"


async def test_not_playing_after_the_race_ended(connect: type[Client]) -> None:
    ann = await connect("ann")
    await ann.solo(nickname="ann", code=CODE)
    await ann.expect("board")
    assert (await ann.command("resign"))["t"] == "ack"
    ended = await ann.event("ended")
    assert ended["room"]["phase"] == "ended"
    for t, d in [("move", {"s": 2, "m": "t7>f"}), ("undo", {"s": 2}), ("hint", {}), ("complete", {})]:
        assert await refused(ann, t, d) == reject(t, "not_playing", NO_RACE, seq_of(d))


NOTATIONS: Final = ["t9>t1", "hello", "t7>t7", "t1:0>t2", "t1:14>t2", "", "t7 > f", "w>w", "f>t1", "undo"]


async def test_bad_notation_quotes_the_engine(connect: type[Client]) -> None:
    ann, _ = await race(connect, "ann", "bob")
    for m in NOTATIONS:
        with pytest.raises(InvalidNotationError) as info:
            Move.parse(m)
        assert await refused(ann, "move", {"s": 1, "m": m}) == reject("move", "bad_notation",
                                                                      str(info.value), 1)
        assert repr(m) in str(info.value)
    # s=1 is still free and the game untouched
    assert acked(await answer(ann, "move", {"s": 1, "m": "T7>F"})) == {
        "t": "ack", "d": {"s": 1, "view": played("t7>f").view(progress=True)}}


ILLEGAL: Final = [
    ("t1>t3", "8C cannot go on 8S: it needs a red 9"),
    ("t1>f", "8C cannot go to the foundation: the clubs foundation starts with its ace"),
    ("w>f", "the waste is empty"),
    ("w>t1", "the waste is empty"),
    ("recycle", "the stock still has cards: recycle only when it is empty"),
    ("fh>t4", "the hearts foundation is empty"),
    ("t2:2>t5", "column 2 has 1 card face up, 2 cannot move together"),
]


async def test_illegal_move_says_why_and_changes_nothing(connect: type[Client]) -> None:
    ann, bob = await race(connect, "ann", "bob")
    before = await room_now(connect, ann.room)
    for m, why in ILLEGAL:
        assert await refused(ann, "move", {"s": 1, "m": m}) == reject("move", "illegal_move", why, 1)
    assert await room_now(connect, ann.room) == before
    assert acked(await answer(ann, "move", {"s": 1, "m": "t7>f"})) == {
        "t": "ack", "d": {"s": 1, "view": played("t7>f").view(progress=True)}}
    # the position moved on: the same move is now refused for another reason
    assert await refused(ann, "move", {"s": 2, "m": "t7>f"}) == reject(
        "move", "illegal_move", "8H cannot go to the foundation: the hearts foundation is at AH", 2)
    assert await refused(ann, "move", {"s": 2, "m": "fh>t4"}) == reject(
        "move", "illegal_move", "AH cannot go on 3D: it needs a black 2", 2)
    assert bob.close_code is None


async def test_nothing_to_undo(connect: type[Client]) -> None:
    ann, _ = await race(connect, "ann", "bob")
    assert await refused(ann, "undo", {"s": 1}) == reject("undo", "nothing_to_undo",
                                                          "there is nothing to undo", 1)
    assert (await answer(ann, "move", {"s": 1, "m": "draw"}))["t"] == "ack"
    assert (await answer(ann, "undo", {"s": 2}))["d"]["view"] == played().view(progress=True)
    assert await refused(ann, "undo", {"s": 3}) == reject("undo", "nothing_to_undo",
                                                          "there is nothing to undo", 3)
    answered = await answer(ann, "move", {"s": 3, "m": "t7>f"})
    assert answered["d"]["view"] == played("t7>f").view(progress=True)


async def test_undo_and_hints_disabled(connect: type[Client]) -> None:
    (ann,) = await race(connect, "ann", undo=False, hints=False)
    assert await refused(ann, "undo", {"s": 1}) == reject("undo", "undo_disabled",
                                                          "undo is off in this room", 1)
    assert await refused(ann, "hint") == reject("hint", "hints_disabled", "hints are off in this room")
    # assists off: the view is the engine's plain one (no ``no_progress``)
    assert (await answer(ann, "move", {"s": 1, "m": "t7>f"}))["d"]["view"] == played("t7>f").view()
    assert await refused(ann, "undo", {"s": 2}) == reject("undo", "undo_disabled",
                                                          "undo is off in this room", 2)
    assert (await answer(ann, "move", {"s": 2, "m": "t4>t5"}))["d"]["view"] == played("t7>f", "t4>t5").view()
    # with hints on, the same position gets a hint
    (bob,) = await race(connect, "bob")
    assert (await answer(bob, "hint"))["t"] == "hint"


async def test_no_autocomplete(connect: type[Client]) -> None:
    ann, _ = await race(connect, "ann", "bob")
    msg = reject("complete", "no_autocomplete", "the game cannot be finished automatically yet")
    assert await refused(ann, "complete") == msg
    assert (await answer(ann, "move", {"s": 1, "m": "t7>f"}))["t"] == "ack"
    assert await refused(ann, "complete") == msg


async def test_stale_sequence_numbers(connect: type[Client]) -> None:
    ann, _ = await race(connect, "ann", "bob")
    view = played("t7>f").view(progress=True)
    assert acked(await answer(ann, "move", {"s": 1, "m": "t7>f"})) == {
        "t": "ack", "d": {"s": 1, "view": view}}
    stale = "sequence number 1 was already used (last applied: 1)"
    for t, d in [("move", {"s": 1, "m": "draw"}), ("undo", {"s": 1}), ("resign", {"s": 1})]:
        assert await refused(ann, t, d) == reject(t, "stale", stale, 1)
    # the same command again is acknowledged again, not applied twice
    assert acked(await answer(ann, "move", {"s": 1, "m": "t7>f"})) == {
        "t": "ack", "d": {"s": 1, "view": view, "again": True}}
    answered = await answer(ann, "move", {"s": 5, "m": "draw"})
    assert answered["d"]["view"] == played("t7>f", "draw").view(progress=True)
    assert await refused(ann, "move", {"s": 3, "m": "draw"}) == reject(
        "move", "stale", "sequence number 3 was already used (last applied: 5)", 3)
    lines = {e["nickname"]: e for e in (await room_now(connect, ann.room))["entries"]}
    assert lines["ann"]["moves"] == 2


# ---------------------------------------------------------------------- who you are

async def test_spectator_for_every_game_and_lobby_command(connect: type[Client]) -> None:
    ann, _ = await race(connect, "ann", "bob")
    before = await room_now(connect, ann.room)
    eve = await connect("eve")
    assert await answer(eve, "watch", {"room": ann.room}) == {"t": "watching", "d": {"room": ann.room}}
    for t, d in GAME + LOBBY:
        assert await refused(eve, t, d) == reject(t, "spectator", "spectators cannot play", seq_of(d))
    for t, d in [("create", {"nickname": "eve", "settings": {}}),
                 ("join", {"room": ann.room, "nickname": "eve"}),
                 ("resume", {"room": ann.room, "token": ann.token}),
                 ("watch", {"room": ann.room}), ("solo", {})]:
        assert await refused(eve, t, d) == reject(t, "already_in_room", ALREADY)
    assert await room_now(connect, ann.room) == before
    assert ann.close_code is None  # the token was not taken over
    assert (await answer(ann, "move", {"s": 1, "m": "t7>f"}))["t"] == "ack"
    assert await answer(eve, "leave") == {"t": "left", "d": {"room": ann.room}}
    assert await refused(eve, "hint") == reject("hint", "not_in_room", NOT_IN_ROOM)


async def test_not_in_room_for_every_command_that_needs_one(
        connect: type[Client], server: ServerProcess) -> None:
    before = await metrics(server)
    client = await connect("nobody")
    commands = [*GAME, *LOBBY, ("leave", {})]
    for t, d in commands:
        assert await refused(client, t, d) == reject(t, "not_in_room", NOT_IN_ROOM, seq_of(d))
    now = await metrics(server)
    assert rejected(now, "not_in_room") - rejected(before, "not_in_room") == len(commands)


async def test_already_in_room(connect: type[Client]) -> None:
    ann, bob = await lobby(connect, "ann", "bob")
    other = await connect("other")
    await other.create("other")
    before = await room_now(connect, ann.room)
    msg = ALREADY
    for client in (ann, bob):
        for t, d in [("create", {"nickname": "x", "settings": {}}),
                     ("join", {"room": other.room, "nickname": "x"}),
                     ("join", {"room": ann.room, "nickname": "x"}),
                     ("resume", {"room": other.room, "token": other.token}),
                     ("watch", {"room": other.room}), ("solo", {"nickname": "x"})]:
            assert await refused(client, t, d) == reject(t, "already_in_room", msg)
    assert await room_now(connect, ann.room) == before
    assert other.close_code is None


async def test_bad_token(connect: type[Client]) -> None:
    ann, bob = await lobby(connect, "ann", "bob")
    other = await connect("other")
    await other.create("other")
    client = await connect("thief")
    msg = "this seat token is not valid for the room"
    for token in ["", "nope", other.token, ann.token.upper(), ann.token + "x"]:
        assert await refused(client, "resume", {"room": ann.room, "token": token}) == reject(
            "resume", "bad_token", msg)
    # a player who left the lobby gave up the seat's token
    assert (await answer(bob, "leave"))["t"] == "left"
    assert await refused(client, "resume", {"room": ann.room, "token": bob.token}) == reject(
        "resume", "bad_token", msg)
    assert ann.close_code is None and other.close_code is None


# ---------------------------------------------------------------------- closes and the host

async def test_a_kicked_player_is_closed_with_4001_and_loses_the_seat(
        connect: type[Client], server: ServerProcess) -> None:
    before = await metrics(server)
    ann, bob, cat = await lobby(connect, "ann", "bob", "cat")
    await ann.send("kick", {"seat": bob.seat})
    kicked = await cat.event("kicked")
    assert kicked["seat"] == bob.seat and kicked.get("dropped") == [bob.seat]
    assert [p["nickname"] for p in kicked["room"]["players"]] == ["ann", "cat"]
    assert await bob.closed() == 4001
    assert bob.close_reason == "removed from the room by the host"
    await wait_for_metric(server, lambda m: closed(m, 4001) == closed(before, 4001) + 1)
    again = await connect("bob-again")
    assert await refused(again, "resume", {"room": ann.room, "token": bob.token}) == reject(
        "resume", "bad_token", "this seat token is not valid for the room")
    # the name is free again, on a new seat
    assert (await again.join(ann.room, "bob"))["seat"] == cat.seat + 1
    assert cat.close_code is None and ann.close_code is None


async def test_the_host_leaving_passes_the_role_to_the_next_player(connect: type[Client]) -> None:
    ann, bob, cat = await lobby(connect, "ann", "bob", "cat")
    assert await answer(ann, "leave") == {"t": "left", "d": {"room": ann.room}}
    for c in (bob, cat):
        left = await c.event("left")
        assert (left["seat"], left["racing"], left["host"]) == (ann.seat, False, bob.seat)
        assert left["room"]["host"] == bob.seat
    assert await refused(cat, "start") == reject("start", "not_host", NOT_HOST)
    await cat.send("ready", {"ready": True})
    await bob.event("ready")
    await bob.send("start")
    assert (await cat.event("start"))["room"]["racers"] == [bob.seat, cat.seat]
    # a player who is not the host leaving names no host
    dan, eve = await lobby(connect, "dan", "eve")
    await answer(eve, "leave")
    left = await dan.event("left")
    assert left["seat"] == eve.seat and "host" not in left and left["room"]["host"] == dan.seat


@pytest.mark.parametrize("where", ["same-process", "other-process"])
async def test_resuming_a_seat_elsewhere_closes_the_first_socket_with_4000(
        connect: type[Client], server: ServerProcess, redis_server: RedisServer, servers: Servers,
        where: str) -> None:
    ann, bob = await race(connect, "ann", "bob")
    assert (await ann.command("move", {"m": "t7>f"}))["t"] == "ack"
    await barrier(ann)
    url = servers.start(redis_server.url).ws_url if where == "other-process" else None
    before = await metrics(server)
    second = await connect("ann-2", url=url)  # type: ignore[call-arg]
    joined = await second.resume(ann.room, ann.token, since=ann.v)
    assert (joined["seat"], joined["role"]) == (ann.seat, "player")
    assert await ann.closed() == 4000
    assert ann.close_reason == "seat opened elsewhere"
    board = await second.expect("board")
    assert board["s"] == 1 and board["view"] == played("t7>f").view(progress=True)
    assert acked(await answer(second, "move", {"s": 2, "m": "t4>t5"})) == {
        "t": "ack", "d": {"s": 2, "view": played("t7>f", "t4>t5").view(progress=True)}}
    now = await wait_for_metric(server, lambda m: closed(m, 4000) > closed(before, 4000))
    assert closed(now, 4000) == closed(before, 4000) + 1
    # the seat stays online: the first socket's goodbye does not mark it gone
    gone = 1 if where == "other-process" else 0  # the second socket is on this server, or not
    await wait_for_metric(server, lambda m: sample(m, "klondike_connections")
                          <= sample(before, "klondike_connections") - gone)
    await barrier(bob)
    lines = {e["nickname"]: e for e in (await room_now(connect, ann.room))["entries"]}
    assert lines["ann"]["status"] == "racing" and lines["ann"]["moves"] == 2
    assert bob.close_code is None
    await second.close()  # before its server stops (a fixture torn down outside the event loop)


# ---------------------------------------------------------------------- the server's storage

async def test_unavailable_while_redis_is_down_and_the_connection_keeps_answering(
        own_redis: RedisServer, servers: Servers) -> None:
    """Regression: a ``watch`` that could not reach Redis left the connection
    holding back its output for a catch-up that never came: the
    ``unavailable`` reject and every later answer were never sent."""
    server = servers.start(own_redis.url)
    clients = [await Client.open(server.ws_url, name) for name in ("ann", "eve", "bob")]
    ann, eve, bob = clients
    try:
        await ann.create("ann", code=CODE)
        own_redis.stop()
        msg = "the server cannot reach its storage; try again shortly"
        assert await refused(ann, "ready", {"ready": True}) == reject("ready", "unavailable", msg)
        # a room this process has no hub for: the hub cannot be loaded
        assert await refused(eve, "watch", {"room": "ZZZZZZZZ"}) == reject("watch", "unavailable", msg)
        assert await refused(eve, "hint") == reject("hint", "not_in_room", NOT_IN_ROOM)
        for t, d in [("join", {"room": ann.room, "nickname": "bob"}),
                     ("create", {"nickname": "bob", "settings": {}}), ("solo", {})]:
            assert await refused(bob, t, d) == reject(t, "unavailable", msg)
        own_redis.start()  # the same data (append-only file): the room is still there
        joined = await bob.join(ann.room, "bob")
        assert joined["seat"] == 1
        assert (await answer(eve, "watch", {"room": ann.room}))["t"] == "watching"
    finally:
        for client in clients:
            await client.close()
