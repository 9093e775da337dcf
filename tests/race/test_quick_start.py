"""server.race.room: a quick race starts by itself ``quick`` seconds after
its second player came; leaving and joining again from the same address
does not restart that wait (docs/protocol.md, "Races to find")."""

from __future__ import annotations

from server.race import Room, Settings

CODE = "KL1-D1N-AAAAAAG"
WAIT = 20  # s


def quick_room() -> Room:
    """ann alone in a quick race, since 0."""
    return Room.create("ROOMQ", Settings(max_players=6, quick=WAIT), CODE, "ann", "tok-a", now=0)


def test_the_wait_counts_from_the_second_players_first_coming_not_their_return() -> None:
    room = quick_room()
    bob = room.join("bob", "tok-b", now=10_000, address="198.51.100.7")["seat"]
    assert room.scheduled == 10_000 + WAIT * 1000
    for cycle in range(5):  # bob leaves and comes back, again and again
        room.leave(bob, now=12_000 + cycle * 4000)
        assert room.scheduled is None  # alone again: the start is off
        bob = room.join("bob", f"tok-b{cycle}", now=14_000 + cycle * 4000,
                        address="198.51.100.7")["seat"]
        assert room.scheduled == 10_000 + WAIT * 1000, cycle  # as it was: not pushed back
    assert "198.51.100.7" not in room.to_json().decode()  # (a digest of it, not the address)


def test_someone_new_starts_the_wait_from_their_own_coming() -> None:
    room = quick_room()
    bob = room.join("bob", "tok-b", now=10_000, address="198.51.100.7")["seat"]
    room.leave(bob, now=12_000)
    room.join("cat", "tok-c", now=30_000, address="203.0.113.4")
    assert room.scheduled == 30_000 + WAIT * 1000


def test_a_rematch_waits_again_from_its_own_lobby() -> None:
    room = quick_room()
    room.join("bob", "tok-b", now=10_000, address="198.51.100.7")
    room.start(None, now=30_000, countdown_ms=3000)
    room.end([], now=40_000)
    room.rematch(0, CODE, now=50_000)
    assert room.scheduled == 50_000 + WAIT * 1000
