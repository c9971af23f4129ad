"""How noisy is ``strong``'s pick? (``python -m bench.search_noise``)

Positions are taken from seeded greedy hands (every Go/Stop call with ``--kind gostop``,
about one play or capture in four with ``--kind play``). At each, ``strong`` (96 rollouts)
searches twice with two seeds, and a large search (``--worlds`` worlds, every candidate of
``strong`` played out in each, common random numbers, greedy rollouts) measures the
candidates' means. Printed per preset: how often the two ``strong`` searches disagree, the
chips a decision that ``strong``'s pick and greedy's pick lose against the large search's
best (by the large search's own means: an upper bound, the best of several noisy means is
biased upwards), and the CPU time of each search. A pick that changes with the seed is a
pick limited by its sample; a loss near zero says more worlds cannot gain there.
"""

from __future__ import annotations

import argparse
import math
import time
from typing import Any

from gostop_records import cards as C
from gostop_records import events as E
from gostop_records.engine import HandState, Phase, apply, legal_actions, new_hand, table_for
from gostop_records.rules import get_preset
from gostop_records.sim.bots import GreedyBot
from gostop_records.sim.dealer import SplitMix64, deal, shuffled_deck
from gostop_records.sim.strong import StrongBot, rollout
from gostop_records.sim.view import determinize, seat_of, seat_view

CODES = tuple(c.code for c in C.ALL_CARDS)


def positions(ruleset: str, kind: str, count: int) -> list[HandState]:
    """``count`` decisions of ``kind`` from seeded greedy hands of ``ruleset``."""
    table = table_for(get_preset(ruleset), 2)
    out: list[HandState] = []
    seed = 0
    while len(out) < count:
        d = deal(table, shuffled_deck(table, SplitMix64(f"{seed}/noise-{ruleset}")), seed % 2)
        s = new_hand(table, 1, seed % 2, [seed % 2, 1 - seed % 2])
        s, _ = apply(
            s,
            E.CardsDealt(
                hands=[[CODES[i] for i in h] for h in d.hands],
                layout=[CODES[i] for i in d.layout],
                stock=[CODES[i] for i in d.stock],
                bonus_to_pile=[CODES[i] for i in d.bonus_to_pile],
            ),
        )
        bots = [GreedyBot(SplitMix64(seed * 2 + q)) for q in (0, 1)]
        k = 0
        while s.phase is not Phase.ENDED and len(out) < count:
            acts = legal_actions(s)
            if len(acts) > 1:
                if kind == "gostop" and s.phase is Phase.DECIDE:
                    out.append(s.copy())
                elif kind == "play" and s.phase is not Phase.DECIDE:
                    k += 1
                    if k % 4 == seed % 4:
                        out.append(s.copy())
            s, _ = apply(s, bots[seat_of(s)].choose(s, acts), inplace=True)
        seed += 1
    return out


def measure(ruleset: str, kind: str, count: int, worlds: int) -> str:
    disagree = 0
    lost_strong = lost_greedy = 0.0
    ms_strong = ms_large = 0.0
    clear = 0
    ps = positions(ruleset, kind, count)
    for p, s in enumerate(ps):
        seat = seat_of(s)
        view = seat_view(s, seat, legal_actions(s))
        t0 = time.process_time()
        found = StrongBot(SplitMix64(f"{p}/a"), rollouts=96).search(view)
        ms_strong += time.process_time() - t0
        cands = found.candidates
        again = StrongBot(SplitMix64(f"{p}/b"), rollouts=96).search(view)
        picks: list[Any] = [found.choice(), again.choice()]
        rng = SplitMix64(f"{p}/large")
        values: list[list[int]] = [[] for _ in cands]
        t0 = time.process_time()
        for _ in range(worlds):
            world = determinize(view, rng)
            seed = rng.next64()
            for j, a in enumerate(cands):
                policy = [GreedyBot(SplitMix64(seed + q)) for q in (0, 1)]
                values[j].append(rollout(world, a, seat, policy))
        ms_large += time.process_time() - t0
        means = [sum(v) / worlds for v in values]
        best = max(range(len(cands)), key=lambda j: means[j])
        second = max((j for j in range(len(cands)) if j != best), key=lambda j: means[j])
        diffs = [values[best][w] - values[second][w] for w in range(worlds)]
        m = sum(diffs) / worlds
        se = math.sqrt(sum((d - m) ** 2 for d in diffs) / (worlds - 1) / worlds)
        clear += m > 2 * se
        disagree += repr(picks[0]) != repr(picks[1])
        for pick in picks:  # a pick outside the first search's candidates: greedy's tie-break
            j = next((j for j, c in enumerate(cands) if repr(c) == repr(pick)), found.prior)
            lost_strong += (means[best] - means[j]) / 2
        lost_greedy += means[best] - means[found.prior]
    n = len(ps)
    return (
        f"{ruleset} {kind}: {n} positions, {worlds} worlds; best clear of the second "
        f"(2 se) {clear / n:.0%}; strong's two seeds disagree {disagree / n:.0%}; chips lost a "
        f"decision against the large search: strong {lost_strong / n:.2f}, greedy "
        f"{lost_greedy / n:.2f}; CPU ms a decision: strong {1000 * ms_strong / n:.0f}, large "
        f"{1000 * ms_large / n:.0f}"
    )


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.search_noise", description=__doc__)
    ap.add_argument("--ruleset", action="append", default=None)
    ap.add_argument("--kind", choices=("gostop", "play"), action="append", default=None)
    ap.add_argument("--positions", type=int, default=60)
    ap.add_argument("--worlds", type=int, default=600)
    ns = ap.parse_args(argv)
    for ruleset in ns.ruleset or ["cardavia", "matgo"]:
        for kind in ns.kind or ["gostop", "play"]:
            print(measure(ruleset, kind, ns.positions, ns.worlds), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
