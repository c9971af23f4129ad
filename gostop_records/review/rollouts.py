"""Expected chips of every option by determinized rollouts, with common random numbers.

The seat did not know the other hands or the stock, so an option has no single value: it
has a value in each *world*, a deal of the unseen cards that agrees with everything the seat
knew (:func:`~..sim.view.determinize`). In each world every option is played, then the rest
of the hand by a fixed rollout policy at every seat, and the chips the seat wins or pays
from that point are its value there (:func:`~..sim.strong.rollout`).

Every option meets the same worlds and the same policy seeds (common random numbers). The
difference between two options is then measured world by world, and the luck of the deal,
which is most of the spread of a single option's chips, cancels out of it: the paired
interval of a difference is far narrower than the two options' own intervals would suggest.

The worlds are drawn from a generator seeded by the review's seed, the hand and the
decision's seq, and from the information set: the same record and seed give the same
numbers, and a record whose unseen cards lie elsewhere gives them too.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

from .. import events as E
from ..engine.actions import legal_actions
from ..engine.state import HandState, Phase
from ..engine.turn import apply
from ..errors import GostopError
from ..sim.bots import GreedyBot
from ..sim.dealer import SplitMix64
from ..sim.strong import StrongBot, rollout
from ..sim.view import SeatView, determinize, seat_of
from .model import Interval

__all__ = [
    "DEFAULT_BUDGET",
    "MIN_BUDGET",
    "POLICIES",
    "STRONG_ROLLOUTS",
    "Values",
    "check",
    "deal_values",
    "interval",
    "option_values",
    "paired",
    "playout",
]

#: Worlds per decision by default: every option is played out in each.
DEFAULT_BUDGET = 200
#: The fewest worlds a decision is judged in: one world measures no spread.
MIN_BUDGET = 2
#: Rollouts per decision of the strong bot when it is the rollout policy (it searches at
#: every turn of every rollout, so it costs about this many greedy rollouts a turn).
STRONG_ROLLOUTS = 8


def _greedy(rng: SplitMix64) -> Any:
    return GreedyBot(rng)


def _strong(rng: SplitMix64) -> Any:
    return StrongBot(rng, rollouts=STRONG_ROLLOUTS)


#: The rollout policies by name: a bot made from one seeded generator. ``greedy`` is fast
#: and the default; ``strong`` plays better and costs a search at every turn.
POLICIES: dict[str, Callable[[SplitMix64], Any]] = {"greedy": _greedy, "strong": _strong}

# two-sided 95% quantiles of Student's t, by degrees of freedom (1 to 30); 1.96 beyond
_T95 = (
    12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
    2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
    2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042,
)  # fmt: skip


def interval(values: Sequence[float]) -> Interval:
    """The mean of ``values`` and its 95% interval (Student's t; a single value or values
    that are all equal give an interval of width zero: no spread was seen)."""
    n = len(values)
    if n == 0:
        return Interval(0.0, 0.0, 0.0)
    mean = sum(values) / n
    if n == 1:
        return Interval(mean, mean, mean)
    var = sum((v - mean) ** 2 for v in values) / (n - 1)
    half = (_T95[n - 2] if n - 1 <= len(_T95) else 1.96) * math.sqrt(var / n)
    return Interval(mean, mean - half, mean + half)


def paired(best: Sequence[float], taken: Sequence[float]) -> Interval:
    """What ``taken`` lost against ``best``, world by world (see the module docstring)."""
    return interval([b - t for b, t in zip(best, taken, strict=True)])


Values = list[list[int]]  # values[k][w]: the chips of option k in world w


def _policy(name: str, seed: int, players: int) -> list[Any]:
    make = POLICIES[name]
    return [make(SplitMix64(seed + q)) for q in range(players)]


def playout(state: HandState, seat: int, policy: list[Any]) -> int:
    """Chips ``seat`` wins (or pays) from ``state`` to the end of the hand, every seat
    playing by ``policy``; ``state`` (a full table) is not changed."""
    s = state.copy()
    v = 0
    while s.phase is not Phase.ENDED:
        acts = legal_actions(s)
        a = acts[0] if len(acts) == 1 else policy[seat_of(s)].choose(s, acts)
        s, out = apply(s, a, inplace=True)
        for ev in out:
            if type(ev) is E.PaymentDue:
                v += ev.chips if ev.payee == seat else -ev.chips if ev.payer == seat else 0
    return v


def option_values(
    view: SeatView,
    options: Sequence[Any],
    budget: int,
    key: str,
    policy: str = "greedy",
) -> Values:
    """The chips of every option in ``budget`` worlds of ``view`` (see the module
    docstring); ``key`` names the decision in the review's seed ("{seed}/{hand}/{seq}")."""
    check(budget, policy)
    rng = SplitMix64(f"{key}/review")
    n = view.state.players
    values: Values = [[] for _ in options]
    for _ in range(budget):
        world = determinize(view, rng)
        seed = rng.next64()
        for k, a in enumerate(options):
            values[k].append(rollout(world, a, view.seat, _policy(policy, seed, n)))
    return values


def check(budget: int, policy: str) -> None:
    """Refuse a budget that measures no spread (one world gives an interval of width zero,
    which would claim a certainty it does not have) and an unknown policy."""
    if budget < MIN_BUDGET:
        raise GostopError(f"a budget of {budget}: at least {MIN_BUDGET} worlds measure a spread")
    if policy not in POLICIES:
        raise GostopError(f"unknown rollout policy {policy!r}: {', '.join(POLICIES)}")


def deal_values(view: SeatView, budget: int, key: str, policy: str = "greedy") -> list[int]:
    """The chips the seat of ``view`` wins from there to the end of the hand, in ``budget``
    worlds, every seat playing the policy (what the deal was worth, seen from the deal)."""
    check(budget, policy)
    rng = SplitMix64(f"{key}/deal")
    n = view.state.players
    out = []
    for _ in range(budget):
        world = determinize(view, rng)
        out.append(playout(world, view.seat, _policy(policy, rng.next64(), n)))
    return out
