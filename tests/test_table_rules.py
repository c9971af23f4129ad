"""Rules real tables and the big services play beyond the four presets: each a
named setting, tested through the engine on hand-built deals and through the audit where it
changes a payout. Every setting here defaults to the behaviour the presets had before it
existed, so their pinned hashes and every recorded log stay as they were."""

from __future__ import annotations

import pytest
from engine_helpers import Scenario, dues, ended, ruleset

from gostop_records import events as E
from gostop_records.audit import HandContext, explain_amount, settle_under
from gostop_records.audit.context import InstantEvent, carry_of
from gostop_records.engine import rulebook as RB
from gostop_records.engine.settlement import HandFacts
from gostop_records.rules import ADDED_FIELDS, PRESETS, InstantFactor, Ruleset

LAYOUT_2P = ["01G", "02A", "03R", "04J1", "06A", "07R", "08J1", "10A"]
LAYOUT_FOUR_2P = ["03G", "03R", "03J1", "03J2", "01G", "02A", "04A", "06A"]
FOUR_05 = ["05A", "05R", "05J1", "05J2"]


# --- settings added later keep every pinned hash ------------------------------------------


def test_added_fields_at_their_neutral_value_leave_the_pinned_form_and_hash_alone() -> None:
    for rs in PRESETS.values():
        pinned = rs.pinned()
        assert not set(ADDED_FIELDS) & set(pinned)
        # a form pinned before the fields existed reads back as the same rules and hash
        assert Ruleset.from_pinned(pinned) == rs
    changed = ruleset("matgo", hand_four_factors=["nagari_carry"])
    assert changed.pinned()["hand_four_factors"] == ["nagari_carry"]
    assert changed.content_hash != PRESETS["matgo"].content_hash
    assert Ruleset.from_pinned(changed.pinned()) == changed


def test_every_added_field_defaults_to_its_neutral_value() -> None:
    for name, neutral in ADDED_FIELDS.items():
        assert Ruleset.model_fields[name].default == neutral, name


# --- 1. which factors multiply each kind of instant win (A17, A24) ------------------------


def test_the_shorthand_and_the_per_kind_lists() -> None:
    every = frozenset(InstantFactor)
    assert PRESETS["matgo"].instant_factors("hand_four") == frozenset()
    on = ruleset("matgo", instant_win_multipliers=True)
    assert on.instant_factors("hand_four") == every == on.instant_factors("three_ppuk")
    p2p = ruleset(
        "matgo",
        instant_win_multipliers=True,
        hand_four_factors=["nagari_carry"],
        three_ppuk_factors=[],
    )
    assert p2p.instant_factors("hand_four") == {InstantFactor.NAGARI_CARRY}
    assert p2p.instant_factors("three_ppuk") == frozenset()


def _hand_four_after_a_nagari(rs: Ruleset) -> list:
    sc = Scenario(rs, 2)
    sc.deal([[], []], LAYOUT_FOUR_2P, dealer=1)  # four on the layout: a nagari (matgo)
    assert sc.game.carry == 2
    sc.deal([[], FOUR_05], LAYOUT_2P, dealer=1)
    out = sc.fours((1, 5))
    assert ended(out) == E.HandEnded(
        outcome="instant", winner=1, reason="hand_four", carry=2, next_carry=1
    )
    return dues(out)


@pytest.mark.parametrize(
    ("overrides", "points"),
    [
        ({}, 10),  # matgo: instant wins at their base points
        ({"instant_win_multipliers": True}, 20),
        ({"hand_four_factors": ["nagari_carry"]}, 20),  # p2p: the carry multiplies a four
        ({"instant_win_multipliers": True, "hand_four_factors": ["shake", "bomb"]}, 10),
        ({"instant_win_multipliers": True, "three_ppuk_factors": []}, 20),  # other kind
    ],
)
def test_the_carry_multiplies_a_hand_four_by_its_own_setting(overrides: dict, points: int) -> None:
    assert _hand_four_after_a_nagari(ruleset("matgo", **overrides)) == [
        (0, 1, points, points, "hand_four")
    ]


def _three_ppuk_context(rs: Ruleset, shakes: int = 0) -> HandContext:
    facts = HandFacts(0, (0, 0), None, (0, 0), (1, 2), (shakes, 0), (0, 0), carry_of(rs, 1))
    return HandContext(
        1, 2, rs, 1, "instant", 0, facts, 1, (InstantEvent(1, 0, "three_ppuk"),), None
    )


def test_three_ppuk_multiplied_by_its_own_setting_in_the_audit() -> None:
    matgo = PRESETS["matgo"]
    assert settle_under(_three_ppuk_context(matgo)).chips(1, 0) == 7
    carry = ruleset("matgo", three_ppuk_factors=["nagari_carry"])
    assert settle_under(_three_ppuk_context(carry, shakes=1)).chips(1, 0) == 14
    shaken = ruleset("matgo", three_ppuk_factors=["nagari_carry", "shake"])
    assert settle_under(_three_ppuk_context(shaken, shakes=1)).chips(1, 0) == 28
    p2p = ruleset("matgo", instant_win_multipliers=True, three_ppuk_factors=[])
    assert settle_under(_three_ppuk_context(p2p, shakes=1)).chips(1, 0) == 7


def test_the_audit_names_the_per_kind_setting_that_explains_an_amount() -> None:
    """A three ppuk paid 7 x the carry, shakes not counted: only the per-kind list says so
    (the shorthand would multiply the shake too)."""
    ctx = _three_ppuk_context(PRESETS["matgo"], shakes=1)
    found, _more, near = explain_amount(ctx, 1, 0, 14)
    assert found and not near
    first = found[0]
    assert first.changes[0].setting == "three_ppuk_factors"
    assert first.changes[0].value == ["nagari_carry"]
    whole, _, _ = explain_amount(ctx, 1, 0, 28)
    assert whole[0].changes[0].setting == "instant_win_multipliers"


def test_the_per_kind_settings_in_words() -> None:
    rs = PRESETS["matgo"]
    assert RB.words("hand_four_factors", frozenset({InstantFactor.NAGARI_CARRY}), rs) == (
        "four of a month in hand multiplied by the nagari carry"
    )
    assert RB.words("three_ppuk_factors", frozenset(), rs) == "three ppuk paid at its base points"
    assert "as instant_win_multipliers says" in RB.words("hand_four_factors", None, rs)
