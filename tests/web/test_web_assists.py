"""Assists in the browser: the create-room settings (winnable deals, the
solver's assists), the winnability badge, the "no longer winnable" notice and
its undo back, and the "no useful move" notice."""

from __future__ import annotations

import json
import re

import pytest
from harness import RedisServer, ServerProcess, Servers, wait_until
from playwright.sync_api import Page, expect
from web_support import TOASTS_JS, pile, poll, set_nickname, start_solo, stat

from conftest import Tabs, screenshot
from server.store import keys

pytestmark = pytest.mark.browser

VEGAS = "KL1-D1V-Q2OVTPZ"  # won at once by the solver; lost after its 24 draws; winnable 15 undos back
IDLE = "KL1-D1V-ATDJ4LP"  # after its 24 draws only w>t3 is legal, and nothing makes progress
NEVER = "KL1-D1V-AAAAAAE"  # the solver proves it lost from its first card, at once


@pytest.fixture(scope="module")
def redis(module_redis: RedisServer) -> RedisServer:
    return module_redis  # its winnable sets start empty


@pytest.fixture(scope="module")
def server(redis: RedisServer, module_servers: Servers) -> ServerProcess:
    return module_servers.start(redis.url, env={"KLONDIKE_WINNABLE_POOL": "2",
                                                "KLONDIKE_WINNABLE_MODES": "D1N"})



def draw_all(page: Page) -> None:
    for n in range(1, 25):
        pile(page, "stock").click()
        expect(stat(page, "Moves")).to_have_text(str(n))


def test_the_create_room_screen_offers_winnable_deals_and_solver_assists(tabs: Tabs,
                                                                         redis: RedisServer) -> None:
    wait_until(lambda: redis.client().scard(keys.winnable("D1N")) >= 1, timeout=60,
               what="a winnable D1N deal ready")
    page = tabs.page("/")
    set_nickname(page, "host")
    form = page.locator("form.create")
    form.get_by_label("Random, winnable").check()
    form.get_by_label("Assists").select_option("solver")
    form.get_by_role("button", name="Create room").click()
    settings = page.locator(".room-settings")
    expect(settings).to_contain_text("a random winnable deal")
    expect(settings).to_contain_text("hints and winnability on")
    page.get_by_role("button", name="Start the race").click()
    expect(page.locator(".winnable-badge")).to_have_text("Winnable", timeout=30_000)


def test_the_badge_and_the_no_longer_winnable_notice(tabs: Tabs) -> None:
    page = tabs.page("/")
    start_solo(page, "ann", VEGAS, assists="solver")
    page.evaluate(TOASTS_JS)
    badge = page.locator(".winnable-badge")
    expect(badge).to_have_text("Winnable", timeout=30_000)
    draw_all(page)
    # lost by a move: the badge and a message say how far back it can be won; nothing covers the board
    expect(badge).to_have_text("Winnable 15 undos back", timeout=30_000)
    page.wait_for_function("() => window.__said.some((t) => t.startsWith('That move lost the game: '))")
    told = [t for t in page.evaluate("() => window.__said") if t.startswith("That move lost")]
    assert len(told) == 1
    assert re.fullmatch(r"That move lost the game: \d+ undos? back it can still be won\.", told[0])
    notice = page.locator(".notice.stuck")
    expect(notice).to_be_hidden()
    again = page.locator(".controls").get_by_role("button", name="Not winnable…")
    again.click()  # the player asks
    expect(notice).to_be_visible()
    expect(notice).to_contain_text("This game can no longer be won.")
    for name in ("Undo 15 moves: winnable again", "A new deal", "The same deal again", "View the board"):
        expect(notice.get_by_role("button", name=name)).to_be_visible()
    screenshot(page, "assists-lost")

    notice.get_by_role("button", name="View the board").click()  # looking at the board
    expect(notice).to_be_hidden()
    pile(page, "stock").click()  # nothing left to draw: still lost, and the notice stays put aside
    expect(page.locator(".toast", has_text="No more passes")).to_be_visible()
    expect(notice).to_be_hidden()
    again.click()
    expect(notice).to_be_visible()

    notice.get_by_role("button", name="Undo 15 moves: winnable again").click()
    expect(stat(page, "Moves")).to_have_text("9", timeout=20_000)
    expect(badge).to_have_text("Winnable")
    expect(notice).to_be_hidden()


