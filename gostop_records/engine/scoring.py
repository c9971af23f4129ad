"""Combination scores: pure functions of a capture pile and a ruleset, itemised.

Every point is a :class:`ScoreLine` naming the combination, the cards that make it and its
points, the way a scorer at the table would say it ("three brights with rain: 2"). The
September cup's classification is part of the result with its reason, because under
CARDAVIA it is decided by the score itself and under matgo by the player.

``points`` is the fast path (no lines) used on every turn; ``score`` the itemised one used
by proofs and displays. Both apply the same rules and a test keeps them equal.
"""

from __future__ import annotations

from dataclasses import dataclass

from .. import cards as C
from ..rules import CupMode
from .table import Table

__all__ = ["Score", "ScoreLine", "cup_as_junk", "points", "score"]

_RAIN = C.RAIN_BRIGHT
_CUP = C.CUP


@dataclass(frozen=True, slots=True)
class ScoreLine:
    """One scoring combination: what it is, which cards make it, what it is worth."""

    name: str
    cards: tuple[str, ...]
    points: int
    detail: str = ""


@dataclass(frozen=True, slots=True)
class Score:
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


def _bright_points(pile: int) -> int:
    n = (pile & C.BRIGHTS).bit_count()
    if n >= 5:
        return 15
    if n == 4:
        return 4
    if n == 3:
        return 2 if pile & _RAIN else 3
    return 0


_BRIGHTS, _ANIMALS, _GODORI = C.BRIGHTS, C.ANIMALS, C.GODORI
_HONG, _CHEONG, _CHO = C.HONGDAN, C.CHEONGDAN, C.CHODAN
_BRIGHT_POINTS = (0, 0, 0, 3, 4, 15)


def _total(t: Table, pile: int, cup_junk: bool) -> int:
    """The combination score; written flat because it runs after every turn."""
    nb = (pile & _BRIGHTS).bit_count()
    total = 2 if nb == 3 and pile & _RAIN else _BRIGHT_POINTS[nb]
    animals = pile & _ANIMALS
    if cup_junk:
        animals &= ~_CUP
    a = animals.bit_count()
    if a >= 5:
        total += a - 4
    if pile & _GODORI == _GODORI:
        total += 5
    r = (pile & t.ribbons).bit_count()
    if r >= 5:
        total += r - 4
    if r >= 3:
        if pile & _HONG == _HONG:
            total += 3
        if pile & _CHEONG == _CHEONG:
            total += 3
        if pile & _CHO == _CHO:
            total += 3
    u = (
        (pile & t.unit1).bit_count()
        + 2 * (pile & t.unit2).bit_count()
        + 3 * (pile & t.unit3).bit_count()
    )
    if cup_junk and pile & _CUP:
        u += 2
    if u >= 10:
        total += u - 9
    return total


def cup_as_junk(t: Table, pile: int, decided: str | None = None) -> bool:
    """Whether the cup in this pile counts as junk, per the ruleset's cup mode.

    ``decided`` is the holder's recorded decision under ``player_choice`` (None = animal).
    """
    if not pile & _CUP:
        return False
    mode = t.cup_mode
    if mode is CupMode.ANIMAL_ONLY:
        return False
    if mode is CupMode.PLAYER_CHOICE:
        return decided == "junk"
    return _total(t, pile, True) > _total(t, pile, False)


def points(t: Table, pile: int, decided: str | None = None) -> int:
    """Combination score of a pile (the fast path)."""
    return _total(t, pile, cup_as_junk(t, pile, decided))


def score(t: Table, pile: int, decided: str | None = None) -> Score:
    """Itemised combination score of a pile."""
    junk_cup = cup_as_junk(t, pile, decided)
    lines: list[ScoreLine] = []

    brights = pile & C.BRIGHTS
    nb = brights.bit_count()
    bp = _bright_points(pile)
    if bp:
        if nb >= 5:
            name = "five brights"
        elif nb == 4:
            name = "four brights"
        elif pile & _RAIN:
            name = "three brights with rain"
        else:
            name = "three brights"
        detail = "the rain bright makes three brights worth 2" if nb == 3 and pile & _RAIN else ""
        lines.append(ScoreLine(name, tuple(C.codes(brights)), bp, detail))

    animals = pile & C.ANIMALS
    if junk_cup:
        animals &= ~_CUP
    na = animals.bit_count()
    if na >= 5:
        lines.append(
            ScoreLine(f"{na} animals", tuple(C.codes(animals)), na - 4, "5 animals 1, +1 each")
        )
    if pile & C.GODORI == C.GODORI:
        lines.append(ScoreLine("godori", tuple(C.codes(C.GODORI)), 5, "the three birds"))

    ribbons = pile & t.ribbons
    nr = ribbons.bit_count()
    if nr >= 5:
        lines.append(
            ScoreLine(f"{nr} ribbons", tuple(C.codes(ribbons)), nr - 4, "5 ribbons 1, +1 each")
        )
    for dan, name, what in (
        (C.HONGDAN, "hongdan", "red poem ribbons of January, February, March"),
        (C.CHEONGDAN, "cheongdan", "blue ribbons of June, September, October"),
        (C.CHODAN, "chodan", "plain red ribbons of April, May, July"),
    ):
        if pile & dan == dan:
            lines.append(ScoreLine(name, tuple(C.codes(dan)), 3, what))

    units = t.units(pile, junk_cup)
    junk_cards = pile & (t.unit1 | t.unit2 | t.unit3)
    if junk_cup:
        junk_cards |= _CUP
    jp = units - 9 if units >= 10 else 0
    if jp:
        lines.append(
            ScoreLine(f"junk, {units} units", tuple(C.codes(junk_cards)), jp, "10 units 1, +1 each")
        )

    cup_role: str | None = None
    cup_reason: str | None = None
    if pile & _CUP:
        cup_role = "junk" if junk_cup else "animal"
        mode = t.cup_mode
        if mode is CupMode.ANIMAL_ONLY:
            cup_reason = "this ruleset counts the cup as an animal only"
        elif mode is CupMode.PLAYER_CHOICE:
            cup_reason = (
                "the holder chose junk"
                if decided == "junk"
                else "the holder chose animal"
                if decided == "animal"
                else "animal until decided"
            )
        else:
            a, j = _total(t, pile, False), _total(t, pile, True)
            cup_reason = f"as junk the pile scores {j}, as an animal {a}" + (
                "; animal wins ties" if a == j else ""
            )

    return Score(
        total=sum(ln.points for ln in lines),
        lines=tuple(lines),
        brights=nb,
        animals=na,
        ribbons=nr,
        junk_units=units,
        bright_points=bp,
        junk_points=jp,
        cup_role=cup_role,
        cup_reason=cup_reason,
    )
