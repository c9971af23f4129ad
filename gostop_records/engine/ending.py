"""How a turn and a hand end: the next seat, the question of Go or Stop, a Stop's
settlement (the hand's facts and its payout proof), instant wins and the end of the hand.
"""

from __future__ import annotations

from ..events import (
    HandEnded,
    PaymentDue,
    StopCalled,
)
from .moves import Out
from .rulebook import INSTANT_WIN_MULTIPLIERS, NAGARI_CARRY
from .settlement import HandFacts, Proof, settle
from .state import HandState, Phase, Turn

__all__ = ["facts_of"]


def instant_dues_of(
    s: HandState, winner: int, pts: int, reason: str
) -> list[tuple[int, int, int, str]]:
    t = s.table
    pts = INSTANT_WIN_MULTIPLIERS.points(
        t.rules, pts, s.carry, s.shakes[winner], s.bombs[winner], reason, s.hand_no
    )
    return [(p, winner, pts, reason) for p in sorted(s.order) if p != winner]


def end_hand(
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


def stop_hand(s: HandState, seat: int, out: Out, auto: bool) -> Proof:
    proof = settle(s.table, facts_of(s, seat))
    s.proof = proof
    dues = [(d.payer, d.payee, d.points, d.reason) for d in proof.dues]
    end_hand(s, out, "stop", seat, "auto_stop" if auto else "stop", dues)
    return proof


def after_turn(s: HandState, out: Out) -> None:
    """Go/Stop for the mover at the end of their turn, else the next turn (C1.2, A15)."""
    seat = s.turn_seat
    sc = s.end_turn(seat)
    went = s.go_count[seat]
    if (went == 0 and sc >= s.table.target) or (went and sc > s.go_score[seat]):
        if s.turns_left(seat) == 0 and s.table.rules.last_turn_auto_stop:
            out.append(StopCalled(seat=seat, score=sc, auto=True))
            stop_hand(s, seat, out, auto=True)
            return
        s.phase = Phase.DECIDE
        s.decider = seat
        return
    next_turn(s, out)


def next_turn(s: HandState, out: Out) -> None:
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
    end_hand(s, out, "nagari", None, "cards_exhausted")
