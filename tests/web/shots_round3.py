"""Screenshots of issue 25's items for docs/screenshots/round3/ (not a test of
the suite: run by hand, ``SHOTS=before`` or ``SHOTS=after``):

    .venv/bin/python -m pytest tests/web/shots_round3.py -q -p no:cacheprovider

Each scene is shot on a desktop (1366×800) and a phone (390×844)."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect
from test_web_daily import deals, server  # noqa: F401  (the daily deal's server; clock_file is conftest's)
from web_support import create_room, play_fast, set_nickname, start_solo

from conftest import Tabs

pytestmark = pytest.mark.browser

OUT = Path(__file__).resolve().parents[2] / "docs" / "screenshots" / "round3"
WHEN = os.environ.get("SHOTS", "after")
PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True,
         "device_scale_factor": 2, "locale": "en-GB"}
DESKTOP = {"viewport": {"width": 1366, "height": 800}, "locale": "en-GB"}
SIZES = {"desktop": DESKTOP, "phone": PHONE}


def shot(page: Page, name: str) -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    page.wait_for_timeout(300)  # a slide or a fade settles
    page.screenshot(path=str(OUT / f"{name}-{WHEN}.png"))


@pytest.mark.parametrize("size", SIZES)
def test_first_screen_and_a_bad_code(tabs: Tabs, size: str) -> None:
    page = tabs.page("/", **SIZES[size])
    expect(page.locator(".screen.lobby")).to_be_visible()
    shot(page, f"item3-lobby-{size}")
    set_nickname(page, "ann")
    if WHEN == "before":
        solo = page.locator("form.solo")
        solo.get_by_label("A code").check()
        solo.get_by_label("Solo deal code").fill("KL1-NOPE")
        solo.get_by_role("button", name="Play solo").click()
    else:
        page.get_by_role("button", name="More options: Play solo").click()
        solo = page.locator("form.solo")
        solo.get_by_label("A code").check()
        solo.get_by_label("Solo deal code").fill("KL1-NOPE")
        solo.get_by_role("button", name="Play solo").click()
    expect(page.get_by_text("That is not a valid deal code.")).to_have_count(1)
    page.wait_for_timeout(600)  # the scroll to it
    shot(page, f"item3-bad-code-{size}")


@pytest.mark.parametrize("size", SIZES)
def test_the_table(tabs: Tabs, size: str) -> None:
    page = tabs.page("/", **SIZES[size])
    start_solo(page, "ann", "KL1-D1N-AAAAAAG")
    shot(page, f"item1-table-{size}")


def test_daily_ranking_and_player_page(tabs: Tabs, deals: dict[str, tuple[str, list[str]]]) -> None:  # noqa: F811
    _, line = deals["D1V"]
    pia = tabs.page("/", **DESKTOP)
    set_nickname(pia, "pia")
    pia.locator(".daily-mode", has_text="Draw one · Vegas").get_by_role("button", name="Play").click()
    pia.get_by_role("button", name="Start my game").click()
    play_fast(pia, line)
    shot(pia, "item4-daily-table-desktop")
    pia.goto("/")
    card = pia.locator(".daily-mode", has_text="Draw one · Vegas")
    expect(card.locator(".daily-place")).to_contain_text("1st")
    pid = pia.evaluate("() => JSON.parse(localStorage.getItem('kr.player')).id")
    board = card.get_by_role("link", name="Leaderboard")
    room = (board.get_attribute("href") or "").split("/r/")[-1].split("?")[0]
    phone = tabs.page("/", **PHONE)
    watcher = tabs.page("/", **DESKTOP)
    for page, size in ((watcher, "desktop"), (phone, "phone")):
        page.goto(f"/r/{room}?watch")
        expect(page.locator("main > .screen:not([hidden])")).to_have_count(1)
        page.wait_for_timeout(1000)
        shot(page, f"item4-daily-ranking-{size}")
    for page, size in ((pia, "desktop"), (phone, "phone")):
        page.goto(f"/p/{pid}")
        expect(page.locator(".screen.profile")).to_be_visible()
        page.wait_for_timeout(800)
        shot(page, f"item5-player-page-{size}")


def test_watching_a_public_race(tabs: Tabs) -> None:
    ann = tabs.page("/", **DESKTOP)
    set_nickname(ann, "ann")
    ann.locator("form.create").get_by_label("Public: listed in the lobby").check()
    room = create_room(ann, "ann").rsplit("/", 1)[1]
    bob = tabs.page(f"/r/{room}", **DESKTOP)
    set_nickname(bob, "bob")
    bob.get_by_role("button", name="Join the race").click()
    bob.get_by_role("button", name="I'm ready").click()
    ann.get_by_role("button", name="Start the race").click()
    expect(ann.locator(".race .board .card").first).to_be_visible()
    for page in (ann, bob):
        expect(page.locator(".race .board .card").first).to_be_visible()
        page.wait_for_timeout(3500)
        page.keyboard.press(" ")
    for size, options in SIZES.items():
        dee = tabs.page(f"/r/{room}?watch", **options)
        expect(dee.locator(".screen.watch")).to_be_visible()
        dee.wait_for_timeout(1500)
        shot(dee, f"item6-watching-{size}")
    assert re.match(r"[A-Z0-9]{8}", room)


def test_a_friends_join_card(tabs: Tabs) -> None:
    ann = tabs.page("/", **DESKTOP)
    link = create_room(ann, "ann")
    for size, options in SIZES.items():
        friend = tabs.page(link, **options)
        expect(friend.locator(".panel.link")).to_be_visible()
        friend.wait_for_timeout(800)
        shot(friend, f"item6-join-card-{size}")
