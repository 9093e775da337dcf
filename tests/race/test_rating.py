"""The rating model against Weng–Lin's Plackett–Luce written out here from
the paper (Algorithm 4, with openskill's defaults: tau added before, gamma
sigma/c, kappa floor) and against openskill called directly."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from openskill.models import PlackettLuce

from server.race.rating import (
    MU,
    PROVISIONAL_RACES,
    SIGMA,
    Rating,
    family_of,
    placings,
    rate,
    shown,
)

BETA, KAPPA, TAU = SIGMA / 2, 0.0001, MU / 300


def paper(field: list[tuple[float, float, int]]) -> list[tuple[float, float]]:
    """(mu, sigma, place) each -> (mu, sigma) after, by the formulas."""
    sig = [math.sqrt(s * s + TAU * TAU) for _, s, _ in field]
    mus = [m for m, _, _ in field]
    ranks = [p for _, _, p in field]
    c = math.sqrt(sum(s * s + BETA * BETA for s in sig))
    e = [math.exp(m / c) for m in mus]
    n = len(field)
    sum_q = [sum(e[i] for i in range(n) if ranks[i] >= ranks[q]) for q in range(n)]
    a = [sum(1 for i in range(n) if ranks[i] == ranks[q]) for q in range(n)]
    out = []
    for i in range(n):
        omega = delta = 0.0
        for q in range(n):
            if ranks[q] > ranks[i]:
                continue
            quotient = e[i] / sum_q[q]
            omega += ((1 - quotient) if i == q else -quotient) / a[q]
            delta += quotient * (1 - quotient) / a[q]
        s2 = sig[i] ** 2
        gamma = sig[i] / c
        out.append((mus[i] + s2 / c * omega,
                    sig[i] * math.sqrt(max(1 - s2 / c / c * delta * gamma, KAPPA))))
    return out


FIELDS = [
    [(MU, SIGMA, 1), (MU, SIGMA, 2)],
    [(MU, SIGMA, 1), (MU, SIGMA, 2), (MU, SIGMA, 3), (MU, SIGMA, 3)],
    [(30.0, 4.0, 2), (22.0, 6.5, 1), (25.0, 8.0, 4), (27.5, 3.0, 3), (18.0, 7.0, 4)],
]


@pytest.mark.parametrize("field", FIELDS)
def test_rate_follows_the_paper_and_openskill(field: list[tuple[float, float, int]]) -> None:
    after = rate([(Rating(m, s, 3), p) for m, s, p in field])
    model = PlackettLuce()
    direct = model.rate([[model.rating(mu=m, sigma=s)] for m, s, _ in field],
                        ranks=[p for _, _, p in field])
    for got, want, team in zip(after, paper(field), direct, strict=True):
        assert got.mu == pytest.approx(want[0], rel=1e-9)
        assert got.sigma == pytest.approx(want[1], rel=1e-9)
        assert (got.mu, got.sigma) == (team[0].mu, team[0].sigma)
        assert got.races == 4


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.floats(10, 40), st.floats(1, 9), st.integers(1, 6)),
                min_size=2, max_size=6, unique_by=lambda t: t[2]))
def test_a_better_place_gains_more_from_equal_ratings(
        field: list[tuple[float, float, int]]) -> None:
    even = [(Rating(), p) for _, _, p in field]
    after = rate(even)
    for r1, (_, p1) in zip(after, even, strict=True):
        for r2, (_, p2) in zip(after, even, strict=True):
            if p1 < p2:
                assert r1.mu > r2.mu
    assert [r.mu for r in rate([(Rating(m, s), p) for m, s, p in field])] == pytest.approx(
        [m for m, _ in paper(field)], rel=1e-9)


def test_a_lone_racer_changes_nothing() -> None:
    assert rate([(Rating(27.0, 5.0, 2), 1)]) == [Rating(27.0, 5.0, 2)]
    assert rate([]) == []


def test_placings_put_giving_up_last_and_drop_who_never_began() -> None:
    lines = [("a", "finished", 2), ("b", "resigned", 4), ("c", "finished", 1),
             ("d", "unfinished", 3), ("e", "left", 5), ("f", "lobby", 6)]
    assert placings(lines) == [("c", 1), ("a", 2), ("d", 3), ("b", 4), ("e", 4)]
    assert placings([("a", "left", 1), ("b", "lobby", 2)]) == [("a", 1)]


def test_shown_and_provisional() -> None:
    assert shown(MU) == 1500
    assert Rating().label() == "1500?"
    assert Rating(races=PROVISIONAL_RACES).label() == "1500"
    assert Rating(races=PROVISIONAL_RACES - 1).provisional
    assert (family_of(1), family_of(3)) == ("d1", "d3")
