"""Turns and their specials, each as a hand-built scenario with its exact state and payout:
pairs and choices, ppuk (and taking it), ja-ppuk, ttadak, jjok, sseul (both definitions),
several steals in one turn, three ppuk, shakes, bombs, jokers and bonus cards, the September
cup, the last-turn exceptions and hidden hands.

Unless a test says otherwise: two players, seat 0 deals and plays first, and the layout
holds one card of each of the months 1, 2, 3, 4, 6, 7, 8 and 10 (5, 9, 11, 12 are absent).
"""

from __future__ import annotations

import pytest
from engine_helpers import (
    Scenario,
    captures,
    dues,
    ended,
    of_type,
    small_deal,
    transfers,
)

from gostop_records import cards as C
from gostop_records import events as E
from gostop_records.engine import Phase, facts_of, legal_actions, settle
from gostop_records.errors import IllegalAction

LAYOUT = ["01G", "02A", "03R", "04J1", "06A", "07R", "08J1", "10A"]
TWO_P = ["cardavia", "gamerules", "matgo"]


def started(
    preset: str,
    hands: list[list[str]],
    stock: list[str],
    layout: list[str] = LAYOUT,
    stake: int = 1,
) -> Scenario:
    sc = Scenario(preset, stake=stake)
    sc.deal(hands, layout, stock)
    return sc


# --- pairs and choices (G13, G14, A5) -----------------------------------------------------


def test_pairs_by_hand_and_by_flip() -> None:
    sc = started("matgo", [["01J1"], []], ["02J1"])
    assert sc.play(0, "01J1") == []  # captures wait for the flip (C3.4)
    assert sc.hand.phase is Phase.FLIP
    out = sc.flip(0)
    assert out == [
        E.CardsCaptured(seat=0, cards=["01G", "01J1"], source="hand", kind="pair"),
        E.CardsCaptured(seat=0, cards=["02A", "02J1"], source="flip", kind="pair"),
    ]
    assert sc.pile(0) == ["01G", "01J1", "02A", "02J1"]
    assert sc.hand.phase is Phase.PLAY and sc.hand.turn_seat == 1
    assert sc.hand.card_total() == 50


def test_unmatched_cards_stay_on_the_layout() -> None:
    sc = started("matgo", [["05A"], []], ["09A"])
    assert sc.turn(0, "05A") == []
    assert {"05A", "09A"} <= set(sc.layout())
    assert sc.pile(0) == []


def test_choice_between_two_layout_cards_is_required_and_recorded() -> None:
    layout = ["01G", "01R", "02A", "03R", "04J1", "06A", "07R", "08J1"]
    sc = started("matgo", [["01J1"], []], ["05A"], layout)
    with pytest.raises(IllegalAction) as exc:
        sc.play(0, "01J1")
    assert exc.value.rule == "choice_required"
    with pytest.raises(IllegalAction) as exc:
        sc.play(0, "01J1", chosen="02A")
    assert exc.value.rule == "choice_required"
    plays = [a for a in legal_actions(sc.hand) if type(a) is E.CardPlayed and a.card == "01J1"]
    assert [a.chosen for a in plays] == ["01G", "01R"]
    sc.play(0, "01J1", chosen="01R")
    out = sc.flip(0)
    assert captures(out) == [("pair", ["01J1", "01R"])]
    assert "01G" in sc.layout()


def test_two_equal_junk_need_no_choice() -> None:
    layout = ["01J1", "01J2", "02A", "03R", "04J1", "06A", "07R", "08J1"]
    sc = started("matgo", [["01G"], []], ["05A"], layout)
    sc.play(0, "01G")
    assert captures(sc.flip(0)) == [("pair", ["01G", "01J1"])]


