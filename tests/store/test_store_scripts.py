"""The Lua scripts as files (server/store/lua): each says in its header what
it does, its KEYS and its ARGV; each is loaded with the helpers it names;
and none publishes but through the prelude's publish()."""

from __future__ import annotations

import re
from importlib import resources

import pytest

from server.store import scripts

LUA = resources.files("server.store") / "lua"


def script_files() -> list[str]:
    return sorted(p.name.removesuffix(".lua") for p in LUA.iterdir() if p.name.endswith(".lua"))


def test_every_script_file_is_loaded_and_every_script_loaded_is_a_file() -> None:
    assert sorted(s.name for s in scripts.ALL) == script_files()


@pytest.mark.parametrize("name", script_files())
def test_every_script_opens_with_a_header_naming_its_keys_and_arguments(name: str) -> None:
    text = (LUA / f"{name}.lua").read_text()
    found = re.match(r"(?:--.*\n)+", text)
    header = found.group(0) if found else ""
    assert header.startswith(f"-- {name}: "), name
    assert re.search(r"^-- KEYS: \S", header, re.MULTILINE), name
    assert re.search(r"^-- ARGV: \S", header, re.MULTILINE), name
    assert re.search(r"^-- Returns ", header, re.MULTILINE), name


@pytest.mark.parametrize("name", [p.name.removesuffix(".lua") for p in (LUA / "lib").iterdir()])
def test_every_helper_says_what_it_does_and_defines_the_function_it_is_named_for(
        name: str) -> None:
    text = (LUA / "lib" / f"{name}.lua").read_text()
    assert text.startswith(f"-- {name}: "), name
    assert f"local function {name}(" in text, name


def test_a_script_is_loaded_with_the_helpers_it_uses_and_theirs_before_it() -> None:
    commit = scripts.COMMIT.source
    assert commit.index("local function member(") < commit.index("local function reset_seats(")
    assert commit.index("local function push_event(") < commit.index("local rv =")
    assert commit.count("local function member(") == 1


def test_a_script_that_publishes_directly_is_refused() -> None:
    with pytest.raises(ValueError, match="publishes directly"):
        scripts.Script("rogue", "redis.call('PUBLISH', KEYS[1], 'x')")
    assert "'SPUBLISH'" in scripts.MOVE.rendered[scripts.SHARDED]
