"""The bot ladder: how far apart the levels are, in chips per hand (``python -m bench.ladder``).

Rungs, weakest first: ``random``, ``greedy``, the ``strong`` search at the play page's three
budgets (``club`` 24, ``strong`` 96 and ``expert`` 288 rollouts a decision, see
:data:`gostop_records.sim.roster.LEVELS`), and the review's own search played as a bot
(``review-N``: every option of a decision, not greedy's best few, played out in ``N`` deals
of the unseen cards by greedy, the highest mean taken, no confidence rule: what the hint of
``/play`` would advise, at ``N`` worlds).

Each pair of adjacent rungs plays the same seeded deals twice, the seats swapped (the same
cards, the same dealer, so each bot moves first once a deal); a deal's figure is the upper
rung's mean chips over its two hands, and the interval is Student's t over the deals (95%).
Per match the table gives the nagari rate (hands that ended with no winner, of the hands
played: a deal made void at once is not one), and per bot the share of its hands in which
it called Go and then lost the hand. Two more matches: the strongest rung against today's
``strong``, and the strongest search used only for the Go/Stop calls (greedy everywhere
else) against ``greedy`` -- what the search gains on those calls alone.

Decision times are CPU times of the process (``time.process_time``) of the searched
decisions (more than one input), per bot; on a shared machine wall time measures the
neighbours too. The table goes to ``bench/LADDER.md``. ``--quick`` is a small run (a few
deals a match: wide intervals); the full size is the default (``--deals 400``).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from gostop_records import cards as C
from gostop_records import events as E
from gostop_records.engine import Phase, apply, legal_actions, new_hand, table_for
from gostop_records.review.decisions import information_set
from gostop_records.review.hint import hint_options
from gostop_records.review.rollouts import interval, option_values
from gostop_records.rules import get_preset
from gostop_records.sim.bots import Bot, GreedyBot
from gostop_records.sim.dealer import SplitMix64, deal, shuffled_deck
from gostop_records.sim.deep import DEEP_CALL_WORLDS, DEEP_CONFIDENCE, DEEP_ROLLOUTS
from gostop_records.sim.roster import LEVELS, make_bot
from gostop_records.sim.view import seat_of

from .figures import machine

HERE = Path(__file__).resolve().parent
OUT = HERE / "LADDER.md"
RULESETS = ("cardavia", "matgo")
CODES = tuple(c.code for c in C.ALL_CARDS)
#: The review's search as a bot, at these worlds a decision.
REVIEW_WORLDS = (24, 96)


class ReviewBot:
    """The review's search (:func:`~gostop_records.review.rollouts.option_values`) as a bot:
    every option of the decision, ``worlds`` deals, greedy rollouts, the highest mean."""

    __slots__ = ("name", "rng", "worlds")

    def __init__(self, rng: SplitMix64, worlds: int) -> None:
        self.rng = rng
        self.worlds = worlds
        self.name = f"review-{worlds}"

    def choose(self, state: Any, actions: list[Any]) -> Any:
        _, options = hint_options(state)
        if len(options) < 2:
            return options[0] if options else actions[0]
        seat = seat_of(state)
        view = information_set(state, seat, options)
        values = option_values(view, options, self.worlds, f"ladder/{self.rng.next64()}")
        means = [sum(v) / len(v) for v in values]
        return options[max(range(len(options)), key=lambda k: means[k])]


class GoStopOnly:
    """A search used for the Go/Stop calls only; greedy everywhere else."""

    __slots__ = ("greedy", "name", "search")

    def __init__(self, rng: SplitMix64, search: Bot, name: str) -> None:
        self.greedy = GreedyBot(rng)
        self.search = search
        self.name = name

    def choose(self, state: Any, actions: list[Any]) -> Any:
        if state.phase is Phase.DECIDE:
            return self.search.choose(state, actions)
        return self.greedy.choose(state, actions)


def make(name: str, rng: SplitMix64) -> Bot:
    """A rung by name: a bot, a level, ``review-N``, or ``NAME@gostop`` (the search of
    ``NAME`` on the Go/Stop calls only)."""
    if name.endswith("@gostop"):
        inner = name.removesuffix("@gostop")
        return GoStopOnly(rng, make(inner, SplitMix64(rng.next64())), name)  # type: ignore[return-value]
    if name.startswith("review-"):
        return ReviewBot(rng, int(name.removeprefix("review-")))  # type: ignore[return-value]
    return make_bot(name, rng)


def searches(name: str) -> bool:
    return name not in ("random", "greedy", "beginner", "casual")


@dataclass(slots=True)
class Hand:
    chips: list[int]
    outcome: str
    went_and_lost: list[bool]  # by seat: called Go, then lost the hand
    times: list[list[float]]  # by seat: CPU ms of each searched decision


def play_hand(ruleset: str, seed: int, seats: Sequence[str]) -> Hand:
    """One seeded hand between ``seats`` (rung names by seat)."""
    rules = get_preset(ruleset)
    table = table_for(rules, 2)
    key = f"{seed}/ladder-{ruleset}"
    dealer = seed % 2
    bots = [make(b, SplitMix64(f"{key}/bot{s}")) for s, b in enumerate(seats)]
    cards = shuffled_deck(table, SplitMix64(f"{key}/deck"))
    d = deal(table, cards, dealer)
    s = new_hand(table, 1, dealer, [dealer, 1 - dealer])
    s, out = apply(
        s,
        E.CardsDealt(
            hands=[[CODES[i] for i in h] for h in d.hands],
            layout=[CODES[i] for i in d.layout],
            stock=[CODES[i] for i in d.stock],
            bonus_to_pile=[CODES[i] for i in d.bonus_to_pile],
        ),
    )
    chips = [0, 0]
    went = [False, False]
    outcome = "?"
    times: list[list[float]] = [[], []]
    timed = [searches(b) for b in seats]
    while True:
        for ev in out:
            t = type(ev)
            if t is E.PaymentDue:
                chips[ev.payee] += ev.chips
                chips[ev.payer] -= ev.chips
            elif t is E.HandEnded:
                outcome = ev.outcome
        if s.phase is Phase.ENDED:
            lost = [went[q] and chips[q] < 0 for q in (0, 1)]
            return Hand(chips, outcome, lost, times)
        acts = legal_actions(s)
        seat = seat_of(s)
        if len(acts) > 1 and timed[seat]:
            t0 = time.process_time()
            a = bots[seat].choose(s, acts)
            times[seat].append((time.process_time() - t0) * 1000)
        else:
            a = bots[seat].choose(s, acts)
        if type(a) is E.GoCalled:  # an input: not among the consequences ``out`` holds
            went[a.seat] = True
        s, out = apply(s, a, inplace=True)


@dataclass(slots=True)
class Match:
    ruleset: str
    bot: str  # the upper rung: the figure is its chips per hand
    foe: str
    pairs: list[float] = field(default_factory=list)
    hands: int = 0
    played: int = 0  # hands not made void at once
    nagari: int = 0
    went_lost: dict[str, int] = field(default_factory=dict)
    times: dict[str, list[float]] = field(default_factory=dict)
    wall_s: float = 0.0
    loads: list[float] = field(default_factory=list)  # the 1-minute load at each deal

    def ci(self) -> tuple[float, float, float]:
        i = interval(self.pairs)
        return i.mean, i.low, i.high


def play_match(
    ruleset: str,
    bot: str,
    foe: str,
    deals: int,
    log: Callable[[str], None] | None = None,
    until: datetime | None = None,
    first: int = 0,
    pairs_out: Path | None = None,
) -> Match:
    """``deals`` seeded deals (seeds ``first``, ``first + 1``, ...), each played twice with
    the seats swapped; fewer when the clock reaches ``until`` (a stop that does not look at
    the chips). ``pairs_out`` gets one JSON line a deal, so that runs over different seeds
    can be pooled."""
    m = Match(ruleset, bot, foe, went_lost={bot: 0, foe: 0}, times={bot: [], foe: []})
    t0 = time.perf_counter()
    for seed in range(first, first + deals):
        if until is not None and datetime.now(UTC) >= until:
            break
        m.loads.append(os.getloadavg()[0])
        total = 0
        for seats, me in (((bot, foe), 0), ((foe, bot), 1)):
            h = play_hand(ruleset, seed, seats)
            total += h.chips[me]
            m.hands += 1
            if h.outcome != "void":
                m.played += 1
                m.nagari += h.outcome == "nagari"
            for q, name in enumerate(seats):
                m.went_lost[name] += h.went_and_lost[q]
                m.times[name] += h.times[q]
        m.pairs.append(total / 2)
        if pairs_out is not None:
            with pairs_out.open("a") as f:
                f.write(
                    json.dumps(
                        {
                            "ruleset": ruleset,
                            "bot": bot,
                            "foe": foe,
                            "seed": seed,
                            "chips": total / 2,
                        }
                    )
                    + "\n"
                )
        if log and (seed + 1) % 5 == 0:
            mean, low, high = m.ci()
            log(
                f"{ruleset}: {bot} vs {foe}: {len(m.pairs)}/{deals} deals, "
                f"{mean:+.2f} [{low:+.2f}, {high:+.2f}]"
            )
    m.wall_s = time.perf_counter() - t0
    return m


def rungs(review: Sequence[int] = REVIEW_WORLDS) -> list[str]:
    """The ladder, weakest first: the review's search at ``review`` worlds, then the levels."""
    return [
        "random",
        "greedy",
        "club",
        "strong",
        "expert",
        *(f"review-{n}" for n in review),
        "master",
    ]


