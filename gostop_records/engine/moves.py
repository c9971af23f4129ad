"""The moves every input makes on a hand: finding a card, taking it from a hand or
revealing it, choosing which layout card a card takes, and the checks of phase and seat that
refuse an input with the rule it breaks.
"""

from __future__ import annotations

from typing import Any

from ..cards import (
    ALL_CARDS,
    CODE_TO_INDEX,
    CODES,
    Kind,
    indices,
    parse,
    popcount,
)
from ..errors import IllegalAction
from .state import HandState, Phase, Turn

__all__ = ["locate"]

#: Each card's kind, by index.
_KINDS = tuple(c.kind for c in ALL_CARDS)


Out = list[Any]


def card_index(code: str) -> int:
    try:
        return CODE_TO_INDEX[code]
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


def illegal(rule: str, reason: str) -> IllegalAction:
    return IllegalAction(rule, reason)


def expect_phase(s: HandState, phase: Phase, what: str) -> None:
    if s.phase is not phase:
        raise illegal("turn_order", f"{what} is not expected now: {_waiting_for(s)}")


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


def expect_seat(s: HandState, seat: int, who: int) -> None:
    if seat != who:
        raise illegal("turn_order", f"seat {seat} cannot act now: {_waiting_for(s)}")


def take_from_hand(s: HandState, seat: int, i: int) -> None:
    b = 1 << i
    if s.hands[seat] & b:
        s.hands[seat] ^= b
        return
    if s.hand_unknown[seat] and not s.seen & b and s.table.deck & b:
        s.hand_unknown[seat] -= 1
        s.seen |= b
        return
    raise illegal("card_in_hand", f"seat {seat} does not hold {CODES[i]}: it is {locate(s, b)}")


def reveal_in_hand(s: HandState, seat: int, mask: int) -> None:
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
        raise illegal("card_in_hand", f"seat {seat} does not hold {CODES[i]}: it is {locate(s, b)}")


def cards_of(codes: list[str]) -> int:
    m = 0
    for code in codes:
        b = 1 << card_index(code)
        if m & b:
            raise illegal("card_twice", f"{code} is listed twice")
        m |= b
    return m


def turn_of(s: HandState) -> Turn:
    turn = s.turn
    assert turn is not None
    return turn


def equivalent(a: int, b: int, t: Any) -> bool:
    """Two layout cards whose choice changes nothing (two single junk of equal value)."""
    return _KINDS[a] is Kind.JUNK and _KINDS[b] is Kind.JUNK and t.card_units(a) == t.card_units(b)


def pick_capture(s: HandState, i: int, on: int, chosen: str | None, what: str) -> int:
    """The layout card a card pairs with when its month shows two; -1 when no choice."""
    n = popcount(on)
    if n == 2:
        a = (on & -on).bit_length() - 1
        b = on.bit_length() - 1
        if chosen is None:
            if equivalent(a, b, s.table):
                return a
            raise illegal(
                "choice_required",
                f"{CODES[i]} {what} matches {CODES[a]} and {CODES[b]} on the layout: "
                "say which one it takes",
            )
        c = card_index(chosen)
        if not on & (1 << c):
            raise illegal(
                "choice_required",
                f"{CODES[i]} can take {CODES[a]} or {CODES[b]}, not {chosen}",
            )
        return c
    if chosen is not None and not (n == 1 and on == 1 << card_index(chosen)):
        raise illegal("no_choice", f"{CODES[i]} {what} has no choice to make ({chosen} given)")
    return -1
