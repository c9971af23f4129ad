"""Applying one input to a hand: the deal, plays, flips, captures, specials, Go and Stop.

``apply(state, action)`` takes an input payload (the same structs a log stores) and returns
the new state and the consequences the rules derive from it, as payloads in log order. It
raises :class:`~gostop_records.errors.IllegalAction` naming the rule when the input is not
allowed. The state passed in is never changed.

A turn: the player plays a hand card (or bombs, or takes a flip-only turn), turns the top
stock card, and captures are resolved after both steps (C3.4), because the flip decides
between a pair, a ppuk, a ttadak and a jjok. Steals follow the captures, one transfer event
per card, in the order the specials happened (A7).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

from .. import events as E
from ..cards import (
    ALL_CARDS,
    BONUS,
    CODE_TO_INDEX,
    CODES,
    CUP,
    MONTH_MASKS,
    MONTH_OF,
    Kind,
    indices,
    parse,
    popcount,
)
from ..cards import (
    codes as card_codes,
)
from ..errors import IllegalAction
from ..events import (
    BombPlayed,
    BonusCardTaken,
    CardFlipped,
    CardPlayed,
    CardsCaptured,
    CardsDealt,
    CupAssigned,
    DealVoided,
    FlipOnlyPlayed,
    FourKept,
    FourOfAMonthShown,
    GoCalled,
    HandEnded,
    JunkTransferred,
    PaymentDue,
    PpukMade,
    ShakeDeclined,
    Shaken,
    StopCalled,
)
from ..rules import (
    BonusFour,
    BonusPlay,
    CupMode,
    HandFourTie,
    LastTurnRule,
    LayoutFour,
    Shaking,
    SseulRule,
    StealCount,
    TransferOrder,
)
from .rulebook import HUDANG, INSTANT_WIN_MULTIPLIERS, NAGARI_CARRY
from .scoring import cup_as_junk
from .settlement import HandFacts, Proof, settle
from .state import HandState, Phase, Turn

__all__ = ["apply", "facts_of", "locate", "new_hand"]

# Final: the compiled build (``make native``) keeps each in a C static, where any other
# module-level name (an imported class, an enum member's class) is a dictionary lookup at
# every use; these are read on every turn
_MONTH_OF: Final = MONTH_OF
_IDX: Final = CODE_TO_INDEX
_MM: Final = MONTH_MASKS
_KINDS: Final = tuple(c.kind for c in ALL_CARDS)
_NO_EXCEPTIONS: Final[frozenset[LastTurnRule]] = frozenset()
_LAST_PPUK: Final = LastTurnRule.PPUK
_LAST_PPUK_TAKEN: Final = LastTurnRule.PPUK_TAKEN
_LAST_JJOK: Final = LastTurnRule.JJOK
_LAST_TTADAK: Final = LastTurnRule.TTADAK
_LAST_SSEUL: Final = LastTurnRule.SSEUL
_SSEUL_FLOOR_EMPTY: Final = SseulRule.FLOOR_EMPTY
_CUP_CHOICE: Final = CupMode.PLAYER_CHOICE
_CAPTURED: Final = CardsCaptured
_PLAYED: Final = CardPlayed
_FLIPPED: Final = CardFlipped

Out = list[Any]


def new_hand(table: Any, hand_no: int, dealer: int, order: list[int], carry: int = 1) -> HandState:
    """A hand waiting for its deal."""
    return HandState(table, hand_no, dealer, order, carry)


def _idx(code: str) -> int:
    try:
        return _IDX[code]
    except KeyError:
        return parse(code)  # lower case or a short month in a payload built in code


def locate(s: HandState, b: int) -> str:
    """Where a card is, in words, for error messages."""
    if s.layout & b:
        return "on the layout"
    for seat in range(s.players):
        if s.hands[seat] & b:
            return f"in seat {seat}'s hand"
        if s.piles[seat] & b:
            return f"in seat {seat}'s pile"
    if s.stock is not None and b in {1 << i for i in s.stock[s.stock_pos :]}:
        return "in the stock"
    if not s.table.deck & b:
        return "not in this ruleset's deck"
    if s.seen & b:
        return "already played"
    return "not known to be anywhere"


def _illegal(rule: str, reason: str) -> IllegalAction:
    return IllegalAction(rule, reason)


def _expect_phase(s: HandState, phase: Phase, what: str) -> None:
    if s.phase is not phase:
        raise _illegal("turn_order", f"{what} is not expected now: {_waiting_for(s)}")


def _waiting_for(s: HandState) -> str:
    p = s.phase
    if p is Phase.DEAL:
        return "the hand waits for the deal"
    if p is Phase.PLAY:
        return f"seat {s.turn_seat} is to play a card"
    if p in (Phase.FLIP, Phase.FLIP_AS_PLAY):
        return f"seat {s.turn_seat} is to turn the stock"
    if p is Phase.CUP:
        return f"seat {s.decider} is to decide the September cup"
    if p is Phase.DECIDE:
        return f"seat {s.decider} is to say Go or Stop"
    return "the hand is over"


def _expect_seat(s: HandState, seat: int, who: int) -> None:
    if seat != who:
        raise _illegal("turn_order", f"seat {seat} cannot act now: {_waiting_for(s)}")


def _take_from_hand(s: HandState, seat: int, i: int) -> None:
    b = 1 << i
    if s.hands[seat] & b:
        s.hands[seat] ^= b
        return
    if s.hand_unknown[seat] and not s.seen & b and s.table.deck & b:
        s.hand_unknown[seat] -= 1
        s.seen |= b
        return
    raise _illegal("card_in_hand", f"seat {seat} does not hold {CODES[i]}: it is {locate(s, b)}")


def _reveal_in_hand(s: HandState, seat: int, mask: int) -> None:
    """Cards shown from a hand (a shake, a four) become known without leaving it."""
    for i in indices(mask):
        b = 1 << i
        if s.hands[seat] & b:
            continue
        if s.hand_unknown[seat] and not s.seen & b and s.table.deck & b:
            s.hand_unknown[seat] -= 1
            s.hands[seat] |= b
            s.seen |= b
            continue
        raise _illegal(
            "card_in_hand", f"seat {seat} does not hold {CODES[i]}: it is {locate(s, b)}"
        )


def _cards_of(codes: list[str]) -> int:
    m = 0
    for code in codes:
        b = 1 << _idx(code)
        if m & b:
            raise _illegal("card_twice", f"{code} is listed twice")
        m |= b
    return m


# --- the deal ----------------------------------------------------------------------------


def _deal(s: HandState, a: CardsDealt, out: Out, deck: int | None = None) -> None:
    _expect_phase(s, Phase.DEAL, "a deal")
    t = s.table
    n = t.players
    if len(a.hands) != n:
        raise _illegal("deal_shape", f"the deal lists {len(a.hands)} hands for {n} players")
    seen = 0

    def take(code: str, where: str) -> int:
        nonlocal seen
        i = _idx(code)
        b = 1 << i
        if not t.deck & b:
            raise _illegal("deck", f"{code} ({where}) is not in this ruleset's deck")
        if seen & b:
            raise _illegal("card_twice", f"{code} is dealt twice")
        seen |= b
        return b

    def take_all(codes: list[str], where: str) -> int:
        # fast path: one mask; the card-by-card path only to name what is wrong
        nonlocal seen
        m = 0
        try:
            for code in codes:
                m |= 1 << _IDX[code]
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
                raise _illegal(
                    "sat_out",
                    f"seat {seat} sits out hand {s.hand_no}: its hand is not dealt to the play",
                )
            continue
        if hand is None:
            s.hand_unknown[seat] = t.hand_size
            continue
        if len(hand) != t.hand_size:
            raise _illegal(
                "deal_shape",
                f"seat {seat} is dealt {len(hand)} cards; this ruleset deals {t.hand_size}",
            )
        s.hands[seat] = take_all(hand, f"seat {seat}'s hand")
    if len(a.layout) != t.layout_size:
        raise _illegal(
            "deal_shape",
            f"the layout has {len(a.layout)} cards; this ruleset deals {t.layout_size}",
        )
    layout = take_all(a.layout, "layout")
    if layout & BONUS:
        code = card_codes(layout & BONUS)[0]
        raise _illegal(
            "bonus_at_deal",
            f"bonus card {code} cannot stay on the layout: list it in bonus_to_pile "
            "and put its replacement on the layout",
        )
    bonus = 0
    for code in a.bonus_to_pile:
        b = take(code, "bonus_to_pile")
        if not b & BONUS:
            raise _illegal("bonus_at_deal", f"{code} is not a bonus card")
        bonus |= b
    stock_count = t.deck_size - len(playing) * t.hand_size - t.layout_size - popcount(bonus)
    if a.stock is not None:
        if len(a.stock) != stock_count:
            raise _illegal(
                "deal_shape", f"the stock has {len(a.stock)} cards; {stock_count} remain"
            )
        take_all(a.stock, "stock")
        s.stock = [_IDX[c] for c in a.stock]
    s.stock_count = stock_count
    if deck is not None and seen != deck:
        raise _illegal(
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
        if popcount(layout & _MM[m]) == 4:
            if t.rules.layout_four is LayoutFour.DEALER_WINS:
                pts = t.rules.hand_four_points
                dues = _instant_dues(s, s.dealer, pts, "layout_four")
                _end(s, out, "instant", s.dealer, "layout_four", dues)
                return
            out.append(DealVoided(reason="layout_four", month=m))
            if t.rules.layout_four is LayoutFour.NAGARI:
                _end(s, out, "nagari", None, "layout_four")
            else:
                _end(s, out, "void", None, "layout_four")
            return
    fours = 0
    for seat in range(n):
        if _fours_in(s.hands[seat]):
            fours |= 1 << seat
    s.fours_pending = fours
    s.phase = Phase.PLAY
    s.turn_index = 0
    s.turn_seat = s.order[0]
    s.turn = Turn(layout)


def _fours_in(mask: int) -> int:
    """Months (as a bitmask over 1..12) of which a set holds all four cards."""
    out = 0
    for m in range(1, 13):
        if mask & _MM[m] == _MM[m]:
            out |= 1 << m
    return out


def _first_play_pending(s: HandState) -> bool:
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


def _four_decision(s: HandState) -> bool:
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


def _fours(s: HandState, a: FourOfAMonthShown, out: Out) -> None:
    at_deal = _first_play_pending(s)
    if not at_deal and not _four_decision(s):
        raise _illegal(
            "four_before_first_play", "four of a month is shown at the deal, before any play"
        )
    if not at_deal:
        # a four completed by a bonus card's replacement: only its holder shows it
        for f in a.shown:
            if not s.fours_pending & (1 << f.seat):
                raise _illegal(
                    "four_before_first_play",
                    f"seat {f.seat} has no four to show now: fours are shown at the deal",
                )
    t = s.table
    if not a.shown:
        raise _illegal("deal_shape", "no four of a month is listed")
    holders: list[int] = []
    shown_months = [0] * t.players
    for f in a.shown:
        if f.seat >= t.players:
            raise _illegal("seat", f"there is no seat {f.seat}")
        cards = _cards_of(f.cards)
        if cards != _MM[f.month]:
            raise _illegal(
                "four_of_a_month",
                f"seat {f.seat} shows {', '.join(f.cards)}: not the four cards of month "
                f"{f.month:02d}",
            )
        if shown_months[f.seat] & (1 << f.month):
            raise _illegal("card_twice", f"month {f.month:02d} is shown twice")
        if s.kept_fours[f.seat] and not s.fours_pending & (1 << f.seat):
            raise _illegal(
                "hand_four_keep", f"seat {f.seat} kept its four and plays on: it is not shown"
            )
        _reveal_in_hand(s, f.seat, cards)
        shown_months[f.seat] |= 1 << f.month
        if f.seat not in holders:
            holders.append(f.seat)
    for seat in range(t.players):
        if at_deal and not s.hand_unknown[seat]:
            missing = _fours_in(s.hands[seat]) & ~shown_months[seat]
            if missing:
                months = [m for m in range(1, 13) if missing & (1 << m)]
                raise _illegal(
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
            _end(s, out, "void", None, "hand_fours")
            return
        if policy is HandFourTie.NAGARI:
            _end(s, out, "nagari", None, "hand_fours")
            return
        if policy is HandFourTie.DEALER_WINS and s.dealer in holders:
            winner = s.dealer
        else:
            winner = in_order[0]
    pts = t.rules.hand_four_points
    _end(s, out, "instant", winner, "hand_four", _instant_dues(s, winner, pts, "hand_four"))


def _instant_dues(
    s: HandState, winner: int, pts: int, reason: str
) -> list[tuple[int, int, int, str]]:
    t = s.table
    pts = INSTANT_WIN_MULTIPLIERS.points(
        t.rules, pts, s.carry, s.shakes[winner], s.bombs[winner], reason, s.hand_no
    )
    return [(p, winner, pts, reason) for p in sorted(s.order) if p != winner]


# --- ending a hand -----------------------------------------------------------------------


def _end(
    s: HandState,
    out: Out,
    outcome: str,
    winner: int | None,
    reason: str,
    dues: list[tuple[int, int, int, str]] | None = None,
) -> None:
    nxt = NAGARI_CARRY.next_carry(s.table.rules, s.carry, outcome)
    s.phase = Phase.ENDED
    s.outcome = outcome
    s.winner = winner
    s.reason = reason
    s.turn = None
    out.append(
        HandEnded(outcome=outcome, winner=winner, reason=reason, carry=s.carry, next_carry=nxt)  # type: ignore[arg-type]
    )
    stake = s.table.stake
    for payer, payee, pts, why in dues or ():
        out.append(
            PaymentDue(payer=payer, payee=payee, points=pts, chips=pts * stake, reason=why)  # type: ignore[arg-type]
        )


def facts_of(s: HandState, winner: int) -> HandFacts:
    return HandFacts(
        winner=winner,
        piles=tuple(s.piles),
        cup_role=s.cup_role,
        go_count=tuple(s.go_count),
        go_order=tuple(s.go_order),
        shakes=tuple(s.shakes),
        bombs=tuple(s.bombs),
        carry=s.carry,
        two_bombs=tuple(s.two_bombs) if any(s.two_bombs) else (),
        kept_fours=tuple(s.kept_fours) if any(s.kept_fours) else (),
        seats=tuple(sorted(s.order)),
        hand_no=s.hand_no,
    )


def _stop(s: HandState, seat: int, out: Out, auto: bool) -> Proof:
    proof = settle(s.table, facts_of(s, seat))
    s.proof = proof
    dues = [(d.payer, d.payee, d.points, d.reason) for d in proof.dues]
    _end(s, out, "stop", seat, "auto_stop" if auto else "stop", dues)
    return proof


# --- a turn ------------------------------------------------------------------------------


def _turn(s: HandState) -> Turn:
    turn = s.turn
    assert turn is not None
    return turn


def _shake(s: HandState, a: Shaken, out: Out) -> None:
    if s.phase is Phase.FLIP and s.turn is not None and s.turn.shake_due:
        # asked once the card is chosen (shake_asked): the card played shows with the rest
        turn = _shake_answered(s, a.seat, a.month)
        cards = _cards_of(a.cards)
        played = 1 << turn.played
        if not cards & played or cards & ~_MM[a.month] or popcount(cards) < 3:
            raise _illegal(
                "shaking",
                f"a shake shows the card played, {CODES[turn.played]}, and the other cards of "
                f"month {a.month:02d} in hand",
            )
        _reveal_in_hand(s, a.seat, cards & ~played)
        if s.hands[a.seat] & _MM[a.month] & ~cards:
            raise _illegal("shaking", f"a shake shows every card of month {a.month:02d} held")
        turn.shake_month = a.month
        s.shakes[a.seat] += 1
        s.shaken_months[a.seat] |= 1 << a.month
        return
    _expect_phase(s, Phase.PLAY, "a shake")
    _expect_seat(s, a.seat, s.turn_seat)
    mode = s.table.rules.shaking
    if mode is Shaking.NONE:
        raise _illegal("shaking", "this ruleset has no shaking (heundeum)")
    _check_fours_shown(s)
    turn = _turn(s)
    if turn.played >= 0 or turn.bomb:
        raise _illegal("shaking", "a shake is shown before the turn's card is played")
    cards = _cards_of(a.cards)
    # a four kept in hand (hand_four_keep) may be shaken whole: Pmang's x4 path
    whole = s.table.rules.hand_four_keep and cards == _MM[a.month]
    if (popcount(cards) != 3 and not whole) or cards & ~_MM[a.month]:
        raise _illegal("shaking", f"a shake shows three cards of month {a.month:02d}")
    if s.shaken_months[a.seat] & (1 << a.month):
        raise _illegal("shaking", f"seat {a.seat} already shook month {a.month:02d}")
    if mode is Shaking.ON_PLAY:
        if turn.shake_month:
            raise _illegal("shaking", "one shake per played card")
        if s.layout & _MM[a.month]:
            raise _illegal(
                "shake_month_absent",
                f"month {a.month:02d} is on the layout: shaking needs it absent "
                "(with the fourth card face up, three in hand make a bomb)",
            )
        turn.shake_month = a.month
    _reveal_in_hand(s, a.seat, cards)
    s.shakes[a.seat] += 1
    s.shaken_months[a.seat] |= 1 << a.month


def _keep_fours(s: HandState, seat: int) -> None:
    """The seat's waiting fours kept and played on with (들고치기)."""
    held = popcount(_fours_in(s.hands[seat]))
    s.kept_fours[seat] += max(1, held - s.kept_fours[seat])
    s.fours_pending &= ~(1 << seat)