def test_a_deal_never_winnable_says_so_once_and_covers_nothing(tabs: Tabs) -> None:
    """A Vegas deal the solver proves lost from its first card: the badge and
    one message say so, and the player plays on for the dollars; the notice
    with the ways out opens only when asked, and offers no undo."""
    page = tabs.page("/")
    page.evaluate(TOASTS_JS)
    start_solo(page, "ann", NEVER, assists="solver")
    badge = page.locator(".winnable-badge")
    expect(badge).to_have_text("Unwinnable deal", timeout=30_000)
    said = "This deal can't be won, whatever you play: go for the dollars ($5 a card home)."
    page.wait_for_function("(text) => window.__said.includes(text)", arg=said)
    notice = page.locator(".notice.stuck")
    expect(notice).to_be_hidden()
    for n in range(1, 4):
        pile(page, "stock").click()
        expect(stat(page, "Moves")).to_have_text(str(n))
        expect(badge).to_have_text("Unwinnable deal")
    page.evaluate("() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))")
    assert page.evaluate("() => window.__said").count(said) == 1  # once
    expect(notice).to_be_hidden()
    screenshot(page, "assists-deal-lost")
    page.locator(".controls").get_by_role("button", name="Not winnable…").click()
    expect(notice).to_be_visible()
    expect(notice).to_contain_text("This deal cannot be won.")
    expect(notice).to_contain_text("Play on for the dollars you can still get home")
    for name in ("A new deal", "The same deal again", "View the board", "Resign"):
        expect(notice.get_by_role("button", name=name, exact=True)).to_be_visible()
    expect(notice.get_by_role("button", name=re.compile("^Undo"))).to_be_hidden()  # no undo helps
    notice.get_by_role("button", name="View the board").click()
    expect(notice).to_be_hidden()


def test_the_no_useful_move_notice_in_a_room_with_basic_hints(tabs: Tabs) -> None:
    page = tabs.page("/")
    start_solo(page, "ann", IDLE, assists="basic")
    expect(page.locator(".winnable-badge")).to_be_hidden()  # the solver's badge: solver assists only
    draw_all(page)
    notice = page.locator(".notice.stuck")
    expect(notice).to_contain_text("No useful move left.")
    for name in ("Undo", "A new deal", "The same deal again", "View the board"):
        expect(notice.get_by_role("button", name=name, exact=True)).to_be_visible()
    notice.get_by_role("button", name="View the board").click()
    expect(notice).to_be_hidden()
    page.locator(".controls").get_by_role("button", name="No useful move…").click()
    notice.get_by_role("button", name="Undo", exact=True).click()
    expect(stat(page, "Moves")).to_have_text("23")
    expect(notice).to_be_hidden()

    pile(page, "stock").click()  # back where nothing is useful
    expect(notice).to_be_visible()
    notice.get_by_role("button", name="A new deal").click()  # no "are you sure": the game is dead
    expect(stat(page, "Moves")).to_have_text("0")
    expect(notice).to_be_hidden()


def test_off_assists_show_no_badge_and_no_hint(tabs: Tabs) -> None:
    page = tabs.page("/")
    start_solo(page, "ann", IDLE, assists="off")
    expect(page.locator(".controls").get_by_role("button", name="Hint")).to_be_hidden()
    draw_all(page)
    expect(page.locator(".notice.stuck")).to_be_hidden()  # no assists: no "no useful move" either
    expect(page.locator(".winnable-badge")).to_be_hidden()


def test_the_tournament_form_offers_winnable_deals_and_solver_assists(tabs: Tabs,
                                                                      redis: RedisServer) -> None:
    wait_until(lambda: redis.client().scard(keys.winnable("D1N")) >= 2, timeout=60,
               what="two winnable D1N deals ready")
    page = tabs.page("/")
    form = page.locator("form.tournament-form")
    form.get_by_label("Tournament name").fill("Winnable night")
    form.get_by_label("Random, winnable").check()
    form.get_by_label("Rounds").fill("2")
    form.get_by_label("Scoring").select_option("N")
    form.get_by_label("Assists").select_option("solver")
    form.get_by_role("button", name="Create tournament").click()
    expect(page).to_have_url(re.compile(r"/t/[A-Z0-9]{8}\?admin$"))

    def synced() -> list[dict[str, object]]:
        return [json.loads(f)["d"]["tournament"]["settings"] for f in tabs.frames[page]
                if json.loads(f)["t"] == "t_sync"]
    poll(page, lambda: bool(synced()), "the tournament's t_sync")
    settings = synced()[-1]
    assert settings["deal"] == "winnable" and settings["assists"] == "solver"
    assert settings["modes"] == ["D1N", "D1N"]
