"""Bot strength: chips per hand of ``strong`` against ``greedy``, and of ``greedy`` against
``random``, with 95% confidence intervals (``python -m bench --bots``).

Each match plays seeded deals twice, the bots swapping seats (the same cards, the same
dealer), so a deal's luck falls on both bots alike; a deal's figure is the bot's mean chips
over its two hands, and the interval is the mean of those over the deals, plus or minus 1.96
standard errors. A hand is the first hand of a game (a matgo game plays on, but the figure
is per hand). Decisions of ``strong`` are timed one at a time in CPU time of the process
(``time.process_time``), as the other single-threaded figures of the bench are: on a shared
machine, wall time measures the neighbours too.
"""

from __future__ import annotations

import math
import os
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from typing import Any

from gostop_records import cards as C
from gostop_records import events as E
from gostop_records.engine import Phase, apply, legal_actions, new_hand, table_for
from gostop_records.rules import get_preset
from gostop_records.sim.bots import Bot
from gostop_records.sim.dealer import SplitMix64, deal, shuffled_deck
from gostop_records.sim.roster import make_bot
from gostop_records.sim.strong import StrongBot
from gostop_records.sim.view import seat_of

from .figures import Figure

__all__ = ["MATCHES", "RULESETS", "MatchResult", "bot_figures", "play_match", "render_section"]

RULESETS = ("cardavia", "matgo")
#: (bot, opponent): the figure is the bot's chips per hand.
MATCHES = (("strong", "greedy"), ("greedy", "random"))
CODES = tuple(c.code for c in C.ALL_CARDS)
#: Marks of the bots' section in RESULTS.md, which the main bench keeps when it rewrites it.
BEGIN = "<!-- bots: written by python -m bench --bots -->"
END = "<!-- /bots -->"


@dataclass(frozen=True, slots=True)
class MatchResult:
    ruleset: str
    bot: str
    foe: str
    deals: int
    mean: float  # the bot's chips per hand
    half: float  # half the 95% interval
    decisions: int  # searched decisions of strong (more than one input)
    decision_ms: float  # their mean wall time
    decision_ms_max: float
    decision_ms_p99: float

    @property
    def low(self) -> float:
        return self.mean - self.half

    @property
    def high(self) -> float:
        return self.mean + self.half


def _make(name: str, rng: SplitMix64, rollouts: int | None) -> Bot:
    if name == "strong" and rollouts is not None:
        return StrongBot(rng, rollouts=rollouts)
    return make_bot(name, rng)


def play_hand(
    ruleset: str, seed: int, seats: Sequence[str], rollouts: int | None = None
) -> tuple[list[int], list[float]]:
    """One seeded hand between ``seats`` (bot names by seat): each seat's chips, and the
    CPU times in ms of every searched decision of a ``strong`` seat."""
    rules = get_preset(ruleset)
    table = table_for(rules, 2)
    key = f"{seed}/bench-bots-{ruleset}"
    dealer = seed % 2
    bots = [_make(b, SplitMix64(f"{key}/bot{s}"), rollouts) for s, b in enumerate(seats)]
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
    times: list[float] = []
    while True:
        for ev in out:
            if type(ev) is E.PaymentDue:
                chips[ev.payee] += ev.chips
                chips[ev.payer] -= ev.chips
        if s.phase is Phase.ENDED:
            return chips, times
        acts = legal_actions(s)
        seat = seat_of(s)
        if len(acts) > 1 and seats[seat] == "strong":
            t0 = time.process_time()
            a = bots[seat].choose(s, acts)
            times.append((time.process_time() - t0) * 1000)
        else:
            a = bots[seat].choose(s, acts)
        s, out = apply(s, a, inplace=True)


class _InProcess:
    """``map`` in this process, for one worker (and the quick run)."""

    def __enter__(self) -> _InProcess:
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def map(self, fn: Callable[..., Any], jobs: Sequence[Any]) -> Iterator[Any]:
        return map(fn, jobs)


def _deals(args: tuple[str, str, str, int, int, int | None]) -> tuple[list[float], list[float]]:
    ruleset, bot, foe, start, count, rollouts = args
    pairs: list[float] = []
    times: list[float] = []
    for seed in range(start, start + count):
        total = 0
        for seats, me in (((bot, foe), 0), ((foe, bot), 1)):
            chips, t = play_hand(ruleset, seed, seats, rollouts)
            total += chips[me]
            times += t
        pairs.append(total / 2)
    return pairs, times


