"""Players in the browser: a key on a first visit, the player's page with
their games (a race and a solo game, each with its code once over, a page at
a time), a new nickname, the public page another browser sees (the record
only), the move to a 390 px phone by the one-time link and by the typed code
(the link refused a second time), and "Forget me". A browser that cannot
keep a key plays as before."""

from __future__ import annotations

import re
from typing import Any

import pytest
from crowd import Crowd
from harness import Client, eventually
from playwright.sync_api import Page, expect
from web_support import create_room, recorded, resign, set_nickname, start_solo

from conftest import Tabs, screenshot

pytestmark = pytest.mark.browser

PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True,
         "device_scale_factor": 2}
FITS_JS = "() => document.documentElement.scrollWidth <= document.documentElement.clientWidth"
RACE_CODE = "KL1-D1N-AAAAADF"
SOLO_CODE = "KL1-D3V-AAAAAAG"


def kept_player(page: Page) -> dict[str, Any]:
    """The player the page keeps (storage.js): {key, id, nickname}, once the server made it."""
    page.wait_for_function("() => { const p = JSON.parse(localStorage.getItem('kr.player'));"
                           " return p && p.id; }")
    return dict(page.evaluate("() => JSON.parse(localStorage.getItem('kr.player'))"))


def open_own_page(page: Page, games: int = 0) -> None:
    """From anywhere (once ``games`` are on record): the lobby, then the
    link to the player's page."""
    recorded(page, kept_player(page)["id"], games)
    page.goto("/")
    page.locator(".player-line a").click()
    expect(page.get_by_text("This is you.")).to_be_visible()


def test_a_player_s_games_and_page_and_the_move_to_a_phone(tabs: Tabs) -> None:
    ann = tabs.page("/")
    me = kept_player(ann)
    assert len(me["key"]) >= 22 and me["nickname"] == "player"
    assert me["key"] not in ann.url

    # a race against bob (another browser): both resign
    link = create_room(ann, "ann", code=RACE_CODE)
    bob = tabs.page(link)
    set_nickname(bob, "bob")
    bob.get_by_role("button", name="Join the race").click()
    bob.get_by_role("button", name="I'm ready").click()
    expect(ann.locator(".players li", has_text="bob")).to_contain_text("✓ ready")
    ann.get_by_role("button", name="Start the race").click()
    for page in (ann, bob):
        expect(page.locator(".race .board .card").first).to_be_visible()
    resign(ann)
    resign(bob)
    expect(ann.get_by_text(RACE_CODE).first).to_be_visible()  # the results: the code revealed

    # then a solo game, resigned
    ann.goto("/")
    start_solo(ann, "ann", SOLO_CODE)
    resign(ann)
    expect(ann.locator(".results")).to_be_visible()

    open_own_page(ann, 2)
    expect(ann.locator("#p-title")).to_have_text("ann")  # the nickname she raced under
    expect(ann.locator(".p-game")).to_have_count(2)
    solo, race = ann.locator(".p-game").all()
    expect(solo).to_contain_text("Solo game")
    expect(solo).to_contain_text("Draw three · Vegas")
    expect(solo).to_contain_text(SOLO_CODE)
    expect(race).to_contain_text("Race")
    expect(race).to_contain_text(re.compile(r"(1st|2nd) of 2 · Resigned"))
    expect(race).to_contain_text(RACE_CODE)
    figures = ann.locator(".p-figure")
    expect(figures.nth(0)).to_have_text(re.compile(r"^\s*2\s*games"))
    expect(ann.locator(".t-note", has_text="1–2 of 2, newest first.")).to_be_visible()
    screenshot(ann, "player-page")

    # a new nickname, on every page that shows it
    ann.get_by_label("Your nickname").fill("Ann Smith")
    ann.get_by_role("button", name="Save").click()
    expect(ann.locator("#p-title")).to_have_text("Ann Smith")

    # the public page, in bob's browser: the record, not the games nor their codes
    bob.goto(f"/p/{me['id']}")
    expect(bob.locator("#p-title")).to_have_text("Ann Smith")
    expect(bob.get_by_text(f"Player {me['id']}")).to_be_visible()
    expect(bob.locator(".p-games")).to_be_hidden()
    expect(bob.locator(".p-you")).to_be_hidden()
    assert RACE_CODE not in bob.content() and SOLO_CODE not in bob.content()

    # the move to a phone: a one-time link
    ann.get_by_role("button", name="Make a one-time code").click()
    move_link = ann.get_by_label("Link for the other device")
    expect(move_link).to_have_value(re.compile(rf"/p/{me['id']}#claim=[A-Z0-9]{{10}}$"))
    url = move_link.input_value()
    phone = tabs.page(url, **PHONE)
    expect(phone.get_by_text("This is you.")).to_be_visible()
    expect(phone.locator("#p-title")).to_have_text("Ann Smith")
    expect(phone.locator(".p-game")).to_have_count(2)
    assert "claim" not in phone.url  # the code is gone from the address
    moved = kept_player(phone)
    assert moved["id"] == me["id"] and moved["key"] != me["key"]
    assert phone.evaluate(FITS_JS), "the player's page sticks out sideways on a phone"
    for part in (".p-stats", ".p-games", ".p-you", ".p-game"):
        box = phone.locator(part).first.bounding_box()
        assert box and box["x"] >= 0 and box["x"] + box["width"] <= 390, part
    screenshot(phone, "player-phone")

    # the same link again, in a third browser: refused, and that browser stays who it was
    third = tabs.page(url)
    expect(third.get_by_text("That code is wrong, used or expired")).to_be_visible()
    assert kept_player(third)["id"] != me["id"]


