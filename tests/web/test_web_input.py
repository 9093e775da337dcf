"""No input is ever lost: fast taps, taps while a move is unanswered, in order."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from harness import ServerProcess
from playwright.sync_api import Page, expect
from proxy import Proxy
from web_support import pile, poll, slow_motion, start_solo, stat

from conftest import Tabs

pytestmark = pytest.mark.browser

# after four draws the waste shows A♦ on top of 2♦: both go home, one tap each
CODE = "KL1-D1N-AAAAAGC"
PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True,
         "device_scale_factor": 2}
GAP = 150  # ms between two taps: a fast player
APART = 350  # ms between two taps on one pile that are not a double tap (input.js: 300)


@pytest.fixture
def proxy(server: ServerProcess) -> Iterator[Proxy]:
    p = Proxy(server.port).start()
    yield p
    p.close()


def spot(page: Page, name: str) -> tuple[float, float]:
    """Where a finger taps a pile (its top card's place)."""
    box = pile(page, name).bounding_box()
    assert box
    return box["x"] + box["width"] / 2, box["y"] + 20


def taps(page: Page, name: str, n: int, gap: int = GAP) -> None:
    """n touch taps on a pile, ``gap`` ms apart, without waiting for anything in between."""
    x, y = spot(page, name)
    for i in range(n):
        if i:
            page.wait_for_timeout(gap)
        page.touchscreen.tap(x, y)


def test_fast_stock_taps_each_draw_a_card_and_two_waste_taps_each_play_one(tabs: Tabs) -> None:
    page = tabs.page("/", **PHONE)
    start_solo(page, "pia", CODE)
    taps(page, "stock", 4)
    expect(pile(page, "stock")).to_have_attribute("aria-label", "stock, 20 cards")
    expect(pile(page, "w")).to_have_attribute("aria-label", "waste, ace of diamonds on top, 4 cards")

    # A♦ home, then the 2♦ under it (closer together, two taps are a double tap: one card, test_web_taps.py)
    taps(page, "w", 2, gap=APART)
    expect(pile(page, "fd")).to_have_attribute("aria-label", "diamonds foundation, 2 of diamonds")
    expect(stat(page, "Moves")).to_have_text("6")

    taps(page, "stock", 6)
    expect(pile(page, "stock")).to_have_attribute("aria-label", "stock, 14 cards")
    expect(stat(page, "Moves")).to_have_text("12")


def test_taps_made_while_a_move_is_unanswered_are_played_in_order(tabs: Tabs, proxy: Proxy) -> None:
    page = tabs.page(proxy.url + "/")
    start_solo(page, "ann", CODE)
    proxy.pause()  # the first draw is held on its way...
    for _ in range(4):
        pile(page, "stock").click()
    pile(page, "w").click()
    pile(page, "w").click()
    expect(stat(page, "Moves")).to_have_text("0")  # ...and nothing is shown before the server says so
    proxy.resume()
    expect(pile(page, "fd")).to_have_attribute("aria-label", "diamonds foundation, 2 of diamonds")
    expect(stat(page, "Moves")).to_have_text("6")
    poll(page, lambda: len(moves(tabs, page)) == 6, "six moves sent")
    assert moves(tabs, page) == [(1, "draw"), (2, "draw"), (3, "draw"), (4, "draw"), (5, "w>f"), (6, "w>f")]


def moves(tabs: Tabs, page: Page) -> list[tuple[int, str]]:
    out = []
    for raw in tabs.sent[page]:
        frame = json.loads(raw)
        if frame.get("t") == "move":
            out.append((frame["d"]["s"], frame["d"]["m"]))
    return out


def test_a_tap_on_the_stock_while_the_card_drawn_before_slides_off_it_draws_again(tabs: Tabs) -> None:
    """A drawn card slides from the stock to the waste; a tap on the stock
    meanwhile is a tap on the stock, not on that card (which is the waste's).
    A slow phone, or a slow answer, starts the slide just as the next tap
    comes: here the page's animations are slowed down until it surely does."""
    page = tabs.page("/", **PHONE)
    start_solo(page, "pia", CODE)
    slow_motion(page)  # a slide of 240 ms lasts four minutes
    x, y = spot(page, "stock")
    page.touchscreen.tap(x, y)
    expect(page.locator('.race .pile[data-pile="w"] .card.moving')).to_have_count(1)  # over the stock still
    page.touchscreen.tap(x, y)
    expect(pile(page, "stock")).to_have_attribute("aria-label", "stock, 22 cards")
    expect(stat(page, "Moves")).to_have_text("2")
