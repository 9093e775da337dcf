"""The web client's modules as files (no browser): how they import one
another, and that none of them keeps the page's state at its top level
(docs/web_client.md, "Architecture")."""

from __future__ import annotations

import re
from pathlib import Path

JS = Path(__file__).resolve().parents[2] / "web_client" / "js"
IMPORT = re.compile(r"""^\s*(?:import|export)\b[^'"]*?\bfrom\s+['"](\.{1,2}/[^'"]+)['"]""", re.M)
TOP_LEVEL_VARIABLE = re.compile(r"^(?:let|var)\s+(\w+)", re.M)


def modules() -> dict[str, list[str]]:
    """Each module (a path under js/) with the modules it imports."""
    graph: dict[str, list[str]] = {}
    for path in sorted(JS.rglob("*.js")):
        name = path.relative_to(JS).as_posix()
        graph[name] = [(path.parent / target).resolve().relative_to(JS).as_posix()
                       for target in IMPORT.findall(path.read_text())]
    return graph


def cycle(graph: dict[str, list[str]]) -> list[str]:
    """One import cycle, as the modules along it; [] if there is none."""
    done: set[str] = set()
    path: list[str] = []

    def visit(name: str) -> list[str]:
        if name in path:
            return [*path[path.index(name):], name]
        if name in done:
            return []
        path.append(name)
        for target in graph[name]:
            found = visit(target)
            if found:
                return found
        path.pop()
        done.add(name)
        return []

    for name in graph:
        found = visit(name)
        if found:
            return found
    return []


def test_every_import_names_a_module_of_the_client() -> None:
    graph = modules()
    missing = {(name, target) for name, targets in graph.items() for target in targets if target not in graph}
    assert not missing


def test_the_web_client_s_modules_import_one_another_without_a_cycle() -> None:
    graph = modules()
    assert len(graph) > 40
    assert cycle(graph) == []


def test_a_cycle_is_found_when_there_is_one() -> None:
    assert cycle({"a.js": ["b.js"], "b.js": ["c.js"], "c.js": ["a.js"]}) == ["a.js", "b.js", "c.js", "a.js"]
    assert cycle({"a.js": ["b.js"], "b.js": []}) == []


def test_no_module_keeps_a_variable_at_its_top_level() -> None:
    """The state lives in the app that main.js makes (app.js), passed to
    whoever needs it; a module holds constants and functions only."""
    found = {path.relative_to(JS).as_posix(): TOP_LEVEL_VARIABLE.findall(path.read_text())
             for path in sorted(JS.rglob("*.js"))}
    assert {name: names for name, names in found.items() if names} == {}


def test_the_state_is_made_once_by_the_app_and_imported_by_nobody() -> None:
    call = re.compile(r"=\s*createState\(\)")
    makers = [name for name in modules() if call.search((JS / name).read_text())]
    assert makers == ["app.js"]
    for path in JS.rglob("*.js"):
        assert not re.search(r"import\s*\{[^}]*\bstate\b[^}]*\}", path.read_text()), path.name


EXPORT = re.compile(r"^export\s+(?:async\s+)?(?:const|function|class|let)\s+(\w+)"
                    r"|^export\s+const\s+\[([^\]]+)\]", re.M)
NAMESPACE_IMPORT = re.compile(r"""^import\s*\*\s*as\s+(\w+)\s+from\s*['"](\.{1,2}/[^'"]+)['"]""", re.M)
NAMED_IMPORT = re.compile(r"""^import\s*\{([^}]*)\}\s*from\s*['"](\.{1,2}/[^'"]+)['"]""", re.M)


def test_every_name_a_module_imports_is_one_its_module_exports() -> None:
    """A name imported but not exported stops the whole page at load."""
    exported = {}
    for path in JS.rglob("*.js"):
        names = set()
        for m in EXPORT.finditer(path.read_text()):
            names.update(n.strip() for n in (m[1] or m[2]).split(","))
        exported[path.resolve()] = names
    missing = []
    for path in sorted(JS.rglob("*.js")):
        for names, target in NAMED_IMPORT.findall(path.read_text()):
            module = (path.parent / target).resolve()
            for name in names.split(","):
                name = name.split(" as ")[0].strip()
                if name and name not in exported.get(module, set()):
                    missing.append(f"{path.relative_to(JS)}: {name} from {target}")
    assert missing == []


def test_every_name_a_module_exports_is_imported_somewhere() -> None:
    """An export nothing imports is dead code or a name that should be the
    module's own (the browser tests' imports, in tests/web, count)."""
    imported: set[tuple[Path, str]] = set()
    for path in JS.rglob("*.js"):
        text = path.read_text()
        for names, target in NAMED_IMPORT.findall(text):
            module = (path.parent / target).resolve()
            imported.update((module, n.split(" as ")[0].strip()) for n in names.split(","))
        for alias, target in NAMESPACE_IMPORT.findall(text):
            module = (path.parent / target).resolve()
            imported.update((module, n) for n in re.findall(rf"\b{alias}\.(\w+)", text))
    tests = "\n".join(p.read_text() for p in Path(__file__).parent.glob("*.py"))
    unused = []
    for path in sorted(JS.rglob("*.js")):
        for m in EXPORT.finditer(path.read_text()):
            for name in (n.strip() for n in (m[1] or m[2]).split(",")):
                if (path.resolve(), name) not in imported and not re.search(rf"\b{name}\b", tests):
                    unused.append(f"{path.relative_to(JS)}: {name}")
    assert unused == [], unused
