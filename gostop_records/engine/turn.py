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
    CODES,
    MONTH_MASKS,
    MONTH_OF,
    indices,
    popcount,
)
from ..events import (
    BombPlayed,
    BonusCardTaken,
    CardFlipped,
    CardPlayed,
    CardsDealt,
    CupAssigned,
    FlipOnlyPlayed,
    FourKept,
    FourOfAMonthShown,
    GoCalled,
    ShakeDeclined,
    Shaken,
    StopCalled,
)
from ..rules import (
    BonusFour,
    BonusPlay,
    Shaking,
)
from .capture import bomb_steal, resolve, take_junk
from .deal import check_fours_shown, deal_cards, four_kept, fours_in, fours_shown
from .ending import after_turn, facts_of, next_turn, stop_hand
from .moves import (
    Out,
    card_index,
    cards_of,
    expect_phase,
    expect_seat,
    illegal,
    locate,
    pick_capture,
    reveal_in_hand,
    take_from_hand,
    turn_of,
)
from .state import HandState, Phase, Turn

__all__ = ["apply", "facts_of", "locate", "new_hand"]

# Final: compiled, each is a C static, where a name imported from outside the kernel (an
# event class, an enum member) is a dictionary lookup at every use (the card tables are
# the kernel's own: ``cards`` declares them Final); these are read on every turn
_PLAYED: Final = CardPlayed
_FLIPPED: Final = CardFlipped


def new_hand(table: Any, hand_no: int, dealer: int, order: list[int], carry: int = 1) -> HandState:
    """A hand waiting for its deal."""
    return HandState(table, hand_no, dealer, order, carry)


# --- the deal ----------------------------------------------------------------------------


# --- ending a hand -----------------------------------------------------------------------


# --- a turn ------------------------------------------------------------------------------


def _before_the_play(s: HandState, seat: int, what: str, rule: str, has: bool, no: str) -> Turn:
    """What a shake and a bomb both need: the play phase, the seat whose turn it is, a
    ruleset that ``has`` them (else ``no`` says so), every four shown; the turn they join."""
    expect_phase(s, Phase.PLAY, what)
    expect_seat(s, seat, s.turn_seat)
    if not has:
        raise illegal(rule, no)
    check_fours_shown(s)
    return turn_of(s)


def _shake(s: HandState, a: Shaken, out: Out) -> None:
    if s.phase is Phase.FLIP and s.turn is not None and s.turn.shake_due:
        # asked once the card is chosen (shake_asked): the card played shows with the rest
        turn = _shake_answered(s, a.seat, a.month)
        cards = cards_of(a.cards)
        played = 1 << turn.played
        if not cards & played or cards & ~MONTH_MASKS[a.month] or popcount(cards) < 3:
            raise illegal(
                "shaking",
                f"a shake shows the card played, {CODES[turn.played]}, and the other cards of "
                f"month {a.month:02d} in hand",
            )
        reveal_in_hand(s, a.seat, cards & ~played)
        if s.hands[a.seat] & MONTH_MASKS[a.month] & ~cards:
            raise illegal("shaking", f"a shake shows every card of month {a.month:02d} held")
        turn.shake_month = a.month
        s.shakes[a.seat] += 1
        s.shaken_months[a.seat] |= 1 << a.month
        return
    mode = s.table.rules.shaking
    no = "this ruleset has no shaking (heundeum)"
    turn = _before_the_play(s, a.seat, "a shake", "shaking", mode is not Shaking.NONE, no)
    if turn.played >= 0 or turn.bomb:
        raise illegal("shaking", "a shake is shown before the turn's card is played")
    cards = cards_of(a.cards)
    # a four kept in hand (hand_four_keep) may be shaken whole: Pmang's x4 path
    whole = s.table.rules.hand_four_keep and cards == MONTH_MASKS[a.month]
    if (popcount(cards) != 3 and not whole) or cards & ~MONTH_MASKS[a.month]:
        raise illegal("shaking", f"a shake shows three cards of month {a.month:02d}")
    if s.shaken_months[a.seat] & (1 << a.month):
        raise illegal("shaking", f"seat {a.seat} already shook month {a.month:02d}")
    if mode is Shaking.ON_PLAY:
        if turn.shake_month:
            raise illegal("shaking", "one shake per played card")
        if s.layout & MONTH_MASKS[a.month]:
            raise illegal(
                "shake_month_absent",
                f"month {a.month:02d} is on the layout: shaking needs it absent "
                "(with the fourth card face up, three in hand make a bomb)",
            )
        turn.shake_month = a.month
    reveal_in_hand(s, a.seat, cards)
    s.shakes[a.seat] += 1
    s.shaken_months[a.seat] |= 1 << a.month


