"""Every tap means what the player meant (issue 19): a double click or a
double tap sends one card where it goes best and leaves nothing picked up; a
tap is judged against the board the player saw, not against a card in
flight; a card with no legal move shakes instead of being picked up. Each
case on a desktop (a mouse) and on a touch phone."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Locator, Page, expect
from web_support import card, pile, settle, slow_motion, start_solo, stat

from conftest import Tabs

pytestmark = pytest.mark.browser

CODE = "KL1-D1N-AAAAAAA"  # A♥ tops column 7 (8♥ under it, no move); 3♦'s one move is onto 4♣; 8♣ has none
DRAWN = "KL1-D1N-AAAAAGC"  # after four draws the waste shows A♦ on 2♦: both go home
PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True,
         "device_scale_factor": 2}
DESKTOP = {"viewport": {"width": 1366, "height": 800}}
DEVICES = {"desktop": DESKTOP, "phone": PHONE}
DOUBLE = 300  # ms: two taps on a pile further apart than this are two taps (input.js)
FRAMES_JS = "() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))"


def spot(target: Locator) -> tuple[float, float]:
    """Where a finger or the mouse presses a card or a pile: near its top."""
    box = target.bounding_box()
    assert box
    return box["x"] + box["width"] / 2, box["y"] + min(14, box["height"] / 2)


def tap(page: Page, device: str, target: Locator) -> None:
    x, y = spot(target)
    if device == "phone":
        page.touchscreen.tap(x, y)
    else:
        page.mouse.click(x, y)


def double(page: Page, device: str, target: Locator) -> None:
    """A double click, or two taps of a finger in quick succession."""
    x, y = spot(target)
    if device == "phone":
        page.touchscreen.tap(x, y)
        page.touchscreen.tap(x, y)
    else:
        page.mouse.dblclick(x, y)


def drawn(page: Page) -> None:
    """Wait until the page has drawn twice: what the last input did is on screen."""
    page.evaluate(FRAMES_JS)


def pause(page: Page) -> None:
    """The page's clock stands still (timers and animation frames with it) until the test moves it."""
    page.clock.install()
    page.clock.pause_at(page.evaluate("() => Date.now()") + 1000)


def run_until(page: Page, shown: Locator, step: int = 2, most: int = 100) -> int:
    """Move the page's clock ``step`` ms at a time until ``shown`` is drawn (the
    server's answer comes in its own time); how many ms it moved."""
    moved = 0
    while not shown.count() and moved < most:
        page.wait_for_timeout(20)
        page.clock.run_for(step)
        moved += step
    return moved


def drawn_four(tabs: Tabs, device: str) -> Page:
    """A game of DRAWN after four draws: the A♦ on the waste, the 2♦ under it."""
    page = solo(tabs, device, DRAWN)
    for n in range(1, 5):
        tap(page, device, pile(page, "stock"))
        expect(stat(page, "Moves")).to_have_text(str(n))
    settle(page)
    return page


def solo(tabs: Tabs, device: str, code: str) -> Page:
    page = tabs.page("/", **DEVICES[device])
    start_solo(page, "pia", code)
    settle(page)
    return page


@pytest.mark.parametrize("device", ["desktop", "phone"])
def test_a_double_click_sends_a_card_home_leaves_nothing_picked_up_and_the_next_tap_plays(
        tabs: Tabs, device: str) -> None:
    page = solo(tabs, device, CODE)
    double(page, device, card(page, "AH"))
    expect(pile(page, "fh").locator('[data-card="AH"]')).to_be_visible()
    expect(stat(page, "Moves")).to_have_text("1")
    drawn(page)
    expect(page.locator(".race .card.picked")).to_have_count(0)  # not the 8♥ turned up under it
    expect(pile(page, "t7")).not_to_have_attribute("aria-label", re.compile("picked up"))
    settle(page)
    tap(page, device, card(page, "3D"))  # its one move: onto the 4♣
    expect(pile(page, "t5").locator('[data-card="3D"]')).to_be_visible()
    expect(stat(page, "Moves")).to_have_text("2")
    drawn(page)
    expect(page.locator(".race .card.picked")).to_have_count(0)


