"""A tournament's standings: one line per player, counted round by round, and
the two ways they are shown. Pure.

A **standing line** (kept in the store, ranked by
:func:`~.ranking.standing_score`) holds a player's totals and one compact
result per round counted::

    {"player": 17, "nickname": "bob", "vegas": 104, "foundation": 78, "wins": 1,
     "time_ms": 364000, "played": 2, "rounds": [["finished", 208, 52, 364000, 116, 3], ...]}

each result ``[status, vegas, foundation, finish_ms, moves, rank]`` (rank in
that round's race), or :data:`MISSED` for a round the player did not play.
A player who registers once rounds have started starts with them missed
(:func:`standing_line`); a round is counted once (:func:`count_round`).

A tournament whose standings show **everyone** (a field of a few) shows each
line with a result per ended round spelled out (:func:`everyone_standings`)
and a CSV of every player (:func:`everyone_csv`); one that shows its **top**
(a field of thousands) shows the lines as kept, a page at a time
(:func:`page_csv`).
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Sequence
from typing import Any, Final

import orjson

from .leaderboard import Entry
from .ranking import standing_key

MISSED_VEGAS: Final = -52  # what a round a player did not play counts
#: A round's result in a standing line when the player did not play it.
MISSED: Final[tuple[Any, ...]] = ("missed", MISSED_VEGAS, 0, None, 0, None)

Line = dict[str, Any]


def played(entry: Entry) -> bool:
    """Whether a round's line shows the player played: a move stored (a
    card on a foundation needs one), or a resign."""
    return bool(entry["moves"] or entry["foundation"]) or entry["status"] in ("finished",
                                                                              "resigned")


def standing_line(player: int, nickname: str, first: int) -> Line:
    """A new line: a player who registers once rounds have started missed
    them all (−52 $ each), the one being played included.

    >>> standing_line(7, "ann", 2)["vegas"], standing_line(7, "ann", 2)["rounds"]
    (-52, [('missed', -52, 0, None, 0, None)])
    """
    missed = max(0, first - 1)
    return {"player": player, "nickname": nickname, "vegas": MISSED_VEGAS * missed,
            "foundation": 0, "wins": 0, "time_ms": 0, "played": 0, "rounds": [MISSED] * missed}


def standing_tail(line: Line) -> bytes:
    """A standing line's JSON after its player and nickname, for the store's
    script that writes a new one (``'{"player":' .. p .. ',"nickname":' ..
    name .. tail``)."""
    rest = {k: v for k, v in line.items() if k not in ("player", "nickname")}
    return b"," + orjson.dumps(rest)[1:]


def round_result(entry: Entry, rank: int) -> tuple[Any, ...]:
    """What a round's line (from its room, once ended) adds to a standing
    line: its figures, or :data:`MISSED` if the player did not play."""
    if not played(entry):
        return MISSED
    status = "unfinished" if entry["status"] == "racing" else entry["status"]
    return (status, entry["vegas"], entry["foundation"], entry["finish_ms"], entry["moves"], rank)


def _totals(line: Line, rounds: Sequence[Sequence[Any]]) -> Line:
    new = dict(line)
    new["rounds"] = rounds
    new["vegas"], new["foundation"] = sum(r[1] for r in rounds), sum(r[2] for r in rounds)
    won = [r for r in rounds if r[0] == "finished"]
    new["wins"], new["time_ms"] = len(won), sum(r[3] for r in won)
    new["played"] = sum(1 for r in rounds if r[0] != "missed")
    return new


def count_round(line: Line, n: int, result: Sequence[Any]) -> Line | None:
    """The standing line with round ``n``'s ``result`` counted, or ``None``
    if it counts that round already (a line remembers the rounds it counts:
    its ``rounds``, in order), so that counting a round twice is harmless."""
    rounds = list(line["rounds"])
    if len(rounds) >= n:
        return None
    rounds += [MISSED] * (n - 1 - len(rounds))  # (never: rounds are counted in order)
    rounds.append(tuple(result))
    return _totals(line, rounds)


# ---------------------------------------------------------------------- everyone shown

def everyone_line(line: Line, ended: int) -> Line:
    """A line as standings that show everyone show it: its totals over the
    ``ended`` rounds, and each of those spelled out (a late player's missed
    rounds count once they have ended, like everyone's)."""
    rounds = [tuple(r) for r in line["rounds"][:ended]]
    rounds += [MISSED] * (ended - len(rounds))
    totals = _totals(line, rounds)
    per_round = []
    for n, (status, vegas, cards, finish_ms, moves, _) in enumerate(rounds, start=1):
        item: dict[str, Any] = {"round": n, "played": status != "missed", "vegas": vegas,
                                "foundation": cards, "finish_ms": finish_ms}
        if status != "missed":
            item.update(status=status, moves=moves)
        per_round.append(item)
    return {"player": line["player"], "nickname": line["nickname"],
            "withdrawn": bool(line.get("withdrawn")), "vegas": totals["vegas"],
            "foundation": totals["foundation"], "wins": totals["wins"],
            "time_ms": totals["time_ms"], "rounds": per_round}


def everyone_standings(lines: Iterable[Line], ended: int) -> list[Line]:
    """Every player's line (:func:`everyone_line`) in the standings' order,
    with its ``rank``: cumulative Vegas dollars over the ended rounds (a
    round a player did not play counts −52 $); ties by total cards on
    foundations, then total finishing time of won rounds (less first; a
    player who won no round comes after those who did), then registration."""
    shown = sorted((everyone_line(line, ended) for line in lines), key=standing_key)
    for rank, line in enumerate(shown, start=1):
        line["rank"] = rank
    return shown


CSV_FIELDS: Final = ("player", "nickname", "round", "code", "played", "status", "vegas",
                     "foundation", "moves", "finish_ms", "rank")

#: what a spreadsheet takes for the start of a formula (OWASP, "CSV Injection")
FORMULA_STARTS: Final = ("=", "+", "-", "@", "\t", "\r", "\n")


def csv_text(text: str) -> str:
    """A text cell a spreadsheet shows as text: one starting like a formula
    gets a leading ``'`` (OWASP's advice for CSV injection). Numbers are
    written as numbers and need none.

    >>> csv_text("-ann"), csv_text("=HYPERLINK(1)"), csv_text("ann")
    ("'-ann", "'=HYPERLINK(1)", 'ann')
    """
    return "'" + text if text.startswith(FORMULA_STARTS) else text


def _round_row(line: Line, n: int, code: str, result: Sequence[Any]) -> list[Any]:
    status, vegas, cards, finish_ms, moves, rank = result
    return [line["player"], csv_text(line["nickname"]), n, code, int(status != "missed"), status,
            vegas, cards, moves, "" if finish_ms is None else finish_ms,
            "" if rank is None else rank]


def _total_row(line: Line, played_rounds: int) -> list[Any]:
    return [line["player"], csv_text(line["nickname"]), "total", "", played_rounds,
            "withdrawn" if line.get("withdrawn") else "", line["vegas"], line["foundation"], "",
            line["time_ms"], line["rank"]]


def everyone_csv(lines: Iterable[Line], codes: Sequence[str]) -> str:
    """Every player's results: one row per player and ended round (``codes``:
    those rounds'), by player, then one row of totals per player in rank
    order. Every cell holding text is neutralised (:func:`csv_text`), and
    quoted when it holds a separator or a quote."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_FIELDS)
    lines = list(lines)
    shown = everyone_standings(lines, len(codes))
    for line in sorted(lines, key=lambda line: line["player"]):
        rounds = list(line["rounds"][:len(codes)])
        rounds += [MISSED] * (len(codes) - len(rounds))
        for n, (code, result) in enumerate(zip(codes, rounds, strict=True), start=1):
            writer.writerow(_round_row(line, n, code, result))
    for line in shown:
        writer.writerow(_total_row(line, sum(1 for r in line["rounds"] if r["played"])))
    return out.getvalue()


def page_csv(lines: Sequence[Line], codes: Sequence[str]) -> str:
    """A page of results: for each standing line (with its ``rank``), in
    rank order, one row per ended round (``codes``) then its total. The
    columns and the neutralised cells are :func:`everyone_csv`'s."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_FIELDS)
    for line in lines:
        for n, code in enumerate(codes, start=1):
            writer.writerow(_round_row(line, n, code, line["rounds"][n - 1]
                                       if n <= len(line["rounds"]) else MISSED))
        writer.writerow(_total_row(line, line["played"]))
    return out.getvalue()
