"""Races to find in the browser: a public room created from the lobby's form
is listed in other lobbies without a reload, joined in one tap on a phone,
watched in one tap from a desktop once it runs (its racer is offered their
seat instead), and quick races that pair a desktop and a phone and start by
themselves. The servers' list is shared by the deployment: this module has a
Redis of its own."""

from __future__ import annotations

import re
from typing import Any

import pytest
from harness import RedisServer, ServerProcess, Servers
from playwright.sync_api import Page, expect
from web_support import create_room, pile, set_nickname

from conftest import Tabs, screenshot
from server.store import keys

pytestmark = pytest.mark.browser

PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}
DESKTOP = {"viewport": {"width": 1366, "height": 800}}


@pytest.fixture(scope="module")
def server(module_redis: RedisServer, module_servers: Servers
           ) -> ServerProcess:
    # a quick race seats one player per address: pages say where they come from
    return module_servers.start(module_redis.url, args=["--lobby-interval", "0.3", "--quick-wait", "2",
                                                       "--proxy-header", "X-Forwarded-For"])


def race_item(page: Page, room: str):  # type: ignore[no-untyped-def]
    return page.locator(f".races .race-item[data-room='{room}']")


def no_sideways_scroll(page: Page) -> None:
    assert page.evaluate("() => document.documentElement.scrollWidth <= innerWidth + 1")


def test_a_public_room_is_found_joined_and_watched_from_the_lobby(tabs: Tabs) -> None:
    ann = tabs.page("/", **DESKTOP)
    pia = tabs.page("/", **PHONE)
    dee = tabs.page("/", **DESKTOP)
    expect(pia.locator(".races")).to_contain_text("No public race right now")
    # a private room is listed nowhere
    private = tabs.page("/", **DESKTOP)
    create_room(private, "pat")
    # ann's is public: a tick in the create form
    set_nickname(ann, "ann")
    ann.locator("form.create").get_by_label("Public: listed in the lobby").check()
    link = create_room(ann, "ann")
    room = link.rsplit("/", 1)[1]
    expect(ann.locator(".room-settings")).to_contain_text("public: listed in the lobby")

    # the others' lobbies list it without a reload, with its mode, players and time
    item = race_item(pia, room)
    expect(item).to_contain_text("ann's room")
    expect(item).to_contain_text("Draw one · Normal")
    expect(item).to_contain_text("1 of 8 players")
    expect(race_item(dee, room)).to_be_visible()
    expect(pia.locator(".races .race-item")).to_have_count(1)  # pat's room is private
    no_sideways_scroll(pia)
    screenshot(pia, "lobby-races-phone")

    # one tap on a phone: in the room
    set_nickname(pia, "pia")
    item.get_by_role("button", name="Join ann's room").tap()
    expect(pia.get_by_role("heading", name=f"Room {room}")).to_be_visible()
    expect(race_item(dee, room)).to_contain_text("2 of 8 players")
    screenshot(dee, "lobby-races")

    pia.get_by_role("button", name="I'm ready").tap()
    ann.get_by_role("button", name="Start the race").click()
    expect(ann.locator(".race .board .card").first).to_be_visible()
    running = race_item(dee, room)
    expect(running).to_contain_text(re.compile("racing for|starts in"))
    expect(dee.locator(".races").get_by_role("heading", name="Racing now")).to_be_visible()

    # a racer's own browser offers the seat back, never a watch
    own = tabs.page("/", context=ann.context)
    own_item = race_item(own, room)
    expect(own_item.get_by_role("button", name="Your seat")).to_be_visible()
    expect(own_item.get_by_role("button", name=re.compile("Watch"))).to_have_count(0)
    own_item.get_by_role("button", name="Your seat").click()
    expect(own.locator(".race .board .card").first).to_be_visible()
    expect(own).to_have_url(re.compile(f"/r/{room}$"))

    # one click on a desktop: watching the race
    running.get_by_role("button", name="Watch ann's room").click()
    expect(dee).to_have_url(re.compile(f"/r/{room}\\?watch$"))
    expect(dee.locator(".screen.watch")).to_be_visible()
    frames = "".join(tabs.frames[dee] + tabs.frames[pia])
    assert '"code"' not in "".join(f for f in tabs.frames[dee] if f.startswith('{"t":"rooms"'))
    assert "lobby" in "".join(tabs.sent[dee]) and frames


