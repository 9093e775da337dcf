"""Players in the store (real Redis): a profile found by its key's digest
only while it holds it, results recorded once per ref with totals that
count every game, the history capped, best times and the daily streak,
device-move codes spent once, forgetting, and the seats' links."""

from __future__ import annotations

import itertools
import time
from typing import Any

from store_support import room_id

from server.race.profile import GameResult, day_number
from server.race.tokens import hash_token
from server.store import Store, keys

TTL = 3_600_000
_ids = itertools.count()


def player_id() -> str:
    return f"P{time.monotonic_ns() % 10**8:08d}{next(_ids)}"


async def new_player(store: Store, nickname: str = "ann") -> tuple[str, str]:
    pid, key = player_id(), f"key-{next(_ids)}"
    assert await store.players.create_player(pid, nickname, hash_token(key), now_ms=1, ttl_ms=TTL)
    return pid, key


def result(ref: str, **over: Any) -> GameResult:
    base: dict[str, Any] = {"ref": ref, "kind": "race", "at": 1, "mode": "D1N", "nickname": "ann",
                            "status": "finished", "place": 2, "of": 3, "time_ms": 90_000,
                            "vegas": 0, "points": 100}
    return GameResult(**{**base, **over})


async def test_a_key_finds_its_player_and_no_other_key_does(store: Store) -> None:
    pid, key = await new_player(store)
    assert await store.players.identify_player(hash_token(key), now_ms=2, ttl_ms=TTL) == (pid, "ann")
    assert await store.players.identify_player(hash_token(key + "x"), now_ms=2, ttl_ms=TTL) is None
    pid2, _ = await new_player(store)
    assert not await store.players.create_player(pid2, "bob", hash_token("other"), now_ms=1, ttl_ms=TTL)


async def test_a_result_is_counted_once_per_ref_and_replaced_in_place(store: Store) -> None:
    pid, _ = await new_player(store)
    assert await store.players.record_result(pid, result("R1/1/0"), cap=10, ttl_ms=TTL) == "new"
    assert await store.players.record_result(pid, result("R2/1/0", place=1, time_ms=80_000), cap=10,
                                     ttl_ms=TTL) == "new"
    # the first again, now a win with a code: replaced, not a third game
    again = result("R1/1/0", place=1, code="KL1-D1N-AAAAAAG")
    assert await store.players.record_result(pid, again, cap=10, ttl_ms=TTL) == "replaced"
    fields = await store.players.player_fields(pid)
    assert fields is not None
    assert (fields["games"], fields["wins"], fields["finished"]) == ("2", "2", "2")
    assert fields["best:D1N"] == "80000"
    total, page = await store.players.player_history(pid, 1, 10)
    assert total == 2
    assert [e.ref for e in page] == ["R2/1/0", "R1/1/0"]
    assert page[1] == again
    # a ref that is a prefix of another is another game
    assert await store.players.record_result(pid, result("R1/1/"), cap=10, ttl_ms=TTL) == "new"


async def test_the_history_keeps_the_newest_and_the_totals_count_every_game(store: Store) -> None:
    pid, _ = await new_player(store)
    for i in range(7):
        await store.players.record_result(pid, result(f"R{i}/1/0", status="resigned", time_ms=None),
                                  cap=5, ttl_ms=TTL)
    total, page = await store.players.player_history(pid, 1, 50)
    assert total == 5
    assert [e.ref for e in page] == [f"R{i}/1/0" for i in (6, 5, 4, 3, 2)]
    assert (await store.players.player_history(pid, 2, 2))[1] == page[1:3]
    fields = await store.players.player_fields(pid)
    assert fields is not None and fields["games"] == "7" and fields["finished"] == "0"
    assert "best:D1N" not in fields


