"""Two browsers race in one room while a third watches."""

from __future__ import annotations

import json
import re

import pytest
from playwright.sync_api import Locator, Page, expect
from web_support import card, create_room, drag, hidden, pile, resign, set_nickname, shown_as, stat

from conftest import Tabs, screenshot
from server.klondike import Game, card_name, long_name

pytestmark = pytest.mark.browser

# A deal where, from the start, the top of column 4 goes to its foundation and
# the top of column 5 fits on column 1 and on column 3 (so a tap picks it up).
CODE = "KL1-D1N-AAAAADF"


def top(game: Game, column: int) -> str:
    return card_name(game.columns[column - 1][-1])


def lb_row(page: Page, nickname: str) -> Locator:
    return page.locator(".lb-row", has=page.locator(".lb-name", has_text=nickname))


def test_two_players_race_and_a_spectator_sees_no_hidden_card(tabs: Tabs) -> None:
    start = Game(CODE)
    home, lone = top(start, 4), top(start, 5)  # home goes to its foundation; lone fits t1 and t3
    foundation = "f" + home[1].lower()

    ann = tabs.page("/")
    expect(ann.get_by_role("heading", name="Create a room")).to_be_visible()
    screenshot(ann, "lobby")
    link = create_room(ann, "ann", code=CODE, boards="live")  # the host lets spectators see
    expect(ann.locator(".room-settings")).to_contain_text("a chosen deal")

    # bob opens the shared link and joins
    bob = tabs.page(link)
    expect(bob.get_by_role("heading", name=f"Room {link[-8:]}")).to_be_visible()
    set_nickname(bob, "bob")
    bob.get_by_role("button", name="Join the race").click()
    bob_line = ann.locator(".players li", has_text="bob")
    expect(bob_line).to_contain_text("not ready")
    bob.get_by_role("button", name="I'm ready").click()
    expect(bob_line).to_contain_text("✓ ready")
    ann.get_by_role("button", name="Start the race").click()

    for page in (ann, bob):
        expect(card(page, home)).to_be_visible()
        expect(stat(page, "Moves")).to_have_text("0")
        label = f"column 4, 3 face-down cards, {long_name(start.columns[3][-1])} on top"
        expect(pile(page, "t4")).to_have_attribute("aria-label", label)

    # ann: a tap sends a card to its foundation; a tap on a card with two
    # targets picks it up, a tap on a target puts it there
    card(ann, home).click()
    expect(pile(ann, foundation).locator(f'[data-card="{home}"]')).to_be_visible()
    card(ann, lone).click()
    expect(card(ann, lone)).to_have_class("card picked" if lone[1] in "SC" else "card red picked")
    expect(pile(ann, "t1")).to_have_class("pile column target")
    expect(pile(ann, "t3")).to_have_class("pile column target")
    pile(ann, "t1").click()
    expect(pile(ann, "t1").locator(f'[data-card="{lone}"]')).to_be_visible()
    expect(stat(ann, "Moves")).to_have_text("2")

    # bob: a drop where the card cannot go puts it back; a drag onto column 3 moves it
    drag(bob, card(bob, lone), pile(bob, "t2"))
    expect(bob.locator(".toast", has_text="can't go")).to_be_visible()
    expect(pile(bob, "t5").locator(f'[data-card="{lone}"]')).to_be_visible()
    drag(bob, card(bob, lone), pile(bob, "t3"))
    expect(pile(bob, "t3").locator(f'[data-card="{lone}"]')).to_be_visible()
    expect(stat(bob, "Moves")).to_have_text("1")

    # ann sees bob's progress on her leaderboard; then bob catches up
    expect(lb_row(ann, "bob").locator(".lb-status")).to_have_text("racing")
    expect(lb_row(ann, "ann").locator(".lb-cards")).to_have_text("1/52")
    expect(lb_row(ann, "ann").locator(".lb-rank")).to_have_text("1")
    card(bob, home).click()
    expect(lb_row(ann, "bob").locator(".lb-cards")).to_have_text("1/52")
    # a Normal deal: the leaderboard shows its points, as the status bar does (never Vegas dollars)
    expect(lb_row(ann, "bob").locator(".lb-money")).to_have_text("20 pts")
    expect(ann.locator(".lb-row")).to_have_count(2)
    screenshot(ann, "race")

    # a spectator from the room link: the leaderboard and both boards, no secret
    watcher = tabs.page(link + "?watch")
    expect(watcher.locator(".lb-row")).to_have_count(2)
    expect(lb_row(watcher, "bob").locator(".lb-cards")).to_have_text("1/52")
    tiles = watcher.locator(".tile")
    expect(tiles).to_have_count(2)
    expect(watcher.locator(".tile", has_text="ann")).to_contain_text("2 moves")
    expect(watcher.locator(".tile", has_text="bob")).to_contain_text("2 moves")
    watcher.locator(".tile", has_text="bob").click()
    expect(watcher.locator(".tile.big")).to_have_count(1)
    screenshot(watcher, "spectator")

    games = {"ann": Game(CODE), "bob": Game(CODE)}
    for m in ("t4>f", "t5>t1"):
        games["ann"].push(m)
    for m in ("t5>t3", "t4>f"):
        games["bob"].push(m)
    secret = hidden(games["ann"]) & hidden(games["bob"])
    assert len(secret) > 30
    html = watcher.content()
    text = watcher.inner_text("body")
    for c in secret:
        for form in shown_as(c):
            assert form not in html and form not in text, f"{card_name(c)} shows in the spectator's page"
    frames = tabs.frames[watcher]
    assert frames, "the spectator received no frames"
    for raw in frames:
        json.loads(raw)
        for c in secret:
            assert f'"{card_name(c)}"' not in raw, f"{card_name(c)} was sent to the spectator: {raw[:200]}"
    # the players' own pages never name a card they have not seen either
    for name, page in (("ann", ann), ("bob", bob)):
        for raw in tabs.frames[page]:
            for c in hidden(games[name]):
                assert f'"{card_name(c)}"' not in raw

    # both resign: the results, the revealed code, and the host's rematch
    resign(ann)
    expect(ann.locator(".notice.done")).to_contain_text("Your race is over")
    resign(bob)
    for page in (ann, bob, watcher):
        results = page.locator(".results")
        expect(results).to_be_visible()
        expect(results.locator(".results-code")).to_have_text(CODE)
        expect(results.locator("tbody tr")).to_have_count(2)
    expect(ann.locator(".results").get_by_role("button", name="Rematch")).to_be_visible()
    expect(bob.locator(".results").get_by_role("button", name="Rematch")).to_be_hidden()
    ann.locator(".results").get_by_role("button", name="Rematch").click()
    for page in (ann, bob):
        expect(page.get_by_role("heading", name=f"Room {link[-8:]}")).to_be_visible()
        expect(page.locator(".players li")).to_have_count(2)
        # the rematch is a random deal, not the code ann chose
        expect(page.locator(".room-settings")).to_contain_text("a random deal")
        expect(page.locator(".room-settings")).not_to_contain_text("a chosen deal")