def quick_pair(tabs: Tabs, mode: str, kim_at: tuple[str, dict[str, Any]],
               lou_at: tuple[str, dict[str, Any]]) -> tuple[Page, Page]:
    """kim's and lou's lobbies (each from its address, on its device), with
    the Quick race mode chosen and their nicknames typed."""
    pages = []
    for name, (address, device) in (("kim", kim_at), ("lou", lou_at)):
        page = tabs.page("/", **device, extra_http_headers={"X-Forwarded-For": address})
        set_nickname(page, name)
        page.get_by_label("Quick race mode").select_option(label=mode)
        pages.append(page)
    return pages[0], pages[1]


def test_quick_race_pairs_a_desktop_and_a_phone_and_starts_by_itself(tabs: Tabs) -> None:
    kim, lou = quick_pair(tabs, "Draw three · Vegas", ("198.51.100.1", DESKTOP), ("198.51.100.2", PHONE))
    kim.locator(".races").get_by_role("button", name="Quick race", exact=True).click()
    expect(kim.locator(".room-wait")).to_contain_text("starts by itself 2 s after a second player")
    room = re.search(r"/r/([A-Z0-9]{8})", kim.url)
    assert room is not None
    expect(race_item(lou, room[1])).to_contain_text("Quick race")  # listed, as any public race
    lou.locator(".races").get_by_role("button", name="Quick race", exact=True).tap()
    expect(lou).to_have_url(re.compile(f"/r/{room[1]}$"))  # the same room
    expect(kim.get_by_role("list", name="Players").locator("li")).to_have_count(2)
    expect(kim.get_by_role("button", name="Start the race")).to_be_hidden()
    # nobody starts it: it starts by itself
    for page in (kim, lou):
        expect(page.locator(".race .board .card").first).to_be_visible()
    expect(lou.locator(".race .room-info")).to_contain_text("Draw three · Vegas")
    no_sideways_scroll(lou)


CUT_WITH_AN_ELLIPSIS_JS = """(sel) => { const e = document.querySelector(sel), s = getComputedStyle(e);
  return e.scrollWidth <= e.clientWidth || (s.textOverflow === 'ellipsis' && s.overflow === 'hidden'
    && s.whiteSpace === 'nowrap' && s.display === 'block'); }"""


def test_a_quick_races_watcher_sees_the_race_live_and_the_boards_after_it(tabs: Tabs) -> None:
    """Issue 25, item 6: something to watch. A quick race's boards come after
    the race (every racer plays one deal: an opponent's board, even late,
    would show a racer's second tab their own face-down cards), so its
    watcher sees each racer's lane live, cards home, score, moves and
    status, and the boards once it is over."""
    kim, lou = quick_pair(tabs, "Draw three · Normal", ("198.51.100.31", DESKTOP), ("198.51.100.32", DESKTOP))
    kim.locator(".races").get_by_role("button", name="Quick race", exact=True).click()
    expect(kim.locator(".room-wait")).to_be_visible()
    room = re.search(r"/r/([A-Z0-9]{8})", kim.url)
    assert room is not None
    lou.locator(".races").get_by_role("button", name="Quick race", exact=True).click()
    expect(lou).to_have_url(re.compile(f"/r/{room[1]}$"))
    for page in (kim, lou):
        expect(page.locator(".race .board .card").first).to_be_visible()
    # lou's second tab, from another browser: a watcher like any
    tab = tabs.page(f"/r/{room[1]}?watch", **PHONE, extra_http_headers={"X-Forwarded-For": "198.51.100.32"})
    # the phone's top bar: the mode first, the rest cut with an ellipsis if it must be (item 8)
    expect(tab.locator(".watch-title")).to_have_text(f"Draw three · Normal · watching room {room[1]}")
    assert tab.evaluate(CUT_WITH_AN_ELLIPSIS_JS, ".watch-title")
    track = tab.get_by_role("region", name="The racers, live")
    expect(track.locator(".track-lane")).to_have_count(2)
    pile(kim, "stock").click()
    lane = track.locator(".track-lane", has_text="kim")
    expect(lane).to_contain_text("1 move")
    expect(lane).to_contain_text("0/52 · 0 pts")
    expect(lane.get_by_role("progressbar")).to_have_attribute("aria-valuenow", "0")
    expect(tab.locator(".watch-note")).to_contain_text("after the race")
    expect(tab.locator(".tile")).to_have_count(0)
    assert not any(f.startswith('{"t":"boards"') for f in tabs.frames[tab])
    screenshot(tab, "quick-race-watched")
    for page in (kim, lou):
        resign(page, "Resign", "Really resign?")
    expect(tab.locator(".tile")).to_have_count(2)
    expect(track).to_be_hidden()


