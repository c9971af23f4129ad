"""The deal and what it may bring before the first play: bonus cards dealt to the layout,
a four of a month in a hand or on the layout (shown for a payment, kept to play on), a
voided deal (C2, A13, A30).
"""

from __future__ import annotations

from ..cards import (
    BONUS,
    CODE_TO_INDEX,
    CODES,
    MONTH_MASKS,
    indices,
    popcount,
)
from ..cards import (
    codes as card_codes,
)
from ..events import (
    BonusCardTaken,
    CardsDealt,
    DealVoided,
    FourKept,
    FourOfAMonthShown,
)
from ..rules import (
    HandFourTie,
    LayoutFour,
)
from .ending import end_hand, instant_dues_of
from .moves import Out, card_index, cards_of, expect_phase, illegal, reveal_in_hand
from .state import HandState, Phase, Turn


# Long: the deal's checks in the order the rules make them.
def deal_cards(s: HandState, a: CardsDealt, out: Out, deck: int | None = None) -> None:
    expect_phase(s, Phase.DEAL, "a deal")
    t = s.table
    n = t.players
    if len(a.hands) != n:
        raise illegal("deal_shape", f"the deal lists {len(a.hands)} hands for {n} players")
    seen = 0

    def take(code: str, where: str) -> int:
        nonlocal seen
        i = card_index(code)
        b = 1 << i
        if not t.deck & b:
            raise illegal("deck", f"{code} ({where}) is not in this ruleset's deck")
        if seen & b:
            raise illegal("card_twice", f"{code} is dealt twice")
        seen |= b
        return b

    def take_all(codes: list[str], where: str) -> int:
        # fast path: one mask; the card-by-card path only to name what is wrong
        nonlocal seen
        m = 0
        try:
            for code in codes:
                m |= 1 << CODE_TO_INDEX[code]
        except KeyError:
            m = -1
        if m < 0 or popcount(m) != len(codes) or m & seen or m & ~t.deck:
            m = 0
            for code in codes:
                m |= take(code, where)
            return m
        seen |= m
        return m

    playing = s.order
    for seat, hand in enumerate(a.hands):
        if seat not in playing:
            if hand:
                raise illegal(
                    "sat_out",
                    f"seat {seat} sits out hand {s.hand_no}: its hand is not dealt to the play",
                )
            continue
        if hand is None:
            s.hand_unknown[seat] = t.hand_size
            continue
        if len(hand) != t.hand_size:
            raise illegal(
                "deal_shape",
                f"seat {seat} is dealt {len(hand)} cards; this ruleset deals {t.hand_size}",
            )
        s.hands[seat] = take_all(hand, f"seat {seat}'s hand")
    if len(a.layout) != t.layout_size:
        raise illegal(
            "deal_shape",
            f"the layout has {len(a.layout)} cards; this ruleset deals {t.layout_size}",
        )
    layout = take_all(a.layout, "layout")
    if layout & BONUS:
        code = card_codes(layout & BONUS)[0]
        raise illegal(
            "bonus_at_deal",
            f"bonus card {code} cannot stay on the layout: list it in bonus_to_pile "
            "and put its replacement on the layout",
        )
    bonus = 0
    for code in a.bonus_to_pile:
        b = take(code, "bonus_to_pile")
        if not b & BONUS:
            raise illegal("bonus_at_deal", f"{code} is not a bonus card")
        bonus |= b
    stock_count = t.deck_size - len(playing) * t.hand_size - t.layout_size - popcount(bonus)
    if a.stock is not None:
        if len(a.stock) != stock_count:
            raise illegal("deal_shape", f"the stock has {len(a.stock)} cards; {stock_count} remain")
        take_all(a.stock, "stock")
        s.stock = [CODE_TO_INDEX[c] for c in a.stock]
    s.stock_count = stock_count
    if deck is not None and seen != deck:
        raise illegal(
            "deal_matches_deck",
            "the deal does not hold exactly the cards of the shuffled deck: "
            + ", ".join(card_codes(seen ^ deck)),
        )
    s.seen = seen
    s.layout = layout
    if bonus:
        s.piles[s.dealer] |= bonus
        for i in indices(bonus):
            out.append(BonusCardTaken(seat=s.dealer, card=CODES[i], source="layout"))
    for m in range(1, 13):
        if popcount(layout & MONTH_MASKS[m]) == 4:
            if t.rules.layout_four is LayoutFour.DEALER_WINS:
                pts = t.rules.hand_four_points
                dues = instant_dues_of(s, s.dealer, pts, "layout_four")
                end_hand(s, out, "instant", s.dealer, "layout_four", dues)
                return
            out.append(DealVoided(reason="layout_four", month=m))
            if t.rules.layout_four is LayoutFour.NAGARI:
                end_hand(s, out, "nagari", None, "layout_four")
            else:
                end_hand(s, out, "void", None, "layout_four")
            return
    fours = 0
    for seat in range(n):
        if fours_in(s.hands[seat]):
            fours |= 1 << seat
    s.fours_pending = fours
    s.phase = Phase.PLAY
    s.turn_index = 0
    s.turn_seat = s.order[0]
    s.turn = Turn(layout)


