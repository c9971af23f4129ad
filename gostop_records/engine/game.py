"""The game level: seats, the hand in progress, who deals next, the nagari carry, the ledger.

A game is a sitting of consecutive hands with the same players and ruleset. The nagari carry,
the dealer rotation and the chip ledger run across its hands, so they live here, above the
hand state. Like the hand state, a game state is never changed in place: :func:`apply_game`
returns a new one, which is what makes undo (``entry_retracted``) a matter of keeping the
previous state.
"""

from __future__ import annotations

from typing import Any, Final

from .. import events as E
from ..cards import (
    codes,
    index,
)
from ..errors import IllegalAction
from ..events import (
    BrightsSold,
    ChipsCounted,
    DealerDrawn,
    GameClosed,
    GameStarted,
    HandEnded,
    HandStarted,
    NoteAdded,
    PaymentCapped,
    PaymentDue,
    PaymentRecorded,
    SeatsSatOut,
    SettlementPaid,
    SettlementProposed,
    SettlementTransfer,
    SittingEnded,
)
from ..people import seat_ids
from ..rules import ChipLimit, FirstDealer, Ruleset
from . import night as NIGHT
from .deal import first_play_pending
from .moves import illegal
from .rulebook import seats as SEATS
from .sitting import GameState, HandResult, Waiting
from .state import HandState, Phase
from .table import table_for
from .turn import apply as apply_hand
from .turn import new_hand

__all__ = ["GameState", "HandResult", "Waiting", "apply_game", "start_game"]


def _settled(g: GameState) -> list[int]:
    """Chips per seat at the end of the last finished hand (counted chips plus results)."""
    held = list(g.chips or [0] * g.table.players)
    for r in g.results:
        for payer, payee, _pts, chips, _why in r.dues:
            held[payer] -= chips
            held[payee] += chips
    return held


def start_game(game_id: str, ev: GameStarted) -> GameState:
    rules = Ruleset.from_pinned(ev.ruleset)
    n = len(ev.players)
    table = table_for(rules, n, ev.stake)
    ids = seat_ids(ev.players)
    if len(set(ids)) != n:
        raise IllegalAction("players", "two seats have the same player id")
    players = tuple(
        p if p.id else E.Player(id=pid, name=p.name) for p, pid in zip(ev.players, ids, strict=True)
    )
    return GameState(game_id, rules, table, players, ev.stake)


def _hand_started(g: GameState, ev: HandStarted, inplace: bool) -> GameState:
    if g.finished and g.broke:
        raise illegal(
            "end_when_broke",
            f"the sitting is over: seat {', '.join(map(str, g.broke))} has no chips left",
        )
    if g.finished:
        raise illegal("single_hand", "this ruleset plays a single hand; the game is over")
    if g.in_hand:
        raise illegal("hand_order", f"hand {g.hand_no} is still in progress")
    if ev.hand != g.hand_no + 1:
        raise illegal("hand_order", f"the next hand is number {g.hand_no + 1}, not {ev.hand}")
    n = g.table.players
    if ev.dealer >= n:
        raise illegal("seat", f"there is no seat {ev.dealer}")
    rules = g.rules
    if ev.hand == 1 and rules.first_dealer is FirstDealer.DRAW and g.next_dealer is None:
        raise illegal(
            "dealer_draw",
            "the first dealer is drawn (first_dealer = draw): record dealer_drawn first"
            + (f"; seats {list(g.draw_tied)} tied and draw again" if g.draw_tied else ""),
        )
    if (
        ev.hand == 1
        and g.chips is None
        and (rules.chip_limit is not ChipLimit.NONE or rules.end_when_broke)
    ):
        raise illegal(
            "chips_counted",
            f"chip_limit = {rules.chip_limit.value}, end_when_broke = "
            f"{str(rules.end_when_broke).lower()}: record chips_counted before the first hand",
        )
    if g.next_dealer is not None and ev.dealer != g.next_dealer:
        raise illegal(
            "dealer",
            f"seat {g.next_dealer} deals hand {ev.hand} (the winner deals; after a nagari or "
            f"a void deal the dealer stays), not seat {ev.dealer}",
        )
    try:
        sat_out = SEATS.sitters(rules, n, ev.dealer, ev.order)
    except ValueError as exc:
        raise illegal("turn_order", str(exc)) from None
    deck = None
    if ev.deck is not None:
        deck = 0
        for code in ev.deck:
            b = 1 << index(code)
            if deck & b:
                raise illegal("card_twice", f"{code} is twice in the shuffled deck")
            deck |= b
        if deck != g.table.deck:
            raise illegal(
                "deck",
                "the shuffled deck does not hold this ruleset's cards: "
                + ", ".join(codes(deck ^ g.table.deck)),
            )
    out = g if inplace else g.copy()
    out.hand = new_hand(g.table, ev.hand, ev.dealer, list(ev.order), g.carry)
    out.hand_no = ev.hand
    out.deck = deck
    out.sat_out = tuple(sat_out)
    out.hand_dues = ()
    return out


