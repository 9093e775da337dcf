"""The web client's files as browsers get them: hashes, 304s, long caching, gzip."""

from __future__ import annotations

import base64
import gzip
import hashlib
import json
import re
from pathlib import Path

import pytest
from harness import ROOT
from websockets.datastructures import Headers

from server.app.edge.http_routes import LONG_CACHE, REVALIDATE, RULES, StaticFiles, accepts_gzip, matches

IMPORTMAP = re.compile(r'<script type="importmap">(.*?)</script>', re.S)


@pytest.fixture
def site(tmp_path: Path) -> Path:
    (tmp_path / "js").mkdir()
    (tmp_path / "css").mkdir()
    (tmp_path / "index.html").write_text(
        '<!doctype html><head><link rel="stylesheet" href="/css/a.css">'
        '<script type="module" src="/js/main.js"></script></head><body><a href="/rules">rules</a></body>')
    (tmp_path / "css" / "a.css").write_text("body { color: red; }\n" * 40)
    (tmp_path / "js" / "main.js").write_text("import './b.js';\n" + "// main\n" * 60)
    (tmp_path / "js" / "b.js").write_text("export const b = 1;\n")
    return tmp_path


def tag_of(body: bytes) -> str:
    return hashlib.sha256(body).hexdigest()[:20]


def page(files: StaticFiles, path: str = "/", **headers: str) -> tuple[int, Headers, str]:
    r = files.get(path, Headers(headers))
    return r.status_code, r.headers, r.body.decode()


def test_the_page_names_every_file_by_its_hash(site: Path) -> None:
    files = StaticFiles(site, extra={})
    status, headers, html = page(files, "/r/ABCD2345?x=1")
    assert status == 200 and headers["Cache-Control"] == REVALIDATE
    css = tag_of((site / "css" / "a.css").read_bytes())
    assert f'href="/css/a.css?v={css}"' in html
    assert 'href="/rules"' in html  # an address, not a file: left alone
    found = IMPORTMAP.search(html)
    assert found
    imports = json.loads(found[1])["imports"]
    assert imports == {f"/js/{n}": f"/js/{n}?v={tag_of((site / 'js' / n).read_bytes())}"
                       for n in ("b.js", "main.js")}
    assert html.index("importmap") < html.index('<script type="module"')  # before any module loads
    for versioned in imports.values():
        assert f'<link rel="modulepreload" href="{versioned}">' in html
    # the policy allows that inline script and no other
    digest = base64.b64encode(hashlib.sha256(found[1].encode()).digest()).decode()
    assert f"script-src 'self' 'sha256-{digest}'" in headers["Content-Security-Policy"]
    assert "'unsafe-inline'" not in headers["Content-Security-Policy"]


def test_a_language_catalogue_is_in_the_import_map_but_not_preloaded(site: Path) -> None:
    """A page loads its own language's catalogue only (text.js imports it): the
    page names each by its hash but hints none of them."""
    (site / "js" / "i18n").mkdir()
    for lang in ("en", "es"):
        (site / "js" / "i18n" / f"{lang}.js").write_text(f"export default {{ language: '{lang}' }};\n")
    _, _, html = page(StaticFiles(site, extra={}), "/")
    found = IMPORTMAP.search(html)
    assert found
    imports = json.loads(found[1])["imports"]
    for lang in ("en", "es"):
        versioned = imports[f"/js/i18n/{lang}.js"]
        assert versioned.startswith(f"/js/i18n/{lang}.js?v=")
        assert f'<link rel="modulepreload" href="{versioned}">' not in html
    assert f'<link rel="modulepreload" href="{imports["/js/b.js"]}">' in html


def test_a_file_asked_for_by_its_hash_is_cached_long_and_others_revalidate(site: Path) -> None:
    files = StaticFiles(site, extra={})
    tag = tag_of((site / "js" / "b.js").read_bytes())
    hashed = files.get(f"/js/b.js?v={tag}", Headers())
    assert hashed.status_code == 200 and hashed.headers["Cache-Control"] == LONG_CACHE
    assert hashed.headers["ETag"] == f'"{tag}"'
    for path in ("/js/b.js", "/js/b.js?v=0123456789abcdef0123"):
        plain = files.get(path, Headers())
        assert plain.headers["Cache-Control"] == REVALIDATE and plain.headers["ETag"] == f'"{tag}"'


