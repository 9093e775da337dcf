"""The daily deal in the browser, on a 390 px phone and a desktop: "Today's
deal" in the lobby (each mode, how many played, the time left), Play, the
day's page and Start my game, a won game; back in the lobby the place
("1st of 1") and the streak; a second player's lobby counting the first;
a second attempt refused; then the next day (the servers' clock moved):
the past day with its results and "Play it again", a solo game of its code.
Every frame each page received is scanned for cards and for the day's code
before the day ended (docs/web_client.md, "The daily deal")."""

from __future__ import annotations

import json
import re
import time
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from harness import RedisServer, ServerProcess, Servers, wait_until
from playwright.sync_api import Page, expect
from support.challenge import TestClock
from web_support import play_fast, recorded, resign, set_nickname, stat

from conftest import Tabs, screenshot
from server.klondike.solver import certify
from server.race.daily import day_bounds, day_of
from server.store import keys

pytestmark = pytest.mark.browser

PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True,
         "device_scale_factor": 2, "locale": "en-GB"}
DESKTOP = {"locale": "en-GB"}
CARD = re.compile(r'"[A2-9TJQK][SHDC]"')


#: A winnable deal a mode with a short winning line (the tests play it):
#: pinned, not drawn at random each run, so that every run plays the same
#: games and none can draw forty deals the solver does not certify in time.
#: Found with ``certify`` over ``random.Random(20261207)``'s KL2 numbers
#: (the first D1V one with a line under 110 moves; the shortest D3N of 40).
SHORT_WINS = {"D1V": "KL2-D1V-CPLTLD72L3NJK", "D3N": "KL2-D3N-PTNBE2RI2CYHA"}


def short_win(mode: str) -> tuple[str, list[str]]:
    """``mode``'s pinned deal and its winning line, found by the solver
    within a budget of positions (not of seconds: the same on any machine)."""
    code = SHORT_WINS[mode]
    found = certify(code, seconds=None, nodes=50_000)
    assert found is not None and found.notation is not None, f"{code} is not certified"
    return code, found.notation


@pytest.fixture(scope="module")
def deals(module_redis: RedisServer) -> dict[str, tuple[str, list[str]]]:
    """Today's deals, in the pool before the server opens them (one a mode)."""
    out = {"D1V": short_win("D1V"), "D3N": short_win("D3N")}
    for mode, (code, _) in out.items():
        module_redis.client().sadd(keys.winnable(mode), code)
    return out


@pytest.fixture(scope="module")
def server(module_redis: RedisServer, module_servers: Servers, clock_file: Path,
           deals: dict[str, tuple[str, list[str]]]) -> ServerProcess:
    # the servers' day: an hour into tomorrow (no test hangs on a real midnight)
    tomorrow = day_bounds(day_of(int(time.time() * 1000)))[1]
    clock_file.write_text(str(tomorrow + 3600_000 - int(time.time() * 1000)))
    return module_servers.start(module_redis.url, args=[
        "--msg-burst", "100000", "--msg-rate", "100000", "--clock-offset-file", str(clock_file),
        "--daily-modes", "D1V,D3N", "--proxy-header", "X-Forwarded-For"])


def fits(page: Page) -> None:
    wide = page.evaluate("() => document.documentElement.scrollWidth > document.documentElement.clientWidth")
    assert not wide, "the page is wider than its screen"


def scan(frames: list[str], secret: str, name: str) -> None:
    """No frame names the day's code before its end; none but the page's own
    board and acks names a card (and, once the day is over, the boards a
    spectator of its room is shown)."""
    ended = False
    for raw in frames:
        msg = json.loads(raw)
        d = msg.get("d") or {}
        ended = ended or (msg["t"] == "event" and d.get("kind") == "ended") or (
            msg["t"] == "daily" and any(m.get("code") == secret
                                        for p in d.get("past", []) for m in p["modes"]))
        assert ended or secret not in raw, f"{name} got the code before the day's end: {raw[:200]}"
        if msg["t"] not in ("board", "ack") and not (ended and msg["t"] == "boards"):
            assert not CARD.search(raw), f"{name} got a card in a {msg['t']} frame: {raw[:200]}"


def server_url(page: Page) -> str:
    return re.sub(r"(https?://[^/]+).*", r"\1", page.url)


def api(base: str, path: str) -> dict[str, Any]:
    with urllib.request.urlopen(base + path, timeout=10) as resp:
        return dict(json.loads(resp.read()))


def mode_card(page: Page, name: str):  # type: ignore[no-untyped-def]
    return page.locator(".daily-mode", has_text=name)


