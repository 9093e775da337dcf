"""A race from its countdown to its results: the winner's celebration, the
announcement to everyone in the room, the podium, Leave that asks first,
and the results' headline. The server of this module counts down 3 s, long
enough to look at the table before the deal."""

from __future__ import annotations

import re

import pytest
from harness import RedisServer, ServerProcess, Servers, load_wins
from playwright.sync_api import Locator, Page, expect
from web_support import create_room, hold_clock, play_fast, resign, run_clock_until, set_nickname, stat

from conftest import Tabs, screenshot

pytestmark = pytest.mark.browser

CODE = "KL1-D1V-ACT552B"
SCRIPT = next(w["script"] for w in load_wins() if w["code"] == CODE)
FINISH_AT = 104  # from here the server offers auto-complete
TIME = re.compile(r"\d+:\d\d")


@pytest.fixture(scope="module")
def server(redis_server: RedisServer, module_servers: Servers) -> ServerProcess:
    return module_servers.start(redis_server.url, env={"KLONDIKE_COUNTDOWN": "3"})


def lb_status(page: Page, nickname: str) -> Locator:
    return page.locator(".race .lb-row, .watch .lb-row").filter(
        has=page.locator(".lb-name", has_text=nickname)).locator(".lb-status")


def join(tabs: Tabs, link: str, nickname: str) -> Page:
    page = tabs.page(link, clock=True)
    set_nickname(page, nickname)
    page.get_by_role("button", name="Join the race").click()
    page.get_by_role("button", name="I'm ready").click()
    expect(page.get_by_role("button", name="Not ready after all")).to_be_visible()
    return page


def test_a_finish_is_celebrated_announced_to_the_room_and_ranked(tabs: Tabs) -> None:
    ann = tabs.page("/", clock=True)
    link = create_room(ann, "ann", code=CODE)
    bob = join(tabs, link, "bob")
    cat = join(tabs, link, "cat")
    watcher = tabs.page(link + "?watch", clock=True)
    expect(watcher.locator(".lb-row")).to_have_count(3)
    ann.get_by_role("button", name="Start the race").click()

    # the countdown: the figures every game starts from, and nobody racing yet
    for page in (ann, bob):
        expect(page.locator(".notice.countdown")).to_be_visible()
        expect(stat(page, "Time")).to_have_text(re.compile(r"^starts in [123]$"))
        expect(stat(page, "Moves")).to_have_text("0")
        expect(stat(page, "Cards")).to_have_text("0/52")
        expect(stat(page, "Score")).to_have_text("-$52")
        expect(lb_status(page, "cat")).to_have_text("at the start")
    for page in (ann, bob, cat):
        expect(page.locator(".race .board .card").first).to_be_visible(timeout=15_000)
    expect(lb_status(ann, "cat")).to_have_text("racing")

    play_fast(cat, SCRIPT[:9])  # cat gets five cards home, then gives up
    resign(cat)
    expect(cat.locator(".notice.done")).to_contain_text("Your race is over")

    # bob wins: his table celebrates, the others hear of it, the podium fills.
    # The others' clocks are held: the news (a toast of a few seconds) stays
    # until the test has looked at it, and goes when their clocks move on
    # Bob's clock is held too: his celebration runs as the test moves it
    for page in (ann, cat, watcher):
        hold_clock(page)
    play_fast(bob, SCRIPT[:FINISH_AT])
    hold_clock(bob)
    bob.keyboard.press("f")
    cascade = bob.locator(".race .table canvas.cascade")
    run_clock_until(bob, lambda: cascade.count() > 0, most_ms=60_000)
    for page in (ann, cat, watcher):
        toast = page.locator(".toast.win", has_text="bob finished 1st in")
        expect(toast).to_be_visible()
        expect(toast).to_have_text(re.compile(r"bob finished 1st in \d+:\d\d"))
    screenshot(ann, "finish")
    run_clock_until(bob, lambda: int(cascade.get_attribute("data-launched") or 0) >= 16, step_ms=70)
    expect(cascade).to_be_visible()  # a trail to see, and still running
    screenshot(bob, "celebration")
    expect(bob.locator(".race .cascade-skip")).to_have_text("Tap or press a key to skip")
    cascade.click()  # a tap skips it
    bob.clock.run_for(500)  # (it fades out)
    expect(cascade).to_have_count(0)
    expect(bob.locator(".race .cascade-skip")).to_have_count(0)
    bob.clock.resume()
    for page in (ann, cat, watcher):
        page.clock.run_for(6_500)  # the news goes (a finish's: twice the 3 s of a message)
        expect(page.locator(".toast.win")).to_have_count(0)
        page.clock.resume()
    for page in (ann, cat, watcher):
        podium = page.locator(".side .podium")
        expect(podium.locator('.podium-step[data-place="1"]')).to_contain_text("bob")
        expect(podium.locator('.podium-step[data-place="1"] .podium-time')).to_have_text(TIME)
        expect(podium.locator('.podium-step[data-place="2"]')).to_contain_text("…")
        expect(lb_status(page, "bob")).to_have_text(re.compile(r"^finished \d+:\d\d$"))
    done = bob.locator(".notice.done")
    expect(done).to_contain_text(re.compile(r"You finished 1st in \d+:\d\d!"))
    expect(done.locator('.podium-step[data-place="1"]')).to_contain_text("bob (you)")
    assert bob.locator(".toast.win").count() == 0  # the winner celebrates instead

    # Leave asks first: "Stay" keeps the seat and the game
    ann.get_by_role("button", name="Leave", exact=True).click()
    question = ann.get_by_role("dialog", name="Leave the race?")
    expect(question).to_be_visible()
    expect(question).to_contain_text("give up your seat")
    question.get_by_role("button", name="Stay").click()
    expect(question).to_be_hidden()
    expect(ann.locator(".race .board .card").first).to_be_visible()
    expect(lb_status(bob, "ann")).to_have_text("racing")
    play_fast(ann, SCRIPT[:1])
    ann.get_by_role("button", name="Leave", exact=True).click()
    ann.get_by_role("dialog", name="Leave the race?").get_by_role("button", name="Leave the race").click()
    expect(ann.get_by_role("heading", name="Create a room")).to_be_visible()

    # the race is over: the results with their headline
    expect(bob.get_by_role("dialog", name="You won the race!")).to_be_visible()
    cat_results = cat.get_by_role("dialog", name="You placed 2nd of 3")
    expect(cat_results).to_be_visible()
    expect(cat_results.locator('.podium-step[data-place="1"]')).to_contain_text("bob")
    rows = cat_results.locator("tbody tr")
    expect(rows).to_have_count(3)
    expect(rows.nth(0)).to_contain_text("bob")
    expect(rows.nth(1)).to_contain_text("cat (you)")
    expect(rows.nth(2)).to_contain_text("left")
    expect(watcher.get_by_role("dialog", name="The race is over")).to_contain_text("Won by bob in")
    screenshot(cat, "race-results")
