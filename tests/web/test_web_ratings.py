"""Ratings in the browser, on a desktop in English and a phone in Spanish:
the player's own rating per family beside the nickname in the lobby (the
server's figures, "?" while provisional), each racer's rating beside their
name on a rated race's leaderboard, the lobby's figure moved by the race
to what the server stored; and the public top lists (/ratings), a page at
a time, linked from the lobby. This module has a Redis of its own: the top
lists are the deployment's."""

from __future__ import annotations

import re

import pytest
from harness import RedisServer, ServerProcess, Servers
from playwright.sync_api import Page, expect
from web_support import create_room, set_nickname

from conftest import Tabs, screenshot
from server.store import keys

pytestmark = pytest.mark.browser

PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}
DESKTOP = {"viewport": {"width": 1366, "height": 800}}


@pytest.fixture(scope="module")
def server(module_redis: RedisServer, module_servers: Servers) -> ServerProcess:
    # a rated race seats one player per address: pages say where they come from
    return module_servers.start(module_redis.url, args=["--quick-wait", "2",
                                                       "--proxy-header", "X-Forwarded-For"])


def no_sideways_scroll(page: Page) -> None:
    assert page.evaluate("() => document.documentElement.scrollWidth <= innerWidth + 1")


def kept_player_id(page: Page) -> str:
    page.wait_for_function("() => { const p = JSON.parse(localStorage.getItem('kr.player'));"
                           " return p && p.id; }")
    return str(page.evaluate("() => JSON.parse(localStorage.getItem('kr.player')).id"))


def resign(page: Page, resign: str, really: str) -> None:
    controls = page.locator(".controls")
    controls.get_by_role("button", name=resign).click()
    controls.get_by_role("button", name=really).click()


def stored_shown(redis: RedisServer, player: str, family: str) -> int:
    """The player's rating in the family as the server stored it, shown."""
    r = redis.client()
    try:
        mu = float(r.hget(keys.player(player), f"r:{family}").decode().split()[0])
    finally:
        r.close()
    return round(60 * mu)


