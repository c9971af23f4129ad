"""Payouts as proofs: what each loser owes the winner, line by line, and why.

A payout dispute is settled by showing the arithmetic: the winner's score lines, the Go
bonus by the ruleset's formula, every multiplier with the condition that made it apply (or
not), the nagari carry, the stake and the chips. :func:`settle` builds that proof from the
facts of a finished hand (:class:`HandFacts`) and a table, so the audit can re-run it under
other settings to find the one that explains a disputed amount.

Order of operations (A17): Go points are added to the combination score first, then every
multiplier applies. Instant payments (four of a month, three ppuk, first-turn ppuk) are
separate lines that are never multiplied.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .. import cards as C
from ..rules import GoBak, GoPayout, Shaking
from .scoring import Score, cup_as_junk, score
from .table import Table

__all__ = ["Due", "Factor", "HandFacts", "LoserProof", "Proof", "go_points", "settle"]


@dataclass(frozen=True, slots=True)
class Due:
    """One payment the rules make due."""

    payer: int
    payee: int
    points: int
    chips: int
    reason: str


@dataclass(frozen=True, slots=True)
class Factor:
    """A multiplier, whether it applies, the condition behind it, and the rule it comes from."""

    name: str
    factor: int
    applies: bool
    condition: str
    setting: str


@dataclass(frozen=True, slots=True)
class LoserProof:
    loser: int
    factors: tuple[Factor, ...]
    multiplier: int
    points: int  # Go points times every applying factor
    chips: int  # points times the stake: this loser's own share
    pays_points: int  # what this loser pays after dokbak moves shares
    pays_chips: int
    note: str = ""


@dataclass(frozen=True, slots=True)
class HandFacts:
    """The facts of a finished hand that settlement needs, independent of how it was played."""

    winner: int
    piles: tuple[int, ...]
    cup_role: str | None
    go_count: tuple[int, ...]
    go_order: tuple[int, ...]
    shakes: tuple[int, ...]
    bombs: tuple[int, ...]
    carry: int = 1


@dataclass(frozen=True, slots=True)
class Proof:
    """The payout proof of a hand won by a Stop."""

    winner: int
    score: Score
    go_count: int
    go_points: int
    go_formula: str
    go_setting: str
    stake: int
    carry: int
    losers: tuple[LoserProof, ...]
    dues: tuple[Due, ...] = field(default=())

    def chips_from(self, loser: int) -> int:
        for lp in self.losers:
            if lp.loser == loser:
                return lp.pays_chips
        raise KeyError(loser)


def go_points(t: Table, s: int, n: int) -> tuple[int, str]:
    """Points of a combination score ``s`` after ``n`` Gos, with the arithmetic as text."""
    rules = t.rules
    if n == 0:
        return s, f"{s}"
    mode = rules.go_payout
    if mode is GoPayout.STANDARD:
        if n >= 3:
            f = 2 ** (n - 2)
            return (s + n) * f, f"({s} + {n} Go) x {f}"
        return s + n, f"{s} + {n} Go"
    if mode is GoPayout.GENERAL_PAGE:
        if n >= rules.go_double_from:
            return (s + n) * 2, f"({s} + {n} Go) x 2 ({n} Go >= {rules.go_double_from})"
        return s + n, f"{s} + {n} Go"
    # DOUBLE_FROM_THIRD
    if n >= 3:
        f = 2 ** (n - 2)
        return s * f, f"{s} x {f} ({n} Go doubles from the third, no points added)"
    return s + n, f"{s} + {n} Go"


def _factors(t: Table, facts: HandFacts, win: Score, loser: int) -> list[Factor]:
    rules = t.rules
    w = facts.winner
    lpile = facts.piles[loser]
    # the loser's counts only (no score lines): this runs at every Stop of a replay
    lose_cup_junk = cup_as_junk(t, lpile, facts.cup_role)
    lose_brights = (lpile & C.BRIGHTS).bit_count()
    lose_animals = (lpile & C.ANIMALS & ~(C.CUP if lose_cup_junk else 0)).bit_count()
    out: list[Factor] = []

    # a ruleset without shaking or bombs (CARDAVIA C4.5) gives them no factor, even when the
    # facts (e.g. a hand re-settled under other rules in an audit) hold some
    k = facts.shakes[w]
    if k:
        f = rules.shake_multiplier**k
        cond = f"the winner shook {k} time(s)"
        played = rules.shaking is not Shaking.NONE
        if not played:
            cond += "; this ruleset has no shaking"
        out.append(Factor("shake", f, played and f > 1, cond, "shake_multiplier"))
    b = facts.bombs[w]
    if b:
        f = rules.bomb_multiplier**b
        cond = f"the winner bombed {b} time(s)"
        if not rules.bombs:
            cond += "; this ruleset has no bombs"
        out.append(Factor("bomb", f, rules.bombs and f > 1, cond, "bomb_multiplier"))

    if rules.gwang_bak:
        applies = win.bright_points > 0 and lose_brights == 0
        cond = f"winner scores brights ({win.bright_points}), loser holds {lose_brights} bright(s)"
        out.append(Factor("gwang-bak", 2, applies, cond, "gwang_bak"))

    if rules.pi_bak:
        units = t.units(lpile, lose_cup_junk or rules.loser_cup_protects)
        if win.junk_points <= 0:
            applies, cond = False, f"winner has no junk score ({win.junk_units} units)"
        elif rules.pi_bak_zero_exempt and units == 0:
            applies, cond = False, "loser holds no junk at all: exempt"
        else:
            applies = units <= rules.pi_bak_max_units
            rel = "<=" if applies else ">"
            cond = (
                f"winner scores junk ({win.junk_units} units), loser holds {units} unit(s) "
                f"{rel} {rules.pi_bak_max_units}"
            )
            if rules.loser_cup_protects and lpile & C.CUP:
                cond += " (the loser's cup counts 2)"
        out.append(Factor("pi-bak", 2, applies, cond, "pi_bak_max_units"))

    if rules.meong_tta:
        applies = win.animals >= rules.meong_tta_min_animals
        cond = f"winner holds {win.animals} animal(s), {rules.meong_tta_min_animals} needed"
        if rules.meong_tta_loser_zero:
            applies = applies and lose_animals == 0
            cond += f"; loser holds {lose_animals}"
        out.append(Factor("meong-tta", 2, applies, cond, "meong_tta_min_animals"))

    if rules.go_bak is GoBak.DOUBLE:
        went = facts.go_count[loser]
        cond = f"the loser called Go {went} time(s)" if went else "the loser did not call Go"
        out.append(Factor("go-bak", 2, went > 0, cond, "go_bak"))

    if facts.carry > 1:
        out.append(
            Factor(
                "nagari carry", facts.carry, True, "previous hand(s) had no winner", "nagari_carry"
            )
        )
    return out


def settle(t: Table, facts: HandFacts) -> Proof:
    """The payout proof of a hand won by ``facts.winner`` with a Stop."""
    rules = t.rules
    w = facts.winner
    win = score(t, facts.piles[w], facts.cup_role)
    n = facts.go_count[w]
    gp, formula = go_points(t, win.total, n)
    losers = [s for s in range(len(facts.piles)) if s != w]

    shares: list[tuple[int, list[Factor], int, int]] = []
    for lo in losers:
        fs = _factors(t, facts, win, lo)
        mult = 1
        for f in fs:
            if f.applies:
                mult *= f.factor
        shares.append((lo, fs, mult, gp * mult))

    pays = {lo: pts for lo, _, _, pts in shares}
    dokbak_note = ""
    if rules.go_bak is GoBak.PAYS_FOR_ALL and len(losers) > 1:
        goers = [lo for lo in losers if facts.go_count[lo] > 0]
        if goers:
            culprit = max(goers, key=lambda s: facts.go_order[s])
            total = sum(pays.values())
            pays = dict.fromkeys(losers, 0)
            pays[culprit] = total
            dokbak_note = f"seat {culprit} called Go and lost: pays for every loser (dokbak)"

    proofs = []
    dues = []
    for lo, fs, mult, pts in shares:
        note = dokbak_note if dokbak_note else ""
        proofs.append(
            LoserProof(
                loser=lo,
                factors=tuple(fs),
                multiplier=mult,
                points=pts,
                chips=pts * t.stake,
                pays_points=pays[lo],
                pays_chips=pays[lo] * t.stake,
                note=note,
            )
        )
        if pays[lo]:
            dues.append(Due(lo, w, pays[lo], pays[lo] * t.stake, "stop"))
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