@pytest.mark.parametrize("device", ["desktop", "phone"])
def test_a_double_tap_on_the_waste_plays_one_card_and_a_tap_after_it_the_next(
        tabs: Tabs, device: str) -> None:
    page = drawn_four(tabs, device)
    # the page draws nothing between the two taps (its clock stands still): both touch the A♦
    # (a second tap on the 2♦ drawn in between would be a tap of its own: the next test)
    pause(page)
    double(page, device, pile(page, "w"))
    run_until(page, pile(page, "fd").locator('[data-card="AD"]'))
    page.clock.resume()
    expect(pile(page, "fd")).to_have_attribute("aria-label", "diamonds foundation, ace of diamonds")
    expect(stat(page, "Moves")).to_have_text("5")
    drawn(page)
    expect(pile(page, "w")).to_have_attribute("aria-label", "waste, 2 of diamonds on top, 3 cards")
    expect(page.locator(".race .card.picked")).to_have_count(0)
    page.wait_for_timeout(DOUBLE + 50)  # a tap of its own, not the end of a double tap
    tap(page, device, pile(page, "w"))
    expect(pile(page, "fd")).to_have_attribute("aria-label", "diamonds foundation, 2 of diamonds")
    expect(stat(page, "Moves")).to_have_text("6")


@pytest.mark.parametrize("device", ["desktop", "phone"])
def test_a_tap_on_the_stock_while_the_card_drawn_flies_off_it_draws_again(tabs: Tabs, device: str) -> None:
    """The drawn card slides from the stock to the waste; a tap on the stock
    meanwhile (within ~30 ms of the draw on a fast machine: here the
    animations are slowed until it surely is) draws, and picks up nothing."""
    page = solo(tabs, device, CODE)
    slow_motion(page)
    tap(page, device, pile(page, "stock"))
    flying = page.locator('.race .pile[data-pile="w"] .card.moving')
    expect(flying).to_have_count(1)  # still over the stock
    tap(page, device, pile(page, "stock"))
    expect(pile(page, "stock")).to_have_attribute("aria-label", "stock, 22 cards")
    expect(stat(page, "Moves")).to_have_text("2")
    drawn(page)
    expect(page.locator(".race .card.picked")).to_have_count(0)


@pytest.mark.parametrize("device", ["desktop", "phone"])
def test_a_card_with_no_legal_move_shakes_and_is_not_picked_up(tabs: Tabs, device: str) -> None:
    page = solo(tabs, device, CODE)
    slow_motion(page)  # the shake lasts while the test looks at it
    eight = card(page, "8C")
    tap(page, device, eight)
    expect(eight).to_have_class("card refused")
    shaking = eight.evaluate("""(el) => el.getAnimations().some((a) =>
      a.effect.getKeyframes().some((k) => k.translate && k.translate !== '0px 0px'))""")
    assert shaking, "the card does not shake"
    expect(page.locator(".race .card.picked")).to_have_count(0)
    expect(pile(page, "t1")).to_have_attribute("aria-label", "column 1, 8 of clubs on top")
    # a card that can move moves, and the refusal is forgotten
    tap(page, device, card(page, "3D"))
    expect(pile(page, "t5").locator('[data-card="3D"]')).to_be_visible()
    expect(eight).to_have_class("card")


@pytest.mark.parametrize("device", ["desktop", "phone"])
def test_two_single_taps_on_the_waste_150_ms_apart_play_the_two_cards_shown(tabs: Tabs, device: str) -> None:
    """A♦ on the waste, 2♦ under it: a tap sends the A♦ home; the 2♦ shows;
    a second tap 150 ms after the first (inside a double tap's 300 ms) is
    for the 2♦ the player saw, and sends it home too (issue 25 item 2). The
    page's clock stands still between the taps but for 150 ms moved by the test."""
    page = drawn_four(tabs, device)
    pause(page)
    tap(page, device, pile(page, "w"))
    moved = run_until(page, pile(page, "fd").locator('[data-card="AD"]'))
    expect(pile(page, "w")).to_have_attribute("aria-label", "waste, 2 of diamonds on top, 3 cards")
    page.clock.run_for(150 - moved)
    tap(page, device, pile(page, "w"))
    run_until(page, pile(page, "fd").locator('[data-card="2D"]'))
    expect(pile(page, "fd")).to_have_attribute("aria-label", "diamonds foundation, 2 of diamonds")
    expect(stat(page, "Moves")).to_have_text("6")
