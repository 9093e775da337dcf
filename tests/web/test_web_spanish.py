"""The client in Spanish: a race of two from the lobby to the results in
browsers whose language is Spanish, with the cards named as a Spanish
solitaire names them; and the language switch, in the lobby and at the
table (docs/web_client.md, "Languages")."""

from __future__ import annotations

import re

import pytest
from harness import RedisServer, ServerProcess, Servers, load_wins
from playwright.sync_api import BrowserContext, Page, expect
from web_support import card, drag, pile, play_fast, stat

from conftest import Tabs, screenshot
from server.klondike import Game, card_name

pytestmark = pytest.mark.browser

CODE = "KL1-D1V-ACT552B"
SCRIPT = next(w["script"] for w in load_wins() if w["code"] == CODE)
FINISH_AT = 104  # from here the server offers auto-complete
SUITS = {"S": "picas", "H": "corazones", "D": "diamantes", "C": "tréboles"}
SYMBOLS = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}
RANKS = {"A": "as", "T": "10", "J": "jota", "Q": "reina", "K": "rey"}


@pytest.fixture(scope="module")
def server(redis_server: RedisServer, module_servers: Servers) -> ServerProcess:
    return module_servers.start(redis_server.url, env={"KLONDIKE_COUNTDOWN": "2"})


def spoken(name: str) -> str:
    """A card as a Spanish solitaire says it: "8H" → "8 de corazones", "QS" → "reina de picas"."""
    return f"{RANKS.get(name[0], name[0])} de {SUITS[name[1]]}"


def short(name: str) -> str:
    """"TD" → "10♦": the same in every language."""
    return ("10" if name[0] == "T" else name[0]) + SYMBOLS[name[1]]


def fits(name: str, onto: str) -> bool:
    """Whether card ``name`` goes on ``onto`` in a column: one rank lower, the other colour."""
    order = "A23456789TJQK"
    return order.index(name[0]) == order.index(onto[0]) - 1 and (name[1] in "HD") != (onto[1] in "HD")


def spanish(tabs: Tabs) -> BrowserContext:
    """A browser whose language is Spanish (navigator.languages, Accept-Language)."""
    return tabs.context(locale="es-ES")


def join(tabs: Tabs, link: str, nickname: str) -> Page:
    page = tabs.page(link, context=spanish(tabs))
    expect(page.get_by_role("heading", name=f"Sala {link[-8:]}")).to_be_visible()
    page.get_by_label("Apodo").fill(nickname)
    page.get_by_role("button", name="Entrar en la carrera").click()
    return page


def test_a_race_in_spanish_from_the_lobby_to_the_results(tabs: Tabs) -> None:
    start = Game(CODE)
    ana = tabs.page("/", context=spanish(tabs))
    expect(ana.locator("html")).to_have_attribute("lang", "es")
    expect(ana.get_by_role("heading", name="Crear una sala")).to_be_visible()
    expect(ana.get_by_label("Idioma")).to_have_value("es")
    screenshot(ana, "lobby-es")

    # ana opens a room of a chosen deal
    ana.get_by_label("Apodo").fill("ana")
    form = ana.locator("form.create")
    form.get_by_label("Un código").check()
    form.get_by_label("Código de reparto").fill(CODE)
    form.get_by_role("button", name="Crear sala").click()
    link = ana.get_by_label("Enlace de la sala", exact=True)
    expect(link).to_have_value(re.compile(r"/r/[A-Z0-9]{8}$"))
    expect(ana.locator(".room-settings")).to_contain_text("Robar una · Vegas · un reparto elegido")

    beto = join(tabs, link.input_value(), "beto")
    line = ana.locator(".players li", has_text="beto")
    expect(line).to_contain_text("no está listo")
    beto.get_by_role("button", name="Estoy listo").click()
    expect(line).to_contain_text("✓ listo")
    ana.get_by_role("button", name="Empezar la carrera").click()

    # the table names its piles and cards in Spanish
    for page in (ana, beto):
        expect(page.locator(".race .board .card").first).to_be_visible(timeout=15_000)
        expect(stat(page, "Moves")).to_have_text("0")
        expect(page.locator('.race .stat[data-stat="moves"]')).to_contain_text("Movimientos")
        top = card_name(start.columns[3][-1])
        expect(pile(page, "t4")).to_have_attribute(
            "aria-label", f"columna 4, 3 cartas boca abajo, {spoken(top)} encima")
        expect(card(page, top)).to_have_attribute("aria-label", spoken(top))
        expect(pile(page, "stock")).to_have_attribute("aria-label", "mazo, 24 cartas")

    # a card dropped where it cannot go: the toast says so with the cards' short names
    tops = [card_name(c[-1]) for c in start.columns]
    lone, onto = next((a, b) for a in tops for b in tops if a != b and not fits(a, b))
    where = tops.index(onto) + 1
    drag(ana, card(ana, lone), pile(ana, f"t{where}"))
    expect(ana.locator(".toast", has_text="no puede ir")).to_have_text(
        f"El {short(lone)} no puede ir sobre el {short(onto)}.")

    # beto wins: ana hears of it in Spanish
    play_fast(beto, SCRIPT[:FINISH_AT])
    beto.keyboard.press("f")
    expect(ana.locator(".toast.win", has_text="beto terminó 1.º en")).to_have_text(
        re.compile(r"^beto terminó 1\.º en \d+:\d\d$"))
    lb = ana.locator(".lb-row", has=ana.locator(".lb-name", has_text="beto")).locator(".lb-status")
    expect(lb).to_have_text(re.compile(r"^terminó en \d+:\d\d$"))

    # ana resigns, asked twice; the results in Spanish for both
    controls = ana.locator(".controls")
    controls.get_by_role("button", name="Rendirse").click()
    controls.get_by_role("button", name="¿Seguro que te rindes?").click()
    beto.keyboard.press("Escape")  # ends the cascade, if it still runs
    expect(beto.get_by_role("dialog", name="¡Has ganado la carrera!")).to_be_visible()
    results = ana.get_by_role("dialog", name="Quedaste 2.º de 2")
    expect(results).to_be_visible()
    expect(results.locator("tbody tr").nth(0)).to_contain_text("beto")
    expect(results.locator("tbody tr").nth(1)).to_contain_text("ana (tú)")
    expect(results.locator("tbody tr").nth(1)).to_contain_text("se rindió")
    expect(results.locator(".results-mine")).to_contain_text("Te rendiste")
    expect(results.locator(".results-code")).to_have_text(CODE)
    screenshot(ana, "results-es")


