"""The slow-consumer policy alone: a socket's write buffer as the test sets
it, the event loop's clock as the test moves it; no socket, no sleep.
(tests/app/edge/test_slow_consumer.py drives it through a real socket.)"""

from __future__ import annotations

import pytest
from support.loop import Loop

from server.app.ground.backpressure import Backpressure


class Transport:
    def __init__(self) -> None:
        self.buffered = 0

    def get_write_buffer_size(self) -> int:
        return self.buffered


class Socket:
    def __init__(self) -> None:
        self.transport: Transport | None = Transport()


@pytest.fixture
async def loop(monkeypatch: pytest.MonkeyPatch) -> Loop:
    return Loop(monkeypatch)


def watched(limit: int = 100, grace: float = 10.0) -> tuple[Socket, Backpressure, list[tuple[int, float]]]:
    sock, slow = Socket(), []
    bp = Backpressure(sock, lambda buffered, behind: slow.append((buffered, behind)),
                      limit=limit, grace=grace)
    return sock, bp, slow


async def test_under_the_limit_everything_goes(loop: Loop) -> None:
    sock, bp, slow = watched()
    assert sock.transport is not None
    sock.transport.buffered = 100
    assert bp.admit(essential=False) and bp.admit(essential=True)
    assert bp.over_since is None and not slow


async def test_behind_a_socket_skips_what_the_next_frame_supersedes_and_still_gets_the_rest(
        loop: Loop) -> None:
    sock, bp, slow = watched()
    assert sock.transport is not None
    sock.transport.buffered = 101
    assert not bp.admit(essential=False)
    assert bp.admit(essential=True)
    await loop.move(9.9)
    assert bp.admit(essential=True) and not slow
    sock.transport.buffered = 0  # it caught up: the count starts again
    assert bp.admit(essential=False) and bp.over_since is None
    sock.transport.buffered = 101
    bp.admit(essential=False)
    await loop.move(9.9)
    assert not slow


async def test_a_socket_behind_for_the_grace_is_too_slow_once_even_if_nothing_more_is_written(
        loop: Loop) -> None:
    sock, bp, slow = watched()
    assert sock.transport is not None
    sock.transport.buffered = 500
    bp.admit(essential=True)
    await loop.move(10.0)  # the timer, with nothing written meanwhile
    assert slow == [(500, 10.0)]
    assert not bp.admit(essential=True)  # nothing more goes to it
    await loop.move(20.0)
    assert len(slow) == 1


async def test_a_socket_that_dipped_under_and_went_over_again_is_timed_from_then(
        loop: Loop) -> None:
    sock, bp, slow = watched()
    assert sock.transport is not None
    sock.transport.buffered = 500
    bp.admit(essential=True)
    await loop.move(5.0)
    sock.transport.buffered = 0
    await loop.move(5.0)  # the timer finds it under the limit
    assert bp.over_since is None and not slow
    sock.transport.buffered = 500
    bp.admit(essential=True)
    await loop.move(9.0)
    assert not slow
    await loop.move(1.0)
    assert len(slow) == 1


async def test_a_closed_socket_is_checked_no_more(loop: Loop) -> None:
    sock, bp, slow = watched()
    assert sock.transport is not None
    sock.transport.buffered = 500
    bp.admit(essential=True)
    bp.close()
    await loop.move(30.0)
    assert not slow and not bp.admit(essential=True)
    sock.transport = None
    assert bp.buffered() == 0
