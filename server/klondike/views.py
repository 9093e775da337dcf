"""What a player and a spectator may see of a game (docs/rules.md, "What a player may see").

Both views are plain dicts of JSON types, stable keys in a fixed order::

    {"mode": "D1N", "draw": 1, "scoring": "N",
     "stock": 24,                     # cards left in the stock (count only)
     "waste": ["7H"],                 # visible waste cards, bottom first: the top
                                      # card, or in draw three the rest of the latest fan
     "waste_count": 1,
     "foundations": {"S": "3S", "H": null, "D": null, "C": null},   # top cards
     "tableau": [{"down": 0, "up": ["8C"]}, ...],                   # t1..t7
     "points": 0, "vegas": -52,
     "moves": 0, "recycles": 0, "foundation_cards": 0, "turned_up": 0,
     "state": "playing"}              # or "won", "stuck"

The player's own view adds ``"legal"`` (every legal move in notation, so a
client can highlight targets and send a move on one tap), ``"undo"`` (how many
moves can be undone) and ``"autocomplete"`` (true only when the finishing
sequence was simulated to the win); asked with ``progress=True``, it adds
``"no_progress"`` (true when no line of play can make progress any more, see
:mod:`.progress`). No face-down card and no stock card is ever named.
"""

from __future__ import annotations

from typing import Any

from .assist import autocomplete_moves
from .cards import NAMES
from .progress import progress as find_progress
from .table import Table

View = dict[str, Any]


def visible_waste(game: Table) -> list[int]:
    """The waste cards a player sees: the top one, or the rest of the latest fan."""
    waste = game.waste
    if not waste:
        return []
    shown = max(game.fan, 1) if game.draw_count == 3 else 1
    return waste[-shown:]


def public_view(game: Table) -> View:
    """The view without anything only the player needs: for spectators."""
    found = game.foundations
    outcome = game.outcome()
    return {
        "mode": game.code.mode,
        "draw": game.draw_count,
        "scoring": game.code.scoring,
        "stock": len(game.stock),
        "waste": [NAMES[c] for c in visible_waste(game)],
        "waste_count": len(game.waste),
        "foundations": {
            letter: NAMES[s * 13 + found[s] - 1] if found[s] else None
            for s, letter in enumerate("SHDC")
        },
        "tableau": [
            {"down": d, "up": [NAMES[c] for c in col[d:]]}
            for col, d in zip(game.columns, game.down, strict=True)
        ],
        "points": game.points,
        "vegas": game.vegas,
        "moves": game.moves,
        "recycles": game.recycles,
        "foundation_cards": game.foundation_cards,
        "turned_up": game.turned_up,
        "state": outcome or "playing",
    }


def player_view(game: Table, *, progress: bool = False) -> View:
    """The player's own view: the public view plus legal moves, undo depth and
    whether auto-complete is offered; with ``progress``, also ``no_progress``
    (see :func:`.progress.progress`, which costs a search)."""
    view = public_view(game)
    view["legal"] = [str(m) for m in game.legal_moves()]
    view["undo"] = game.undo_depth
    view["autocomplete"] = autocomplete_moves(game) is not None
    if progress:
        view["no_progress"] = find_progress(game).none
    return view
