"""Helpers of the browser tests: find piles and cards, play moves through the UI."""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from typing import Any

from playwright.sync_api import CDPSession, Locator, Page, expect
from playwright.sync_api import Error as PlaywrightError

from server.klondike import Game, card_name, long_name

PILES = ["stock", "w", "fs", "fh", "fd", "fc", "t1", "t2", "t3", "t4", "t5", "t6", "t7"]

# every pile's cards, bottom first: a card's name, or "down" for a face-down card
TABLE_JS = """() => Object.fromEntries([...document.querySelectorAll('.race .board .pile')].map(p => [
  p.dataset.pile,
  [...p.querySelectorAll('.card')].sort((a, b) => a.dataset.index - b.dataset.index)
    .map(c => c.dataset.card || (c.classList.contains('down') ? 'down' : 'under'))]))"""


# the toasts a page showed, as they came (a toast lasts a few seconds), in
# whichever place for them: the page's, or the race screen's over its table
TOASTS_JS = """() => { window.__said = [];
  new MutationObserver((changes) => { for (const c of changes) for (const n of c.addedNodes)
    if (n.classList && n.classList.contains('toast')) window.__said.push(n.dataset.text); })
    .observe(document.body, { childList: true, subtree: true }); }"""


def hold_clock(page: Page, ahead_ms: int = 500) -> None:
    """Stop the clock of a page opened with ``tabs.page(..., clock=True)``,
    ``ahead_ms`` from its now (a margin for the call to reach it): from here
    what the page does on a timer (a toast's end, a cascade's frames and its
    end, its redraws) happens only as the test moves the clock
    (:func:`run_clock_until`, ``page.clock.run_for``, ``page.clock.resume``),
    however slow the machine."""
    for ahead in (ahead_ms, ahead_ms * 4, ahead_ms * 20):  # (a busy machine: a wider margin)
        try:
            page.clock.pause_at(int(page.evaluate("Date.now()")) + ahead)
            return
        except PlaywrightError as exc:
            if "to the past" not in str(exc):
                raise
    raise AssertionError("the page's clock could not be held")


def run_clock_until(page: Page, done: Callable[[], bool], *, step_ms: int = 16,
                    most_ms: int = 10_000) -> int:
    """Move a held page clock on, ``step_ms`` at a time (a frame: the page
    draws at each), until ``done()``; the milliseconds moved (at most
    ``most_ms``: then it fails). Each step waits for the page: its clock
    never runs ahead of the machine's (a pong is not late on it)."""
    moved = 0
    while not done():
        assert moved < most_ms, f"not done after {moved} ms of the page's clock"
        page.clock.run_for(step_ms)
        moved += step_ms
    return moved


def ordinal(n: int) -> str:
    """1st, 2nd, 3rd, 11th, 21st: a rank as the pages write it."""
    suffix = "th" if 11 <= n % 100 <= 13 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def pile(page: Page, name: str) -> Locator:
    return page.locator(f'.race .pile[data-pile="{name}"]')


def card(page: Page, name: str) -> Locator:
    return page.locator(f'.race .card[data-card="{name}"]')


#: the status bar's figures by their English label (race.js names each with data-stat, in every language)
STATS = {"Score": "score", "Moves": "moves", "Passes": "passes", "Cards": "cards", "Time": "clock",
         "Rank": "rank"}


def stat(page: Page, label: str) -> Locator:
    """The value of the status bar's figure ``label`` ("Moves"), whatever the page's language."""
    return page.locator(f'.race .stat[data-stat="{STATS[label]}"]').locator(".stat-value")


def centre(page: Page, selector: str) -> tuple[float, float]:
    """Where a finger presses an element: its middle, or near the top of a tall one."""
    box = page.locator(selector).bounding_box()
    assert box
    return box["x"] + box["width"] / 2, box["y"] + min(box["height"] / 2, 14)


def touch(cdp: CDPSession, kind: str, x: float | None = None, y: float | None = None) -> None:
    """One touch event of one finger (touchStart, touchMove at x, y; touchEnd)."""
    points = [] if x is None else [{"x": x, "y": y}]
    cdp.send("Input.dispatchTouchEvent", {"type": kind, "touchPoints": points})


