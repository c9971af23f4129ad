"""Every legal input of a hand state, as the payloads a log would store.

Bots choose among them, the live recorder offers them, and property tests play random
games with them: one list, so that what a bot may do and what the engine accepts never
drift apart. With hidden hands or stock, a card from the unknown pool is offered for each
unseen card; shakes and bombs are listed only for known hand cards.
"""

from __future__ import annotations

from typing import Any

from .. import cards as C
from .. import events as E
from ..rules import Shaking
from .deal import first_play_pending, four_decision, fours_in
from .moves import equivalent
from .state import HandState, Phase

__all__ = ["legal_actions"]

_MM = C.MONTH_MASKS
CODES = C.CODES
_MONTH_OF = C.MONTH_OF


def _choices(s: HandState, i: int) -> list[str | None]:
    """The ``chosen`` values a card may carry when it lands on the layout."""
    if i >= 48:
        return [None]
    on = s.layout & _MM[_MONTH_OF[i]]
    if on.bit_count() != 2:
        return [None]
    a = (on & -on).bit_length() - 1
    b = on.bit_length() - 1
    if equivalent(a, b, s.table):
        return [CODES[a]]
    return [CODES[a], CODES[b]]


def _flip_choices(s: HandState, i: int) -> list[str | None]:
    turn = s.turn
    assert turn is not None
    if i >= 48:
        return [None]
    if (
        s.phase is Phase.FLIP
        and (turn.played >= 0 or turn.bomb)
        and _MONTH_OF[i] == turn.play_month
    ):
        return [None]
    return _choices(s, i)


# Long: one branch per phase of the hand, in the order the rules ask them.
def legal_actions(s: HandState) -> list[Any]:
    """Every input the rules allow next (empty while the hand waits for its deal or is over)."""
    p = s.phase
    seat = s.turn_seat
    out: list[Any] = []
    if p is Phase.PLAY:
        rules = s.table.rules
        turn = s.turn
        assert turn is not None
        if s.fours_pending and (first_play_pending(s) or four_decision(s)):
            shown = []
            for who in range(s.players):
                if not s.fours_pending & (1 << who):
                    continue
                months = fours_in(s.hands[who])
                for m in range(1, 13):
                    if months & (1 << m):
                        shown.append(E.FourShown(seat=who, month=m, cards=C.codes(_MM[m])))
            if not rules.hand_four_keep:
                return [E.FourOfAMonthShown(shown=shown)]
            out.append(E.FourOfAMonthShown(shown=shown))  # or keep it and play on: 들고치기
            out.extend(
                E.FourKept(seat=who) for who in range(s.players) if s.fours_pending & (1 << who)
            )
        hand = s.hands[seat]
        pool = hand
        if s.hand_unknown[seat]:
            pool |= s.unknown_pool()
        if turn.shake_month:
            pool &= _MM[turn.shake_month]
        for i in C.indices(pool):
            for ch in _choices(s, i):
                out.append(E.CardPlayed(seat=seat, card=CODES[i], chosen=ch))
        fresh = turn.played < 0 and not turn.shake_month
        if fresh and s.flip_only[seat]:
            out.append(E.FlipOnlyPlayed(seat=seat))
        if fresh and rules.bombs:
            sizes = (3, 2) if rules.two_card_bomb else (3,)
            for m in range(1, 13):
                mine = hand & _MM[m]
                k = mine.bit_count()
                if k in sizes and (s.layout & _MM[m]).bit_count() == 4 - k:
                    if rules.shaking is Shaking.BEFORE_TURN and s.shaken_months[seat] & (1 << m):
                        continue
                    out.append(E.BombPlayed(seat=seat, month=m, cards=C.codes(mine)))
        if fresh and rules.shaking is not Shaking.NONE:
            for m in range(1, 13):
                mine = hand & _MM[m]
                whole = rules.hand_four_keep and mine == _MM[m]  # a kept four, shaken whole
                if (mine.bit_count() != 3 and not whole) or s.shaken_months[seat] & (1 << m):
                    continue
                if rules.shaking is Shaking.ON_PLAY and s.layout & _MM[m]:
                    continue
                out.append(E.Shaken(seat=seat, month=m, cards=C.codes(mine)))
        return out
    if p in (Phase.FLIP, Phase.FLIP_AS_PLAY):
        turn = s.turn
        if turn is not None and turn.shake_due:
            # asked to shake once the card is chosen (shake_asked): the answer comes first
            m = turn.shake_due
            shown = s.hands[seat] & _MM[m] | 1 << turn.played
            return [
                E.Shaken(seat=seat, month=m, cards=C.codes(shown)),
                E.ShakeDeclined(seat=seat, month=m),
            ]
        top = s.stock_top()
        if s.stock is not None:
            cand = [] if top is None else [top]
        else:
            cand = list(C.indices(s.unknown_pool())) if s.stock_count else []
        for i in cand:
            chs = _choices(s, i) if p is Phase.FLIP_AS_PLAY else _flip_choices(s, i)
            for ch in chs:
                out.append(E.CardFlipped(seat=seat, card=CODES[i], chosen=ch))
        return out
    if p is Phase.CUP:
        who = s.decider
        return [E.CupAssigned(seat=who, role="animal"), E.CupAssigned(seat=who, role="junk")]
    if p is Phase.DECIDE:
        who = s.decider
        sc = s.score_of(who)
        return [
            E.GoCalled(seat=who, count=s.go_count[who] + 1, score=sc),
            E.StopCalled(seat=who, score=sc),
        ]
    return out
