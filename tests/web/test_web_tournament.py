"""A two-round tournament in the browser: one organizer page, two player pages
and one spectator page.

Round 1 (a deal from wins.json) is won through the UI by ann, while bob
plays a few moves and resigns. Round 2 is scheduled at a time; ann reloads
her page in the middle of it and goes on, bob withdraws, and the organizer
ends the round. Every page checks the standings after each round (computed
here by replaying the games with server.klondike) and the revealed code;
no page's DOM nor any frame it received holds a round's code before that
round ends, and the spectator never sees a card that is face down.
"""

from __future__ import annotations

import datetime
import json
import re
from pathlib import Path

import pytest
from crowd import Crowd
from harness import RedisServer, ServerProcess, Servers, load_wins
from playwright.sync_api import Locator, Page, expect
from support.challenge import TestClock
from web_support import TOASTS_JS, Keyboard, hidden, resign, shown_as, stat

from conftest import ARTIFACTS, Tabs, screenshot
from server.klondike import Game, card_name

pytestmark = pytest.mark.browser

WINS = {w["code"]: w["script"] for w in load_wins()}
# ann wins it: from move 104 the server offers auto-complete. Typed as the KL2
# code of KL1-D1V-ACT552B (the same deal), beside a KL1 code for round 2.
ROUND1 = "KL2-D1V-AAAAAAACT552B"
WINS[ROUND1] = WINS["KL1-D1V-ACT552B"]
ROUND2 = "KL1-D1V-ABYI5NK"
FINISH_AT = 104
VIEWPORT = {"width": 1000, "height": 760}


@pytest.fixture(scope="module")
def server(redis_server: RedisServer, module_servers: Servers, clock_file: Path) -> ServerProcess:
    return module_servers.start(redis_server.url, args=["--clock-offset-file", str(clock_file)])


def money(v: int) -> str:
    return f"+${v}" if v > 0 else f"-${-v}" if v < 0 else "$0"


def played(code: str, moves: list[str]) -> Game:
    game = Game(code)
    for m in moves:
        game.push(m)
    return game


def keyboard(page: Page, code: str) -> Keyboard:
    """The keyboard player, starting where the table's focus is now."""
    keys = Keyboard(page, code)
    keys.focus = page.locator('.race .pile[tabindex="0"]').get_attribute("data-pile") or "stock"
    return keys


def standing(page: Page, player: int) -> Locator:
    return page.locator(f'.t-standings tbody tr[data-player="{player}"]')


def check_standings(page: Page, expected: list[tuple[int, str, int, int]]) -> None:
    """expected: (player, nickname, vegas, cards) in rank order."""
    rows = page.locator(".t-standings tbody tr")
    expect(rows).to_have_count(len(expected))
    for rank, (player, nickname, vegas, cards) in enumerate(expected, start=1):
        row = standing(page, player)
        expect(row.locator("td.rank")).to_have_text(str(rank))
        expect(row.locator("th.name")).to_contain_text(nickname)
        expect(row.locator("td.total")).to_have_text(money(vegas))
        expect(row.locator("td.cards")).to_have_text(str(cards))
        expect(rows.nth(rank - 1)).to_have_attribute("data-player", str(player))


FIELDS_JS = "() => [...document.querySelectorAll('input, textarea')].map(e => e.value).join()"


def no_code_yet(tabs: Tabs, pages: list[Page], codes: list[str]) -> None:
    """None of `codes` is in any page's DOM (text, attributes, form fields) nor in a frame it received."""
    for page in pages:
        html = page.content()
        values = page.evaluate(FIELDS_JS)
        for code in codes:
            assert code not in html, f"{code} is in a page before its round ended"
            assert code not in values, f"{code} is in a form field before its round ended"
            for raw in tabs.frames[page]:
                assert code not in raw, f"{code} was sent before its round ended: {raw[:200]}"


# elements outside the page's width, except in boxes that scroll sideways (wide tables)
WIDE_JS = """() => [...document.querySelectorAll('main *')]
  .filter(e => e.offsetParent && !e.closest('.t-scroll')
    && e.getBoundingClientRect().right > document.documentElement.clientWidth + 1)
  .map(e => e.tagName + '.' + e.className).slice(0, 5)"""
