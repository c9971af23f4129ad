"""The records a scoring or a settlement produces: score lines, scores, factors, proofs.

They live apart from the rules that make them (``rulebook/``) and from the folds that run
the rules (``scoring``, ``settlement``), so that each rule can build its own line or factor
without an import cycle. Every line and factor carries the stable id of the rule behind it
(``ScoreLine.combo``, ``Factor.rule``): programs key on the id, people read the name.

They are frozen msgspec Structs (untracked by the garbage collector: they hold no cycles):
a settlement builds a dozen of them at every Stop of a replay, and a Struct is several times
cheaper to make than a frozen dataclass.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import msgspec

from ..plain import Record

__all__ = [
    "Due",
    "Factor",
    "HandFacts",
    "LoserProof",
    "Proof",
    "ProofLine",
    "Score",
    "ScoreLine",
]


class ScoreLine(msgspec.Struct, Record, frozen=True, gc=False):
    """One scoring combination: which one (its id), what it is called here, which cards make
    it, what it is worth."""

    combo: str
    name: str
    cards: tuple[str, ...]
    points: int
    detail: str = ""


class Score(msgspec.Struct, frozen=True, gc=False):
    """An itemised combination score and the counts the settlement rules look at."""

    total: int
    lines: tuple[ScoreLine, ...]
    brights: int
    animals: int
    ribbons: int
    junk_units: int
    bright_points: int
    junk_points: int
    cup_role: str | None  # "animal" or "junk" when the pile holds the cup
    cup_reason: str | None

    def __str__(self) -> str:
        if not self.lines:
            return "0 points"
        parts = [f"{ln.name} {ln.points}" for ln in self.lines]
        return f"{self.total} points: " + ", ".join(parts)

    def points_of(self, combo: str) -> int:
        """Points of the lines made by one combination (0 when it does not score)."""
        return sum(ln.points for ln in self.lines if ln.combo == combo)


class Due(msgspec.Struct, frozen=True, gc=False):
    """One payment the rules make due."""

    payer: int
    payee: int
    points: int
    chips: int
    reason: str


class Factor(msgspec.Struct, Record, frozen=True, gc=False):
    """A multiplier: the rule it comes from (its id), its name, whether it applies, the
    condition behind it, and the setting that decides it."""

    rule: str
    name: str
    factor: int
    applies: bool
    condition: str
    setting: str


class LoserProof(msgspec.Struct, frozen=True, gc=False):
    loser: int
    factors: tuple[Factor, ...]
    multiplier: int
    points: int  # Go points times every applying factor
    chips: int  # points times the stake: this loser's own share
    pays_points: int  # what this loser pays after dokbak moves shares
    pays_chips: int
    note: str = ""
    applied: tuple[str, ...] = ()  # ids of the rules that changed this loser's payment

    def applies(self, rule: str) -> bool:
        """Whether the rule with this id changed this loser's payment."""
        return rule in self.applied


class HandFacts(msgspec.Struct, frozen=True, gc=False):
    """The facts of a finished hand that settlement needs, independent of how it was played.

    A Struct like the records above: made at every Stop of a replay, where a frozen
    dataclass's ``__init__`` (interpreted, one ``object.__setattr__`` per field) cost several
    times the Struct's."""

    winner: int
    piles: tuple[int, ...]
    cup_role: str | None
    go_count: tuple[int, ...]
    go_order: tuple[int, ...]
    shakes: tuple[int, ...]
    bombs: tuple[int, ...]
    carry: int = 1
    two_bombs: tuple[int, ...] = ()  # of ``bombs``, the two-card ones (empty: none)
    kept_fours: tuple[int, ...] = ()  # fours in hand each seat kept playing with (empty: none)
    seats: tuple[int, ...] = ()  # the seats that played the hand; empty = every seat
    hand_no: int = 0  # the hand's number in the game (jackpot hands); 0 = unknown

    def losers(self) -> list[int]:
        """The seats that played the hand and did not win it, in seat order."""
        seats = self.seats or range(len(self.piles))
        return [s for s in seats if s != self.winner]


class ProofLine(msgspec.Struct, frozen=True, gc=False):
    """One item of a payout proof in words: what the terminal prints on one line (``text``,
    indented by ``depth``) and what a page draws, with the parts programs key on.

    ``kind`` is ``heading``, ``score`` (a combination: ``amount`` points, ``cards``),
    ``cup``, ``go`` (``amount``: the Go points), ``loser`` (``seat`` pays
    ``amount`` chips), ``factor`` (``amount``: the factor, ``applies``, ``name``), ``sum``
    (``amount``: the chips before any cap or dokbak) or ``pays`` (a loser pays otherwise).
    ``reason`` is why: a combination's detail, a factor's condition and setting, a note."""

    kind: str
    depth: int
    text: str
    amount: int | None = None
    reason: str = ""
    cards: tuple[str, ...] = ()
    applies: bool = True
    name: str = ""
    seat: int | None = None

    def __str__(self) -> str:
        return "  " * self.depth + self.text