def test_the_player_page_after_a_daily_game_tells_the_truth(
        tabs: Tabs, deals: dict[str, tuple[str, list[str]]]) -> None:
    """Issue 25 item 5: after a daily game, the player's page dates it on the
    day it was played (not 1970), says its deal is secret until the day ends,
    and writes "1 game" (not "1 games"); the table said "Daily deal"."""
    code, line = deals["D3N"]
    lou = tabs.page("/", **DESKTOP)
    set_nickname(lou, "lou")
    mode_card(lou, "Draw three · Normal").get_by_role("button", name="Play").click()
    lou.get_by_role("button", name="Start my game").click()
    expect(lou.locator(".race .room-label")).to_have_text("Daily deal · Draw three · Normal")
    play_fast(lou, line)
    pid = lou.evaluate("() => JSON.parse(localStorage.getItem('kr.player')).id")
    recorded(lou, pid, 1)
    lou.goto(f"/p/{pid}")
    game = lou.locator(".p-game").first
    expect(game).to_contain_text("Daily deal")
    expect(game).to_contain_text("deal secret until the day ends")
    stamp = game.locator("time").get_attribute("datetime") or ""
    day = lou.evaluate("async () => (await (await fetch('/api/daily')).json()).day")
    assert stamp[:10] == day, f"dated {stamp}, played on {day}"
    expect(lou.locator(".p-figure").nth(0)).to_have_text(re.compile(r"^\s*1\s*game$"))

    # issue 25 item 4: her game over, her Leaderboard is the ranked page as anyone's
    # (while her game is on it is her table: a racer may not watch her race)
    lou.goto("/")
    own = mode_card(lou, "Draw three · Normal").get_by_role("link", name="Leaderboard")
    expect(own).to_have_attribute("href", re.compile(r"^/r/[A-Z0-9]{8}\?watch$"))
    own.click()
    mine = lou.locator(".screen.watch.ranked")
    expect(mine.get_by_role("heading", name="Today’s deal · Draw three · Normal")).to_be_visible()
    expect(mine.locator(".lb-row", has_text="lou").first).to_be_in_viewport()
    expect(mine.locator(".lb-place.mine .lb-title")).to_have_text("You: 1st of 1")
    # (kim from an address of her own: a new key from lou's address would play for practice)
    kim = tabs.page("/", **DESKTOP, extra_http_headers={"X-Forwarded-For": "198.51.100.41"})
    board = mode_card(kim, "Draw three · Normal").get_by_role("link", name="Leaderboard")
    expect(board).to_have_attribute("href", re.compile(r"^/r/[A-Z0-9]{8}\?watch$"))
    board.click()
    ranked = kim.locator(".screen.watch.ranked")
    expect(ranked.get_by_role("heading", name="Today’s deal · Draw three · Normal")).to_be_visible()
    expect(ranked.locator(".lb-row", has_text="lou")).to_contain_text("pts")
    expect(ranked.locator(".lb-row", has_text="lou")).not_to_contain_text("$")
    expect(ranked.locator(".watch-note")).to_be_hidden()  # no boards, no follow box over empty felt
    side = ranked.locator(".side").bounding_box()
    assert side and side["width"] > 0.6 * 1280, f"the ranking is {side} wide"
    for page in (lou, kim):
        assert code not in "".join(tabs.frames[page])

    # kim plays after lou and resigns: second of two so far, which her page
    # says is not settled until the day ends (a win is counted then, if any)
    kim.goto("/")
    set_nickname(kim, "kim")
    mode_card(kim, "Draw three · Normal").get_by_role("button", name="Play").click()
    kim.get_by_role("button", name="Start my game").click()
    expect(kim.locator(".race .board .card").first).to_be_visible()
    resign(kim)
    kid = kim.evaluate("() => JSON.parse(localStorage.getItem('kr.player')).id")
    kim.goto(f"/p/{kid}")
    expect(kim.locator(".p-game").first.locator(".p-game-outcome")).to_contain_text(
        "2nd of 2 so far (settled when the day ends)")
    # her own line on the day's ranked page, wherever she ranks
    kim.goto("/")
    mode_card(kim, "Draw three · Normal").get_by_role("link", name="Leaderboard").click()
    place = kim.locator(".screen.watch.ranked .lb-place.mine")
    expect(place.locator(".lb-title")).to_have_text("You: 2nd of 2")
    expect(place.locator(".lb-row")).to_contain_text("kim")
    kim_row = kim.locator(".screen.watch.ranked .leaderboard .lb-row", has_text="kim")
    expect(kim_row).to_contain_text("resigned")
    screenshot(kim, "daily-ranked-own-line")
    lou.goto(f"/p/{pid}")
    expect(lou.locator(".p-figure").nth(1)).to_have_text(re.compile(r"^\s*0\s*wins$"))
    assert code not in "".join(tabs.frames[kim])


