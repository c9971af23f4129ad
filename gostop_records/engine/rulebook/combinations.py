"""The scoring combinations of a capture pile (C5), G26-G31, one object each, and the cup.

Each combination makes at most one :class:`ScoreLine` of a pile, named for the table ("three
brights with rain") and carrying the combination's id (``bright``), which is also the stem
of its ``scores`` column (``bright_points``). ``scoring.score`` folds over
:data:`COMBINATIONS`; ``scoring._total`` is the flat fast path of the same rules, read from
the same constants and pinned to this fold by tests.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, ClassVar

from ... import cards as C
from ...rules import CupMode, Ruleset
from ..proof import ScoreLine
from ..table import Table
from .base import AuditContext, Candidate, Rule

__all__ = [
    "ANIMALS",
    "BRIGHTS",
    "CHEONGDAN",
    "CHODAN",
    "COMBINATIONS",
    "CUP",
    "GODORI",
    "HONGDAN",
    "JUNK",
    "RIBBONS",
    "Combination",
    "Cup",
    "Dan",
]


class Combination(Rule):
    """A scoring combination: its line of a pile, and the meaning of its ``scores`` column."""

    __slots__ = ()
    kind = "combination"
    group = "Players and deck"
    #: The meaning of the ``scores.<id>_points`` column.
    column_text: ClassVar[str] = ""

    @property
    def column(self) -> str:
        return f"{self.id}_points"

    def line(self, t: Table, pile: int, junk_cup: bool) -> ScoreLine | None:
        """The line this combination makes of ``pile`` (``junk_cup``: the cup counts as
        junk), or None when it does not score."""
        raise NotImplementedError


class Brights(Combination):
    """Three brights 3 (2 when one is the rain bright), four 4, five 15 (C5.1, G27)."""

    __slots__ = ()
    id = "bright"
    name = "brights"
    ref = "C5.1"
    #: Points by the number of brights; three with the rain bright make RAIN_THREE.
    POINTS: ClassVar[tuple[int, ...]] = (0, 0, 0, 3, 4, 15)
    RAIN_THREE: ClassVar[int] = 2
    column_text = "points for brights: three 3 (2 with the rain bright), four 4, five 15"

    def line(self, t: Table, pile: int, junk_cup: bool) -> ScoreLine | None:
        brights = pile & C.BRIGHTS
        n = brights.bit_count()
        rain = n == 3 and bool(pile & C.RAIN_BRIGHT)
        pts = self.RAIN_THREE if rain else self.POINTS[n]
        if not pts:
            return None
        if n >= 5:
            name = "five brights"
        elif n == 4:
            name = "four brights"
        else:
            name = "three brights with rain" if rain else "three brights"
        detail = "the rain bright makes three brights worth 2" if rain else ""
        return ScoreLine(self.id, name, tuple(C.codes(brights)), pts, detail)


class Animals(Combination):
    """Five animals 1, and 1 per animal over five; the cup counts unless it counts as junk."""

    __slots__ = ()
    id = "animal"
    name = "animals"
    ref = "C5.3"
    FROM: ClassVar[int] = 5
    column_text = "points for five or more animals: 1, and 1 per animal over five"

    def line(self, t: Table, pile: int, junk_cup: bool) -> ScoreLine | None:
        animals = pile & C.ANIMALS
        if junk_cup:
            animals &= ~C.CUP
        n = animals.bit_count()
        if n < self.FROM:
            return None
        return ScoreLine(
            self.id,
            f"{n} animals",
            tuple(C.codes(animals)),
            n - self.FROM + 1,
            "5 animals 1, +1 each",
        )


class Godori(Combination):
    """Godori: the three birds (February, April, August animals) score 5."""

    __slots__ = ()
    id = "godori"
    name = "godori"
    ref = "C5.3"
    POINTS: ClassVar[int] = 5
    column_text = "5 for godori (the three birds), else 0"

    def line(self, t: Table, pile: int, junk_cup: bool) -> ScoreLine | None:
        if pile & C.GODORI != C.GODORI:
            return None
        return ScoreLine(
            self.id, self.name, tuple(C.codes(C.GODORI)), self.POINTS, "the three birds"
        )


class Ribbons(Combination):
    """Five ribbons 1, and 1 per ribbon over five; the December ribbon as the ruleset says."""

    __slots__ = ()
    id = "ribbon"
    name = "ribbons"
    ref = "C5.4"
    settings = ("december_ribbon_counts",)
    FROM: ClassVar[int] = 5
    column_text = "points for five or more ribbons: 1, and 1 per ribbon over five"

    def line(self, t: Table, pile: int, junk_cup: bool) -> ScoreLine | None:
        ribbons = pile & t.ribbons
        n = ribbons.bit_count()
        if n < self.FROM:
            return None
        return ScoreLine(
            self.id,
            f"{n} ribbons",
            tuple(C.codes(ribbons)),
            n - self.FROM + 1,
            "5 ribbons 1, +1 each",
        )


class Dan(Combination):
    """Three ribbons of one set score 3."""

    __slots__ = ()
    ref = "C5.5"
    POINTS: ClassVar[int] = 3
    cards: ClassVar[int] = 0
    what: ClassVar[str] = ""

    @property
    def column_text(self) -> str:  # type: ignore[override]
        return f"3 for {self.name} ({self.what}), else 0"

    def line(self, t: Table, pile: int, junk_cup: bool) -> ScoreLine | None:
        if pile & self.cards != self.cards:
            return None
        return ScoreLine(self.id, self.name, tuple(C.codes(self.cards)), self.POINTS, self.what)


class Hongdan(Dan):
    """Hongdan: the red poem ribbons of January, February and March score 3."""

    __slots__ = ()
    id = "hongdan"
    name = "hongdan"
    cards = C.HONGDAN
    what = "red poem ribbons of January, February, March"


class Cheongdan(Dan):
    """Cheongdan: the blue ribbons of June, September and October score 3."""

    __slots__ = ()
    id = "cheongdan"
    name = "cheongdan"
    cards = C.CHEONGDAN
    what = "blue ribbons of June, September, October"


class Chodan(Dan):
    """Chodan: the plain red ribbons of April, May and July score 3."""

    __slots__ = ()
    id = "chodan"
    name = "chodan"
    cards = C.CHODAN
    what = "plain red ribbons of April, May, July"


class Junk(Combination):
    """Ten junk units 1, and 1 per unit over ten: double junk and bonus cards count 2 or 3,
    the cup 2 when it counts as junk."""

    __slots__ = ()
    id = "junk"
    name = "junk"
    ref = "C5.7"
    settings = ("double_junk", "bonus_cards")
    FROM: ClassVar[int] = 10
    column_text = "points for 10 or more junk units: 1, and 1 per unit over ten"

    def line(self, t: Table, pile: int, junk_cup: bool) -> ScoreLine | None:
        units = t.units(pile, junk_cup)
        if units < self.FROM:
            return None
        cards = pile & (t.unit1 | t.unit2 | t.unit3)
        if junk_cup:
            cards |= C.CUP
        return ScoreLine(
            self.id,
            f"junk, {units} units",
            tuple(C.codes(cards)),
            units - self.FROM + 1,
            "10 units 1, +1 each",
        )


class Cup(Rule):
    """The September cup scores as an animal or as double junk, as the ruleset's cup mode
    says: always an animal, whichever scores more, or as its holder chooses (A9)."""

    __slots__ = ()
    kind = "scoring"
    id = "cup"
    name = "September cup"
    ref = "A9"
    group = "September cup"
    settings = ("cup_mode", "cup_fixed_when_alone")

    def words(self, setting: str, value: Any, rules: Ruleset, cup_holder: int | None) -> str | None:
        if setting == "cup_mode":
            mode = CupMode(value)
            if mode is CupMode.ANIMAL_ONLY:
                return "the September cup always counted as an animal"
            if mode is CupMode.AUTO_BEST:
                return "the September cup counted as whichever scores more"
            return "the September cup counted as its holder chose"
        if setting == "cup_fixed_when_alone":
            return (
                "a cup counted as junk kept as an animal when it is the only junk to steal"
                if value
                else "a cup counted as junk stolen like any junk"
            )
        if setting == "cup_role":
            where = f" in seat {cup_holder}'s pile" if cup_holder is not None else ""
            what = "double junk (2 units)" if value == "junk" else "an animal"
            return f"the September cup{where} counted as {what}"
        return None

    def alternatives(self, ctx: AuditContext) -> Iterator[Candidate]:
        if ctx.outcome != "stop" or ctx.facts is None or ctx.cup_holder is None:
            return
        # the cup's role first: it names what the table did with the card
        for role in ("animal", "junk"):
            yield Candidate("cup_role", role, {"cup_mode": CupMode.PLAYER_CHOICE}, cup_role=role)
        for mode in CupMode:
            if mode is not ctx.rules.cup_mode:
                yield Candidate("cup_mode", mode.value, {"cup_mode": mode})


BRIGHTS = Brights()
ANIMALS = Animals()
GODORI = Godori()
RIBBONS = Ribbons()
HONGDAN = Hongdan()
CHEONGDAN = Cheongdan()
CHODAN = Chodan()
JUNK = Junk()
CUP = Cup()

#: In the order a score lists its lines.
COMBINATIONS: tuple[Combination, ...] = (
    BRIGHTS,
    ANIMALS,
    GODORI,
    RIBBONS,
    HONGDAN,
    CHEONGDAN,
    CHODAN,
    JUNK,
)