def test_the_language_is_switched_in_the_lobby_and_at_the_table(tabs: Tabs) -> None:
    page = tabs.page("/", locale="en-US")
    expect(page.locator("html")).to_have_attribute("lang", "en")
    expect(page.get_by_role("heading", name="Create a room")).to_be_visible()
    page.get_by_label("Language").select_option("es")
    expect(page.get_by_role("heading", name="Crear una sala")).to_be_visible()
    expect(page.locator("html")).to_have_attribute("lang", "es")
    page.reload()  # the choice is kept
    expect(page.get_by_role("heading", name="Crear una sala")).to_be_visible()
    expect(page.get_by_role("heading", name="Carreras para unirse")).to_be_visible()

    # Rules: how to play, in Spanish, with its diagrams labelled in Spanish
    page.get_by_role("link", name="Reglas").click()
    howto = page.get_by_role("dialog", name="Cómo se juega")
    expect(howto.locator(".rules-body")).to_have_attribute("lang", "es")
    expect(howto.locator(".rules-body h2")).to_have_text(
        ["El reparto", "Los movimientos", "El mazo y las pasadas", "La puntuación", "Botones y teclas"])
    expect(howto.get_by_role("img", name=re.compile("^La mesa al empezar una partida"))).to_be_visible()
    book = howto.get_by_role("link", name="El reglamento completo (en inglés)")
    expect(book).to_have_attribute("href", "/rules")
    screenshot(page, "howto-es")
    page.keyboard.press("Escape")
    expect(howto).to_be_hidden()

    # a solo game in Spanish; switched back to English at the table, it goes on
    page.get_by_label("Apodo").fill("eva")
    solo = page.locator("form.solo")
    solo.get_by_label("Un código").check()
    solo.get_by_label("Código del reparto en solitario").fill(CODE)
    solo.get_by_role("button", name="Jugar solo").click()
    play_fast(page, SCRIPT[:3])
    expect(page.locator(".controls").get_by_role("button", name="Rendirse")).to_be_visible()
    page.locator(".race").get_by_label("Idioma").select_option("en")
    expect(page.locator(".controls").get_by_role("button", name="Resign")).to_be_visible()
    expect(page.locator("html")).to_have_attribute("lang", "en")
    expect(stat(page, "Moves")).to_have_text("3")
    expect(page.locator('.race .stat[data-stat="moves"]')).to_contain_text("Moves")


def test_the_browser_s_first_language_we_have_is_chosen(tabs: Tabs) -> None:
    page = tabs.page("/", locale="en-US")
    pick = "async ([saved, languages]) => (await import('/js/text.js')).pickLanguage(saved, languages)"
    assert page.evaluate(pick, ["", ["fr-FR", "es-MX", "en"]]) == "es"
    assert page.evaluate(pick, ["", ["de", "en-GB", "es"]]) == "en"
    assert page.evaluate(pick, ["", ["fr", "de"]]) == "en"
    assert page.evaluate(pick, ["es", ["en-US"]]) == "es"  # the player's own choice first
    assert page.evaluate(pick, ["xx", ["es"]]) == "es"  # a choice we do not have: the browser's


@pytest.mark.parametrize(("locale", "lang"), [("en-GB", "en"), ("es-ES", "es")])
def test_only_the_pages_language_file_loads(tabs: Tabs, locale: str, lang: str) -> None:
    """The two catalogues are the client's largest files: a page asks for
    its own language's only, and the switch still lists both (issue 25 item 9)."""
    ctx = tabs.context(locale=locale)
    asked: list[str] = []
    ctx.on("request", lambda r: asked.append(r.url))
    page = tabs.page("/", context=ctx)
    expect(page.locator(".screen.lobby")).to_be_visible()
    loaded = sorted({re.sub(r".*/js/i18n/([^?]*).*", r"\1", url) for url in asked if "/js/i18n/" in url})
    assert loaded == [f"{lang}.js"]
    switch = page.locator(".lobby .lang-switch")
    expect(switch.locator("option")).to_have_text(["English", "Español"])
    expect(switch).to_have_value(lang)
