"""The web client's languages as files (no browser): every catalogue
(web_client/js/i18n/*.js) has the same keys as the English one, its
functions take the same arguments, every reason code the server may send
has a sentence, and no module outside the catalogues writes a sentence of
its own (docs/web_client.md, "Languages")."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from harness import ROOT

JS = ROOT / "web_client" / "js"
I18N = JS / "i18n"
KEY = re.compile(r"^(?P<indent> *)(?P<key>\w+|'[^']+'): (?P<value>.*)$")
ARROW = re.compile(r"^(?:\((?P<args>[^)]*)\)|(?P<one>\w+)) =>")

Catalogue = dict[str, tuple[str, ...] | None]


def parse(text: str) -> Catalogue:
    """A catalogue's keys (dotted for a section's: "lobby.title"), each with its
    function's argument names, or None for a string. Its layout is the one
    en.js describes: `export default {`, one key per line, two spaces deeper
    per section, a section opened by `key: {` and closed by `},`."""
    body = text[text.index("export default {"):]
    keys: Catalogue = {}
    path: list[str] = []
    depth = 1  # the object's own braces
    in_template = False  # inside a template literal that runs over lines (a page's Markdown)
    for line in body.splitlines()[1:]:
        was_in_template = in_template
        if len(re.findall(r"(?<!\\)`", line)) % 2:
            in_template = not in_template
        if was_in_template:
            continue
        m = KEY.match(line)
        indent = len(line) - len(line.lstrip(" "))
        if line.strip() in ("},", "};") and indent == 2 * depth - 2:
            depth -= 1
            if path:
                path.pop()
            continue
        if not m or len(m["indent"]) != 2 * depth:
            continue  # a continuation line, a comment, a nested expression
        key = m["key"].strip("'")
        value = m["value"]
        name = ".".join([*path, key])
        assert name not in keys, f"{name} is there twice"
        if value == "{":
            path.append(key)
            depth += 1
            continue
        arrow = ARROW.match(value)
        if arrow:
            args = arrow["args"] if arrow["args"] is not None else arrow["one"]
            keys[name] = tuple(a.strip() for a in args.split(",") if a.strip())
        else:
            keys[name] = None
    assert depth == 0, "the catalogue's braces do not close"
    return keys


def catalogues() -> dict[str, Catalogue]:
    return {path.stem: parse(path.read_text()) for path in sorted(I18N.glob("*.js"))}


def test_there_is_an_english_and_a_spanish_catalogue_and_text_js_lists_every_one() -> None:
    names = sorted(catalogues())
    assert names == ["en", "es"]
    listed = re.search(r"LANGUAGES = \[([^\]]*)\]", (JS / "text.js").read_text())
    assert listed and sorted(n.strip().strip("'") for n in listed[1].split(",")) == names
    own = {name: re.search(r"^  language: '([^']*)'", (I18N / f"{name}.js").read_text(), re.M)
           for name in names}
    for name in names:  # every catalogue names every language by that language's own name
        text = (I18N / f"{name}.js").read_text()
        for other, m in own.items():
            assert m and f"\n    {other}: '{m[1]}'," in text, f"{name}.js: {other}"


def test_every_catalogue_has_the_english_keys_and_no_other() -> None:
    found = catalogues()
    english = set(found["en"])
    assert len(english) > 300
    for lang, keys in found.items():
        assert sorted(english - set(keys)) == [], f"{lang} lacks these"
        assert sorted(set(keys) - english) == [], f"{lang} has these that en.js has not"


def test_a_text_is_a_function_in_every_catalogue_or_in_none_with_the_same_arguments() -> None:
    found = catalogues()
    for lang, keys in found.items():
        different = {k: (found["en"][k], keys[k]) for k in keys
                     if k in found["en"] and (found["en"][k] is None) != (keys[k] is None)}
        assert different == {}, lang
        english = found["en"]
        arity = {k: (english[k], args) for k, args in keys.items()
                 if args is not None and english.get(k) is not None and len(english[k] or ()) != len(args)}
        assert arity == {}, lang


def test_every_reason_code_of_the_server_has_a_sentence_in_every_catalogue() -> None:
    reasons = (ROOT / "server" / "protocol" / "reasons.py").read_text()
    codes = set(re.findall(r'^    [A-Z_]+ = "([a-z_]+)"$', reasons, re.M))
    assert len(codes) > 30
    for lang, keys in catalogues().items():
        assert sorted(c for c in codes if f"reasons.{c}" not in keys) == [], lang


def test_the_parser_reads_sections_functions_and_continued_lines() -> None:
    text = """export default {
  a: 'A',
  b: (n, m) => `${n}`
    + `${m}`,
  s: {
    c: x => x,
    d: 'it: {',
  },
  e: 'E',
  page: `# A page
  f: not a key,
    g: nor this`,
};
"""
    assert parse(text) == {"a": None, "b": ("n", "m"), "s.c": ("x",), "s.d": None, "e": None, "page": None}
    with pytest.raises(AssertionError):
        parse("export default {\n  a: 'A',\n  a: 'B',\n};\n")


# ------------------------------------------------------------ no sentence outside the catalogues

#: a string literal or a template literal (a template's ${…} kept whole)
LITERAL = re.compile(r"""'(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*"|`(?:[^`\\]|\\.)*`""")
#: what a reader reads: a capital and two letters, or two words of letters
WORDS = re.compile(r"[A-Z][a-z]{2,}|[a-z]{2,} +[a-z]{2,}")
#: places where a literal is a name for the code, not a text: a CSS class, a
#: selector, an event, a key, a tag, a data attribute
NAMES = re.compile(
    r"""(?:\bclass:\s*[^,}\n]*?|className\s*=\s*|classList\.\w+\(|toggle\(\w+(?:\.\w+)*,\s*|\bh\(|querySelector(?:All)?\(|"""
    r"""closest\(|[Ee]ventListener\(|\bkey\s*===?\s*|case\s+|matchMedia\(|createElement\()"""
    r"""(?:'[^'\n]*'|`[^`]*`)""")
