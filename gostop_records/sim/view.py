"""What one seat knows, and deals of the hidden cards that agree with it.

A search that reads the real table could peek at the stock or the other hands without
meaning to. So the strong bot never sees the table: it sees a :class:`SeatView`, the table
with every hidden part replaced by what the seat may know, and it plays out
*determinizations* of that view, full tables whose hidden cards are drawn at random among
the cards the seat has not seen.

What a seat knows: its own hand, the layout with its stacks (and who made each ppuk), every
pile, every counter the table shows (turns, Gos, shakes, bombs, ppuks, flip-only turns), the
turn in progress (the card played, a bomb, a shake), how many cards each other hand and the
stock hold, the cards a shake showed that are still in the shaker's hand, and, while it
chooses the capture of its own flip, the card it has just turned. The view keeps these in a
:class:`~gostop_records.engine.state.HandState` in the engine's hidden-information form (other
hands as known cards plus a count, the stock as a count), so the rules read it as they read
a record taken at a real table.

A determinization agrees with everything the view holds: the other hands keep their shown
cards and their sizes, the stock its size (and the turned card on top), a hand that shook a
month holds no other card of it, and no other hand holds the four cards of a month, because
a four in hand is shown at the deal and ends it. (A view counts every card of a shaken month
in the shaker's hand as shown; the one card that could be there unseen, the month's fourth
drawn later to replace a bonus card, is a case the view does not tell apart.)
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass
from typing import Any

from .. import cards as C
from .. import events as E
from ..engine.state import HandState, Phase, Turn, TurnEnd
from .dealer import SplitMix64

__all__ = ["SeatView", "determinize", "seat_of", "seat_view"]

_MM = C.MONTH_MASKS
_IDX = C.CODE_TO_INDEX
#: Draws of the hidden cards tried before one with a four in another hand is kept anyway.
_REDRAWS = 64


@dataclass(frozen=True, slots=True)
class SeatView:
    """The information set of ``seat`` at one decision; see the module docstring.

    ``state`` is never changed (it is copied before any use); ``actions`` are the inputs the
    seat may give now, as the table offers them; ``flip`` is the card the seat has turned
    and must now place (-1 when none is pending).
    """

    seat: int
    state: HandState
    actions: tuple[Any, ...]
    flip: int = -1

    @property
    def unseen(self) -> int:
        """Cards whose place the seat does not know (other hands, the stock)."""
        return self.state.unknown_pool()

    def key(self) -> tuple[Any, ...]:
        """Every fact of the view as plain values: two views with equal keys are the same
        information, whatever the hidden cards really are. Read from the state's attributes
        (and the turn's), not a list of them here, so a field the engine adds is keyed too;
        the table is keyed by its ruleset's name."""
        s = self.state
        facts = tuple(
            (name, s.table.rules.name if name == "table" else _plain(getattr(s, name)))
            for name in _attributes(type(s))
        )
        return (self.seat, self.flip, tuple(self.actions), facts)


def _attributes(cls: type) -> tuple[str, ...]:
    """The data attributes of an engine class, sorted: its slots and properties, or, compiled
    (a class without ``__slots__``), the descriptors of the same."""
    cached = _ATTRIBUTES.get(cls)
    if cached is None:
        names = (n for n, v in vars(cls).items() if inspect.isdatadescriptor(v))
        cached = _ATTRIBUTES[cls] = tuple(sorted(n for n in names if not n.startswith("__")))
    return cached


_ATTRIBUTES: dict[type, tuple[str, ...]] = {}


def _plain(value: Any) -> Any:
    """A value as a hashable fact: lists as tuples, the engine's own objects (the turn in
    progress, each resolved turn's end) as their attributes."""
    if isinstance(value, list | tuple):
        return tuple(_plain(v) for v in value)
    if isinstance(value, Turn | TurnEnd):
        return tuple((n, _plain(getattr(value, n))) for n in _attributes(type(value)))
    return value


def seat_of(state: HandState) -> int:
    """The seat whose input the hand waits for."""
    return state.decider if state.phase in (Phase.CUP, Phase.DECIDE) else state.turn_seat


def _flip_card(actions: list[Any] | tuple[Any, ...]) -> int:
    for a in actions:
        if type(a) is E.CardFlipped:
            return _IDX[a.card]
    return -1


def _shown_in_hand(state: HandState, seat: int) -> int:
    """Cards of another seat's hand that it has shown (a shake) and still holds."""
    months = state.shaken_months[seat]
    shown = 0
    for m in range(1, 13):
        if months & (1 << m):
            shown |= state.hands[seat] & _MM[m]
    return shown


def seat_view(state: HandState, seat: int, actions: list[Any] | tuple[Any, ...]) -> SeatView:
    """What ``seat`` knows of ``state`` while it chooses among ``actions``.

    The view is a copy of ``state`` with every hidden part replaced by what the seat may
    know: the other hands become their shown cards plus a count, the stock a count, the
    cards seen and the fours pending those the seat can see, whatever ``state`` knows.
    """
    n = state.players
    v = state.copy()
    flip = _flip_card(actions) if state.phase in (Phase.FLIP, Phase.FLIP_AS_PLAY) else -1
    hands = [0] * n
    unknown = [0] * n
    for s in range(n):
        if s == seat:
            hands[s] = state.hands[s]
        else:
            hands[s] = _shown_in_hand(state, s)
            unknown[s] = state.hand_count(s) - hands[s].bit_count()
    v.hands = hands
    v.hand_unknown = unknown
    v.stock = None
    v.stock_pos = 0
    v.stock_count = state.stock_remaining()
    visible = state.layout | (1 << flip if flip >= 0 else 0)
    for s in range(n):
        visible |= state.piles[s] | hands[s]
    v.seen = state.table.deck & visible  # the turned card is seen: on top of the stock
    own_fours = 0
    if state.fours_pending:
        for m in range(1, 13):
            if hands[seat] & _MM[m] == _MM[m]:
                own_fours = 1 << seat
    v.fours_pending = own_fours
    return SeatView(seat, v, tuple(actions), flip)


def _holds_four(mask: int) -> bool:
    return any(mask & _MM[m] == _MM[m] for m in range(1, 13))


def _barred(state: HandState, seat: int) -> int:
    """Unseen cards another seat cannot hold: the rest of a month it shook (it showed every
    card of that month it had, three of them, and a four would have been shown at the deal)."""
    barred = 0
    months = state.shaken_months[seat]
    for m in range(1, 13):
        if months & (1 << m):
            barred |= _MM[m] & ~state.hands[seat]
    return barred


def determinize(view: SeatView, rng: SplitMix64) -> HandState:
    """A full table that agrees with ``view``: the hidden cards dealt at random.

    Every other hand gets its count of unseen cards beside its shown ones (none of a month
    it shook beyond those shown), the stock the rest in a random order (the turned card
    first while the seat places it). Draws that give another hand a four of a month are
    drawn again, a bounded number of times.
    """
    base = view.state
    n = base.players
    flip = view.flip
    pool = list(C.indices(base.unknown_pool()))
    barred = [_barred(base, s) if base.hand_unknown[s] else 0 for s in range(n)]
    for _ in range(_REDRAWS):
        for i in range(len(pool) - 1, 0, -1):
            j = rng.below(i + 1)
            pool[i], pool[j] = pool[j], pool[i]
        hands = base.hands[:]
        rest = pool
        four = False
        for s in range(n):
            k = base.hand_unknown[s]
            if not k:
                continue
            left = []
            for i in rest:
                if k and not barred[s] >> i & 1:
                    hands[s] |= 1 << i
                    k -= 1
                else:
                    left.append(i)
            rest = left
            four = four or _holds_four(hands[s])
        if not four:
            break
    s = base.copy()
    s.hands = hands
    s.hand_unknown = [0] * n
    stock = rest[:]
    if flip >= 0:
        stock.insert(0, flip)
    s.stock = stock
    s.stock_pos = 0
    s.stock_count = len(stock)
    s.seen = base.table.deck
    return s