def test_a_card_not_in_hand_and_the_wrong_stock_card_are_refused() -> None:
    sc = started("matgo", [["01J1"], ["05A"]], ["02J1"])
    with pytest.raises(IllegalAction) as exc:
        sc.play(0, "05A")
    assert exc.value.rule == "card_in_hand"
    assert "seat 1's hand" in exc.value.reason
    with pytest.raises(IllegalAction) as exc:
        sc.play(1, "05A")
    assert exc.value.rule == "turn_order"
    sc.play(0, "01J1")
    with pytest.raises(IllegalAction) as exc:
        sc.flip(0, "09A")
    assert exc.value.rule == "flip_is_stock_top"
    assert exc.value.reason == "the next stock card is 02J1, not 09A"


# --- ppuk, taking it, ja-ppuk (G14, G17.4, G18, C4.2, A4, A8, A10) ------------------------


def test_ppuk_leaves_three_on_the_layout_with_its_owner() -> None:
    sc = started("cardavia", [["03G"], []], ["03J1"])
    out = sc.turn(0, "03G")
    assert out == [E.PpukMade(seat=0, month=3, cards=["03G", "03R", "03J1"], count=1)]
    h = sc.hand
    assert h.layout & C.MONTH_MASKS[3] == C.mask_of(["03G", "03R", "03J1"])
    assert h.owner[3] == 0 and h.ppuk_count[0] == 1
    assert sc.pile(0) == []
    layout = sc.hand.to_dict()["layout"]
    assert {"month": 3, "cards": ["03G", "03R", "03J1"], "stack": True, "ppuk_owner": 0} in layout
    assert "03: [03G 03R 03J1] ppuk:seat0" in str(sc.hand)
    assert dues(out) == []  # CARDAVIA C4.5: no first-turn ppuk payment


@pytest.mark.parametrize(("preset", "points"), [("matgo", 7), ("gamerules", None)])
def test_first_turn_ppuk_payment(preset: str, points: int | None) -> None:
    """Hangame: a ppuk on one's first turn is paid at once, outside the score: 7 points,
    700 chips at 100 per point [P2P E4]. The general page has no such payment."""
    sc = started(preset, [["03G"], []], ["03J1"], stake=100)
    out = sc.turn(0, "03G")
    want = [] if points is None else [(1, 0, points, points * 100, "first_ppuk")]
    assert dues(out) == want
    assert sc.game.ledger() == ([0, 0] if points is None else [700, -700])


def test_matgo_second_consecutive_ppuk_pays_14_and_a_late_first_one_nothing() -> None:
    sc = started("matgo", [["03G", "06R"], ["06J2", "12A"]], ["03J1", "11G", "06J1"])
    assert dues(sc.turn(0, "03G")) == [(1, 0, 7, 7, "first_ppuk")]
    sc.turn(1, "12A")
    assert dues(sc.turn(0, "06R")) == [(1, 0, 14, 14, "first_ppuk")]
    # seat 1's ppuk on its 2nd turn, without one on its 1st, pays nothing
    sc2 = started("matgo", [["05A", "06R"], ["12A", "10R"]], ["11G", "09A", "05J1", "10J1"])
    sc2.turn(0, "05A")
    sc2.turn(1, "12A")
    sc2.turn(0, "06R")
    out = sc2.turn(1, "10R")
    assert of_type(out, E.PpukMade) and dues(out) == []


def test_ppuk_taken_by_another_player_takes_four_and_one_junk() -> None:
    sc = started("matgo", [["03G"], ["03J2"]], ["03J1", "12A"])
    sc.preload(0, ["11J1", "11D"])
    sc.turn(0, "03G")
    out = sc.turn(1, "03J2")
    assert captures(out) == [("ppuk_taken", ["03G", "03J1", "03J2", "03R"])]
    assert transfers(out) == [(0, 1, "11J1", "ppuk_taken")]  # least valuable first
    assert sc.hand.owner[3] == -1
    assert sc.pile(0) == ["11D"]


def test_taking_a_ppuk_from_a_player_without_junk_takes_nothing() -> None:
    sc = started("matgo", [["03G"], ["03J2"]], ["03J1", "12A"])
    sc.turn(0, "03G")
    out = sc.turn(1, "03J2")
    assert captures(out) == [("ppuk_taken", ["03G", "03J1", "03J2", "03R"])]
    assert transfers(out) == []
    assert sc.pile(0) == []


