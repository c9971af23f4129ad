"""Jackpot hands (대박판, p2p's arcade preset): every hand whose number in the game is a
multiple of ``jackpot_every`` multiplies its payments by ``jackpot_multiplier``; an instant
win too where its kind's factors name ``jackpot``. Through the settlement, the engine, the
audit and the words."""

from __future__ import annotations

import dataclasses

import pytest
from engine_helpers import Scenario, dues, ended, ruleset

from gostop_records import cards as C
from gostop_records.audit import HandContext, explain_amount, settle_under
from gostop_records.engine import rulebook as RB
from gostop_records.engine.settlement import HandFacts, settle
from gostop_records.engine.table import table_for
from gostop_records.rules import PRESETS, InstantFactor, Ruleset

LAYOUT_2P = ["01G", "02A", "03R", "04J1", "06A", "07R", "08J1", "10A"]
LAYOUT_FOUR_2P = ["03G", "03R", "03J1", "03J2", "01G", "02A", "04A", "06A"]
FOUR_05 = ["05A", "05R", "05J1", "05J2"]
# 3 brights without rain (3 points) and nothing else; the loser holds a bright and 8 junk
WINNER = C.mask_of(["01G", "03G", "08G", "02A"])
LOSER = C.mask_of(["11G", "05A", "07J1", "07J2", "10J1", "10J2", "11J1", "11J2", "12D"])


def _facts(hand_no: int) -> HandFacts:
    return HandFacts(0, (WINNER, LOSER), None, (0, 0), (1, 2), (0, 0), (0, 0), hand_no=hand_no)


@pytest.mark.parametrize(("hand_no", "pays"), [(4, 3), (5, 6), (10, 6), (0, 3)])
def test_every_fifth_hand_pays_double(hand_no: int, pays: int) -> None:
    rs = ruleset("matgo", jackpot_every=5, target_2p=3)
    proof = settle(table_for(rs, 2, 1), _facts(hand_no))
    lo = proof.losers[0]
    assert lo.pays_points == pays
    (f,) = [f for f in lo.factors if f.rule == "jackpot"]
    assert f.applies is (pays == 6) and f.setting == "jackpot_multiplier"


def test_no_jackpot_factor_unless_the_ruleset_has_jackpot_hands() -> None:
    for rs in PRESETS.values():
        assert rs.jackpot_every is None
    proof = settle(table_for(ruleset("matgo", target_2p=3), 2, 1), _facts(5))
    assert proof.losers[0].pays_points == 3
    assert "jackpot" not in [f.rule for f in proof.losers[0].factors]
    tripled = ruleset("matgo", jackpot_every=5, jackpot_multiplier=3, target_2p=3)
    assert settle(table_for(tripled, 2, 1), _facts(5)).losers[0].pays_points == 9


def _hand_four_in_hand_two(rs: Ruleset) -> list:
    sc = Scenario(rs, 2)
    sc.deal([[], []], LAYOUT_FOUR_2P, dealer=1)  # four on the layout: a nagari (matgo)
    sc.deal([[], FOUR_05], LAYOUT_2P, dealer=1)
    out = sc.fours((1, 5))
    assert sc.hand.hand_no == 2 and ended(out).reason == "hand_four"
    return dues(out)


@pytest.mark.parametrize(
    ("factors", "points"),
    [(None, 10), (["jackpot"], 20), (["nagari_carry", "jackpot"], 40), (["nagari_carry"], 20)],
)
def test_an_instant_win_in_a_jackpot_hand_by_its_kinds_factors(
    factors: list | None, points: int
) -> None:
    rs = ruleset("matgo", jackpot_every=2, hand_four_factors=factors)
    assert _hand_four_in_hand_two(rs) == [(0, 1, points, points, "hand_four")]


def test_the_shorthand_takes_the_jackpot_too() -> None:
    on = ruleset("matgo", instant_win_multipliers=True, jackpot_every=2)
    assert InstantFactor.JACKPOT in on.instant_factors("three_ppuk")
    assert RB.INSTANT_WIN_MULTIPLIERS.points(on, 7, 1, 0, 0, "three_ppuk", 4) == 14
    assert RB.INSTANT_WIN_MULTIPLIERS.points(on, 7, 1, 0, 0, "three_ppuk", 3) == 7


def test_the_audit_names_a_jackpot_hand() -> None:
    rs = ruleset("matgo", target_2p=3)
    facts = _facts(5)
    ctx = HandContext(5, 2, rs, 1, "stop", 0, facts, 0, (), None)
    assert settle_under(ctx).chips(1, 0) == 3
    found, _more, _near = explain_amount(ctx, 1, 0, 6)
    assert any(ch.setting == "jackpot_every" and ch.value == 5 for f in found for ch in f.changes)
    on = ruleset("matgo", target_2p=3, jackpot_every=5)
    ctx = dataclasses.replace(ctx, rules=on)
    assert settle_under(ctx).chips(1, 0) == 6
    found, _more, _near = explain_amount(ctx, 1, 0, 3)
    changes = [(ch.setting, ch.value) for f in found for ch in f.changes]
    assert ("jackpot_every", None) in changes


def test_jackpot_in_words() -> None:
    rs = ruleset("matgo", jackpot_every=5)
    assert RB.words("jackpot_every", 5, rs) == "a jackpot hand (x2) every 5 hands"
    assert RB.words("jackpot_every", None, rs) == "no jackpot hands"
    assert RB.words("jackpot_multiplier", 3, rs) == "x3 in a jackpot hand"
    assert RB.JACKPOT.absent(PRESETS["matgo"]) == "jackpot hands (jackpot_every = none)"
