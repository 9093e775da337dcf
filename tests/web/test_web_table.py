"""The table's ways out and its layers: the stuck notice and the N key, the code
of a solo game, and the focus ring under every panel and dialog."""

from __future__ import annotations

import re

import pytest
from harness import load_kl1
from playwright.sync_api import Page, expect
from web_support import dealt, pile, play_fast, start_solo, stat, table

from conftest import Tabs

pytestmark = pytest.mark.browser

STUCK = next(g for g in load_kl1()["games"] if g["code"] == "KL1-D3V-NVFN3FS")  # ends with no move left
CODE = "KL1-D1N-AAAAAAA"

# Is the focused pile's ring under `overlay`? The ring is made hit-testable for
# the look (pointer-events), then points of its border inside the overlay are
# asked what is on top there; one point outside shows the look can see the ring.
RING_JS = """(selector) => {
  const pileEl = document.activeElement && document.activeElement.closest('.pile');
  if (!pileEl || !pileEl.matches(':focus-visible')) return 'no focus ring';
  const over = document.querySelector(selector);
  if (!over || over.hidden) return 'no overlay';
  const sheet = document.styleSheets[0]; // CSSOM, which the page's CSP allows (a <style> it would refuse)
  const rule = sheet.insertRule('.pile:focus-visible::after { pointer-events: auto !important; }',
    sheet.cssRules.length);
  try {
    const o = over.getBoundingClientRect();
    const p = pileEl.getBoundingClientRect();
    const r = { left: p.left - 4, right: p.right + 4, top: p.top - 4, bottom: p.bottom + 4 };
    const inside = [];
    const outside = [];
    for (const x of [r.left + 1.5, r.right - 1.5]) {
      for (let y = r.top + 2; y < r.bottom - 2; y += 5) {
        (x > o.left && x < o.right && y > o.top && y < o.bottom ? inside : outside).push([x, y]);
      }
    }
    if (!inside.length) return 'the ring does not meet the overlay';
    const seen = outside.filter(([x, y]) => x > 0 && y > 0 && x < innerWidth && y < innerHeight)
      .some(([x, y]) => pileEl.contains(document.elementFromPoint(x, y)));
    if (!seen) return 'the ring cannot be seen anywhere';
    const above = inside.find(([x, y]) => !over.contains(document.elementFromPoint(x, y)));
    return above ? `the ring is above ${selector} at ${above}` : 'under';
  } finally {
    sheet.deleteRule(rule);
  }
}"""


def ring_under(page: Page, selector: str) -> None:
    assert page.evaluate(RING_JS, selector) == "under"


def test_the_focus_ring_never_shows_above_a_panel_or_dialog(tabs: Tabs) -> None:
    page = tabs.page("/")
    start_solo(page, "kim", CODE)
    page.keyboard.press("4")  # the focus on column 4, under the middle of every panel
    expect(pile(page, "t4")).to_be_focused()

    page.keyboard.press("ArrowUp")  # the sequence chooser over the table's bottom
    expect(page.locator(".seqpanel")).to_be_visible()
    ring_under(page, ".seqpanel")
    page.keyboard.press("Escape")

    page.locator(".controls").get_by_role("button", name="Resign").click()
    page.locator(".controls").get_by_role("button", name="Really resign?").click()
    expect(page.get_by_role("dialog", name="Game over")).to_be_visible()
    pile(page, "t4").focus()
    page.keyboard.press("4")
    ring_under(page, ".results")


def test_the_stuck_notice_s_ways_out_the_n_key_and_the_code_of_a_solo_game(tabs: Tabs) -> None:
    code = STUCK["code"]
    page = tabs.page("/")
    start_solo(page, "sam", code)
    expect(page.locator(".topbar .room-code")).to_have_text(code)  # typed by the player: theirs to see
    play_fast(page, STUCK["script"])
    stuck = page.get_by_role("alertdialog", name="No moves left.")
    expect(stuck).to_be_visible()
    for name in ("A new deal", "The same deal again", "View the board", "Resign"):
        expect(stuck.get_by_role("button", name=name)).to_be_visible()

    # closed, it can be opened again
    stuck.get_by_role("button", name="View the board").click()
    expect(stuck).to_be_hidden()
    page.locator(".controls").get_by_role("button", name="No moves left…").click()
    expect(stuck).to_be_visible()

    # the same deal again: a new game on the code
    room = page.url
    stuck.get_by_role("button", name="The same deal again").click()
    expect(page).not_to_have_url(room)
    expect(stat(page, "Moves")).to_have_text("0")
    expect(page.locator(".topbar .room-code")).to_have_text(code)

    # N: a new random deal of the same mode, asked first over a game in progress
    page.keyboard.press(" ")
    expect(stat(page, "Moves")).to_have_text("1")
    page.keyboard.press("n")
    question = page.get_by_role("dialog", name="Start a new deal?")
    expect(question).to_be_visible()
    question.get_by_role("button", name="Keep playing").click()
    expect(stat(page, "Moves")).to_have_text("1")
    page.keyboard.press("n")
    question.get_by_role("button", name="New deal").click()
    expect(stat(page, "Moves")).to_have_text("0")
    expect(page.locator(".topbar .room-label")).to_have_text("Solo · Draw three · Vegas")
    expect(page.locator(".topbar .room-code")).to_be_hidden()  # a random deal: secret while it is played
    assert page.locator(".topbar .room-code").inner_text() == ""

    # over, the random deal's code is public
    page.locator(".controls").get_by_role("button", name="Resign").click()
    page.locator(".controls").get_by_role("button", name="Really resign?").click()
    results = page.get_by_role("dialog", name="Game over")
    expect(results.locator(".results-code")).to_have_text(re.compile(r"^KL2-D3V-[A-P][A-Z2-7]{12}$"))
    expect(page.locator(".topbar .room-code")).to_have_text(results.locator(".results-code").inner_text())


def test_a_typed_kl2_code_deals_its_number_and_a_new_deal_keeps_its_mode(tabs: Tabs) -> None:
    """A KL2 code goes wherever a KL1 one does: the same number is the same
    deal, the code shown is its canonical form, and N deals a new random deal
    of the typed code's mode (the client reads the mode of both formats)."""
    one, two = tabs.page("/"), tabs.page("/")
    start_solo(one, "kim", "KL1-D3V-AAAAAAG")
    start_solo(two, "kai", " kl2-d3v-aaaaaaaaaaaag ")
    assert table(two) == table(one)
    expect(two.locator(".topbar .room-code")).to_have_text("KL2-D3V-AAAAAAAAAAAAG")
    two.keyboard.press("n")
    expect(two.locator(".topbar .room-code")).to_be_hidden()  # a random deal now: secret
    expect(two.locator(".topbar .room-label")).to_have_text("Solo · Draw three · Vegas")
    dealt(two)  # the new deal, not the empty table between two
    assert table(two) != table(one)
