"""A game audit as text for people: the record, each hand's proof, payments, explanations.

The layout follows how a dispute is argued at a table: first whether the record can be
trusted, then per hand its payout proof (the winner's score lines, the Go bonus, each
multiplier and the condition behind it, the chips: the proof's own words, as every command
and page gives them); then every payment beside the computed amount, and for a difference
the house rules that would explain it.
"""

from __future__ import annotations

from collections.abc import Callable

from ..proof_view import proof_text
from .model import (
    AGREED,
    DIFFERS,
    UNRECORDED,
    GameAudit,
    HandAudit,
    PaymentCheck,
    SettlementAudit,
)

__all__ = ["AS_NOTED", "TABLE_NOTED", "render_audit"]

#: How the audit gives what the table wrote with a payment (its note, notes added about it),
#: and marks the explanation that note names; the web's audit page says it the same way.
TABLE_NOTED = "the table noted"
AS_NOTED = "as the table noted"

_MARKS = {True: ("✓", "✗"), False: ("yes", "no")}


def render_audit(audit: GameAudit, *, unicode: bool = True) -> str:
    """The whole audit as text; ``unicode=False`` writes yes/no instead of ticks."""
    yes, no = _MARKS[unicode]
    label = audit.seat_label
    names = [label(seat) for seat in range(len(audit.seats))]
    out: list[str] = []
    out.append(
        f"Game {audit.game_id}: ruleset {audit.ruleset} ({audit.ruleset_hash[:19]}...), "
        f"stake {audit.stake} chip(s) per point"
    )
    out.append("Seats: " + ", ".join(s.label() for s in audit.seats))
    out.append("")
    out.extend(_record(audit, yes, no))
    for h in audit.hands:
        out.append("")
        out.extend(_hand(h, label, names, yes, no, audit.settlement is not None))
    if audit.settlement is not None:
        out.append("")
        out.extend(_settlement(audit.settlement, label, yes, no))
    out.append("")
    out.append(_verdict(audit))
    return "\n".join(out)


def _record(audit: GameAudit, yes: str, no: str) -> list[str]:
    rec = audit.record
    out = ["Record"]
    c = rec.chain
    out.append(f"  hash chain  {yes if c.ok else no}  {c.reason}")
    if rec.first_violation is None:
        out.append(f"  rules       {yes}  every recorded fact follows the rules")
    else:
        n = len(rec.violations)
        mode = (
            "lenient: every hand that can be checked is audited"
            if rec.lenient
            else ("strict: the hands from there on are not audited")
        )
        out.append(f"  rules       {no}  first violation ({mode}):")
        out.append(f"                 {rec.first_violation.text}")
        expected = rec.first_violation.expected
        if expected is not None:
            out.append(f"                 the rules derive: {_payload(expected)}")
        if rec.first_violation.legal_text:
            out.append(f"                 {rec.first_violation.legal_text}")
        for v in rec.violations[1:]:
            out.append(f"                 also {v.text}")
        if rec.lenient and n > 1:
            out.append(f"                 ({n} violations in all)")
    sig = rec.signatures
    if sig is not None and (sig.keys or sig.signatures or sig.problems):
        out.append(f"  signatures  {yes if sig.ok else no}  {sig.summary()}")
        for who in sig.who_signed():
            out.append(f"                 {who}")
        for p in sig.problems:
            out.append(f"                 {no} {p}")
    for w in rec.warnings:
        out.append(f"  warning        {w.text}")
    checked = [h.conservation for h in audit.hands if h.conservation.checked]
    bad = [cv for cv in checked if not cv.ok]
    if not checked:
        out.append("  cards       -  no hand could be checked")
    elif not bad:
        out.append(
            f"  cards       {yes}  every card in exactly one place at the end of "
            f"{len(checked)} hand(s)"
        )
    else:
        for cv in bad:
            out.append(f"  cards       {no}  hand {cv.hand}: " + "; ".join(cv.problems))
    return out


def _payload(d: dict[str, object]) -> str:
    body = ", ".join(f"{k}={v}" for k, v in d.items() if k != "type" and v not in (None, []))
    return f"{d.get('type', '?')}({body})"


def _hand(
    h: HandAudit,
    label: Callable[[int], str],
    names: list[str],
    yes: str,
    no: str,
    settled: bool = False,
) -> list[str]:
    head = f"Hand {h.hand}: {h.outcome}"
    if h.dealer is not None:
        head += f", dealer seat {h.dealer}"
    out = [head, f"  {h.summary}"]
    if h.proof is not None:
        out.extend("  " + line for line in proof_text(h.proof, names))
    if h.not_in_ruleset:
        out.append("  Not in this ruleset: " + ", ".join(h.not_in_ruleset))
    if h.instants:
        out.append("  Instant payments (separate, never multiplied by the hand's factors)")
        for ln in h.instants:
            out.append(f"    {ln.text}")
    if h.payments:
        out.append("  Payments")
        for pc in h.payments:
            out.extend(_payment(pc, label, yes, no, settled))
    elif h.outcome in ("stop", "instant"):
        out.append("  Payments: none recorded")
    return out