def _four_kept(s: HandState, a: FourKept, out: Out) -> None:
    if not s.table.rules.hand_four_keep:
        raise _illegal(
            "hand_four_keep", "this ruleset does not let a four be kept: it is shown to win"
        )
    if a.seat >= s.players:
        raise _illegal("seat", f"there is no seat {a.seat}")
    waiting = _first_play_pending(s) or _four_decision(s)
    if not waiting or not s.fours_pending & (1 << a.seat):
        raise _illegal("hand_four_keep", f"seat {a.seat} has no four waiting to be kept")
    _keep_fours(s, a.seat)


def _check_fours_shown(s: HandState) -> None:
    if s.fours_pending and (_first_play_pending(s) or _four_decision(s)):
        if s.table.rules.hand_four_keep:
            # 들고치기: a play instead of the show keeps every pending four
            for seat in range(s.players):
                if s.fours_pending & (1 << seat):
                    _keep_fours(s, seat)
            return
        seat = (s.fours_pending & -s.fours_pending).bit_length() - 1
        raise _illegal(
            "hand_four_shown",
            f"seat {seat} holds four of a month: it is shown at the deal before any play",
        )


def _bomb(s: HandState, a: BombPlayed, out: Out) -> None:
    _expect_phase(s, Phase.PLAY, "a bomb")
    _expect_seat(s, a.seat, s.turn_seat)
    rules = s.table.rules
    if not rules.bombs:
        raise _illegal("bombs", "this ruleset has no bombs")
    _check_fours_shown(s)
    turn = _turn(s)
    if turn.played >= 0 or turn.shake_month:
        raise _illegal("bombs", "a bomb is the turn's play: nothing else is played with it")
    cards = _cards_of(a.cards)
    k = popcount(cards)
    m = a.month
    if cards & ~_MM[m] or k not in ((2, 3) if rules.two_card_bomb else (3,)):
        need = "two or three" if rules.two_card_bomb else "three"
        raise _illegal("bombs", f"a bomb plays {need} cards of month {m:02d}")
    on = s.layout & _MM[m]
    if popcount(on) != 4 - k:
        raise _illegal(
            "bombs",
            f"a bomb of {k} needs the other {4 - k} card(s) of month {m:02d} on the layout; "
            f"it holds {popcount(on)}",
        )
    if rules.shaking is Shaking.BEFORE_TURN and s.shaken_months[a.seat] & (1 << m):
        raise _illegal("shaken_month_cannot_bomb", f"month {m:02d} was shaken: no bomb (G19)")
    for i in indices(cards):
        _take_from_hand(s, a.seat, i)
    s.layout |= cards
    turn.bomb = cards
    turn.play_month = m
    turn.play_n = 4 - k
    s.flip_only[a.seat] += k - 1
    s.bombs[a.seat] += 1
    steal = rules.bomb_steal
    if k == 2:
        s.two_bombs[a.seat] += 1
        if rules.two_card_bomb_steal is not None:
            steal = rules.two_card_bomb_steal
    if steal:
        turn.steals.append(("bomb", steal))
    s.phase = Phase.FLIP