def _ja_ppuk(preset: str, loser_junk: list[str]) -> list[tuple[int, int, str, str]]:
    sc = started(preset, [["03G", "03J2"], ["12A"]], ["03J1", "11G", "05A"])
    sc.preload(1, loser_junk)
    sc.turn(0, "03G")
    sc.turn(1, "12A")
    out = sc.turn(0, "03J2")
    assert captures(out) == [("own_ppuk", ["03G", "03J1", "03J2", "03R"])]
    assert sc.hand.ppuk_count[0] == 1
    return transfers(out)


@pytest.mark.parametrize("preset", TWO_P)
def test_ja_ppuk_takes_two_junk(preset: str) -> None:
    assert _ja_ppuk(preset, ["09J1", "09J2", "11D"]) == [
        (1, 0, "09J1", "own_ppuk"),
        (1, 0, "09J2", "own_ppuk"),
    ]


@pytest.mark.parametrize(
    ("preset", "taken"),
    [
        ("matgo", ["11D"]),  # A8: a double taken first is the whole 2-unit payment
        ("cardavia", ["11D"]),  # C4.2: "one double-junk card may pay the two units"
        ("gamerules", ["11D", "12D"]),  # G18 counts cards: "takes 2 junk"
    ],
)
def test_ja_ppuk_paid_with_a_double(preset: str, taken: list[str]) -> None:
    assert [t[2] for t in _ja_ppuk(preset, ["11D", "12D"])] == taken


def test_units_steal_may_overshoot_with_a_double() -> None:
    """A8: least valuable first until the units are met; a double may overshoot by one."""
    assert [t[2] for t in _ja_ppuk("matgo", ["09J1", "12D"])] == ["09J1", "12D"]


def test_taking_a_stack_dealt_to_the_layout_takes_one_junk() -> None:
    layout = ["07R", "07J1", "07J2", "01G", "02A", "03R", "04J1", "06A"]
    sc = started("matgo", [["07A"], []], ["05A"], layout)
    sc.preload(1, ["09J1"])
    assert sc.hand.owner[7] == -1
    out = sc.turn(0, "07A")
    assert captures(out) == [("stack", ["07A", "07J1", "07J2", "07R"])]
    assert transfers(out) == [(1, 0, "09J1", "stack")]


# --- ttadak, jjok (G17.2, G17.3, C3.5, C3.6) ----------------------------------------------

TTADAK_LAYOUT = ["01G", "01R", "02A", "03R", "04J1", "06A", "07R", "08J1"]


@pytest.mark.parametrize("preset", TWO_P)
def test_ttadak_takes_all_four_and_one_junk(preset: str) -> None:
    sc = started(preset, [["01J1"], []], ["01J2"], TTADAK_LAYOUT)
    sc.preload(1, ["09J1", "11D"])
    sc.play(0, "01J1", chosen="01G")  # the pick is recorded even though the ttadak moots it
    out = sc.flip(0)
    assert out[0] == E.CardsCaptured(
        seat=0, cards=["01G", "01R", "01J1", "01J2"], source="hand_and_flip", kind="ttadak"
    )
    assert transfers(out) == [(1, 0, "09J1", "ttadak")]
    assert sc.pile(0) == ["01G", "01R", "01J1", "01J2", "09J1"]


@pytest.mark.parametrize("preset", TWO_P)
def test_jjok_takes_the_card_just_played_and_one_junk(preset: str) -> None:
    sc = started(preset, [["05A"], []], ["05J1"])
    sc.preload(1, ["09J1"])
    out = sc.turn(0, "05A")
    assert out[0] == E.CardsCaptured(
        seat=0, cards=["05A", "05J1"], source="hand_and_flip", kind="jjok"
    )
    assert transfers(out) == [(1, 0, "09J1", "jjok")]


# --- sseul, both definitions (G17.1, C4.1, A6) and several steals in one turn (A7) --------


