"""A big room in the browser: 40 players on one deal, two of them in browsers
(ann, the host, on a desktop; pia on a phone), the other 38 scripted over
plain websockets from the test (seven win with the script of wins.json, some
play part of it, some resign, the rest stay idle), and spectators.

The room is created from the lobby's form (up to 50 players, the top 5 on
the leaderboard), its lobby counts the players and the ready ones, and the
host sets a start time whose countdown everyone shares. During the race
each browser player's pinned place and rank are what the server says, the
field's picture adds up to the field, a search finds a player and the pages
go through the whole field; a spectator follows a player by nickname and sees
their board move live; only the first finishers are announced; a phone
shows it all within 390 px. Every frame each page received is scanned for
cards it may not see.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

import pytest
from crowd import Crowd
from harness import Client, ServerProcess, load_wins
from playwright.sync_api import Locator, Page, expect
from web_support import (
    TOASTS_JS,
    hidden,
    kept_seat,
    one_line,
    ordinal,
    pile,
    play_fast,
    set_nickname,
    settle,
    stat,
)

from conftest import Tabs, screenshot
from server.klondike import Game, card_name

pytestmark = pytest.mark.browser

CODE = "KL1-D1V-ABYI5NK"
SCRIPT = next(w["script"] for w in load_wins() if w["code"] == CODE)
PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True,
         "device_scale_factor": 2, "locale": "en-GB"}
DESKTOP = {"locale": "en-GB"}  # times of day as 20:30:05
TOP = 5
WINNERS = [f"c{i:02}" for i in range(1, 8)]  # seven finish: only the first five are announced
PARTIAL = {f"c{i:02}": 10 + 6 * (i - 8) for i in range(8, 21)}  # play that many moves of the script
RESIGN = [f"c{i:02}" for i in range(21, 26)]
IDLE = [f"c{i:02}" for i in range(26, 39)]
ANN_MOVES, PIA_MOVES = 40, 22
FOLLOWED = "c12"
CARD = re.compile(r'"[A2-9TJQK][SHDC]"')

@pytest.fixture(scope="module")
def server(big_server: ServerProcess) -> ServerProcess:
    return big_server


def played(moves: list[str]) -> Game:
    game = Game(CODE)
    for m in moves:
        game.push(m)
    return game


def page_of(crowd: Crowd, probe: Client, first: int, count: int) -> list[dict[str, Any]]:
    return list(crowd.ask(probe, "lb_page", {"first": first, "count": count}, "lb_page")["lines"])


def rank_of(crowd: Crowd, probe: Client, nickname: str) -> int:
    return int(crowd.ask(probe, "lb_find", {"nickname": nickname}, "lb_found")["rank"])


# what sticks out sideways: elements shown beyond the page's width
WIDE_JS = """() => [...document.querySelectorAll('body *')]
  .filter(e => e.offsetParent && e.getBoundingClientRect().right > document.documentElement.clientWidth + 1)
  .map(e => e.tagName + '.' + e.className + ' ' + Math.round(e.getBoundingClientRect().right)).slice(0, 8)"""


def fits(page: Page) -> None:
    """Nothing sticks out sideways."""
    wide = page.evaluate("() => document.documentElement.scrollWidth > document.documentElement.clientWidth")
    assert not wide, f"wider than the page: {page.evaluate(WIDE_JS)}"


def in_view(page: Page, selector: str) -> None:
    box = page.locator(selector).bounding_box()
    size = page.viewport_size
    assert box and size
    assert box["x"] >= 0 and box["x"] + box["width"] <= size["width"] + 0.5, f"{selector}: {box}"
    assert box["y"] >= 0 and box["y"] + box["height"] <= size["height"] + 0.5, f"{selector}: {box}"


def received(frames: list[str], name: str) -> Iterator[tuple[str, dict[str, Any]]]:
    """Each frame a page received, raw and parsed, once checked that the deal's
    code comes no sooner than the race's end."""
    ended = False
    for raw in frames:
        msg = json.loads(raw)
        ended = ended or (msg["t"] == "event" and msg["d"]["kind"] == "ended")
        assert ended or CODE not in raw, f"{name} got the code before the end: {raw[:200]}"
        yield raw, msg