def test_the_lobby_and_a_rated_race_s_lines_show_the_server_s_ratings(
        tabs: Tabs, module_redis: RedisServer) -> None:
    kai = tabs.page("/", **DESKTOP, extra_http_headers={"X-Forwarded-For": "198.51.100.31"})
    spanish = tabs.context(locale="es-ES", **PHONE,
                           extra_http_headers={"X-Forwarded-For": "198.51.100.32"})
    lia = tabs.page("/", context=spanish)
    # a newcomer: 1500 in each family, provisional
    mine = kai.locator(".panel.nick .rating-line")
    expect(mine).to_have_text("Your rating: draw one 1500? · draw three 1500? · Top players")
    theirs = lia.locator(".panel.nick .rating-line")
    expect(theirs).to_have_text("Tu puntuación: robar una 1500? · robar tres 1500? · Mejores jugadores")
    screenshot(kai, "lobby-rating-desktop")
    screenshot(lia, "lobby-rating-phone-es")
    no_sideways_scroll(lia)
    # kai has raced draw three before (a test's setting): 1560 after six races, no "?"
    # (near enough to lia's 1500 for a quick race to pair them at once)
    r = module_redis.client()
    try:
        r.hset(keys.player(kept_player_id(kai)), "r:d3", "26.0 6.0 6 1")
    finally:
        r.close()
    kai.reload()
    expect(mine).to_have_text("Your rating: draw one 1500? · draw three 1560 · Top players")

    set_nickname(kai, "kai")
    lia.get_by_label("Apodo").fill("lia")
    kai.get_by_label("Quick race mode").select_option("3N")
    lia.get_by_label("Modalidad de la carrera rápida").select_option("3N")
    kai.locator(".races").get_by_role("button", name="Quick race", exact=True).click()
    expect(kai.locator(".room-wait")).to_be_visible()
    # the wait, and whom the race accepts: kai's 1560, ±100 when it opened, wider each second
    expect(kai.locator(".room-pairing")).to_have_text(re.compile(
        r"^Waiting 0:[0-5][0-9] for players rated 1[34][0-9]0 to 1[67][0-9]0 \(wider every second\)\.$"))
    lia.locator(".races").get_by_role("button", name="Carrera rápida", exact=True).tap()
    for page in (kai, lia):
        expect(page.locator(".race .board .card").first).to_be_visible(timeout=15_000)
        # each line of the rated race: the racer's rating beside the name
        lines = page.locator(".race .leaderboard .lb-row")
        expect(lines).to_have_count(2)
        expect(page.locator(".race .leaderboard .lb-row", has_text="kai").locator(".lb-rating")
               ).to_have_text("1560")
        expect(page.locator(".race .leaderboard .lb-row", has_text="lia").locator(".lb-rating")
               ).to_have_text("1500?")
    expect(kai.locator(".race .leaderboard .lb-row", has_text="kai").locator(".lb-rating")
           ).to_have_accessible_name("rating 1560")
    screenshot(lia, "race-ratings-phone-es")

    resign(kai, "Resign", "Really resign?")
    resign(lia, "Rendirse", "¿Seguro que te rindes?")
    expect(kai.locator(".results-rating")).to_have_text(re.compile(r"^Rating 1[0-9]{3} \(−"))
    expect(lia.locator(".results-rating")).to_have_text(re.compile(r"^Puntuación 1[0-9]{3}\?"))
    kai_d3 = stored_shown(module_redis, kept_player_id(kai), "d3")
    lia_d3 = stored_shown(module_redis, kept_player_id(lia), "d3")
    assert kai_d3 < 1560 and lia_d3 > 1500  # tied last: the higher rating gives some to the lower
    # the lines after the race: each one's new rating
    expect(kai.locator(".race .leaderboard .lb-row", has_text="lia").locator(".lb-rating")
           ).to_have_text(f"{lia_d3}?")
    expect(lia.locator(".race .leaderboard .lb-row", has_text="kai").locator(".lb-rating")
           ).to_have_text(str(kai_d3))

    # back in the lobby, the race's figure (the server's), no reload
    kai.locator(".results").get_by_role("button", name="Back to the lobby").click()
    expect(mine).to_have_text(f"Your rating: draw one 1500? · draw three {kai_d3} · Top players")
    lia.locator(".results").get_by_role("button", name="Volver al vestíbulo").tap()
    expect(theirs).to_contain_text(f"robar tres {lia_d3}?")
    # and after a reload, the same figure from the player frame
    kai.reload()
    expect(mine).to_contain_text(f"draw three {kai_d3} ")


def seed_top_list(redis: RedisServer) -> list[tuple[str, str, int]]:
    """Sixty players of draw one no longer provisional, and one of draw
    three, as the server keeps them (a profile's nickname, the family's
    sorted set): (id, nickname, rating) best first."""
    letters = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"  # a player id's (server/app/rooms/ids.py)
    players = [(f"TPRACERA{letters[n // 32]}{letters[n % 32]}", f"racer{n}", 2100 - 10 * n)
               for n in range(60)]
    r = redis.client()
    try:
        for pid, nick, _ in players:
            r.hset(keys.player(pid), "nick", nick)
        r.zadd(keys.rating_top("d1"), {pid: rating for pid, _, rating in players})
        r.hset(keys.player("TPDRAWTHRE"), "nick", "tres")
        r.zadd(keys.rating_top("d3"), {"TPDRAWTHRE": 1777})
    finally:
        r.close()
    return players