def _flip_only(s: HandState, a: FlipOnlyPlayed, out: Out) -> None:
    _expect_phase(s, Phase.PLAY, "a flip-only turn")
    _expect_seat(s, a.seat, s.turn_seat)
    turn = _turn(s)
    if not s.flip_only[a.seat]:
        raise _illegal("flip_only", f"seat {a.seat} has no flip-only turn (they follow a bomb)")
    if turn.played >= 0 or turn.shake_month:
        raise _illegal("flip_only", "a flip-only turn plays no card")
    s.flip_only[a.seat] -= 1
    s.phase = Phase.FLIP


def _equivalent(a: int, b: int, t: Any) -> bool:
    """Two layout cards whose choice changes nothing (two single junk of equal value)."""
    return _KINDS[a] is Kind.JUNK and _KINDS[b] is Kind.JUNK and t.card_units(a) == t.card_units(b)


def _choose(s: HandState, i: int, on: int, chosen: str | None, what: str) -> int:
    """The layout card a card pairs with when its month shows two; -1 when no choice."""
    n = popcount(on)
    if n == 2:
        a = (on & -on).bit_length() - 1
        b = on.bit_length() - 1
        if chosen is None:
            if _equivalent(a, b, s.table):
                return a
            raise _illegal(
                "choice_required",
                f"{CODES[i]} {what} matches {CODES[a]} and {CODES[b]} on the layout: "
                "say which one it takes",
            )
        c = _idx(chosen)
        if not on & (1 << c):
            raise _illegal(
                "choice_required",
                f"{CODES[i]} can take {CODES[a]} or {CODES[b]}, not {chosen}",
            )
        return c
    if chosen is not None and not (n == 1 and on == 1 << _idx(chosen)):
        raise _illegal("no_choice", f"{CODES[i]} {what} has no choice to make ({chosen} given)")
    return -1


