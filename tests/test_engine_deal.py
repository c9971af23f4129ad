"""The deal: its shape, four of a month on the layout or in a hand (per preset), bonus cards
dealt face up, hidden hands and stock, and the game-level checks of hand_started."""

from __future__ import annotations

import pytest
from engine_helpers import Scenario, dues, ended, of_type

from gostop_records import cards as C
from gostop_records import events as E
from gostop_records.engine import Phase, legal_actions
from gostop_records.errors import IllegalAction

# A layout without pairs of the months the tests play with, and no four.
LAYOUT_2P = ["01G", "02A", "03R", "04J1", "06A", "07R", "08J1", "10A"]
LAYOUT_3P = ["01G", "02A", "03R", "04J1", "06A", "07R"]
LAYOUT_FOUR_2P = ["03G", "03R", "03J1", "03J2", "01G", "02A", "04A", "06A"]
LAYOUT_FOUR_3P = ["03G", "03R", "03J1", "03J2", "01G", "02A"]
FOUR_05 = ["05A", "05R", "05J1", "05J2"]
FOUR_09 = ["09A", "09R", "09J1", "09J2"]
FOUR_11 = ["11G", "11D", "11J1", "11J2"]


def test_a_plain_deal_waits_for_the_dealer_to_play() -> None:
    sc = Scenario("matgo")
    out = sc.deal([["05A"], ["09A"]], LAYOUT_2P, dealer=1)
    assert out == []
    h = sc.hand
    assert h.phase is Phase.PLAY and h.turn_seat == 1 and h.order == [1, 0]
    assert [h.hand_count(s) for s in (0, 1)] == [10, 10]
    assert h.stock_remaining() == 50 - 28
    assert h.card_total() == sc.table.deck_size == 50


# --- four of a month on the layout (G7, C2.4, A25) ----------------------------------------


@pytest.mark.parametrize(
    ("preset", "players", "outcome", "next_carry"),
    [
        ("cardavia", 2, "void", 1),  # C2.4: redeal
        ("gamerules", 2, "void", 1),  # G7: void, same dealer redeals
        ("gamerules", 3, "void", 1),
        ("matgo", 2, "nagari", 2),  # Pmang: a nagari, which doubles the next hand
        ("gostop3", 3, "nagari", 2),
    ],
)
def test_layout_four(preset: str, players: int, outcome: str, next_carry: int) -> None:
    sc = Scenario(preset, players)
    layout = LAYOUT_FOUR_2P if players == 2 else LAYOUT_FOUR_3P
    out = sc.deal([[]] * players, layout, dealer=1)
    assert out[0] == E.DealVoided(reason="layout_four", month=3)
    end = ended(out)
    assert end == E.HandEnded(
        outcome=outcome, winner=None, reason="layout_four", carry=1, next_carry=next_carry
    )
    assert dues(out) == []
    assert sc.game.carry == next_carry
    assert sc.game.next_dealer == 1  # the same dealer deals again
    assert not sc.game.finished
    sc.deal([[]] * players, LAYOUT_2P if players == 2 else LAYOUT_3P)  # a fresh deal is fine
    assert sc.hand.dealer == 1 and sc.hand.carry == next_carry


# --- four of a month in a hand (G8, C2.4, A24, A25) ---------------------------------------


@pytest.mark.parametrize(
    ("preset", "players", "points"),
    [
        ("cardavia", 2, 5),
        ("gamerules", 2, 5),
        ("gamerules", 3, 5),
        ("matgo", 2, 10),
        ("gostop3", 3, 10),
    ],
)
def test_hand_four_is_an_instant_win(preset: str, players: int, points: int) -> None:
    sc = Scenario(preset, players, stake=10)
    hands: list[list[str]] = [[] for _ in range(players)]
    hands[1] = FOUR_05
    sc.deal(hands, LAYOUT_2P if players == 2 else LAYOUT_3P)
    h = sc.hand
    # the four is shown before any play: it is the only legal input
    want = E.FourOfAMonthShown(shown=[E.FourShown(seat=1, month=5, cards=FOUR_05)])
    assert legal_actions(h) == [want]
    card = C.codes(h.hands[0])[0]
    with pytest.raises(IllegalAction) as exc:
        sc.play(0, card)
    assert exc.value.rule == "hand_four_shown"
    out = sc.fours((1, 5))
    assert ended(out) == E.HandEnded(outcome="instant", winner=1, reason="hand_four")
    assert dues(out) == [(p, 1, points, points * 10, "hand_four") for p in range(players) if p != 1]
    assert sc.game.next_dealer == 1
    assert sc.game.ledger()[1] == points * 10 * (players - 1)