def table(page: Page) -> dict[str, list[str]]:
    return dict(page.evaluate(TABLE_JS))


# the seat this page keeps for a reload (storage.js): the room played last, its seat and token
KEPT_SEAT_JS = """() => { const room = JSON.parse(localStorage.getItem('kr.last'));
  return room ? JSON.parse(localStorage.getItem('kr.seat.' + room)) : null; }"""


def kept_seat(page: Page) -> dict[str, Any]:
    """The seat the page keeps for a reload: {room, seat, token, ...}."""
    seat = page.evaluate(KEPT_SEAT_JS)
    assert seat, "the page keeps no seat"
    return dict(seat)


# a server time as the time of day a page shows it (clock.js), whatever its
# estimate of the server's clock (on this machine, within half a second of
# ours) did to the second: the two readings it can have
TIME_OF_DAY_JS = """async (ms) => { const clock = (await import('/js/clock.js')).createClock();
  return [...new Set([clock.timeOfDay(ms - 499), clock.timeOfDay(ms + 499)])]; }"""


def times_of_day(page: Page, ms: int) -> list[str]:
    """How ``page`` may write server time ``ms`` as a time of day: "20:30:05"."""
    return list(page.evaluate(TIME_OF_DAY_JS, ms))


def resign(page: Page) -> None:
    """Resign from the race screen: the button, then its confirmation."""
    controls = page.locator(".controls")
    controls.get_by_role("button", name="Resign").click()
    controls.get_by_role("button", name="Really resign?").click()


def set_nickname(page: Page, name: str) -> None:
    page.get_by_label("Nickname").fill(name)


def start_solo(page: Page, nickname: str, code: str, *, assists: str | None = None) -> None:
    """From the lobby: a solo game of ``code`` (with ``assists``, else the
    form's); returns when its table is dealt."""
    set_nickname(page, nickname)
    solo = page.locator("form.solo")
    solo.get_by_label("A code").check()
    solo.get_by_label("Solo deal code").fill(code)
    if assists is not None:
        solo.get_by_label("Assists").select_option(assists)
    solo.get_by_role("button", name="Play solo").click()
    dealt(page)


def dealt(page: Page) -> None:
    """Wait for a new game's deal on the table: no move yet, then a card.
    In that order: the table is shown as soon as a room's state comes, a
    moment before its board, and "Moves 0" is already true on that empty
    table, where a key has no game to act on yet (a flake of test_web_keys,
    whose Space was pressed in that moment); a card comes with the board."""
    expect(stat(page, "Moves")).to_have_text("0")
    expect(page.locator(".race .board .card").first).to_be_visible()


BOARDS = {"live": "Live", "delayed": "Delayed", "after": "After the race"}


def create_room(page: Page, nickname: str, *, code: str | None = None, undo: bool = True,
                hints: bool = True, boards: str = "after") -> str:
    """From the lobby: create a room (spectators see the boards as
    ``boards`` says); returns the room link shown to share."""
    set_nickname(page, nickname)
    form = page.locator("form.create")
    form.get_by_label(BOARDS[boards], exact=True).check()
    if code:
        form.get_by_label("A code").check()
        form.get_by_label("Deal code").fill(code)
    if not undo:
        form.get_by_label("Undo").uncheck()
    if not hints:
        form.get_by_label("Assists").select_option("off")
    form.get_by_role("button", name="Create room").click()
    link = page.get_by_label("Room link", exact=True)
    expect(link).to_have_value(re.compile(r"/r/[A-Z0-9]{8}$"))
    return link.input_value()


def drag(page: Page, source: Locator, target: Locator, *, dy: float = 0.4) -> None:
    """Press on ``source``, move in steps and let go over ``target`` (mouse)."""
    settle(page)
    src = source.bounding_box()
    dst = target.bounding_box()
    assert src and dst
    x, y = src["x"] + src["width"] / 2, src["y"] + min(12, src["height"] / 4)
    page.mouse.move(x, y)
    page.mouse.down()
    page.mouse.move(x + 8, y + 8, steps=2)
    page.mouse.move(dst["x"] + dst["width"] / 2, dst["y"] + min(dst["height"], 160) * dy, steps=6)
    page.mouse.up()


