"""The big services' table rules that the presets do not play: four of a month
dealt to the layout won by the dealer, the September cup fixed as an animal when it is the
only junk to steal, a flipped bonus card buried in a ppuk, a two-card bomb with its own steal
and multiplier. Each is tested through the engine on a hand-built deal, both ways, and where
it changes a payout through the settlement and the audit's alternatives.

Two players, seat 0 deals and plays first unless a test says otherwise."""

from __future__ import annotations

from typing import Any

import pytest
from engine_helpers import Scenario, captures, dues, ended, of_type, ruleset, transfers

from gostop_records import cards as C
from gostop_records import events as E
from gostop_records.engine import Phase, facts_of, legal_actions, settle
from gostop_records.engine import rulebook as RB
from gostop_records.engine.settlement import HandFacts
from gostop_records.engine.table import table_for
from gostop_records.errors import IllegalAction
from gostop_records.rules import PRESETS, LayoutFour, Ruleset

LAYOUT_FOUR_2P = ["03G", "03R", "03J1", "03J2", "01G", "02A", "04A", "06A"]
LAYOUT_2P = ["01G", "02A", "03R", "04J1", "06A", "07R", "08J1", "10A"]


def started(
    rules: Ruleset, hands: list[list[str]], stock: list[str], layout: list[str]
) -> Scenario:
    sc = Scenario(rules)
    sc.deal(hands, layout, stock)
    return sc


# --- four of a month on the layout: the dealer wins (Hangame; A25) -------------------------


@pytest.mark.parametrize("points", [10, 7])
def test_layout_four_won_by_the_dealer(points: int) -> None:
    sc = Scenario(ruleset("matgo", layout_four="dealer_wins", hand_four_points=points), stake=5)
    out = sc.deal([[]] * 2, LAYOUT_FOUR_2P, dealer=1)
    assert of_type(out, E.DealVoided) == []  # the deal stands: it has a winner
    assert ended(out) == E.HandEnded(
        outcome="instant", winner=1, reason="layout_four", carry=1, next_carry=1
    )
    assert dues(out) == [(0, 1, points, points * 5, "layout_four")]
    assert sc.game.next_dealer == 1 and sc.game.ledger() == [-points * 5, points * 5]


@pytest.mark.parametrize(
    ("value", "outcome"), [("redeal", "void"), ("nagari", "nagari"), ("dealer_wins", "instant")]
)
def test_layout_four_each_value(value: str, outcome: str) -> None:
    sc = Scenario(ruleset("matgo", layout_four=value))
    out = sc.deal([[]] * 2, LAYOUT_FOUR_2P, dealer=0)
    end = ended(out)
    assert end is not None and end.outcome == outcome
    assert (end.winner == 0) == (value == "dealer_wins")
    assert RB.words("layout_four", LayoutFour(value), PRESETS["matgo"]).startswith(
        "four of a month on the layout"
    )


def test_layout_four_payment_is_an_instant_of_the_rulebook() -> None:
    assert RB.instant("layout_four") is RB.LAYOUT_FOUR and RB.LAYOUT_FOUR.wins
    rs = ruleset("matgo", layout_four="dealer_wins", hand_four_points=7)
    assert RB.LAYOUT_FOUR.points(rs) == 7
    assert RB.LAYOUT_FOUR.describe(rs)["settings"] == {
        "hand_four_points": 7,
        "layout_four": "dealer_wins",
    }


def test_layout_four_nagari_carry_multiplies_it_only_when_the_ruleset_says() -> None:
    for on, pts in ((True, 20), (False, 10)):
        sc = Scenario(ruleset("matgo", layout_four="dealer_wins", instant_win_multipliers=on))
        sc.game.carry = 2  # after a nagari (test setup: the carry a nagari leaves)
        out = sc.deal([[]] * 2, LAYOUT_FOUR_2P, dealer=0)
        assert dues(out) == [(1, 0, pts, pts, "layout_four")]


# --- the September cup fixed as an animal when it is the only junk (Pmang; A9) ------------

CUP_LAYOUT = ["09A", "01G", "02A", "03R", "04J1", "06A", "07R", "08J1"]


