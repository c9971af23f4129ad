"""Payouts as proofs: what each loser owes the winner, line by line, and why.

A payout dispute is settled by showing the arithmetic: the winner's score lines, the Go
bonus by the ruleset's formula, every multiplier with the condition that made it apply (or
not), the nagari carry, the stake and the chips. :func:`settle` builds that proof from the
facts of a finished hand (:class:`HandFacts`) and a table, so the audit can re-run it under
other settings to find the one that explains a disputed amount. The rules themselves are the
rulebook's (``rulebook/go.py``, ``rulebook/multipliers.py``); this module folds over them.

Order of operations (A17): Go points are added to the combination score first, then every
multiplier applies. Instant payments (four of a month, three ppuk, first-turn ppuk) are
separate lines that are never multiplied.
"""

from __future__ import annotations

from ..cards import (
    ANIMALS,
    BRIGHTS,
    CUP,
)
from .proof import Due, Factor, HandFacts, LoserProof, Proof
from .rulebook import DOKBAK, GO_BONUS, MULTIPLIERS, Loser
from .scoring import cup_as_junk, score
from .table import Table

__all__ = ["Due", "Factor", "HandFacts", "LoserProof", "Proof", "go_points", "settle"]


def go_points(t: Table, s: int, n: int) -> tuple[int, str]:
    """Points of a combination score ``s`` after ``n`` Gos, with the arithmetic as text."""
    return GO_BONUS.points(t.rules, s, n)


def _loser(t: Table, facts: HandFacts, seat: int) -> Loser:
    pile = facts.piles[seat]
    cup_junk = cup_as_junk(t, pile, facts.cup_role)
    animals = pile & ANIMALS & ~(CUP if cup_junk else 0)
    return Loser(seat, pile, cup_junk, (pile & BRIGHTS).bit_count(), animals.bit_count())


def settle(t: Table, facts: HandFacts) -> Proof:
    """The payout proof of a hand won by ``facts.winner`` with a Stop."""
    rules = t.rules
    w = facts.winner
    win = score(t, facts.piles[w], facts.cup_role)
    n = facts.go_count[w]
    gp, formula = GO_BONUS.points(rules, win.total, n)
    losers = facts.losers()

    shares: list[tuple[int, list[Factor], list[str], int, int]] = []
    for seat in losers:
        lo = _loser(t, facts, seat)
        fs = []
        applied = []  # the ids of the rules that change this loser's payment
        mult = 1
        for m in MULTIPLIERS:
            f = m.factor(t, facts, win, lo)
            if f is not None:
                fs.append(f)
                if f.applies:
                    mult *= f.factor
                    applied.append(f.rule)
        shares.append((seat, fs, applied, mult, gp * mult))

    pays, note = DOKBAK.shares(rules, facts, {lo: pts for lo, _, _, _, pts in shares})
    proofs = []
    dues = []
    for seat, fs, applied, mult, pts in shares:
        if note:
            applied.append(DOKBAK.id)
        proofs.append(
            LoserProof(
                loser=seat,
                factors=tuple(fs),
                multiplier=mult,
                points=pts,
                chips=pts * t.stake,
                pays_points=pays[seat],
                pays_chips=pays[seat] * t.stake,
                note=note,
                applied=tuple(applied),
            )
        )
        if pays[seat]:
            dues.append(Due(seat, w, pays[seat], pays[seat] * t.stake, "stop"))
    return Proof(
        winner=w,
        score=win,
        go_count=n,
        go_points=gp,
        go_formula=formula,
        go_setting=f"go_payout={rules.go_payout.value}",
        stake=t.stake,
        carry=facts.carry,
        losers=tuple(proofs),
        dues=tuple(dues),
    )
