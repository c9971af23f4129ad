"""Combination scores against the public test vectors of RULES.md 4.3, per preset.

Each vector runs under every preset it holds in (parametrized over the presets); where a
preset's ruleset changes the value (the September cup, bonus cards only in decks that have
them), the test says which preset and why. ``points`` (the fast path) and ``score`` (the
itemised one) must agree everywhere.
"""

from __future__ import annotations

import pytest
from engine_helpers import mask, table, units_pile
from hypothesis import given, settings
from hypothesis import strategies as st

from gostop_records import cards as C
from gostop_records.engine import points, score
from gostop_records.rules import PRESETS

ALL = list(PRESETS)
WITH_BONUS = [name for name, rs in PRESETS.items() if {"B2", "B3"} <= set(rs.bonus_cards)]


def total(preset: str, codes: list[str], cup_role: str | None = None) -> int:
    t = table(preset)
    pile = mask(codes)
    fast = points(t, pile, cup_role)
    full = score(t, pile, cup_role)
    assert fast == full.total == sum(ln.points for ln in full.lines)
    return fast


# --- brights (G27, C5.1, C5.2) ------------------------------------------------------------


@pytest.mark.parametrize("preset", ALL)
@pytest.mark.parametrize(
    ("brights", "want"),
    [
        (["01G", "03G", "08G"], 3),
        (["01G", "03G", "12G"], 2),  # three with the rain bright
        (["01G", "03G", "08G", "12G"], 4),  # four: rain makes no difference
        (["01G", "03G", "08G", "11G", "12G"], 15),
        (["01G", "12G"], 0),
    ],
)
def test_brights(preset: str, brights: list[str], want: int) -> None:
    assert total(preset, brights) == want


def test_three_brights_with_rain_line_names_the_rain_rule() -> None:
    sc = score(table("matgo"), mask(["01G", "03G", "12G"]))
    (line,) = sc.lines
    assert line.combo == "bright" and line.name == "three brights with rain"
    assert line.points == 2 and "rain" in line.detail
    assert sc.bright_points == 2 and sc.brights == 3


# --- animals and godori (G28, C5.3, C5.10) ------------------------------------------------


@pytest.mark.parametrize("preset", ALL)
@pytest.mark.parametrize(
    ("animals", "want"),
    [
        (["05A", "06A", "07A", "10A", "12A"], 1),
        (["02A", "05A", "06A", "07A", "10A", "12A"], 2),
        (["05A", "06A", "07A", "10A"], 0),
        (["02A", "04A", "08A"], 5),  # godori; three animals score nothing as a count
        (["02A", "04A", "05A"], 0),  # not the three birds
        (["02A", "04A", "08A", "05A", "06A"], 6),  # godori 5 + five animals 1 [RL]
    ],
)
def test_animals_and_godori(preset: str, animals: list[str], want: int) -> None:
    assert total(preset, animals) == want


def test_godori_line_lists_the_three_birds_and_no_count_line() -> None:
    sc = score(table("matgo"), mask(["02A", "04A", "08A"]))
    assert [(ln.name, ln.cards, ln.points) for ln in sc.lines] == [
        ("godori", ("02A", "04A", "08A"), 5)
    ]
    assert sc.animals == 3


@pytest.mark.parametrize("preset", ALL)
def test_godori_plus_chodan_is_8(preset: str) -> None:
    assert total(preset, ["02A", "04A", "08A", "04R", "05R", "07R"]) == 8


# --- ribbons and dan sets (G29, C5.4-C5.6) ------------------------------------------------


@pytest.mark.parametrize("preset", ALL)
@pytest.mark.parametrize(
    ("ribbons", "want"),
    [
        (["01R", "04R", "06R", "07R", "12R"], 1),  # the December ribbon counts toward five
        (["01R", "02R", "03R"], 3),  # hongdan
        (["06R", "09R", "10R"], 3),  # cheongdan
        (["04R", "05R", "07R"], 3),  # chodan
        (["04R", "05R", "12R"], 0),  # the rain ribbon makes no chodan
        (["01R", "02R", "03R", "04R", "06R", "12R"], 5),  # hongdan 3 + six ribbons 2
    ],
)
def test_ribbons_and_dan_sets(preset: str, ribbons: list[str], want: int) -> None:
    assert preset in PRESETS and PRESETS[preset].december_ribbon_counts
    assert total(preset, ribbons) == want


def test_december_ribbon_is_in_the_count_line_but_in_no_set() -> None:
    sc = score(table("cardavia"), mask(["01R", "02R", "03R", "04R", "06R", "12R"]))
    names = {ln.name: ln for ln in sc.lines}
    assert set(names) == {"6 ribbons", "hongdan"}
    assert "12R" in names["6 ribbons"].cards
    assert "12R" not in names["hongdan"].cards


# --- junk units (G30, C5.7, C5.8, A1, A2) -------------------------------------------------


@pytest.mark.parametrize("preset", ALL)
@pytest.mark.parametrize(
    ("pile", "units", "want"),
    [
        (units_pile(10), 10, 1),
        (units_pile(9), 9, 0),
        (["11D", *units_pile(7)], 9, 0),  # a double counts 2
        (["11D", *units_pile(8)], 10, 1),  # [TSCZ]
        (["11D", *units_pile(6)], 8, 0),  # [RL]
        (["11D", "12D", *units_pile(6)], 10, 1),  # [RL]: adding 12D makes 10 units
    ],
)
def test_junk_units_with_doubles(preset: str, pile: list[str], units: int, want: int) -> None:
    assert total(preset, pile) == want
    assert score(table(preset), mask(pile)).junk_units == units