@pytest.mark.parametrize(
    ("fixed", "more", "taken"),
    [
        (False, [], "09A"),  # "always transferable": the cup as junk is stolen
        (True, [], None),  # the only junk: fixed as an animal, nothing handed over
        (True, ["10J1"], "10J1"),  # other junk: that is handed over first
    ],
)
def test_cup_fixed_when_it_is_the_only_junk(fixed: bool, more: list[str], taken: str) -> None:
    rules = ruleset("matgo", cup_fixed_when_alone=fixed)
    sc = started(rules, [["09R"], ["05A"]], ["11G", "05J1"], CUP_LAYOUT)
    if more:
        sc.preload(0, more)
    sc.turn(0, "09R")
    sc.cup(0, "junk")
    out = sc.turn(1, "05A")  # a jjok: one junk from seat 0
    assert transfers(out) == ([(0, 1, taken, "jjok")] if taken else [])
    assert ("09A" in sc.pile(0)) == (taken != "09A")


def test_cup_never_transferable_is_still_its_own_setting() -> None:
    rules = ruleset("matgo", cup_transferable=False, cup_fixed_when_alone=True)
    sc = started(rules, [["09R"], ["05A"]], ["11G", "05J1"], CUP_LAYOUT)
    sc.preload(0, ["10J1"])
    sc.turn(0, "09R")
    sc.cup(0, "junk")
    assert transfers(sc.turn(1, "05A")) == [(0, 1, "10J1", "jjok")]
    assert "09A" in sc.pile(0)


def test_cup_setting_words() -> None:
    rs = PRESETS["matgo"]
    assert "only junk" in RB.words("cup_fixed_when_alone", True, rs)
    assert RB.owner("cup_fixed_when_alone") is RB.CUP


# --- a flipped bonus card buried in a ppuk (p2p B2) ---------------------------------------

PPUK_LAYOUT = ["05R", "01G", "02A", "03R", "04J1", "06A", "07R", "08J1"]


def _buried() -> Scenario:
    rules = ruleset("matgo", bonus_buried_in_ppuk=True)
    sc = started(rules, [["05A", "12A"], ["05J2", "11G"]], ["B2", "05J1", "09A"], PPUK_LAYOUT)
    sc.preload(0, ["10J1", "10J2"])
    sc.preload(1, ["11J1", "11J2"])
    return sc


def test_bonus_flipped_into_a_ppuk_stays_in_the_stack_with_no_steal() -> None:
    sc = _buried()
    sc.play(0, "05A")
    assert sc.flip(0) == []  # held until the turn shows whether a ppuk buries it
    assert sc.hand.phase is Phase.FLIP
    out = sc.flip(0)
    assert of_type(out, E.PpukMade) == [
        E.PpukMade(seat=0, month=5, cards=["05A", "05R", "05J1", "B2"], count=1)
    ]
    assert of_type(out, E.BonusCardTaken) == [] and transfers(out) == []
    h = sc.hand
    assert "B2" not in sc.pile(0) and h.buried[5] and h.card_total() == sc.table.deck_size
    assert next(e for e in h.to_dict()["layout"] if e["month"] == 5)["cards"] == [
        "05A",
        "05R",
        "05J1",
        "B2",
    ]


def test_the_stack_taker_gets_the_buried_bonus_and_its_steal_first() -> None:
    sc = _buried()
    sc.turn(0, "05A")
    sc.flip(0)
    out = sc.turn(1, "05J2")
    assert captures(out)[0] == ("ppuk_taken", ["05A", "05J1", "05J2", "05R", "B2"])
    assert of_type(out, E.BonusCardTaken) == [E.BonusCardTaken(seat=1, card="B2", source="layout")]
    assert transfers(out) == [(0, 1, "10J1", "bonus"), (0, 1, "10J2", "ppuk_taken")]
    assert sc.hand.buried[5] == 0 and "B2" in sc.pile(1)