@pytest.mark.parametrize("preset", TWO_P)
def test_sseul_two_cards_of_different_months_taken(preset: str) -> None:
    """Layout of exactly two cards of different months, both taken, floor empty: a sweep
    under both definitions (two_cards: cardavia, gamerules; floor_empty: matgo)."""
    sc = Scenario(small_deal(preset, hand=3, layout=2))
    sc.deal([["01J1"], []], ["01G", "02A"], ["02J1"])
    sc.preload(1, ["09J1", "09J2"])
    out = sc.turn(0, "01J1")
    assert captures(out) == [("pair", ["01G", "01J1"]), ("pair", ["02A", "02J1"])]
    assert transfers(out) == [(1, 0, "09J1", "sseul")]
    assert sc.layout() == []


@pytest.mark.parametrize(
    ("preset", "reasons"),
    [
        ("matgo", ["ttadak", "sseul"]),  # floor_empty: the ttadak also empties the floor
        ("cardavia", ["ttadak"]),  # two_cards: the two were of one month, no sseul
        ("gamerules", ["ttadak"]),
    ],
)
def test_ttadak_that_empties_the_floor(preset: str, reasons: list[str]) -> None:
    """A7: each special steals separately, in the order they happened."""
    sc = Scenario(small_deal(preset, hand=3, layout=2))
    sc.deal([["01J1"], []], ["01G", "01R"], ["01J2"])
    sc.preload(1, ["09J1", "09J2"])
    out = sc.turn(0, "01J1", chosen="01G")
    assert captures(out) == [("ttadak", ["01G", "01J1", "01J2", "01R"])]
    assert [t[3] for t in transfers(out)] == reasons
    assert [t[2] for t in transfers(out)] == ["09J1", "09J2"][: len(reasons)]


def test_several_steals_from_two_opponents_go_reason_by_reason() -> None:
    """gostop3: a ttadak that empties the floor steals from each opponent for each special,
    opponents in turn order."""
    sc = Scenario(small_deal("gostop3", hand=3, layout=2, players=3), 3)
    sc.deal([["01J1"], [], []], ["01G", "01R"], ["01J2"])
    sc.preload(1, ["09J1", "09J2"])
    sc.preload(2, ["10J1", "11D"])
    out = sc.turn(0, "01J1", chosen="01G")
    assert transfers(out) == [
        (1, 0, "09J1", "ttadak"),
        (2, 0, "10J1", "ttadak"),
        (1, 0, "09J2", "sseul"),
        (2, 0, "11D", "sseul"),
    ]


def test_bonus_flip_and_stack_in_one_turn_steal_twice() -> None:
    """matgo: the bonus card is taken at once when flipped; the stack is taken when the turn
    resolves. One transfer per special, the bonus first."""
    layout = ["07R", "07J1", "07J2", "01G", "02A", "03R", "04J1", "06A"]
    sc = started("matgo", [["07A"], []], ["B2", "05A"], layout)
    sc.preload(1, ["09J1", "09J2"])
    sc.play(0, "07A")
    out = sc.flip(0)
    assert out == [E.BonusCardTaken(seat=0, card="B2", source="flip")]
    assert sc.hand.phase is Phase.FLIP  # flip again
    out = sc.flip(0)
    assert captures(out) == [("stack", ["07A", "07J1", "07J2", "07R"])]
    assert transfers(out) == [(1, 0, "09J1", "bonus"), (1, 0, "09J2", "stack")]
    assert "05A" in sc.layout() and "B2" in sc.pile(0)


# --- three ppuk (C4.4, A24) ---------------------------------------------------------------

THREE_PPUK_HANDS = [["03G", "06R", "08A"], ["12A", "09A"]]
THREE_PPUK_STOCK = ["03J1", "11G", "06J1", "05A", "08J2"]


def _three_ppuk(preset: str) -> tuple[Scenario, list]:
    sc = started(preset, THREE_PPUK_HANDS, THREE_PPUK_STOCK)
    out = sc.turn(0, "03G") + sc.turn(1, "12A") + sc.turn(0, "06R") + sc.turn(1, "09A")
    return sc, out + sc.turn(0, "08A")


