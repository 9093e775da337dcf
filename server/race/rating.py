"""Ratings: how good a player is at a mode family, from the rated races they ran.

A rated race is a free-for-all of several players, so the model is one made
for that: Weng–Lin's Plackett–Luce (``openskill``), each player a team of
one. A rating is a belief about skill, ``mu`` ± ``sigma``; it starts at
openskill's defaults (25, 25/3) and each rated race moves every racer's
``mu`` by how they placed against the others' and shrinks their ``sigma``.

- **Families.** One rating per draw count: ``d1`` (draw one) and ``d3``
  (draw three). Normal and Vegas scoring share one: both race the same
  deal with the same moves and the race ranks finishers by time either way,
  so the skill is the same; a split would double the provisional period and
  halve the field each quick race is drawn from.
- **Shown.** ``round(SCALE * mu)``: a newcomer shows 1500, a change "+14".
  Provisional ("1500?") until :data:`PROVISIONAL_RACES` rated races.
- **Places.** Finished racers by their finishing order; those still playing
  when the race ended after them, by their progress (the results' order); a
  resign or a leave after the start ties last among those who began. A seat
  that never began is not in the race. Fewer than two who began: nothing
  changes.

>>> a, b = rate([(Rating(), 1), (Rating(), 2)])
>>> a.shown > 1500 > b.shown, a.races, a.provisional
(True, 1, True)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from openskill.models import PlackettLuce

FAMILIES: Final = ("d1", "d3")
PROVISIONAL_RACES: Final = 5  # rated races before a rating stops being provisional
SCALE: Final = 60  # shown = round(SCALE * mu)
MU: Final = 25.0
SIGMA: Final = 25.0 / 3
#: statuses that tie last among those who began (gave up during the race)
GAVE_UP: Final = frozenset({"resigned", "left"})
#: statuses of a seat that never began
NOT_BEGUN: Final = frozenset({"lobby"})

_MODEL: Final = PlackettLuce(mu=MU, sigma=SIGMA)


@dataclass(frozen=True, slots=True)
class Rating:
    """A player's rating in one family, and how many rated races made it."""

    mu: float = MU
    sigma: float = SIGMA
    races: int = 0

    @property
    def shown(self) -> int:
        return shown(self.mu)

    @property
    def provisional(self) -> bool:
        return self.races < PROVISIONAL_RACES

    def label(self) -> str:
        """As players see it: ``1514`` or ``1514?`` while provisional."""
        return f"{self.shown}?" if self.provisional else str(self.shown)


def shown(mu: float) -> int:
    """The number players see for a ``mu``."""
    return round(SCALE * mu)


def family_of(draw: int) -> str:
    """The family of a mode by its draw count (1 or 3)."""
    return f"d{draw}"


def placings(lines: Sequence[tuple[str, str, int]]) -> list[tuple[str, int]]:
    """The rating places of a race's players: each ``(player, status, rank
    in the results)`` that began becomes ``(player, place)``, 1 the best,
    equal places for a tie (see the module's docstring).

    >>> placings([("a", "finished", 2), ("b", "resigned", 4), ("c", "finished", 1),
    ...           ("d", "unfinished", 3), ("e", "left", 5), ("f", "lobby", 6)])
    [('c', 1), ('a', 2), ('d', 3), ('b', 4), ('e', 4)]
    """
    began = [(p, s, r) for p, s, r in lines if s not in NOT_BEGUN]
    playing = sorted(((r, p) for p, s, r in began if s not in GAVE_UP))
    out = [(p, place) for place, (_, p) in enumerate(playing, start=1)]
    last = len(playing) + 1
    return out + sorted((p, last) for p, s, _ in began if s in GAVE_UP)


def rate(field: Sequence[tuple[Rating, int]]) -> list[Rating]:
    """Every racer's rating after a race: ``(rating before, place)`` each,
    in the same order. Fewer than two racers: unchanged."""
    if len(field) < 2:
        return [rating for rating, _ in field]
    teams = [[_MODEL.rating(mu=r.mu, sigma=r.sigma)] for r, _ in field]
    after = _MODEL.rate(teams, ranks=[float(place) for _, place in field])
    return [Rating(team[0].mu, team[0].sigma, r.races + 1)
            for team, (r, _) in zip(after, field, strict=True)]