def _place_play(s: HandState, i: int, chosen: str | None, source: str) -> None:
    turn = _turn(s)
    m = _MONTH_OF[i]
    on = s.layout & _MM[m]
    turn.chosen = _choose(s, i, on, chosen, "played")
    turn.played = i
    turn.play_month = m
    turn.play_n = popcount(on)
    turn.play_source = source
    s.layout |= 1 << i
    s.phase = Phase.FLIP


def _draw_stock(s: HandState) -> int:
    """Top stock card when the stock is known, else -1 (one unknown card)."""
    if s.stock is not None:
        if s.stock_pos >= len(s.stock):
            raise _illegal("stock_empty", "the stock is empty")
        i = s.stock[s.stock_pos]
        s.stock_pos += 1
        return i
    if s.stock_count <= 0:
        raise _illegal("stock_empty", "the stock is empty")
    s.stock_count -= 1
    return -1


def _take_bonus(s: HandState, seat: int, i: int, source: str, out: Out) -> None:
    turn = _turn(s)
    if source == "flip" and s.phase is Phase.FLIP and s.table.rules.bonus_buried_in_ppuk:
        # a ppuk made by the next flip buries it: taken (or not) when the turn resolves
        turn.flip_bonus |= 1 << i
        turn.bonus_taken = True
        return
    s.piles[seat] |= 1 << i
    turn.bonus_taken = True
    turn.took = True
    rules = s.table.rules
    steal = rules.bonus_steal
    at_once = steal and source == "hand" and rules.bonus_steal_at_once
    if steal and not at_once:
        turn.steals.append(("bonus", steal))
    replacement = None
    if source == "hand" and rules.bonus_play is BonusPlay.DRAW_AND_PLAY_AGAIN:
        r = _draw_stock(s)
        if r >= 0:
            s.hands[seat] |= 1 << r
            replacement = CODES[r]
            counts = rules.bonus_four is BonusFour.ALWAYS or (
                rules.bonus_four is BonusFour.FIRST_TURN and s.turns_taken[seat] == 0
            )
            if counts and _fours_in(s.hands[seat]) & (1 << _MONTH_OF[r]):
                s.fours_pending |= 1 << seat  # shown to win, or kept, before the next play
        else:
            s.hand_unknown[seat] += 1
    out.append(BonusCardTaken(seat=seat, card=CODES[i], source=source, replacement=replacement))  # type: ignore[arg-type]
    if at_once:
        # before the replacement is played (p2p B1), not with the turn's other steals
        for k in range(1, len(s.order)):
            opp = s.order[(s.turn_index + k) % len(s.order)]
            _take_junk(s, opp, seat, steal, "bonus", out)


