"""A turn's captures, resolved once the flip is known (C3.4): pairs, stacks, ppuk,
ttadak, jjok and sweeps, the junk each steals (one transfer per card, in the order the
specials happened, A7) and what a special pays at once.
"""

from __future__ import annotations

from typing import Final

from ..cards import (
    CODES,
    CUP,
    MONTH_MASKS,
    MONTH_OF,
    indices,
    popcount,
)
from ..cards import (
    codes as card_codes,
)
from ..events import (
    BonusCardTaken,
    CardsCaptured,
    JunkTransferred,
    PaymentDue,
    PpukMade,
)
from ..rules import (
    CupMode,
    LastTurnRule,
    Ruleset,
    SseulRule,
    StealCount,
    TransferOrder,
)
from .ending import after_turn, end_hand, instant_dues_of
from .moves import Out, illegal, pick_capture, turn_of
from .rulebook import HUDANG
from .scoring import cup_as_junk
from .state import HandState, Phase

# Final: compiled, each is a C static, where a name imported from outside the kernel (an
# event class, an enum member) is a dictionary lookup at every use (the card tables are
# the kernel's own: ``cards`` declares them Final); these are read on every turn
_NO_EXCEPTIONS: Final[frozenset[LastTurnRule]] = frozenset()
_LAST_PPUK: Final = LastTurnRule.PPUK
_LAST_PPUK_TAKEN: Final = LastTurnRule.PPUK_TAKEN
_LAST_JJOK: Final = LastTurnRule.JJOK
_LAST_TTADAK: Final = LastTurnRule.TTADAK
_LAST_SSEUL: Final = LastTurnRule.SSEUL
_SSEUL_FLOOR_EMPTY: Final = SseulRule.FLOOR_EMPTY
_CUP_CHOICE: Final = CupMode.PLAYER_CHOICE
_CAPTURED: Final = CardsCaptured


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
                turn_of(s).steals.append(("bonus", rules.bonus_steal))
    kind, amount = stack_steal(s, seat, m, ex)
    s.owner[m] = -1
    return kind, kind, amount


def stack_steal(s: HandState, seat: int, m: int, ex: frozenset[LastTurnRule]) -> tuple[str, int]:
    """What taking the stack of month ``m`` is (``own_ppuk``, ``ppuk_taken`` or ``stack``)
    and the junk it steals from each opponent; ``ex``: the last-turn exceptions in force (none
    before the last turn). The one decision of it: ``gostop play`` words its options by it."""
    rules = s.table.rules
    owner = s.owner[m]
    void = _LAST_PPUK_TAKEN in ex
    if owner == seat:
        return "own_ppuk", 0 if void else rules.own_ppuk_steal
    if owner >= 0:
        return "ppuk_taken", 0 if void else rules.ppuk_taken_steal
    return "stack", 0 if void else rules.natural_stack_steal


def bomb_steal(rules: Ruleset, cards: int) -> int:
    """The junk a bomb of ``cards`` cards steals from each opponent."""
    if cards == 2 and rules.two_card_bomb_steal is not None:
        return rules.two_card_bomb_steal
    return rules.bomb_steal


# Long: the capture rules of a turn in the order the rules apply them (compiled hot path).
def resolve(s: HandState, f: int, f_chosen: str | None, out: Out) -> None:
    """Captures, ppuk, steals and payments of a turn, once both steps are known."""
    t = s.table
    rules = t.rules
    seat = s.turn_seat
    turn = turn_of(s)
    last = s.turns_left(seat) == 0
    ex = t.last_turn_exceptions if last else _NO_EXCEPTIONS
    fb = 1 << f
    fm = MONTH_OF[f]
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
        groups.append((layout & MONTH_MASKS[pm], "hand", "bomb"))
    elif p >= 0:
        pb = 1 << p
        if fm == pm:
            flip_done = True
            if f_chosen is not None:
                raise illegal("no_choice", f"{CODES[f]} joins the played card: no choice")
            if pn == 0:
                groups.append((pb | fb, "hand_and_flip", "jjok"))
                if _LAST_JJOK not in ex and rules.jjok_steal:
                    steals.append(("jjok", rules.jjok_steal))
            elif pn == 1:
                if _LAST_PPUK in ex:
                    three = (layout & MONTH_MASKS[pm]) | fb
                    groups.append((three, "hand_and_flip", "last_turn_three"))
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
                            cards=card_codes(layout & MONTH_MASKS[pm] | s.buried[pm]),
                            count=s.ppuk_count[seat],
                        )
                    )
            else:  # pn == 2: the other two cards of the month were on the layout
                ttadak = True
                groups.append(((layout & MONTH_MASKS[pm]) | fb, "hand_and_flip", "ttadak"))
                if _LAST_TTADAK not in ex and rules.ttadak_steal:
                    steals.append(("ttadak", rules.ttadak_steal))
        elif pn == 1:
            groups.append((layout & MONTH_MASKS[pm], "hand", "pair"))
        elif pn == 2:
            groups.append((pb | (1 << turn.chosen), "hand", "pair"))
        elif pn == 3:
            buried = s.buried[pm]
            kind, reason, amount = _stack_take(s, seat, pm, ex, later)
            groups.append((layout & MONTH_MASKS[pm] | buried, "hand", kind))
            if amount:
                steals.append((reason, amount))

    if not flip_done:
        on = layout & MONTH_MASKS[fm]
        fn = popcount(on)
        if fn == 0:
            if f_chosen is not None:
                raise illegal("no_choice", f"{CODES[f]} matches nothing: no choice")
            layout |= fb
        elif fn == 3:
            if f_chosen is not None:
                raise illegal("no_choice", f"{CODES[f]} takes the whole stack: no choice")
            buried = s.buried[fm]
            kind, reason, amount = _stack_take(s, seat, fm, ex, later)
            groups.append((on | fb | buried, "flip", kind))
            if amount:
                steals.append((reason, amount))
        else:
            c = pick_capture(s, f, on, f_chosen, "flipped")
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
            take_junk(s, opp, seat, amount, reason, out)

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
        s.end_turn(seat)
        end_hand(s, out, "instant", seat, "three_ppuk", instant_dues_of(s, seat, pts, "three_ppuk"))
        return
    # hudang: the seat's turns in a row that took no card (steals are no card taken)
    s.idle_turns[seat] = 0 if taken or turn.took else s.idle_turns[seat] + 1
    if t.hudang and HUDANG.ends_hand(rules, s.idle_turns[seat]):
        pts = HUDANG.points(rules)
        s.end_turn(seat)
        end_hand(s, out, "instant", seat, "hudang", instant_dues_of(s, seat, pts, "hudang"))
        return

    if t.cup_mode is _CUP_CHOICE and s.cup_role is None and taken & CUP:
        s.phase = Phase.CUP
        s.decider = seat
        return
    after_turn(s, out)


def _pay_now(s: HandState, seat: int, pts: int, reason: str, out: Out) -> None:
    """An instant payment during the hand: separate, never multiplied (A17)."""
    stake = s.table.stake
    for k in range(1, len(s.order)):
        payer = s.order[(s.turn_index + k) % len(s.order)]
        s.instant_dues.append((payer, seat, pts, reason))
        out.append(
            PaymentDue(payer=payer, payee=seat, points=pts, chips=pts * stake, reason=reason)  # type: ignore[arg-type]
        )


def take_junk(s: HandState, frm: int, to: int, amount: int, reason: str, out: Out) -> None:
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