#: literals that are not texts wherever they stand: fonts, a console's words
NOT_TEXT = {"\"'DejaVu Sans', 'Helvetica Neue', Arial, sans-serif\"", "'klondike-race: unexpected error:'",
            "'noopener noreferrer'", "`Bearer ${token}`"}
#: a regular expression's literal (after `(`, `=`, `,`, `:`, `return` or `!`)
REGEX = re.compile(r"""(?:(?<=[(=,:!])|(?<=return))\s*/(?![*/])"""
                   r"""(?:[^/\\\n\[]|\\.|\[(?:[^\]\\\n]|\\.)*\])+/[gimsuy]*""")
#: where a text would go on an element: a property given a literal
TEXT_PROPERTY = re.compile(r"""(?:\btext|\btitle|'aria-label'|\bplaceholder|\blabel)\s*:\s*"""
                           r"""('[^'\n]*'|`[^`]*`)""")


def code_of(source: str) -> str:
    """The module without its comments and regular expressions."""
    out = re.sub(r"/\*.*?\*/", lambda m: "\n" * m[0].count("\n"), source, flags=re.S)
    out = "\n".join(re.sub(r"(^|[^:'\"`\\])//.*$", r"\1", line) for line in out.splitlines())
    return REGEX.sub(" ", out)


#: a word beside a template's ${…}: "`${time} left`", "`round ${n}`"
WORD_BY_VALUE = re.compile(r"\}\s+[a-z]{3,}\b|\b[a-z]{3,}\s+\$\{")


def reads_as_words(literal: str) -> bool:
    if literal[0] == "`" and WORD_BY_VALUE.search(literal) and literal not in NOT_TEXT:
        return True
    inner = re.sub(r"\$\{[^}]*\}", " ", literal[1:-1])
    inner = re.sub(r"[\w:-]+=\"[^\"]*\"|</?\w+", " ", inner)  # markup: an SVG's tags and attributes
    inner = re.sub(r"\b(?:px|em|rem|ms|deg|vh|vw)\b", " ", inner)  # CSS units after a ${…}
    return literal not in NOT_TEXT and bool(WORDS.search(inner))


def sentences(source: str) -> list[str]:
    """The literals of a module that read as words to a person."""
    return [lit for lit in LITERAL.findall(NAMES.sub(" ", code_of(source))) if reads_as_words(lit)]


def modules() -> list[Path]:
    return [p for p in sorted(JS.rglob("*.js")) if p.parent != I18N]


#: modules not moved to the catalogues yet, and why (empty when every text is there)
NOT_YET: dict[str, str] = {}


def test_no_module_outside_the_catalogues_writes_a_sentence() -> None:
    found = {p.relative_to(JS).as_posix(): sentences(p.read_text()) for p in modules()}
    found = {name: lits for name, lits in found.items() if lits and name not in NOT_YET}
    assert found == {}


def test_no_element_is_given_a_literal_text_or_name() -> None:
    found = {p.relative_to(JS).as_posix(): [lit for lit in TEXT_PROPERTY.findall(code_of(p.read_text()))
                                              if reads_as_words(lit)]
             for p in modules()}
    assert {name: lits for name, lits in found.items() if lits and name not in NOT_YET} == {}


def test_the_sentence_finder_finds_a_sentence_and_passes_names_by() -> None:
    assert sentences("h('p', { text: 'Create a room' })") == ["'Create a room'"]
    assert sentences("say(`${n} cards home`)") == ["`${n} cards home`"]
    assert sentences("el.className = 'btn small ghost'; e.key === 'ArrowLeft'") == []
    assert sentences("h('div', { class: 'hist-bar big' })") == []
    assert sentences("h('span', { class: on ? 'card red' : 'card' })") == []
    assert sentences("const M = /^(#{1,6})\\s+`(.*)`$/; x.replace(/'s note/g, '')") == []
    assert sentences("// Create a room\nconst x = 1; /* A comment */") == []
    assert sentences("go(`/r/${room}`); x = `${a}:${b}`") == []
    assert sentences("el.style.transform = `translate(${x}px, ${y}px)`") == []
    assert sentences("setText(clock, `${duration(ms)} left`)") == ["`${duration(ms)} left`"]
