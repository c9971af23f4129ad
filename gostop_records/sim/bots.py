"""Bots that choose among the legal inputs of a hand.

Every bot sees only what a player at the table sees: its own hand, the layout, the piles,
and how many cards remain. None peeks at the stock or the other hands, so a simulated
game is a plausible game, not a solved one. ``random`` and ``greedy`` are cheap (a few
score evaluations per choice), because benchmarks simulate tens of thousands of hands.

- ``random``: uniform over the legal inputs.
- ``strong`` (:mod:`.strong`): a determinized Monte-Carlo search that plays ``greedy``
  rollouts in deals of the unseen cards; far slower, for play against a person.
- ``greedy``: one-step lookahead with a fixed card valuation. A capture is worth the cards
  it takes plus ten times the points it adds to the bot's own score now (so the fifth ribbon
  or the third bird outranks a bright that completes nothing); taking a stack is worth a
  steal on top. A card that can only be laid down costs a little (it gives the opponents a
  card), nothing when its month is dead (the other three cards are already visible and none
  is in the bot's hand), and less when the bot holds a card of the same month to take it
  back. Playing into a month with one card face up while the other two are unseen risks a
  ppuk and costs 1.5. It always bombs, shakes and plays a bonus card when it may, keeps its
  flip-only turns for when no card captures, and gives the September cup the role that
  scores more now (animal on ties).

  Go or Stop: Stop when an opponent is close to the target (within two points of a target
  of 5 or more, within one of a smaller target), when the bot has at most two turns left, or
  after two Gos; otherwise Go. Against the simpler policies "always Stop" and "at most one
  Go" this one wins more chips in matgo, in the general rules and in 3-player Go-Stop.

Ties are broken by the bot's own seeded generator, so a simulated game is reproducible.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from .. import cards as C
from .. import events as E
from ..engine.scoring import points
from ..engine.state import HandState
from .dealer import SplitMix64

__all__ = ["Bot", "GreedyBot", "RandomBot"]

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
_MM = C.MONTH_MASKS

#: Weight of one point of score gained now, against the card valuation above.
POINT_WEIGHT = 10.0
#: Cost of playing into a month where the flip may make a ppuk.
PPUK_RISK = 1.5


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
    v = 0
    while mask:
        low = mask & -mask
        v += _VALUE[low.bit_length() - 1]
        mask ^= low
    return v


def _visible(s: HandState, seat: int) -> int:
    """Cards a seat can see: the layout, every pile and its own hand."""
    v = s.layout | s.hands[seat]
    for pile in s.piles:
        v |= pile
    return v


class GreedyBot:
    """Best immediate gain by a card valuation and the score; see the module docstring."""

    name = "greedy"

    __slots__ = ("_base", "rng")

    def __init__(self, rng: SplitMix64) -> None:
        self.rng = rng
        self._base: int | None = None

    def choose(self, state: HandState, actions: list[Any]) -> Any:
        self._base = None
        best: list[Any] = []
        best_v = None
        for a in actions:
            v = self._value(state, a)
            if best_v is None or v > best_v:
                best, best_v = [a], v
            elif v == best_v:
                best.append(a)
        return best[self.rng.below(len(best))] if len(best) > 1 else best[0]

    def values(self, state: HandState, actions: list[Any]) -> list[float]:
        """The value greedy gives each input (it plays one of the highest)."""
        self._base = None
        return [self._value(state, a) for a in actions]

    def _value(self, s: HandState, a: Any) -> float:
        value = _VALUES.get(type(a))
        return 0.0 if value is None else value(self, s, a)  # Stop, four of a month

    def _cup_value(self, s: HandState, a: E.CupAssigned) -> float:
        pile = s.piles[a.seat]
        return float(points(s.table, pile, a.role)) + (0.1 if a.role == "animal" else 0.0)

    def _go_value(self, s: HandState, a: E.GoCalled) -> float:
        return 1.0 if self._wants_go(s, a.seat) else -1.0

    def _wants_go(self, s: HandState, seat: int) -> bool:
        target = s.table.target
        margin = 2 if target >= 5 else 1
        others = max(s.score_of(o) for o in range(s.players) if o != seat)
        if others >= target - margin:
            return False
        if s.turns_left(seat) <= 2:
            return False
        return s.go_count[seat] < 2

    def _gain(self, s: HandState, seat: int, taken: int) -> float:
        """Points the bot's score gains now from taking these cards."""
        t = s.table
        if self._base is None:
            self._base = points(t, s.piles[seat], s.cup_role)
        return POINT_WEIGHT * (points(t, s.piles[seat] | taken, s.cup_role) - self._base)

    def _card_value(self, s: HandState, a: Any) -> float:
        i = _CODE[a.card]
        if i >= 48:
            return 50.0  # a bonus card is free junk and a free draw
        seat = a.seat
        bit = 1 << i
        month = _MM[C.month_of(i)]
        on = s.layout & month
        n = on.bit_count()
        played = type(a) is E.CardPlayed
        if n == 0:
            v = -_VALUE[i] / 10.0
            if played:
                mine = s.hands[seat] & month & ~bit
                if not mine and not month & ~(_visible(s, seat) | bit):
                    return 0.0  # a dead month: nobody can take the card
                if mine:
                    v += 0.3  # the bot can take it back
            return v
        if n == 3:
            taken = on | bit
            return 30.0 + _mask_value(taken) + self._gain(s, seat, taken)
        if n == 2:
            other = _CODE[a.chosen] if a.chosen is not None else (on & -on).bit_length() - 1
            taken = bit | (1 << other)
        else:
            taken = bit | on
        v = _mask_value(taken) + self._gain(s, seat, taken)
        if played and n == 1 and month & ~(_visible(s, seat) | bit):
            v -= PPUK_RISK  # the flip may be the third card of the month
        return float(v)


#: What greedy makes of each input class; an input not here is worth 0 (Stop, and a four of
#: a month, the only input when due).
_VALUES: dict[type, Callable[[GreedyBot, HandState, Any], float]] = {
    E.CardPlayed: GreedyBot._card_value,
    E.CardFlipped: GreedyBot._card_value,
    E.BombPlayed: lambda bot, s, a: 100.0,
    E.Shaken: lambda bot, s, a: 90.0,
    E.FlipOnlyPlayed: lambda bot, s, a: 0.5,  # keep flip-only turns for when no card captures
    E.CupAssigned: GreedyBot._cup_value,
    E.GoCalled: GreedyBot._go_value,
}
