"""``audit_game``: the payout proof of each hand, payments and claims beside it, the record.

For each hand the audit shows what the rules make due and why (the engine's settlement
proof: score lines, Go bonus, every multiplier with its condition, the nagari carry, the
stake), sets every ``payment_recorded`` and every claim beside the computed amount for the
same payer and payee, and, where they differ, searches the settlement settings for the
house rule that explains the other number (:mod:`.explain`). The record is audited too
(:mod:`.record`): a strict audit stops at the first fact that breaks the rules; a lenient
one lists them all and audits every hand it can.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from .. import events as E
from ..engine import rulebook as RB
from ..engine.game import GameState, HandResult
from ..engine.settlement import Due
from ..engine.state import HandState, Phase
from ..integrity.checkpoints import check as check_signatures
from ..projector import project
from ..rules import Ruleset
from .claims import AuditArgumentError, Claim, parse_claim
from .context import HandContext, hand_context, nagari_streaks, settle_under
from .explain import breakdown, explain_amount
from .model import (
    AGREED,
    DIFFERS,
    UNCHECKED,
    UNRECORDED,
    GameAudit,
    HandAudit,
    InstantLine,
    PaymentCheck,
    RecordAudit,
    Seat,
)
from .night import audit_settlement
from .record import check_chain, conservation, violation

__all__ = ["audit_game"]

_NOT_CHECKABLE = ("unchecked", "not_audited")


# Long: the steps of an audit in order (chain, rules, hands, claims), each a few lines.
def audit_game(
    envelopes: Iterable[E.Envelope],
    *,
    hand: int | None = None,
    claims: Iterable[str | Claim] = (),
    lenient: bool = False,
) -> GameAudit:
    """Audit one game's log: every hand (or just ``hand``), its payments and ``claims``.

    Claims (``"PAYER->PAYEE=CHIPS"``) are about ``hand`` when given, else the game's last
    hand. Raises :class:`~.claims.ClaimError` for a claim that cannot be read or names no
    seat, :class:`~.claims.AuditArgumentError` for a hand the game does not have or a log of
    several games, and :class:`~gostop_records.errors.ProjectionError` when the log cannot
    be folded at all (a seq gap, no ``game_started``).
    """
    parsed = [parse_claim(c) if isinstance(c, str) else c for c in claims]
    envs = list(envelopes)
    if not envs:
        raise AuditArgumentError("there are no events to audit")
    ids = list(dict.fromkeys(e.game_id for e in envs))
    if len(ids) > 1:
        raise AuditArgumentError(
            f"the events hold {len(ids)} games ({', '.join(ids[:5])}"
            f"{', ...' if len(ids) > 5 else ''}); audit one game at a time"
        )
    chain = check_chain(envs)
    proj = project(envs, strict=False)
    game = proj.game
    assert game is not None  # the projector raises when the log has no game_started
    seats = tuple(Seat(i, p.id, p.name) for i, p in enumerate(game.players))

    issues = [i for i in proj.issues if i.severity == "violation"]
    warnings = tuple(violation(i, envs) for i in proj.issues if i.severity != "violation")
    first = violation(issues[0], envs, detail=True) if issues else None
    stopped_at: int | None = None
    if first is not None and not lenient:
        stopped_at = first.seq if first.seq is not None else proj.last_seq
        shown = (first,)
    else:
        shown = ((first,) if first is not None else ()) + tuple(
            violation(i, envs) for i in issues[1:]
        )
    record = RecordAudit(chain, lenient, shown, warnings, first, stopped_at, check_signatures(envs))

    by_hand: dict[int, list[E.Envelope]] = {}
    current: int | None = None
    for env in envs:
        h = (
            env.hand
            if env.hand is not None
            else (current if type(env.event) is E.PaymentRecorded else None)
        )
        if h is None:
            continue
        current = h
        by_hand.setdefault(h, []).append(env)

    numbers = [r.hand for r in game.results]
    if game.hand is not None and game.hand.hand_no not in numbers:
        numbers.append(game.hand.hand_no)
    if hand is not None and hand not in numbers:
        have = f"hands {numbers[0]}..{numbers[-1]}" if numbers else "no hands"
        raise AuditArgumentError(f"game {game.game_id!r} has no hand {hand}; it has {have}")
    claim_hand = hand if hand is not None else (numbers[-1] if numbers else None)
    if parsed and claim_hand is None:
        raise AuditArgumentError(f"game {game.game_id!r} has no hand to check the claims against")
    resolved = [(c, *c.resolve(seats)) for c in parsed]

    violated = {i.hand for i in issues}
    streaks = nagari_streaks(game.results)
    results = {r.hand: r for r in game.results}
    out = []
    for n in numbers:
        if hand is not None and n != hand:
            continue
        envs_n = by_hand.get(n, [])
        not_audited = stopped_at is not None and any(e.seq >= stopped_at for e in envs_n)
        out.append(
            _audit_hand(
                game,
                n,
                results.get(n),
                envs_n,
                streaks.get(n, streaks[-1]),
                not_audited,
                n in violated,
                stopped_at,
                resolved if n == claim_hand else [],
                seats,
            )
        )
    return GameAudit(
        game_id=game.game_id,
        ruleset=game.rules.name,
        ruleset_hash=game.rules.content_hash,
        seats=seats,
        stake=game.stake,
        record=record,
        hands=tuple(out),
        settlement=audit_settlement(game, envs, set(proj.retracted)) if hand is None else None,
    )


# Long: one hand's findings in log order, each a few lines over the same replayed state.
def _audit_hand(
    game: GameState,
    n: int,
    result: HandResult | None,
    envs: Sequence[E.Envelope],
    streak: int,
    not_audited: bool,
    violated: bool,
    stopped_at: int | None,
    claims: Sequence[tuple[Claim, int, int]],
    seats: Sequence[Seat],
) -> HandAudit:
    state: HandState | None
    if result is not None:
        state = result.state
        outcome = result.outcome
        if state is None:
            outcome = "unchecked"
    else:
        # a hand without a result is in progress, or was left unchecked by a violation
        state = game.hand if game.hand is not None and game.hand.hand_no == n else None
        outcome = "in_progress"
        if violated or (state is not None and state.phase is Phase.ENDED):
            outcome = "unchecked"
    if not_audited:
        outcome = "not_audited"
    stake = game.stake
    winner = result.winner if result is not None else None
    carry = state.carry if state is not None else (result.carry if result else game.carry)
    next_carry = result.next_carry if result is not None else carry
    reason = result.reason if result is not None else (state.reason if state is not None else "")
    dealer = result.dealer if result is not None else (state.dealer if state else None)

    checkable = outcome not in _NOT_CHECKABLE and state is not None
    ctx: HandContext | None = None
    dues: list[Due] = []
    proof = None
    if checkable:
        assert state is not None
        inputs = [e for e in envs if E.is_input(e.event)]
        ctx = hand_context(game, result, state, streak, inputs)
        if result is not None:
            dues = [Due(p, q, pts, chips, why) for p, q, pts, chips, why in result.dues]
            proof = result.proof()
        elif state is game.hand:
            # the hand in progress: its dues so far (sales, instant payments) as paid
            dues = [Due(p, q, pts, chips, why) for p, q, pts, chips, why in game.hand_dues]
        else:
            dues = [Due(p, q, pts, pts * stake, why) for p, q, pts, why in state.instant_dues]

    instants = []
    k: dict[tuple[int, int, str], int] = {}
    for d in dues:
        if d.reason == "stop":
            continue
        key = (d.payer, d.payee, d.reason)
        k[key] = k.get(key, 0) + 1
        instants.append(
            InstantLine(
                d.payer,
                d.payee,
                d.points,
                d.chips,
                d.reason,
                f"{_instant_text(d.reason, k[key])}: seat {d.payer} pays seat {d.payee} "
                f"{d.points} points = {d.chips} chips",
            )
        )

    payments = _payments(n, envs, dues, ctx, stake, checkable, claims)
    cons = conservation(n, state if outcome not in _NOT_CHECKABLE else None)
    absent = _not_in_ruleset(game.rules) if proof is not None else ()
    who = next((s.label() for s in seats if s.seat == winner), f"seat {winner}")
    summary = _summary(outcome, who, reason, carry, next_carry, stopped_at)
    return HandAudit(
        hand=n,
        dealer=dealer,
        outcome=outcome,
        winner=winner,
        reason=reason,
        carry=carry,
        next_carry=next_carry,
        stake=stake,
        summary=summary,
        proof=proof,
        instants=tuple(instants),
        dues=tuple(dues),
        payments=tuple(payments),
        conservation=cons,
        not_in_ruleset=absent,
    )


def _not_in_ruleset(rules: Ruleset) -> tuple[str, ...]:
    """The multipliers a table may expect that this ruleset does not play, with the setting."""
    return tuple(text for r in RB.AUDITED if (text := r.absent(rules)) is not None)


def _instant_text(reason: str, k: int = 1) -> str:
    inst = RB.instant(reason)
    return inst.label(k) if inst is not None else reason


def _summary(
    outcome: str,
    winner: str,
    reason: str,
    carry: int,
    next_carry: int,
    stopped_at: int | None,
) -> str:
    if outcome == "stop":
        how = "an automatic Stop on the last turn" if reason == "auto_stop" else "Stop"
        extra = f"; payments x{carry} for the nagari before it" if carry > 1 else ""
        return f"{winner} won by {how}{extra}"
    if outcome == "instant":
        return f"{winner} won at once: {_instant_text(reason)}"
    if outcome == "nagari":
        return (
            f"nagari ({reason.replace('_', ' ')}): no winner, nobody pays; the next hand's "
            f"payments are multiplied by x{next_carry} (this hand's carry was x{carry})"
        )
    if outcome == "void":
        return f"void deal ({reason.replace('_', ' ')}): nobody pays; the carry stays x{next_carry}"
    if outcome == "unchecked":
        return "not checked: the record breaks the rules in this hand (see the record findings)"
    if outcome == "not_audited":
        return (
            f"not audited: the record breaks the rules at seq {stopped_at}; "
            "audit leniently to check the rest"
        )
    return "in progress: only instant payments so far"


# Long: recorded payments set against the dues one by one; the cases share their counters.
def _payments(
    n: int,
    envs: Sequence[E.Envelope],
    dues: Sequence[Due],
    ctx: HandContext | None,
    stake: int,
    checkable: bool,
    claims: Sequence[tuple[Claim, int, int]],
) -> list[PaymentCheck]:
    retracted = {e.event.seq for e in envs if type(e.event) is E.EntryRetracted}
    recorded: dict[tuple[int, int], list[tuple[int, int]]] = {}
    notes: dict[tuple[int, int], list[str]] = {}
    pair_of: dict[int, tuple[int, int]] = {}
    for e in envs:
        ev = e.event
        if type(ev) is E.PaymentRecorded and e.seq not in retracted:
            recorded.setdefault((ev.payer, ev.payee), []).append((e.seq, ev.chips))
            pair_of[e.seq] = (ev.payer, ev.payee)
            if ev.note:
                notes.setdefault((ev.payer, ev.payee), []).append(ev.note)
        elif type(ev) is E.NoteAdded and ev.about_seq in pair_of and e.seq not in retracted:
            notes.setdefault(pair_of[ev.about_seq], []).append(ev.text)
    computed: dict[tuple[int, int], int] = {}
    for d in dues:
        computed[(d.payer, d.payee)] = computed.get((d.payer, d.payee), 0) + d.chips

    base = settle_under(ctx) if ctx is not None else None
    out = []

    def check(
        payer: int,
        payee: int,
        source: str,
        chips: int | None,
        seqs: tuple[int, ...],
        claim: str | None,
    ) -> PaymentCheck:
        due = computed.get((payer, payee), 0)
        lines = breakdown(base, payer, payee) if base is not None else ()
        if not checkable:
            status, diff = UNCHECKED, 0
        elif chips is None:
            status, diff = UNRECORDED, 0
        elif chips == due:
            status, diff = AGREED, 0
        else:
            status, diff = DIFFERS, chips - due
        found: tuple[Any, ...] = ()
        more = 0
        near: tuple[Any, ...] = ()
        said = tuple(notes.get((payer, payee), ())) if source == "recorded" else ()
        if status == DIFFERS and ctx is not None and chips is not None:
            found, more, near = explain_amount(ctx, payer, payee, chips, notes=said)
        dp = diff // stake if stake and diff % stake == 0 else None
        finding = _finding(
            payer, payee, source, chips, due, status, diff, dp, seqs, claim, found, near
        )
        return PaymentCheck(
            hand=n,
            payer=payer,
            payee=payee,
            source=source,
            chips=chips,
            computed=due,
            status=status,
            difference=diff,
            difference_points=dp,
            seqs=seqs,
            claim=claim,
            notes=said,
            lines=lines,
            explanations=found,
            more_explanations=more,
            nearest=near,
            finding=finding,
        )

    for (payer, payee), rows in recorded.items():
        seqs = tuple(s for s, _ in rows)
        out.append(check(payer, payee, "recorded", sum(c for _, c in rows), seqs, None))
    for (payer, payee), chips in computed.items():
        if chips and (payer, payee) not in recorded:
            out.append(check(payer, payee, "due", None, (), None))
    for claim, payer, payee in claims:
        out.append(check(payer, payee, "claim", claim.chips, (), claim.text))
    return out


def _finding(
    payer: int,
    payee: int,
    source: str,
    chips: int | None,
    due: int,
    status: str,
    diff: int,
    dp: int | None,
    seqs: tuple[int, ...],
    claim: str | None,
    found: Sequence[Any],
    near: Sequence[Any],
) -> str:
    who = f"seat {payer} -> seat {payee}"
    if source == "claim":
        what = f"claim {claim!r} ({chips} chips)"
    elif source == "recorded":
        at = ", ".join(str(s) for s in seqs)
        what = f"recorded {chips} chips (seq {at})"
    else:
        what = "nothing recorded"
    if status == UNCHECKED:
        return f"{who}: {what}; not checked: the record breaks the rules in this hand"
    if status == UNRECORDED:
        return f"{who}: the rules make {due} chips due; no payment is recorded"
    if status == AGREED:
        return f"{who}: {what}; the rules make {due} due: agreed"
    pts = f" ({dp:+d} points)" if dp is not None else ""
    head = f"{who}: {what}; the rules make {due} due: {diff:+d} chips{pts}"
    if found:
        return f"{head}. Most likely: {found[0].text}"
    if near:
        return f"{head}. No change of one or two settings explains it"
    return f"{head}. No settlement setting changes this payment"
