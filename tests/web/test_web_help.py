"""Help for newcomers: "how a race works" on the first visit, and the rules
as a player opens them, from the lobby, their address and the table: how to
play (the catalogue's `howto` section, web_client/js/i18n/en.js, with its
diagrams), and one link further the
rule book, docs/rules.md itself."""

from __future__ import annotations

import re

import pytest
from harness import ROOT
from playwright.sync_api import Page, expect
from web_support import start_solo, stat

from conftest import Tabs, screenshot

pytestmark = pytest.mark.browser

RULES = (ROOT / "docs" / "rules.md").read_text()
TITLE = RULES.splitlines()[0].removeprefix("# ")
SECTIONS = [line.removeprefix("## ") for line in RULES.splitlines() if line.startswith("## ")]
HOWTO = ["The deal", "The moves", "The stock and passes", "Scoring", "Buttons and keys"]
#: what a player must never read first: the developers' words
DEVELOPERS = ("server/klondike", "engine", "tests/vectors", "0 to 51", "SplitMix64")


def check_howto(page: Page) -> None:
    """How to play: its sections, both diagrams drawn with card faces, the
    scoring of both modes and the keys, nothing of the developers' rule book,
    nothing sticking out sideways; the rule book one link away."""
    howto = page.get_by_role("dialog", name="How to play")
    expect(howto).to_be_visible()
    expect(howto.locator(".rules-body h2")).to_have_text(HOWTO)
    figures = howto.get_by_role("img")
    expect(figures).to_have_count(2)
    expect(figures.first).to_have_attribute("aria-label", re.compile("stock and the waste"))
    # the stock, the waste, the foundations and the deal
    expect(howto.locator(".howto-table .hcard")).to_have_count(1 + 1 + 4 + 28)
    expect(howto.locator(".howto-table .hcard.down")).to_have_count(1 + 21)
    expect(howto.locator("table").first).to_contain_text("a card home")
    expect(howto).to_contain_text("−$52")
    expect(howto.locator("table").last).to_contain_text("draw from the stock")
    text = howto.locator(".rules-body").inner_text()
    assert not [w for w in DEVELOPERS if w in text], text
    fits = page.evaluate("""() => {
      const body = document.querySelector('dialog.rules');
      const box = body.getBoundingClientRect();
      return [...body.querySelectorAll('.howto-figure *')].every((el) => {
        const r = el.getBoundingClientRect();
        return r.left >= box.left - 0.5 && r.right <= box.right + 0.5;
      }) && body.scrollWidth <= body.clientWidth;
    }""")
    assert fits, "a diagram sticks out of the dialog"
    expect(howto.get_by_role("link", name="The full rule book")).to_have_attribute("href", "/rules")


def check_rules(page: Page) -> None:
    """The rule book, whole: its title, every section, a table and the code block."""
    rules = page.get_by_role("dialog", name=TITLE)
    expect(rules).to_be_visible()
    expect(rules.locator(".rules-body h2")).to_have_text(SECTIONS)
    expect(rules.locator("table").first).to_contain_text("KL1")
    expect(rules.locator("pre")).to_contain_text("z = (z XOR (z >> 30)) * 0xBF58476D1CE4E5B9")
    expect(rules.locator("li", has_text="Recycling.")).to_contain_text("one pass through the stock")
    # the book's own links within it
    rules.get_by_role("link", name="scoring", exact=True).click()
    expect(rules.get_by_role("heading", name="Scoring", exact=True)).to_be_in_viewport()


def test_a_first_visit_shows_how_a_race_works_once(tabs: Tabs) -> None:
    ctx = tabs.context(first_visit=True)
    page = tabs.page("/", context=ctx)
    intro = page.get_by_role("dialog", name="How a race works")
    expect(intro).to_be_visible()
    expect(intro.locator("li")).to_have_count(5)
    screenshot(page, "intro")
    expect(intro).to_contain_text("Same deal for everyone")
    play = intro.get_by_role("button", name="Let's play")
    expect(play).to_be_focused()  # the default: Enter plays, and does not open the rule book
    page.keyboard.press("Enter")
    expect(intro).to_be_hidden()
    expect(page.get_by_role("dialog", name=TITLE)).to_be_hidden()
    page.reload()
    expect(page.get_by_role("heading", name="Create a room")).to_be_visible()
    expect(intro).to_be_hidden()  # once is enough
    page.get_by_role("button", name="How a race works").click()  # and it is there when wanted
    expect(intro).to_be_visible()
    intro.get_by_role("button", name="Read the rules").click()
    check_howto(page)


def test_rules_in_the_lobby_open_how_to_play_and_the_rule_book_is_one_link_further(
        tabs: Tabs) -> None:
    page = tabs.page("/")
    opener = page.get_by_role("link", name="Rules")
    opener.click()
    check_howto(page)
    expect(page).to_have_title("Klondike Race — How to play")
    screenshot(page, "howto")
    howto = page.get_by_role("dialog", name="How to play")
    howto.get_by_role("link", name="The full rule book").click()
    check_rules(page)
    book = page.get_by_role("dialog", name=TITLE)
    book.get_by_role("button", name="How to play").click()  # and back
    expect(howto.locator(".rules-body h2").first).to_have_text("The deal")
    page.keyboard.press("Escape")
    expect(howto).to_be_hidden()
    expect(opener).to_be_focused()  # the focus is given back where it was
    expect(page).to_have_title("Klondike Race")

    page.goto("/rules")  # the rule book's own address
    check_rules(page)
    screenshot(page, "rules")
    page.get_by_role("dialog", name=TITLE).get_by_role("button", name="Close").click()
    expect(page).to_have_url(re.compile(r"/$"))
    page.goto("/how-to-play")  # and how to play's
    check_howto(page)
    howto.get_by_role("button", name="Close").click()
    expect(page).to_have_url(re.compile(r"/$"))


def test_rules_at_the_table_open_how_to_play_and_the_keys_are_the_tables_after(
        tabs: Tabs) -> None:
    page = tabs.page("/")
    # at the table the rules open over the game, which goes on after
    start_solo(page, "rui", "KL1-D1N-AAAAAAA")
    page.locator(".race .topbar").get_by_role("button", name="Rules").click()
    check_howto(page)
    page.keyboard.press(" ")  # keys go to the rules, not to the table underneath
    page.keyboard.press("Escape")
    expect(page.get_by_role("dialog", name="How to play")).to_be_hidden()
    expect(stat(page, "Moves")).to_have_text("0")
    page.keyboard.press(" ")
    expect(stat(page, "Moves")).to_have_text("1")
    # through the rule book and closed from there: the keys are the table's again
    page.locator(".race .topbar").get_by_role("button", name="Rules").click()
    page.get_by_role("link", name="The full rule book").click()
    check_rules(page)
    page.get_by_role("dialog", name=TITLE).get_by_role("button", name="Close").click()
    expect(page.locator("dialog[open]")).to_have_count(0)
    page.keyboard.press(" ")
    expect(stat(page, "Moves")).to_have_text("2")


def test_how_to_play_fits_a_phone(tabs: Tabs) -> None:
    page = tabs.page("/", viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
    page.get_by_role("link", name="Rules").tap()
    check_howto(page)
    screenshot(page, "howto-phone")
    page.get_by_role("link", name="The full rule book").tap()
    check_rules(page)
