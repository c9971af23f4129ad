"""Judging decisions and hands: the numbers of :mod:`.rollouts` turned into a review.

A decision is judged against the best option found: the option with the highest mean chips
over the worlds. What the option taken lost is the mean of the paired differences, with its
95% interval, and :func:`~.grades.grade` names it only when the interval is clear of zero;
an option taken that is the best is "best" only when it is clearly better than the next.
Choosing the best by the same worlds it is measured in favours it a little (the largest of
several noisy means is biased upwards); where two options are close, the interval reaches
zero and the grade says "within noise", which is the honest answer at that budget.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from .. import events as E
from ..engine.state import Phase
from ..errors import GostopError
from ..projector import Projector
from .decisions import Decision, find_decisions, information_set, label
from .grades import grade
from .model import DecisionReview, GameReview, HandLuck, HandReview, Interval, OptionValue
from .rollouts import DEFAULT_BUDGET, check, deal_values, interval, option_values, paired

__all__ = ["judge", "review_game"]

#: Inputs that are no turn of the hand (a sale, a payment, a note).
_NOT_PLAY = (E.BrightsSold, E.PaymentRecorded, E.NoteAdded)

Progress = Callable[[int, int], None]  # (decisions judged, decisions in all)


def judge(
    d: Decision, budget: int = DEFAULT_BUDGET, seed: int = 0, policy: str = "greedy"
) -> DecisionReview:
    """One decision judged on its information set (see the module docstring)."""
    if d.exact is not None:
        values = [[v] for v in d.exact]
        samples, unseen = 0, 0
    else:
        assert d.view is not None
        key = f"{seed}/{d.hand}/{d.seq}"
        values = option_values(d.view, d.options, budget, key, policy)
        samples, unseen = budget, d.view.unseen.bit_count()
    means = [sum(v) / len(v) for v in values]
    best = max(range(len(means)), key=lambda k: (means[k], k == d.taken))
    loss = paired(values[best], values[d.taken])
    margin = None
    if best == d.taken:  # how clearly: against the next best option
        second = max((k for k in range(len(means)) if k != best), key=lambda k: means[k])
        margin = paired(values[best], values[second]).low
    options = [
        OptionValue(label(a), interval(values[k]), k == d.taken, k == best)
        for k, a in enumerate(d.options)
    ]
    return DecisionReview(
        seq=d.seq,
        hand=d.hand,
        seat=d.seat,
        kind=d.kind,
        taken=label(d.options[d.taken]),
        best=label(d.options[best]),
        options=options,
        loss=loss,
        grade=grade(loss.mean, loss.low, d.stake, margin),
        samples=samples,
        unseen=unseen,
    )


def _hand_facts(
    envelopes: Sequence[E.Envelope], hand: int
) -> tuple[Any, dict[int, int], dict[int, int]]:
    """The state at the hand's first play (after the deal and any sale; None when the hand
    never got there), the chips each seat was paid or paid before it, and in the hand."""
    p = Projector(strict=False)
    start = None
    before: dict[int, int] = {}
    won: dict[int, int] = {}
    for env in envelopes:
        if env.hand is not None and env.hand > hand:
            break
        game = p.game
        ev = env.event
        if (
            start is None
            and env.hand == hand
            and game is not None
            and game.in_hand
            and game.hand is not None
            and game.hand.phase not in (Phase.DEAL, Phase.ENDED)
            and E.is_input(ev)
            and type(ev) not in _NOT_PLAY
        ):
            start = game
            before = dict(won)
        p.feed(env)
        if env.hand == hand and type(ev) is E.PaymentDue:
            won[ev.payee] = won.get(ev.payee, 0) + ev.chips
            won[ev.payer] = won.get(ev.payer, 0) - ev.chips
    return start, before, won


def _lost(decisions: Sequence[DecisionReview], seat: int) -> float:
    """The chips ``seat`` lost to its decisions: one loss an input (a capture reviewed inside
    a play is part of the play's loss when the play was reviewed)."""
    by_seq: dict[int, DecisionReview] = {}
    for d in decisions:
        if d.seat == seat and (d.seq not in by_seq or len(d.options) > len(by_seq[d.seq].options)):
            by_seq[d.seq] = d
    return sum(d.loss.mean for d in by_seq.values())


def _luck(
    envelopes: Sequence[E.Envelope],
    hand: int,
    seats: Sequence[int],
    decisions: Sequence[DecisionReview],
    budget: int,
    seed: int,
    policy: str,
) -> list[HandLuck]:
    start, before, won = _hand_facts(envelopes, hand)
    if start is None:
        return []
    h = start.hand
    out = []
    for s in seats:
        pre = before.get(s, 0)
        if s in h.order:
            view = information_set(h, s, ())
            vals = deal_values(view, budget, f"{seed}/{hand}/seat{s}", policy)
            deal = interval([pre + v for v in vals])
        else:
            deal = Interval(float(pre), float(pre), float(pre))
        lost = _lost(decisions, s)
        w = won.get(s, 0)
        out.append(HandLuck(s, deal, w, lost, w - deal.mean + lost))
    return out


def _hands(envelopes: Sequence[E.Envelope]) -> list[int]:
    return sorted({e.hand for e in envelopes if e.hand is not None})


def review_game(
    game_id: str,
    envelopes: Sequence[E.Envelope],
    hand: int | None = None,
    seat: int | None = None,
    budget: int = DEFAULT_BUDGET,
    seed: int = 0,
    policy: str = "greedy",
    kinds: Sequence[str] | None = None,
    luck: bool = True,
    progress: Progress | None = None,
) -> GameReview:
    """The review of one hand of a game, or of every hand: every decision of ``seat`` (every
    seat when None), judged, and the luck against the skill of each seat (``luck=False``
    leaves it out: it costs a rollout set a seat)."""
    first = envelopes[0].event if envelopes else None
    if type(first) is not E.GameStarted:
        raise GostopError(f"game {game_id}: the log does not start with game_started")
    if seat is not None and not 0 <= seat < len(first.players):
        raise GostopError(f"game {game_id} has seats 0 to {len(first.players) - 1}, not {seat}")
    check(budget, policy)
    hands = [hand] if hand is not None else _hands(envelopes)
    found = {h: find_decisions(envelopes, h, seat, kinds) for h in hands}
    total = sum(len(decisions) for decisions in found.values())
    seats = [seat] if seat is not None else list(range(len(first.players)))
    judged = 0  # decisions done, in this hand and the earlier ones
    out = []
    for h, decisions in found.items():
        done = []
        for d in decisions:
            done.append(judge(d, budget, seed, policy))
            judged += 1
            if progress is not None:
                progress(judged, total)
        lucks = _luck(envelopes, h, seats, done, budget, seed, policy) if luck else []
        out.append(HandReview(h, done, lucks))
    return GameReview(
        game_id=game_id,
        ruleset=str(first.ruleset.get("name", "?")),
        players=len(first.players),
        stake=first.stake,
        policy=policy,
        budget=budget,
        seed=seed,
        seat=seat,
        hands=out,
        through_seq=envelopes[-1].seq,
    )