def _sat_out_event(g: GameState) -> list[Any]:
    if not g.sat_out:
        return []
    return [SeatsSatOut(seats=list(g.sat_out), rule=g.rules.sit_out.value)]  # type: ignore[arg-type]


def _dealer_drawn(g: GameState, ev: DealerDrawn, inplace: bool) -> GameState:
    if g.rules.first_dealer is not FirstDealer.DRAW:
        raise illegal(
            "dealer_draw", "this ruleset chooses the first dealer by lot (first_dealer = lot)"
        )
    if g.hand_no or g.next_dealer is not None:
        raise illegal("dealer_draw", "the draw for the first dealer comes before the first hand")
    n = g.table.players
    want = sorted(g.draw_tied) if g.draw_tied else list(range(n))
    got = sorted(d.seat for d in ev.draws)
    if got != want:
        who = "the tied seats" if g.draw_tied else "every seat"
        raise illegal("dealer_draw", f"{who} draw once: seats {want}, not {got}")
    rules = g.rules
    try:
        dealer, tied = SEATS.dealer_by_draw(
            [(d.seat, d.card) for d in ev.draws], ev.night, rules.draw_bonus_wins
        )
    except ValueError as exc:
        raise illegal("dealer_draw", str(exc)) from None
    by_lot = SEATS.FIRST_DEALER_DRAW.by_lot(rules, g.draw_ties, dealer)
    if ev.by_lot != by_lot:
        if by_lot:
            raise illegal(
                "dealer_draw",
                f"after {rules.draw_ties_by_lot} tied draws the dealer among seats {tied} is "
                "chosen by lot: the record names them (by_lot)",
            )
        raise illegal("dealer_draw", "this draw does not end by lot: the cards decide")
    if by_lot:
        if ev.dealer not in tied:
            raise illegal(
                "dealer_draw", f"the lot chooses among the tied seats {tied}, not {ev.dealer}"
            )
        dealer, tied = ev.dealer, []
    if ev.dealer != dealer:
        when = "by night the lowest month" if ev.night else "by day the highest month"
        says = f"seat {dealer} deals" if dealer is not None else f"seats {tied} tie and draw again"
        raise illegal("dealer_draw", f"{when} deals: {says}, not seat {ev.dealer}")
    out = g if inplace else g.copy()
    out.draw_tied = tuple(tied)
    out.draw_ties = g.draw_ties + 1 if tied else 0
    out.next_dealer = dealer
    return out


def _chips_counted(g: GameState, ev: ChipsCounted, inplace: bool) -> GameState:
    if g.hand_no or g.chips is not None:
        raise illegal("chips_counted", "chips are counted once, before the first hand")
    if len(ev.chips) != g.table.players:
        raise illegal("chips_counted", f"{len(ev.chips)} counts for {g.table.players} seats")
    out = g if inplace else g.copy()
    out.chips = tuple(ev.chips)
    return out


