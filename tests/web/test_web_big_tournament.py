"""A big tournament in the browser: up to 50 players, 28 registered, two of
them in browsers (pia on a phone, kim on a desktop), the others scripted
over plain websockets (crowd.py: four win round 1 with the script of
wins.json, nine play part of it, four resign, six come and stay idle, two
never come), an organizer's page, a spectator's page, and a late
registration during round 1.

The organizer creates it from the lobby's form (a big tournament's standings
show the top 5; registration stays open until round 2; the next round starts
a minute after the last one ended). During round 1 the
spectator sees the field's picture, the top lines of the round in the
server's order and the top players' boards in rank order, and follows a
player by nickname; pia leaves her table for the page and sees her place.
The organizer finds kim in the standings and removes him (his table
closes, his page goes on as a spectator's and says why, the counts say
so), moves the organizer's key to another device with a one-time code, and
that device ends the round. Then every page's top of
the standings is the server's (``t_page``), pia's own line is pinned with
her rank (``t_find``), the late player counts round 1 as missed, the whole
field pages through, a found player's round replays, and the phone shows it
all within its width. No page holds a round's code before that round ends,
and no frame but a spectator's boards names a card. Last, pia withdraws
(answered to her alone, counted for everyone) and the organizer's and the
spectator's pages fit a phone too.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from crowd import Crowd
from harness import Client, ServerProcess, load_wins
from playwright.sync_api import Page, expect
from web_support import TOASTS_JS, kept_seat, ordinal, play_fast, settle, times_of_day

from conftest import Tabs, screenshot

pytestmark = pytest.mark.browser

CODE1 = "KL1-D1V-ACT552B"
CODE2 = "KL1-D1V-ABYI5NK"
SCRIPT = next(w["script"] for w in load_wins() if w["code"] == CODE1)
PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True,
         "device_scale_factor": 2, "locale": "en-GB"}
DESKTOP = {"locale": "en-GB", "viewport": {"width": 1280, "height": 900}}
TOP = 5
WINNERS = [f"w{i:02}" for i in range(1, 5)]
PARTIAL = {f"p{i:02}": 8 + 5 * (i - 5) for i in range(5, 14)}  # play that many moves of the script
RESIGN = [f"r{i:02}" for i in range(15, 19)]
IDLE = [f"i{i:02}" for i in range(19, 25)]
NO_SHOW = ["n25", "n26"]
PIA_MOVES = 30
KICKED = "kim"
FOLLOWED = "p09"
CARD = re.compile(r'"[A2-9TJQK][SHDC]"')

# elements outside the page's width, except in boxes that scroll sideways (wide tables)
WIDE_JS = """() => [...document.querySelectorAll('body *')]
  .filter(e => e.offsetParent && !e.closest('.t-scroll')
    && e.getBoundingClientRect().right > document.documentElement.clientWidth + 1)
  .map(e => e.tagName + '.' + e.className).slice(0, 5)"""
FIELDS_JS = "() => [...document.querySelectorAll('input, textarea')].map(e => e.value).join()"
FITS_JS = "() => document.documentElement.scrollWidth <= document.documentElement.clientWidth"


@pytest.fixture(scope="module")
def server(big_server: ServerProcess) -> ServerProcess:
    return big_server


def money(v: int) -> str:
    return f"+${v}" if v > 0 else f"-${-v}" if v < 0 else "$0"


def fits(page: Page) -> None:
    """Nothing sticks out sideways (wide tables scroll in their own box)."""
    page.wait_for_function(FITS_JS)
    assert not page.evaluate(WIDE_JS)


def no_code(tabs: Tabs, pages: list[Page], code: str) -> None:
    """`code` is in no page's DOM, form field or received frame."""
    for page in pages:
        assert code not in page.content(), f"{code} is in a page"
        values = page.evaluate(FIELDS_JS)
        assert code not in values, f"{code} is in a form field"
        for raw in tabs.frames[page]:
            assert code not in raw, f"{code} was sent: {raw[:200]}"


def standings_page(crowd: Crowd, probe: Client, tid: str, first: int, count: int) -> list[dict[str, Any]]:
    return list(crowd.ask(probe, "t_page", {"id": tid, "first": first, "count": count}, "t_page")["lines"])


def counts(page: Page) -> Any:
    """What the page says of the field: registered, withdrawn, removed."""
    return expect(page.locator(".t-field-counts"))