def _subject(name: str, verb: str) -> str:
    """``Ann wins``, ``you win``: the verb agrees with a player shown as "you"."""
    return f"{name} {verb[:-1] if name == 'you' else verb}"


class Proof(msgspec.Struct, frozen=True, gc=False):
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
    dues: tuple[Due, ...] = ()

    def __str__(self) -> str:
        return "\n".join(str(line) for line in self.lines())

    def lines(self, names: Sequence[str] | None = None) -> list[ProofLine]:
        """The proof item by item, in words: the one wording of the terminal, the pages and the
        audit. ``names`` are the seats' names (``seat N`` without them)."""

        def who(seat: int) -> str:
            return names[seat] if names is not None and 0 <= seat < len(names) else f"seat {seat}"

        sc, winner = self.score, who(self.winner)
        head = f"payout proof: {_subject(winner, 'wins')} with {sc.total} points"
        out = [ProofLine("heading", 0, head, sc.total, seat=self.winner)]
        for ln in sc.lines:
            text = f"{ln.name}: {ln.points}  ({' '.join(ln.cards)})"
            out.append(ProofLine("score", 1, text, ln.points, ln.detail, ln.cards, name=ln.name))
        if sc.cup_role:
            text = f"September cup as {sc.cup_role}: {sc.cup_reason}"
            out.append(ProofLine("cup", 1, text, reason=sc.cup_reason or "", name=sc.cup_role))
        if self.go_count:
            text = f"Go bonus: {self.go_count} Go, {self.go_formula} = {self.go_points} points"
            out.append(ProofLine("go", 1, f"{text} [{self.go_setting}]", self.go_points))
        else:
            text = f"Go bonus: none (no Go called): {self.go_points} points"
            out.append(ProofLine("go", 1, text, self.go_points))
        for lp in self.losers:
            loser = who(lp.loser)
            text = f"{_subject(loser, 'pays')} {winner} {lp.pays_chips} chips:"
            out.append(ProofLine("loser", 1, text, lp.pays_chips, seat=lp.loser))
            for f in lp.factors:
                mark = f"x{f.factor}" if f.applies else "--"
                why = f"{f.condition} [{f.setting}]"
                out.append(
                    ProofLine(
                        "factor",
                        2,
                        f"{mark} {f.name}: {why}",
                        f.factor,
                        why,
                        applies=f.applies,
                        name=f.name,
                        seat=lp.loser,
                    )
                )
            text = (
                f"{self.go_points} points x {lp.multiplier} = {lp.points} points "
                f"x stake {self.stake} = {lp.chips} chips"
            )
            out.append(ProofLine("sum", 2, text, lp.chips, seat=lp.loser))
            if lp.pays_chips != lp.chips or lp.note:
                text = f"pays {lp.pays_points} points = {lp.pays_chips} chips"
                if lp.note:
                    text += f": {lp.note}"
                out.append(ProofLine("pays", 2, text, lp.pays_chips, lp.note, seat=lp.loser))
        return out

    def to_dict(self) -> dict[str, Any]:
        """The proof as plain JSON values, every line and factor with its rule's id."""
        return {
            "winner": self.winner,
            "score": {
                "total": self.score.total,
                "lines": [ln.to_dict() for ln in self.score.lines],
                "cup_role": self.score.cup_role,
                "cup_reason": self.score.cup_reason,
            },
            "go_count": self.go_count,
            "go_points": self.go_points,
            "go_formula": self.go_formula,
            "go_setting": self.go_setting,
            "stake": self.stake,
            "carry": self.carry,
            "losers": [
                {
                    "loser": lp.loser,
                    "factors": [f.to_dict() for f in lp.factors],
                    "applied": list(lp.applied),
                    "multiplier": lp.multiplier,
                    "points": lp.points,
                    "chips": lp.chips,
                    "pays_points": lp.pays_points,
                    "pays_chips": lp.pays_chips,
                    "note": lp.note or None,
                }
                for lp in self.losers
            ],
            "dues": [
                {
                    "payer": d.payer,
                    "payee": d.payee,
                    "points": d.points,
                    "chips": d.chips,
                    "reason": d.reason,
                }
                for d in self.dues
            ],
        }

    def chips_from(self, loser: int) -> int:
        for lp in self.losers:
            if lp.loser == loser:
                return lp.pays_chips
        raise KeyError(loser)