FITS_JS = "() => document.documentElement.scrollWidth <= document.documentElement.clientWidth"


def fits(page: Page) -> None:
    """Nothing sticks out sideways (once the tables have been sized to their boxes)."""
    page.wait_for_function(FITS_JS)
    assert not page.evaluate(WIDE_JS)


def keep(page: Page, name: str) -> None:
    """A screenshot of the page's top, as a test artifact (docs/screenshots/ has copies made by hand)."""
    fits(page)
    page.evaluate("() => window.scrollTo(0, 0)")
    screenshot(page, name)


def test_two_rounds_with_an_organizer_two_players_and_a_spectator(tabs: Tabs, clock_file: Path) -> None:
    win = WINS[ROUND1]
    assert "undo" not in win[:FINISH_AT]

    # ---------------------------------------------------------------- the organizer creates it
    org = tabs.page("/", viewport=VIEWPORT, clock=True)
    form = org.locator("form.tournament-form")
    form.get_by_label("Tournament name").fill("Club night")
    weak = form.get_by_text("For a prize, avoid KL1 codes")
    expect(weak).to_be_hidden()  # random deals are KL2: nothing to warn of
    form.get_by_label("Deal codes").check()
    expect(weak).to_be_visible()
    expect(weak).to_contain_text("work out a KL1 deal from its first face-up cards by a brute force")
    form.get_by_label("Codes, one per line").fill(f"{ROUND1}\n{ROUND2}")
    form.get_by_label("Time per round").select_option("300")
    form.locator('input[name="tboards"][value="live"]').check()
    form.get_by_role("button", name="Create tournament").click()
    expect(org).to_have_url(re.compile(r"/t/[A-Z0-9]{8}\?admin$"))
    tid = org.url.split("/t/")[1][:8]
    link = org.get_by_label("Tournament link").input_value()
    assert link.endswith(f"/t/{tid}") and "admin" not in link
    assert org.evaluate("() => Object.keys(localStorage).some(k => k.startsWith('kr.tour.'))")
    expect(org.get_by_role("heading", name="Club night")).to_be_visible()
    expect(org.locator(".t-role")).to_have_text("Organizer")

    # ---------------------------------------------------------------- two players register; a spectator
    ann = tabs.page(link, viewport=VIEWPORT, clock=True)
    bob = tabs.page(link, viewport=VIEWPORT, clock=True)
    spec = tabs.page(link, viewport=VIEWPORT, clock=True)
    for page, nickname in ((ann, "ann"), (bob, "bob")):
        reg = page.locator("form.t-register")
        reg.get_by_label("Nickname").fill(nickname)
        reg.get_by_role("button", name="Register").click()
        expect(page.locator(".t-role")).to_have_text(f"Playing as {nickname}")
        expect(reg).to_be_hidden()
    expect(spec.locator(".t-role")).to_have_text("Spectator")
    expect(spec.locator("form.t-register")).to_be_visible()
    players = org.locator(".t-players li")
    expect(players).to_have_count(2)
    expect(players.nth(0)).to_contain_text("ann")
    expect(players.nth(1)).to_contain_text("bob")
    expect(players.nth(0).get_by_role("button", name="Remove ann from the tournament")).to_be_visible()

    org.get_by_role("button", name="Close registration").click()
    expect(org.locator(".t-admin")).to_contain_text("Registration is closed: 2 players.")
    expect(spec.locator("form.t-register")).to_be_hidden()
    expect(ann.locator(".t-headline")).to_have_text("Registration is closed")
    no_code_yet(tabs, [org, ann, bob, spec], [ROUND1, ROUND2])

    # ---------------------------------------------------------------- round 1: ann wins, bob resigns
    org.get_by_role("button", name="Start round 1 now").click()
    for page in (ann, bob):
        expect(page.locator(".screen.race")).to_be_visible()
        expect(page.locator(".race .board .card").first).to_be_visible()  # dealt: the countdown is over
        expect(stat(page, "Moves")).to_have_text("0")
        expect(page.locator(".room-label")).to_contain_text("Club night · round 1 of 2")
    expect(spec.locator(".t-live .tile")).to_have_count(2)
    expect(spec.locator(".t-live .lb-row")).to_have_count(2)
    expect(org.locator('.t-players li[data-player="1"]')).to_contain_text("racing")

    bob_moves = WINS[ROUND1][:5]
    keys = keyboard(bob, ROUND1)
    for m in bob_moves:
        keys.play(m)
    resign(bob)
    expect(bob.locator(".notice.done")).to_contain_text("Your race is over")
    expect(org.locator('.t-players li[data-player="1"]')).to_contain_text("resigned")
    bob1 = played(ROUND1, bob_moves)

    keys = keyboard(ann, ROUND1)
    for m in win[:FINISH_AT]:
        keys.play(m)
    expect(spec.locator(".t-live .tile", has_text="ann")).to_contain_text(f"{FINISH_AT} moves")
    settle_spec = spec.locator(".t-live .card.down[data-card]")
    expect(settle_spec).to_have_count(0)
    keep(spec, "tournament-spectator")
    no_code_yet(tabs, [org, ann, bob, spec], [ROUND1, ROUND2])
    ann.keyboard.press("f")  # auto-complete: the round's last racer wins it

    after1 = [(0, "ann", 208, 52), (1, "bob", bob1.vegas, bob1.foundation_cards)]
    for page in (org, ann, bob, spec):
        round1 = page.locator('.t-round[data-round="1"]')
        expect(round1.locator(".t-code")).to_have_text(ROUND1)
        expect(round1.locator(".badge")).to_have_text("over")
        check_standings(page, after1)
    for page in (ann, bob):
        expect(page.locator(".screen.tournament")).to_be_visible()
        expect(page.locator(".t-headline")).to_have_text("Round 1 is over")
        expect(page.locator(".t-detail .t-code")).to_have_text(ROUND1)
    expect(ann.locator(".t-detail")).to_contain_text("You: 1st, finished")
    expect(bob.locator(".t-detail")).to_contain_text("You: 2nd, resigned")
    expect(org.locator('.t-players li[data-player="0"]')).to_contain_text("finished")
    keep(ann, "tournament-player")
    no_code_yet(tabs, [org, ann, bob, spec], [ROUND2])

    # ---------------------------------------------------------------- round 2 at a time: reload, withdraw
    # (a minute ahead: its time comes as the test moves the server's clock and the pages' alike)
    at = (datetime.datetime.now() + datetime.timedelta(seconds=60)).strftime("%H:%M:%S")
    org.get_by_label("Start time (your clock)").fill(at)
    org.get_by_role("button", name="Schedule").click()
    for page in (ann, bob, spec):
        expect(page.locator(".t-headline")).to_contain_text("Round 2 starts in")
    expect(org.locator(".t-admin")).to_contain_text("Round 2 starts at")
    TestClock(clock_file).move(61_000)
    for page in (org, ann, bob, spec):
        page.clock.fast_forward(61_000)
    for page in (ann, bob):
        expect(page.locator(".screen.race")).to_be_visible()
        expect(page.locator(".room-label")).to_contain_text("round 2 of 2")
        expect(page.locator(".race .board .card").first).to_be_visible()  # dealt
        expect(stat(page, "Moves")).to_have_text("0")
    spec_from = len(tabs.frames[spec])

    script = WINS[ROUND2]
    keys = keyboard(ann, ROUND2)
    for m in script[:6]:
        keys.play(m)
    ann.reload()  # mid-round: back at the same table, and the game goes on
    expect(ann.locator(".screen.race")).to_be_visible()
    expect(stat(ann, "Moves")).to_have_text("6")
    keys = keyboard(ann, ROUND2)
    keys.game = played(ROUND2, script[:6])
    for m in script[6:12]:
        keys.play(m)
    ann2 = played(ROUND2, script[:12])

    bob_moves = script[:3]
    keys = keyboard(bob, ROUND2)
    for m in bob_moves:
        keys.play(m)
    bob2 = played(ROUND2, bob_moves)
    expect(spec.locator(".t-live .tile", has_text="ann")).to_contain_text("12 moves")
    expect(spec.locator(".t-live .tile", has_text="bob")).to_contain_text("3 moves")

    # the spectator sees both boards live, and no card that is face down in both
    secret = hidden(ann2) & hidden(bob2)
    assert len(secret) > 20
    expect(spec.locator(".t-live .card.down[data-card]")).to_have_count(0)
    assert spec.locator(".t-live .card.down").count() > 20
    html = spec.content()
    for c in secret:
        for shown in shown_as(c):
            assert shown not in html, f"{card_name(c)} shows in the spectator's page"
    for raw in tabs.frames[spec][spec_from:]:
        json.loads(raw)
        for c in secret:
            assert f'"{card_name(c)}"' not in raw, f"{card_name(c)} was sent to the spectator: {raw[:200]}"

    # bob goes to the tournament's page and withdraws (asked twice)
    bob.locator(".topbar").get_by_role("button", name="Tournament page").click()
    expect(bob.locator(".screen.tournament")).to_be_visible()
    expect(bob.get_by_role("button", name="Back to your table")).to_be_visible()
    bob.get_by_role("button", name="Withdraw from the tournament").click()
    bob.get_by_role("button", name="Really withdraw? You cannot come back").click()
    expect(bob.locator(".t-you")).to_contain_text("have withdrawn")
    expect(org.locator('.t-players li[data-player="1"]')).to_contain_text("withdrawn")
    expect(org.locator('.t-players li[data-player="0"]')).to_contain_text("racing")
    keep(org, "tournament-organizer")
    no_code_yet(tabs, [org, ann, bob, spec], [ROUND2])

    org.get_by_role("button", name="End round 2").click()
    org.get_by_role("button", name="Really end round 2?").click()

    after2 = [(0, "ann", 208 + ann2.vegas, 52 + ann2.foundation_cards),
              (1, "bob", bob1.vegas + bob2.vegas, bob1.foundation_cards + bob2.foundation_cards)]
    for page in (org, ann, bob, spec):
        expect(page.locator(".t-headline")).to_have_text("The tournament is over")
        round2 = page.locator('.t-round[data-round="2"]')
        expect(round2.locator(".t-code")).to_have_text(ROUND2)
        expect(page.locator('.t-round[data-round="1"] .t-code')).to_have_text(ROUND1)
        check_standings(page, after2)
        expect(standing(page, 1).locator("th.name")).to_contain_text("withdrawn")
    expect(ann.locator(".screen.tournament")).to_be_visible()
    expect(ann.locator(".t-detail")).to_contain_text(f"You finished 1st of 2 with {money(after2[0][2])}")
    expect(org.get_by_role("button", name=re.compile("^Start round"))).to_be_hidden()
    expect(players).to_have_count(2)
    expect(org.locator(".t-players .t-kick")).to_have_count(0)  # over: the standings are final

    # a past round's replay, step by step, from the spectator's page
    round2 = spec.locator('.t-round[data-round="2"]')
    round2.locator("summary").click()
    round2.get_by_role("button", name="Replay ann's round 2").click()
    viewer = spec.get_by_role("dialog", name="Round 2 · ann")
    expect(viewer.locator(".replay-step")).to_contain_text("Step 0 of 12")
    viewer.get_by_role("button", name="Last step").click()
    expect(viewer.locator(".replay-step")).to_contain_text("Step 12 of 12")
    expect(viewer.locator(".replay-step")).to_contain_text(f"{ann2.foundation_cards}/52 cards · 12 moves")
    expect(viewer.locator(".card.down[data-card]")).to_have_count(0)
    viewer.get_by_role("button", name="Close").click()
    expect(viewer).to_be_hidden()

    # on a phone the page is one column, and nothing sticks out sideways
    for page in (org, ann, spec):
        page.set_viewport_size({"width": 390, "height": 844})
        expect(page.locator(".t-side")).to_be_visible()
        fits(page)
    assert (ARTIFACTS / "tournament-organizer.png").exists()
    standings_fold_on_a_phone(ann, after2, ["+$208 ✓", money(ann2.vegas)])  # ann won round 1


