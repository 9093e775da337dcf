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

:func:`view_change` is the player's view after one move (or one undo) as
what changed: the piles the move touched, whole, and every figure; the
view before it, updated with :func:`apply_change`, is the view after it.
Building it costs the piles touched, not the table.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .assist import autocomplete_moves
from .cards import NAMES
from .moves import FOUNDATION, FS, STOCK, WASTE, Move
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
    return _table(game, game.outcome() or "playing")


def _table(game: Table, state: str) -> View:
    return {
        "mode": game.code.mode,
        "draw": game.draw_count,
        "scoring": game.code.scoring,
        **_talon(game),
        "foundations": _foundations(game),
        "tableau": [
            {"down": d, "up": [NAMES[c] for c in col[d:]]}
            for col, d in zip(game.columns, game.down, strict=True)
        ],
        **_figures(game, state),
    }


def _state(game: Table, legal: Sequence[Move]) -> str:
    """:meth:`Game.outcome` from the legal moves already generated."""
    return "won" if game.is_won else "playing" if legal else "stuck"


def _talon(game: Table) -> View:
    return {"stock": len(game.stock), "waste": [NAMES[c] for c in visible_waste(game)],
            "waste_count": len(game.waste)}


def _foundations(game: Table) -> dict[str, str | None]:
    found = game.foundations
    return {letter: NAMES[s * 13 + found[s] - 1] if found[s] else None
            for s, letter in enumerate("SHDC")}


def _figures(game: Table, state: str) -> View:
    return {
        "points": game.points,
        "vegas": game.vegas,
        "moves": game.moves,
        "recycles": game.recycles,
        "foundation_cards": game.foundation_cards,
        "turned_up": game.turned_up,
        "state": state,
    }


def player_view(game: Table, *, progress: bool = False) -> View:
    """The player's own view: the public view plus legal moves, undo depth and
    whether auto-complete is offered; with ``progress``, also ``no_progress``
    (see :func:`.progress.progress`, which costs a search)."""
    legal = game.legal_moves()
    view = _table(game, _state(game, legal))
    view["legal"] = [str(m) for m in legal]
    view["undo"] = game.undo_depth
    view["autocomplete"] = autocomplete_moves(game) is not None
    if progress:
        view["no_progress"] = find_progress(game).none
    return view


def view_change(game: Table, moved: Move | None, legal: Sequence[Move] | None = None) -> View:
    """What :func:`player_view` changed by ``moved``, a move just played or
    just undone (``None``: nothing moved, as by a resign): each pile the move
    touched, whole, and every figure (``legal`` when the caller has them, as
    :meth:`Game.legal_moves` gives them).

    Keys are the view's: ``tableau`` is an object from a column's index
    (``"0"`` is t1) to that column; ``foundations`` all four tops, when a
    card went to or came from one; ``stock``, ``waste`` and ``waste_count``
    when the move drew, recycled or played the waste's card. ``mode``,
    ``draw`` and ``scoring`` never change.

    >>> from server.klondike import Game
    >>> game = Game("KL1-D1N-AAAAAAA")
    >>> before = game.view()
    >>> game.push("t7>f")
    >>> change = view_change(game, game.history[-1].move)
    >>> change["tableau"], change["foundations"]["H"], change["points"], "stock" in change
    ({'6': {'down': 5, 'up': ['8H']}}, 'AH', 15, False)
    >>> apply_change(before, change) == game.view()
    True
    """
    if legal is None:
        legal = game.legal_moves()
    out: View = {}
    if moved is not None:
        src, dst = moved.source, moved.target
        if src in (STOCK, WASTE) or dst == STOCK:
            out.update(_talon(game))
        if src >= FS or dst == FOUNDATION:
            out["foundations"] = _foundations(game)
        columns = [c for c in (src, dst) if c < 7]
        if columns:
            cols, down = game.columns, game.down
            out["tableau"] = {str(c): {"down": down[c], "up": [NAMES[x] for x in cols[c][down[c]:]]}
                              for c in columns}
    out.update(_figures(game, _state(game, legal)))
    out["legal"] = [str(m) for m in legal]
    out["undo"] = game.undo_depth
    out["autocomplete"] = autocomplete_moves(game) is not None
    return out


def apply_change(view: View, change: View) -> View:
    """The view ``change`` (from :func:`view_change`) makes of ``view``: a new
    dict, ``view`` untouched. Columns and foundations are replaced one by
    one, anything else whole. A client does the same (docs/protocol.md,
    ``ack``)."""
    out = dict(view)
    for key, value in change.items():
        if key == "tableau":
            tableau = list(out["tableau"])
            for index, column in value.items():
                tableau[int(index)] = column
            out["tableau"] = tableau
        elif key == "foundations":
            out["foundations"] = {**out["foundations"], **value}
        else:
            out[key] = value
    return out
