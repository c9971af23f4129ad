"""Hudang (허당, p2p E14, Hangame's old matgo): a seat that takes no card on
``hudang_turns`` of its turns in a row wins the hand at once for ``hudang_points``, multiplied
as ``hudang_factors`` says. Hand-built deals through the engine, the audit and the words.

Two players, seat 0 deals and plays first; the layout holds one card of each of the months
1, 2, 3, 4, 6, 7, 8 and 10 (5, 9, 11 and 12 are absent)."""

from __future__ import annotations

import pytest
from engine_helpers import Scenario, dues, ended, ruleset, transfers

from gostop_records import events as E
from gostop_records.audit import HandContext, explain_amount, settle_under
from gostop_records.audit.context import InstantEvent, carry_of
from gostop_records.engine import Phase
from gostop_records.engine import rulebook as RB
from gostop_records.engine.settlement import HandFacts
from gostop_records.rules import PRESETS, Ruleset

LAYOUT = ["01G", "02A", "03R", "04J1", "06A", "07R", "08J1", "10A"]


def _two_idle_turns(rs: Ruleset, second: str = "09A") -> tuple[Scenario, list]:
    """Seat 0 plays 05A and flips 12G (nothing taken), seat 1 takes two pairs, then seat 0
    plays ``second`` and flips 11G."""
    sc = Scenario(rs, 2)
    sc.deal([["05A", second], ["01J1", "06J1"]], LAYOUT, ["12G", "03J1", "11G"])
    out = sc.turn(0, "05A") + sc.turn(1, "01J1")
    assert sc.hand.idle_turns == [1, 0]
    return sc, out + sc.turn(0, second)


def test_turns_in_a_row_without_a_card_win_the_hand() -> None:
    sc, out = _two_idle_turns(ruleset("matgo", hudang_turns=2))
    assert ended(out) == E.HandEnded(outcome="instant", winner=0, reason="hudang")
    assert dues(out) == [(1, 0, 7, 7, "hudang")]
    assert sc.hand.phase is Phase.ENDED and sc.game.ledger() == [7, -7]


def test_no_hudang_unless_the_ruleset_plays_it() -> None:
    for rs in PRESETS.values():
        assert rs.hudang_turns is None
    sc, out = _two_idle_turns(ruleset("matgo"))
    assert ended(out) is None and sc.hand.idle_turns == [2, 0]
    sc, out = _two_idle_turns(ruleset("matgo", hudang_turns=3))
    assert ended(out) is None and sc.hand.phase is Phase.PLAY


def test_a_card_taken_starts_the_count_again() -> None:
    sc, out = _two_idle_turns(ruleset("matgo", hudang_turns=2), second="02J1")
    assert ended(out) is None and sc.hand.idle_turns == [0, 0]


def test_a_bonus_card_played_from_the_hand_is_a_card_taken() -> None:
    """The bonus goes to the pile (and steals): the turn took a card, though its play and
    flip take nothing from the layout."""
    rs = ruleset("matgo", hudang_turns=2, bonus_cards=["B2"])
    sc = Scenario(rs, 2)
    sc.deal([["05A", "B2"], ["01J1", "06J1"]], LAYOUT, ["12G", "03J1", "11G", "09A"])
    sc.turn(0, "05A")
    sc.turn(1, "01J1")
    out = sc.play(0, "B2") + sc.turn(0, "11G")  # 11G: the bonus card's replacement
    assert ended(out) is None and sc.hand.idle_turns[0] == 0
    assert transfers(out) == [(1, 0, "01J1", "bonus")]


def test_a_bonus_card_buried_in_a_ppuk_is_no_card_taken() -> None:
    """p2p B2: a flipped bonus stays in the ppuk the turn makes, so that turn took nothing."""
    rs = ruleset("matgo", hudang_turns=2, bonus_cards=["B2"], bonus_buried_in_ppuk=True)
    sc = Scenario(rs, 2)
    sc.deal([["01J1", "09A"], ["02J1", "06J1"]], LAYOUT, ["B2", "01J2", "03J1", "11G"])
    out = sc.turn(0, "01J1") + sc.flip(0)  # B2 held, then 01J2: a ppuk
    assert [e.count for e in out if type(e) is E.PpukMade] == [1]
    assert sc.hand.idle_turns[0] == 1 and "B2" not in sc.pile(0)
    out = sc.turn(1, "02J1") + sc.turn(0, "09A")
    assert ended(out) == E.HandEnded(outcome="instant", winner=0, reason="hudang")


@pytest.mark.parametrize(
    ("factors", "points"), [(None, 7), (["nagari_carry"], 14), ([], 7), (["shake"], 7)]
)
def test_the_carry_multiplies_hudang_by_its_own_setting(factors: list | None, points: int) -> None:
    rs = ruleset("matgo", hudang_turns=2, hudang_factors=factors)
    assert RB.INSTANT_WIN_MULTIPLIERS.points(rs, 7, 2, 0, 0, "hudang") == points


def _hudang_context(rs: Ruleset) -> HandContext:
    facts = HandFacts(0, (0, 0), None, (0, 0), (1, 2), (0, 0), (0, 0), carry_of(rs, 1))
    return HandContext(1, 2, rs, 1, "instant", 0, facts, 1, (InstantEvent(1, 0, "hudang"),), None)


def test_the_audit_settles_and_explains_a_hudang_payment() -> None:
    rs = ruleset("matgo", hudang_turns=5)
    assert settle_under(_hudang_context(rs)).chips(1, 0) == 7
    carry = ruleset("matgo", hudang_turns=5, hudang_factors=["nagari_carry"])
    assert settle_under(_hudang_context(carry)).chips(1, 0) == 14
    found, _more, _near = explain_amount(_hudang_context(rs), 1, 0, 10)
    assert found and found[0].changes[0].setting == "hudang_points"
    assert found[0].changes[0].value == 10


def test_hudang_in_words() -> None:
    rs = ruleset("matgo", hudang_turns=5)
    assert RB.words("hudang_turns", 5, rs) == (
        "hudang: 5 turns in a row without taking a card win the hand"
    )
    assert RB.words("hudang_turns", None, rs) == "no hudang"
    assert RB.words("hudang_points", 7, rs) == "7 points for hudang"
    assert RB.words("hudang_factors", frozenset(), rs) == "hudang paid at its base points"
    assert RB.HUDANG.absent(PRESETS["matgo"]) == "hudang (hudang_turns = none)"