def test_if_none_match_gets_304_until_the_file_changes(site: Path) -> None:
    files = StaticFiles(site, extra={})
    first = files.get("/css/a.css", Headers({"Accept-Encoding": "gzip"}))
    etag = first.headers["ETag"]
    again = files.get("/css/a.css", Headers({"Accept-Encoding": "gzip", "If-None-Match": etag}))
    assert again.status_code == 304 and again.body == b"" and "Content-Length" not in again.headers
    assert again.headers["ETag"] == etag
    # the browser's identity copy is the same content: still 304
    plain_tag = etag.replace("-gz", "")
    assert files.get("/css/a.css", Headers({"If-None-Match": f"W/{plain_tag}"})).status_code == 304

    (site / "css" / "a.css").write_text("body { color: blue; }\n" * 41)
    changed = files.get("/css/a.css", Headers({"If-None-Match": etag}))
    assert changed.status_code == 200 and changed.headers["ETag"] != plain_tag
    _, _, html = page(files)
    assert f"/css/a.css?v={tag_of((site / 'css' / 'a.css').read_bytes())}" in html  # the page follows


def test_text_files_are_gzipped_for_browsers_that_accept_it(site: Path) -> None:
    files = StaticFiles(site, extra={})
    body = (site / "js" / "main.js").read_bytes()
    squeezed = files.get("/js/main.js", Headers({"Accept-Encoding": "gzip, deflate, br"}))
    assert squeezed.headers["Content-Encoding"] == "gzip" and squeezed.headers["Vary"] == "Accept-Encoding"
    assert gzip.decompress(squeezed.body) == body and len(squeezed.body) < len(body)
    assert squeezed.headers["Content-Length"] == str(len(squeezed.body))
    for refusal in ("", "identity", "gzip;q=0", "br"):
        plain = files.get("/js/main.js", Headers({"Accept-Encoding": refusal} if refusal else {}))
        assert "Content-Encoding" not in plain.headers and plain.body == body
    tiny = files.get("/js/b.js", Headers({"Accept-Encoding": "gzip"}))
    assert "Content-Encoding" not in tiny.headers  # too small to gain


def test_the_rule_book_is_served_as_rules_md() -> None:
    files = StaticFiles(ROOT / "web_client")
    r = files.get("/rules.md", Headers())
    assert r.status_code == 200 and r.headers["Content-Type"] == "text/markdown; charset=utf-8"
    assert r.body == RULES.read_bytes() == (ROOT / "docs" / "rules.md").read_bytes()
    assert files.get("/../docs/rules.md", Headers()).status_code == 404


def test_the_real_client_s_page_maps_every_module() -> None:
    files = StaticFiles(ROOT / "web_client")
    _, _, html = page(files)
    found = IMPORTMAP.search(html)
    assert found
    modules = {"/" + p.relative_to(ROOT / "web_client").as_posix()
               for p in (ROOT / "web_client").rglob("*.js")}
    assert set(json.loads(found[1])["imports"]) == modules


@pytest.mark.parametrize(("header", "ok"), [
    ("gzip", True), ("gzip, deflate, br", True), ("GZIP;q=0.5", True), ("*", True),
    ("gzip;q=0", False), ("br", False), ("*;q=0", False), ("", False), ("gzip;q=x", False),
])
def test_accept_encoding(header: str, ok: bool) -> None:
    assert accepts_gzip(header) is ok


@pytest.mark.parametrize(("header", "ok"), [
    ('"abc"', True), ('W/"abc"', True), ('"abc-gz"', True), ('"x", "abc"', True), ("*", True),
    ('"abd"', False), ("", False), ('"abc-gzz"', False),
])
def test_if_none_match(header: str, ok: bool) -> None:
    assert matches(header, "abc") is ok
