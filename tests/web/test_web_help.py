"""Help for newcomers: "how a race works" on the first visit, and the rules,
which are docs/rules.md itself, from the lobby, their address and the table."""

from __future__ import annotations

import re

import pytest
from conftest import Tabs, screenshot
from harness import ROOT
from playwright.sync_api import Page, expect
from web_support import start_solo, stat

pytestmark = pytest.mark.browser

RULES = (ROOT / "docs" / "rules.md").read_text()
TITLE = RULES.splitlines()[0].removeprefix("# ")
SECTIONS = [line.removeprefix("## ") for line in RULES.splitlines() if line.startswith("## ")]


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
    check_rules(page)


def test_the_rules_from_the_lobby_their_address_and_the_table(tabs: Tabs) -> None:
    page = tabs.page("/")
    page.get_by_role("link", name="Rules").click()
    check_rules(page)
    page.keyboard.press("Escape")
    expect(page.get_by_role("dialog", name=TITLE)).to_be_hidden()

    page.goto("/rules")
    check_rules(page)
    screenshot(page, "rules")
    page.get_by_role("dialog", name=TITLE).get_by_role("button", name="Close").click()
    expect(page).to_have_url(re.compile(r"/$"))

    # at the table the rules open over the game, which goes on after
    start_solo(page, "rui", "KL1-D1N-AAAAAAA")
    page.locator(".race .topbar").get_by_role("button", name="Rules").click()
    check_rules(page)
    page.keyboard.press(" ")  # keys go to the rules, not to the table underneath
    page.keyboard.press("Escape")
    expect(page.get_by_role("dialog", name=TITLE)).to_be_hidden()
    expect(stat(page, "Moves")).to_have_text("0")
    page.keyboard.press(" ")
    expect(stat(page, "Moves")).to_have_text("1")