async def test_the_daily_streak_counts_days_in_a_row_with_a_finished_attempt(store: Store) -> None:
    pid, _ = await new_player(store)

    async def daily(day: str, mode: str = "D1N", status: str = "finished") -> None:
        await store.players.record_result(pid, result(f"daily/{day}/{mode}", kind="daily", day=day,
                                              mode=mode, status=status), cap=50, ttl_ms=TTL)

    async def streak() -> tuple[str, str, str]:
        f = await store.players.player_fields(pid) or {}
        return f.get("streak", ""), f.get("streak_best", ""), f.get("streak_day", "")

    await daily("2030-01-01")
    await daily("2030-01-01", "D3N")  # a second mode the same day: the same day
    await daily("2030-01-02")
    assert await streak() == ("2", "2", str(day_number("2030-01-02")))
    await daily("2030-01-03", status="resigned")  # not finished: no day counted
    await daily("2030-01-04")  # the 3rd missed: a new streak
    assert await streak() == ("1", "2", str(day_number("2030-01-04")))
    await daily("2030-01-02", "D1V")  # an older day changes nothing
    assert (await streak())[0] == "1"


async def test_a_device_move_code_is_spent_once_and_a_new_one_replaces_the_last(
        store: Store) -> None:
    pid, key = await new_player(store)
    assert await store.players.offer_move(pid, hash_token("OLD"), until_ms=10_000, ttl_ms=60_000)
    assert await store.players.offer_move(pid, hash_token("CODE"), until_ms=10_000, ttl_ms=60_000)
    assert await store.players.claim_move(hash_token("OLD"), hash_token("k2"), now_ms=5, max_keys=3,
                                  ttl_ms=TTL) is None
    claimed = await store.players.claim_move(hash_token("CODE"), hash_token("k2"), now_ms=5, max_keys=3,
                                     ttl_ms=TTL)
    assert claimed is not None and claimed.player == pid
    assert await store.players.claim_move(hash_token("CODE"), hash_token("k3"), now_ms=5, max_keys=3,
                                  ttl_ms=TTL) is None
    for k in (key, "k2"):  # both devices are the player now
        assert await store.players.identify_player(hash_token(k), now_ms=6, ttl_ms=TTL) == (pid, "ann")


async def test_an_expired_code_is_refused_and_keys_past_the_cap_are_revoked_oldest_first(
        store: Store) -> None:
    pid, first = await new_player(store)
    await store.players.offer_move(pid, hash_token("LATE"), until_ms=100, ttl_ms=60_000)
    assert await store.players.claim_move(hash_token("LATE"), hash_token("x"), now_ms=101, max_keys=2,
                                  ttl_ms=TTL) is None
    for n, k in enumerate(("k2", "k3"), 2):
        await store.players.offer_move(pid, hash_token(f"C{n}"), until_ms=10_000, ttl_ms=60_000)
        assert await store.players.claim_move(hash_token(f"C{n}"), hash_token(k), now_ms=n, max_keys=2,
                                      ttl_ms=TTL)
    assert await store.players.identify_player(hash_token(first), now_ms=9, ttl_ms=TTL) is None
    assert await store.redis.execute(keys.key_index(hash_token(first)), "EXISTS",
                                     keys.key_index(hash_token(first))) == 0
    for k in ("k2", "k3"):
        assert await store.players.identify_player(hash_token(k), now_ms=9, ttl_ms=TTL) == (pid, "ann")


async def test_a_forgotten_player_is_gone_with_every_key_and_records_nothing_more(
        store: Store) -> None:
    pid, key = await new_player(store)
    await store.players.record_result(pid, result("R/1/0"), cap=10, ttl_ms=TTL)
    assert await store.players.forget_player(pid)
    assert await store.players.identify_player(hash_token(key), now_ms=2, ttl_ms=TTL) is None
    assert await store.players.player_fields(pid) is None
    assert await store.players.record_result(pid, result("R/2/0"), cap=10, ttl_ms=TTL) == "gone"
    assert await store.players.player_fields(pid) is None
    assert await store.players.player_history(pid, 1, 10) == (0, [])
    assert not await store.players.forget_player(pid)


