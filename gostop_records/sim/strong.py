"""``strong``: a determinized Monte-Carlo search over what its seat knows.

At each decision with more than one input the bot takes its seat's view
(:func:`~.view.seat_view`: its hand, the layout, the piles, the counters, never another
hand or the stock) and deals the unseen cards at random in a way that agrees with it
(:func:`~.view.determinize`). In each such *world* it plays every candidate input and then
the rest of the hand with ``greedy`` at every seat; a candidate's value there is the chips
the seat wins or pays from that input to the end of the hand (a ppuk's instant payment, the
settlement of whoever stops). All candidates meet the same worlds, and the same greedy
tie-breaks in each, so their differences are not blurred by the luck of the deal.

The candidates are greedy's best :data:`MAX_CANDIDATES` by its own valuation, and always
greedy's pick (plays that change nothing between them, two single junk of equal value, are
searched once). Payouts are heavy-tailed (a Go that turns bad pays double and more), so a
few dozen rollouts measure a mean roughly: the bot leaves greedy's pick only for the
candidate with the largest mean gain over it, world by world, and only when that gain
exceeds :data:`CONFIDENCE` standard errors. Without it, noise picks among the candidates
and the bot plays worse than greedy; with it, the search overrules greedy where the
difference is clear.

So it decides every kind of input: which card to play, which of two layout cards to take,
Go or Stop (a Stop is worth exactly what it pays now; a Go is worth what the rest of the hand
brings on average), shakes, bombs, flip-only turns and the role of the September cup.

Budget: ``rollouts`` fixes the rollouts per decision (split into worlds of one rollout per
candidate; deterministic: the same seed and the same view give the same decision);
``budget_ms`` instead plays worlds until the time is nearly spent. The default,
:data:`DEFAULT_ROLLOUTS`, is a fixed count calibrated to stay under 200 ms a decision on the
project's 2-core machine (``python -m bench --bots`` measures it).

The value of a hand is its chips only; the carry a nagari passes on and the next deal's
dealer are not counted.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import Any

from .. import cards as C
from .. import events as E
from ..engine.actions import legal_actions
from ..engine.moves import equivalent
from ..engine.state import HandState, Phase
from ..engine.turn import apply
from .bots import GreedyBot
from .dealer import SplitMix64
from .view import SeatView, determinize, seat_of, seat_view

__all__ = ["DEFAULT_ROLLOUTS", "Search", "StrongBot", "candidates", "rollout"]

#: Rollouts per decision by default (each world plays every candidate out once), calibrated
#: so that a decision stays under 200 ms on the project's machine.
DEFAULT_ROLLOUTS = 96
#: Worlds per decision at the least, whatever the budget: a gain needs a spread to be judged.
MIN_WORLDS = 2
#: Candidates searched: greedy's best few by its own valuation (and always its choice).
MAX_CANDIDATES = 4
#: How clear a gain over greedy's choice must be, in standard errors, to be taken.
CONFIDENCE = 1.0
#: Stop a timed search when this share of the budget is spent (one world may overrun).
_BUDGET_SHARE = 0.8


_IDX = C.CODE_TO_INDEX


def _chips(out: list[Any], seat: int) -> int:
    v = 0
    for ev in out:
        if type(ev) is E.PaymentDue:
            if ev.payee == seat:
                v += ev.chips
            elif ev.payer == seat:
                v -= ev.chips
    return v


def rollout(state: HandState, action: Any, seat: int, policy: list[GreedyBot]) -> int:
    """Chips ``seat`` wins (or pays, negative) from ``action`` to the end of the hand, every
    seat playing by ``policy`` afterwards. ``state`` is a full table and is not changed."""
    s, out = apply(state, action)
    v = _chips(out, seat)
    while s.phase is not Phase.ENDED:
        acts = legal_actions(s)
        a = acts[0] if len(acts) == 1 else policy[seat_of(s)].choose(s, acts)
        s, out = apply(s, a, inplace=True)
        if out:
            v += _chips(out, seat)
    return v


def candidates(state: HandState, actions: list[Any]) -> list[Any]:
    """The inputs worth telling apart: one of each set of plays that change nothing between
    them (two single junk of a month, of equal value, played onto the same card)."""
    out: list[Any] = []
    seen: list[tuple[int, str | None, int]] = []
    table = state.table
    for a in actions:
        if type(a) is E.CardPlayed:
            i = _IDX[a.card]
            key = (i // 4, a.chosen, i)
            if any(m == key[0] and ch == a.chosen and equivalent(j, i, table) for m, ch, j in seen):
                continue
            seen.append(key)
        out.append(a)
    return out


class StrongBot:
    """Determinized Monte-Carlo search; see the module docstring."""

    name = "strong"

    __slots__ = ("budget_ms", "greedy", "last_worlds", "rng", "rollouts")

    def __init__(
        self, rng: SplitMix64, rollouts: int | None = None, budget_ms: float | None = None
    ) -> None:
        if rollouts is not None and rollouts < 1:
            raise ValueError("rollouts must be at least 1")
        self.rng = rng
        self.rollouts = DEFAULT_ROLLOUTS if rollouts is None and budget_ms is None else rollouts
        self.budget_ms = budget_ms
        self.greedy = GreedyBot(rng)
        self.last_worlds = 0  # worlds the last search played (0: nothing to search)

    def choose(self, state: HandState, actions: list[Any]) -> Any:
        """The Bot protocol: the input for the seat to move, from that seat's view only."""
        if len(actions) == 1:
            self.last_worlds = 0
            return actions[0]
        return self.decide(seat_view(state, seat_of(state), actions))

    def decide(self, view: SeatView) -> Any:
        """The input to give in ``view``, which holds everything the search may read."""
        self.last_worlds = 0
        if len(view.actions) == 1:
            return view.actions[0]
        found = self.search(view)
        self.last_worlds = found.worlds
        return found.choice()

    def search(self, view: SeatView) -> Search:
        """The candidates of ``view`` and their chips in each world (see the module
        docstring); a view with one candidate worth searching is not played out."""
        actions = list(view.actions)
        prior = self.greedy.choose(view.state, actions)
        cands = candidates(view.state, actions)
        if len(cands) > MAX_CANDIDATES:
            vals = self.greedy.values(view.state, cands)
            order = sorted(range(len(cands)), key=lambda k: -vals[k])[:MAX_CANDIDATES]
            cands = [cands[k] for k in sorted(order)]
        if prior not in cands:
            cands.append(prior)
        values: list[list[int]] = [[] for _ in cands]
        found = Search(cands, cands.index(prior), values)
        if len(cands) == 1:
            return found
        seat = view.seat
        n = view.state.players
        worlds = None
        if self.rollouts is not None:
            worlds = max(MIN_WORLDS, -(-self.rollouts // len(cands)))
        limit = None if self.budget_ms is None else self.budget_ms * _BUDGET_SHARE / 1000
        t0 = time.perf_counter()
        done = 0
        while True:
            world = determinize(view, self.rng)
            seed = self.rng.next64()
            for k, a in enumerate(cands):
                policy = [GreedyBot(SplitMix64(seed + q)) for q in range(n)]
                values[k].append(rollout(world, a, seat, policy))
            done += 1
            if worlds is not None and done >= worlds:
                break
            if limit is not None and done >= MIN_WORLDS:
                spent = time.perf_counter() - t0
                if spent + spent / done > limit:
                    break
        return found


@dataclass(frozen=True, slots=True)
class Search:
    """What one search found: ``values[k][w]`` is the chips candidate ``k`` brought in world
    ``w``; ``prior`` is the index of greedy's choice."""

    candidates: list[Any]
    prior: int
    values: list[list[int]]

    @property
    def worlds(self) -> int:
        return len(self.values[0])

    def mean(self, k: int) -> float:
        vals = self.values[k]
        return sum(vals) / len(vals) if vals else 0.0

    def choice(self, confidence: float = CONFIDENCE) -> Any:
        """The candidate whose mean gain over the prior, world by world, is the largest
        among those clear of noise (more than ``confidence`` standard errors above zero);
        else the prior."""
        base = self.values[self.prior]
        w = len(base)
        best, best_gain = self.prior, 0.0
        if w < 2:
            return self.candidates[best]
        for k, vals in enumerate(self.values):
            if k == self.prior:
                continue
            diffs = [v - b for v, b in zip(vals, base, strict=True)]
            mean = sum(diffs) / w
            if mean <= best_gain:
                continue
            var = sum((d - mean) ** 2 for d in diffs) / (w - 1)
            if mean > confidence * math.sqrt(var / w):
                best, best_gain = k, mean
        return self.candidates[best]