def round_rank(crowd: Crowd, probe: Client, nickname: str) -> int:
    """A player's rank in the race of the round's room (the probe watches it)."""
    lines = round_page(crowd, probe, 1, 50)
    return next(i for i, x in enumerate(lines, start=1) if x["nickname"] == nickname)


def round_page(crowd: Crowd, probe: Client, first: int, count: int) -> list[dict[str, Any]]:
    return list(crowd.ask(probe, "lb_page", {"first": first, "count": count}, "lb_page")["lines"])


def tournament_seen(frames: list[str], tid: str) -> dict[str, Any]:
    """The tournament as the last of these frames showed it (t_sync, t_event)."""
    seen = [msg["d"]["tournament"] for msg in map(json.loads, frames)
            if msg["t"] in ("t_sync", "t_event") and msg["d"].get("tournament", {}).get("id") == tid]
    assert seen, f"no frame showed tournament {tid}"
    return dict(seen[-1])


def create(page: Page) -> str:
    form = page.locator("form.tournament-form")
    form.get_by_label("Tournament name").fill("Weekly cup")
    form.get_by_label("Deal codes").check()
    form.get_by_label("Codes, one per line").fill(f"{CODE1}\n{CODE2}")
    form.get_by_label("Time per round").select_option("300")
    expect(form.locator(".t-big-only")).to_be_hidden()  # a small tournament is asked what it always was
    form.get_by_label("Players").select_option("50")
    form.get_by_label("Standings show the top").select_option(str(TOP))
    form.get_by_label("Registration open until round").fill("2")
    form.get_by_label("The next round starts").select_option("60")  # a minute after the last one ended
    form.locator('input[name="tboards"][value="live"]').check()
    form.get_by_role("button", name="Create tournament").click()
    expect(page).to_have_url(re.compile(r"/t/[A-Z0-9]{8}\?admin$"))
    return page.get_by_label("Tournament link").input_value()


