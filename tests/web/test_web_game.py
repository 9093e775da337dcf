"""One player's game in the browser: undo and hint, keys, names, a whole won game."""

from __future__ import annotations

import re

import pytest
from harness import load_kl1, load_wins
from playwright.sync_api import expect
from web_support import (
    Keyboard,
    card,
    create_room,
    drag,
    hold_clock,
    pile,
    run_clock_until,
    settle,
    start_solo,
    stat,
)

from conftest import Tabs, screenshot
from server.klondike import Game, card_name

pytestmark = pytest.mark.browser

NAME = r"(ace|[2-9]|10|jack|queen|king) of (spades|hearts|diamonds|clubs)"
CODE = "KL1-D1N-AAAAAAA"  # legal at the start: t7>f (the ace of hearts), t4>t5, draw


def test_undo_and_hint(tabs: Tabs) -> None:
    page = tabs.page("/")
    start_solo(page, "ann", CODE)
    controls = page.locator(".controls")
    undo = controls.get_by_role("button", name="Undo")
    expect(undo).to_be_disabled()

    # the hint shows its move on the table first: the ace of hearts and its foundation
    controls.get_by_role("button", name="Hint").click()
    expect(card(page, "AH")).to_have_class(re.compile(r"\bhint-from\b"))
    expect(pile(page, "fh")).to_have_class(re.compile(r"\bhint-to\b"))
    expect(page.locator(".toast", has_text="Hint")).to_contain_text("A♥")
    assert pile(page, "t7").locator('[data-card="AH"]').count() == 1  # not played yet
    page.keyboard.press("h")  # asked again: played
    expect(pile(page, "fh").locator('[data-card="AH"]')).to_be_visible()
    expect(stat(page, "Moves")).to_have_text("1")
    expect(stat(page, "Score")).to_have_text("15 pts")
    expect(page.locator(".hint-from")).to_have_count(0)

    # undo (button, then key) takes moves back completely
    expect(undo).to_be_enabled()
    undo.click()
    expect(pile(page, "t7").locator('[data-card="AH"]')).to_be_visible()
    expect(stat(page, "Moves")).to_have_text("0")
    expect(stat(page, "Score")).to_have_text("0 pts")
    expect(pile(page, "t7")).to_have_attribute("aria-label",
                                               "column 7, 6 face-down cards, ace of hearts on top")
    pile(page, "stock").click()
    expect(pile(page, "w")).to_have_attribute("aria-label", "waste, queen of diamonds on top, 1 card")
    page.keyboard.press("u")
    expect(pile(page, "w")).to_have_attribute("aria-label", "waste, empty")
    expect(pile(page, "stock")).to_have_attribute("aria-label", "stock, 24 cards")
    expect(undo).to_be_disabled()


def test_a_room_without_undo_and_hints_offers_neither(tabs: Tabs) -> None:
    page = tabs.page("/")
    create_room(page, "solo-host", code=CODE, undo=False, hints=False)
    expect(page.locator(".room-settings")).to_contain_text("undo off · hints off")
    page.get_by_role("button", name="Start the race").click()
    expect(card(page, "AH")).to_be_visible()
    expect(stat(page, "Moves")).to_have_text("0")
    controls = page.locator(".controls")
    expect(controls.get_by_role("button", name="Undo")).to_be_hidden()
    expect(controls.get_by_role("button", name="Hint")).to_be_hidden()
    card(page, "AH").click()
    expect(stat(page, "Moves")).to_have_text("1")
    page.keyboard.press("u")
    page.keyboard.press("h")
    page.keyboard.press("Escape")
    expect(stat(page, "Moves")).to_have_text("1")
    expect(page.locator(".hint-from, .hint-to")).to_have_count(0)


