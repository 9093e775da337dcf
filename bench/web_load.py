"""What the web client costs to load: requests, bytes and time to the first board.

Run from the project's root::

    .venv/bin/python bench/web_load.py               # 5 runs of each case, local and over "4G"
    .venv/bin/python bench/web_load.py --repeat 9 --network local

It starts one server (``python -m server serve`` with its embedded Redis in
a temporary directory) and Debian's headless Chromium (through Playwright,
as the browser tests do), then measures three cases, each in a fresh
browser context (an empty HTTP cache):

- **lobby, first visit**: ``/`` until the lobby's forms are drawn;
- **table, first load**: a solo game's room link, with the seat kept in
  ``localStorage`` (as after a visit) but nothing in the HTTP cache, until
  the first card of the table is drawn;
- **table, reload**: the same page reloaded (the cache now warm), until the
  first card is drawn again.

For each case: the requests that went to the network (answered 200, or 304
"not modified"), those served by the browser's cache without asking, the
bytes on the wire (Chromium's ``encodedDataLength``: headers and bodies as
sent, compressed or not; the websocket excluded) and the time from the
start of the navigation to the moment the lobby or the first card is in the
page (a MutationObserver, in ``performance.now()`` milliseconds). Figures
are medians of ``--repeat`` runs. The ``4g`` network is Chromium's network
emulation at 9 Mbit/s down, 3 Mbit/s up and 70 ms of latency.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from playwright.sync_api import BrowserContext, CDPSession, Page, sync_playwright

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = "/usr/bin/chromium"
CODE = "KL1-D1N-AAAAAAA"
NETWORKS: dict[str, dict[str, Any] | None] = {
    "local": None,
    "4g": {"offline": False, "latency": 70, "downloadThroughput": 9_000_000 / 8,
           "uploadThroughput": 3_000_000 / 8},
}
# the moment the page first shows what we wait for, on the page's own clock
MARK_JS = """(() => {
  const seen = {};
  const check = () => {
    if (!seen.lobby && document.querySelector('form.create')) seen.lobby = performance.now();
    if (!seen.board && document.querySelector('.race .board .card')) seen.board = performance.now();
  };
  new MutationObserver(check).observe(document, {subtree: true, childList: true});
  window.__kr_seen = seen;
})();"""


@dataclass
class Load:
    network: int = 0  # requests answered over the network
    not_modified: int = 0  # of which 304
    cached: int = 0  # served from the browser's cache without a request
    wire: int = 0  # bytes on the wire
    ms: float = 0.0
    urls: list[str] = field(default_factory=list)


class Recorder:
    """Counts a page's HTTP traffic from Chromium's network events."""

    def __init__(self, cdp: CDPSession) -> None:
        self.requests: dict[str, dict[str, Any]] = {}
        cdp.on("Network.requestWillBeSent", self._sent)
        cdp.on("Network.requestServedFromCache", self._cache)
        cdp.on("Network.responseReceived", self._response)
        cdp.on("Network.responseReceivedExtraInfo", self._raw)
        cdp.on("Network.loadingFinished", self._finished)

    def _sent(self, e: dict[str, Any]) -> None:
        url = e["request"]["url"]
        if url.startswith("http"):
            self.requests[e["requestId"]] = {"url": url, "cache": False, "status": 0, "bytes": 0}

    def _cache(self, e: dict[str, Any]) -> None:
        if e["requestId"] in self.requests:
            self.requests[e["requestId"]]["cache"] = True

    def _response(self, e: dict[str, Any]) -> None:
        r = self.requests.get(e["requestId"])
        if r is not None:
            r["status"] = e["response"]["status"]
            if e["response"].get("fromDiskCache") or e["response"].get("fromPrefetchCache"):
                r["cache"] = True

    def _raw(self, e: dict[str, Any]) -> None:
        r = self.requests.get(e["requestId"])
        if r is not None and e.get("statusCode") == 304:  # the status on the wire: a revalidation
            r["raw"] = 304

    def _finished(self, e: dict[str, Any]) -> None:
        r = self.requests.get(e["requestId"])
        if r is not None:
            r["bytes"] = int(e["encodedDataLength"])

    def take(self) -> Load:
        load = Load()
        for r in self.requests.values():
            if r["cache"]:
                load.cached += 1
                continue
            load.network += 1
            status = r.get("raw", r["status"])
            load.not_modified += status == 304
            load.wire += r["bytes"]
            load.urls.append(f'{status} {r["url"]}')
        self.requests.clear()
        return load


def out(text: str = "") -> None:
    sys.stdout.write(text + "\n")


def start_server(data: Path) -> tuple[subprocess.Popen[bytes], str]:
    env = {**os.environ, "KLONDIKE_LOG_LEVEL": "warning", "KLONDIKE_COUNTDOWN": "0.2",
           "KLONDIKE_WORKERS": "1"}
    proc = subprocess.Popen([sys.executable, "-m", "server", "serve", "--host", "127.0.0.1", "--port", "0",
                             "--data-dir", str(data)], cwd=ROOT, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL)
    assert proc.stdout is not None
    line = proc.stdout.readline().decode()
    if "open http://" not in line:
        proc.kill()
        raise SystemExit(f"the server did not start: {line!r}")
    return proc, line.split("open ", 1)[1].strip().rstrip("/")


def page_with(ctx: BrowserContext, network: dict[str, Any] | None) -> tuple[Page, Recorder]:
    ctx.add_init_script(MARK_JS)
    page = ctx.new_page()
    cdp = ctx.new_cdp_session(page)
    cdp.send("Network.enable")
    if network:
        cdp.send("Network.emulateNetworkConditions", network)
    return page, Recorder(cdp)


def seen(page: Page, what: str) -> float:
    page.wait_for_function(f"() => window.__kr_seen && window.__kr_seen.{what} != null")
    return float(page.evaluate(f"() => window.__kr_seen.{what}"))


def solo_seat(browser: Any, base: str) -> dict[str, Any]:
    """A solo game's room link and the localStorage that holds its seat."""
    ctx = browser.new_context(base_url=base)
    ctx.add_init_script("try { localStorage.setItem('kr.intro', '1'); } catch (e) {}")  # no first-visit help
    page = ctx.new_page()
    page.goto("/")
    page.get_by_label("Nickname").fill("bench")
    solo = page.locator("form.solo")
    solo.get_by_label("A code").check()
    solo.get_by_label("Solo deal code").fill(CODE)
    solo.get_by_role("button", name="Play solo").click()
    page.locator(".race .board .card").first.wait_for()
    state = ctx.storage_state()
    url = page.url
    ctx.close()
    return {"url": url, "state": state}


