"""Nothing of a racer's hidden cards reaches the racer (issue 16, probes 2
and 3). Everyone in a room races the same deal, so an opponent's board shows
cards still face down on one's own: a racer must not see the boards of the
race they run, on the connection that holds their seat or on a second one
(another tab of the same browser), and nobody sees a board before the race
starts.

- a room's default is ``"boards": "after"``: a second connection of a racer
  that presents nothing gets no board before the end;
- a connection holding a seat of a running race, or presenting a racer's
  token (the web client sends the seat token it keeps), is refused ``watch``
  with ``own_race``; one that watched with a seat's token before the race is
  sent away when a race of that seat starts, before any board;
- no board goes to any spectator before ``start_at`` (delayed: before
  ``start_at`` plus the delay); the spectators there get the dealt boards then.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any, Final

import pytest
from harness import Client, RedisServer, ServerProcess, Servers, load_wins
from support.race import (
    FAST_ARGS,
    Racer,
    StampedClient,
    hidden_cards,
    open_room,
    scan_racer,
    scan_spectator,
    start_fast_server,
    start_race,
)
from support.tournament import Entrant, Organizer, t_seen

from server.klondike import Game

CODE: Final = "KL1-D1N-AAOKERG"
SCRIPT: Final = next(w["script"] for w in load_wins() if w["code"] == CODE)


@pytest.fixture(scope="module")
def server(redis_server: RedisServer, module_servers: Servers
           ) -> ServerProcess:
    return start_fast_server(redis_server, module_servers)


async def answer_to(client: Client, t: str, d: dict[str, Any]) -> dict[str, Any]:
    """Send ``t``; its answer: ``watching`` (or ``joined``), or the reject."""
    seen = len(client.frames)
    await client.send(t, d)
    async with asyncio.timeout(10):
        while True:
            for msg in client.frames[seen:]:
                if msg["t"] in ("watching", "joined") or (
                        msg["t"] == "reject" and msg["d"].get("cmd") == t):
                    return msg
            await asyncio.sleep(0.01)


def refused(msg: dict[str, Any], code: str) -> bool:
    return msg["t"] == "reject" and msg["d"]["code"] == code


def boards_seen(client: Client) -> int:
    return sum(1 for f in client.frames if f["t"] == "boards")


async def finish(racers: list[Racer], watcher: Client) -> None:
    """Every racer resigns; the race's end reaches ``watcher``."""
    for racer in racers:
        await racer.resign()
    await watcher.event("ended")


async def test_a_racers_second_connection_gets_no_board_before_the_end_with_the_default_settings(
        connect: type[Client]) -> None:
    ann, bob = await connect("ann"), await connect("bob")
    joined = await open_room([ann, bob], code=CODE)  # no boards setting: the default
    room = joined[0]["room"]
    await start_race([ann, bob])
    tab = await connect("ann's second tab")  # presents nothing: a spectator like any
    assert (await answer_to(tab, "watch", {"room": room, "since": 0}))["t"] == "watching"
    sync = await tab.expect("sync")
    assert sync["room"]["settings"]["boards"] == "after"
    racers = [Racer(ann, CODE), Racer(bob, CODE)]
    await racers[1].play(SCRIPT[:60])  # bob turns up cards face down on ann's table
    assert hidden_cards(Game(CODE)) & (racers[1].seen - racers[0].seen), "bob saw ann's secrets"
    await racers[0].play(SCRIPT[:3])
    await finish(racers, tab)
    await tab.expect("boards")  # after the end, every board
    by_seat = {r.seat: r for r in racers}
    assert scan_spectator(tab, by_seat, boards="after") == 2  # and none before it
    for racer in racers:
        scan_racer(racer)


async def test_a_racer_asking_to_watch_her_own_race_is_refused_own_race_on_any_connection(
        connect: type[Client]) -> None:
    ann, bob = await connect("ann"), await connect("bob")
    joined = await open_room([ann, bob], code=CODE, boards="live")  # the host's choice
    room = joined[0]["room"]
    lobby = await answer_to(ann, "watch", {"room": room, "since": 0})
    assert refused(lobby, "already_in_room")  # in the lobby: in the room already
    await start_race([ann, bob])
    assert refused(await answer_to(ann, "watch", {"room": room, "since": 0}), "own_race")
    tab = await connect("ann's second tab")
    for token in (ann.token, bob.token):
        assert refused(await answer_to(tab, "watch", {"room": room, "since": 0, "token": token}),
                       "own_race")
    racers = [Racer(ann, CODE), Racer(bob, CODE)]
    await racers[1].play(SCRIPT[:20])
    assert boards_seen(tab) == 0 and tab.room == ""
    # a token of nothing in this room is no racer's: a spectator like any
    stranger = await connect("stranger")
    said = await answer_to(stranger, "watch", {"room": room, "since": 0, "token": "x" * 43})
    assert said["t"] == "watching"
    await stranger.expect("boards")
    # once the race is over, her second tab may watch it
    await finish(racers, stranger)
    assert (await answer_to(tab, "watch", {"room": room, "since": 0, "token": ann.token}))[
        "t"] == "watching"
    assert len((await tab.expect("boards"))["boards"]) == 2
    for racer in racers:
        scan_racer(racer)