def _brights_sold(g: GameState, ev: BrightsSold, inplace: bool) -> tuple[GameState, list[Any]]:
    rules = g.rules
    h = g.hand
    if not rules.gwang_price:
        raise illegal("gwang_pali", "this ruleset sells no brights (gwang_price = 0)")
    if h is None or not g.in_hand or not first_play_pending(h):
        raise illegal("gwang_pali", "brights are sold after the deal, before the first play")
    if ev.seat not in g.sat_out:
        raise illegal(
            "gwang_pali", f"seat {ev.seat} plays this hand: only a seat sitting out sells"
        )
    if any(hand == g.hand_no and seat == ev.seat for hand, seat, _ in g.sales):
        raise illegal("gwang_pali", f"seat {ev.seat} has sold its brights this hand")
    try:
        mask = SEATS.check_sale(ev.cards)
    except ValueError as exc:
        raise illegal("gwang_pali", str(exc)) from None
    if h.stock is not None:
        block = 0
        for i in SEATS.seller_block(h.stock, g.sat_out, ev.seat, g.table.hand_size):
            block |= 1 << i
        if mask & ~block:
            raise illegal(
                "gwang_pali",
                f"{', '.join(codes(mask & ~block))} not in seat {ev.seat}'s hand (the "
                "sitters' hands lie under the stock)",
            )
    elif mask & h.seen:  # the hands, the layout and the bonus cards the record knows
        raise illegal("gwang_pali", f"{', '.join(codes(mask & h.seen))} is dealt to the play")
    pts = SEATS.sale_points(rules, ev.cards)
    dues = [(p, ev.seat, pts, pts * g.stake, "gwang_pali") for p in sorted(h.order)]
    derived: list[Any] = [
        PaymentDue(payer=p, payee=q, points=pt, chips=c, reason="gwang_pali")
        for p, q, pt, c, _ in dues
    ]
    out = g if inplace else g.copy()
    dues, derived = _capped(g, out, dues, derived)
    out.sales = (*g.sales, (g.hand_no, ev.seat, tuple(ev.cards)))
    out.hand_dues = (*g.hand_dues, *dues)
    return out, derived


def _capped_events(capped: list[SEATS.Capped]) -> list[Any]:
    return [
        PaymentCapped(payer=p, payee=q, due=due, paid=paid, cap=cap)  # type: ignore[arg-type]
        for p, q, due, paid, cap in capped
    ]


def _result_of(
    h: HandState, dues: list[tuple[int, int, int, int, str]], next_carry: int
) -> HandResult:
    return HandResult(
        hand=h.hand_no,
        dealer=h.dealer,
        outcome=h.outcome or "",
        winner=h.winner,
        reason=h.reason,
        carry=h.carry,
        next_carry=next_carry,
        dues=tuple(dues),
        state=h,
    )


#: The inputs of the game around its hands; every other input goes to the hand.
_GAME_INPUTS = frozenset(
    {
        HandStarted,
        BrightsSold,
        DealerDrawn,
        ChipsCounted,
        PaymentRecorded,
        NoteAdded,
        GameStarted,
        GameClosed,
        SettlementPaid,
    }
)


# Long: one branch per table input (compiled hot path: one call per input, no dispatch).
def apply_game(g: GameState, ev: Any, inplace: bool = False) -> tuple[GameState, list[Any]]:
    """The game after an input, and the consequences the rules derive from it.

    ``inplace`` changes ``g`` itself instead of a copy: the fast path of a whole-log fold,
    which keeps no earlier state. An input the rules refuse may then leave ``g`` half
    changed; the caller rebuilds it (see ``projector``).
    """
    t = type(ev)
    if g.night is not None and t is not SettlementPaid and t is not NoteAdded:
        raise illegal(
            NIGHT.GAME_CLOSED,
            f"the night is closed: {E.event_type(ev)} is not recorded after game_closed "
            "(only the settlement's payments, notes and signatures)",
        )
    if t in _GAME_INPUTS:  # else an input to the hand in progress, the usual case
        if t is GameClosed:
            NIGHT.check_close(g)
            out = g if inplace else g.copy()
            out.night = night = NIGHT.night_of(g)
            proposed = SettlementProposed(
                totals=list(night.totals),
                paid=list(night.paid),
                owed=list(night.owed),
                transfers=[
                    SettlementTransfer(payer=p, payee=q, chips=c) for p, q, c in night.transfers
                ],
            )
            return out, [proposed]
        if t is SettlementPaid:
            NIGHT.check_paid(g, ev.payer, ev.payee, ev.chips, ev.note)
            out = g if inplace else g.copy()
            out.settled = (*g.settled, (ev.payer, ev.payee, ev.chips, ev.note))
            return out, []
        if t is HandStarted:
            out = _hand_started(g, ev, inplace)
            return out, _sat_out_event(out)
        if t is BrightsSold:
            return _brights_sold(g, ev, inplace)
        if t is DealerDrawn:
            return _dealer_drawn(g, ev, inplace), []
        if t is ChipsCounted:
            return _chips_counted(g, ev, inplace), []
        if t is PaymentRecorded:
            n = g.table.players
            if ev.payer >= n or ev.payee >= n or ev.payer == ev.payee:
                raise illegal("payment", f"a payment from seat {ev.payer} to seat {ev.payee}")
            if g.hand_no == 0:
                raise illegal("payment", "a payment is recorded for a hand; no hand has started")
            _check_payment_note(g, ev)
            out = g if inplace else g.copy()
            out.payments = (*g.payments, (g.hand_no, ev.payer, ev.payee, ev.chips))
            return out, []
        if t is NoteAdded:
            out = g if inplace else g.copy()
            out.notes = (*g.notes, (ev.about_seq, ev.text))
            return out, []
        if t is GameStarted:
            raise illegal("game_started", "a game starts once, with its first event")
    h = g.hand
    if h is None:
        raise illegal("hand_order", f"{E.event_type(ev)} comes after hand_started")
    early_dues = len(h.instant_dues)
    new_h, derived = apply_hand(h, ev, g.deck, inplace)
    out = g if inplace else g.copy()
    out.hand = new_h
    if new_h.phase is not Phase.ENDED:
        if len(new_h.instant_dues) > early_dues:  # paid now: capped now (chips on the table)
            derived = _pay_during_hand(g, out, derived)
        return out, derived
    # instant payments made earlier in the hand are in hand_dues, as the chips allowed them
    dues: list[tuple[int, int, int, int, str]] = []
    next_carry = g.carry
    for d in derived:
        if type(d) is PaymentDue:
            dues.append((d.payer, d.payee, d.points, d.chips, d.reason))
        elif type(d) is HandEnded:
            next_carry = d.next_carry
    dues, derived = _capped(g, out, dues, derived)
    res = _result_of(new_h, [*g.hand_dues, *dues], next_carry)
    out.results = (*g.results, res)
    out.hand_dues = ()
    out.carry = next_carry
    out.next_dealer = new_h.winner if new_h.winner is not None else new_h.dealer
    if g.rules.single_hand and res.outcome != "void":
        out.finished = True
    if g.rules.end_when_broke and g.chips is not None:
        broke = tuple(s for s, c in enumerate(_settled(out)) if c <= 0)
        if broke:
            derived = [*derived, SittingEnded(seats=list(broke))]
            out.broke = broke
            out.finished = True
    return out, derived