def _play(s: HandState, a: CardPlayed, out: Out, seat: int) -> None:
    """A card played from ``seat``'s hand (``a.seat``, read once by :func:`apply`)."""
    _expect_phase(s, Phase.PLAY, "a played card")
    _expect_seat(s, seat, s.turn_seat)
    _check_fours_shown(s)
    turn = _turn(s)
    card = a.card
    chosen = a.chosen
    i = _idx(card)
    _take_from_hand(s, seat, i)
    if i >= 48:
        if chosen is not None:
            raise _illegal("no_choice", f"bonus card {card} takes no layout card")
        _take_bonus(s, seat, i, "hand", out)
        if s.table.rules.bonus_play is BonusPlay.FLIP_IN_PLACE:
            s.phase = Phase.FLIP_AS_PLAY
        return
    if turn.shake_month and _MONTH_OF[i] != turn.shake_month:
        raise _illegal(
            "shaking", f"the shake showed month {turn.shake_month:02d}: play one of those cards"
        )
    _place_play(s, i, chosen, "hand")
    turn.shake_due = _shake_asked(s, seat, i)


def _shake_asked(s: HandState, seat: int, i: int) -> int:
    """The month whose shake the player is asked once card ``i`` is chosen (0: none): under
    ``shake_asked``, a month they held three of (the card included), absent from the layout,
    not shaken yet. A hand the record does not know is not asked (its count is unknown)."""
    turn = _turn(s)
    m = _MONTH_OF[i]
    if (
        not s.table.asks_shake_on_play
        or turn.shake_month
        or turn.play_n
        or s.shaken_months[seat] & (1 << m)
        or s.hand_unknown[seat]
    ):
        return 0
    return m if popcount(s.hands[seat] & _MM[m]) >= 2 else 0


