"""Every control of the table acts on the pointer-up of a tap that began on
it, whatever came before (issue 25 item 1): on a touch phone, a card dragged
and, 300 ms after the finger left the glass, a tap on Undo, Draw, Hint, New
deal, Resign, the other hand's side, Keys and the help and rules buttons —
each acts once. A tap that began elsewhere and ended on a control does
nothing; a control pressed with the mouse acts once."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import CDPSession, Page, expect
from web_support import card, centre, hold_clock, pile, settle, start_solo, stat, touch

from conftest import Tabs

pytestmark = pytest.mark.browser

CODE = "KL1-D1N-AAAAADF"  # A♠ home and 8♦ onto a column turn up the A♦, which fits on the 2♣ of column 6
PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True,
         "device_scale_factor": 2}
AFTER_DRAG = 300  # ms between the finger leaving the dragged card and the tap on a control


def touch_drag(page: Page, cdp: CDPSession, source: str, target: str) -> None:
    """A finger drags ``source`` onto ``target`` (CSS selectors)."""
    settle(page)
    x, y = centre(page, source)
    tx, ty = centre(page, target)
    touch(cdp, "touchStart", x, y)
    for i in range(1, 7):
        touch(cdp, "touchMove", x + (tx - x) * i / 6, y + (ty - y) * i / 6 + 20)
    touch(cdp, "touchEnd")


def finger_tap(page: Page, cdp: CDPSession, selector: str) -> None:
    x, y = centre(page, selector)
    touch(cdp, "touchStart", x, y)
    touch(cdp, "touchEnd")


def dragged(tabs: Tabs) -> tuple[Page, CDPSession]:
    """A phone's solo game where the A♦ has just been dragged onto the 2♣, the
    finger gone from the glass 300 ms ago."""
    page = tabs.page("/", clock=True, **PHONE)
    start_solo(page, "pia", CODE)
    cdp = page.context.new_cdp_session(page)
    finger_tap(page, cdp, '.race [data-card="AS"]')  # home
    expect(stat(page, "Moves")).to_have_text("1")
    settle(page)
    # a double tap: onto a column, and the A♦ turns up; the page's clock held
    # between the taps, so that a busy machine never draws them 300 ms apart
    hold_clock(page)
    finger_tap(page, cdp, '.race [data-card="8D"]')
    finger_tap(page, cdp, '.race [data-card="8D"]')
    page.clock.resume()
    expect(stat(page, "Moves")).to_have_text("2")
    touch_drag(page, cdp, '.race [data-card="AD"]', '.race [data-card="2C"]')
    expect(pile(page, "t6").locator('[data-card="AD"]')).to_be_visible()
    expect(stat(page, "Moves")).to_have_text("3")
    page.wait_for_timeout(AFTER_DRAG)  # the player's pause, not a wait for the page
    return page, cdp


CONTROLS = {
    "undo": ".race .controls button:has-text('Undo')",
    "draw": ".race .draw-pad",
    "hint": ".race .controls button:has-text('Hint')",
    "hand": ".race .hand",
    "resign": ".race .controls button:has-text('Resign')",
    "new deal": ".race .controls button:has-text('New deal')",
    "help": ".race .topbar button[aria-label='How to play']",
    "rules": ".race .topbar button:has-text('Rules')",
}


@pytest.mark.parametrize("control", CONTROLS)
def test_a_control_tapped_300_ms_after_a_touch_drag_acts(tabs: Tabs, control: str) -> None:
    page, cdp = dragged(tabs)
    selector = CONTROLS[control]
    finger_tap(page, cdp, selector)
    if control == "undo":
        expect(stat(page, "Moves")).to_have_text("2")
        expect(pile(page, "t6").locator('[data-card="AD"]')).to_have_count(0)
    elif control == "draw":
        expect(stat(page, "Moves")).to_have_text("4")
        expect(pile(page, "w").locator(".card")).to_have_count(1)
    elif control == "hint":
        expect(page.locator(".race .hinted, .race .hint-from").first).to_be_visible()
    elif control == "hand":
        expect(page.locator(CONTROLS["hand"])).to_have_attribute("aria-pressed", "true")
    elif control == "resign":  # its first tap asks to be sure
        expect(page.locator(CONTROLS["resign"])).to_have_class(re.compile(r"\bdanger\b"))
    elif control == "new deal":  # a game under way: asked first
        expect(page.get_by_role("alertdialog").or_(page.get_by_role("dialog"))).to_be_visible()
    elif control == "help" or control == "rules":
        expect(page.get_by_role("dialog")).to_be_visible()


def test_ten_undo_taps_each_300_ms_after_a_touch_drag_all_act(tabs: Tabs) -> None:
    page, cdp = dragged(tabs)
    for _ in range(10):
        finger_tap(page, cdp, CONTROLS["undo"])
        expect(pile(page, "t6").locator('[data-card="AD"]')).to_have_count(0)
        expect(stat(page, "Moves")).to_have_text("2")
        touch_drag(page, cdp, '.race [data-card="AD"]', '.race [data-card="2C"]')
        expect(pile(page, "t6").locator('[data-card="AD"]')).to_be_visible()
        expect(stat(page, "Moves")).to_have_text("3")
        page.wait_for_timeout(AFTER_DRAG)


def test_a_press_that_began_elsewhere_and_ends_on_undo_does_nothing(tabs: Tabs) -> None:
    page, cdp = dragged(tabs)
    x, y = centre(page, ".race .statusbar")
    ux, uy = centre(page, CONTROLS["undo"])
    touch(cdp, "touchStart", x, y)
    touch(cdp, "touchMove", ux, uy)
    touch(cdp, "touchEnd")
    finger_tap(page, cdp, CONTROLS["draw"])  # acts: the undo, had it acted, would come first
    expect(stat(page, "Moves")).to_have_text("4")
    expect(pile(page, "t6").locator('[data-card="AD"]')).to_be_visible()


def test_a_mouse_click_on_undo_acts_once(tabs: Tabs) -> None:
    page = tabs.page("/", viewport={"width": 1366, "height": 800})
    start_solo(page, "pia", CODE)
    card(page, "AS").click()  # home
    expect(stat(page, "Moves")).to_have_text("1")
    page.locator(CONTROLS["undo"]).click()
    expect(stat(page, "Moves")).to_have_text("0")
    page.locator(".race .pile[data-pile='stock']").click()  # a draw: no second undo came before it
    expect(stat(page, "Moves")).to_have_text("1")
    expect(pile(page, "w").locator(".card")).to_have_count(1)
    expect(pile(page, "t4").locator('[data-card="AS"]')).to_be_visible()


# a finger's press and release on a control, and no click after them: what
# the phone did after a drag (issue 25: "pointer and touch events but no click")
PRESS_NO_CLICK_JS = """(selector) => {
  const el = document.querySelector(selector);
  const r = el.getBoundingClientRect();
  const at = { clientX: r.x + r.width / 2, clientY: r.y + r.height / 2, pointerId: 7, pointerType: 'touch',
    isPrimary: true, bubbles: true, cancelable: true, composed: true };
  el.dispatchEvent(new PointerEvent('pointerdown', at));
  el.dispatchEvent(new PointerEvent('pointerup', at));
}"""


def test_a_control_acts_on_the_pointer_up_even_when_no_click_follows(tabs: Tabs) -> None:
    page, _ = dragged(tabs)
    page.evaluate(PRESS_NO_CLICK_JS, CONTROLS["undo"].replace(":has-text('Undo')", ":first-child"))
    expect(stat(page, "Moves")).to_have_text("2")
    expect(pile(page, "t6").locator('[data-card="AD"]')).to_have_count(0)
    page.evaluate(PRESS_NO_CLICK_JS, CONTROLS["draw"])
    expect(stat(page, "Moves")).to_have_text("3")
    expect(pile(page, "w").locator(".card")).to_have_count(1)
