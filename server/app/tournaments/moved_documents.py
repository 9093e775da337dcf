"""Tournaments stored before their players and standings moved out of their
document (a club night's document held every player, its banned names, and
each round's seats and results): moved once, the first time such a
tournament is loaded, so that it goes on as any other.

The players and their lookups, who is out, the banned names and every
standing line (each ended round's results counted, as the recording of a
round does) are written first, each write idempotent; then the header is
committed without them, its scripts' fields beside it, if its version is
still the one read: of two processes moving the same tournament, one commits
and the other finds it moved.
"""

from __future__ import annotations

from typing import Any

import orjson
import structlog

from ...race.names import fold
from ...race.ranking import standing_score
from ...race.standings import MISSED, count_round, played, round_result, standing_line
from ...race.tokens import stored_digest
from ...race.tournament import Tournament
from ...store import Store, TournamentData

log = structlog.get_logger("app.tournaments.moved_documents")


def _firsts(doc: dict[str, Any], t: Tournament) -> dict[int, int]:
    """Each player's first round: the first whose seats hold them, and never
    after the next player's (players are numbered as they registered)."""
    first: dict[int, int] = {}
    later = t.first_open()
    for p in sorted((int(x["player"]) for x in doc["players"]), reverse=True):
        seated = [r["n"] for r in doc["rounds"] if p in r.get("seats", ())]
        later = min([later, *seated])
        first[p] = later
    return first


async def migrate(store: Store, data: TournamentData, *, ttl_ms: int) -> None:
    """Move a tournament's players and standings out of its document."""
    doc = orjson.loads(data.raw)
    t = data.t
    firsts = _firsts(doc, t)
    records: dict[int, bytes] = {}
    tokens: dict[str, int] = {}
    nicknames: dict[str, int] = {}
    out: dict[int, str] = {}
    lines: dict[int, tuple[bytes, int]] = {}
    ended = [r for r in doc["rounds"] if r["status"] == "ended"]
    for x in doc["players"]:
        p, name, digest = int(x["player"]), str(x["nickname"]), stored_digest(x["token"])
        records[p] = orjson.dumps({"nickname": name, "fold": fold(name), "token": digest,
                                   "registered": x["registered"], "first": firsts[p]})
        if x.get("kicked"):
            out[p] = "kicked"
            continue
        tokens[digest] = p
        nicknames[fold(name)] = p
        line = standing_line(p, name, 1)
        for r in ended:
            entry = next((e for e in r.get("results") or () if e["seat"] == p), None)
            result = MISSED if entry is None or not played(entry) else round_result(
                entry, entry["rank"])
            line = count_round(line, r["n"], result) or line
        if x.get("withdrawn"):
            out[p] = "withdrawn"
            line["withdrawn"] = True
        lines[p] = (orjson.dumps(line), standing_score(line))
    await store.tournaments.write_players(t.id, records, tokens, nicknames, out, doc.get("banned", []), lines)
    counts = {"players": len(doc["players"]) - sum(1 for how in out.values() if how == "kicked"),
              "withdrawn": sum(1 for how in out.values() if how == "withdrawn"),
              "kicked": sum(1 for how in out.values() if how == "kicked")}
    ins: dict[str, int] = {}
    for f in firsts.values():
        ins[f"in{f}"] = ins.get(f"in{f}", 0) + 1
    for r in t.rounds:
        if r.status in ("running", "ended") and r.players is None:
            r.players = sum(1 for f in firsts.values() if f <= r.n)
        if r.status == "ended" and r.played is None:
            r.played = sum(1 for line, _ in lines.values()
                           if len(orjson.loads(line)["rounds"]) >= r.n
                           and orjson.loads(line)["rounds"][r.n - 1][0] != "missed")
    committed = await store.tournaments.commit_tournament(
        t, data.rv, [], ttl_ms=ttl_ms,
        fields={"max": t.settings.max_players, "next": len(doc["players"]), **counts, **ins})
    log.info("tournament_moved", tournament=t.id, players=len(records), moved=committed.ok)