def scan_player(frames: list[str], game: Game, name: str) -> None:
    """A player's frames name no card hidden in their own game (hidden at the
    end means hidden all along: nobody undid a move), and only their own
    board and acks name cards at all; the code comes with the race's end."""
    secret = {card_name(c) for c in hidden(game)}
    assert len(secret) > 10
    for raw, msg in received(frames, name):
        if msg["t"] in ("board", "ack"):
            for c in secret:
                assert f'"{c}"' not in raw, f"{c} was sent to {name}: {raw[:200]}"
        else:
            assert not CARD.search(raw), f"{name} got a card in a {msg['t']} frame: {raw[:200]}"


def scan_spectator(frames: list[str], scripts: dict[int, list[str]], name: str) -> int:
    """Each board a spectator got names no card hidden in that player's game as
    it was then (replayed here from its script up to the board's moves); no
    other frame names a card; the code comes with the race's end. Returns how
    many boards were checked."""
    checked = 0
    for raw, msg in received(frames, name):
        if msg["t"] != "boards":
            assert not CARD.search(raw), f"{name} got a card in a {msg['t']} frame: {raw[:200]}"
            continue
        for seat, view in msg["d"]["boards"].items():
            script = scripts[int(seat)]
            game = Game(CODE)
            for m in script:
                if game.moves == view["moves"]:
                    break
                game.push(m)
            moves = view["moves"]
            assert game.moves == moves, f"seat {seat}: no prefix of its script makes {moves} moves"
            assert game.public_view() == view, f"seat {seat}: the board is not its game at {moves} moves"
            text = json.dumps(view)
            for c in hidden(game):
                assert f'"{card_name(c)}"' not in text, f"{name} saw {card_name(c)}, face down at seat {seat}"
            checked += 1
    return checked


def shows_foundations(board: Locator, game: Game) -> None:
    """The board shows the game's foundations (their top cards)."""
    tops = {suit: top for suit, top in game.public_view()["foundations"].items() if top}
    assert tops, "a test of a board's foundations needs a card on one"
    for suit, top in tops.items():
        expect(board.locator(f'.pile[data-pile="f{suit.lower()}"] [data-card="{top}"]')).to_be_visible()


def create_big_room(page: Page, *, late: bool = False) -> str:
    set_nickname(page, "ann")
    form = page.locator("form.create")
    form.get_by_label("A code").check()
    form.get_by_label("Deal code").fill(CODE)
    expect(form.locator("fieldset.big-only")).to_be_hidden()  # a room of 8 is asked what it always was
    form.locator('select[name="max_players"]').select_option("50")
    big = form.locator("fieldset.big-only")
    expect(big).to_be_visible()
    big.get_by_label("Leaderboard shows the top").select_option(str(TOP))
    big.get_by_label("races on their own clock" if late else "not allowed").check()
    form.get_by_label("Live", exact=True).check()  # spectators see the top boards as they change
    form.get_by_role("button", name="Create room").click()
    link = page.get_by_label("Room link", exact=True)
    expect(link).to_have_value(re.compile(r"/r/[A-Z0-9]{8}$"))
    return link.input_value()


