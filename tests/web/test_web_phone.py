"""A phone: touch taps, a double tap, a touch drag, a long press, and turning the phone; a race of
three: the own line, the stock under the thumb, messages, and results that fit."""

from __future__ import annotations

import re

import pytest
from crowd import Crowd
from playwright.sync_api import Page, expect
from web_support import (
    card,
    centre,
    create_room,
    hold_clock,
    one_line,
    pile,
    run_clock_until,
    settle,
    start_solo,
    stat,
    table,
    touch,
)

from conftest import Tabs, screenshot

pytestmark = pytest.mark.browser

CODE = "KL1-D1N-AAAAADF"  # t4 top (A♠) goes home; t5 top (8♦) fits on t1 and on t3
PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True,
         "device_scale_factor": 2}


def fits(page: Page) -> None:
    """Nothing sticks out sideways, and all seven columns are on screen."""
    width = page.viewport_size["width"]
    assert page.evaluate("() => document.documentElement.scrollWidth") <= width
    for n in range(1, 8):
        box = pile(page, f"t{n}").bounding_box()
        assert box and box["x"] >= 0 and box["x"] + box["width"] <= width


def apart(a: dict[str, float] | None, b: dict[str, float] | None) -> bool:
    assert a and b
    return (a["x"] + a["width"] <= b["x"] or b["x"] + b["width"] <= a["x"]
            or a["y"] + a["height"] <= b["y"] or b["y"] + b["height"] <= a["y"])


def test_phone_play_by_touch_and_rotation(tabs: Tabs) -> None:
    page = tabs.page("/", clock=True, **PHONE)
    assert page.evaluate("() => document.documentElement.scrollWidth") <= 390
    start_solo(page, "pia", CODE)
    fits(page)
    card_width = card(page, "AS").bounding_box()["width"]
    assert card_width >= 40
    rank_size = page.evaluate("async (w) => (await import('/js/faces.js')).INDEX_EM * w", card_width)
    assert rank_size >= 12  # the index's letters, in CSS pixels
    expect(page.locator(".race .lb-row")).to_have_count(1)
    # the top bar and the figures each on one line at 390 px
    one_line(page, ".race .topbar")
    one_line(page, ".race .statusbar")
    assert page.locator(".race .topbar").bounding_box()["height"] <= 52

    card(page, "AS").tap()  # a tap: home
    expect(pile(page, "fs").locator('[data-card="AS"]')).to_be_visible()
    card(page, "8D").tap()
    card(page, "8D").tap()  # a double tap: the longest column that takes it
    expect(pile(page, "t3").locator('[data-card="8D"]')).to_be_visible()
    expect(stat(page, "Moves")).to_have_text("2")

    # a touch drag of the A♦ onto the 2♣ of column 6 (a tap would send it home)
    settle(page)
    cdp = page.context.new_cdp_session(page)
    x, y = centre(page, '.race [data-card="AD"]')
    tx, ty = centre(page, '.race [data-card="2C"]')
    touch(cdp, "touchStart", x, y)
    for i in range(1, 7):
        touch(cdp, "touchMove", x + (tx - x) * i / 6, y + (ty - y) * i / 6 + 20)
    touch(cdp, "touchEnd")
    expect(pile(page, "t6").locator('[data-card="AD"]')).to_be_visible()
    expect(stat(page, "Moves")).to_have_text("3")

    # a long press on the 9♣ opens the chooser with the 9♣ and the 8♦ on it
    settle(page)
    x, y = centre(page, '.race [data-card="9C"]')
    touch(cdp, "touchStart", x, y)
    chooser = page.get_by_role("dialog", name="Column 3: move 2 cards from 9♣")
    expect(chooser).to_be_visible()
    touch(cdp, "touchEnd")
    expect(chooser.locator(".seq-keys")).to_be_hidden()  # no keyboard tips on a touch screen
    chooser.get_by_role("button", name="▼ Fewer").tap()
    expect(page.get_by_role("dialog", name="Column 3: move 1 card from 8♦")).to_be_visible()
    page.get_by_role("button", name="Take").tap()
    expect(pile(page, "t1")).to_have_class("pile column target")
    pile(page, "t1").tap()
    expect(pile(page, "t1").locator('[data-card="8D"]')).to_be_visible()
    expect(stat(page, "Moves")).to_have_text("4")
    settle(page)
    screenshot(page, "phone")

    # a message covers neither the buttons nor the leaderboard (the page's
    # clock held: the message stays while the test measures it; the clock
    # moves a frame at a time until the hint shows)
    hold_clock(page)
    page.locator(".controls").get_by_role("button", name="Hint").tap()
    toast = page.locator(".toast", has_text="Hint")
    run_clock_until(page, lambda: toast.count() > 0, most_ms=60_000)
    expect(toast).to_be_visible()
    for el in [*page.locator(".race .controls .btn:visible").all(), page.locator(".race .leaderboard")]:
        assert apart(toast.bounding_box(), el.bounding_box()), el.inner_text()
    page.clock.resume()

    # turning the phone keeps the game
    before = table(page)
    page.set_viewport_size({"width": 844, "height": 390})
    expect(pile(page, "t1").locator('[data-card="8D"]')).to_be_visible()
    fits(page)
    assert table(page) == before
    expect(stat(page, "Moves")).to_have_text("4")
    page.set_viewport_size({"width": 390, "height": 844})
    fits(page)
    assert table(page) == before


