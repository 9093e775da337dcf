"""A challenge in the browser: created from the lobby's form with its
window, shared by its link, played by a phone (390 px) and a desktop at
different times, each beside the ghost lines of those who played before
(a scripted player, cards home second by second of their own game), and
closed by moving the servers' clock: the results, the code and the
replays. Every frame each page received is scanned for cards and for the
code (docs/web_client.md, "Challenges")."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from crowd import Crowd
from harness import RedisServer, ServerProcess, Servers, load_wins
from playwright.sync_api import Page, expect
from support.challenge import Played, TestClock, foundations_at, play_tracked
from support.race import Racer, seen_or_next
from web_support import play_fast, set_nickname, stat

from conftest import Tabs, screenshot
from server.klondike import Game

pytestmark = pytest.mark.browser

CODE = "KL1-D1V-ABYI5NK"
SCRIPT = next(w["script"] for w in load_wins() if w["code"] == CODE)
PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True,
         "device_scale_factor": 2, "locale": "en-GB"}
DESKTOP = {"locale": "en-GB"}
CARD = re.compile(r'"[A2-9TJQK][SHDC]"')
DAY = 86400


@pytest.fixture(scope="module")
def server(redis_server: RedisServer, module_servers: Servers,
           clock_file: Path) -> ServerProcess:
    return module_servers.start(redis_server.url, args=["--msg-burst", "100000", "--msg-rate", "100000",
                                                        "--clock-offset-file", str(clock_file)])


def fits(page: Page) -> None:
    """Nothing sticks out sideways."""
    wide = page.evaluate("() => document.documentElement.scrollWidth > document.documentElement.clientWidth")
    assert not wide, "the page is wider than its screen"


# the ghost lines as the page shows them, and the moment of the own clock they are of
GHOSTS_JS = """() => ({
  note: document.querySelector('.race .ghost-note').textContent,
  rows: [...document.querySelectorAll('.race .ghost-row')].map((r) => ({
    name: r.querySelector('.ghost-name').textContent, cards: r.querySelector('.ghost-cards').textContent,
    money: r.querySelector('.ghost-money').textContent, status: r.querySelector('.ghost-status').textContent,
    me: r.classList.contains('me') })) })"""


def ghost_rows(page: Page) -> tuple[int, list[dict[str, object]]]:
    """The second of the own clock the ghost lines show, and the lines."""
    shown = page.evaluate(GHOSTS_JS)
    m = re.search(r"at (\d+):(\d\d)", shown["note"])
    assert m, shown
    return int(m[1]) * 60 + int(m[2]), shown["rows"]


def scan(frames: list[str], name: str) -> None:
    """No frame names the code before the close; no ghosts frame and no
    frame but the page's own board and acks names a card (and, once closed,
    the boards a spectator is shown)."""
    ended = False
    for raw in frames:
        msg = json.loads(raw)
        d = msg.get("d") or {}
        ended = ended or (msg["t"] == "event" and d["kind"] == "ended") or (
            msg["t"] == "sync" and d["room"]["phase"] == "ended")
        assert ended or CODE not in raw, f"{name} got the code before the close: {raw[:200]}"
        if msg["t"] not in ("board", "ack") and not (ended and msg["t"] == "boards"):
            assert not CARD.search(raw), f"{name} got a card in a {msg['t']} frame: {raw[:200]}"


def create_challenge(page: Page) -> str:
    set_nickname(page, "ann")
    form = page.locator("form.create")
    form.get_by_label("A code").check()
    form.get_by_label("Deal code").fill(CODE)
    form.get_by_label("A challenge: each plays when they like, for").check()
    form.get_by_label("Open for").select_option(str(DAY))
    expect(form.get_by_label("Live", exact=True)).to_be_disabled()  # boards after the close
    form.get_by_role("button", name="Create the challenge").click()
    link = page.get_by_label("Room link", exact=True)
    expect(link).to_have_value(re.compile(r"/r/[A-Z0-9]{8}$"))
    return link.input_value()


def test_a_challenge_created_shared_and_played_with_ghosts_on_a_phone_and_a_desktop(
        tabs: Tabs, crowd: Crowd, clock_file: Path) -> None:
    clock = TestClock(clock_file)
    ann = tabs.page("/", **DESKTOP)
    link = create_challenge(ann)
    room = link[-8:]
    page = ann.locator(".screen.challenge")
    expect(page.get_by_role("heading", name=f"Challenge {room}")).to_be_visible()
    expect(page.locator(".challenge-open")).to_contain_text("left")
    expect(page.locator(".room-settings")).to_contain_text("A challenge open 1 day")
    expect(page.locator(".lb-row")).to_have_text(re.compile("ann \\(you\\).*not started yet"))
    screenshot(ann, "challenge-page")

    # a scripted player wins first, two seconds of their own clock per card put home
    c1, = crowd.join(room, ["c1"])
    c1_played = Played(Racer(c1, CODE))

    async def first_game() -> None:
        await c1.send("start")
        await c1.expect("board")
        began = await seen_or_next(c1, "event", lambda d: d["kind"] == "began")
        c1_played.started = began["started"]
        await play_tracked(c1_played, SCRIPT, clock, step_ms=2000)

    crowd.run(first_game(), timeout=120)
    expect(page.locator(".lb-row", has_text="c1")).to_contain_text("finished")

    # pia opens the shared link on her phone, joins and begins
    pia = tabs.page(link, **PHONE)
    set_nickname(pia, "pia")
    pia.get_by_role("button", name="Join the race").tap()
    expect(pia.get_by_role("button", name="Start my game")).to_be_visible()
    expect(pia.locator(".lb-row", has_text="c1")).to_contain_text("finished")
    fits(pia)
    screenshot(pia, "challenge-page-phone")
    pia.get_by_role("button", name="Start my game").tap()
    expect(pia.locator(".race .board .card").first).to_be_visible()
    ghosts = pia.locator(".race .ghosts")
    expect(ghosts).to_be_visible()
    expect(ghosts.locator(".ghost-row", has_text="c1")).to_be_visible()
    expect(ghosts.locator(".ghost-row.me")).to_contain_text("You")
    second, rows = ghost_rows(pia)
    c1_row = next(r for r in rows if r["name"] == "c1")
    assert int(str(c1_row["cards"]).split("/")[0]) in foundations_at(c1_played, second), (second, rows)
    # her clock runs: the ghost moves with it, where c1 was at that moment of his game
    clock.move(40_000)
    # the page learns the servers' new time at its next clock sample (a ping every 10 s)
    expect(ghosts.locator(".ghost-note")).not_to_contain_text("at 0:0", timeout=30_000)
    second, rows = ghost_rows(pia)
    c1_row = next(r for r in rows if r["name"] == "c1")
    assert second >= 40 and int(str(c1_row["cards"]).split("/")[0]) in foundations_at(c1_played, second)
    assert int(str(c1_row["cards"]).split("/")[0]) > 0
    play_fast(pia, SCRIPT[:6])
    expect(ghosts.locator(".ghost-row.me .ghost-cards")).to_have_text(f"{_foundation(SCRIPT[:6])}/52")
    fits(pia)
    screenshot(pia, "challenge-phone")

    # ann, on her desktop, begins later: c1 is a ghost; pia is still playing
    ann.get_by_role("button", name="Start my game").click()
    expect(ann.locator(".race .board .card").first).to_be_visible()
    expect(ann.locator(".race .room-label")).to_have_text(f"Challenge {room} · Draw one · Vegas")
    ann_ghosts = ann.locator(".race .ghosts")
    expect(ann_ghosts.locator(".ghost-row", has_text="c1")).to_be_visible()
    expect(ann_ghosts.locator(".ghost-row", has_text="pia")).to_have_count(0)
    play_fast(ann, SCRIPT[:3])
    expect(stat(ann, "Moves")).to_have_text("3")
    screenshot(ann, "challenge-race")

    # the window closes: everyone's results, the code, every replay
    clock.move(DAY * 1000)
    for p in (ann, pia):
        expect(p.locator(".results")).to_be_visible(timeout=20_000)
        expect(p.locator(".results-code")).to_have_text(CODE)
    dan = tabs.page(link, **DESKTOP)
    expect(dan.locator(".screen.lobby")).to_be_visible()
    set_nickname(dan, "dan")
    dan.get_by_role("button", name="Join the race").click()
    # the refusal's reason code in the page's words (docs/web_client.md, "Languages")
    expect(dan.locator(".panel.nick .form-error")).to_contain_text("This challenge has closed")
    dan.get_by_role("button", name="Watch").click()
    expect(dan.locator(".screen.watch")).to_be_visible()
    ann.locator(".results").get_by_role("button", name="View the board").click()
    replays = ann.locator(".race .replays")
    expect(replays).to_be_visible()
    replays.get_by_role("button", name="c1").click()
    viewer = ann.locator(".replay")
    expect(viewer.locator(".replay-step")).to_contain_text(f"Step 0 of {len(SCRIPT)}")
    viewer.get_by_role("button", name="Last step").click()
    expect(viewer.locator(".replay-step")).to_contain_text("52/52 cards")
    viewer.get_by_role("button", name="Close").click()

    for p, name in ((ann, "ann"), (pia, "pia"), (dan, "dan")):
        scan(tabs.frames[p], name)
    assert any(json.loads(f)["t"] == "ghosts" for f in tabs.frames[pia])


def _foundation(moves: list[str]) -> int:
    game = Game(CODE)
    for m in moves:
        game.push(m)
    return game.foundation_cards
