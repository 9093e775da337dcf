"""Names: NFKC-normalised, control/bidi/invisible characters refused, and
uniqueness on a look-alike-folded form (issue 10, item 9)."""

from __future__ import annotations

import pytest

from server.protocol import Reason
from server.race import RaceError, Room, Settings, check_nickname
from server.race.names import fold, normalise
from server.race.tournament import Tournament, TournamentSettings

CODES = ("KL1-D1V-ABYI5NK",)
LOOK_ALIKES_OF_ANN = ["ann", "ANN", "Ann", "ａｎｎ", "аnn", "𝕒𝕟𝕟", "ΑΝΝ", "aոn"]
HIDDEN = ["\x00", "\x1b", "\x7f", "\u202e", "\u202d", "\u2066", "\u200b", "\u200d", "\u2060",
          "\ufeff", "\u00ad", "\u3164", "\u2800", "\ufe0f", "\u034f", "\U000e0041", "\u2028",
          "\ue000"]


@pytest.mark.parametrize("look_alike", LOOK_ALIKES_OF_ANN[1:])
def test_a_nickname_that_looks_like_one_in_the_room_is_taken(look_alike: str) -> None:
    room = Room.create("ROOM1", Settings(), "KL1-D1N-AAAAAAG", "ann", "tok-a", now=0)
    with pytest.raises(RaceError) as exc:
        room.join(look_alike, "tok-b", now=1)
    assert exc.value.reason is Reason.NAME_TAKEN
    assert "'ann'" in exc.value.text or look_alike.casefold() == "ann"
    assert [p.nickname for p in room.players] == ["ann"]


def test_every_look_alike_folds_to_one_form_and_different_names_stay_apart() -> None:
    assert {fold(n) for n in LOOK_ALIKES_OF_ANN} == {"ann"}
    assert fold("b0b") == fold("bob") and fold("a1ex") == fold("alex")
    for a, b in [("ann", "anna"), ("zoë", "zoe"), ("ian", "lan"), ("bob", "bab")]:
        assert fold(a) != fold(b), (a, b)


def test_nicknames_are_stored_nfkc_normalised() -> None:
    assert check_nickname("  ａｎｎ  ｓｍｉｔｈ ") == "ann smith"
    assert check_nickname("𝕒𝕟𝕟") == "ann"
    assert check_nickname("Zoe\u0301") == "Zoé"  # a combining accent composed
    assert check_nickname("аnn") == "аnn"  # Cyrillic stays itself: only its uniqueness folds


def test_a_nickname_may_begin_with_a_dash() -> None:
    assert check_nickname("-xX_sniper_Xx-") == "-xX_sniper_Xx-"
    assert check_nickname("-ann") == "-ann"


@pytest.mark.parametrize("hidden", HIDDEN, ids=[f"U+{ord(h):04X}" for h in HIDDEN])
def test_nicknames_with_control_bidi_or_invisible_characters_are_refused(hidden: str) -> None:
    with pytest.raises(RaceError) as exc:
        check_nickname(f"an{hidden}n")
    assert exc.value.reason is Reason.BAD_NICKNAME


@pytest.mark.parametrize("hidden", HIDDEN, ids=[f"U+{ord(h):04X}" for h in HIDDEN])
def test_tournament_names_with_control_bidi_or_invisible_characters_are_refused(hidden: str) -> None:
    with pytest.raises(RaceError) as exc:
        Tournament.create("T1", f"Club{hidden} night", TournamentSettings(codes=CODES), "adm", now=0)
    assert exc.value.reason is Reason.BAD_SETTINGS and f"U+{ord(hidden):04X}" in exc.value.text


def test_tournament_names_keep_any_visible_text_normalised() -> None:
    t = Tournament.create("T1", " Ｃｌｕｂ\tnight — 🂡 ♠ ", TournamentSettings(codes=CODES), "adm",
                          now=0)
    assert t.name == "Club night — 🂡 ♠"
    assert normalise("a\u3000b\u00a0c") == "a b c"  # other spaces become one plain space