def test_the_host_removes_a_player_and_a_taken_name_is_refused(tabs: Tabs) -> None:
    ann = tabs.page("/")
    link = create_room(ann, "ann")
    bob = tabs.page(link)
    set_nickname(bob, "ANN")  # names are unique whatever their case
    bob.get_by_role("button", name="Join the race").click()
    expect(bob.get_by_role("alert")).to_contain_text("taken")
    set_nickname(bob, "bob")
    bob.get_by_role("button", name="Join the race").click()
    expect(ann.locator(".players li")).to_have_count(2)
    ann.get_by_role("button", name="Remove bob").click()
    expect(ann.locator(".players li")).to_have_count(1)
    expect(bob.locator(".toast")).to_contain_text("removed you")
    expect(bob.get_by_role("heading", name="Create a room")).to_be_visible()
    expect(bob).to_have_url(re.compile(r"/$"))


def test_a_racers_second_tab_is_not_shown_her_race_and_the_form_says_why(tabs: Tabs) -> None:
    """Regression (issue 16, probe 2): a second tab of a racer's browser
    watched her race and got every opponent's board, so cards still face
    down on her own table. The create form now shows boards after the race
    by default and says in one line what live and delayed let a racer see;
    a watch from a racer's browser carries her seat token and is refused."""
    ann = tabs.page("/")
    form = ann.locator("form.create")
    expect(form.get_by_label("After the race", exact=True)).to_be_checked()
    expect(form.locator(".boards-note")).to_contain_text("a racer could watch in a second tab")
    link = create_room(ann, "ann", code=CODE, boards="live")
    bob = tabs.page(link)
    set_nickname(bob, "bob")
    bob.get_by_role("button", name="Join the race").click()
    bob.get_by_role("button", name="I'm ready").click()
    expect(ann.locator(".players li", has_text="bob")).to_contain_text("✓ ready")
    ann.get_by_role("button", name="Start the race").click()
    expect(card(ann, top(Game(CODE), 4))).to_be_visible()

    second = tabs.page(link + "?watch", context=ann.context)  # the same browser: her storage
    expect(second.locator(".nick .form-error")).to_contain_text(f"You race in room {link[-8:]}")
    expect(second.get_by_role("heading", name="Create a room")).to_be_visible()
    expect(second.get_by_role("button", name="Go back")).to_be_visible()
    sent = [json.loads(f) for f in tabs.sent[second]]
    assert any(m["t"] == "watch" and m["d"].get("token") for m in sent), sent
    frames = [json.loads(f) for f in tabs.frames[second]]
    assert not any(m["t"] == "boards" for m in frames)
    assert any(m["t"] == "reject" and m["d"]["code"] == "own_race" for m in frames)
    # a browser of its own is a spectator like any: the host chose live boards
    watcher = tabs.page(link + "?watch")
    expect(watcher.locator(".tile")).to_have_count(2)
    expect(ann.locator(".race .board")).to_be_visible()  # her table is untouched
