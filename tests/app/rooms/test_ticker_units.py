"""A ticked leaderboard's bookkeeping alone (server/app/rooms/ticker.py): a
fake hub and a fake ranking instead of Redis and sockets. What it pins: a
player's own frame goes only when their place changed; a shared frame that
comes while the own places are being read waits for them and goes in the
same write; a newer tick supersedes an older one still going out, whose own
frames wait for the next. (tests/app/rooms/test_big_room.py drives the same
through real processes and Redis.)"""

from __future__ import annotations

from collections.abc import Iterable
from types import SimpleNamespace
from typing import Any

import orjson

from server.app.rooms.ticker import Ticker, _Fan


class Player:
    def __init__(self, seat: int) -> None:
        self.seat, self.role = seat, "player"


class Ranks:
    """The ranking's answers: each seat's place, as the store gives it."""

    def __init__(self) -> None:
        self.places: dict[int, bytes | None] = {}
        self.reading: Any = None  # called while a read is under way

    async def near(self, room_id: str, seats: list[int]) -> list[bytes | None]:
        if self.reading is not None:
            self.reading()
        return [self.places.get(s) for s in seats]


class Hub:
    """What a ticker uses of its hub; what it wrote, by session."""

    room_id = "R1"
    v = 0
    boards_mode = "after"

    def __init__(self) -> None:
        self.ranks = Ranks()
        self.store = SimpleNamespace(ranks=self.ranks)
        self.public: dict[str, Any] = {"settings": {"top": 10}}
        self.sessions: set[Any] = set()
        self.written: list[tuple[Any, list[bytes]]] = []

    def now_ms(self) -> int:
        return 0

    def phase_now(self) -> str:
        return "racing"

    def hiding(self) -> bool:
        """A live race, not a challenge: nothing of a running game is hidden."""
        return False

    def watchers(self) -> list[Any]:
        return []

    def fault(self) -> None:
        raise AssertionError("no fault expected")

    def send(self, sessions: Iterable[Any], data: bytes, *, essential: bool) -> None:
        for session in sessions:
            self.written.append((session, [data]))

    def send_frames(self, session: Any, frames: list[bytes], data: list[bytes], *,
                    essential: bool) -> None:
        self.written.append((session, data))

    def of(self, session: Any) -> list[list[str]]:
        """The frames' types each write to ``session`` carried."""
        return [[orjson.loads(d)["t"] for d in data] for s, data in self.written if s is session]


def place(rank: int) -> bytes:
    return b'"rank":%d,"of":9' % rank


async def test_a_players_own_frame_goes_only_when_their_place_changed() -> None:
    hub, ann, bob = Hub(), Player(0), Player(1)
    hub.sessions = {ann, bob}
    ticker = Ticker(hub, 0.5)  # type: ignore[arg-type]
    hub.ranks.places = {0: place(1), 1: place(2)}
    first = await ticker.own_places([ann, bob])
    assert set(first) == {ann, bob}
    assert await ticker.own_places([ann, bob]) == {}  # nothing changed: nothing to send
    hub.ranks.places[1] = place(1)
    assert set(await ticker.own_places([ann, bob])) == {bob}
    ticker.forget(bob)  # bob left: his next place goes whole again
    assert set(await ticker.own_places([ann, bob])) == {bob}


async def test_a_shared_frame_that_comes_while_the_places_are_read_waits_and_goes_with_them(
) -> None:
    hub, ann = Hub(), Player(0)
    hub.sessions = {ann}
    ticker = Ticker(hub, 0.5)  # type: ignore[arg-type]
    hub.ranks.places = {0: place(3)}

    async def built(tick: int) -> bool:
        return True
    ticker._build = built  # type: ignore[method-assign]  # (the store's tick script)
    hub.ranks.reading = lambda: ticker.on_notice({"x": "top", "tick": 7, "top": []})
    await ticker.tick(7)
    assert hub.of(ann) == [["top", "me"]]  # one write: the shared frame and her own
    assert ticker.top == {"tick": 7, "top": []}
    ticker.on_notice({"x": "top", "tick": 8, "top": []})  # no new place: the shared frame alone
    assert hub.of(ann)[-1] == ["top"]
    ticker.close()


async def test_a_newer_tick_supersedes_an_older_one_still_going_out() -> None:
    hub = Hub()
    players = [Player(seat) for seat in range(3)]
    hub.sessions = set(players)
    ticker = Ticker(hub, 0.5)  # type: ignore[arg-type]
    hub.ranks.places = {p.seat: place(p.seat + 1) for p in players}
    ticker._own = await ticker.own_places(players)
    ticker.on_top({"x": "top", "tick": 1, "top": []})
    old = ticker._fanning
    ticker.on_top({"x": "top", "tick": 2, "top": []})  # meanwhile, a newer tick
    assert ticker._fanning == old + 1
    written = len(hub.written)
    own = {p: ticker._sent[p] for p in players}
    ticker._fan_out(_Fan(old, b"{}", b"{}", own), players)  # the older tick's late slice
    assert len(hub.written) == written  # nothing older goes after the newer one
    assert ticker._own == own  # its own frames wait for the next tick
    ticker.close()