def _bomb(s: HandState, a: BombPlayed, out: Out) -> None:
    rules = s.table.rules
    turn = _before_the_play(s, a.seat, "a bomb", "bombs", rules.bombs, "this ruleset has no bombs")
    if turn.played >= 0 or turn.shake_month:
        raise illegal("bombs", "a bomb is the turn's play: nothing else is played with it")
    cards = cards_of(a.cards)
    k = popcount(cards)
    m = a.month
    if cards & ~MONTH_MASKS[m] or k not in ((2, 3) if rules.two_card_bomb else (3,)):
        need = "two or three" if rules.two_card_bomb else "three"
        raise illegal("bombs", f"a bomb plays {need} cards of month {m:02d}")
    on = s.layout & MONTH_MASKS[m]
    if popcount(on) != 4 - k:
        raise illegal(
            "bombs",
            f"a bomb of {k} needs the other {4 - k} card(s) of month {m:02d} on the layout; "
            f"it holds {popcount(on)}",
        )
    if rules.shaking is Shaking.BEFORE_TURN and s.shaken_months[a.seat] & (1 << m):
        raise illegal("shaken_month_cannot_bomb", f"month {m:02d} was shaken: no bomb (G19)")
    for i in indices(cards):
        take_from_hand(s, a.seat, i)
    s.layout |= cards
    turn.bomb = cards
    turn.play_month = m
    turn.play_n = 4 - k
    s.flip_only[a.seat] += k - 1
    s.bombs[a.seat] += 1
    if k == 2:
        s.two_bombs[a.seat] += 1
    steal = bomb_steal(rules, k)
    if steal:
        turn.steals.append(("bomb", steal))
    s.phase = Phase.FLIP


def _flip_only(s: HandState, a: FlipOnlyPlayed, out: Out) -> None:
    expect_phase(s, Phase.PLAY, "a flip-only turn")
    expect_seat(s, a.seat, s.turn_seat)
    turn = turn_of(s)
    if not s.flip_only[a.seat]:
        raise illegal("flip_only", f"seat {a.seat} has no flip-only turn (they follow a bomb)")
    if turn.played >= 0 or turn.shake_month:
        raise illegal("flip_only", "a flip-only turn plays no card")
    s.flip_only[a.seat] -= 1
    s.phase = Phase.FLIP


def _place_play(s: HandState, i: int, chosen: str | None, source: str) -> None:
    turn = turn_of(s)
    m = MONTH_OF[i]
    on = s.layout & MONTH_MASKS[m]
    turn.chosen = pick_capture(s, i, on, chosen, "played")
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
            raise illegal("stock_empty", "the stock is empty")
        i = s.stock[s.stock_pos]
        s.stock_pos += 1
        return i
    if s.stock_count <= 0:
        raise illegal("stock_empty", "the stock is empty")
    s.stock_count -= 1
    return -1


def _take_bonus(s: HandState, seat: int, i: int, source: str, out: Out) -> None:
    turn = turn_of(s)
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
            if counts and fours_in(s.hands[seat]) & (1 << MONTH_OF[r]):
                s.fours_pending |= 1 << seat  # shown to win, or kept, before the next play
        else:
            s.hand_unknown[seat] += 1
    out.append(BonusCardTaken(seat=seat, card=CODES[i], source=source, replacement=replacement))  # type: ignore[arg-type]
    if at_once:
        # before the replacement is played (p2p B1), not with the turn's other steals
        for k in range(1, len(s.order)):
            opp = s.order[(s.turn_index + k) % len(s.order)]
            take_junk(s, opp, seat, steal, "bonus", out)


def _play(s: HandState, a: CardPlayed, out: Out, seat: int) -> None:
    """A card played from ``seat``'s hand (``a.seat``, read once by :func:`apply`)."""
    expect_phase(s, Phase.PLAY, "a played card")
    expect_seat(s, seat, s.turn_seat)
    check_fours_shown(s)
    turn = turn_of(s)
    card = a.card
    chosen = a.chosen
    i = card_index(card)
    take_from_hand(s, seat, i)
    if i >= 48:
        if chosen is not None:
            raise illegal("no_choice", f"bonus card {card} takes no layout card")
        _take_bonus(s, seat, i, "hand", out)
        if s.table.rules.bonus_play is BonusPlay.FLIP_IN_PLACE:
            s.phase = Phase.FLIP_AS_PLAY
        return
    if turn.shake_month and MONTH_OF[i] != turn.shake_month:
        raise illegal(
            "shaking", f"the shake showed month {turn.shake_month:02d}: play one of those cards"
        )
    _place_play(s, i, chosen, "hand")
    turn.shake_due = _shake_asked(s, seat, i)


def _shake_asked(s: HandState, seat: int, i: int) -> int:
    """The month whose shake the player is asked once card ``i`` is chosen (0: none): under
    ``shake_asked``, a month they held three of (the card included), absent from the layout,
    not shaken yet. A hand the record does not know is not asked (its count is unknown)."""
    turn = turn_of(s)
    m = MONTH_OF[i]
    if (
        not s.table.asks_shake_on_play
        or turn.shake_month
        or turn.play_n
        or s.shaken_months[seat] & (1 << m)
        or s.hand_unknown[seat]
    ):
        return 0
    return m if popcount(s.hands[seat] & MONTH_MASKS[m]) >= 2 else 0


