"""The facts a line leaves out, taken from the state: the next hand's start, the seat that
acts, the cards a shake or a bomb shows."""

from __future__ import annotations

from collections.abc import Sequence

from .. import cards as C
from .. import events as E
from ..engine.game import GameState
from ..engine.state import HandState, Phase
from .line import MONTH_MASKS


def hand_started(
    game: GameState,
    dealer: int | None = None,
    out: Sequence[int] | None = None,
    order: Sequence[int] | None = None,
) -> E.HandStarted:
    """``hand_started`` of the next hand: the rules' dealer (the winner deals), ``dealer``
    for the first hand (default seat 0). At 4 or 5 seats three play: the dealer and the next
    two, or those not ``out``, or ``order``."""
    n = game.table.players
    d = game.next_dealer if game.next_dealer is not None and dealer is None else dealer
    d = 0 if d is None else d
    around = [(d + k) % n for k in range(n)]
    if order:
        seats = list(order)
    elif out:
        seats = [s for s in around if s not in out]
    else:
        seats = around[:3]
    return E.HandStarted(hand=game.hand_no + 1, dealer=d, order=seats)


def needs_hand_start(game: GameState) -> bool:
    return game.hand is None or game.hand.phase is Phase.ENDED


def actor(h: HandState | None) -> int | None:
    """The seat that acts next in the hand: plays, flips, decides the cup or Go/Stop."""
    if h is None:
        return None
    if h.phase in (Phase.PLAY, Phase.FLIP, Phase.FLIP_AS_PLAY):
        return h.turn_seat
    if h.phase in (Phase.CUP, Phase.DECIDE):
        return h.decider
    return None


def shake_cards(h: HandState, seat: int, m: int) -> list[str] | None:
    """The three cards ``seat`` can shake in month ``m``, when the record knows them."""
    mine = h.hands[seat] & MONTH_MASKS[m]
    if mine.bit_count() == 3:
        return C.codes(mine)
    if h.hand_unknown[seat]:
        pool = mine | (h.unknown_pool() & MONTH_MASKS[m])
        if pool.bit_count() == 3:
            return C.codes(pool)
    return None


def bomb_cards(h: HandState, seat: int, m: int) -> list[str]:
    """The cards of month ``m`` a bomb of ``seat`` plays: those held when the hand is known,
    else those not face up."""
    if not h.hand_unknown[seat] and h.hands[seat] & MONTH_MASKS[m]:
        return C.codes(h.hands[seat] & MONTH_MASKS[m])
    return C.codes(MONTH_MASKS[m] & ~h.layout)