@pytest.mark.parametrize(("preset", "points"), [("cardavia", 5), ("matgo", 7)])
def test_three_ppuk_is_an_instant_win(preset: str, points: int) -> None:
    sc, out = _three_ppuk(preset)
    assert [p.count for p in of_type(out, E.PpukMade)] == [1, 2, 3]
    assert ended(out) == E.HandEnded(outcome="instant", winner=0, reason="three_ppuk")
    assert dues(out)[-1] == (1, 0, points, points, "three_ppuk")
    assert sc.hand.phase is Phase.ENDED


def test_matgo_three_consecutive_ppuk_pays_49() -> None:
    """[KFC-H] 7 + 14 + 21 for ppuk on the first three turns, then 7 for three ppuk."""
    sc, out = _three_ppuk("matgo")
    assert [d[2] for d in dues(out)] == [7, 14, 21, 7]
    assert sum(d[3] for d in sc.game.results[-1].dues) == 49
    assert sc.game.ledger() == [49, -49]


def test_gamerules_has_no_three_ppuk_win() -> None:
    sc, out = _three_ppuk("gamerules")
    assert ended(out) is None and dues(out) == []
    assert sc.hand.ppuk_count[0] == 3 and sc.hand.phase is Phase.PLAY


def test_gostop3_three_ppuk_both_opponents_pay() -> None:
    layout = ["01G", "02A", "03R", "04J1", "06A", "08J1"]
    sc = Scenario("gostop3", 3)
    sc.deal(
        [["03G", "06R", "08A"], ["12A", "05A"], ["10A", "07A"]],
        layout,
        ["03J1", "11G", "09A", "06J1", "11D", "12G", "08J2"],
    )
    out = []
    for seat, card in [
        (0, "03G"),
        (1, "12A"),
        (2, "10A"),
        (0, "06R"),
        (1, "05A"),
        (2, "07A"),
        (0, "08A"),
    ]:
        out += sc.turn(seat, card)
    # 3-player first-ppuk amounts (3, 6, 12) from each opponent, then 7 each for three ppuk
    assert [(d[0], d[2], d[4]) for d in dues(out)] == [
        (1, 3, "first_ppuk"),
        (2, 3, "first_ppuk"),
        (1, 6, "first_ppuk"),
        (2, 6, "first_ppuk"),
        (1, 12, "first_ppuk"),
        (2, 12, "first_ppuk"),
        (1, 7, "three_ppuk"),
        (2, 7, "three_ppuk"),
    ]


# --- shaking (G10, G33, A26) --------------------------------------------------------------


def test_gamerules_shake_before_turn_needs_no_layout_condition_and_forbids_the_bomb() -> None:
    sc = started("gamerules", [["01R", "01J1", "01J2", "09A"], []], ["05A"])
    assert "01G" in sc.layout()  # the fourth is face up: a bomb would be possible
    assert sc.shake(0, 1, ["01R", "01J1", "01J2"]) == []
    assert sc.hand.shakes[0] == 1
    with pytest.raises(IllegalAction) as exc:
        sc.bomb(0, 1, ["01R", "01J1", "01J2"])
    assert exc.value.rule == "shaken_month_cannot_bomb"  # G19: declared triples do not bomb
    assert not [a for a in legal_actions(sc.hand) if type(a) is E.BombPlayed and a.month == 1]
    sc.turn(0, "09A")  # any card may follow the shake
    f = facts_of(sc.hand, 0)
    shake = next(x for x in settle(sc.table, f).losers[0].factors if x.rule == "shake")
    assert shake.applies and shake.factor == 2


def test_matgo_shake_on_play_month_absent_then_one_of_the_three() -> None:
    sc = started("matgo", [["05A", "05R", "05J1", "01J1"], []], ["09A"])
    sc.shake(0, 5, ["05A", "05R", "05J1"])
    with pytest.raises(IllegalAction) as exc:
        sc.play(0, "01J1")
    assert exc.value.rule == "shaking"
    assert {a.card for a in legal_actions(sc.hand)} == {"05A", "05R", "05J1"}
    sc.turn(0, "05R")
    assert sc.hand.shakes[0] == 1 and sc.hand.shaken_months[0] == 1 << 5