def _payment(
    pc: PaymentCheck, label: Callable[[int], str], yes: str, no: str, settled: bool = False
) -> list[str]:
    who = f"{label(pc.payer)} -> {label(pc.payee)}"
    if pc.source == "claim":
        what = f"claim {pc.claim!r}: {pc.chips}"
    elif pc.source == "recorded":
        what = f"recorded {pc.chips} (seq {', '.join(str(s) for s in pc.seqs)})"
    else:
        what = "not recorded"
    if pc.status == AGREED:
        verdict = f"{yes} agreed"
    elif pc.status == DIFFERS:
        pts = f", {pc.difference_points:+d} points" if pc.difference_points is not None else ""
        verdict = f"{no} differs by {pc.difference:+d} chips{pts}"
    elif pc.status == UNRECORDED:
        # a closed night pays its hands' dues in the settlement (its total, below)
        verdict = "- due, in the night's settlement" if settled else "- due, no payment recorded"
    else:
        verdict = "- not checked"
    out = [f"    {who}: {what}; computed {pc.computed}; {verdict}"]
    out.extend(f"      {TABLE_NOTED}: {n}" for n in pc.notes)
    if pc.status != DIFFERS:
        return out
    out.append("      computed as:")
    out.extend(f"        {ln}" for ln in pc.lines)
    if pc.explanations:
        out.append("      explanations (most likely first):")
        for i, e in enumerate(pc.explanations, 1):
            named = f" ({AS_NOTED})" if e.matches_note else ""
            out.append(f"        {i}. {e.text}{named}")
        if pc.more_explanations:
            out.append(f"        ... and {pc.more_explanations} more")
    else:
        out.append("      no change of one or two settlement settings explains this amount")
        if pc.nearest:
            out.append("      the nearest amounts found:")
            for e in pc.nearest:
                out.append(f"        {e.chips} chips {e.text}")
    return out


def _settlement(st: SettlementAudit, label: Callable[[int], str], yes: str, no: str) -> list[str]:
    """The night's settlement: each seat's total by hand, then the transfers."""
    out = [f"The night's settlement (closed at seq {st.closed_seq}):"]
    for seat in st.seats:
        hands = ", ".join(f"hand {h} {c:+d}" for h, c in seat.by_hand) or "no dues"
        paid = (
            f"; paid during the night {seat.paid_during_night:+d}, owed {seat.owed:+d}"
            if seat.paid_during_night
            else ""
        )
        out.append(f"  {label(seat.seat)}: total {seat.total:+d} ({hands}){paid}")
    out.append("  Transfers:" if st.transfers else "  Transfers: none (every seat is square)")
    for t in st.transfers:
        who = f"{label(t.payer)} -> {label(t.payee)}"
        proposed = f"proposed {t.proposed}" if t.proposed is not None else "not proposed"
        if t.status == AGREED:
            line = f"{who}: paid {t.chips} (seq {t.seq}); {proposed}; {yes} agreed"
        elif t.status == DIFFERS:
            line = (
                f"{who}: paid {t.chips} (seq {t.seq}); {proposed}; {no} differs by "
                f"{t.difference:+d} chips"
            )
        else:
            line = f"{who}: {proposed}; - not paid yet"
        out.append(f"    {line}")
        if t.note:
            out.append(f"      {TABLE_NOTED}: {t.note}")
    return out


def _verdict(audit: GameAudit) -> str:
    if audit.ok:
        n = sum(1 for h in audit.hands for p in h.payments if p.status == AGREED)
        return f"Result: everything agrees ({n} payment(s) and claim(s) checked)."
    parts = []
    d = len(audit.disagreements)
    if d:
        parts.append(f"{d} payment(s) or claim(s) differ from what the rules make due")
    if audit.settlement is not None and audit.settlement.disagreements:
        n = len(audit.settlement.disagreements)
        parts.append(f"{n} paid transfer(s) of the settlement differ from the proposal")
    if not audit.record.chain.ok:
        parts.append("the hash chain is broken")
    if audit.record.violations:
        parts.append(f"{len(audit.record.violations)} rule violation(s) in the record")
    if audit.conservation_problems:
        parts.append("cards are not conserved")
    return "Result: " + "; ".join(parts) + "."
