"""Staying in the game: a reload, a lost connection, the seat opened elsewhere."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import pytest
from harness import ServerProcess
from playwright.sync_api import expect
from proxy import Proxy
from web_support import Traffic, card, pile, poll, start_solo, stat, table

from conftest import Tabs

pytestmark = pytest.mark.browser

CODE = "KL1-D1N-AAAAAAA"


@pytest.fixture
def proxy(server: ServerProcess) -> Iterator[Proxy]:
    p = Proxy(server.port).start()
    yield p
    p.close()


def test_a_reload_mid_race_resumes_the_same_board(tabs: Tabs) -> None:
    page = tabs.page("/")
    start_solo(page, "ann", CODE)
    card(page, "AH").click()  # to its foundation
    expect(stat(page, "Moves")).to_have_text("1")
    card(page, "3D").click()  # its only target: column 5
    expect(stat(page, "Moves")).to_have_text("2")
    pile(page, "stock").click()
    expect(stat(page, "Moves")).to_have_text("3")
    before = table(page)
    url = page.url

    page.reload()
    expect(stat(page, "Moves")).to_have_text("3")
    assert page.url == url
    assert table(page) == before
    expect(stat(page, "Score")).to_have_text("20 pts")
    # the seat goes on where it was: the next move is accepted
    page.keyboard.press("u")
    expect(stat(page, "Moves")).to_have_text("2")
    pile(page, "stock").click()
    expect(stat(page, "Moves")).to_have_text("3")
    assert table(page) == before


def test_the_seat_opened_elsewhere_stops_here_until_taken_back(tabs: Tabs) -> None:
    ctx = tabs.context()
    first = tabs.page("/", context=ctx)
    start_solo(first, "ann", CODE)
    card(first, "AH").click()
    expect(stat(first, "Moves")).to_have_text("1")

    second = tabs.page(first.url, context=ctx)  # same browser, same seat
    expect(stat(second, "Moves")).to_have_text("1")
    banner = first.locator("#banner")
    expect(banner).to_contain_text("opened in another tab")
    assert table(second) == table(first)
    card(second, "3D").click()
    expect(stat(second, "Moves")).to_have_text("2")
    expect(stat(first, "Moves")).to_have_text("1")  # no reconnect behind the player's back

    banner.get_by_role("button", name="Play here").click()
    expect(banner).to_be_hidden()
    expect(stat(first, "Moves")).to_have_text("2")
    expect(second.locator("#banner")).to_contain_text("opened in another tab")


def test_a_lost_connection_reconnects_and_resends_the_unanswered_move(tabs: Tabs, proxy: Proxy) -> None:
    page = tabs.page(proxy.url + "/")
    start_solo(page, "ann", CODE)
    card(page, "3D").click()
    expect(stat(page, "Moves")).to_have_text("1")

    proxy.pause()  # what the page sends now is held...
    card(page, "AH").click()
    expect(page.locator(".race")).to_have_class("screen race busy")  # waiting for the answer
    poll(page, lambda: any('"m":"t7>f"' in frame for frame in tabs.sent[page]), "the move to be sent")
    proxy.cut()  # ...and lost with the connection
    banner = page.locator("#banner")
    expect(banner).to_contain_text("reconnecting")
    expect(stat(page, "Moves")).to_have_text("1")

    proxy.resume()
    expect(banner).to_be_hidden()
    expect(pile(page, "fh").locator('[data-card="AH"]')).to_be_visible()
    expect(stat(page, "Moves")).to_have_text("2")
    resent = [f for f in tabs.sent[page] if '"m":"t7>f"' in f]
    assert len(resent) == 2 and resent[0] == resent[1], "resent with the same sequence number"
    assert proxy.connections >= 3  # the page, the first socket, the second

    page.reload()  # the server kept it
    expect(stat(page, "Moves")).to_have_text("2")
    expect(pile(page, "fh").locator('[data-card="AH"]')).to_be_visible()


def test_a_reload_downloads_nothing_unchanged(tabs: Tabs) -> None:
    """The files are named by their hash and cached for long: a reload asks for
    the page only (answered 304 once the browser has it) and takes every other
    file from the cache without asking."""
    page = tabs.page(None)
    traffic = Traffic(page)
    page.goto("/")
    start_solo(page, "ann", CODE)
    page.wait_for_load_state("networkidle")
    poll(page, traffic.answered, "every request answered")
    scripts = [r for r in traffic.requests() if "/js/" in r["url"]]
    assert len(scripts) > 20
    for r in scripts:  # asked for by hash: cached for a year, compressed
        assert "?v=" in r["url"], r["url"]
        headers = r["headers"]
        assert headers["cache-control"] == "public, max-age=31536000, immutable", r["url"]
        assert headers.get("content-encoding") == "gzip" or int(headers["content-length"]) < 256, r["url"]

    room = page.url.split("/", 3)[3]
    for status in (200, 304):  # the page of /r/ID is new to the cache at the first reload (pushState)
        traffic.clear()
        page.reload()
        expect(stat(page, "Moves")).to_have_text("0")
        page.wait_for_load_state("networkidle")

        def asked() -> list[tuple[int, str]]:
            return [(r["status"], r["url"].split("/", 3)[3]) for r in traffic.requests() if not r["cache"]]
        # a request's last events (from the cache; its status on the wire) may come after the page is idle
        with contextlib.suppress(TimeoutError):
            poll(page, lambda want=[(status, room)]: traffic.answered() and asked() == want,
                 "only the page asked for")
        assert asked() == [(status, room)]
        assert len(traffic.requests()) > 20  # everything else came from the cache