RACE = "KL1-D1N-AAAAAAA"  # A♥ tops column 7: one move home puts a player ahead


def inside(inner: dict[str, float] | None, outer: dict[str, float] | None) -> bool:
    assert inner and outer
    return (inner["x"] >= outer["x"] - 1 and inner["y"] >= outer["y"] - 1
            and inner["x"] + inner["width"] <= outer["x"] + outer["width"] + 1
            and inner["y"] + inner["height"] <= outer["y"] + outer["height"] + 1)


def test_a_race_of_three_on_a_phone_keeps_the_own_line_the_stock_and_the_results_in_reach(
        tabs: Tabs, crowd: Crowd) -> None:
    page = tabs.page("/", clock=True, **PHONE)
    link = create_room(page, "pia", code=RACE)
    others = crowd.join(link[-8:], ["bob", "cat"])
    crowd.ready(others)
    page.get_by_role("button", name="Start the race").click()
    expect(page.locator(".race .board .card").first).to_be_visible(timeout=15_000)
    crowd.boards(others)
    crowd.play([(others[0], ["t7>f"]), (others[1], ["t7>f"])]).result(20)  # both ahead of pia
    mine = page.locator(".race .lb-row.me")
    expect(mine.locator(".lb-rank")).to_have_text("3")
    expect(page.locator(".race .lb-row")).to_have_count(3)
    screen = {"x": 0, "y": 0, "width": 390, "height": 844}
    side = page.locator(".race .side").bounding_box()
    for row in page.locator(".race .lb-row").all():  # the whole leaderboard in sight, pia's line too
        assert inside(row.bounding_box(), screen) and inside(row.bounding_box(), side), row.inner_text()
    one_line(page, ".race .lb-row.me")

    # the stock under the right thumb: a draw button low on the right; left-handed, low on the left
    pad = page.locator(".race .controls .draw-pad")
    box = pad.bounding_box()
    assert box and box["y"] > 844 * 0.6 and box["x"] > 390 / 2, box
    assert box["height"] >= 44 and box["width"] >= 44
    pad.tap()
    expect(stat(page, "Moves")).to_have_text("1")
    expect(pile(page, "stock")).to_have_attribute("aria-label", "stock, 23 cards")
    expect(pad).to_have_accessible_name("Draw: stock, 23 cards")
    hand = page.locator(".race .controls").get_by_role("button", name="Left-handed")
    hand.tap()
    expect(hand).to_have_attribute("aria-pressed", "true")
    box = pad.bounding_box()
    assert box and box["y"] > 844 * 0.6 and box["x"] + box["width"] < 390 / 2, box
    page.reload()  # remembered
    expect(stat(page, "Moves")).to_have_text("1")
    box = pad.bounding_box()
    assert box and box["x"] + box["width"] < 390 / 2, box

    # a message covers neither the figures and the top bar, nor the buttons, nor the leaderboard
    # (the page's clock held: it stays while the test measures it)
    hold_clock(page)
    page.locator(".controls").get_by_role("button", name="Hint").tap()
    toast = page.locator(".toast", has_text="Hint")
    run_clock_until(page, lambda: toast.count() > 0, most_ms=60_000)
    expect(toast).to_be_visible()
    covered = [page.locator(".race .topbar"), page.locator(".race .statusbar"),
               page.locator(".race .leaderboard"), *page.locator(".race .controls .btn:visible").all()]
    for el in covered:
        assert apart(toast.bounding_box(), el.bounding_box()), el.inner_text()
    page.clock.resume()

    # the results: rank, player, result and score on the screen; the rest on demand, under each name
    crowd.resign(others)
    page.locator(".controls").get_by_role("button", name="Resign").tap()
    page.locator(".controls").get_by_role("button", name="Really resign?").tap()
    results = page.get_by_role("dialog", name="You placed 3rd of 3")
    expect(results).to_be_visible()
    table = results.locator(".results-table")
    expect(table).to_have_class(re.compile(r"\bfolded\b"))
    assert table.evaluate("(el) => el.parentElement.scrollWidth <= el.parentElement.clientWidth")
    expect(table.locator("thead th:visible")).to_have_text(["#", "Player", "Result", "Score"])
    more = results.get_by_role("button", name="Cards, moves, passes")
    more.tap()
    expect(more).to_have_attribute("aria-pressed", "true")
    bob = table.locator("tbody tr", has_text="bob").locator("td.name")
    under = bob.evaluate("(el) => getComputedStyle(el, '::after').content")
    assert under == '"1/52 cards · 1 move · 0 passes"'
    assert table.evaluate("(el) => el.parentElement.scrollWidth <= el.parentElement.clientWidth")
    screenshot(page, "phone-results")


