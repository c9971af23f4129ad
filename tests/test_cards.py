"""The deck: 48 month cards and the bonus cards, their codes, kinds, sets and flags."""

from __future__ import annotations

import pickle

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gostop_records import cards
from gostop_records.cards import (
    ALL_CARDS,
    ANIMALS,
    BONUS,
    BONUS_CODES,
    BRIGHTS,
    CHEONGDAN,
    CHODAN,
    CUP,
    DOUBLE_JUNK,
    GODORI,
    HONGDAN,
    JUNK,
    MONTH_CARDS,
    MONTH_MASKS,
    RAIN_BRIGHT,
    RIBBONS,
    SINGLE_JUNK,
    STANDARD_DECK,
    CardCodeError,
    Kind,
    RibbonSet,
)


def _codes(mask: int) -> set[str]:
    return set(cards.codes(mask))


def test_48_cards_12_months_of_4() -> None:
    assert len(MONTH_CARDS) == 48
    assert STANDARD_DECK.bit_count() == 48
    for m in range(1, 13):
        month = [c for c in MONTH_CARDS if c.month == m]
        assert len(month) == 4
        assert MONTH_MASKS[m].bit_count() == 4
        assert all(MONTH_MASKS[m] & c.bit for c in month)
        assert all(cards.month_of(c.index) == m for c in month)
    assert sum(MONTH_MASKS[1:]) == STANDARD_DECK


def test_kind_counts() -> None:
    assert BRIGHTS.bit_count() == 5
    assert ANIMALS.bit_count() == 9
    assert RIBBONS.bit_count() == 10
    assert JUNK.bit_count() == 24
    assert SINGLE_JUNK.bit_count() == 22
    assert BRIGHTS | ANIMALS | RIBBONS | JUNK == STANDARD_DECK
    assert sum(c.kind is not Kind.BONUS for c in ALL_CARDS) == 48


def test_double_junk_and_junk_units() -> None:
    assert _codes(DOUBLE_JUNK) == {"11D", "12D"}
    assert sum(cards.card(i).junk_units for i in cards.indices(JUNK)) == 26
    assert all(cards.card(i).junk_units == 1 for i in cards.indices(SINGLE_JUNK))


def test_brights_by_month() -> None:
    assert {cards.card(i).month for i in cards.indices(BRIGHTS)} == {1, 3, 8, 11, 12}


def test_ribbon_sets() -> None:
    assert _codes(HONGDAN) == {"01R", "02R", "03R"}
    assert _codes(CHEONGDAN) == {"06R", "09R", "10R"}
    assert _codes(CHODAN) == {"04R", "05R", "07R"}
    assert cards.card("12R").ribbon_set is None  # the rain ribbon belongs to no set
    assert cards.card("01R").ribbon_set is RibbonSet.HONGDAN
    assert (HONGDAN | CHEONGDAN | CHODAN) & ~RIBBONS == 0


def test_godori_birds_rain_bright_and_cup() -> None:
    assert _codes(GODORI) == {"02A", "04A", "08A"}
    assert not cards.card("12A").godori_bird  # the swallow is not a godori bird
    assert _codes(RAIN_BRIGHT) == {"12G"}
    assert _codes(CUP) == {"09A"}
    cup = cards.card("09A")
    assert cup.kind is Kind.ANIMAL and cup.cup and cup.junk_units == 2


def test_bonus_cards() -> None:
    assert BONUS.bit_count() == len(BONUS_CODES)
    assert BONUS & STANDARD_DECK == 0
    units = {c.code: c.junk_units for c in ALL_CARDS if c.kind is Kind.BONUS}
    assert units == {"B2": 2, "B3": 3, "B2B": 2, "B3B": 3, "B2C": 2}
    assert all(cards.card(code).month == 0 for code in BONUS_CODES)
    assert cards.month_of(cards.index("B3")) == 0


def test_codes_round_trip() -> None:
    for c in ALL_CARDS:
        assert cards.parse(c.code) == c.index
        assert cards.card(c.index).code == c.code
        assert cards.card(c.code) is c
        assert str(c) == c.code
        assert cards.bit(c.code) == c.bit
    everything = cards.mask_of(c.code for c in ALL_CARDS)
    assert cards.codes(everything) == [c.code for c in ALL_CARDS]


@given(st.sets(st.sampled_from([c.code for c in ALL_CARDS])))
def test_masks_round_trip(codes: set[str]) -> None:
    mask = cards.mask_of(codes)
    assert mask.bit_count() == len(codes)
    assert set(cards.codes(mask)) == codes
    assert cards.mask_of(cards.codes(mask)) == mask


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("11d", "11D"),
        ("1g", "01G"),
        ("01g", "01G"),
        (" 9a ", "09A"),
        ("b2", "B2"),
        ("12r", "12R"),
        ("3j1", "03J1"),
        ("b3b", "B3B"),
    ],
)
def test_parse_is_case_insensitive(text: str, code: str) -> None:
    assert cards.parse(text) == cards.CODE_TO_INDEX[code]


@pytest.mark.parametrize("bad", ["13G", "00G", "01X", "", "G1", "1", "01J3", "11", "B4", "xyz"])
def test_bad_code_names_code_and_valid_forms(bad: str) -> None:
    with pytest.raises(CardCodeError) as info:
        cards.parse(bad)
    message = str(info.value)
    assert repr(bad) in message
    assert "01..12" in message and "11D" in message and "B2" in message
    assert isinstance(info.value, ValueError)


def test_bad_code_names_where() -> None:
    with pytest.raises(CardCodeError, match="line 3: unknown card code '13G'"):
        cards.parse("13G", where="line 3")


def test_a_bad_code_error_crosses_processes_whole() -> None:
    """Pickled (as a worker process sends it), the error keeps its code, place and words."""
    with pytest.raises(CardCodeError) as info:
        cards.parse("13G", where="line 3")
    again = pickle.loads(pickle.dumps(info.value))
    assert type(again) is CardCodeError and str(again) == str(info.value)
    assert (again.code, again.where) == ("13G", "line 3")


def test_index_is_strict() -> None:
    assert cards.index("11D") == cards.parse("11d")
    with pytest.raises(CardCodeError):
        cards.index("11d")


@given(st.one_of(st.integers(0, 2**62 - 1), st.integers(-(2**70), 2**70)))
def test_popcount_counts_as_bit_count(mask: int) -> None:
    """The kernel's card count equals int.bit_count for every int (card masks, below 2**62,
    are counted in arithmetic when compiled; any other int by bit_count)."""
    assert cards.popcount(mask) == mask.bit_count()


@pytest.mark.parametrize("mask", [0, 1, 2**53 - 1, 2**61, 2**62 - 1, 2**62, 2**64 - 1, -1])
def test_popcount_at_the_edges(mask: int) -> None:
    assert cards.popcount(mask) == mask.bit_count()