@pytest.mark.parametrize("preset", WITH_BONUS)
def test_junk_with_bonus_cards_11_units_is_2(preset: str) -> None:
    """11D + 12D + B2 + B3 + 2 singles = 11 units = 2 [P2P] (decks with bonus cards only)."""
    pile = ["11D", "12D", "B2", "B3", *units_pile(2)]
    assert score(table(preset), mask(pile)).junk_units == 11
    assert total(preset, pile) == 2


def test_two_two_unit_bonus_cards_b3_and_two_doubles_is_2_in_gostop3() -> None:
    """B2, B2, B3, 11D, 12D = 11 units = 2 [P2P]: only gostop3's deck has two 2-unit bonus
    cards (B2 and B2B)."""
    pile = ["B2", "B2B", "B3", "11D", "12D"]
    assert score(table("gostop3"), mask(pile)).junk_units == 11
    assert total("gostop3", pile) == 2


# --- the September cup (C5.9, A9) ---------------------------------------------------------

CUP_AS_JUNK = ["09A", "05A", "06A", "07A", *units_pile(8)]  # cup + 3 animals + 8 singles
CUP_AS_ANIMAL = ["09A", "05A", "06A", "07A", "10A", *units_pile(2)]  # cup + 4 animals + 2
CUP_TIE = ["09A", "02A", "05A", "06A", "07A", "10A", *units_pile(8)]  # 6 animals + 8 units


def test_cardavia_cup_becomes_junk_when_that_scores_more() -> None:
    sc = score(table("cardavia"), mask(CUP_AS_JUNK))
    assert sc.cup_role == "junk"
    assert sc.junk_units == 10 and sc.total == 1
    assert sc.cup_reason == "as junk the pile scores 1, as an animal 0"


def test_cardavia_cup_stays_an_animal_when_that_scores_more() -> None:
    sc = score(table("cardavia"), mask(CUP_AS_ANIMAL))
    assert sc.cup_role == "animal"
    assert sc.animals == 5 and sc.total == 1


def test_cardavia_cup_tie_goes_to_animal() -> None:
    """6 animals + 8 junk units (2) versus 5 animals + 10 units (2): animal wins ties."""
    sc = score(table("cardavia"), mask(CUP_TIE))
    assert sc.cup_role == "animal" and sc.total == 2
    assert sc.cup_reason is not None and "animal wins ties" in sc.cup_reason


def test_cardavia_cup_is_never_a_godori_bird() -> None:
    """Moving the cup to junk never breaks godori: the cup is not one of the three birds."""
    pile = ["09A", "02A", "04A", "08A", *units_pile(8)]
    sc = score(table("cardavia"), mask(pile))
    assert sc.cup_role == "junk"
    assert [ln.name for ln in sc.lines] == ["godori", "junk, 10 units"]
    assert sc.total == 6


def test_cup_under_gamerules_is_always_an_animal() -> None:
    """The general page never gives the cup a dual role (A9): the same pile scores 0."""
    sc = score(table("gamerules"), mask(CUP_AS_JUNK))
    assert sc.cup_role == "animal" and sc.total == 0


@pytest.mark.parametrize("preset", ["matgo", "gostop3"])
def test_cup_under_player_choice_follows_the_recorded_decision(preset: str) -> None:
    """matgo/gostop3: the holder decides; undecided counts as an animal."""
    assert total(preset, CUP_AS_JUNK) == 0
    assert total(preset, CUP_AS_JUNK, "animal") == 0
    assert total(preset, CUP_AS_JUNK, "junk") == 1
    assert score(table(preset), mask(CUP_AS_JUNK), "junk").cup_reason == "the holder chose junk"


# --- sums and itemised lines (C5.10) ------------------------------------------------------


def test_different_combinations_add_up_and_each_line_names_its_cards() -> None:
    pile = ["01G", "03G", "08G", "02A", "04A", "08A", "01R", "02R", "03R", *units_pile(10)]
    sc = score(table("matgo"), mask(pile))
    assert {ln.name: ln.points for ln in sc.lines} == {
        "three brights": 3,
        "godori": 5,
        "hongdan": 3,
        "junk, 10 units": 1,
    }
    assert sc.total == 12
    assert str(sc).startswith("12 points: ")


def test_empty_pile_scores_nothing() -> None:
    sc = score(table("matgo"), 0)
    assert sc.total == 0 and sc.lines == () and str(sc) == "0 points"
    assert C.codes(0) == []


# --- the fast path and the itemised path agree ---------------------------------------------


@settings(max_examples=300, deadline=None)
@given(
    preset=st.sampled_from(ALL),
    bits=st.integers(0, (1 << 53) - 1),
    cup_role=st.sampled_from([None, "animal", "junk"]),
)
def test_fast_points_equal_the_itemised_score(preset: str, bits: int, cup_role: str | None) -> None:
    t = table(preset)
    pile = bits & t.deck
    full = score(t, pile, cup_role)
    assert points(t, pile, cup_role) == full.total == sum(ln.points for ln in full.lines)
