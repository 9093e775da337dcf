"""KL1 and KL2 deal codes (docs/rules.md, "KL1 deal codes", "KL2 deal codes") and the deal they name."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from kl_support import reference_deck

from server.klondike import (
    COMPILED,
    KL1,
    KL2,
    CodeFormat,
    DealCode,
    EngineError,
    Game,
    InvalidDealCodeError,
    shuffled_deck,
)
from server.klondike.codes import ALPHABET, FORMATS, code_format

MAX_NUMBER = KL1.max_number


def test_rules_examples() -> None:
    assert DealCode.parse("KL1-D1N-AAAAAAG").number == 6
    assert DealCode.parse("KL1-D1N-7777777").number == 34_359_738_367 == 2**35 - 1 == MAX_NUMBER
    assert DealCode.parse("KL1-D1N-AAAAAAA").number == 0
    assert DealCode.parse("KL1-D1N-AAAAABA").number == 32


@pytest.mark.parametrize(
    ("text", "number", "draw", "scoring"),
    [
        ("KL1-D1N-AAAAAAG", 6, 1, "N"),
        ("KL1-D3V-AAAAAAG", 6, 3, "V"),
        ("kl1-d3n-aaaaaag", 6, 3, "N"),
        ("  Kl1-D1v-AaAaAaG\n", 6, 1, "V"),
        ("\tKL1-D3N-7777777 ", 2**35 - 1, 3, "N"),
    ],
)
def test_parse_tolerates_case_and_surrounding_space(text: str, number: int, draw: int, scoring: str) -> None:
    code = DealCode.parse(text)
    assert (code.number, code.draw, code.scoring) == (number, draw, scoring)
    assert str(code) == text.strip().upper()
    assert code.mode == f"D{draw}{scoring}"
    assert code.vegas == (scoring == "V")


def test_canonical_form_and_evaluable_repr() -> None:
    code = DealCode.parse(" kl1-d3v-aaaaaag ")
    assert str(code) == "KL1-D3V-AAAAAAG"
    assert repr(code) == "DealCode.parse('KL1-D3V-AAAAAAG')"
    assert eval(repr(code), {"DealCode": DealCode}) == code
    assert DealCode(6, 3, "V") == code
    assert str(DealCode(0)) == "KL1-D1N-AAAAAAA"
    assert code.with_deal(MAX_NUMBER) == DealCode.parse("KL1-D3V-7777777")


@settings(deadline=None)
@given(st.integers(0, MAX_NUMBER), st.sampled_from([1, 3]), st.sampled_from(["N", "V"]))
def test_str_parse_round_trip(number: int, draw: int, scoring: str) -> None:
    code = DealCode(number, draw, scoring)  # type: ignore[arg-type]
    text = str(code)
    assert len(text) == 15 and text.startswith(f"KL1-D{draw}{scoring}-")
    assert all(ch in ALPHABET for ch in text[8:])
    assert DealCode.parse(text) == code
    assert DealCode.parse(text.lower()) == code
    assert eval(repr(code), {"DealCode": DealCode}) == code
    # most significant digit first, A = 0 … 7 = 31
    assert sum(ALPHABET.index(ch) * 32 ** (6 - i) for i, ch in enumerate(text[8:])) == number


@pytest.mark.parametrize("draw", [1, 3])
@pytest.mark.parametrize("scoring", ["N", "V"])
def test_random_codes_are_valid_kl2_codes_of_that_mode(draw: int, scoring: str) -> None:
    codes = [DealCode.random(draw, scoring) for _ in range(20)]  # type: ignore[arg-type]
    for code in codes:
        assert (code.draw, code.scoring, code.format) == (draw, scoring, KL2)
        assert 0 <= code.number <= 2**64 - 1
        assert str(code).startswith(f"KL2-D{draw}{scoring}-") and len(str(code)) == 21
        assert DealCode.parse(str(code)) == code
    assert len({c.number for c in codes}) > 1


def test_random_defaults_to_draw_one_normal() -> None:
    assert DealCode.random().mode == "D1N"


def test_random_numbers_spread_over_64_bits() -> None:
    """A drawn number below 2^40 has odds 2^-24: 200 of them all below it, 2^-4800."""
    numbers = [DealCode.random().number for _ in range(200)]
    assert any(n >= 2**40 for n in numbers)
    assert any(n >= 2**63 for n in numbers)  # odds of failing: 2^-200


def test_random_may_draw_a_kl1_code_on_request() -> None:
    code = DealCode.random(3, "V", format=KL1)
    assert code.format is KL1 and str(code).startswith("KL1-D3V-") and code.number <= MAX_NUMBER


# ---------------------------------------------------------------------- KL2

@pytest.mark.parametrize(
    ("text", "number"),
    [
        ("KL2-D1N-AAAAAAAAAAAAA", 0),
        ("KL2-D1N-AAAAAAAAAAAAG", 6),
        ("KL2-D1N-AAAAAA7777777", 2**35 - 1),
        ("KL2-D1N-AAAAABAAAAAAA", 2**35),
        ("KL2-D1N-H777777777777", 2**63 - 1),
        ("KL2-D1N-IAAAAAAAAAAAA", 2**63),
        ("KL2-D1N-P777777777777", 2**64 - 1),
    ],
)
def test_kl2_numbers_are_13_base_32_digits(text: str, number: int) -> None:
    code = DealCode.parse(text)
    assert (code.number, code.format, str(code)) == (number, KL2, text)
    assert eval(repr(code), {"DealCode": DealCode}) == code


@settings(deadline=None)
@given(st.integers(0, 2**64 - 1), st.sampled_from([1, 3]), st.sampled_from(["N", "V"]))
def test_kl2_str_parse_round_trip(number: int, draw: int, scoring: str) -> None:
    code = DealCode(number, draw, scoring, KL2)  # type: ignore[arg-type]
    text = str(code)
    assert len(text) == 21 and text.startswith(f"KL2-D{draw}{scoring}-")
    assert text[8] in "ABCDEFGHIJKLMNOP"  # 64 bits: the first of 13 digits holds 4 of them
    assert DealCode.parse(text.lower()) == code
    assert sum(ALPHABET.index(ch) * 32 ** (12 - i) for i, ch in enumerate(text[8:])) == number


@pytest.mark.parametrize("number", [0, 6, MAX_NUMBER])
def test_a_kl1_number_keeps_its_deal_in_kl2(number: int) -> None:
    one, two = DealCode(number, 3, "V"), DealCode(number, 3, "V", KL2)
    assert one != two and str(one) != str(two)
    assert one.with_deal(5).format is KL1 and two.with_deal(5).format is KL2
    a, b = Game(one), Game(two)
    assert (a.columns, a.down, a.stock) == (b.columns, b.down, b.stock)


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("KL2-D1N-QAAAAAAAAAAAA", ["2^64 or more", "64 bits", "A to P"]),  # exactly 2^64
        ("KL2-D1N-7777777777777", ["2^64 or more"]),  # 2^65 - 1, the most 13 digits hold
        ("kl2-d1n-zaaaaaaaaaaaa", ["2^64 or more", "'ZAAAAAAAAAAAA'"]),
        ("KL2-D1N-AAAAAAG", ["length", "7 characters", "expected 13 in a KL2 code"]),
        ("KL1-D1N-AAAAAAAAAAAAG", ["length", "13 characters", "expected 7 in a KL1 code"]),
        ("KL2-D1N-AAAAAAAAAAAA8", ["character", "'8'"]),
        ("KL2-D3X-AAAAAAAAAAAAG", ["scoring letter"]),
        ("KL3-D1N-AAAAAAAAAAAAG", ["prefix", "'KL3'", "'KL1' or 'KL2'"]),
        ("KL2-D1N-AAAAAAAAAAAAı", ["a code is ASCII"]),
    ],
)
def test_malformed_kl2_codes_say_which_part_is_wrong(text: str, words: list[str]) -> None:
    with pytest.raises(InvalidDealCodeError) as info:
        DealCode.parse(text)
    for word in [repr(text), *words]:
        assert word in str(info.value)


@pytest.mark.parametrize(
    ("number", "fmt", "words"),
    [(2**64, KL2, "outside 0..18446744073709551615 of a KL2 code"),
     (-1, KL2, "outside"),
     (2**35, KL1, "outside 0..34359738367 of a KL1 code"),
     (0, CodeFormat(3, 13, 64), "must be KL1 or KL2")],
)
def test_constructor_checks_the_number_against_its_format(number: int, fmt: CodeFormat,
                                                          words: str) -> None:
    with pytest.raises(InvalidDealCodeError, match=re.escape(words)):
        DealCode(number, 1, "N", fmt)


def test_a_format_that_is_not_a_code_format_is_refused() -> None:
    """The compiled class refuses a field of another type as its annotation
    says (mypy's error, at run time), plain Python with the engine's error."""
    with pytest.raises(TypeError if COMPILED else InvalidDealCodeError):
        DealCode(0, 1, "N", "KL2")  # type: ignore[arg-type]


def test_formats_are_named_by_their_prefix_and_version() -> None:
    assert FORMATS == {"KL1": KL1, "KL2": KL2}
    assert (KL1.prefix, KL1.digits, KL1.bits, repr(KL1)) == ("KL1", 7, 35, "KL1")
    assert (KL2.prefix, KL2.digits, KL2.bits, KL2.max_number) == ("KL2", 13, 64, 2**64 - 1)
    assert code_format(1) is KL1 and code_format(2) is KL2
    with pytest.raises(InvalidDealCodeError, match="version 3"):
        code_format(3)


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("KL3-D1N-AAAAAAG", ["prefix", "'KL3'"]),
        ("KL-D1N-AAAAAAG", ["prefix"]),
        ("XKL1-D1N-AAAAAAG", ["prefix"]),
        ("KL1-D2N-AAAAAAG", ["draw digit", "'2'"]),
        ("KL1-D0N-AAAAAAG", ["draw digit", "'0'"]),
        ("KL1-DXN-AAAAAAG", ["draw digit"]),
        ("KL1-D1X-AAAAAAG", ["scoring letter", "'X'"]),
        ("KL1-D1A-AAAAAAG", ["scoring letter", "'A'"]),
        ("KL1-X1N-AAAAAAG", ["mode"]),
        ("KL1-D1-AAAAAAG", ["mode"]),
        ("KL1-D1NN-AAAAAAG", ["mode"]),
        ("KL1-D1N-AAAAAG", ["length", "6"]),
        ("KL1-D1N-AAAAAAAG", ["length", "8"]),
        ("KL1-D1N-", ["length", "0"]),
        ("KL1-D1N-AAAAAA0", ["character", "'0'"]),
        ("KL1-D1N-AAAAAA1", ["character", "'1'"]),
        ("KL1-D1N-AAAAA8A", ["character", "'8'"]),
        ("KL1-D1N-9AAAAAA", ["character", "'9'"]),
        ("KL1-D1N-AAA AAA", ["character", "' '"]),
        ("KL1-D1N-AAAAAA!", ["character", "'!'"]),
        ("KL1D1NAAAAAAG", ["three parts"]),
        ("KL1-D1N-AAAA-AAG", ["three parts"]),
        ("", ["three parts"]),
        ("   ", ["three parts"]),
    ],
)
def test_malformed_codes_say_which_part_is_wrong(text: str, words: list[str]) -> None:
    with pytest.raises(InvalidDealCodeError) as info:
        DealCode.parse(text)
    message = str(info.value)
    assert repr(text) in message, "the message shows the input"
    for word in words:
        assert word in message
    assert isinstance(info.value, ValueError) and isinstance(info.value, EngineError)


def test_game_refuses_a_malformed_code() -> None:
    with pytest.raises(InvalidDealCodeError, match="scoring letter"):
        Game("KL1-D1Q-AAAAAAG")


@pytest.mark.parametrize("value", [None, 6, b"KL1-D1N-AAAAAAG"])
def test_parse_refuses_what_is_not_text(value: object) -> None:
    with pytest.raises(InvalidDealCodeError):
        DealCode.parse(value)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("number", "draw", "scoring"),
    [(-1, 1, "N"), (MAX_NUMBER + 1, 1, "N"), (0, 2, "N"), (0, 1, "n"), (0, 1, "X")],
)
def test_constructor_checks_its_fields(number: int, draw: int, scoring: str) -> None:
    with pytest.raises(InvalidDealCodeError):
        DealCode(number, draw, scoring)  # type: ignore[arg-type]


@st.composite
def near_codes(draw: st.DrawFn) -> str:
    """A valid code with one character replaced, inserted or deleted."""
    fmt = draw(st.sampled_from([KL1, KL2]))
    code = str(DealCode(draw(st.integers(0, fmt.max_number)), draw(st.sampled_from([1, 3])),
                        draw(st.sampled_from(["N", "V"])), fmt))
    i = draw(st.integers(0, len(code)))
    ch = draw(st.sampled_from("0189AZ27-DdNnVv13 ı\u00e9") | st.characters())
    how = draw(st.sampled_from(["replace", "insert", "delete"]))
    if how == "insert":
        return code[:i] + ch + code[i:]
    if how == "delete":
        return code[:i] + code[i + 1:]
    return code[:i] + ch + code[i + 1:]


@settings(deadline=None)
@given(st.text(max_size=20) | near_codes())
def test_any_text_parses_to_its_canonical_form_or_raises(text: str) -> None:
    try:
        code = DealCode.parse(text)
    except InvalidDealCodeError as exc:
        assert repr(text) in str(exc)
    else:
        assert str(code) == text.strip().upper()


@settings(deadline=None)
@given(st.integers(0, MAX_NUMBER) | st.integers(0, 2**64 - 1))
def test_shuffle_follows_rules_md(number: int) -> None:
    assert shuffled_deck(number) == reference_deck(number)


@pytest.mark.parametrize("number", [0, 6, 1 << 34, MAX_NUMBER])
def test_same_number_same_layout_in_every_mode(number: int) -> None:
    games = [Game(DealCode(number, d, s)) for d in (1, 3) for s in ("N", "V")]  # type: ignore[arg-type]
    first = games[0]
    for game in games[1:]:
        assert game.columns == first.columns
        assert game.down == first.down
        assert game.stock == first.stock
    assert sorted(first.cards()) == list(range(52))


def test_rules_md_pair_deals_identically() -> None:
    a, b = Game("KL1-D1N-AAAAAAG"), Game("KL1-D3V-AAAAAAG")
    assert (a.columns, a.down, a.stock) == (b.columns, b.down, b.stock)
    assert (a.draw_count, a.allow_recycle) == (1, True)
    assert (b.draw_count, b.allow_recycle) == (3, False)


@pytest.mark.parametrize("text", ["KL1-D1N-AAAAAAı", "kl1-d1n-aaaaaaı", "ＫL1-D1N-AAAAAAG"])
def test_a_non_ascii_letter_never_becomes_a_code_by_case(text: str) -> None:
    """Regression: "ı".upper() is "I", so KL1-D1N-AAAAAAı parsed as AAAAAAI."""
    with pytest.raises(InvalidDealCodeError, match="a code is ASCII"):
        DealCode.parse(text)
