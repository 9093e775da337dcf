"""Fixtures of the engine tests: the shared KL1 and KL2 vectors and Hypothesis profiles.

The vectors are the project's copy of the KL1 test vectors and the KL2 ones, in
``tests/vectors`` (see its README). Tests that take ``deal_vector``, ``game_vector``,
``win_vector``, ``vector_game``, ``kl2_deal`` or ``kl2_pair`` run once per entry,
named by its code.

Hypothesis profiles (used by the property tests, never loaded globally so they
don't change other packages' tests): ``klondike`` is the default, sized to keep
the property tests near half a minute on two cores and derandomized, so that
every run of the suite (CI's above all) plays the same games and a clean run
is green or red by the code alone; ``klondike-plain`` (test_kl_build's pass in
plain Python) runs the first ten of them; ``klondike-long`` runs ten times more
examples, drawn at random, to look for new counter-examples. Choose it with
``KLONDIKE_HYPOTHESIS_PROFILE=klondike-long``, and pin what it finds with a
regression test.
A failing property test may spend up to five minutes shrinking its game before
it reports; Hypothesis keeps the example in .hypothesis/ and tries it first on
the next run.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, settings
from kl_support import VECTORS, all_vector_games, kl1, kl2, wins

settings.register_profile(
    "klondike",
    deadline=None,
    max_examples=60,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    derandomize=True,
)
settings.register_profile("klondike-long", settings.get_profile("klondike"), max_examples=600,
                          derandomize=False)
# test_kl_build's second pass: the same properties in plain Python, where each
# example costs five to ten times more; a sample of the default's games shows
# the plain build plays by the same rules (the compiled pass runs them all)
settings.register_profile("klondike-plain", settings.get_profile("klondike"), max_examples=10)


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    params: dict[str, list[tuple[str, Any]]] = {
        "deal_vector": [(d["code"], d) for d in kl1()["deals"]],
        "game_vector": [(g["code"], g) for g in kl1()["games"]],
        "win_vector": [(g["code"], g) for g in wins()],
        "vector_game": all_vector_games(),
        "kl2_deal": [(d["code"], d) for d in kl2()["deals"]],
        "kl2_pair": [(p["kl2"], p) for p in kl2()["pairs"]],
    }
    for name, entries in params.items():
        if name in metafunc.fixturenames:
            metafunc.parametrize(name, [e for _, e in entries], ids=[i for i, _ in entries])


@pytest.fixture(scope="session")
def vectors_dir() -> Any:
    assert VECTORS.is_dir(), f"the KL1 and KL2 vectors are missing: {VECTORS}"
    return VECTORS
