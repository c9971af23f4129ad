"""Rollouts per second, beside the simulator's hands per second, and a whole hand reviewed.

The reviewer (and the ``strong`` bot) is only as strong as its rollouts are fast: each
option of each decision is played out to the end of the hand in hundreds of deals of the
unseen cards. A *rollout* here is what the reviewer plays: from the information set of a
decision of a simulated hand, a deal of the cards the seat could not see
(:func:`~gostop_records.sim.view.determinize`), then the option and the rest of the hand
with ``greedy`` at every seat (:func:`~gostop_records.sim.strong.rollout`). Beside it the
simulator plays whole hands from the deal with ``greedy`` at every seat (the same policy,
the deal and the log's envelopes added). The two are measured as pairs of back-to-back runs
whose order alternates, and reported as medians with the range of the pairs' figures.

The review figure is ``gostop review`` of every decision of a whole simulated matgo hand at
the default budget (CPU seconds of one run, in-process), against the issue's 60 seconds.
"""

from __future__ import annotations

import statistics
import time
from typing import Any

from gostop_records.review import DEFAULT_BUDGET, KINDS, find_decisions, review_game
from gostop_records.rules import PRESETS
from gostop_records.sim.dealer import SplitMix64
from gostop_records.sim.selfplay import GameSpec, play_game
from gostop_records.sim.strong import rollout
from gostop_records.sim.view import determinize

from .figures import Figure
from .runs import pair_order, spread

__all__ = ["rollout_figures"]

#: The sample hand whose every decision is reviewed (a full matgo hand, two seats).
REVIEW_SEED = 7


def _positions(hands: int) -> list[Any]:
    """Decisions of simulated matgo hands (every kind), each with the seat's view."""
    out = []
    for seed in range(hands):
        envs = play_game(GameSpec(PRESETS["matgo"], 2, 1, seed))
        out += [d for d in find_decisions(envs, kinds=KINDS) if d.view is not None]
    return out


def _rollouts(positions: list[Any], seconds: float) -> float:
    """Rollouts per CPU second, cycling over ``positions`` for about ``seconds``."""
    from gostop_records.review.rollouts import _policy

    rng = SplitMix64("bench/rollouts")
    done = 0
    start = time.process_time()
    while True:
        for d in positions:
            world = determinize(d.view, rng)
            policy = _policy("greedy", rng.next64(), d.view.state.players)
            rollout(world, d.options[d.taken], d.seat, policy)
            done += 1
        spent = time.process_time() - start
        if spent >= seconds:
            return done / spent


def _simulated(seconds: float, first: int) -> float:
    """Whole simulated matgo hands (greedy at both seats) per CPU second."""
    done = 0
    start = time.process_time()
    while True:
        play_game(GameSpec(PRESETS["matgo"], 2, 1, 10_000 + first + done))
        done += 1
        spent = time.process_time() - start
        if spent >= seconds:
            return done / spent


def _review_seconds() -> tuple[float, int]:
    """CPU seconds of reviewing every decision of one whole hand, and its decisions."""
    envs = play_game(GameSpec(PRESETS["matgo"], 2, 1, REVIEW_SEED))
    start = time.process_time()
    r = review_game("bench", envs, hand=1, budget=DEFAULT_BUDGET, kinds=KINDS)
    return time.process_time() - start, sum(len(h.decisions) for h in r.hands)


def rollout_figures(pairs: int, quick: bool = False) -> list[Figure]:
    """Rollouts per second beside simulated hands per second (``pairs`` pairs), and (not
    ``quick``) the whole-hand review."""
    positions = _positions(3 if quick else 8)
    seconds = 0.5 if quick else 2.0
    rates: dict[str, list[float]] = {"rollouts": [], "hands": []}
    for k in range(pairs):
        got = pair_order(
            [
                ("rollouts", lambda: _rollouts(positions, seconds)),
                ("hands", lambda k=k: _simulated(seconds, 1000 * k)),
            ],
            k,
        )
        for name, v in got.items():
            rates[name].append(v)
    ratios = [r / h for r, h in zip(rates["rollouts"], rates["hands"], strict=True)]
    figures = [
        Figure(
            "rollouts from a decision (greedy, every seat)",
            statistics.median(rates["rollouts"]),
            "rollouts/s",
            beside=f"simulated hands {statistics.median(rates['hands']):,.0f}/s",
            ratio=spread(ratios),
        )
    ]
    if not quick:
        secs, n = _review_seconds()
        figures.append(
            Figure(
                f"review of a whole matgo hand ({n} decisions, budget {DEFAULT_BUDGET})",
                secs,
                "s",
                target="< 60 s: " + ("met" if secs < 60 else "NOT met"),
            )
        )
    return figures