def test_keyboard_play_names_and_focus(tabs: Tabs) -> None:
    page = tabs.page("/")
    start_solo(page, "kim", CODE)

    # every pile and card has a name (the faces themselves: test_web_faces.py)
    expect(pile(page, "stock")).to_have_attribute("aria-label", "stock, 24 cards")
    expect(pile(page, "t4")).to_have_attribute("aria-label",
                                               "column 4, 3 face-down cards, 3 of diamonds on top")
    expect(pile(page, "fs")).to_have_attribute("aria-label", "spades foundation, empty")
    for el in page.locator(".race .board .card").all():
        label = el.get_attribute("aria-label")
        assert label == "face-down card" or re.fullmatch(NAME, label or "")
        if label != "face-down card":
            face = el.evaluate("e => getComputedStyle(e).backgroundImage")
            assert face.startswith('url("data:image/svg+xml')

    # right from the stock reaches the waste; focus is visible
    page.keyboard.press("ArrowRight")
    focused = page.evaluate("() => [document.activeElement.dataset.pile,"
                            " document.activeElement.matches(':focus-visible')]")
    assert focused == ["w", True]

    keys = Keyboard(page, CODE)
    keys.focus = "w"
    # Enter picks up a card that has a move, Escape puts it back
    keys.go("t4")
    page.keyboard.press("Enter")  # the 3♦ (onto the 4♣)
    expect(pile(page, "t4").locator(".card.picked")).to_have_count(1)
    page.keyboard.press("Escape")
    expect(page.locator(".card.picked")).to_have_count(0)
    # a key that goes nowhere changes nothing
    page.keyboard.press("Enter")
    keys.go("t2")
    page.keyboard.press("Enter")  # the 3♦ does not fit on the ten of spades
    expect(page.locator(".toast", has_text="can't go")).to_contain_text("3♦ can't go on 10♠")
    page.keyboard.press("Escape")
    # a card without a move is not picked up: it shakes, and a message says so
    keys.go("t1")
    page.keyboard.press("Enter")
    expect(page.locator(".toast", has_text="no move")).to_contain_text("8♣ has no move.")
    expect(pile(page, "t1").locator(".card.refused")).to_have_count(1)
    expect(page.locator(".card.picked")).to_have_count(0)
    expect(stat(page, "Moves")).to_have_text("0")

    keys.play("t7>f")  # to column 7, Enter, to the hearts foundation, Enter
    expect(pile(page, "fh").locator('[data-card="AH"]')).to_be_visible()
    keys.play("t4>t5")
    keys.play("draw")  # space
    expect(pile(page, "w")).to_have_attribute("aria-label", re.compile(r"^waste, .+ on top, 1 card$"))

    # up/down on a column open the chooser of a sequence; Escape cancels it
    keys.go("t5")
    page.keyboard.press("ArrowUp")
    chooser = page.get_by_role("dialog", name=re.compile("Column 5"))
    expect(chooser).to_be_visible()
    expect(chooser).to_contain_text("move 2 cards from 4♣")
    expect(chooser.get_by_role("option", selected=True)).to_have_text("4♣")
    page.keyboard.press("ArrowDown")
    expect(chooser).to_contain_text("move 1 card from 3♦")
    page.keyboard.press("Escape")
    expect(chooser).to_be_hidden()
    expect(stat(page, "Moves")).to_have_text("3")


def test_draw_three_fans_and_a_stuck_game_offers_its_ways_out(tabs: Tabs) -> None:
    game = next(g for g in load_kl1()["games"] if g["code"] == "KL1-D3V-NVFN3FS")
    code, script = game["code"], game["script"]  # a Vegas game that ends with no move at all
    page = tabs.page("/")
    start_solo(page, "sam", code)
    expect(stat(page, "Score")).to_have_text("-$52")
    keys = Keyboard(page, code)
    keys.play(script[0])  # draw three: the latest three cards show as a fan
    fan = pile(page, "w").locator(".card[data-card]")
    expect(fan).to_have_count(3)
    expect(pile(page, "w")).to_have_attribute("aria-label", re.compile(r"^waste, .+ on top, 3 cards$"))
    settle(page)  # the drawn cards slide from the stock
    lefts = [box["x"] for box in (c.bounding_box() for c in fan.all()) if box]
    assert lefts == sorted(lefts) and len(set(lefts)) == 3
    for m in script[1:]:
        if m == "t4:2>t7":  # a sequence taken from the middle of a column, by drag
            lead = keys.lead("t4", 2)
            drag(page, card(page, lead), pile(page, "t7"))
            keys.game.push(m)
            expect(pile(page, "t7").locator(f'[data-card="{lead}"]')).to_be_visible()
            expect(stat(page, "Moves")).to_have_text(str(keys.game.moves))
        else:
            keys.play(m)

    stuck = page.locator(".notice.stuck")
    expect(stuck).to_be_visible()
    expect(stuck).to_contain_text("No moves left")
    stuck.get_by_role("button", name="View the board").click()
    expect(stuck).to_be_hidden()
    page.keyboard.press("u")  # the way out: undo
    expect(stat(page, "Moves")).to_have_text(str(keys.game.moves - 1))
    keys.game.pop()
    keys.play(script[-1])
    expect(stuck).to_be_visible()
    stuck.get_by_role("button", name="Resign").click()
    results = page.get_by_role("dialog", name="Game over")  # a solo game: no race
    expect(results).to_be_visible()
    expect(results.locator(".results-code")).to_have_text(code)
    expect(results.locator("tbody tr")).to_contain_text("resigned")


