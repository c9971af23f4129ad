"""The facts of a finished hand that payments depend on, and its settlement under any rules.

To say which house rule explains a disputed amount, the audit settles the same hand again
under modified rulesets. Everything that can change with a settlement setting is recomputed
here from facts that cannot: the final piles, Go counts, shakes and bombs
(:func:`gostop_records.engine.turn.facts_of`), how many nagari hands came right before (for
the carry) and which instant payments the play triggered (for their amounts).

Instant payments are found by replaying the hand once under the game's rules with probe
amounts (first-turn ppuk paying 1, 2, 3 and first-turn ttadak paying 1), so that a
first-turn ppuk is found even when the game's ruleset pays nothing for it: those settings
pay money but never change how a hand is played.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import msgspec

from .. import cards as C
from .. import events as E
from ..engine import rulebook as RB
from ..engine.game import GameState, HandResult, apply_game
from ..engine.settlement import Due, HandFacts, Proof, settle
from ..engine.state import HandState, Phase
from ..engine.table import table_for
from ..engine.turn import facts_of
from ..errors import GostopError
from ..rules import Ruleset

__all__ = [
    "INSTANT_REASONS",
    "HandContext",
    "InstantEvent",
    "Settlement",
    "carry_of",
    "hand_context",
    "nagari_streaks",
    "settle_under",
]

INSTANT_REASONS = tuple(i.id for i in RB.INSTANTS)
_HAND_INPUTS = (
    E.HandStarted,
    E.CardsDealt,
    E.BrightsSold,
    E.FourOfAMonthShown,
    E.FourKept,
    E.ShakeDeclined,
    E.Shaken,
    E.BombPlayed,
    E.CardPlayed,
    E.FlipOnlyPlayed,
    E.CardFlipped,
    E.CupAssigned,
    E.GoCalled,
    E.StopCalled,
)
_KEEP: Any = object()


@dataclass(frozen=True, slots=True)
class InstantEvent:
    """An instant payment the play triggered; ``k`` is the first-turn ppuk's turn in a row,
    or the brights of a gwang-pali sale."""

    payer: int
    payee: int
    reason: str
    k: int = 1


@dataclass(frozen=True, slots=True)
class HandContext:
    """What a hand's payments depend on, independent of the settlement settings."""

    hand: int
    players: int
    rules: Ruleset
    stake: int
    outcome: str
    winner: int | None
    facts: HandFacts | None  # set when the hand has a winner and a final state
    nagari_streak: int  # consecutive nagari hands right before this one
    instants: tuple[InstantEvent, ...]
    cup_holder: int | None  # the seat whose pile holds the September cup at the end


@dataclass(frozen=True, slots=True)
class Settlement:
    """Every payment a hand makes due under one ruleset, stake and cup role."""

    rules: Ruleset
    stake: int
    carry: int
    cup_role: str | None
    proof: Proof | None
    dues: tuple[Due, ...]

    def chips(self, payer: int, payee: int) -> int:
        return sum(d.chips for d in self.dues if d.payer == payer and d.payee == payee)

    def points(self, payer: int, payee: int) -> int:
        return sum(d.points for d in self.dues if d.payer == payer and d.payee == payee)


def carry_of(rules: Ruleset, streak: int) -> int:
    """The nagari factor of a hand that follows ``streak`` consecutive nagari hands."""
    return RB.NAGARI_CARRY.carry_after(rules, streak)


def nagari_streaks(results: Sequence[HandResult]) -> dict[int, int]:
    """Per hand number, how many nagari hands came right before it (void hands skipped)."""
    out: dict[int, int] = {}
    streak = 0
    for r in results:
        out[r.hand] = streak
        if r.outcome == "nagari":
            streak += 1
        elif r.outcome in ("stop", "instant"):
            streak = 0
    out[-1] = streak  # the hand after the last result
    return out


def instant_points(rules: Ruleset, ev: InstantEvent) -> int:
    """Points of an instant payment under a ruleset, before any multiplier."""
    if ev.reason == RB.GWANG_PALI.id:
        return RB.GWANG_PALI.points(rules, ev.k)
    inst = RB.instant(ev.reason)
    return inst.points(rules, ev.k) if inst is not None else 0


def settle_under(
    ctx: HandContext,
    rules: Ruleset | None = None,
    stake: int | None = None,
    cup_role: Any = _KEEP,
) -> Settlement:
    """The hand's payments under ``rules`` (default: the game's), a stake and a cup role.

    Mirrors the engine: instant payments are separate and only multiplied when the ruleset
    says so (A24); a Stop is settled by :func:`gostop_records.engine.settlement.settle`.
    """
    rules = ctx.rules if rules is None else rules
    stake = ctx.stake if stake is None else stake
    carry = carry_of(rules, ctx.nagari_streak)
    facts = ctx.facts
    role = (facts.cup_role if facts is not None else None) if cup_role is _KEEP else cup_role
    dues: list[Due] = []
    for ev in ctx.instants:
        pts = instant_points(rules, ev)
        inst = RB.instant(ev.reason)
        if inst is not None and inst.wins and facts is not None:
            w = facts.winner
            pts = RB.INSTANT_WIN_MULTIPLIERS.points(
                rules, pts, carry, facts.shakes[w], facts.bombs[w], ev.reason, ctx.hand
            )
        if pts:
            dues.append(Due(ev.payer, ev.payee, pts, pts * stake, ev.reason))
    proof = None
    if ctx.outcome == "stop" and facts is not None:
        table = table_for(rules, ctx.players, stake)
        proof = settle(table, msgspec.structs.replace(facts, carry=carry, cup_role=role))
        dues.extend(proof.dues)
    return Settlement(rules, stake, carry, role, proof, tuple(dues))