def standings_fold_on_a_phone(page: Page, expected: list[tuple[int, str, int, int]],
                              rounds: list[str]) -> None:
    """At 390 px the standings show rank, player and total without a
    sideways scroll; each round, the cards, wins and time come on demand,
    under each name."""
    box = page.locator(".t-standings .t-scroll")
    table = box.locator("table")
    expect(table).to_have_class(re.compile(r"\bfolded\b"))
    assert box.evaluate("(el) => el.scrollWidth <= el.clientWidth")
    expect(table.locator("thead th:visible")).to_have_text(["#", "Player", "Total"])
    check_standings_totals(page, expected)
    toggle = page.locator(".t-standings").get_by_role("button", name="Each round")
    toggle.click()
    expect(toggle).to_have_attribute("aria-pressed", "true")
    name = standing(page, expected[0][0]).locator("th.name")
    said = name.evaluate("(el) => getComputedStyle(el, '::after').content")
    for text in (f"R1 {rounds[0]}", f"R2 {rounds[1]}", f"{expected[0][3]} cards"):
        assert text in said, f"{text!r} not under the name: {said}"
    assert box.evaluate("(el) => el.scrollWidth <= el.clientWidth")


def check_standings_totals(page: Page, expected: list[tuple[int, str, int, int]]) -> None:
    for rank, (player, nickname, vegas, _) in enumerate(expected, start=1):
        row = standing(page, player)
        expect(row.locator("td.rank")).to_have_text(str(rank))
        expect(row.locator("th.name")).to_contain_text(nickname)
        expect(row.locator("td.total")).to_have_text(money(vegas))