def fours_in(mask: int) -> int:
    """Months (as a bitmask over 1..12) of which a set holds all four cards."""
    out = 0
    for m in range(1, 13):
        if mask & MONTH_MASKS[m] == MONTH_MASKS[m]:
            out |= 1 << m
    return out


def first_play_pending(s: HandState) -> bool:
    turn = s.turn
    return (
        s.phase is Phase.PLAY
        and not any(s.turns_taken)
        and turn is not None
        and turn.played < 0
        and not turn.bomb
        and not turn.shake_month
        and not turn.bonus_taken
        and not any(s.shakes)
    )


def four_decision(s: HandState) -> bool:
    """Whether a four in a known hand waits for its holder's decision before the next play:
    at the deal, or after a bonus card's replacement completed one (``bonus_four``)."""
    turn = s.turn
    return (
        bool(s.fours_pending)
        and s.phase is Phase.PLAY
        and turn is not None
        and turn.played < 0
        and not turn.bomb
        and not turn.shake_month
    )


def fours_shown(s: HandState, a: FourOfAMonthShown, out: Out) -> None:
    at_deal = first_play_pending(s)
    if not at_deal and not four_decision(s):
        raise illegal(
            "four_before_first_play", "four of a month is shown at the deal, before any play"
        )
    if not at_deal:
        # a four completed by a bonus card's replacement: only its holder shows it
        for f in a.shown:
            if not s.fours_pending & (1 << f.seat):
                raise illegal(
                    "four_before_first_play",
                    f"seat {f.seat} has no four to show now: fours are shown at the deal",
                )
    t = s.table
    if not a.shown:
        raise illegal("deal_shape", "no four of a month is listed")
    holders: list[int] = []
    shown_months = [0] * t.players
    for f in a.shown:
        if f.seat >= t.players:
            raise illegal("seat", f"there is no seat {f.seat}")
        cards = cards_of(f.cards)
        if cards != MONTH_MASKS[f.month]:
            raise illegal(
                "four_of_a_month",
                f"seat {f.seat} shows {', '.join(f.cards)}: not the four cards of month "
                f"{f.month:02d}",
            )
        if shown_months[f.seat] & (1 << f.month):
            raise illegal("card_twice", f"month {f.month:02d} is shown twice")
        if s.kept_fours[f.seat] and not s.fours_pending & (1 << f.seat):
            raise illegal(
                "hand_four_keep", f"seat {f.seat} kept its four and plays on: it is not shown"
            )
        reveal_in_hand(s, f.seat, cards)
        shown_months[f.seat] |= 1 << f.month
        if f.seat not in holders:
            holders.append(f.seat)
    for seat in range(t.players):
        if at_deal and not s.hand_unknown[seat]:
            missing = fours_in(s.hands[seat]) & ~shown_months[seat]
            if missing:
                months = [m for m in range(1, 13) if missing & (1 << m)]
                raise illegal(
                    "hand_four_shown",
                    f"seat {seat} also holds four of month {months[0]:02d}: every four is "
                    "shown at the deal",
                )
    s.fours_pending = 0
    in_order = [seat for seat in s.order if seat in holders]
    if len(holders) == 1:
        winner = holders[0]
    else:
        policy = t.rules.all_hand_fours if len(holders) == len(s.order) else t.rules.some_hand_fours
        if policy is HandFourTie.REDEAL:
            out.append(DealVoided(reason="hand_fours"))
            end_hand(s, out, "void", None, "hand_fours")
            return
        if policy is HandFourTie.NAGARI:
            end_hand(s, out, "nagari", None, "hand_fours")
            return
        if policy is HandFourTie.DEALER_WINS and s.dealer in holders:
            winner = s.dealer
        else:
            winner = in_order[0]
    pts = t.rules.hand_four_points
    end_hand(s, out, "instant", winner, "hand_four", instant_dues_of(s, winner, pts, "hand_four"))


def keep_fours(s: HandState, seat: int) -> None:
    """The seat's waiting fours kept and played on with (들고치기)."""
    held = popcount(fours_in(s.hands[seat]))
    s.kept_fours[seat] += max(1, held - s.kept_fours[seat])
    s.fours_pending &= ~(1 << seat)


def four_kept(s: HandState, a: FourKept, out: Out) -> None:
    if not s.table.rules.hand_four_keep:
        raise illegal(
            "hand_four_keep", "this ruleset does not let a four be kept: it is shown to win"
        )
    if a.seat >= s.players:
        raise illegal("seat", f"there is no seat {a.seat}")
    waiting = first_play_pending(s) or four_decision(s)
    if not waiting or not s.fours_pending & (1 << a.seat):
        raise illegal("hand_four_keep", f"seat {a.seat} has no four waiting to be kept")
    keep_fours(s, a.seat)


def check_fours_shown(s: HandState) -> None:
    if s.fours_pending and (first_play_pending(s) or four_decision(s)):
        if s.table.rules.hand_four_keep:
            # 들고치기: a play instead of the show keeps every pending four
            for seat in range(s.players):
                if s.fours_pending & (1 << seat):
                    keep_fours(s, seat)
            return
        seat = (s.fours_pending & -s.fours_pending).bit_length() - 1
        raise illegal(
            "hand_four_shown",
            f"seat {seat} holds four of a month: it is shown at the deal before any play",
        )
