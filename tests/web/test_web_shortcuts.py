"""The table's keys mean what the Keys list says, whatever control was
clicked last (issue 19): after each control of the table (its buttons, the
Keys list, the help, the rules, Leave), every documented key is pressed at
once and must act on the game, never on the control. Enter on a button that
has the focus (reached with Tab) presses it. At a game's start the table
has the focus: the first arrow key moves it."""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest
from playwright.sync_api import Page, expect
from web_support import TOASTS_JS, pile, start_solo, stat

from conftest import Tabs

pytestmark = pytest.mark.browser

# draw one, Normal: draws without end; the 3♦ of column 4 has one move
# (onto the 4♣), the basic hint is the A♥ of column 7 home
CODE = "KL1-D1N-AAAAAAA"
KEYS_LIST = ("←/→ move between piles · 1–7 columns · Enter pick up / put down · ↑/↓ choose cards in a "
             "column · Space draw · U undo · H hint (twice: play it) · F complete · N new deal · Esc cancel")
ACTIVE_JS = "() => document.activeElement && document.activeElement.dataset.pile || null"


class Table:
    def __init__(self, page: Page) -> None:
        self.page = page
        self.moves = 0
        page.evaluate(TOASTS_JS)

    def focused(self) -> str | None:
        return self.page.evaluate(ACTIVE_JS)

    def press(self, key: str) -> None:
        self.page.keyboard.press(key)

    def moved(self, delta: int) -> None:
        self.moves += delta
        expect(stat(self.page, "Moves")).to_have_text(str(self.moves))

    def every_key(self, after: str) -> None:
        """Each key of the Keys list, pressed after clicking ``after``: each acts on the game."""
        page = self.page
        self.press(" ")  # Space: draws
        self.moved(+1)
        self.press("u")  # U: undoes it
        self.moved(-1)
        for n in range(1, 8):  # 1-7: to that column
            self.press(str(n))
            assert self.focused() == f"t{n}", f"{n} after {after}"
        self.press("ArrowRight")  # from column 7 round to the stock
        assert self.focused() == "stock", f"→ after {after}"
        self.press("ArrowLeft")
        assert self.focused() == "t7", f"← after {after}"
        self.press("4")
        self.press("Enter")  # picks up the 3♦
        expect(pile(page, "t4").locator(".card.picked")).to_have_count(1)
        self.press("Escape")  # and puts it back
        expect(page.locator(".race .card.picked")).to_have_count(0)
        self.press("ArrowUp")  # the chooser of column 4
        chooser = page.get_by_role("dialog", name=re.compile("^Column 4: move"))
        expect(chooser).to_be_visible()
        self.press("ArrowDown")
        expect(chooser).to_be_visible()
        self.press("Escape")
        expect(chooser).to_be_hidden()
        self.press("h")  # H: the hint shows...
        expect(page.locator(".race .pile.hint-to")).to_have_count(1)
        self.press("h")  # ...and H again plays it
        self.moved(+1)
        self.press("u")
        self.moved(-1)
        self.press("f")  # F: nothing to complete; it presses nothing either
        self.press(" ")
        self.moved(+1)
        self.press("n")  # N: a game in progress: asked first
        question = page.get_by_role("dialog", name="Start a new deal?")
        expect(question).to_be_visible()
        self.press("Escape")  # Esc: no
        expect(question).to_be_hidden()
        self.press(" ")  # and the keys are the table's again
        self.moved(+1)
        self.press("u")
        self.moved(-1)
        self.press("u")
        self.moved(-1)


def test_every_key_acts_on_the_game_whatever_control_was_clicked_last(tabs: Tabs) -> None:
    page = tabs.page("/")
    start_solo(page, "kim", CODE)
    table = Table(page)
    keys = page.locator(".race .controls .keys")
    keys.locator("summary").click()
    expect(keys.locator("p")).to_have_text(KEYS_LIST)  # what the keys must do
    table.every_key("the Keys list")
    expect(keys.locator("p")).to_be_visible()  # Space did not close it

    controls = page.locator(".race .controls")
    topbar = page.locator(".race .topbar")
    clicks: list[tuple[str, Callable[[], None]]] = [
        ("Undo", lambda: controls.get_by_role("button", name="Undo").click()),
        ("Hint", lambda: controls.get_by_role("button", name="Hint").click()),
        ("Resign", lambda: controls.get_by_role("button", name="Resign").click()),
        ("New deal", lambda: (controls.get_by_role("button", name="New deal").click(),
                              page.get_by_role("button", name="Keep playing").click())),
        ("How to play", lambda: (topbar.get_by_role("button", name="How to play").click(),
                                 page.get_by_role("button", name="Let's play").click())),
        ("Rules", lambda: (topbar.get_by_role("button", name="Rules").click(),
                           page.locator("dialog.rules").get_by_role("button", name="Close").click())),
        ("Leave", lambda: (topbar.get_by_role("button", name="Leave").click(),
                           page.get_by_role("button", name="Stay").click())),
    ]
    for name, click in clicks:
        table.press(" ")  # a game in progress: Undo has something to undo, N asks first
        table.moved(+1)
        if name == "Hint":
            click()
            expect(page.locator(".race .pile.hint-to")).to_have_count(1)
            table.press("Escape")  # the hint put aside
            expect(page.locator(".race .pile.hint-to")).to_have_count(0)
        else:
            click()
        expect(page.locator("dialog[open]")).to_have_count(0)
        if name == "Undo":
            table.moved(-1)
            table.press(" ")
            table.moved(+1)
        table.every_key(name)
        table.press("u")
        table.moved(-1)
        if name == "Resign":  # Resign asked once: its question goes by itself, nothing resigned
            expect(controls.get_by_role("button", name="Resign")).to_be_visible(timeout=10_000)


def test_enter_presses_a_focused_button_and_space_still_draws(tabs: Tabs) -> None:
    page = tabs.page("/")
    start_solo(page, "kim", CODE)
    table = Table(page)
    table.press(" ")
    table.moved(+1)
    undo = page.locator(".race .controls").get_by_role("button", name="Undo")
    undo.focus()  # as Tab reaches it
    table.press(" ")  # Space draws, even there
    table.moved(+1)
    undo.focus()
    table.press("Enter")  # Enter presses the button
    table.moved(-1)
    assert table.focused() is not None  # and the keys went back to the table
    table.press(" ")
    table.moved(+1)


def test_at_a_games_start_the_table_has_the_focus(tabs: Tabs) -> None:
    page = tabs.page("/")
    start_solo(page, "kim", CODE)
    expect(page.locator('.race .pile[data-pile="stock"]')).to_be_focused()
    page.keyboard.press("ArrowRight")  # the first arrow key moves the focus
    expect(page.locator('.race .pile[data-pile="w"]')).to_be_focused()