def poll(page: Page, check: Callable[[], bool], what: str, timeout: float = 10.0) -> None:
    """Wait for a condition on the test's side (Playwright's events keep flowing meanwhile)."""
    until = time.monotonic() + timeout
    while not check():
        if time.monotonic() > until:
            raise TimeoutError(f"timed out waiting for {what}")
        page.wait_for_timeout(20)


GAMES_JS = "async (id) => (await (await fetch('/api/players/' + id)).json()).games"


def recorded(page: Page, player_id: str, games: int) -> None:
    """Wait until the player has ``games`` games on record (a game's result
    is recorded just after its end), asking the public API from the page.
    (Not ``wait_for_function``: it takes an async predicate's promise for a
    truthy answer at once.)"""
    poll(page, lambda: int(page.evaluate(GAMES_JS, player_id)) >= games,
         f"player {player_id} to have {games} games on record")


def one_line(page: Page, selector: str) -> None:
    """Every visible child of ``selector`` sits on the same line."""
    boxes = page.evaluate("""(sel) => [...document.querySelector(sel).children]
      .filter((c) => c.offsetParent !== null).map((c) => { const r = c.getBoundingClientRect();
        return [c.className, r.top, r.bottom]; })""", selector)
    assert boxes
    middles = [(top + bottom) / 2 for _, top, bottom in boxes]
    assert max(middles) - min(middles) < 8, f"{selector} wraps: {boxes}"


def slow_motion(page: Page) -> None:
    """Every animation of the page runs a thousand times slower: a card in
    flight stays in flight while the test looks or taps."""
    cdp = page.context.new_cdp_session(page)
    cdp.send("Animation.enable")
    cdp.send("Animation.setPlaybackRate", {"playbackRate": 0.001})


def settle(page: Page) -> None:
    """Wait until no card is sliding (so a card's box is where it rests)."""
    page.wait_for_function("() => document.getAnimations().every(a => a.playState !== 'running')")


class Keyboard:
    """Plays moves with the keys only: left/right to a pile, Enter to pick up
    and put down, up/down to choose how many cards of a column, space to draw."""

    def __init__(self, page: Page, code: str) -> None:
        self.page = page
        self.focus = "stock"  # where the client's keyboard focus starts
        self.game = Game(code)

    def go(self, target: str) -> None:
        i, j = PILES.index(self.focus), PILES.index(target)
        right, left = (j - i) % len(PILES), (i - j) % len(PILES)
        key, n = ("ArrowRight", right) if right <= left else ("ArrowLeft", left)
        for _ in range(n):
            self.page.keyboard.press(key)
        self.focus = target

    def play(self, notation: str) -> None:
        game = self.game
        if notation == "undo":
            self.page.keyboard.press("u")
            game.pop()
            expect(stat(self.page, "Moves")).to_have_text(str(game.moves))
            return
        if notation in ("draw", "recycle"):
            self.page.keyboard.press(" ")
        else:
            source, target = notation.split(">")
            source, _, count = source.partition(":")
            n = int(count or 1)
            lead = self.lead(source, n)
            self.go(source)
            if n > 1:
                for _ in range(n - 1):  # the first opens the chooser at two cards
                    self.page.keyboard.press("ArrowUp")
            self.page.keyboard.press("Enter")  # picks the top card, or the chooser's cards
            self.go("f" + lead[1].lower() if target == "f" else target)
            self.page.keyboard.press("Enter")
        game.push(notation)
        expect(stat(self.page, "Moves")).to_have_text(str(game.moves))

    def lead(self, source: str, n: int) -> str:
        """The name of the first card moved (the test knows the deal)."""
        game = self.game
        if source == "w":
            return card_name(game.waste[-1])
        if source.startswith("f"):
            suit = "shdc".index(source[1])
            return card_name(suit * 13 + game.foundations[suit] - 1)
        column = game.columns[int(source[1:]) - 1]
        return card_name(column[-n])


SUIT_SYMBOL = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}