def solo_games(crowd: Crowd, key: str, codes: list[str], total: int) -> None:
    """The player of ``key`` plays a solo game of each code, resigned, on a
    plain websocket (as from another device), until their history holds ``total``."""
    async def go() -> None:
        client = await Client.open(crowd.ws_url, "elsewhere")
        crowd.clients.append(client)
        await client.send("identify", {"key": key})
        await client.expect("player")
        for code in codes:
            await client.solo(nickname="kim", code=code)
            client.seq = 0
            assert (await client.command("resign"))["t"] == "ack"
            await client.event("ended")
            await client.send("leave")
            await client.expect("left")

        async def recorded() -> bool:  # each result is recorded just after its game's end
            await client.send("p_history", {"count": 1})
            return bool((await client.expect("p_history"))["of"] >= total)

        await eventually(recorded)
    crowd.run(go())


def test_a_typed_code_moves_the_player_and_forget_me_forgets_them_everywhere(
        tabs: Tabs, crowd: Crowd) -> None:
    desk = tabs.page("/")
    me = kept_player(desk)
    start_solo(desk, "kim", SOLO_CODE)
    resign(desk)
    # ten more games from elsewhere: the history comes a page at a time
    solo_games(crowd, me["key"], [f"KL1-D1N-AAAAAA{c}" for c in "ABCDEFHJKL"], total=11)
    open_own_page(desk, 11)
    expect(desk.locator(".t-note", has_text="1–10 of 11, newest first.")).to_be_visible()
    expect(desk.locator(".p-game")).to_have_count(10)
    expect(desk.locator(".p-game").first).to_contain_text("KL1-D1N-AAAAAAL")
    desk.get_by_role("button", name="Older").click()
    expect(desk.locator(".t-note", has_text="11–11 of 11, newest first.")).to_be_visible()
    expect(desk.locator(".p-game")).to_have_count(1)
    expect(desk.locator(".p-game")).to_contain_text(SOLO_CODE)
    expect(desk.get_by_role("button", name="Older")).to_be_disabled()
    desk.get_by_role("button", name="Newer").click()
    expect(desk.locator(".p-game")).to_have_count(10)
    desk.get_by_role("button", name="Make a one-time code").click()
    expect(desk.locator(".t-handoff-code")).to_have_text(re.compile(r"^[A-Z0-9]{10}$"))
    code = desk.locator(".t-handoff-code").inner_text()

    phone = tabs.page("/", **PHONE)
    own = kept_player(phone)
    assert own["id"] != me["id"]
    open_own_page(phone)
    phone.get_by_label("Or type here a code made on your other device:").fill(code.lower())
    phone.get_by_role("button", name="Use the code").click()
    expect(phone.locator("#p-title")).to_have_text("kim")
    expect(phone.locator(".p-game")).to_have_count(10)
    assert kept_player(phone)["id"] == me["id"]
    assert phone.evaluate(FITS_JS)

    # forget me, asked first; "Keep me" keeps
    phone.get_by_role("button", name="Forget me").click()
    phone.get_by_role("dialog", name="Forget you?").get_by_role("button", name="Keep me").click()
    expect(phone.get_by_text("This is you.")).to_be_visible()
    phone.get_by_role("button", name="Forget me").click()
    phone.get_by_role("dialog", name="Forget you?").get_by_role("button", name="Forget me").click()
    expect(phone.get_by_role("heading", name="Create a room")).to_be_visible()
    expect(phone.locator(".toast", has_text="You are forgotten")).to_be_visible()
    assert phone.evaluate("() => localStorage.getItem('kr.player')") is None
    # the page that was theirs is no one's, in any browser
    desk.goto(f"/p/{me['id']}")
    expect(desk.locator("#p-title")).to_have_text("No such player")
    expect(desk.get_by_text("they asked to be forgotten")).to_be_visible()
    # the desk's key is gone too: on its next visit it is a new player
    desk.reload()
    assert kept_player(desk)["id"] != me["id"]


def test_a_browser_that_cannot_keep_a_key_plays_as_before(tabs: Tabs) -> None:
    ctx = tabs.context()
    ctx.add_init_script("""(() => { const set = Storage.prototype.setItem;
      Storage.prototype.setItem = function (k, v) {
        if (k === 'kr.player' || k === 'kr.probe') throw new DOMException('full', 'QuotaExceededError');
        return set.call(this, k, v); }; })()""")
    page = tabs.page("/", context=ctx)
    start_solo(page, "lou", SOLO_CODE)
    resign(page)
    expect(page.locator(".results")).to_contain_text(SOLO_CODE)
    page.goto("/")
    expect(page.get_by_role("heading", name="Create a room")).to_be_visible()
    expect(page.locator(".player-line")).to_be_hidden()
    sent = tabs.sent[page]
    assert sent and not [f for f in sent if '"identify"' in f or '"p_' in f]