def test_bonus_flipped_without_a_ppuk_is_taken_as_usual() -> None:
    rules = ruleset("matgo", bonus_buried_in_ppuk=True)
    sc = started(rules, [["05A"], []], ["B2", "11G"], PPUK_LAYOUT)
    sc.preload(1, ["11J1"])
    sc.play(0, "05A")
    assert sc.flip(0) == []
    out = sc.flip(0)
    assert of_type(out, E.BonusCardTaken) == [E.BonusCardTaken(seat=0, card="B2", source="flip")]
    assert transfers(out) == [(1, 0, "11J1", "bonus")]
    assert "B2" in sc.pile(0)


def test_without_the_setting_a_flipped_bonus_is_taken_at_once() -> None:
    sc = started(PRESETS["matgo"], [["05A"], []], ["B2", "05J1"], PPUK_LAYOUT)
    sc.play(0, "05A")
    assert sc.flip(0) == [E.BonusCardTaken(seat=0, card="B2", source="flip")]
    out = sc.flip(0)
    assert of_type(out, E.PpukMade)[0].cards == ["05A", "05R", "05J1"]
    assert "B2" in sc.pile(0)


# --- a two-card bomb with its own steal and multiplier (A11) -------------------------------

BOMB_LAYOUT = ["01G", "01R", "02A", "03R", "04J1", "06A", "07R", "08J1"]


@pytest.mark.parametrize(
    ("steal", "mult", "taken", "factor"),
    [
        (None, None, 1, 2),  # as a three-card bomb: matgo's steal 1 and x2
        (1, 1, 1, 1),  # Hangame: a steal, no multiplier
        (0, 2, 0, 2),  # Pmang: x2, no steal
    ],
)
def test_two_card_bomb(steal: int | None, mult: int | None, taken: int, factor: int) -> None:
    extra: dict[str, Any] = {"two_card_bomb": True}
    if steal is not None:
        extra["two_card_bomb_steal"] = steal
    if mult is not None:
        extra["two_card_bomb_multiplier"] = mult
    sc = started(ruleset("matgo", **extra), [["01J1", "01J2"], []], ["11G"], BOMB_LAYOUT)
    sc.preload(1, ["10J1", "10J2"])
    sc.bomb(0, 1, ["01J1", "01J2"])
    out = sc.flip(0)
    assert captures(out)[0] == ("bomb", ["01G", "01J1", "01J2", "01R"])
    assert len(transfers(out)) == taken
    h = sc.hand
    assert h.bombs[0] == 1 and h.two_bombs[0] == 1 and h.flip_only[0] == 1
    f = facts_of(h, 0)
    assert f.two_bombs == (1, 0)
    bomb = next(x for x in settle(sc.table, f).losers[0].factors if x.rule == "bomb")
    assert bomb.factor == factor and "with two cards" in bomb.condition


def test_a_three_card_bomb_keeps_the_bomb_settings() -> None:
    rules = ruleset("matgo", two_card_bomb=True, two_card_bomb_steal=0, two_card_bomb_multiplier=1)
    t = table_for(rules, 2)
    # one three-card and one two-card bomb: x2 for the first, x1 for the second
    f = HandFacts(0, (0, 0), None, (0, 0), (0, 0), (0, 0), (2, 0), 1, (1, 0))
    bomb = next(x for x in settle(t, f).losers[0].factors if x.rule == "bomb")
    assert bomb.factor == 2
    f3 = HandFacts(0, (0, 0), None, (0, 0), (0, 0), (0, 0), (2, 0), 1)
    assert next(x for x in settle(t, f3).losers[0].factors if x.rule == "bomb").factor == 4
    sc = started(rules, [["01J1", "01J2", "01R"], []], ["11G"], LAYOUT_2P)
    sc.preload(1, ["10J1", "10J2"])
    sc.bomb(0, 1, ["01R", "01J1", "01J2"])
    assert len(transfers(sc.flip(0))) == 1  # bomb_steal, not the two-card steal
    assert sc.hand.two_bombs[0] == 0