def test_an_invite_code_a_removal_with_a_ban_and_the_organizers_key_on_another_device(
        tabs: Tabs, crowd: Crowd) -> None:
    org = tabs.page("/", viewport=VIEWPORT)
    form = org.locator("form.tournament-form")
    form.get_by_label("Tournament name").fill("Invited")
    form.get_by_label("Registering needs an invite code").check()
    form.get_by_role("button", name="Create tournament").click()
    expect(org).to_have_url(re.compile(r"/t/[A-Z0-9]{8}\?admin$"))
    link = org.get_by_label("Tournament link").input_value()
    tid = link[-8:]
    note = org.locator(".t-invite")
    expect(note).to_contain_text("Invite code: ")
    invite = re.search(r"Invite code: (\S+)", note.inner_text())
    assert invite and invite.group(1) not in link  # the code is typed, never in the link
    code = invite.group(1)

    # registering needs the code: a wrong one is refused and said so, the right one in any case works
    ann = tabs.page(link, viewport=VIEWPORT)
    reg = ann.locator("form.t-register")
    reg.get_by_label("Nickname").fill("ann")
    reg.get_by_label("Invite code").fill("WRONG123")
    reg.get_by_role("button", name="Register").click()
    expect(reg.locator(".form-error")).not_to_be_empty()
    expect(ann.locator(".t-role")).to_have_text("Spectator")
    reg.get_by_label("Invite code").fill(code.lower())
    reg.get_by_role("button", name="Register").click()
    expect(ann.locator(".t-role")).to_have_text("Playing as ann")
    bob = crowd.register(tid, ["bob"], invite=code)[0]
    expect(org.locator(".t-players li")).to_have_count(2)

    # the organizer removes bob and bans his nickname (asked twice)
    row = org.locator('.t-players li[data-player="1"]')
    row.get_by_role("button", name="Remove bob and ban the nickname").click()
    row.get_by_role("button", name="Really ban bob?").click()
    expect(row).to_contain_text("removed")
    expect(row.get_by_role("button")).to_have_count(0)
    expect(ann.locator('.t-players li[data-player="1"]')).to_contain_text("removed")
    kicked = crowd.run(bob.expect("t_event", lambda d: d["kind"] == "kicked"))
    assert (kicked["player"], kicked["ban"]) == (1, True)
    again = crowd.open("bob again")
    refused = crowd.ask(again, "t_register", {"id": tid, "nickname": "B0B", "invite": code}, "reject")
    assert refused["code"] == "banned"

    # removed, ann's page says so and goes on as a spectator's; not banned, she may register again
    ann.evaluate(TOASTS_JS)
    ann_row = org.locator('.t-players li[data-player="0"]')
    ann_row.get_by_role("button", name="Remove ann from the tournament").click()
    org.get_by_role("button", name="Really remove ann?").click()
    expect(ann.locator(".t-role")).to_have_text("Spectator")
    expect(ann.locator('.t-players li[data-player="0"]')).to_contain_text("removed")
    assert "removed you" in " ".join(ann.evaluate("() => window.__said"))
    assert not ann.evaluate(f"() => localStorage.getItem('kr.tour.{tid}')").count("token")
    expect(ann.locator("form.t-register")).to_be_visible()

    # the organizer's key moves to a phone: a one-time code typed there
    org.get_by_role("button", name="Make a one-time code").click()
    handoff = org.locator(".t-handoff-code")
    expect(handoff).to_have_text(re.compile(r"^[A-Z0-9]{10}$"))
    phone = tabs.page(f"/t/{tid}?admin", viewport={"width": 390, "height": 844}, is_mobile=True,
                      has_touch=True)
    expect(phone.locator(".t-problem")).to_contain_text("does not hold the organizer's key")
    phone.get_by_label("Code from the organizer's other device").fill(handoff.inner_text().lower())
    phone.get_by_role("button", name="Use the code").tap()
    expect(phone.locator(".t-role")).to_have_text("Organizer")
    expect(phone.locator(".t-problem")).to_be_hidden()
    expect(phone.get_by_role("button", name="Close registration")).to_be_visible()
    fits(phone)