def test_a_shake_cannot_hide_a_four_dealt_to_a_hand() -> None:
    """G8: a four is shown at once. A shake is not a way round it (it would end the 'before
    any play' window and the four would never be shown)."""
    sc = Scenario("matgo")
    sc.deal([["09A", "09R", "09J1"], FOUR_05], LAYOUT_2P)
    with pytest.raises(IllegalAction) as exc:
        sc.shake(0, 9, ["09A", "09R", "09J1"])
    assert exc.value.rule == "hand_four_shown"


def test_every_four_of_a_seat_is_shown_and_paid_once() -> None:
    sc = Scenario("matgo")
    sc.deal([[], [*FOUR_05, *FOUR_09]], LAYOUT_2P)
    with pytest.raises(IllegalAction) as exc:
        sc.fours((1, 5))
    assert exc.value.rule == "hand_four_shown"
    out = sc.fours((1, 5), (1, 9))
    assert dues(out) == [(0, 1, 10, 10, "hand_four")]


def test_showing_a_four_one_does_not_hold_is_refused() -> None:
    sc = Scenario("matgo")
    sc.deal([FOUR_05, []], LAYOUT_2P)
    with pytest.raises(IllegalAction) as exc:
        sc.fours((1, 5))
    assert exc.value.rule == "card_in_hand"


@pytest.mark.parametrize(
    ("preset", "outcome", "next_carry"),
    [
        ("cardavia", "void", 1),  # C2.5: both hold a four -> redeal
        ("gamerules", "void", 1),  # G8 "if everyone has a four, nobody pays"
        ("matgo", "nagari", 2),  # Pmang: nagari
    ],
)
def test_both_players_hold_a_four(preset: str, outcome: str, next_carry: int) -> None:
    sc = Scenario(preset)
    sc.deal([FOUR_09, FOUR_05], LAYOUT_2P)
    out = sc.fours((0, 9), (1, 5))
    end = ended(out)
    assert end is not None and end.outcome == outcome and end.winner is None
    assert end.next_carry == next_carry
    assert dues(out) == []
    if outcome == "void":
        assert of_type(out, E.DealVoided) == [E.DealVoided(reason="hand_fours")]


@pytest.mark.parametrize("preset", ["gamerules", "gostop3"])
@pytest.mark.parametrize(("dealer", "winner"), [(0, 1), (2, 2)])
def test_two_of_three_hold_a_four_first_in_turn_order_wins(
    preset: str, dealer: int, winner: int
) -> None:
    """A25 (no source): the first holder in turn order from the dealer wins."""
    sc = Scenario(preset, 3)
    sc.deal([[], FOUR_05, FOUR_09], LAYOUT_3P, dealer=dealer)
    out = sc.fours((1, 5), (2, 9))
    end = ended(out)
    assert end is not None and end.outcome == "instant" and end.winner == winner
    pts = sc.rules.hand_four_points
    assert dues(out) == [(p, winner, pts, pts, "hand_four") for p in range(3) if p != winner]


@pytest.mark.parametrize(("preset", "outcome"), [("gamerules", "void"), ("gostop3", "nagari")])
def test_all_three_hold_a_four(preset: str, outcome: str) -> None:
    sc = Scenario(preset, 3)
    sc.deal([FOUR_11, FOUR_05, FOUR_09], LAYOUT_3P)
    out = sc.fours((0, 11), (1, 5), (2, 9))
    end = ended(out)
    assert end is not None and end.outcome == outcome and end.winner is None
    assert dues(out) == []


def test_hand_four_is_shown_only_before_the_first_play() -> None:
    sc = Scenario("matgo")
    sc.deal([["05A"], ["09A"]], LAYOUT_2P)
    sc.turn(0, "05A")
    with pytest.raises(IllegalAction) as exc:
        sc.fours((1, 9))
    assert exc.value.rule == "four_before_first_play"


# --- bonus cards at the deal (G23, A27) ---------------------------------------------------


def test_bonus_card_dealt_to_the_layout_goes_to_the_dealer() -> None:
    sc = Scenario("matgo")
    out = sc.deal([[], []], LAYOUT_2P, bonus_to_pile=["B2"], dealer=1)
    assert out == [E.BonusCardTaken(seat=1, card="B2", source="layout")]
    h = sc.hand
    assert C.codes(h.piles[1]) == ["B2"]
    assert h.stock_remaining() == 50 - 28 - 1  # the replacement came from the stock
    assert h.card_total() == 50


