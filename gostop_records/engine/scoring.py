"""Combination scores: pure functions of a capture pile and a ruleset, itemised.

Every point is a :class:`ScoreLine` naming the combination (by its id and as a scorer at the
table would say it: ``bright``, "three brights with rain: 2"), the cards that make it and its
points. The combinations themselves are the rulebook's (``rulebook/combinations.py``);
:func:`score` folds over them. The September cup's classification is part of the result with
its reason, because under CARDAVIA it is decided by the score itself and under matgo by the
player.

``points`` is the fast path (no lines) used on every turn: the same rules written flat,
with the rulebook's numbers; tests keep it equal to ``score(...).total``.
"""

from __future__ import annotations

from ..cards import ANIMALS, BRIGHTS, CHEONGDAN, CHODAN, CUP, GODORI, HONGDAN, RAIN_BRIGHT, popcount
from ..rules import CupMode
from .proof import Score, ScoreLine
from .rulebook import combinations as RB
from .table import Table

__all__ = ["Score", "ScoreLine", "cup_as_junk", "points", "score"]


def _total(t: Table, pile: int, cup_junk: bool) -> int:
    """The combination score; written flat because it runs after every turn.

    The numbers are the rulebook's, written as literals (a constant is faster to load than
    a name): three brights with rain 2 (``BRIGHTS.RAIN_THREE``), animals and ribbons from 5
    (``ANIMALS.FROM``, ``RIBBONS.FROM``), godori 5, each dan 3, junk from 10 units
    (``JUNK.FROM``). ``tests/test_rulebook.py`` pins each to its rule, and a property test
    keeps this sum equal to ``score(...).total``.
    """
    nb = popcount(pile & BRIGHTS)
    total = 2 if nb == 3 and pile & RAIN_BRIGHT else RB.BRIGHTS.POINTS[nb]
    animals = pile & ANIMALS
    if cup_junk:
        animals &= ~CUP
    a = popcount(animals)
    if a >= 5:
        total += a - 4
    if pile & GODORI == GODORI:
        total += 5
    r = popcount(pile & t.ribbons)
    if r >= 5:
        total += r - 4
    if r >= 3:
        if pile & HONGDAN == HONGDAN:
            total += 3
        if pile & CHEONGDAN == CHEONGDAN:
            total += 3
        if pile & CHODAN == CHODAN:
            total += 3
    u = popcount(pile & t.unit1) + 2 * popcount(pile & t.unit2) + 3 * popcount(pile & t.unit3)
    if cup_junk and pile & CUP:
        u += 2
    if u >= 10:
        total += u - 9
    return total


def cup_as_junk(t: Table, pile: int, decided: str | None = None) -> bool:
    """Whether the cup in this pile counts as junk, per the ruleset's cup mode.

    ``decided`` is the holder's recorded decision under ``player_choice`` (None = animal).
    """
    if not pile & CUP:
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
    """Itemised combination score of a pile: one line per combination that scores."""
    junk_cup = cup_as_junk(t, pile, decided)
    found = []
    for c in RB.COMBINATIONS:
        ln = c.line(t, pile, junk_cup)
        if ln is not None:
            found.append(ln)
    lines = tuple(found)
    animals = pile & ANIMALS
    if junk_cup:
        animals &= ~CUP

    cup_role: str | None = None
    cup_reason: str | None = None
    if pile & CUP:
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

    bright_points = junk_points = 0
    for ln in lines:
        if ln.combo == RB.BRIGHTS.id:
            bright_points = ln.points
        elif ln.combo == RB.JUNK.id:
            junk_points = ln.points
    return Score(
        total=sum(ln.points for ln in lines),
        lines=lines,
        brights=popcount(pile & BRIGHTS),
        animals=popcount(animals),
        ribbons=popcount(pile & t.ribbons),
        junk_units=t.units(pile, junk_cup),
        bright_points=bright_points,
        junk_points=junk_points,
        cup_role=cup_role,
        cup_reason=cup_reason,
    )