def test_todays_deal_played_from_the_lobby_on_a_phone_then_the_next_day_played_again(
        tabs: Tabs, clock_file: Path, module_redis: RedisServer,
        deals: dict[str, tuple[str, list[str]]]) -> None:
    code, line = deals["D1V"]
    pia = tabs.page("/", **PHONE)
    daily = pia.locator(".panel.daily")
    expect(daily.get_by_role("heading", name="Today’s deal")).to_be_visible()
    expect(daily.locator(".daily-left")).to_contain_text("left")
    vegas = mode_card(pia, "Draw one · Vegas")
    expect(vegas).to_contain_text("0 played · 0 finished")
    expect(mode_card(pia, "Draw three · Normal")).to_be_visible()
    fits(pia)
    screenshot(pia, "daily-lobby-phone")

    set_nickname(pia, "pia")
    vegas.get_by_role("button", name="Play").tap()
    page = pia.locator(".screen.challenge")
    heading = re.compile("Daily deal of .* · Draw one · Vegas")
    expect(page.get_by_role("heading", name=heading)).to_be_visible()
    expect(page).to_contain_text("one attempt")
    fits(pia)
    pia.get_by_role("button", name="Start my game").tap()
    play_fast(pia, line)
    expect(stat(pia, "Moves")).to_have_text(str(len(line)))

    # back in the lobby: her place and her streak
    pia.goto("/")
    vegas = mode_card(pia, "Draw one · Vegas")
    expect(vegas.locator(".daily-place")).to_have_text(re.compile(r"You: 1st of 1 · finished in \d+:\d\d"))
    expect(pia.locator(".daily-streak")).to_have_text("Your streak: 1 day in a row (best 1)")
    fits(pia)
    screenshot(pia, "daily-played-phone")

    # another player sees her in the counts; pia's second attempt is refused by the server
    kim = tabs.page("/", **DESKTOP)
    expect(mode_card(kim, "Draw one · Vegas")).to_contain_text("1 played · 1 finished")
    expect(kim.locator(".daily-streak")).to_contain_text("none yet")
    pia.evaluate("""() => new Promise((done) => {  // as a second tab would: straight to the server
      const ws = new WebSocket(`ws://${location.host}/ws`, 'klondike-race.v1');
      const key = JSON.parse(localStorage.getItem('kr.player')).key;
      ws.onmessage = (e) => { const m = JSON.parse(e.data);
        if (m.t === 'hello') { ws.send(JSON.stringify({t: 'identify', d: {key}}));
          ws.send(JSON.stringify({t: 'daily_play', d: {mode: 'D1V', nickname: 'pia'}})); }
        if (m.t === 'reject') { window.secondAttempt = m.d.code; ws.close(); done(); } };
    })""")
    assert pia.evaluate("() => window.secondAttempt") == "daily_played"

    # the next day: yesterday's results, its code, and Play it again (alone, unranked)
    clock = TestClock(clock_file)
    today = day_of(int(time.time() * 1000) + clock.offset)
    clock.move(day_bounds(today)[1] + 60_000 - int(time.time() * 1000) - clock.offset)
    for mode in deals:  # the day's end, as the sweepers record it
        wait_until(lambda m=mode: not api(server_url(pia), f"/api/daily/{today}/{m}")["open"],
                   timeout=30, what=f"the end of {today}'s {mode}")
    pia.goto("/")
    past = pia.locator(".daily-past-days")
    expect(past).to_be_visible(timeout=20_000)
    past.locator("summary").tap()
    again = past.locator(".daily-past-mode", has_text="Draw one · Vegas").get_by_role(
        "button", name="Play it again")
    expect(again).to_be_visible(timeout=20_000)
    fits(pia)
    screenshot(pia, "daily-past-phone")
    # its results, watched from the desktop: the field and the code
    kim.goto("/")
    kim_past = kim.locator(".daily-past-days")
    kim_past.locator("summary").click()
    kim_past.get_by_role("link", name="Draw one · Vegas").click()
    expect(kim.locator(".results-code")).to_have_text(code)
    expect(kim.locator(".results-table")).to_contain_text("pia")
    again.tap()
    expect(pia.locator(".race .board .card").first).to_be_visible()
    expect(stat(pia, "Moves")).to_have_text("0")
    assert any(code in raw for raw in tabs.frames[pia])

    for p, name in ((pia, "pia"), (kim, "kim")):
        scan(tabs.frames[p], code, name)