def test_the_top_lists_page_by_page_from_the_lobby(tabs: Tabs, module_redis: RedisServer) -> None:
    players = seed_top_list(module_redis)
    ann = tabs.page("/", **DESKTOP)
    ann.locator(".panel.nick .rating-line").get_by_role("link", name="Top players").click()
    expect(ann).to_have_url(re.compile(r"/ratings$"))
    expect(ann.get_by_role("heading", name="Top players", level=1)).to_be_visible()
    rows = ann.locator(".r-table tbody tr")
    expect(rows).to_have_count(50)
    expect(rows.first).to_have_text(re.compile(r"^1\s*racer0\s*2100$"))
    expect(rows.nth(49)).to_contain_text("racer49")
    pager = ann.get_by_role("navigation", name="Pages of the list")
    expect(pager).to_contain_text("Ranks 1–50 of 60")
    pager.get_by_role("button", name=re.compile("^Next")).click()
    expect(pager).to_contain_text("Ranks 51–60 of 60")
    expect(rows).to_have_count(10)
    expect(rows.first).to_have_text(re.compile(r"^51\s*racer50\s*1600$"))
    screenshot(ann, "ratings-desktop")
    # draw three: its own list
    ann.get_by_role("navigation", name="Rating lists").get_by_role("link", name="draw three").click()
    expect(ann).to_have_url(re.compile(r"/ratings/d3$"))
    # (kai, of the module's first test, has a rating of draw three listed too: below)
    expect(rows.first).to_have_text(re.compile(r"^1\s*tres\s*1777$"))
    # a name leads to the player's page
    rows.first.get_by_role("link", name="tres").click()
    expect(ann).to_have_url(re.compile(r"/p/TPDRAWTHRE$"))
    ann.evaluate("history.back()")  # (a same-page address: no load to wait for)
    expect(ann).to_have_url(re.compile(r"/ratings/d3$"))
    expect(rows.first).to_contain_text("tres")
    ann.get_by_role("link", name="Back to the lobby").click()
    expect(ann.locator(".panel.nick")).to_be_visible()

    # a phone in Spanish, opened at its address
    spanish = tabs.context(locale="es-ES", **PHONE)
    pia = tabs.page("/ratings", context=spanish)
    expect(pia.get_by_role("heading", name="Mejores jugadores", level=1)).to_be_visible()
    expect(pia.get_by_role("columnheader")).to_have_text(["Puesto", "Jugador", "Puntuación"])
    expect(pia.locator(".r-table tbody tr").first).to_contain_text(players[0][1])
    no_sideways_scroll(pia)
    screenshot(pia, "ratings-phone-es")


def test_a_host_makes_a_public_room_rated_from_the_create_form(tabs: Tabs) -> None:
    """The box is offered for a public room only; a rated room says so, and
    a second browser from the host's address is refused its seat."""
    home = {"X-Forwarded-For": "198.51.100.41"}
    ann = tabs.page("/", **DESKTOP, extra_http_headers=home)
    set_nickname(ann, "ann")
    form = ann.locator("form.create")
    rated = form.get_by_label("Rated: the race moves its players' ratings")
    expect(rated).to_be_disabled()  # a private room is never rated
    form.get_by_label("Public: listed in the lobby").check()
    expect(rated).to_be_enabled()
    rated.check()
    form.get_by_label("A code").check()
    expect(rated).to_be_disabled()  # a rated race is dealt by the server
    form.get_by_label("Random", exact=True).check()
    expect(rated).to_be_enabled()
    link = create_room(ann, "ann")
    expect(ann.locator(".room-settings")).to_contain_text(
        "public: listed in the lobby · rated: one player per address")
    # the same address, another browser: refused, in words
    alt = tabs.page("/" + link.split("/", 3)[3], **DESKTOP, extra_http_headers=home)
    set_nickname(alt, "alt")
    alt.get_by_role("button", name="Join the race").click()
    expect(alt.locator(".form-error").filter(has_text="address")).to_have_text(
        "A rated race seats one player per address, and yours has a seat in this one.")
    # another address's lobby, on a phone in Spanish: the race is listed as rated, and joined
    spanish = tabs.context(locale="es-ES", **PHONE, extra_http_headers={"X-Forwarded-For": "198.51.100.42"})
    pia = tabs.page("/", context=spanish)
    pia.get_by_label("Apodo").fill("pia")
    item = pia.locator(f".races .race-item[data-room='{link.rsplit('/', 1)[1]}']")
    expect(item.locator(".race-rated")).to_have_text("puntuada")
    item.get_by_role("button", name=re.compile("^Entrar")).tap()
    expect(pia.locator(".room-settings")).to_contain_text("puntuada: un jugador por dirección")