def test_a_friends_link_shows_the_host_the_mode_and_the_players(tabs: Tabs) -> None:
    """Issue 25, item 6: a join card says whose room, its mode and how many
    are in it (the room's card, GET /api/rooms/{id}/card), not just its id."""
    ann = tabs.page("/", **DESKTOP)
    link = create_room(ann, "ann", code="KL1-D3V-AAPIVDJ")  # a chosen deal of draw three, Vegas
    bob = tabs.page(link, **PHONE)
    expect(bob.get_by_role("heading", name=f"Room {link[-8:]}")).to_be_visible()
    expect(bob.locator(".link-who")).to_have_text("ann's room · Draw three · Vegas")
    expect(bob.locator(".link-meta")).to_have_text("1 of 8 players · waiting for its host to start")
    set_nickname(bob, "bob")
    bob.get_by_role("button", name="Join the race").tap()
    expect(ann.locator(".players li", has_text="bob")).to_be_visible()
    cat = tabs.page(link, **DESKTOP)
    expect(cat.locator(".link-meta")).to_have_text("2 of 8 players · waiting for its host to start")
    no_sideways_scroll(bob)


def test_a_link_to_a_room_that_is_gone_says_so_and_offers_no_join(tabs: Tabs) -> None:
    """Issue 25: a link to a room the server no longer has (or never had)
    says so, in both languages, and shows no Join or Watch that would fail."""
    tabs.allow("status of 404")  # the card's answer: no such room
    for locale, said in (("en-GB", "There is no such room now"), ("es-ES", "Ahora no hay ninguna sala")):
        page = tabs.page("/r/V62WEAFY", context=tabs.context(locale=locale, **PHONE))
        expect(page.locator(".link-who")).to_contain_text(said)
        expect(page.locator(".link-meta")).to_be_hidden()
        expect(page.locator(".link button")).to_have_count(2)
        for button in page.locator(".link button").all():
            expect(button).to_be_hidden()


IN_VIEW_JS = """(sel) => { const r = document.querySelector(sel).getBoundingClientRect();
  return r.width > 0 && r.top >= 0 && r.left >= 0 && r.bottom <= innerHeight && r.right <= innerWidth; }"""


def in_view(page: Page, selector: str) -> bool:
    """Whether the element is wholly inside the window as it is scrolled now."""
    return bool(page.evaluate(IN_VIEW_JS, selector))


CHOICES = ["Quick race", "Play with friends", "Play solo", "Today’s deal"]


@pytest.mark.parametrize("device", ["desktop", "phone"])
def test_the_first_screen_shows_four_choices_and_each_plays(tabs: Tabs, device: str) -> None:
    """Issue 25 item 3: without scrolling, Quick race, Play with friends, Play
    solo and Today's deal; the language switch is small; Play solo plays at
    once; a bad code's error shows beside the solo form, in view; the last
    choices come back on the next visit."""
    page = tabs.page("/", **(PHONE if device == "phone" else DESKTOP))
    choices = page.get_by_role("group", name="What to play")
    for i, name in enumerate(CHOICES, start=1):
        expect(choices.get_by_role("button", name=re.compile("^" + name))).to_be_visible()
        choice = f".choices-grid .choice:nth-child({i}) .choice-play"
        assert in_view(page, choice), f"{name}: not in the first screen"
    assert in_view(page, "#nickname")
    switch = page.locator(".hero .lang-switch").bounding_box()
    assert switch and switch["width"] < 160
    no_sideways_scroll(page)

    # More options: the solo form, a bad code, its error beside the form and in view
    set_nickname(page, "ann")
    choices.get_by_role("button", name="More options: Play solo").click()
    solo = page.locator("form.solo")
    solo.get_by_label("A code").check()
    solo.get_by_label("Solo deal code").fill("KL1-NOPE")
    solo.get_by_role("button", name="Play solo").click()
    error = solo.locator(".form-error")
    expect(error).to_have_text("That is not a valid deal code.")
    page.wait_for_function(f"() => ({IN_VIEW_JS})('form.solo .form-error')")

    # a draw of three, played from the form: the next visit's Play solo plays it at once
    solo.get_by_label("Random", exact=True).check()
    solo.locator("fieldset.mode", has_text="Draw").get_by_label("Three").check()
    solo.get_by_role("button", name="Play solo").click()
    expect(page.locator(".race .board .card").first).to_be_visible()
    expect(page.locator(".race .room-info")).to_contain_text("Draw three")
    again = tabs.page("/", context=page.context)
    expect(again.locator("form.solo fieldset.mode", has_text="Draw").get_by_label("Three")).to_be_checked()
    what = again.get_by_role("group", name="What to play")
    what.get_by_role("button", name=re.compile("^Play solo")).click()
    expect(again.locator(".race .board .card").first).to_be_visible()
    expect(again.locator(".race .room-info")).to_contain_text("Draw three")