def _shake_answered(s: HandState, seat: int, month: int) -> Turn:
    """The turn whose shake of ``month`` the player answers now (shake_asked)."""
    _expect_seat(s, seat, s.turn_seat)
    turn = _turn(s)
    if s.phase is not Phase.FLIP or turn.shake_due != month:
        due = f"month {turn.shake_due:02d}" if turn.shake_due else "no shake"
        raise _illegal("shake_asked", f"seat {seat} is asked about {due}, not month {month:02d}")
    turn.shake_due = 0
    return turn


def _shake_declined(s: HandState, a: ShakeDeclined, out: Out) -> None:
    if not s.table.rules.shake_asked:
        raise _illegal("shake_asked", "this ruleset asks no shake: a decline is not recorded")
    _shake_answered(s, a.seat, a.month)


def _flip(s: HandState, a: CardFlipped, out: Out, seat: int) -> None:
    """A card turned from the stock by ``seat`` (``a.seat``, read once by :func:`apply`: in
    the compiled build each read of an event's field is a generic attribute lookup)."""
    if s.phase is not Phase.FLIP_AS_PLAY:
        _expect_phase(s, Phase.FLIP, "a flipped card")
    _expect_seat(s, seat, s.turn_seat)
    due = _turn(s).shake_due
    if due:
        raise _illegal(
            "shake_asked",
            f"seat {seat} played a card of month {due:02d} holding three: shake or decline "
            "before the flip",
        )
    card = a.card
    chosen = a.chosen
    i = _idx(card)
    b = 1 << i
    if s.stock is not None:
        top = s.stock_top()
        if top is None:
            raise _illegal("stock_empty", "the stock is empty")
        if top != i:
            raise _illegal("flip_is_stock_top", f"the next stock card is {CODES[top]}, not {card}")
        s.stock_pos += 1
    else:
        if s.stock_count <= 0:
            raise _illegal("stock_empty", "the stock is empty")
        if not s.table.deck & b or s.seen & b:
            raise _illegal(
                "card_in_stock", f"{card} cannot come from the stock: it is {locate(s, b)}"
            )
        s.stock_count -= 1
        s.seen |= b
    if i >= 48:
        if chosen is not None:
            raise _illegal("no_choice", f"bonus card {card} takes no layout card")
        _take_bonus(s, seat, i, "flip", out)
        return
    if s.phase is Phase.FLIP_AS_PLAY:
        _place_play(s, i, chosen, "hand")
        return
    _resolve(s, i, chosen, out)


def _stack_take(
    s: HandState, seat: int, m: int, ex: frozenset[LastTurnRule], later: Out
) -> tuple[str, str, int]:
    """Kind of a stack capture, and the steal it brings (reason, amount). Bonus cards
    buried in the stack go to the taker's pile first, each with its bonus steal."""
    rules = s.table.rules
    buried = s.buried[m]
    if buried:
        s.buried[m] = 0
        for i in indices(buried):
            later.append(BonusCardTaken(seat=seat, card=CODES[i], source="layout"))
            if rules.bonus_steal:
                _turn(s).steals.append(("bonus", rules.bonus_steal))
    owner = s.owner[m]
    s.owner[m] = -1
    void = _LAST_PPUK_TAKEN in ex
    if owner == seat:
        return "own_ppuk", "own_ppuk", 0 if void else rules.own_ppuk_steal
    if owner >= 0:
        return "ppuk_taken", "ppuk_taken", 0 if void else rules.ppuk_taken_steal
    return "stack", "stack", 0 if void else rules.natural_stack_steal