def _shake_answered(s: HandState, seat: int, month: int) -> Turn:
    """The turn whose shake of ``month`` the player answers now (shake_asked)."""
    expect_seat(s, seat, s.turn_seat)
    turn = turn_of(s)
    if s.phase is not Phase.FLIP or turn.shake_due != month:
        due = f"month {turn.shake_due:02d}" if turn.shake_due else "no shake"
        raise illegal("shake_asked", f"seat {seat} is asked about {due}, not month {month:02d}")
    turn.shake_due = 0
    return turn


def _shake_declined(s: HandState, a: ShakeDeclined, out: Out) -> None:
    if not s.table.rules.shake_asked:
        raise illegal("shake_asked", "this ruleset asks no shake: a decline is not recorded")
    _shake_answered(s, a.seat, a.month)


def _flip(s: HandState, a: CardFlipped, out: Out, seat: int) -> None:
    """A card turned from the stock by ``seat`` (``a.seat``, read once by :func:`apply`: in
    the compiled build each read of an event's field is a generic attribute lookup)."""
    if s.phase is not Phase.FLIP_AS_PLAY:
        expect_phase(s, Phase.FLIP, "a flipped card")
    expect_seat(s, seat, s.turn_seat)
    due = turn_of(s).shake_due
    if due:
        raise illegal(
            "shake_asked",
            f"seat {seat} played a card of month {due:02d} holding three: shake or decline "
            "before the flip",
        )
    card = a.card
    chosen = a.chosen
    i = card_index(card)
    b = 1 << i
    if s.stock is not None:
        top = s.stock_top()
        if top is None:
            raise illegal("stock_empty", "the stock is empty")
        if top != i:
            raise illegal("flip_is_stock_top", f"the next stock card is {CODES[top]}, not {card}")
        s.stock_pos += 1
    else:
        if s.stock_count <= 0:
            raise illegal("stock_empty", "the stock is empty")
        if not s.table.deck & b or s.seen & b:
            raise illegal(
                "card_in_stock", f"{card} cannot come from the stock: it is {locate(s, b)}"
            )
        s.stock_count -= 1
        s.seen |= b
    if i >= 48:
        if chosen is not None:
            raise illegal("no_choice", f"bonus card {card} takes no layout card")
        _take_bonus(s, seat, i, "flip", out)
        return
    if s.phase is Phase.FLIP_AS_PLAY:
        _place_play(s, i, chosen, "hand")
        return
    resolve(s, i, chosen, out)


def _cup(s: HandState, a: CupAssigned, out: Out) -> None:
    expect_phase(s, Phase.CUP, "a cup decision")
    expect_seat(s, a.seat, s.decider)
    s.cup_role = a.role
    after_turn(s, out)


def _go(s: HandState, a: GoCalled, out: Out) -> None:
    expect_phase(s, Phase.DECIDE, "Go")
    expect_seat(s, a.seat, s.decider)
    sc = s.score_of(a.seat)
    want = s.go_count[a.seat] + 1
    if a.count != want or a.score != sc:
        raise illegal(
            "go_facts",
            f"this is Go number {want} at a score of {sc}, not number {a.count} at {a.score}",
        )
    s.go_count[a.seat] = want
    s.go_score[a.seat] = sc
    s.go_seq += 1
    s.go_order[a.seat] = s.go_seq
    next_turn(s, out)


def _stop_input(s: HandState, a: StopCalled, out: Out) -> None:
    if a.auto:
        raise illegal("auto_stop", "an automatic Stop is derived by the rules, not entered")
    expect_phase(s, Phase.DECIDE, "Stop")
    expect_seat(s, a.seat, s.decider)
    sc = s.score_of(a.seat)
    if a.score != sc:
        raise illegal("stop_facts", f"the score at this Stop is {sc}, not {a.score}")
    stop_hand(s, a.seat, out, auto=False)


_HANDLERS: Final[dict[type, Callable[[HandState, Any, Out], None]]] = {
    CardsDealt: deal_cards,
    FourOfAMonthShown: fours_shown,
    FourKept: four_kept,
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
        raise illegal("hand_input", f"{E.event_type(action)} is not an input to a hand")
    if state.phase is Phase.ENDED:
        raise illegal("hand_over", f"the hand is over ({state.outcome}); no more plays")
    seat: int | None = action.seat if turn_input else getattr(action, "seat", None)
    if seat is not None:
        if seat >= state.players:
            raise illegal("seat", f"there is no seat {seat} with {state.players} players")
        if seat not in state.order:
            raise illegal("sat_out", f"seat {seat} sits out hand {state.hand_no}")
    s = state if inplace else state.copy()
    out: Out = []
    if t is _FLIPPED:
        assert seat is not None
        _flip(s, action, out, seat)
    elif t is _PLAYED:
        assert seat is not None
        _play(s, action, out, seat)
    elif t is CardsDealt:
        deal_cards(s, action, out, deck)
    else:
        assert handler is not None
        handler(s, action, out)
    return s, out