def test_a_whole_game_won_through_the_ui_ends_in_the_results(tabs: Tabs) -> None:
    win = next(w for w in load_wins() if w["code"] == "KL1-D1V-ACT552B")
    code, script = win["code"], win["script"]
    finish_at = 104  # from here the server offers auto-complete (docs/engine.md)
    assert "undo" not in script

    ctx = tabs.context()
    ctx.grant_permissions(["clipboard-read", "clipboard-write"])
    ctx.clock.install()
    page = tabs.page("/", context=ctx)
    start_solo(page, "ace", code)
    complete = page.locator(".controls").get_by_role("button", name="Complete")
    expect(complete).to_be_hidden()
    keys = Keyboard(page, code)
    for m in script[:finish_at]:
        keys.play(m)
        if keys.game.moves == 60:
            settle(page)
            screenshot(page, "solo-in-progress")
    expect(stat(page, "Score")).to_have_text(re.compile(r"^[+-]?\$\d+$"))
    expect(complete).to_be_visible()
    hold_clock(page)  # from here the page's clock moves as the test moves it
    page.keyboard.press("f")  # auto-complete: the moves are played one by one

    # the 52nd card home: the cascade celebrates on the table, says that a tap
    # skips it (test_web_finish.py taps), and ends by itself, in under 7 s of
    # the page's clock (it ran up to 14), then the results
    cascade = page.locator(".race .table canvas.cascade")
    run_clock_until(page, lambda: cascade.count() > 0, most_ms=60_000)
    expect(page.locator(".race .cascade-skip")).to_have_text("Tap or press a key to skip")
    run_clock_until(page, lambda: cascade.count() == 0, step_ms=100, most_ms=7_000)
    page.clock.resume()
    expect(page.locator(".race .cascade-skip")).to_have_count(0)
    results = page.get_by_role("dialog", name="Solved!")
    expect(results).to_be_visible()
    expect(results.locator(".results-code")).to_have_text(code)
    expect(results.locator(".results-mine")).to_contain_text(f"{len(script)} moves")
    expect(results.locator(".results-mine")).to_contain_text("52 cards placed")
    expect(results.locator(".results-mine")).to_contain_text("+$208")
    expect(results.locator(".results-mine")).to_contain_text("0 passes")
    expect(stat(page, "Cards")).to_have_text("52/52")
    results.get_by_role("button", name="Copy code").click()
    expect(page.locator(".toast", has_text="Copied")).to_be_visible()
    assert page.evaluate("() => navigator.clipboard.readText()") == code
    screenshot(page, "results")

    # "play this deal solo" starts the same deal again in a new room
    room = page.url
    results.get_by_role("button", name="Play this deal solo").click()
    expect(stat(page, "Moves")).to_have_text("0")
    expect(page).not_to_have_url(room)
    start = Game(code)
    for column in range(7):
        top = start.columns[column][-1]
        last = pile(page, f"t{column + 1}").locator(".card").last
        expect(last).to_have_attribute("data-card", card_name(top))