def test_a_big_race_in_the_browser(tabs: Tabs, crowd: Crowd) -> None:
    ann = tabs.page("/", **DESKTOP)
    link = create_big_room(ann)
    room = link[-8:]
    counts = ann.locator(".bigroom .field-counts")
    expect(counts).to_have_text("1 player of at most 50 · 0 ready")
    expect(ann.locator(".bigroom .room-settings")).to_contain_text(f"the top {TOP} on the leaderboard")
    expect(ann.locator(".bigroom .players")).to_have_count(0)  # no list of players

    pia = tabs.page(link, **PHONE)
    set_nickname(pia, "pia")
    pia.get_by_role("button", name="Join the race").click()
    expect(pia.locator(".bigroom .field-host")).to_contain_text("ann is the host")

    names = WINNERS + list(PARTIAL) + RESIGN + IDLE
    players = dict(zip(names, crowd.join(room, names), strict=True))
    crowd.ready([players[n] for n in names[:12]])
    expect(counts).to_have_text("40 players of at most 50 · 12 ready")
    pia.get_by_role("button", name="I'm ready").tap()
    expect(pia.get_by_role("button", name="Not ready after all")).to_be_visible()
    expect(counts).to_have_text("40 players of at most 50 · 13 ready")
    expect(ann.locator(".bigroom .field-some")).to_contain_text("In the room: ann (you), pia, c01")

    watcher = tabs.page(link + "?watch", **DESKTOP)
    expect(watcher.locator(".watch-phase")).to_contain_text("In the lobby: 40 players, 13 ready")

    # the host sets a start time a few seconds ahead: one countdown for everyone
    at = ann.evaluate("() => new Date(Date.now() + 12000).toTimeString().slice(0, 8)")
    ann.get_by_label("Start time (your clock)").fill(at)
    ann.get_by_role("button", name="Schedule").click()
    for page in (ann, pia):
        expect(page.locator(".bigroom .field-when")).to_have_text(
            re.compile(rf"^The race starts at {at}, in 0:[01]\d\.$"))
    expect(watcher.locator(".watch-phase")).to_contain_text(f"starts at {at}")
    expect(ann.get_by_role("button", name="Start the race now")).to_be_hidden()
    screenshot(ann, "big-lobby")
    for page in (ann, pia, watcher):
        page.evaluate(TOASTS_JS)

    for page in (ann, pia):
        expect(page.locator(".race .board .card").first).to_be_visible(timeout=30_000)
    crowd.boards(list(players.values()))

    # the race: everyone plays at once
    scripts = {p.seat: SCRIPT for n, p in players.items() if n in WINNERS}
    scripts.update({players[n].seat: SCRIPT[:k] for n, k in PARTIAL.items()})
    scripts.update({players[n].seat: SCRIPT[:3] for n in RESIGN})
    scripts.update({players[n].seat: [] for n in IDLE})
    busy = crowd.play([(players[n], scripts[players[n].seat]) for n in names if n not in IDLE],
                      resign=[players[n] for n in RESIGN])
    play_fast(ann, SCRIPT[:ANN_MOVES])
    play_fast(pia, SCRIPT[:PIA_MOVES])
    busy.result(120)
    ann_seat = kept_seat(ann)["seat"]
    pia_seat = kept_seat(pia)["seat"]
    scripts[ann_seat] = SCRIPT[:ANN_MOVES]
    scripts[pia_seat] = SCRIPT[:PIA_MOVES]

    probe = crowd.open("probe")
    crowd.ask(probe, "watch", {"room": room, "since": 0}, "watching")

    # the pinned place: the rank, the line and its neighbours, as the server ranks them
    rank = rank_of(crowd, probe, "ann")
    place = ann.locator(".race .side .lb-place")
    expect(place.locator(".lb-title")).to_have_text(f"You: {ordinal(rank)} of 40")
    expect(stat(ann, "Rank")).to_have_text(f"{ordinal(rank)}/40")
    first_near = max(1, rank - 1)
    near = page_of(crowd, probe, first_near, 3 if rank > 1 else 2)
    expect(place.locator(".lb-row .lb-name")).to_have_text(
        [x["nickname"] + (" (you)" if x["nickname"] == "ann" else "") for x in near])
    expect(place.locator(".lb-row .lb-rank")).to_have_text([str(first_near + i) for i in range(len(near))])
    own = played(SCRIPT[:ANN_MOVES])
    expect(place.locator(".lb-row.me .lb-cards")).to_have_text(f"{own.foundation_cards}/52")

    # the top lines, and "and 35 more"
    top = page_of(crowd, probe, 1, TOP)
    board = ann.locator(".race .side .leaderboard")
    expect(board.locator(".lb-row .lb-name")).to_have_text([x["nickname"] for x in top])
    expect(board.locator(".lb-more")).to_have_text(f"and {40 - TOP} more")
    assert all(x["status"] == "finished" for x in top)

    # only the first finishers were announced: the top lines' five, never the sixth or seventh
    first = [x["nickname"] for x in top]
    for page in (ann, pia, watcher):
        expect(page.locator(".leaderboard .lb-row .lb-name")).to_have_text(
            [x + (" (you)" if page is ann and x == "ann" else "") for x in first])
        said = [t for t in page.evaluate("() => window.__said") if " finished " in t]
        assert sorted(t.split(" finished ")[0] for t in said) == sorted(first), said
        for i, nickname in enumerate(first, start=1):
            assert any(t.startswith(f"{nickname} finished {ordinal(i)} in ") for t in said), said

    # the field's picture adds up to the field, the own bar marked
    hist = ann.locator(".race .histogram")
    expect(hist.locator(".hist-bar.mark")).to_have_attribute("data-k", str(own.foundation_cards))
    ann.wait_for_function("""() => [...document.querySelectorAll('.race .hist-bar')]
      .reduce((n, b) => n + Number(b.dataset.count), 0) === 40""")
    bars = hist.locator(".hist-bar")
    expect(bars).to_have_count(53)
    finished = int(bars.nth(52).get_attribute("data-count") or 0)
    assert finished == len(WINNERS)
    expect(hist.locator(".hist-status")).to_contain_text(f"{len(WINNERS)} finished")

    # the whole field: a search, then the pages
    ann.get_by_role("button", name=re.compile(r"^Find a player · all 40$")).click()
    dialog = ann.get_by_role("dialog", name="The field")
    expect(dialog).to_be_visible()
    dialog.get_by_label("Nickname to find").fill("C05")  # names are found whatever their case
    dialog.get_by_role("button", name="Find").click()
    found = dialog.locator(".field-found .field-line")
    expect(found.locator(".field-name")).to_have_text("c05")
    expect(found.locator(".field-rank")).to_have_text(str(rank_of(crowd, probe, "c05")))
    expect(dialog.locator(".field-where")).to_have_text("Ranks 1–25 of 40")
    ranking = dialog.locator(".field-lines[aria-label=Ranking]")
    expect(ranking.locator(".field-line.found .field-name")).to_have_text("c05")
    dialog.get_by_role("button", name="Next ›").click()
    expect(dialog.locator(".field-where")).to_have_text("Ranks 26–40 of 40")
    rest = page_of(crowd, probe, 26, 25)
    rows = ranking.locator(".field-line")
    expect(rows.locator(".field-rank")).to_have_text([str(r) for r in range(26, 41)])
    expect(rows.locator(".field-name")).to_have_text(
        [x["nickname"] + (" (you)" if x["nickname"] == "ann" else "") for x in rest])
    expect(dialog.get_by_role("button", name="Next ›")).to_be_disabled()
    dialog.get_by_role("button", name="‹ Previous").click()
    expect(dialog.locator(".field-where")).to_have_text("Ranks 1–25 of 40")
    dialog.get_by_label("Nickname to find").fill("nobody")
    dialog.get_by_role("button", name="Find").click()
    expect(dialog.locator(".field-missing")).to_have_text("Nobody is called nobody in this room.")
    screenshot(ann, "big-field")
    dialog.get_by_role("button", name="Close").click()
    expect(dialog).to_be_hidden()

    # a reload resumes the seat: the place comes back with the next tick
    ann.reload()
    expect(place.locator(".lb-title")).to_have_text(f"You: {ordinal(rank)} of 40")
    expect(stat(ann, "Moves")).to_have_text(str(ANN_MOVES))
    expect(ann.locator(".toast")).to_have_count(0, timeout=15_000)  # (the finishes' news has gone)
    screenshot(ann, "big-race")

    # the spectator: the top boards, and one player followed by nickname, live
    expect(watcher.locator(".watch .leaderboard .lb-row .lb-name")).to_have_text([x["nickname"] for x in top])
    shown = {x["seat"] for x in top[:8]}  # the boards of the top lines' players (at most 8), by rank
    tiles = watcher.locator(".watch .tile")
    expect(tiles).to_have_count(len(shown))
    assert [int(t.get_attribute("data-seat") or -1) for t in tiles.all()] == [x["seat"] for x in top[:8]]
    for line in top:
        tile = tiles.filter(has_text=line["nickname"])
        expect(tile).to_contain_text(f"52/52 · +$208 · {len(SCRIPT)} moves · finished")
    settle(watcher)
    screenshot(watcher, "big-spectator")

    watcher.get_by_label("Nickname to follow").fill(FOLLOWED)
    watcher.get_by_role("button", name="Follow", exact=True).click()
    followed = players[FOLLOWED]
    card = watcher.locator(".follow-card")
    expect(card.locator(".follow-title")).to_have_text(
        f"Following {FOLLOWED} · {ordinal(rank_of(crowd, probe, FOLLOWED))} of 40")
    expect(card.locator(".follow-board .board")).to_be_visible()
    expect(tiles).to_have_count(len(shown - {followed.seat}))
    assert {int(t.get_attribute("data-seat") or -1) for t in tiles.all()} == shown - {followed.seat}

    more = SCRIPT[PARTIAL[FOLLOWED]:PARTIAL[FOLLOWED] + 12]
    crowd.play([(followed, more)]).result(30)
    scripts[followed.seat] = SCRIPT[:PARTIAL[FOLLOWED] + 12]
    now = played(scripts[followed.seat])
    cards = now.foundation_cards
    expect(card.locator(".lb-row", has_text=FOLLOWED).locator(".lb-cards")).to_have_text(f"{cards}/52")
    shows_foundations(card.locator(".follow-board"), now)
    expect(watcher.locator(".watch .histogram .hist-bar.mark")).to_have_attribute("data-k", str(cards))
    # the address names the followed player: a reload (or the link, shared) follows them again
    expect(watcher).to_have_url(re.compile(rf"/r/{room}\?watch&follow={FOLLOWED}$"))
    watcher.reload()
    expect(card.locator(".follow-title")).to_have_text(
        re.compile(rf"^Following {FOLLOWED} · \d+(st|nd|rd|th) of 40$"))
    shows_foundations(card.locator(".follow-board"), now)
    settle(watcher)
    screenshot(watcher, "big-follow")

    # a phone: the player's table and pinned place fit; a spectator follows by touch
    fits(pia)
    for n in range(1, 8):
        box = pile(pia, f"t{n}").bounding_box()
        assert box and box["x"] >= 0 and box["x"] + box["width"] <= 390
    pia_rank = rank_of(crowd, probe, "pia")
    expect(pia.locator(".race .lb-place .lb-title")).to_have_text(f"You: {ordinal(pia_rank)} of 40")
    in_view(pia, ".race .lb-place")
    one_line(pia, ".race .topbar")
    one_line(pia, ".race .statusbar")
    settle(pia)
    screenshot(pia, "big-phone")
    phone = tabs.page(link + "?watch", **PHONE)
    phone.get_by_label("Nickname to follow").tap()
    phone.keyboard.type("c03")
    phone.get_by_role("button", name="Follow", exact=True).tap()
    expect(phone.locator(".follow-card .follow-title")).to_contain_text("Following c03 · ")
    expect(phone.locator(".follow-card .follow-board .board")).to_be_visible()
    fits(phone)
    settle(phone)
    screenshot(phone, "big-spectator-phone")

    # the end: the others resign; the results, the own place, the rest of the field a page away
    crowd.resign([players[n] for n in list(PARTIAL) + IDLE])
    for page in (pia, ann):
        page.locator(".controls").get_by_role("button", name="Resign").click()
        page.locator(".controls").get_by_role("button", name="Really resign?").click()
    final = rank_of(crowd, probe, "ann")
    results = ann.get_by_role("dialog", name=f"You placed {ordinal(final)} of 40")
    expect(results).to_be_visible(timeout=15_000)
    rows = results.locator("tbody tr")
    expect(rows).to_have_count(TOP + 1)
    expect(rows.last).to_contain_text("ann (you)")
    expect(rows.last.locator("td").first).to_have_text(str(final))
    expect(results.locator(".results-rest")).to_contain_text(f"and {40 - TOP - 1} more in the field")
    expect(results.locator(".results-code")).to_have_text(CODE)
    screenshot(ann, "big-results")
    results.get_by_role("button", name="The whole field").click()
    expect(dialog.locator(".field-where")).to_have_text("Ranks 1–25 of 40")
    expect(watcher.get_by_role("dialog", name="The race is over")).to_contain_text(f"Won by {first[0]} in")

    # nothing any page received names a card it may not see
    scan_player(tabs.frames[ann], played(SCRIPT[:ANN_MOVES]), "ann")
    scan_player(tabs.frames[pia], played(SCRIPT[:PIA_MOVES]), "pia")
    for page, name in ((watcher, "the spectator"), (phone, "the phone's spectator")):
        assert scan_spectator(tabs.frames[page], scripts, name) >= 8


