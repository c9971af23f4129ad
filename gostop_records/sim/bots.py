"""Bots that choose among the legal inputs of a hand.

Both bots see only what a player at the table sees: their own hand, the layout, the piles,
and how many cards remain. Neither peeks at the stock or the other hands, so a simulated
game is a plausible game, not a solved one.

- ``random``: uniform over the legal inputs.
- ``greedy``: takes the capture worth most to its score, prefers steals and stacks, avoids
  leaving a card that could give a ppuk, always bombs and shakes when it may, picks the
  cup's role that scores more now, and decides Go or Stop by a simple policy: Stop when an
  opponent is within two points of the target, when it has at most two turns left, or after
  two Gos; otherwise Go.
"""

from __future__ import annotations

from typing import Any, Protocol

from .. import cards as C
from .. import events as E
from ..engine.scoring import points
from ..engine.state import HandState
from .dealer import SplitMix64

__all__ = ["BOTS", "Bot", "GreedyBot", "RandomBot", "make_bot"]

_VALUE = [0] * len(C.ALL_CARDS)
for _c in C.ALL_CARDS:
    if _c.kind is C.Kind.BRIGHT:
        _VALUE[_c.index] = 6
    elif _c.kind is C.Kind.ANIMAL:
        _VALUE[_c.index] = 5 if _c.godori_bird else 3
    elif _c.kind is C.Kind.RIBBON:
        _VALUE[_c.index] = 4 if _c.ribbon_set else 2
    elif _c.kind is C.Kind.BONUS:
        _VALUE[_c.index] = 2 + _c.junk_units
    else:
        _VALUE[_c.index] = 1 + _c.junk_units
_CODE = C.CODE_TO_INDEX


class Bot(Protocol):
    name: str

    def choose(self, state: HandState, actions: list[Any]) -> Any: ...


class RandomBot:
    """Uniform over the legal inputs."""

    name = "random"

    def __init__(self, rng: SplitMix64) -> None:
        self.rng = rng

    def choose(self, state: HandState, actions: list[Any]) -> Any:
        return actions[self.rng.below(len(actions))]


def _mask_value(mask: int) -> int:
    return sum(_VALUE[i] for i in C.indices(mask))


class GreedyBot:
    """Best immediate capture by a fixed card valuation; see the module docstring."""

    name = "greedy"

    def __init__(self, rng: SplitMix64) -> None:
        self.rng = rng

    def choose(self, state: HandState, actions: list[Any]) -> Any:
        best: list[Any] = []
        best_v = None
        for a in actions:
            v = self._value(state, a)
            if best_v is None or v > best_v:
                best, best_v = [a], v
            elif v == best_v:
                best.append(a)
        return best[self.rng.below(len(best))]

    def _value(self, s: HandState, a: Any) -> float:
        t = type(a)
        if t is E.BombPlayed:
            return 100.0
        if t is E.Shaken:
            return 90.0
        if t is E.FourOfAMonthShown:
            return 0.0
        if t is E.FlipOnlyPlayed:
            # keep flip-only turns for when no card captures
            return 0.5
        if t is E.CupAssigned:
            pile = s.piles[a.seat]
            return float(points(s.table, pile, a.role)) + (0.1 if a.role == "animal" else 0.0)
        if t is E.GoCalled:
            return 1.0 if self._wants_go(s, a.seat) else -1.0
        if t is E.StopCalled:
            return 0.0
        if t in (E.CardPlayed, E.CardFlipped):
            return self._card_value(s, a)
        return 0.0

    def _wants_go(self, s: HandState, seat: int) -> bool:
        target = s.table.target
        others = max(s.score_of(o) for o in range(s.players) if o != seat)
        if others >= target - 2:
            return False
        if s.turns_left(seat) <= 2:
            return False
        return s.go_count[seat] < 2

    def _card_value(self, s: HandState, a: Any) -> float:
        i = _CODE[a.card]
        if i >= 48:
            return 50.0  # a bonus card is free junk and a free draw
        m = i // 4 + 1
        on = s.layout & C.MONTH_MASKS[m]
        n = on.bit_count()
        if n == 0:
            # leaving a card gives it away; leave the cheapest
            return -_VALUE[i] / 10.0
        if n == 3:
            return 30.0 + _mask_value(on | (1 << i))
        if n == 2 and a.chosen is not None:
            v = _VALUE[i] + _VALUE[_CODE[a.chosen]]
        else:
            v = _VALUE[i] + _mask_value(on)
        if type(a) is E.CardPlayed and n == 1:
            # the other two of the month are unseen: the flip may make a ppuk
            visible = s.layout | s.hands[a.seat]
            for pile in s.piles:
                visible |= pile
            if C.MONTH_MASKS[m] & ~visible:
                v -= 1.5
        return float(v)


BOTS = {"random": RandomBot, "greedy": GreedyBot}


def make_bot(name: str, rng: SplitMix64) -> Bot:
    try:
        return BOTS[name](rng)  # type: ignore[no-any-return]
    except KeyError:
        from ..errors import GostopError

        raise GostopError(f"unknown bot {name!r}: bots are {', '.join(BOTS)}") from None
