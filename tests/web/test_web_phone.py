"""A phone: touch taps, a double tap, a touch drag, a long press, and turning the phone."""

from __future__ import annotations

import pytest
from conftest import Tabs, screenshot
from playwright.sync_api import CDPSession, Page, expect
from web_support import card, one_line, pile, settle, start_solo, stat, table

pytestmark = pytest.mark.browser

CODE = "KL1-D1N-AAAAADF"  # t4 top (A♠) goes home; t5 top (8♦) fits on t1 and on t3
PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True,
         "device_scale_factor": 2}


def centre(page: Page, selector: str) -> tuple[float, float]:
    box = page.locator(selector).bounding_box()
    assert box
    return box["x"] + box["width"] / 2, box["y"] + min(box["height"] / 2, 14)


def touch(cdp: CDPSession, kind: str, x: float | None = None, y: float | None = None) -> None:
    points = [] if x is None else [{"x": x, "y": y}]
    cdp.send("Input.dispatchTouchEvent", {"type": kind, "touchPoints": points})


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
    page = tabs.page("/", **PHONE)
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

    # a message covers neither the buttons nor the leaderboard
    page.locator(".controls").get_by_role("button", name="Hint").tap()
    toast = page.locator(".toast", has_text="Hint")
    expect(toast).to_be_visible()
    for el in [*page.locator(".race .controls .btn:visible").all(), page.locator(".race .leaderboard")]:
        assert apart(toast.bounding_box(), el.bounding_box()), el.inner_text()

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