def hidden(game: Game) -> set[int]:
    """Cards this game has never shown: face down, or still in the stock (no recycle yet)."""
    assert game.recycles == 0
    down = {c for col, n in zip(game.columns, game.down, strict=True) for c in col[:n]}
    return down | set(game.stock)


def shown_as(c: int) -> list[str]:
    name = card_name(c)
    rank = "10" if name[0] == "T" else name[0]
    return [f'data-card="{name}"', long_name(c), f"{rank}{SUIT_SYMBOL[name[1]]}"]


def play_fast(page: Page, moves: list[str]) -> None:
    """Play ``moves`` with the table's keys, each once the one before is
    answered, taking the cards a move names from the table as drawn: for the
    tests about what comes after many moves, not about input (taps, drags
    and keys are tested as such elsewhere). Starts once the table is dealt."""
    expect(page.locator(".race .board .card").first).to_be_visible(timeout=15_000)
    expect(page.locator(".screen.race")).not_to_have_class(re.compile(r"\bbusy\b"))
    ring = page.locator('.race .pile[tabindex="0"]')
    ring.focus()  # into the table, as a keyboard player tabs there
    at = ring.get_attribute("data-pile") or "stock"
    played = int(stat(page, "Moves").inner_text())

    def go(target: str) -> None:
        nonlocal at
        if target.startswith("t"):
            page.keyboard.press(target[1])
        else:
            i, j = PILES.index(at), PILES.index(target)
            right, left = (j - i) % len(PILES), (i - j) % len(PILES)
            for _ in range(min(right, left)):
                page.keyboard.press("ArrowRight" if right <= left else "ArrowLeft")
        at = target

    for m in moves:
        if m == "undo":
            page.keyboard.press("u")
            played -= 1
        elif m in ("draw", "recycle"):
            page.keyboard.press(" ")
            played += 1
        else:
            source, target = m.split(">")
            source, _, count = source.partition(":")
            n = int(count or 1)
            if target == "f":  # the foundation of the card on top of the source
                target = "f" + table(page)[source][-1][1].lower()
            go(source)
            for _ in range(n - 1):  # the first opens the chooser at two cards
                page.keyboard.press("ArrowUp")
            page.keyboard.press("Enter")  # picks the top card, or the chooser's cards
            go(target)
            page.keyboard.press("Enter")
            played += 1
        expect(stat(page, "Moves")).to_have_text(str(played))


class Traffic:
    """A page's HTTP requests as Chromium's network events tell them: the URL,
    the status on the wire (a 304 shows as such), the response's headers, and
    whether the browser's cache served it without asking."""

    def __init__(self, page: Page) -> None:
        self.seen: dict[str, dict[str, Any]] = {}
        cdp = page.context.new_cdp_session(page)
        cdp.send("Network.enable")
        cdp.on("Network.requestWillBeSent", self._sent)
        cdp.on("Network.requestServedFromCache", lambda e: self._set(e, cache=True))
        cdp.on("Network.responseReceived", self._response)
        cdp.on("Network.responseReceivedExtraInfo", lambda e: self._set(e, status=e["statusCode"]))

    def _sent(self, e: dict[str, Any]) -> None:
        if e["request"]["url"].startswith("http"):
            self.seen[e["requestId"]] = {"url": e["request"]["url"], "cache": False, "status": 0,
                                         "headers": {}, "answered": False}

    def _set(self, e: dict[str, Any], **values: Any) -> None:
        if e["requestId"] in self.seen:
            self.seen[e["requestId"]].update(values)

    def _response(self, e: dict[str, Any]) -> None:
        r = self.seen.get(e["requestId"])
        if r is not None:
            r["headers"] = {k.lower(): v for k, v in e["response"]["headers"].items()}
            r["cache"] = r["cache"] or bool(e["response"].get("fromDiskCache"))
            r["status"] = r["status"] or e["response"]["status"]
            r["answered"] = True

    def answered(self) -> bool:
        """Every request seen has had its answer or came from the cache
        (Chromium's events for a request may come after the page is idle)."""
        return all(r["answered"] or r["cache"] for r in self.seen.values())

    def requests(self) -> list[dict[str, Any]]:
        return list(self.seen.values())

    def clear(self) -> None:
        self.seen.clear()