def test_matgo_shake_refused_when_the_month_is_on_the_layout() -> None:
    sc = started("matgo", [["01R", "01J1", "01J2"], []], ["09A"])
    with pytest.raises(IllegalAction) as exc:
        sc.shake(0, 1, ["01R", "01J1", "01J2"])
    assert exc.value.rule == "shake_month_absent"


def test_cardavia_has_no_shaking() -> None:
    sc = started("cardavia", [["05A", "05R", "05J1"], []], ["09A"])
    with pytest.raises(IllegalAction) as exc:
        sc.shake(0, 5, ["05A", "05R", "05J1"])
    assert exc.value.rule == "shaking"


# --- bombs (G19-G21, A11, A28) ------------------------------------------------------------


@pytest.mark.parametrize(("preset", "steal", "factor"), [("matgo", 1, 2), ("gamerules", 0, 1)])
def test_bomb_and_its_two_flip_only_turns(preset: str, steal: int, factor: int) -> None:
    sc = started(
        preset,
        [["01R", "01J1", "01J2"], ["12A", "11G", "09R"]],
        ["05A", "11J1", "10R", "09J1", "09J2"],
    )
    sc.preload(1, ["10J1", "10J2"])
    sc.bomb(0, 1, ["01R", "01J1", "01J2"])
    out = sc.flip(0)
    assert captures(out) == [("bomb", ["01G", "01J1", "01J2", "01R"])]
    assert transfers(out) == [(1, 0, "10J1", "bomb")][:steal]
    h = sc.hand
    assert h.bombs[0] == 1 and h.flip_only[0] == 2
    assert h.hand_count(0) == 7 and h.turns_left(0) == 9  # as many turns as before
    sc.turn(1, "12A")
    assert E.FlipOnlyPlayed(seat=0) in legal_actions(sc.hand)
    out = sc.flip_only(0)
    assert captures(out) == [("pair", ["10A", "10R"])]
    assert sc.hand.flip_only[0] == 1 and sc.hand.hand_count(0) == 7
    sc.turn(1, "11G")
    sc.flip_only(0)
    assert sc.hand.flip_only[0] == 0
    assert sc.hand.hand_count(0) == 7 == sc.hand.turns_left(0)
    with pytest.raises(IllegalAction) as exc:
        sc.input(E.FlipOnlyPlayed(seat=1))  # flip-only turns follow one's own bomb only
    assert exc.value.rule == "flip_only"
    bomb = next(
        x for x in settle(sc.table, facts_of(sc.hand, 0)).losers[0].factors if x.rule == "bomb"
    )
    assert bomb.factor == factor and bomb.applies == (factor > 1)


def test_bomb_needs_the_fourth_card_face_up() -> None:
    sc = started("matgo", [["05A", "05R", "05J1"], []], ["09A"])
    with pytest.raises(IllegalAction) as exc:
        sc.bomb(0, 5, ["05A", "05R", "05J1"])
    assert exc.value.rule == "bombs"


def test_cardavia_has_no_bombs() -> None:
    sc = started("cardavia", [["01R", "01J1", "01J2"], []], ["09A"])
    with pytest.raises(IllegalAction) as exc:
        sc.bomb(0, 1, ["01R", "01J1", "01J2"])
    assert exc.value.rule == "bombs"
    # C4.5: the triple is played one card at a time
    assert captures(sc.turn(0, "01R")) == [("pair", ["01G", "01R"])]


# --- jokers and bonus cards (G22, A27) ----------------------------------------------------