def run_once(browser: Any, base: str, seat: dict[str, Any],
             network: dict[str, Any] | None) -> dict[str, Load]:
    out: dict[str, Load] = {}
    ctx = browser.new_context(base_url=base)
    page, rec = page_with(ctx, network)
    page.goto("/", wait_until="load")
    ms = seen(page, "lobby")
    page.wait_for_load_state("networkidle")
    out["lobby, first visit"] = rec.take()
    out["lobby, first visit"].ms = ms
    ctx.close()

    ctx = browser.new_context(base_url=base, storage_state=seat["state"])
    page, rec = page_with(ctx, network)
    page.goto(seat["url"], wait_until="load")
    ms = seen(page, "board")
    page.wait_for_load_state("networkidle")
    out["table, first load"] = rec.take()
    out["table, first load"].ms = ms
    page.reload(wait_until="load")
    ms = seen(page, "board")
    page.wait_for_load_state("networkidle")
    out["table, reload"] = rec.take()
    out["table, reload"].ms = ms
    ctx.close()
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--network", choices=[*NETWORKS, "all"], default="all")
    parser.add_argument("--urls", action="store_true", help="list the requests of the last run")
    parser.add_argument("--json", type=Path, help="write the figures there too")
    a = parser.parse_args(argv)
    nets = list(NETWORKS) if a.network == "all" else [a.network]
    with tempfile.TemporaryDirectory(prefix="kr-webload-") as tmp:
        proc, base = start_server(Path(tmp))
        try:
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path=CHROMIUM,
                                            args=["--headless=new", "--no-sandbox", "--disable-gpu",
                                                  "--disable-dev-shm-usage", "--no-first-run"])
                seat = solo_seat(browser, base)
                report: dict[str, Any] = {}
                for net in nets:
                    runs = [run_once(browser, base, seat, NETWORKS[net]) for _ in range(a.repeat)]
                    out(f"\nnetwork: {net} (medians of {a.repeat} runs)")
                    out(f"{'case':<22}{'requests':>9}{'of them 304':>12}{'from cache':>11}"
                          f"{'KB on the wire':>15}{'ms to draw':>11}")
                    for case in runs[0]:
                        loads = [r[case] for r in runs]
                        row = {k: statistics.median(getattr(x, k) for x in loads)
                               for k in ("network", "not_modified", "cached", "wire", "ms")}
                        report[f"{net}/{case}"] = row
                        out(f"{case:<22}{row['network']:>9g}{row['not_modified']:>12g}{row['cached']:>11g}"
                              f"{row['wire'] / 1024:>15.1f}{row['ms']:>11.0f}")
                    if a.urls:
                        for case, load in runs[-1].items():
                            out(f"  {case}:\n    " + "\n    ".join(load.urls))
                browser.close()
        finally:
            proc.send_signal(signal.SIGTERM)
            proc.wait(20)
    if a.json:
        a.json.write_text(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