def play_match(
    ruleset: str,
    bot: str,
    foe: str,
    deals: int,
    workers: int = 1,
    rollouts: int | None = None,
    chunk: int = 20,
    log: Callable[[str], None] | None = None,
) -> MatchResult:
    """``deals`` seeded deals, each played twice with the seats swapped (2 x deals hands)."""
    jobs = [(ruleset, bot, foe, k, min(chunk, deals - k), rollouts) for k in range(0, deals, chunk)]
    pairs: list[float] = []
    times: list[float] = []
    with ProcessPoolExecutor(workers) if workers > 1 else _InProcess() as pool:
        for k, (p, t) in enumerate(pool.map(_deals, jobs), start=1):
            pairs += p
            times += t
            if log and k % 10 == 0 and k < len(jobs):
                log(f"{ruleset}: {bot} vs {foe}: {len(pairs)} of {deals} deals")
    n = len(pairs)
    mean = sum(pairs) / n
    var = sum((x - mean) ** 2 for x in pairs) / (n - 1) if n > 1 else 0.0
    times.sort()
    return MatchResult(
        ruleset=ruleset,
        bot=bot,
        foe=foe,
        deals=n,
        mean=mean,
        half=1.96 * math.sqrt(var / n),
        decisions=len(times),
        decision_ms=sum(times) / len(times) if times else 0.0,
        decision_ms_max=times[-1] if times else 0.0,
        decision_ms_p99=times[min(len(times) - 1, int(0.99 * len(times)))] if times else 0.0,
    )


def run(
    deals: int,
    workers: int | None = None,
    rollouts: int | None = None,
    log: Callable[[str], None] | None = None,
) -> list[MatchResult]:
    """Every match of :data:`MATCHES` on every ruleset of :data:`RULESETS`."""
    workers = workers or min(2, os.cpu_count() or 1)
    out = []
    for ruleset in RULESETS:
        for bot, foe in MATCHES:
            t0 = time.perf_counter()
            r = play_match(ruleset, bot, foe, deals, workers, rollouts, log=log)
            if log:
                log(
                    f"{ruleset}: {bot} vs {foe}: {r.mean:+.2f} chips/hand "
                    f"[{r.low:+.2f}, {r.high:+.2f}] in {time.perf_counter() - t0:.0f} s"
                )
            out.append(r)
    return out


def bot_figures(results: list[MatchResult], judge: bool = True) -> list[Figure]:
    """The figures of the matches; ``judge`` adds the targets (not for a smoke run of a few
    hands, whose intervals say nothing)."""
    figs = []
    for r in results:
        above = r.low > 0
        figs.append(
            Figure(
                f"{r.ruleset}: {r.bot} against {r.foe}, {2 * r.deals} hands",
                r.mean,
                "chips/hand",
                beside=f"95% CI [{r.low:+.2f}, {r.high:+.2f}]",
                target=("interval above 0: " + ("met" if above else "NOT met"))
                if r.bot == "strong" and judge
                else "",
            )
        )
    for r in results:
        if r.decisions:
            figs.append(
                Figure(
                    f"{r.ruleset}: strong decision time (mean; p99, max)",
                    r.decision_ms,
                    "ms",
                    beside=f"p99 {r.decision_ms_p99:.0f} ms, max {r.decision_ms_max:.0f} ms "
                    f"over {r.decisions:,} searched decisions",
                    target="at most 200 ms: " + ("met" if r.decision_ms_max <= 200 else "NOT met")
                    if judge
                    else "",
                )
            )
    return figs


def render_section(
    results: list[MatchResult], machine: str, args: str, loads: tuple[float, float] | None = None
) -> str:
    """The bots' section of RESULTS.md, between :data:`BEGIN` and :data:`END`; ``loads``:
    the 1-minute load average at the start and the end of the run."""
    from datetime import UTC, datetime

    from .process import loaded

    when = datetime.now(UTC).strftime("%Y-%m-%d")
    deals = results[0].deals if results else 0
    lines = [
        BEGIN,
        "## Bot strength",
        "",
        f"Measured {when} with `python -m bench {args}`: {deals:,} seeded deals per match, each "
        f"played twice with the seats swapped ({2 * deals:,} hands), on {machine}.",
        "",
    ]
    if loads is not None:
        mark = ": LOADED (above 0.5 per core), the decision times are inflated" * any(
            loaded(x) for x in loads
        )
        lines += [
            f"Load average (1 min): {loads[0]:.2f} at the start, {loads[1]:.2f} at the end{mark}.",
            "",
        ]
    lines += [
        "| figure | value | 95% interval or detail | target |",
        "|---|---|---|---|",
    ]
    for f in bot_figures(results):
        lines.append(f"| {f.name} | {f.shown()} | {f.beside} | {f.target} |")
    lines += [
        "",
        "A deal's figure is the bot's mean chips over its two hands (one in each seat); the "
        "interval is the mean over the deals plus or minus 1.96 standard errors. `strong` "
        "searches with its default fixed rollout count (deterministic: the same seed gives "
        "the same games); its decision times are CPU time of the process, one decision at a "
        "time.",
        END,
    ]
    return "\n".join(lines)


def merge_section(text: str, section: str) -> str:
    """``text`` (RESULTS.md) with its bots' section replaced by ``section`` (or added)."""
    if BEGIN in text and END in text:
        head, rest = text.split(BEGIN, 1)
        _, tail = rest.split(END, 1)
        return head + section + tail
    return text.rstrip("\n") + "\n\n" + section + "\n"


def section_of(text: str) -> str | None:
    """The bots' section of ``text``, if it has one."""
    if BEGIN in text and END in text:
        return BEGIN + text.split(BEGIN, 1)[1].split(END, 1)[0] + END
    return None