def test_bonus_card_cannot_stay_on_the_layout() -> None:
    sc = Scenario("matgo")
    with pytest.raises(IllegalAction) as exc:
        sc.deal([[], []], [*LAYOUT_2P[:7], "B2"])
    assert exc.value.rule == "bonus_at_deal"


def test_cardavia_has_no_bonus_cards() -> None:
    sc = Scenario("cardavia")
    with pytest.raises(IllegalAction) as exc:
        sc.deal([["B2"], []], LAYOUT_2P)
    assert exc.value.rule == "deck"


# --- the deal's shape ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("hands", "layout", "rule"),
    [
        ([["05A"] * 2, []], LAYOUT_2P, "card_twice"),
        ([["05A"], ["05A"]], LAYOUT_2P, "card_twice"),
        ([["01G"], []], LAYOUT_2P, "card_twice"),  # 01G is on the layout
        ([[], []], LAYOUT_2P[:7], "deal_shape"),
    ],
)
def test_bad_deals_are_refused(hands: list[list[str]], layout: list[str], rule: str) -> None:
    sc = Scenario("matgo")
    with pytest.raises(IllegalAction) as exc:
        sc.deal(hands, layout)
    assert exc.value.rule == rule


def test_short_hand_and_wrong_stock_are_refused() -> None:
    sc = Scenario("matgo")
    with pytest.raises(IllegalAction) as exc:
        sc.deal([["05A"], []], LAYOUT_2P, fill_hands=False)
    assert exc.value.rule == "deal_shape"
    sc2 = Scenario("matgo")
    sc2.start_hand()
    good = sc2.dealt([[], []], LAYOUT_2P)
    short_stock = E.CardsDealt(hands=good.hands, layout=good.layout, stock=good.stock[:-1])
    with pytest.raises(IllegalAction) as exc:
        sc2.input(short_stock)
    assert exc.value.rule == "deal_shape"
    wrong_card = E.CardsDealt(
        hands=good.hands, layout=good.layout, stock=[*good.stock[:-1], good.layout[0]]
    )
    with pytest.raises(IllegalAction) as exc:
        sc2.input(wrong_card)
    assert exc.value.rule == "card_twice"


def test_hidden_hands_and_stock_are_counted() -> None:
    sc = Scenario("matgo")
    sc.start_hand()
    sc.input(E.CardsDealt(hands=[None, None], layout=LAYOUT_2P, stock=None))
    h = sc.hand
    assert h.hand_unknown == [10, 10] and h.stock is None and h.stock_count == 22
    assert h.card_total() == 50
    assert h.unknown_pool() == sc.table.deck & ~C.mask_of(LAYOUT_2P)


def test_deal_must_match_the_shuffled_deck() -> None:
    sc = Scenario("cardavia")
    deck = C.codes(C.STANDARD_DECK)
    sc.input(E.HandStarted(hand=1, dealer=0, order=[0, 1], deck=deck))
    with pytest.raises(IllegalAction) as exc:
        sc.input(E.CardsDealt(hands=[None, None], layout=LAYOUT_2P, stock=None))
    assert exc.value.rule == "deal_matches_deck"


# --- hand_started at the game level -------------------------------------------------------


def test_hand_started_checks_number_order_and_dealer() -> None:
    sc = Scenario("matgo")
    with pytest.raises(IllegalAction) as exc:
        sc.input(E.HandStarted(hand=2, dealer=0, order=[0, 1]))
    assert exc.value.rule == "hand_order"
    with pytest.raises(IllegalAction) as exc:
        sc.input(E.HandStarted(hand=1, dealer=0, order=[1, 0]))
    assert exc.value.rule == "turn_order"
    sc.deal([[], FOUR_05], LAYOUT_2P)
    with pytest.raises(IllegalAction) as exc:
        sc.input(E.HandStarted(hand=2, dealer=0, order=[0, 1]))
    assert exc.value.rule == "hand_order"  # hand 1 is still being played
    sc.fours((1, 5))
    with pytest.raises(IllegalAction) as exc:
        sc.input(E.HandStarted(hand=2, dealer=0, order=[0, 1]))
    assert exc.value.rule == "dealer"  # the winner deals the next hand
    sc.input(E.HandStarted(hand=2, dealer=1, order=[1, 0]))


def test_cardavia_is_a_single_hand() -> None:
    sc = Scenario("cardavia")
    sc.deal([[], FOUR_05], LAYOUT_2P)
    sc.fours((1, 5))
    assert sc.game.finished
    with pytest.raises(IllegalAction) as exc:
        sc.input(E.HandStarted(hand=2, dealer=1, order=[1, 0]))
    assert exc.value.rule == "single_hand"
