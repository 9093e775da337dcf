"""Fixtures of the browser tests: Debian's headless Chromium driven by Playwright.

Every page a test opens is watched: console messages of type error and page
errors fail the test, and the websocket frames it received are kept (for the
secrecy scans). Screenshots go to ``test-artifacts/`` (gitignored).
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from crowd import Crowd
from harness import ROOT, RedisServer, ServerProcess, Servers
from playwright.sync_api import Browser, BrowserContext, Page, WebSocket, expect, sync_playwright

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 "--disable-dev-shm-usage"]
ARTIFACTS = ROOT / "test-artifacts"

expect.set_options(timeout=10_000)


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[Any]:
    report = yield
    setattr(item, "rep_" + report.when, report)
    return report


@pytest.fixture(scope="session")
def browser() -> Iterator[Browser]:
    assert shutil.which(CHROMIUM), "Debian's chromium is needed for the browser tests"
    with sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


class Tabs:
    """Opens pages (each in a context of its own unless told) and records what
    went wrong in them and the websocket frames they received."""

    def __init__(self, browser: Browser, base_url: str) -> None:
        self.browser = browser
        self.base_url = base_url
        self.contexts: list[BrowserContext] = []
        self.errors: list[str] = []
        self.frames: dict[Page, list[str]] = {}
        self.sent: dict[Page, list[str]] = {}
        self.allowed: list[str] = []

    def allow(self, text: str) -> None:
        """A console error containing ``text`` is one the test expects (the
        browser logs every 404 a page fetches, answered or not)."""
        self.allowed.append(text)

    def _console(self, name: str, m: Any) -> None:
        if m.type == "error" and not any(a in m.text for a in self.allowed):
            self.errors.append(f"{name} console: {m.text}")

    def context(self, *, first_visit: bool = False, **options: Any) -> BrowserContext:
        """A browser of its own; unless ``first_visit``, one that has seen the
        newcomer's "how a race works" (which would stand over every page)."""
        options.setdefault("viewport", {"width": 1280, "height": 800})
        ctx = self.browser.new_context(base_url=self.base_url, **options)
        ctx.set_default_timeout(10_000)
        if not first_visit:
            ctx.add_init_script("try { localStorage.setItem('kr.intro', '1'); } catch (e) {}")
        self.contexts.append(ctx)
        return ctx

    def page(self, path: str = "/", *, context: BrowserContext | None = None, clock: bool = False,
             **options: Any) -> Page:
        """A page (in a context of its own unless given one); with ``clock``,
        its timers on Playwright's clock (running as the machine's until the
        test holds it: web_support.hold_clock)."""
        if context is None:
            context = self.context(**options)
            if clock:
                context.clock.install()
        page = context.new_page()
        self.watch(page)
        if path is not None:
            page.goto(path)
        return page

    def watch(self, page: Page) -> None:
        name = f"page {len(self.frames) + 1}"
        frames: list[str] = []
        sent: list[str] = []
        self.frames[page] = frames
        self.sent[page] = sent

        def text(payload: str | bytes) -> str:
            return payload if isinstance(payload, str) else payload.decode()

        def on_socket(ws: WebSocket) -> None:
            ws.on("framereceived", lambda payload: frames.append(text(payload)))
            ws.on("framesent", lambda payload: sent.append(text(payload)))

        page.on("console", lambda m: self._console(name, m))
        page.on("pageerror", lambda e: self.errors.append(f"{name} error: {e}"))
        page.on("websocket", on_socket)

    def dump(self, name: str) -> None:
        """After a failure: each page's screenshot and websocket frames, as artifacts."""
        ARTIFACTS.mkdir(exist_ok=True)
        for i, (page, frames) in enumerate(self.frames.items(), start=1):
            log = ["<- " + f for f in frames] + ["-> " + f for f in self.sent[page]]
            (ARTIFACTS / f"failed-{name}-page{i}.log").write_text("\n".join(log))
            if not page.is_closed():
                page.screenshot(path=str(ARTIFACTS / f"failed-{name}-page{i}.png"))

    def close(self) -> None:
        for ctx in self.contexts:
            ctx.close()


@pytest.fixture
def tabs(browser: Browser, server: Any, request: pytest.FixtureRequest) -> Iterator[Tabs]:
    """Pages on the module's server; the test fails on any console error."""
    group = Tabs(browser, server.http_url)
    yield group
    report = getattr(request.node, "rep_call", None)
    if report is not None and report.failed:
        group.dump(request.node.name)
    group.close()
    assert not group.errors, "errors in the browser:\n" + "\n".join(group.errors)


@pytest.fixture(scope="module")
def big_server(redis_server: RedisServer, module_servers: Servers,
               clock_file: Path) -> ServerProcess:
    """A server for big rooms and tournaments (a module's ``server`` when it
    asks for this one): ticking every 0.3 s, with a message credit that lets
    the scripted players play as fast as the server answers, on a clock the
    module's tests may move (``clock_file``)."""
    return module_servers.start(redis_server.url, args=["--tick", "0.3", "--msg-burst", "100000",
                                                        "--msg-rate", "100000",
                                                        "--clock-offset-file", str(clock_file)])


@pytest.fixture
def crowd(server: ServerProcess) -> Iterator[Crowd]:
    """Scripted players (crowd.py) on the module's server."""
    group = Crowd(server.ws_url)
    yield group
    group.close()


def screenshot(page: Page, name: str) -> Path:
    """Save a screenshot as a test artifact (copies for the docs are made by hand)."""
    ARTIFACTS.mkdir(exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    page.screenshot(path=str(path))
    return path