def test_gamerules_joker_flip_in_place() -> None:
    """G22: the joker goes to the pile, then a stock card is turned to play in its place,
    then the normal flip; no steal (the page names none)."""
    sc = started("gamerules", [["B2"], []], ["03J1", "04J2"])
    sc.preload(1, ["09J1"])
    out = sc.play(0, "B2")
    assert out == [E.BonusCardTaken(seat=0, card="B2", source="hand")]
    assert sc.hand.phase is Phase.FLIP_AS_PLAY
    assert sc.flip(0) == []  # 03J1 played in place of the joker
    assert sc.hand.phase is Phase.FLIP
    out = sc.flip(0)
    assert captures(out) == [("pair", ["03J1", "03R"]), ("pair", ["04J1", "04J2"])]
    assert transfers(out) == []
    assert sc.pile(0) == ["03R", "03J1", "04J1", "04J2", "B2"]
    assert sc.hand.hand_count(0) == 9 and sc.hand.card_total() == 50


def test_matgo_bonus_from_hand_draw_and_play_again_with_steal() -> None:
    sc = started("matgo", [["B2", "05A"], []], ["03J1", "09A"])
    sc.preload(1, ["09J1", "11D"])
    out = sc.play(0, "B2")
    assert out == [E.BonusCardTaken(seat=0, card="B2", source="hand", replacement="03J1")]
    h = sc.hand
    assert h.phase is Phase.PLAY and h.turn_seat == 0 and h.hand_count(0) == 10
    assert "03J1" in C.codes(h.hands[0])
    out = sc.turn(0, "03J1")
    assert captures(out) == [("pair", ["03J1", "03R"])]
    assert transfers(out) == [(1, 0, "09J1", "bonus")]
    assert sc.pile(0) == ["03R", "03J1", "09J1", "B2"]


# --- the September cup (C4.3, C5.9, A9) ---------------------------------------------------

CUP_LAYOUT = ["09A", "01G", "02A", "03R", "04J1", "06A", "07R", "08J1"]


def test_matgo_cup_decision_is_an_input() -> None:
    sc = started("matgo", [["09R"], ["05A"]], ["11G", "05J1"], CUP_LAYOUT)
    sc.turn(0, "09R")
    h = sc.hand
    assert h.phase is Phase.CUP and h.decider == 0
    assert legal_actions(h) == [
        E.CupAssigned(seat=0, role="animal"),
        E.CupAssigned(seat=0, role="junk"),
    ]
    with pytest.raises(IllegalAction):
        sc.play(1, "05A")
    sc.cup(0, "junk")
    assert sc.hand.cup_role == "junk" and sc.hand.phase is Phase.PLAY
    assert sc.hand.itemised(0).junk_units == 2
    # as junk the cup can be stolen: seat 1's jjok takes it
    out = sc.turn(1, "05A")
    assert transfers(out) == [(0, 1, "09A", "jjok")]


def test_matgo_cup_kept_as_an_animal_is_not_stolen() -> None:
    sc = started("matgo", [["09R"], ["05A"]], ["11G", "05J1"], CUP_LAYOUT)
    sc.turn(0, "09R")
    sc.cup(0, "animal")
    assert transfers(sc.turn(1, "05A")) == []


def test_cardavia_cup_is_automatic_and_never_transferred() -> None:
    sc = started("cardavia", [["09J1"], ["05A"]], ["11G", "05J1"], CUP_LAYOUT)
    sc.preload(0, C.codes(C.mask_of(["10J1", "10J2", "11J1", "11J2", "12D", "08J2"])))
    sc.turn(0, "09J1")
    h = sc.hand
    assert h.phase is Phase.PLAY  # no decision to record
    sc_ = h.itemised(0)
    assert sc_.cup_role == "junk" and sc_.junk_units == 10  # 8 units + the cup's 2
    out = sc.turn(1, "05A")
    # the steal takes the least valuable junk, never the cup (C4.3)
    assert transfers(out) == [(0, 1, "08J2", "jjok")]
    sc2 = started("cardavia", [["09R"], ["05A"]], ["11G", "05J1"], CUP_LAYOUT)
    sc2.turn(0, "09R")
    assert transfers(sc2.turn(1, "05A")) == []  # only the cup: nothing is taken
    assert "09A" in sc2.pile(0)


# --- last-turn exceptions (A12) -----------------------------------------------------------