def test_two_players_who_tie_after_a_round_are_in_one_order_on_every_part_of_the_page(
        tabs: Tabs, crowd: Crowd) -> None:
    """Issue 25, item 7: ann, bob and cat end round 1 on equal dollars and
    cards (none home), cat with the fewest moves and resigned first, bob
    with the most. The round's results ranked them by moves (cat 1st, bob
    3rd) and the standings by registration; a tournament's round now breaks
    ties as its standings do, by registration: ann, bob, cat on both, on
    the page a spectator opens."""
    org = crowd.open("org")
    created = crowd.ask(org, "t_create", {"name": "Ties", "settings": {"codes": [ROUND1], "time_limit": 600}},
                        "t_created")
    tid, admin = created["id"], created["admin"]
    ann, bob, cat = crowd.register(tid, ["ann", "bob", "cat"])

    async def start() -> dict[str, object]:
        await org.send("t_start", {"id": tid, "admin": admin, "at": 0})
        return await org.expect("t_event", lambda d: d["kind"] == "round_started", timeout=30)

    room = str(crowd.run(start())["room"])
    crowd.enter(room, [ann, bob, cat])
    crowd.play([(cat, ["draw"])], resign=[cat]).result(30)
    crowd.play([(ann, ["draw", "draw"])], resign=[ann]).result(30)
    crowd.play([(bob, ["draw", "draw", "draw"])], resign=[bob]).result(30)
    spec = tabs.page(f"/t/{tid}", viewport=VIEWPORT)
    rows = spec.locator(".t-standings tbody tr")
    expect(rows).to_have_count(3)
    for rank, (player, name) in enumerate(((0, "ann"), (1, "bob"), (2, "cat")), start=1):
        expect(rows.nth(rank - 1)).to_have_attribute("data-player", str(player))
        expect(rows.nth(rank - 1).locator("th.name")).to_contain_text(name)
        expect(rows.nth(rank - 1).locator("td.rank")).to_have_text(str(rank))
    for player in (0, 1, 2):  # the tie: -$52 each
        expect(standing(spec, player).locator("td.total")).to_have_text("-$52")
    round1 = spec.locator('.t-round[data-round="1"]')
    round1.get_by_text("Results and replays").click()
    expect(round1.locator(".t-table tbody tr th")).to_have_text(["ann", "bob", "cat"])
    expect(round1.locator(".t-table tbody tr td:first-child")).to_have_text(["1", "2", "3"])
