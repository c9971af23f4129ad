"""``deep``: the ``strong`` search, then a second, larger look at the same candidates.

``strong`` measures each decision in a few dozen worlds (:data:`~.strong.DEFAULT_ROLLOUTS`
rollouts split among up to five candidates) and leaves greedy's pick only when a gain is
clear of that noise. Measured on positions of real hands, two ``strong`` searches of the same
play with different seeds disagree on 38-48% of them, and a 300-world search finds their
pick worse than its best candidate by up to half a chip (``python -m bench.search_noise``):
the decision is limited by its sample. ``deep`` keeps ``strong``'s search
(the same generator, drawn the same way, so where it agrees with ``strong`` it is
``strong``, move for move) and then plays the same candidates out in :data:`DEEP_ROLLOUTS`
more rollouts (common random numbers: every candidate meets the same worlds and the same
greedy tie-breaks), from a generator of its own. It leaves ``strong``'s pick only for the
candidate whose mean gain over it, world by world, is the largest among those more than
:data:`DEEP_CONFIDENCE` standard errors above zero.

A decision between two inputs (Go or Stop, which of two layout cards to take, the cup) is
cheap to play out and often worth the most chips, so its second look plays
:data:`DEEP_CALL_WORLDS` worlds whatever the candidates; a play splits
:data:`DEEP_ROLLOUTS` among its candidates. Both are fixed counts (the same seed and view
give the same decision) chosen to stay under one second a decision on the project's 2-core
machine (``python -m bench.ladder`` reports the CPU time of each).
"""

from __future__ import annotations

from typing import Any

from ..engine.state import HandState
from .bots import GreedyBot
from .dealer import SplitMix64
from .strong import Search, StrongBot, rollout
from .view import SeatView, determinize, seat_of, seat_view

__all__ = ["DEEP_CALL_WORLDS", "DEEP_CONFIDENCE", "DEEP_ROLLOUTS", "DeepBot"]

#: Rollouts of the second look at a play, split among its candidates.
DEEP_ROLLOUTS = 600
#: Worlds of the second look at a decision between two inputs.
DEEP_CALL_WORLDS = 400
#: How clear a gain over ``strong``'s pick must be, in standard errors, to be taken.
DEEP_CONFIDENCE = 2.0
#: Mixed into the seed of the second look's generator, so that it never draws the worlds
#: ``strong``'s own search draws.
_SALT = 0x5DEECE66D_2545F491


class DeepBot:
    """``strong``, then a second look; see the module docstring."""

    name = "deep"

    __slots__ = ("call_worlds", "deep_rollouts", "extra", "last_changed", "strong")

    def __init__(
        self,
        rng: SplitMix64,
        rollouts: int | None = None,
        deep_rollouts: int = DEEP_ROLLOUTS,
        call_worlds: int = DEEP_CALL_WORLDS,
    ) -> None:
        self.strong = StrongBot(rng, rollouts=rollouts)  # the same generator: strong's draws
        self.extra = SplitMix64(rng.state ^ _SALT)
        self.deep_rollouts = deep_rollouts
        self.call_worlds = call_worlds
        self.last_changed = False  # whether the last decision left strong's pick

    def choose(self, state: HandState, actions: list[Any]) -> Any:
        """The Bot protocol: the input for the seat to move, from that seat's view only."""
        self.last_changed = False
        if len(actions) == 1:
            self.strong.last_worlds = 0
            return actions[0]
        return self.decide(seat_view(state, seat_of(state), actions))

    def decide(self, view: SeatView) -> Any:
        """The input to give in ``view``: ``strong``'s search, then the second look."""
        self.last_changed = False
        if len(view.actions) == 1:
            return view.actions[0]
        first = self.strong.search(view)
        pick = first.choice()
        if len(first.candidates) < 2:
            return pick
        second = self.second_look(view, first.candidates, first.candidates.index(pick))
        choice = second.choice(DEEP_CONFIDENCE)
        self.last_changed = choice is not pick
        return choice

    def second_look(self, view: SeatView, cands: list[Any], prior: int) -> Search:
        """Every candidate in the same fresh worlds, judged against ``prior``."""
        k = len(cands)
        worlds = self.call_worlds if k == 2 else max(2, self.deep_rollouts // k)
        values: list[list[int]] = [[] for _ in cands]
        seat, n = view.seat, view.state.players
        for _ in range(worlds):
            world = determinize(view, self.extra)
            seed = self.extra.next64()
            for j, a in enumerate(cands):
                policy = [GreedyBot(SplitMix64(seed + q)) for q in range(n)]
                values[j].append(rollout(world, a, seat, policy))
        return Search(cands, prior, values)