def _last_turn(
    preset: str,
    layout: list[str],
    card: str,
    flip: str,
    chosen: str | None = None,
) -> tuple[Scenario, list]:
    """Seat 0 plays its only card: its first turn is its last."""
    sc = Scenario(small_deal(preset, hand=1, layout=len(layout)))
    sc.deal([[card], []], layout, [flip])
    sc.preload(1, ["09J1", "09J2"])
    return sc, sc.turn(0, card, chosen=chosen)


@pytest.mark.parametrize(
    ("preset", "ppuk"), [("matgo", False), ("cardavia", False), ("gamerules", True)]
)
def test_last_turn_ppuk(preset: str, ppuk: bool) -> None:
    """matgo and CARDAVIA (A12 standard): no ppuk on the last card, all three are taken and
    none is counted; the general page states no exception."""
    sc, out = _last_turn(preset, ["03R", "01G"], "03G", "03J1")
    if ppuk:
        assert of_type(out, E.PpukMade) and sc.hand.ppuk_count[0] == 1
    else:
        assert captures(out) == [("last_turn_three", ["03G", "03J1", "03R"])]
        assert sc.hand.ppuk_count[0] == 0 and not of_type(out, E.PpukMade)


@pytest.mark.parametrize(("preset", "steals"), [("matgo", 0), ("cardavia", 0), ("gamerules", 1)])
def test_last_turn_jjok(preset: str, steals: int) -> None:
    _, out = _last_turn(preset, ["01G", "02A"], "05A", "05J1")
    assert captures(out) == [("jjok", ["05A", "05J1"])]
    assert len(transfers(out)) == steals


@pytest.mark.parametrize(("preset", "steals"), [("matgo", 0), ("cardavia", 0), ("gamerules", 1)])
def test_last_turn_ttadak(preset: str, steals: int) -> None:
    _, out = _last_turn(preset, ["01G", "01R", "02A"], "01J1", "01J2", chosen="01G")
    assert captures(out) == [("ttadak", ["01G", "01J1", "01J2", "01R"])]
    assert len(transfers(out)) == steals


@pytest.mark.parametrize(("preset", "steals"), [("matgo", 0), ("cardavia", 0), ("gamerules", 1)])
def test_last_turn_sseul(preset: str, steals: int) -> None:
    sc, out = _last_turn(preset, ["01G", "02A"], "01J1", "02J1")
    assert sc.layout() == []
    assert [t[3] for t in transfers(out)] == ["sseul"] * steals


@pytest.mark.parametrize(("preset", "steals"), [("matgo", 0), ("cardavia", 1), ("gamerules", 1)])
def test_last_turn_stack_taken(preset: str, steals: int) -> None:
    """matgo voids the ppuk-eat steal on the last card; CARDAVIA C4.1 lists only ttadak,
    chok and sseul, so its stack steal stands."""
    _, out = _last_turn(preset, ["07R", "07J1", "07J2", "01G"], "07A", "05A")
    assert captures(out) == [("stack", ["07A", "07J1", "07J2", "07R"])]
    assert len(transfers(out)) == steals


# --- hidden hands and stock ---------------------------------------------------------------


def test_hidden_hands_and_stock_reveal_cards_as_they_are_played() -> None:
    sc = Scenario("cardavia")
    sc.start_hand()
    sc.input(E.CardsDealt(hands=[None, None], layout=LAYOUT, stock=None))
    h = sc.hand
    assert len(legal_actions(h)) == 48 - 8  # any unseen card may be the one played
    sc.play(0, "01J1")
    out = sc.flip(0, "02J1")
    assert captures(out) == [("pair", ["01G", "01J1"]), ("pair", ["02A", "02J1"])]
    h = sc.hand
    assert h.hand_unknown == [9, 10] and h.stock_count == 19
    assert h.card_total() == 48
    assert h.seen & C.mask_of(["01J1", "02J1"])
    with pytest.raises(IllegalAction) as exc:
        sc.play(1, "01J1")  # already revealed
    assert exc.value.rule == "card_in_hand"
    sc.play(1, "05A")
    with pytest.raises(IllegalAction) as exc:
        sc.flip(1, "05A")  # revealed twice
    assert exc.value.rule == "card_in_stock"
