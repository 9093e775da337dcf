"""The edge's bookkeeping alone, without a socket or Redis: a connection's
message credit, the connection caps and the barring of an address whose
flooders keep coming back. (tests/app/edge/test_caps.py and test_edge.py
drive the same through real sockets: what the wire and the processes add.)"""

from __future__ import annotations

from http import HTTPStatus
from typing import Any

import pytest

from server.app.edge import connection as connection_module
from server.app.edge import quotas as quotas_module
from server.app.edge.connection import Credits
from server.app.edge.quotas import BARRED_S, FLOODS, Quotas
from server.app.ground.config import Config
from server.app.ground.metrics import Metrics


class Clock:
    """time.monotonic as the credits and the quotas read it, moved by the test."""

    def __init__(self) -> None:
        self.now = 1000.0

    def monotonic(self) -> float:
        return self.now


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    clock = Clock()
    monkeypatch.setattr(quotas_module, "time", clock)
    monkeypatch.setattr(connection_module, "time", clock)
    return clock


def test_a_connection_spends_its_burst_then_gets_its_rate_back_never_more_than_the_burst(
        clock: Clock) -> None:
    credits = Credits(rate=2.0, burst=3)
    assert [credits.take() for _ in range(4)] == [True, True, True, False]
    assert not credits.full
    clock.now += 0.5  # one message's worth at 2 a second
    assert credits.take() and not credits.take()
    clock.now += 60  # a minute of quiet gives the burst back, no more
    assert [credits.take() for _ in range(4)] == [True, True, True, False]
    clock.now += 60
    credits.take_ping()  # (a ping from its own allowance refills, spends no credit)
    assert credits.full


def test_pings_have_an_allowance_of_their_own_then_cost_credit(clock: Clock) -> None:
    credits = Credits(rate=1.0, burst=2, ping_rate=1.0, ping_burst=2)
    assert credits.take_ping() and credits.take_ping()  # the pings' own
    assert credits.take() and credits.level == 1.0  # messages untouched so far
    assert credits.take_ping() and credits.level == 0.0  # past it, a ping is a message
    assert not credits.take_ping() and not credits.take()
    clock.now += 1.0
    assert credits.take_ping() and credits.level == 1.0  # the allowance came back first


def quotas(**config: Any) -> Quotas:
    """Quotas of a process with these caps (no Redis: the connection caps
    are the process's own)."""
    return Quotas(Config(**config), Metrics(), None, lambda: 0, None)  # type: ignore[arg-type]


def refused(q: Quotas, reason: str) -> float:
    return q.metrics.refused_connections.labels(reason=reason)._value.get()  # type: ignore[no-any-return]


def test_websockets_are_capped_per_address_and_in_all_and_a_release_gives_the_place_back() -> None:
    q = quotas(max_connections=3, max_connections_per_address=2)
    assert q.admit("a") is None and q.admit("a") is None
    assert q.admit("a") is HTTPStatus.TOO_MANY_REQUESTS
    assert q.admit("b") is None
    assert q.admit("c") is HTTPStatus.SERVICE_UNAVAILABLE  # the process is full
    assert (refused(q, "per_address"), refused(q, "total")) == (1, 1)
    q.release("a")
    assert q.admit("c") is None
    for address in ("a", "b", "c"):
        q.release(address)
    assert q.total == 0 and not q.per_address  # nothing kept of addresses gone


def test_every_accepted_connection_holds_a_place_until_it_closes() -> None:
    q = quotas(max_connections=2, max_connections_per_address=1)
    assert q.open("a") and not q.open("a")
    assert q.open(None)  # behind a proxy: counted in all only
    q.close("a")
    assert q.open("a")
    q.close("a")
    q.close(None)
    assert q.open_total == 0 and not q.open_per_address


def test_an_address_whose_flooders_keep_coming_back_is_barred_for_a_while(clock: Clock) -> None:
    q = quotas()
    for _ in range(FLOODS - 1):
        q.flooded("a")
    assert q.admit("a") is None  # not yet
    q.release("a")
    q.flooded("a")
    assert q.admit("a") is HTTPStatus.TOO_MANY_REQUESTS and refused(q, "flooding") == 1
    assert q.admit("b") is None  # another address is not concerned
    clock.now += BARRED_S
    assert q.admit("a") is None


def test_floods_count_within_a_minute_only(clock: Clock) -> None:
    q = quotas()
    for _ in range(FLOODS - 1):
        q.flooded("a")
    clock.now += 61
    q.flooded("a")  # the older ones have gone out of the minute
    assert q.admit("a") is None