async def test_a_spectator_with_a_racers_token_is_sent_away_when_the_race_starts(
        connect: type[Client]) -> None:
    ann, bob = await connect("ann"), await connect("bob")
    joined = await open_room([ann, bob], code=CODE, boards="live")
    room = joined[0]["room"]
    tab = await connect("ann's second tab")
    said = await answer_to(tab, "watch", {"room": room, "since": 0, "token": ann.token})
    assert said["t"] == "watching"  # in the lobby there is nothing to see
    await start_race([ann, bob])
    sent_away = await tab.expect("reject", lambda d: d["cmd"] == "watch")
    assert sent_away["code"] == "own_race"
    racers = [Racer(ann, CODE), Racer(bob, CODE)]
    await racers[1].play(SCRIPT[:20])
    await finish(racers, ann)
    # it heard nothing of the race after the refusal: no board, no event
    after = [f["t"] for f in tab.frames[tab.frames.index(
        {"t": "reject", "d": sent_away}) + 1:]]
    assert boards_seen(tab) == 0 and after == [], after
    # the connection is out of the room: it may watch again now that the race is over
    assert (await answer_to(tab, "watch", {"room": room, "since": 0, "token": ann.token}))[
        "t"] == "watching"


async def test_a_tournament_players_token_is_refused_own_race_in_a_round_they_play(
        connect: type[Client]) -> None:
    for size in (4, 100):  # a small tournament's round, and a big one's before she came
        org = Organizer(await connect("org"))
        await org.create("Club night", codes=[CODE], max_players=size, boards="live")
        ann, bob = Entrant(await connect("ann"), "ann"), Entrant(await connect("bob"), "bob")
        for entrant in (ann, bob):
            await entrant.register(org.id)
        room = await org.start(1)
        tab = await connect("ann's second tab")
        said = await answer_to(tab, "watch", {"room": room, "since": 0, "token": ann.token})
        assert refused(said, "own_race"), (size, said)
        viewer = await connect("viewer")
        assert (await answer_to(viewer, "watch", {"room": room, "since": 0}))["t"] == "watching"
        await bob.enter(room, CODE)
        await bob.resign()
        await ann.enter(room, CODE)
        await ann.resign()
        await t_seen(org.client, "round_ended", 1)


@pytest.mark.parametrize("delay", [0, 1])
async def test_no_board_reaches_a_spectator_before_start_at(
        servers: Servers, redis_server: RedisServer, delay: int) -> None:
    """Regression (probe 3): a spectator arriving during the countdown got
    every board at once, the deal's face-up cards up to 3 s before anyone
    could play; a delayed room's, as soon as the delay had passed since the
    start command. Each boards frame's arrival is checked against the
    server's ``start_at`` (the same clock: one machine)."""
    server = servers.start(redis_server.url, env={"KLONDIKE_COUNTDOWN": "1.5"}, args=FAST_ARGS)
    settings: dict[str, Any] = {"boards": "delayed", "delay": delay} if delay else {
        "boards": "live"}
    ann = await Client.open(server.ws_url, "ann")
    early = await StampedClient.open(server.ws_url, "lobby spectator")
    late: StampedClient | None = None
    try:
        room = (await ann.create("ann", code=CODE, **settings))["room"]
        await early.send("watch", {"room": room, "since": 0})
        await early.expect("sync")
        await ann.send("start")
        start_at = (await ann.event("start"))["room"]["start_at"]
        late = await StampedClient.open(server.ws_url, "countdown spectator")
        await late.send("watch", {"room": room, "since": 0})
        sync = await late.expect("sync")
        assert sync["room"]["phase"] in ("countdown", "racing")
        dealt = {"0": Game(CODE).public_view()}
        for watcher in (late, early):  # the dealt board, once the race has started
            assert (await watcher.expect("boards"))["boards"] == dealt
            wall = time.time() - time.monotonic()
            for at, msg in zip(watcher.stamps, watcher.frames, strict=True):
                if msg["t"] == "boards":
                    assert (at + wall) * 1000 >= start_at + delay * 1000, (
                        f"{watcher.name}: a board {start_at + delay * 1000 - (at + wall) * 1000:.0f}"
                        " ms too soon")
    finally:
        for client in (ann, early, late):
            if client is not None:
                await client.close()