def seconds(text: str) -> int:
    minutes, secs = text.split(":")
    return int(minutes) * 60 + int(secs)


def test_the_host_starts_now_and_a_late_arrival_races_on_his_own_clock(tabs: Tabs, crowd: Crowd) -> None:
    ann = tabs.page("/", **DESKTOP)
    link = create_big_room(ann, late=True)
    expect(ann.locator(".bigroom .room-settings")).to_contain_text("late arrivals race on their own clock")
    others = crowd.join(link[-8:], [f"d{i:02}" for i in range(1, 20)])
    expect(ann.locator(".bigroom .field-counts")).to_have_text("20 players of at most 50 · 0 ready")
    ann.get_by_role("button", name="Start the race now").click()  # nobody is ready: no matter in a big room
    expect(ann.locator(".race .notice.countdown")).to_be_visible()
    expect(ann.locator(".race .board .card").first).to_be_visible()
    crowd.boards(others)
    # (real seconds: moving the server's clock and ann's page clock 30 s
    # showed 0:29 and then 0:00 counting on once, in a clean run: her page's
    # estimate of the server's time did not survive the jump; to look into)
    expect(stat(ann, "Time")).to_have_text(re.compile(r"^0:(0[4-9]|[1-5]\d)$"), timeout=15_000)

    # bob comes once the race has run a few seconds: he races at once, on his own clock
    bob = tabs.page(link, **DESKTOP)
    set_nickname(bob, "bob")
    bob.get_by_role("button", name="Join the race").click()
    expect(bob.locator(".race .board .card").first).to_be_visible()
    expect(bob.locator(".race .notice.countdown")).to_be_hidden()
    play_fast(bob, SCRIPT[:12])  # a card home: he leads the idle field
    expect(bob.locator(".race .lb-place .lb-title")).to_have_text("You: 1st of 21")
    lead = ann.locator(".race .leaderboard .lb-row").first
    expect(lead.locator(".lb-status")).to_have_text("racing, came late")
    late, early = seconds(stat(bob, "Time").inner_text()), seconds(stat(ann, "Time").inner_text())
    assert early - late >= 3, (
        f"bob's clock ({late} s) runs from his arrival, ann's ({early} s) from the start")


