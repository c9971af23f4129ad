"""A hint: the review of the decision in front of a seat, before it decides.

The same judgement as a review's (:mod:`.rollouts`): the seat's information set
(:func:`~.decisions.information_set`, never another hand or the stock), every option played
out in the same deals of the unseen cards with the rollout policy at every seat, and each
option's expected chips from now to the end of the hand with a 95% interval. A hint is
bounded in time, not in worlds: it plays worlds until ``seconds`` are nearly spent (or
``max_worlds`` are played), at least :data:`~.rollouts.MIN_BUDGET`, so it answers in about a
second on a busy machine and says how many deals it measured. Its worlds are drawn from a
seed of the hand and the state, so asking twice gives the same numbers on a quiet machine
(under load fewer worlds may fit in the time).
"""

from __future__ import annotations

import time
from typing import Any

import msgspec

from .. import events as E
from ..engine.actions import legal_actions
from ..engine.state import HandState, Phase
from ..sim.dealer import SplitMix64
from ..sim.strong import candidates, rollout
from ..sim.view import determinize
from .decisions import information_set, label
from .model import OptionValue
from .rollouts import MIN_BUDGET, _policy, interval, paired

__all__ = ["HINT_SECONDS", "HINT_WORLDS", "Hint", "hint", "hint_options"]

#: A hint's time, and the most worlds it plays.
HINT_SECONDS = 0.8
HINT_WORLDS = 64
_FOURS = (E.FourOfAMonthShown, E.FourKept)


class Hint(msgspec.Struct, frozen=True):
    """The options of the decision in front of ``seat``, best first, with their chips."""

    seat: int
    kind: str  # play, capture, go_stop, cup
    options: list[OptionValue]  # best first; ``best`` marks the highest mean
    worlds: int  # deals of the unseen cards every option was played in
    unseen: int  # cards whose place the seat does not know
    policy: str
    seconds: float  # the time the rollouts took
    clear: bool  # the best option's lead over the next is clear of the noise


def hint_options(state: HandState) -> tuple[str, list[Any]]:
    """The kind and the options of the decision in ``state`` (plays that change nothing
    between them counted once, a four shown or kept left out of a play)."""
    acts = legal_actions(state)
    phase = state.phase
    if phase is Phase.DECIDE:
        return "go_stop", acts
    if phase is Phase.CUP:
        return "cup", acts
    if phase in (Phase.FLIP, Phase.FLIP_AS_PLAY):
        return "capture", acts
    plays = [a for a in acts if type(a) not in _FOURS]
    opts = candidates(state, plays)
    if opts and all(type(a) is E.CardPlayed and a.card == opts[0].card for a in opts):
        return "capture", opts
    return "play", opts


def hint(
    state: HandState,
    seat: int,
    *,
    seconds: float = HINT_SECONDS,
    max_worlds: int = HINT_WORLDS,
    policy: str = "greedy",
    key: str = "hint",
) -> Hint | None:
    """The hint for ``seat`` in ``state`` (a full table: only the seat's view of it is read),
    or None when the seat has no choice to make now."""
    kind, options = hint_options(state)
    if len(options) < 2:
        return None
    view = information_set(state, seat, options)
    rng = SplitMix64(f"{key}/{view.key()!r}")
    n = state.players
    values: list[list[int]] = [[] for _ in options]
    t0 = time.perf_counter()
    done = 0
    while done < max_worlds:
        world = determinize(view, rng)
        pseed = rng.next64()
        for k, a in enumerate(options):
            values[k].append(rollout(world, a, seat, _policy(policy, pseed, n)))
        done += 1
        spent = time.perf_counter() - t0
        if done >= MIN_BUDGET and spent + spent / done > seconds:
            break
    means = [sum(v) / len(v) for v in values]
    order = sorted(range(len(options)), key=lambda k: -means[k])
    best, second = order[0], order[1]
    clear = paired(values[best], values[second]).low > 0
    out = [OptionValue(label(options[k]), interval(values[k]), False, k == best) for k in order]
    return Hint(
        seat=seat,
        kind=kind,
        options=out,
        worlds=done,
        unseen=view.unseen.bit_count(),
        policy=policy,
        seconds=round(time.perf_counter() - t0, 3),
        clear=clear,
    )