def test_play_with_friends_makes_a_room_in_one_tap_and_quick_race_waits_as_it_says(tabs: Tabs) -> None:
    page = tabs.page("/", **PHONE)
    set_nickname(page, "pia")
    choices = page.get_by_role("group", name="What to play")
    choices.get_by_role("button", name=re.compile("^Play with friends")).tap()
    expect(page.get_by_label("Room link", exact=True)).to_have_value(re.compile(r"/r/[A-Z0-9]{8}$"))
    other = tabs.page("/", **DESKTOP)
    set_nickname(other, "kim")
    what = other.get_by_role("group", name="What to play")
    what.get_by_role("button", name=re.compile("^Quick race")).click()
    expect(other.locator(".room-wait")).to_contain_text("starts by itself 2 s after a second player")


def resign(page: Page, resign: str, really: str) -> None:
    controls = page.locator(".controls")
    controls.get_by_role("button", name=resign).click()
    controls.get_by_role("button", name=really).click()


def kept_player_id(page: Page) -> str:
    page.wait_for_function("() => { const p = JSON.parse(localStorage.getItem('kr.player'));"
                           " return p && p.id; }")
    return str(page.evaluate("() => JSON.parse(localStorage.getItem('kr.player')).id"))


def test_a_quick_race_is_rated_and_its_results_say_the_rating_and_its_change(
        tabs: Tabs, module_redis: RedisServer) -> None:
    """A desktop in English and a phone in Spanish: both resign; each one's
    results give their rating (provisional: "?") and its change; their
    pages show their ratings, and a chart once there are two rated races."""
    kai = tabs.page("/", **DESKTOP, extra_http_headers={"X-Forwarded-For": "198.51.100.11"})
    spanish = tabs.context(locale="es-ES", **PHONE,
                           extra_http_headers={"X-Forwarded-For": "198.51.100.12"})
    lia = tabs.page("/", context=spanish)
    set_nickname(kai, "kai")
    lia.get_by_label("Apodo").fill("lia")
    # draw one · Vegas: a quick race of its own (the test before leaves one of draw one · Normal
    # waiting on this module's server), of the draw-one family all the same
    kai.get_by_label("Quick race mode").select_option("1V")
    lia.get_by_label("Modalidad de la carrera rápida").select_option("1V")
    kai.locator(".races").get_by_role("button", name="Quick race", exact=True).click()
    expect(kai.locator(".room-wait")).to_be_visible()
    lia.locator(".races").get_by_role("button", name="Carrera rápida", exact=True).tap()
    for page in (kai, lia):
        expect(page.locator(".race .board .card").first).to_be_visible(timeout=15_000)
    resign(kai, "Resign", "Really resign?")
    resign(lia, "Rendirse", "¿Seguro que te rindes?")
    line = re.compile(r"^Rating 1[0-9]{3}\? \([+−±][0-9]+\)$")
    expect(kai.locator(".results-rating")).to_have_text(line)
    expect(lia.locator(".results-rating")).to_have_text(
        re.compile(r"^Puntuación 1[0-9]{3}\? \([+−±][0-9]+\)$"))
    screenshot(lia, "results-rated-phone-es")

    # kai's page: a second, older rated race (a test's setting) makes a line of two
    kai_id = kept_player_id(kai)
    r = module_redis.client()
    try:
        r.rpush(keys.rating_history(kai_id), '["OLDROOM1/1","d1",1,25.0,25.5,1,2]')
    finally:
        r.close()
    kai.goto(f"/p/{kai_id}")
    panel = kai.get_by_role("region", name="Ratings")
    expect(panel).to_contain_text(re.compile(r"1[0-9]{3}\?\s*draw one"))
    chart = panel.get_by_role("img", name=re.compile(r"^Rating in draw one over 2 rated races"))
    expect(chart).to_be_visible()
    assert chart.locator("polyline").get_attribute("points").count(",") == 2
    lia.goto(f"/p/{kept_player_id(lia)}")
    expect(lia.get_by_role("region", name="Puntuaciones")).to_contain_text("robar una")
    no_sideways_scroll(lia)
    screenshot(lia, "player-ratings-phone-es")
