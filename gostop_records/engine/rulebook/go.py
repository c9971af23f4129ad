"""The Go bonus (A16): how Gos raise a score before the multipliers, one object per formula.

Each :class:`GoFormula` is one value of ``rules.go_payout`` with its arithmetic
(:meth:`~GoFormula.points`, which also writes the sum out for a proof), its short formula for
``gostop rules list`` and its words for an audit finding. :data:`GO_BONUS` is the rule that
reads ``go_payout`` and ``go_double_from`` and offers the other formulas to an audit.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, ClassVar

from ...rules import GoPayout, Ruleset
from .base import AuditContext, Candidate, Rule, near

__all__ = ["FORMULAS", "GO_BONUS", "GoBonus", "GoFormula", "formula_of"]


class GoFormula:
    """One Go payout formula: points of a score ``s`` after ``n`` Gos."""

    __slots__ = ()
    mode: ClassVar[GoPayout]

    def points(self, rules: Ruleset, s: int, n: int) -> tuple[int, str]:
        """The points and the arithmetic as text (``n`` >= 1)."""
        raise NotImplementedError

    def short(self, rules: Ruleset) -> str:
        raise NotImplementedError

    def words(self, rules: Ruleset) -> str:
        raise NotImplementedError


class Standard(GoFormula):
    """S + n, doubled per Go from the third Go: (S + n) x 2^(n-2)."""

    __slots__ = ()
    mode = GoPayout.STANDARD

    def points(self, rules: Ruleset, s: int, n: int) -> tuple[int, str]:
        if n >= 3:
            f = 2 ** (n - 2)
            return (s + n) * f, f"({s} + {n} Go) x {f}"
        return s + n, f"{s} + {n} Go"

    def short(self, rules: Ruleset) -> str:
        return "S+n, from 3 Gos (S+n)*2^(n-2)"

    def words(self, rules: Ruleset) -> str:
        return "the standard Go payout (S + n, doubled per Go from the third Go)"


class GeneralPage(GoFormula):
    """S + n, doubled once from ``go_double_from`` Gos."""

    __slots__ = ()
    mode = GoPayout.GENERAL_PAGE

    def points(self, rules: Ruleset, s: int, n: int) -> tuple[int, str]:
        if n >= rules.go_double_from:
            return (s + n) * 2, f"({s} + {n} Go) x 2 ({n} Go >= {rules.go_double_from})"
        return s + n, f"{s} + {n} Go"

    def short(self, rules: Ruleset) -> str:
        return f"S+n, x2 from {rules.go_double_from} Gos"

    def words(self, rules: Ruleset) -> str:
        return f"the general page's Go payout (S + n, doubled once from {rules.go_double_from} Go)"


class DoubleFromThird(GoFormula):
    """CARDAVIA: S + n up to two Gos, then S doubled per Go with no Go points added."""

    __slots__ = ()
    mode = GoPayout.DOUBLE_FROM_THIRD

    def points(self, rules: Ruleset, s: int, n: int) -> tuple[int, str]:
        if n >= 3:
            f = 2 ** (n - 2)
            return s * f, f"{s} x {f} ({n} Go doubles from the third, no points added)"
        return s + n, f"{s} + {n} Go"

    def short(self, rules: Ruleset) -> str:
        return "S, S+1, S+2, then S*2^(n-2)"

    def words(self, rules: Ruleset) -> str:
        return "the CARDAVIA Go payout (S + n up to 2 Go, then S doubled per Go, no Go points)"


FORMULAS: dict[GoPayout, GoFormula] = {
    f.mode: f for f in (Standard(), GeneralPage(), DoubleFromThird())
}


def formula_of(rules: Ruleset) -> GoFormula:
    return FORMULAS[rules.go_payout]


class GoBonus(Rule):
    """Gos add to the winner's score before every multiplier, by the ruleset's Go payout
    formula (A16, A17)."""

    __slots__ = ()
    kind = "factor"
    id = "go_bonus"
    name = "Go bonus"
    ref = "A16"
    group = "Go / Stop"
    settings = ("go_payout", "go_double_from")

    def points(self, rules: Ruleset, s: int, n: int) -> tuple[int, str]:
        """Points of a combination score ``s`` after ``n`` Gos, with the arithmetic as text."""
        if n == 0:
            return s, f"{s}"
        return formula_of(rules).points(rules, s, n)

    def words(self, setting: str, value: Any, rules: Ruleset, cup_holder: int | None) -> str | None:
        if setting == "go_payout":
            return FORMULAS[GoPayout(value)].words(rules)
        if setting == "go_double_from":
            return f"the Go payout doubled from {value} Go"
        return None

    def alternatives(self, ctx: AuditContext) -> Iterator[Candidate]:
        f, r = ctx.facts, ctx.rules
        if ctx.outcome != "stop" or f is None or not f.go_count[f.winner]:
            return
        top = max(f.go_count[f.winner] + 1, r.go_double_from)
        for mode in GoPayout:
            if mode is GoPayout.GENERAL_PAGE:
                for d in range(1, top + 1):
                    if mode is r.go_payout and d == r.go_double_from:
                        continue
                    key = "go_double_from" if r.go_payout is mode else "go_payout"
                    value: Any = d if key == "go_double_from" else mode.value
                    yield Candidate(
                        key,
                        value,
                        {"go_payout": mode, "go_double_from": d},
                        cost=near(d, r.go_double_from),
                        ranged=key == "go_double_from",
                        label="" if key == "go_double_from" else f"go_double_from={d}",
                    )
            elif mode is not r.go_payout:
                yield Candidate("go_payout", mode.value, {"go_payout": mode})


GO_BONUS = GoBonus()