def matches(ladder: Sequence[str], top: str) -> list[tuple[str, str]]:
    """(upper, lower) for each adjacent pair, then the top against ``strong`` and the top's
    search on Go/Stop only against greedy."""
    out = [(ladder[k + 1], ladder[k]) for k in range(len(ladder) - 1)]
    if top != "strong" and (top, "strong") not in out:
        out.append((top, "strong"))
    out.append((f"{top}@gostop", "greedy"))
    return out


def _ms(times: list[float]) -> str:
    if not times:
        return "–"
    times = sorted(times)
    p99 = times[min(len(times) - 1, int(0.99 * len(times)))]
    return f"{sum(times) / len(times):.0f} / {p99:.0f}"


#: A 1-minute load average above this marks a match LOADED (the project's machine has 2 cores).
LOADED = 2.0


def _load(loads: list[float]) -> str:
    if not loads:
        return "–"
    low, high = min(loads), max(loads)
    return f"{low:.1f}–{high:.1f}" + (" LOADED" if high > LOADED else "")


def render(results: list[Match], args: str, deals: int, note: str) -> str:
    load = os.getloadavg()
    when = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    out = [
        "# The bot ladder",
        "",
        f"Written by `python -m bench.ladder{args}` on {when}: {deals} deal(s) a match (fewer "
        "where a match was stopped by `--until`), each played twice with the seats swapped, "
        f"on {os.cpu_count()} cores (load average {load[0]:.1f} / {load[1]:.1f} / "
        f"{load[2]:.1f} at the end of the run; per match, the 1-minute load at each deal, "
        f"LOADED above {LOADED:g}): the chips do not depend on the load, the times do (CPU "
        "time of the process, and the wall time of each match).",
        "",
        f"Machine: {machine()}.",
        "",
        note,
        "",
        "Chips: the first bot's mean chips per hand against the second, paired over the "
        "deals, with the 95% interval (Student's t). Nagari: hands with no winner, of the "
        "hands played. Go then lost: the share of a bot's hands in which it called Go and "
        "then paid. ms: CPU time of a searched decision, mean / 99th percentile. wall s: the "
        "match's wall time.",
        "",
        "| rules | bot | against | deals | chips/hand | 95% interval | nagari | "
        "Go then lost (bot / against) | ms (bot) | ms (against) | wall s | load |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for m in results:
        mean, low, high = m.ci()
        n = m.hands // 2 or 1
        gl = f"{m.went_lost[m.bot] / n:.0%} / {m.went_lost[m.foe] / n:.0%}"
        nag = f"{m.nagari / m.played:.0%}" if m.played else "–"
        out.append(
            f"| {m.ruleset} | {m.bot} | {m.foe} | {len(m.pairs)} | {mean:+.2f} | "
            f"[{low:+.2f}, {high:+.2f}] | {nag} | {gl} | {_ms(m.times[m.bot])} | "
            f"{_ms(m.times[m.foe])} | {m.wall_s:.0f} | {_load(m.loads)} |"
        )
    out.append("")
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.ladder", description=__doc__)
    ap.add_argument("--quick", action="store_true", help="a small run: 4 deals a match")
    ap.add_argument("--deals", type=int, default=None, help="deals a match (default 400)")
    ap.add_argument(
        "--ruleset", action="append", choices=RULESETS, help="repeatable (default: both)"
    )
    ap.add_argument(
        "--review",
        type=int,
        action="append",
        help="worlds of a review-N rung, repeatable (default "
        f"{', '.join(map(str, REVIEW_WORLDS))})",
    )
    ap.add_argument("--top", default=None, help="the strongest rung (default: the last)")
    ap.add_argument("--out", type=Path, default=OUT, help="where the table goes")
    ap.add_argument(
        "--only", default=None, help="play only the matches between these rungs (comma-separated)"
    )
    ap.add_argument(
        "--until",
        default=None,
        help="stop each match's deals at this UTC time (HH:MM), whatever its chips",
    )
    ap.add_argument("--first", type=int, default=0, help="the first deal's seed (default 0)")
    ap.add_argument(
        "--pairs", type=Path, default=None, help="append each deal's paired chips (JSON lines)"
    )
    ns = ap.parse_args(argv)
    deals = ns.deals or (4 if ns.quick else 400)
    ladder = rungs(ns.review or REVIEW_WORLDS)
    top = ns.top or ladder[-1]
    only = set(ns.only.split(",")) if ns.only else None
    until = None
    if ns.until:
        h, mi = (int(x) for x in ns.until.split(":"))
        until = datetime.now(UTC).replace(hour=h, minute=mi, second=0, microsecond=0)
    log = lambda text: print(text, file=sys.stderr, flush=True)  # noqa: E731
    results = []
    for ruleset in ns.ruleset or RULESETS:
        for bot, foe in matches(ladder, top):
            if only and not {bot.removesuffix("@gostop"), foe} <= only:
                continue
            m = play_match(ruleset, bot, foe, deals, log, until, ns.first, ns.pairs)
            mean, low, high = m.ci()
            log(
                f"{ruleset}: {bot} vs {foe}: {mean:+.2f} [{low:+.2f}, {high:+.2f}] "
                f"in {m.wall_s:.0f} s"
            )
            results.append(m)
            ns.out.write_text(
                render(results, " " + " ".join(argv or sys.argv[1:]), deals, _note(top))
            )
    return 0


def _note(top: str) -> str:
    return (
        f"The strongest rung here is `{top}`; `{top}@gostop` is its search on the Go/Stop "
        "calls only, greedy everywhere else, against greedy: what the search gains on those "
        "calls alone. Levels: "
        + ", ".join(
            f"`{lv.name}` = {lv.bot}" + (f" at {lv.rollouts} rollouts" if lv.rollouts else "")
            for lv in LEVELS.values()
        )
        + f" (a second look of {DEEP_ROLLOUTS} rollouts a play, {DEEP_CALL_WORLDS} worlds a "
        f"two-way call, overruling strong's pick at {DEEP_CONFIDENCE:g} standard errors)"
        + "; `review-N` is the review's search (every option, N deals, greedy rollouts, the "
        "highest mean)."
    )


if __name__ == "__main__":
    raise SystemExit(main())
