"""The key table is one: docs/operations.md prints server/store/keys.py's."""

from __future__ import annotations

from pathlib import Path

from server.store import keys

OPERATIONS = (Path(__file__).resolve().parents[2] / "docs" / "operations.md").read_text()


def test_the_operations_doc_prints_the_key_table() -> None:
    start = OPERATIONS.index("| key | type | holds | lives |")
    end = OPERATIONS.index("\n\n", OPERATIONS.index("| whose | how long |", start))
    assert OPERATIONS[start:end + 1] == keys.markdown_table(), (
        "docs/operations.md's key table is server.store.keys.markdown_table():\n" + keys.markdown_table())


def test_the_table_names_the_keys_the_store_builds() -> None:
    patterns = {k.pattern for k in keys.KEYS}
    built = {keys.room("R"): "kr:{R}:room", keys.log("R", 1, 2): "kr:{R}:r{n}:s{seat}:log",
             keys.player("P"): "kp:{P}:p", keys.tournament("T"): "kt:{T}:t",
             keys.creations("ADDR"): "ki:made:{ADDR}", keys.held("ADDR", "KIND"): "ki:held:{ADDR}:KIND",
             keys.proc("ID"): "ki:proc:ID", keys.quick_races("MODE")[0]: "kq:{MODE}:q"}
    assert built == {"kr:{R}:room": "kr:{R}:room", "kr:{R}:r1:s2:log": "kr:{R}:r{n}:s{seat}:log",
                     "kp:{P}:p": "kp:{P}:p", "kt:{T}:t": "kt:{T}:t", "ki:made:{ADDR}": "ki:made:{ADDR}",
                     "ki:held:{ADDR}:KIND": "ki:held:{ADDR}:KIND", "ki:proc:ID": "ki:proc:ID",
                     "kq:{MODE}:q": "kq:{MODE}:q"}
    assert set(built.values()) <= patterns
    assert {keys.DUE, keys.TOURNAMENTS_DUE, keys.LIVE_ROOMS, keys.LIVE_TOURNAMENTS, *keys.PUBLIC_KEYS,
            keys.ORDER_CHANNEL} <= patterns