def _resolve(s: HandState, f: int, f_chosen: str | None, out: Out) -> None:
    """Captures, ppuk, steals and payments of a turn, once both steps are known."""
    t = s.table
    rules = t.rules
    seat = s.turn_seat
    turn = _turn(s)
    last = s.turns_left(seat) == 0
    ex = t.last_turn_exceptions if last else _NO_EXCEPTIONS
    fb = 1 << f
    fm = _MONTH_OF[f]
    p = turn.played
    pm = turn.play_month
    pn = turn.play_n
    layout = s.layout
    groups: list[tuple[int, str, str]] = []  # (cards, source, kind)
    steals = turn.steals
    later: Out = []  # bonus cards taken with a stack: told after the captures
    ppuk = False
    ttadak = False
    flip_done = False

    if turn.flip_bonus and not (
        p >= 0 and not turn.bomb and fm == pm and pn == 1 and _LAST_PPUK not in ex
    ):
        # no ppuk to bury them: the flipped bonus cards are taken as usual
        for i in indices(turn.flip_bonus):
            s.piles[seat] |= 1 << i
            turn.took = True
            out.append(BonusCardTaken(seat=seat, card=CODES[i], source="flip"))
            if rules.bonus_steal:
                steals.append(("bonus", rules.bonus_steal))
        turn.flip_bonus = 0

    if turn.bomb:
        groups.append((layout & _MM[pm], "hand", "bomb"))
    elif p >= 0:
        pb = 1 << p
        if fm == pm:
            flip_done = True
            if f_chosen is not None:
                raise _illegal("no_choice", f"{CODES[f]} joins the played card: no choice")
            if pn == 0:
                groups.append((pb | fb, "hand_and_flip", "jjok"))
                if _LAST_JJOK not in ex and rules.jjok_steal:
                    steals.append(("jjok", rules.jjok_steal))
            elif pn == 1:
                if _LAST_PPUK in ex:
                    groups.append(((layout & _MM[pm]) | fb, "hand_and_flip", "last_turn_three"))
                else:
                    ppuk = True
                    layout |= fb | turn.flip_bonus
                    s.owner[pm] = seat
                    s.ppuk_count[seat] += 1
                    s.buried[pm] |= turn.flip_bonus
                    turn.flip_bonus = 0
                    out.append(
                        PpukMade(
                            seat=seat,
                            month=pm,
                            cards=card_codes(layout & _MM[pm] | s.buried[pm]),
                            count=s.ppuk_count[seat],
                        )
                    )
            else:  # pn == 2: the other two cards of the month were on the layout
                ttadak = True
                groups.append(((layout & _MM[pm]) | fb, "hand_and_flip", "ttadak"))
                if _LAST_TTADAK not in ex and rules.ttadak_steal:
                    steals.append(("ttadak", rules.ttadak_steal))
        elif pn == 1:
            groups.append((layout & _MM[pm], "hand", "pair"))
        elif pn == 2:
            groups.append((pb | (1 << turn.chosen), "hand", "pair"))
        elif pn == 3:
            buried = s.buried[pm]
            kind, reason, amount = _stack_take(s, seat, pm, ex, later)
            groups.append((layout & _MM[pm] | buried, "hand", kind))
            if amount:
                steals.append((reason, amount))

    if not flip_done:
        on = layout & _MM[fm]
        fn = popcount(on)
        if fn == 0:
            if f_chosen is not None:
                raise _illegal("no_choice", f"{CODES[f]} matches nothing: no choice")
            layout |= fb
        elif fn == 3:
            if f_chosen is not None:
                raise _illegal("no_choice", f"{CODES[f]} takes the whole stack: no choice")
            buried = s.buried[fm]
            kind, reason, amount = _stack_take(s, seat, fm, ex, later)
            groups.append((on | fb | buried, "flip", kind))
            if amount:
                steals.append((reason, amount))
        else:
            c = _choose(s, f, on, f_chosen, "flipped")
            groups.append(((1 << c if c >= 0 else on) | fb, "flip", "pair"))

    taken = 0
    for cards, source, kind in groups:
        taken |= cards
        out.append(_CAPTURED(seat=seat, cards=card_codes(cards), source=source, kind=kind))  # type: ignore[arg-type]
    out.extend(later)
    layout &= ~taken
    s.layout = layout
    s.piles[seat] |= taken
    s.last_capture = taken

    if t.sseul_steal and _LAST_SSEUL not in ex:
        if t.sseul_rule is _SSEUL_FLOOR_EMPTY:
            sweep = layout == 0 and taken != 0
        else:
            before = turn.layout_before
            sweep = (
                popcount(before) == 2
                and before & taken == before
                and ((before & -before).bit_length() - 1) // 4 != (before.bit_length() - 1) // 4
            )
        if sweep:
            steals.append(("sseul", t.sseul_steal))

    for reason, amount in steals:
        for k in range(1, len(s.order)):
            opp = s.order[(s.turn_index + k) % len(s.order)]
            _take_junk(s, opp, seat, amount, reason, out)

    first_turn = s.turns_taken[seat] == 0
    if ttadak and first_turn and rules.first_ttadak_points:
        _pay_now(s, seat, rules.first_ttadak_points, "first_ttadak", out)
    if ppuk and s.ppuk_streak[seat] == s.turns_taken[seat]:
        s.ppuk_streak[seat] += 1
        k = s.ppuk_streak[seat]
        if k <= len(rules.first_ppuk_points):
            _pay_now(s, seat, rules.first_ppuk_points[k - 1], "first_ppuk", out)
    s.turns_taken[seat] += 1

    if ppuk and rules.three_ppuk_points is not None and s.ppuk_count[seat] >= 3:
        pts = rules.three_ppuk_points
        s.turn_scores.append(s.score_of(seat))
        _end(s, out, "instant", seat, "three_ppuk", _instant_dues(s, seat, pts, "three_ppuk"))
        return
    # hudang: the seat's turns in a row that took no card (steals are no card taken)
    s.idle_turns[seat] = 0 if taken or turn.took else s.idle_turns[seat] + 1
    if t.hudang and HUDANG.ends_hand(rules, s.idle_turns[seat]):
        pts = HUDANG.points(rules)
        s.turn_scores.append(s.score_of(seat))
        _end(s, out, "instant", seat, "hudang", _instant_dues(s, seat, pts, "hudang"))
        return

    if t.cup_mode is _CUP_CHOICE and s.cup_role is None and taken & CUP:
        s.phase = Phase.CUP
        s.decider = seat
        return
    _after_turn(s, out)


def _pay_now(s: HandState, seat: int, pts: int, reason: str, out: Out) -> None:
    """An instant payment during the hand: separate, never multiplied (A17)."""
    stake = s.table.stake
    for k in range(1, len(s.order)):
        payer = s.order[(s.turn_index + k) % len(s.order)]
        s.instant_dues.append((payer, seat, pts, reason))
        out.append(
            PaymentDue(payer=payer, payee=seat, points=pts, chips=pts * stake, reason=reason)  # type: ignore[arg-type]
        )