def test_a_start_time_goes_in_whole_milliseconds_whatever_the_clock_s_offset(tabs: Tabs) -> None:
    """The server's clock is known as an offset from the page's, half a round
    trip off a sample: half milliseconds too (a loaded machine's odd round
    trips). A start time typed on the page's clock still goes as a whole
    number of the server's milliseconds, which is all the server takes."""
    ann = tabs.page("/", **DESKTOP)
    create_big_room(ann)
    at = ann.evaluate("() => new Date(Date.now() + 600_000).toTimeString().slice(0, 8)")
    whole = ann.evaluate("""async (at) => {
      const { createClock } = await import('/js/clock.js');
      const clock = createClock();
      const now = Date.now();
      for (let i = 0; i < 6; i++) clock.sample(now, now - 1, now);  // a 1 ms round trip: offset 0.5
      return Number.isInteger(clock.fromTimeOfDay(at));
    }""", at)
    assert whole
    ann.get_by_label("Start time (your clock)").fill(at)
    ann.get_by_role("button", name="Schedule").click()
    expect(ann.locator(".bigroom .field-when")).to_have_text(re.compile(rf"^The race starts at {at}, in "))
    sent = [json.loads(f)["d"] for f in tabs.sent[ann] if json.loads(f)["t"] == "start"]
    assert len(sent) == 1 and isinstance(sent[0]["at"], int), sent