def test_a_spectators_enlarged_board_on_a_phone_is_twice_the_small_ones(tabs: Tabs, crowd: Crowd) -> None:
    host = crowd.open("ann")
    joined = crowd.run(host.create("ann", code=RACE, boards="live"))  # the host lets spectators see
    bob = crowd.join(joined["room"], ["bob"])[0]
    crowd.ready([bob])
    page = tabs.page(f"/r/{joined['room']}?watch", **PHONE)
    expect(page.locator(".watch .lb-row")).to_have_count(2)
    crowd.ask(host, "start", {}, "event")
    crowd.boards([host, bob])
    crowd.play([(host, ["draw"]), (bob, ["draw"])]).result(20)
    tiles = page.locator(".watch .tile")
    expect(tiles).to_have_count(2)
    small = tiles.first.locator(".card").first.bounding_box()
    tiles.first.tap()
    expect(page.locator(".watch .tile.big")).to_have_count(1)
    settle(page)
    big = page.locator(".watch .tile.big .card").first.bounding_box()
    assert small and big and big["width"] >= 1.8 * small["width"], (small, big)
    assert page.evaluate("() => document.documentElement.scrollWidth") <= 390
    screenshot(page, "phone-spectator-enlarged")


def test_the_phone_top_bar_shows_the_mode_and_a_hint_speaks_of_taps_and_goes_with_undo(tabs: Tabs) -> None:
    """Issue 25 item 8: on a 390 px phone the top bar shows the deal's mode
    whole and cuts a long code with an ellipsis; the hint's message names no
    key on a touch screen, and an undo takes it back (the page's clock held:
    the message would not go by itself meanwhile)."""
    page = tabs.page("/", clock=True, **PHONE)
    start_solo(page, "pia", CODE)
    mode = page.locator(".race .topbar .room-mode")
    expect(mode).to_have_text("Draw 1 · Normal")
    info = page.locator(".race .topbar .room-info").bounding_box()
    box = mode.bounding_box()
    assert info and box and box["x"] + box["width"] <= info["x"] + info["width"], "the mode is cut"
    code = page.locator(".race .topbar .room-code")
    expect(code).to_have_text(CODE)
    assert code.evaluate("""(el) => { const s = getComputedStyle(el);
      return s.textOverflow === 'ellipsis' && s.overflow === 'hidden'; }""")
    cut = code.bounding_box()
    assert cut and cut["width"] >= 20 and cut["x"] + cut["width"] <= info["x"] + info["width"] + 0.5, (
        "the code is cut by the bar, not by its own ellipsis")
    one_line(page, ".race .topbar")

    card(page, "AS").tap()  # a move, for the undo
    expect(stat(page, "Moves")).to_have_text("1")
    hold_clock(page)
    page.locator(".race .controls").get_by_role("button", name="Hint").tap()
    said = page.locator(".race .toast", has_text="Hint:")
    run_clock_until(page, lambda: said.count() > 0, most_ms=60_000)
    expect(said).to_contain_text("tap Hint again to play it")
    expect(said).not_to_contain_text("H again")
    page.locator(".race .controls").get_by_role("button", name="Undo").tap()
    moves = stat(page, "Moves")
    moved = run_clock_until(page, lambda: moves.inner_text() == "0", step_ms=8, most_ms=60_000)
    assert moved < 3_000, f"{moved} ms of the page's clock: the message's own end came first"
    expect(said).to_have_count(0)  # the undo took it back: its own 3 s had not passed