def _take_junk(s: HandState, frm: int, to: int, amount: int, reason: str, out: Out) -> None:
    """Hand over junk from one pile to another by the ruleset's count and order (A8)."""
    t = s.table
    rules = t.rules
    pile = s.piles[frm]
    cand = pile & t.stealable
    # Pmang: the cup is fixed as an animal when it is the only junk to hand over
    if (
        rules.cup_transferable
        and pile & CUP
        and (cand or not rules.cup_fixed_when_alone)
        and cup_as_junk(t, pile, s.cup_role)
    ):
        cand |= CUP
    if not cand:
        return
    least = rules.transfer_order is TransferOrder.LEAST_VALUABLE_FIRST
    by_units = rules.steal_count is StealCount.UNITS
    due = amount
    while due > 0 and cand:
        pick = -1
        best: tuple[int, ...] | None = None
        for i in indices(cand):
            u = t.card_units(i)
            key: tuple[int, ...]
            if least:
                key = (u, i)
                if best is None or key < best:
                    best, pick = key, i
            else:
                fits = not by_units or u <= due
                key = (0 if fits else 1, -u if fits else u, i)
                if best is None or key < best:
                    best, pick = key, i
        b = 1 << pick
        cand &= ~b
        s.piles[frm] &= ~b
        s.piles[to] |= b
        out.append(JunkTransferred(from_seat=frm, to_seat=to, card=CODES[pick], reason=reason))  # type: ignore[arg-type]
        due -= t.card_units(pick) if by_units else 1


def _after_turn(s: HandState, out: Out) -> None:
    """Go/Stop for the mover at the end of their turn, else the next turn (C1.2, A15)."""
    seat = s.turn_seat
    sc = s.score_of(seat)
    s.turn_scores.append(sc)
    went = s.go_count[seat]
    if (went == 0 and sc >= s.table.target) or (went and sc > s.go_score[seat]):
        if s.turns_left(seat) == 0 and s.table.rules.last_turn_auto_stop:
            out.append(StopCalled(seat=seat, score=sc, auto=True))
            _stop(s, seat, out, auto=True)
            return
        s.phase = Phase.DECIDE
        s.decider = seat
        return
    _next_turn(s, out)


def _next_turn(s: HandState, out: Out) -> None:
    n = len(s.order)
    for k in range(1, n + 1):
        idx = (s.turn_index + k) % n
        seat = s.order[idx]
        if s.turns_left(seat) > 0:
            s.turn_index = idx
            s.turn_seat = seat
            s.phase = Phase.PLAY
            s.turn = Turn(s.layout)
            return
    _end(s, out, "nagari", None, "cards_exhausted")


def _cup(s: HandState, a: CupAssigned, out: Out) -> None:
    _expect_phase(s, Phase.CUP, "a cup decision")
    _expect_seat(s, a.seat, s.decider)
    s.cup_role = a.role
    _after_turn(s, out)


def _go(s: HandState, a: GoCalled, out: Out) -> None:
    _expect_phase(s, Phase.DECIDE, "Go")
    _expect_seat(s, a.seat, s.decider)
    sc = s.score_of(a.seat)
    want = s.go_count[a.seat] + 1
    if a.count != want or a.score != sc:
        raise _illegal(
            "go_facts",
            f"this is Go number {want} at a score of {sc}, not number {a.count} at {a.score}",
        )
    s.go_count[a.seat] = want
    s.go_score[a.seat] = sc
    s.go_seq += 1
    s.go_order[a.seat] = s.go_seq
    _next_turn(s, out)


def _stop_input(s: HandState, a: StopCalled, out: Out) -> None:
    if a.auto:
        raise _illegal("auto_stop", "an automatic Stop is derived by the rules, not entered")
    _expect_phase(s, Phase.DECIDE, "Stop")
    _expect_seat(s, a.seat, s.decider)
    sc = s.score_of(a.seat)
    if a.score != sc:
        raise _illegal("stop_facts", f"the score at this Stop is {sc}, not {a.score}")
    _stop(s, a.seat, out, auto=False)


_HANDLERS: Final[dict[type, Callable[[HandState, Any, Out], None]]] = {
    CardsDealt: _deal,
    FourOfAMonthShown: _fours,
    FourKept: _four_kept,
    Shaken: _shake,
    ShakeDeclined: _shake_declined,
    BombPlayed: _bomb,
    FlipOnlyPlayed: _flip_only,
    CupAssigned: _cup,
    GoCalled: _go,
    StopCalled: _stop_input,
}


def apply(
    state: HandState, action: Any, deck: int | None = None, inplace: bool = False
) -> tuple[HandState, list[Any]]:
    """The state after an input, and the consequences it derives (in log order).

    ``deck`` (a mask) is the shuffled deck of ``hand_started`` when known; the deal must
    hold exactly its cards. ``inplace`` changes ``state`` itself (see ``game.apply_game``).
    """
    t = type(action)
    # the two inputs of every turn first, called directly (the compiled build makes these
    # native calls; the table's handlers are called as Python functions)
    turn_input = t is _PLAYED or t is _FLIPPED
    handler = None if turn_input else _HANDLERS.get(t)
    if handler is None and not turn_input:
        raise _illegal("hand_input", f"{E.event_type(action)} is not an input to a hand")
    if state.phase is Phase.ENDED:
        raise _illegal("hand_over", f"the hand is over ({state.outcome}); no more plays")
    seat: int | None = action.seat if turn_input else getattr(action, "seat", None)
    if seat is not None:
        if seat >= state.players:
            raise _illegal("seat", f"there is no seat {seat} with {state.players} players")
        if seat not in state.order:
            raise _illegal("sat_out", f"seat {seat} sits out hand {state.hand_no}")
    s = state if inplace else state.copy()
    out: Out = []
    if t is _FLIPPED:
        assert seat is not None
        _flip(s, action, out, seat)
    elif t is _PLAYED:
        assert seat is not None
        _play(s, action, out, seat)
    elif t is CardsDealt:
        _deal(s, action, out, deck)
    else:
        assert handler is not None
        handler(s, action, out)
    return s, out