async def test_a_seat_counts_for_the_first_player_who_held_it(store: Store) -> None:
    rid = room_id()
    await store.redis.execute(keys.room(rid), "HSET", keys.room(rid), "rv", 1)
    await store.redis.execute(keys.room(rid), "PEXPIRE", keys.room(rid), 60_000)
    assert await store.players.link_seat(rid, 0, "ANN") == "ANN"
    assert await store.players.link_seat(rid, 0, "OTHER") == "ANN"
    assert await store.players.link_seat(rid, 1, "BOB") == "BOB"
    await store.players.seat_players_recorded(rid, 3)
    assert await store.players.seat_players(rid) == ({0: "ANN", 1: "BOB"}, 3)
    ttl = await store.redis.execute(keys.seat_players(rid), "PTTL", keys.seat_players(rid))
    assert 0 < ttl <= 60_000  # it lives as long as its room


async def test_a_new_profile_with_no_result_is_kept_a_month_and_one_with_results_longer(
        store: Store) -> None:
    long = 400 * 86_400_000
    pid = player_id()
    assert await store.players.create_player(pid, "ann", hash_token("kk"), now_ms=1, ttl_ms=long)
    ttl = await store.redis.execute(keys.player(pid), "PTTL", keys.player(pid))
    assert ttl <= 30 * 86_400_000
    await store.players.record_result(pid, result("R/1/0"), cap=10, ttl_ms=long)
    for key in (keys.player(pid), keys.player_history(pid)):
        assert await store.redis.execute(key, "PTTL", key) > 30 * 86_400_000


async def test_a_game_on_a_typed_deal_never_counts_as_a_win_or_a_best_time(store: Store) -> None:
    """Regression (issue 24): a scripted solo game on a typed code set a public
    best time of 8.0 s, an alt resigning in a room of two gave wins. A game on
    a deal the server did not draw counts as played and finished only, even
    when it is replaced by its final place."""
    pid, _ = await new_player(store)
    typed = result("R1/1/0", place=1, of=2, time_ms=8_000, typed=True)
    assert typed.won
    assert await store.players.record_result(pid, typed, cap=10, ttl_ms=TTL) == "new"
    assert await store.players.record_result(pid, result("R1/1/0", place=1, of=3, time_ms=8_000,
                                                 typed=True), cap=10, ttl_ms=TTL) == "replaced"
    fields = await store.players.player_fields(pid)
    assert fields is not None
    assert (fields["games"], fields["wins"], fields["finished"]) == ("1", "0", "1")
    assert "best:D1N" not in fields
    [kept] = (await store.players.player_history(pid, 1, 10))[1]
    assert kept.typed and kept.won
    # a drawn deal's win and time count
    assert await store.players.record_result(pid, result("R2/1/0", place=1, time_ms=90_000), cap=10,
                                     ttl_ms=TTL) == "new"
    fields = await store.players.player_fields(pid)
    assert fields is not None and (fields["wins"], fields["best:D1N"]) == ("1", "90000")


async def test_a_daily_place_so_far_is_no_win_until_the_days_close_settles_it(store: Store) -> None:
    """Issue 25 item 5: the lobby said "1st of 2" while the record showed 0
    wins. A daily attempt's place when its game ended is only so far (others
    may pass it before the close): it is kept and shown as such, never a win;
    the close's entry replaces it and counts the win if it holds."""
    pid, _ = await new_player(store)
    ref = "daily/2026-12-02/D1N"
    early = result(ref, kind="daily", day="2026-12-02", place=1, of=2, so_far=True)
    assert not early.won
    assert await store.players.record_result(pid, early, cap=10, ttl_ms=TTL) == "new"
    fields = await store.players.player_fields(pid)
    assert fields is not None and (fields["games"], fields["wins"]) == ("1", "0")
    [kept] = (await store.players.player_history(pid, 1, 10))[1]
    assert kept == early and kept.to_dict()["so_far"] is True
    settled = result(ref, kind="daily", day="2026-12-02", place=1, of=5, code="KL1-D1N-AAAAAAG")
    assert await store.players.record_result(pid, settled, cap=10, ttl_ms=TTL) == "replaced"
    fields = await store.players.player_fields(pid)
    assert fields is not None and (fields["games"], fields["wins"]) == ("1", "1")
    [kept] = (await store.players.player_history(pid, 1, 10))[1]
    assert kept == settled and "so_far" not in kept.to_dict()