def test_two_card_bomb_settings_in_words_and_the_audit() -> None:
    rs = ruleset("matgo", two_card_bomb=True, two_card_bomb_multiplier=1)
    assert RB.words("two_card_bomb_multiplier", 1, rs) == "no multiplier for a two-card bomb"
    assert RB.words("two_card_bomb_multiplier", None, rs).startswith("a two-card bomb")
    assert RB.words("two_card_bomb_steal", 1, rs) == "1 junk per opponent for a two-card bomb"

    class Ctx:
        rules = rs
        players = 2
        stake = 1
        outcome = "stop"
        facts = HandFacts(0, (0, 0), None, (0, 0), (0, 0), (0, 0), (1, 0), 1, (1, 0))
        nagari_streak = 0
        instants = ()
        cup_holder = None

    keys = {(c.key, c.value) for c in RB.BOMB.alternatives(Ctx())}
    assert ("two_card_bomb_multiplier", 2) in keys and ("bomb_multiplier", 1) in keys


# --- four of a month in hand: shown to win, or kept (들고치기); a bonus draw's four (A24) -----

FOUR_05 = ["05A", "05R", "05J1", "05J2"]


def test_a_four_in_hand_must_be_shown_where_it_cannot_be_kept() -> None:
    sc = started(PRESETS["matgo"], [FOUR_05, []], [], LAYOUT_2P)
    assert legal_actions(sc.hand) == [
        E.FourOfAMonthShown(shown=[E.FourShown(seat=0, month=5, cards=FOUR_05)])
    ]
    with pytest.raises(IllegalAction) as exc:
        sc.play(0, "05A")
    assert exc.value.rule == "hand_four_shown"
    out = sc.fours((0, 5))  # declared: the holder wins at once (today's behaviour)
    assert ended(out).reason == "hand_four" and dues(out) == [(1, 0, 10, 10, "hand_four")]


@pytest.mark.parametrize(("mult", "factor"), [(1, 1), (2, 2)])
def test_a_kept_four_is_played_on_and_multiplies_its_holders_win(mult: int, factor: int) -> None:
    rules = ruleset("matgo", hand_four_keep=True, hand_four_kept_multiplier=mult)
    sc = started(rules, [FOUR_05, []], ["11G"], LAYOUT_2P)
    acts = legal_actions(sc.hand)
    assert E.FourOfAMonthShown(shown=[E.FourShown(seat=0, month=5, cards=FOUR_05)]) in acts
    assert any(type(a) is E.CardPlayed and a.seat == 0 for a in acts)  # or play on
    sc.play(0, "05A")  # no show: kept
    h = sc.hand
    assert h.kept_fours == [1, 0] and h.fours_pending == 0
    f = facts_of(h, 0)
    assert f.kept_fours == (1, 0)
    kept = [x for x in settle(sc.table, f).losers[0].factors if x.rule == "hand_four_kept"]
    assert [(x.factor, x.applies) for x in kept] == [(factor, factor > 1)]
    # the seat that did not keep a four gets no such factor
    assert not [
        x for x in settle(sc.table, facts_of(h, 1)).losers[0].factors if x.rule == "hand_four_kept"
    ]


def test_a_kept_four_can_still_be_shown_before_the_first_play() -> None:
    sc = started(ruleset("matgo", hand_four_keep=True), [FOUR_05, []], [], LAYOUT_2P)
    out = sc.fours((0, 5))
    assert ended(out).reason == "hand_four"


BONUS_FOUR_HAND = ["B2", "05A", "05R", "05J1"]


@pytest.mark.parametrize(
    ("value", "first", "pending"),
    [
        ("never", True, False),
        ("first_turn", True, True),
        ("first_turn", False, False),
        ("always", False, True),
    ],
)
def test_a_four_completed_by_a_bonus_draw(value: str, first: bool, pending: bool) -> None:
    rules = ruleset("matgo", bonus_four=value)
    stock = ["05J2"] if first else ["11G", "12A", "05J2"]
    sc = started(rules, [BONUS_FOUR_HAND, ["09R"]], stock, LAYOUT_2P)
    if not first:
        sc.turn(0, _filler(sc))
        sc.turn(1, "09R")
    out = sc.play(0, "B2")
    assert of_type(out, E.BonusCardTaken)[0].replacement == "05J2"
    h = sc.hand
    assert bool(h.fours_pending) == pending
    show = E.FourOfAMonthShown(shown=[E.FourShown(seat=0, month=5, cards=FOUR_05)])
    assert (show in legal_actions(h)) == pending
    if pending:
        with pytest.raises(IllegalAction) as exc:
            sc.play(0, "05A")  # matgo cannot keep it: shown, it wins
        assert exc.value.rule == "hand_four_shown"
        out = sc.input(show)
        assert ended(out).reason == "hand_four" and ended(out).winner == 0
    else:
        with pytest.raises(IllegalAction):
            sc.input(show)