def hand_context(
    game: GameState,
    result: HandResult | None,
    state: HandState | None,
    streak: int,
    inputs: Sequence[E.Envelope],
) -> HandContext | None:
    """The context of a hand from its final state and its input envelopes (None: unknown)."""
    if state is None:
        return None
    outcome = result.outcome if result is not None else "in_progress"
    winner = result.winner if result is not None else None
    facts = facts_of(state, winner) if winner is not None else None
    instants = _probe_instants(game, state, inputs)
    if instants is None:
        instants = _instants_by_order(result, state)
    holder = None
    for seat, pile in enumerate(state.piles):
        if pile & C.CUP:
            holder = seat
    return HandContext(
        hand=state.hand_no,
        players=game.table.players,
        rules=game.rules,
        stake=game.stake,
        outcome=outcome,
        winner=winner,
        facts=facts,
        nagari_streak=streak,
        instants=tuple(instants),
        cup_holder=holder,
    )


def _instants_by_order(result: HandResult | None, state: HandState) -> list[InstantEvent]:
    """Instant payments as the record derived them; the k-th first-turn ppuk per pair."""
    if result is not None:
        rows = [(p, q, why) for p, q, _pts, _chips, why in result.dues if why != "stop"]
    else:
        rows = [(p, q, why) for p, q, _pts, why in state.instant_dues]
    seen: dict[tuple[int, int, str], int] = {}
    out = []
    sold = _sold(state.table.rules, result.dues if result is not None else ())
    for payer, payee, why in rows:
        if why == RB.GWANG_PALI.id:
            out.append(InstantEvent(payer, payee, why, sold.get((payer, payee), 1)))
            continue
        k = seen.get((payer, payee, why), 0) + 1
        seen[(payer, payee, why)] = k
        inst = RB.instant(why)
        out.append(InstantEvent(payer, payee, why, k if inst is RB.FIRST_PPUK else 1))
    return out


def _probe_instants(
    game: GameState, state: HandState, inputs: Sequence[E.Envelope]
) -> list[InstantEvent] | None:
    """Replay the hand with probe amounts to find every instant payment the play made."""
    rules = game.rules
    updates: dict[str, Any] = {}
    for inst in RB.INSTANTS:
        updates.update(inst.probe(rules))
    probe = rules.model_copy(update=updates)
    try:
        table = table_for(probe, game.table.players, game.stake)
    except GostopError:
        return None
    g = GameState(
        game.game_id,
        probe,
        table,
        game.players,
        game.stake,
        hand_no=state.hand_no - 1,
        carry=state.carry,
    )
    undo: list[tuple[int, GameState]] = []
    retracted = {e.event.seq for e in inputs if type(e.event) is E.EntryRetracted}
    refused: set[int] = set()  # inputs the rules refused and the table then retracted
    for env in inputs:
        ev = env.event
        if type(ev) is E.EntryRetracted:
            if ev.seq in refused:
                continue
            if undo and undo[-1][0] == ev.seq:
                g = undo.pop()[1]
            continue
        if type(ev) not in _HAND_INPUTS or (type(ev) is E.StopCalled and ev.auto):
            continue
        before = g
        try:
            g, _ = apply_game(g, ev)
        except GostopError:
            if env.seq in retracted:
                refused.add(env.seq)
                continue
            return None
        undo.append((env.seq, before))
    h = g.hand
    if h is None or h.hand_no != state.hand_no:
        return None
    if h.phase is Phase.ENDED:
        if not g.results or g.results[-1].outcome != (state.outcome or ""):
            return None
        rows = [(p, q, pts, why) for p, q, pts, _c, why in g.results[-1].dues if why != "stop"]
    else:
        rows = list(h.instant_dues)
    rules = game.rules
    return [
        InstantEvent(p, q, why, RB.GWANG_PALI.brights(rules, pts))
        if why == RB.GWANG_PALI.id
        else InstantEvent(p, q, why, _probed(why, pts))
        for p, q, pts, why in rows
    ]


def _sold(rules: Ruleset, dues: Sequence[tuple[int, int, int, int, str]]) -> dict[Any, int]:
    """The brights each sale of a hand's dues sold, by (payer, seller)."""
    return {
        (p, q): RB.GWANG_PALI.brights(rules, pts)
        for p, q, pts, _c, why in dues
        if why == RB.GWANG_PALI.id
    }


def _probed(reason: str, points: int) -> int:
    inst = RB.instant(reason)
    return inst.probed(points) if inst is not None else 1