def test_a_big_tournament_for_its_organizer_its_players_and_its_spectators(tabs: Tabs, crowd: Crowd) -> None:
    org = tabs.page("/", **DESKTOP)
    link = create(org)
    tid = link[-8:]
    expect(org.locator(".t-role")).to_have_text("Organizer")
    expect(org.locator(".t-sub")).to_contain_text("up to 50 players")

    pia = tabs.page(link, **PHONE)
    reg = pia.locator("form.t-register")
    reg.get_by_label("Nickname").fill("pia")
    reg.get_by_role("button", name="Register").tap()
    expect(pia.locator(".t-role")).to_have_text("Playing as pia")
    kim = tabs.page(link, **DESKTOP)
    reg = kim.locator("form.t-register")
    reg.get_by_label("Nickname").fill("kim")
    reg.get_by_role("button", name="Register").click()
    expect(kim.locator(".t-role")).to_have_text("Playing as kim")
    spec = tabs.page(link, **DESKTOP)
    expect(spec.locator(".t-role")).to_have_text("Spectator")

    names = WINNERS + list(PARTIAL) + RESIGN + IDLE + NO_SHOW
    players = dict(zip(names, crowd.register(tid, names), strict=True))
    registered = len(names) + 2
    admin = org.locator(".t-admin")
    expect(admin).to_contain_text(
        f"Registration is open until round 2 starts: {registered} of at most 50 players.")
    for page in (org, pia, spec):
        counts(page).to_have_text(f"{registered} registered · find anyone in the standings.")
        expect(page.locator(".t-players li")).to_have_count(0)  # no list of players
    expect(pia.locator(".t-detail")).to_contain_text("Registration stays open until round 2 starts")

    # ---------------------------------------------------------------- round 1
    org.get_by_role("button", name="Start round 1 now").click()
    expect(pia.locator(".screen.race")).to_be_visible(timeout=15_000)
    expect(pia.locator(".race .notice.countdown")).to_be_hidden(timeout=15_000)
    expect(pia.locator(".room-label")).to_contain_text("Weekly cup · round 1 of 2")
    expect(kim.locator(".race .notice.countdown")).to_be_hidden(timeout=15_000)  # kim stays idle
    room = kept_seat(pia)["room"]
    came = [players[n] for n in names if n not in NO_SHOW]
    crowd.enter(room, came)
    scripts = {n: SCRIPT for n in WINNERS} | {n: SCRIPT[:k] for n, k in PARTIAL.items()}
    scripts |= {n: SCRIPT[:3] for n in RESIGN}
    busy = crowd.play([(players[n], ms) for n, ms in scripts.items()], resign=[players[n] for n in RESIGN])
    play_fast(pia, SCRIPT[:PIA_MOVES])
    busy.result(120)

    crowd.register(tid, ["late"])  # registration stays open: round 1 counts as missed
    counts(org).to_have_text(f"{registered + 1} registered · find anyone in the standings.")

    # the spectator: the field's picture, the top of the round, the top boards in rank order
    probe = crowd.open("probe")
    crowd.ask(probe, "watch", {"room": room, "since": 0}, "watching")
    seated = len(came) + 2
    top = round_page(crowd, probe, 1, TOP)
    live = spec.locator(".t-live .t-biglive")
    expect(live.locator(".leaderboard .lb-row .lb-name")).to_have_text([x["nickname"] for x in top])
    expect(live.locator(".leaderboard .lb-more")).to_have_text(f"and {seated - TOP} more")
    spec.wait_for_function(f"""() => [...document.querySelectorAll('.t-live .hist-bar')]
      .reduce((n, b) => n + Number(b.dataset.count), 0) === {seated}""")
    expect(live.locator(".hist-bar").nth(52)).to_have_attribute("data-count", str(len(WINNERS)))
    tiles = live.locator(".tile")
    expect(tiles).to_have_count(TOP)
    assert [int(t.get_attribute("data-seat") or -1) for t in tiles.all()] == [x["seat"] for x in top]
    expect(live.locator(".t-biglive-top .lb-place")).to_be_hidden()  # a spectator has no place of their own
    settle(spec)
    expect(spec.locator(".toast")).to_have_count(0, timeout=15_000)  # (the finishes' news has gone)
    spec.evaluate("() => document.querySelector('.t-live').scrollIntoView()")
    screenshot(spec, "big-tournament-spectator")
    live.get_by_label("Nickname to follow").fill(FOLLOWED)
    live.get_by_role("button", name="Follow", exact=True).click()
    followed = round_rank(crowd, probe, FOLLOWED)
    expect(live.locator(".follow-title")).to_have_text(
        f"Following {FOLLOWED} · {ordinal(followed)} of {seated}")
    expect(live.locator(".follow-board .board")).to_be_visible()
    expect(spec).to_have_url(re.compile(rf"/t/{tid}$"))  # the tournament's address stays

    # pia looks at the page during her round: her place in the round, then back to the table
    pia.locator(".topbar").get_by_role("button", name="Tournament page").tap()
    expect(pia.locator(".screen.tournament")).to_be_visible()
    pia_rank = round_rank(crowd, probe, "pia")
    expect(pia.locator(".t-biglive-top .lb-place .lb-title")).to_have_text(
        f"You: {ordinal(pia_rank)} of {seated}")
    expect(pia.locator(".t-biglive-top .lb-place .lb-row.me .lb-name")).to_have_text("pia (you)")
    expect(pia.locator(".t-live .tile")).to_have_count(0)  # players see only their own board
    fits(pia)
    pia.get_by_role("button", name="Back to your table").tap()
    expect(pia.locator(".screen.race")).to_be_visible()

    # the organizer finds a player and removes them (asked twice)
    org.locator(".t-browse > summary").click()
    browse = org.locator(".t-browse")
    browse.get_by_label("Nickname to find in the standings").fill(KICKED.upper())  # found whatever the case
    browse.get_by_role("button", name="Find").click()
    expect(browse.locator(".t-found-name")).to_have_text(KICKED)
    expect(browse.locator(".t-found-rounds")).to_have_count(0)  # no round ended yet
    expect(org.locator(".toast")).to_have_count(0, timeout=15_000)  # (the finishes' news has gone)
    screenshot(org, "big-tournament-organizer")
    browse.get_by_role("button", name=f"Remove {KICKED} from the tournament").click()
    kim.evaluate(TOASTS_JS)
    browse.get_by_role("button", name=f"Really remove {KICKED}?").click()
    # kim's table closes (4001): his page stays the tournament's, now a spectator's, and says why
    expect(kim.locator(".screen.tournament")).to_be_visible()
    expect(kim.locator(".t-role")).to_have_text("Spectator")
    expect(kim).to_have_url(re.compile(rf"/t/{tid}$"))
    expect(kim.locator(".t-biglive .follow-find")).to_be_visible()  # watching the round
    assert "removed you" in " ".join(kim.evaluate("() => window.__said"))
    assert "token" not in (kim.evaluate(f"() => localStorage.getItem('kr.tour.{tid}')") or "")
    counts(org).to_have_text(
        f"{registered} registered · 1 removed · find anyone in the standings.")
    expect(browse.locator(".t-found-name")).to_have_count(0)
    expect(admin).to_contain_text(
        re.compile(rf"Round 1 is being played: \d+ still playing, {seated} came of {registered}\."))

    # the organizer's key moves to another device with a one-time code
    org.get_by_role("button", name="Make a one-time code").click()
    handoff = org.get_by_label("Organizer's link for the other device")
    expect(handoff).to_have_value(re.compile(rf"/t/{tid}\?admin#claim=[A-Z0-9]{{10}}$"))
    other = tabs.page(handoff.input_value(), **DESKTOP)
    expect(other.locator(".t-role")).to_have_text("Organizer")
    expect(other).to_have_url(re.compile(rf"/t/{tid}\?admin$"))  # the code leaves the address
    expect(other.locator(".t-problem")).to_be_hidden()
    again = tabs.page(handoff.input_value(), **DESKTOP)  # used: refused, and said so
    expect(again.locator(".t-problem .form-error")).to_contain_text("wrong, used or expired")
    expect(again.locator(".t-role")).to_have_text("Spectator")

    no_code(tabs, [org, pia, spec, other], CODE1)
    end_from = {page: len(tabs.frames[page]) for page in (org, pia, spec)}
    other.get_by_role("button", name="End round 1").click()
    other.get_by_role("button", name="Really end round 1?").click()

    # ---------------------------------------------------------------- the standings after round 1
    ranked = registered  # 28 registered and the late one, less the one removed
    expect(org.locator('.t-round[data-round="1"] .badge')).to_have_text("over")  # recorded: then announced
    lines = standings_page(crowd, probe, tid, 1, 50)
    assert len(lines) == ranked and KICKED not in [x["nickname"] for x in lines]
    for page in (org, pia, spec):
        expect(page.locator('.t-round[data-round="1"] .t-code')).to_have_text(CODE1)
        rows = page.locator(".t-standings.t-big .t-top tbody tr:not(.gap):not(.apart)")
        expect(rows.locator("th.name")).to_have_text([x["nickname"] for x in lines[:TOP]])
        expect(rows.locator("td.total")).to_have_text([money(x["vegas"]) for x in lines[:TOP]])
        expect(page.locator(".t-standings.t-big .t-of")).to_have_text(f"The top {TOP} of {ranked}")
    assert [x["nickname"] for x in lines[:len(WINNERS)]] == sorted(WINNERS, key=lambda n: next(
        i for i, x in enumerate(lines) if x["nickname"] == n))
    assert all(x["vegas"] == 208 for x in lines[:len(WINNERS)])
    expect(pia.locator(".t-headline")).to_have_text("Round 1 is over")
    rank = next(i for i, x in enumerate(lines, start=1) if x["nickname"] == "pia")
    found = crowd.ask(probe, "t_find", {"id": tid, "nickname": "pia"}, "t_found")
    assert found["rank"] == rank
    pinned = pia.locator(".t-standings.t-big .t-top tbody tr.apart")
    expect(pinned.locator("th.name")).to_have_text(
        [lines[r - 1]["nickname"] + (" (you)" if r == rank else "") for r in range(rank - 1, rank + 2)])
    expect(pinned.locator("td.rank")).to_have_text([str(r) for r in range(rank - 1, rank + 2)])
    expect(pia.locator(".t-standings.t-big tr.me td.total")).to_have_text(money(found["line"]["vegas"]))
    expect(pia.locator(".t-standings.t-big .t-note")).to_contain_text(f"You: {ordinal(rank)} of {ranked}")
    status, vegas, _, _, _, in_round = found["line"]["rounds"][0]
    assert status == "unfinished"  # still playing when the organizer ended the round
    expect(pia.locator(".t-detail")).to_contain_text(f"You: {ordinal(in_round)}, unfinished, {money(vegas)}.")
    late_line = next(x for x in lines if x["nickname"] == "late")
    assert late_line["rounds"] == [["missed", -52, 0, None, 0, None]]
    fits(pia)
    pia.locator(".t-standings.t-big").scroll_into_view_if_needed()
    settle(pia)
    screenshot(pia, "big-tournament-phone")

    # the whole field a page at a time; a found player's round replays
    spec.locator(".t-browse > summary").click()
    browse = spec.locator(".t-browse")
    expect(browse.locator(".field-where")).to_have_text(f"Ranks 1–25 of {ranked}")
    page_rows = browse.locator(".t-field-page tbody tr")
    expect(page_rows.locator("th.name")).to_have_text([x["nickname"] for x in lines[:25]])
    browse.get_by_role("button", name="Next ›").click()
    expect(browse.locator(".field-where")).to_have_text(f"Ranks 26–{ranked} of {ranked}")
    expect(page_rows.locator("td.rank")).to_have_text([str(r) for r in range(26, ranked + 1)])
    expect(browse.get_by_role("button", name="Next ›")).to_be_disabled()
    browse.get_by_role("button", name="Show late").click()
    expect(browse.locator(".t-found-rounds li")).to_have_text(["Round 1: did not play · -$52"])
    browse.get_by_label("Nickname to find in the standings").fill("w03")
    browse.get_by_role("button", name="Find").click()
    expect(browse.locator(".field-where")).to_have_text(f"Ranks 1–25 of {ranked}")  # the page it is on
    expect(browse.locator(".t-field-page tr.found th.name")).to_have_text("w03")
    expect(browse.locator(".t-found-rounds li")).to_contain_text(["Round 1: finished"])
    browse.get_by_role("button", name="Replay w03's round 1").click()
    viewer = spec.get_by_role("dialog", name="Round 1 · w03")
    expect(viewer.locator(".replay-step")).to_contain_text(f"Step 0 of {len(SCRIPT)}")
    # past the first page of steps (100): the last, then one back
    viewer.get_by_role("button", name="Last step").click()
    expect(viewer.locator(".replay-step")).to_contain_text(
        f"Step {len(SCRIPT)} of {len(SCRIPT)}: {SCRIPT[-1]} · 52/52 cards")
    viewer.get_by_role("button", name="Step back").click()
    expect(viewer.locator(".replay-step")).to_contain_text(f"Step {len(SCRIPT) - 1} of {len(SCRIPT)}")
    viewer.get_by_role("button", name="Close").click()
    browse.get_by_label("Nickname to find in the standings").fill(KICKED)
    browse.get_by_role("button", name="Find").click()
    expect(browse.locator(".field-missing")).to_have_text(f"Nobody is called {KICKED} in this tournament.")
    settle(spec)
    browse.scroll_into_view_if_needed()
    screenshot(spec, "big-tournament-standings")

    # the next round: the late player plays it; the code of round 2 is still nobody's
    expect(spec.locator(".t-detail")).to_contain_text(re.compile(r"Next: round 2 of 2, at \d\d:\d\d:\d\d\."))
    ended_at = tournament_seen(tabs.frames[spec], tid)["rounds"][0]["ended_at"]
    at = "|".join(times_of_day(spec, ended_at + 60_000))
    expect(spec.locator(".t-detail")).to_contain_text(re.compile(rf"Next: round 2 of 2, at ({at})\."))
    no_code(tabs, [org, pia, spec, other], CODE2)
    for page, start in end_from.items():  # the code of round 1 came with its end, and in no frame before
        assert not any(CODE1 in raw for raw in tabs.frames[page][:start])
    for page in (org, spec):  # the organizer and the spectator watched: no frame named a face-down card
        for raw in tabs.frames[page]:
            msg = json.loads(raw)
            if msg["t"] != "boards":
                assert not CARD.search(raw), f"a card in a {msg['t']} frame: {raw[:200]}"

    # pia withdraws (asked twice): a big tournament answers her alone, and counts it
    pia.get_by_role("button", name="Withdraw from the tournament").tap()
    pia.get_by_role("button", name="Really withdraw? You cannot come back").tap()
    expect(pia.locator(".t-you")).to_contain_text("have withdrawn")
    counts(org).to_have_text(
        f"{registered} registered · 1 withdrawn · 1 removed · find anyone in the standings.")
    assert not any(json.loads(raw)["t"] == "t_event" and json.loads(raw)["d"]["kind"] == "withdrawn"
                   for raw in tabs.frames[spec])

    # the organizer's and the spectator's pages on a phone: one column, nothing sticks out sideways
    for page in (org, spec):
        page.set_viewport_size({"width": 390, "height": 844})
        expect(page.locator(".t-side")).to_be_visible()
        fits(page)