def _filler(sc: Scenario) -> str:
    """A card of seat 0's hand outside month 5 and the bonus card."""
    return next(c for c in C.codes(sc.hand.hands[0]) if c[:2] not in ("05", "B2") and c[0] != "B")


def test_a_bonus_draws_four_kept_where_fours_can_be_kept() -> None:
    rules = ruleset("matgo", bonus_four="always", hand_four_keep=True)
    sc = started(rules, [BONUS_FOUR_HAND, []], ["05J2", "11G"], LAYOUT_2P)
    sc.play(0, "B2")
    sc.play(0, "05A")  # played on: kept
    assert sc.hand.kept_fours[0] == 1


def test_hand_four_settings_words() -> None:
    rs = PRESETS["matgo"]
    assert RB.owner("hand_four_keep") is RB.HAND_FOUR_KEPT
    assert RB.owner("bonus_four") is RB.HAND_FOUR
    assert "kept" in RB.words("hand_four_keep", True, rs)
    assert RB.words("hand_four_kept_multiplier", 2, rs) == "x2 per kept four"
    assert "first turn" in RB.words("bonus_four", "first_turn", rs)


# --- a bonus card's steal at once (p2p B1) -------------------------------------------------


@pytest.mark.parametrize("at_once", [False, True])
def test_bonus_from_the_hand_steals_at_once_or_with_the_turn(at_once: bool) -> None:
    rules = ruleset("matgo", bonus_steal_at_once=at_once)
    sc = started(rules, [["B2", "01J1"], []], ["09A", "11G"], LAYOUT_2P)
    sc.preload(1, ["10J1"])
    out = sc.play(0, "B2")
    assert out[0] == E.BonusCardTaken(seat=0, card="B2", source="hand", replacement="09A")
    assert transfers(out) == ([(1, 0, "10J1", "bonus")] if at_once else [])
    out = sc.turn(0, "01J1")
    assert transfers(out) == ([] if at_once else [(1, 0, "10J1", "bonus")])


def test_the_audit_tries_other_amounts_for_the_new_payments() -> None:
    class Ctx:
        rules = ruleset("matgo", layout_four="dealer_wins", hand_four_keep=True)
        players = 2
        stake = 1
        outcome = "stop"
        facts = HandFacts(0, (0, 0), None, (0, 0), (0, 0), (0, 0), (0, 0), 1, (), (1, 0))
        nagari_streak = 0
        instants = ()
        cup_holder = None

    keys = {(c.key, c.value) for c in RB.alternatives(Ctx())}
    assert ("hand_four_kept_multiplier", 2) in keys

    class Dealt(Ctx):
        outcome = "instant"
        instants = (type("I", (), {"reason": "layout_four"})(),)

    keys = {(c.key, c.value) for c in RB.LAYOUT_FOUR.alternatives(Dealt())}
    assert ("hand_four_points", 5) in keys and ("hand_four_points", 7) in keys


@pytest.mark.parametrize("keep", [False, True])
def test_a_kept_four_may_be_shaken_whole(keep: bool) -> None:
    """Pmang's x4 path: a four kept in hand is shaken with all four cards shown."""
    rules = ruleset("matgo", hand_four_keep=keep)
    sc = started(rules, [["09A"], []], ["11G"], LAYOUT_2P)
    sc.hand.hands[0] |= C.MONTH_MASKS[5]  # test setup: a four of May in a kept hand
    shake = E.Shaken(seat=0, month=5, cards=FOUR_05)
    assert (shake in legal_actions(sc.hand)) == keep
    if not keep:
        with pytest.raises(IllegalAction) as exc:
            sc.input(shake)
        assert exc.value.rule == "shaking"
        return
    sc.input(shake)
    assert sc.hand.shakes[0] == 1