#: The rule that a payment made while nothing is due says why (its note): chips that change
#: hands outside the rules' dues keep their reason in the record.
PAYMENT_NOTE: Final = "payment_note"


def _check_payment_note(g: GameState, ev: PaymentRecorded) -> None:
    """A payment while no due is pending (mid-hand with nothing due, or once the hand's dues
    are answered) is refused without a note saying why (``payment_note``). A payment made
    while dues are pending answers them as the table paid, for the audit to compare."""
    if (ev.note or "").strip() or g.pending_dues():
        return
    when = f"during hand {g.hand_no}" if g.in_hand else f"after hand {g.hand_no}"
    raise illegal(
        PAYMENT_NOTE,
        f"nothing is due {when}: a payment from seat {ev.payer} to seat {ev.payee} needs a "
        f"note saying why (pay {ev.payer}->{ev.payee} {ev.chips} NOTE)",
    )


def _pay_during_hand(g: GameState, out: GameState, derived: list[Any]) -> list[Any]:
    """Instant payments made during the hand (first-turn ppuk, first ttadak) go to the
    hand's dues when they are made; with chips counted, each is capped then, as a table
    pays it: a player who runs out mid-hand pays what they hold, the shortfall recorded at
    that point. ``out`` is updated; returns the consequences with the caps after the dues."""
    made: list[SEATS.Due] = [
        (d.payer, d.payee, d.points, d.chips, d.reason) for d in derived if type(d) is PaymentDue
    ]
    paid, derived = _capped(g, out, made, derived)
    out.hand_dues = (*g.hand_dues, *paid)
    return derived


def _capped(
    g: GameState, out: GameState, dues: list[SEATS.Due], derived: list[Any]
) -> tuple[list[SEATS.Due], list[Any]]:
    """Dues as the chips on the table allow them, paid after the hand's earlier dues: the
    capped ones recorded in ``out.shortfalls`` and as ``payment_capped`` after ``derived``.
    Without chips counted, the dues as they are."""
    if g.chips is None:
        return dues, derived
    held = [c + s for c, s in zip(_settled(g), _sale_net(g), strict=True)]
    dues, capped = SEATS.cap_dues(g.rules, dues, held, _settled(g))
    if capped:
        derived = [*derived, *_capped_events(capped)]
        out.shortfalls = (*g.shortfalls, *((g.hand_no, *c) for c in capped))
    return dues, derived


def _sale_net(g: GameState) -> list[int]:
    net = [0] * g.table.players
    for payer, payee, _pts, chips, _why in g.hand_dues:
        net[payer] -= chips
        net[payee] += chips
    return net
