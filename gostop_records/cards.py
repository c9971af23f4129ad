"""The hwatu deck: 48 month cards plus bonus (joker) cards.

Every card has a stable, human-typable code (``01G``, ``11D``, ``B2``) used in logs, on the
command line and in SQL, and a small int index used in memory. A set of cards is one Python
int with a bit per card, so that "which ribbons does this pile hold" is one ``&`` and one
``int.bit_count()``: the fast path for replaying millions of hands.

Index layout: month ``m`` (1..12) owns indices ``4*(m-1) .. 4*(m-1)+3``, in the order the
codes list them below; bonus cards follow from 48. ``MONTH_MASKS[m]`` is the four bits of a
month. The September cup (09A) is listed as an animal; whether it scores as an animal or as
double junk is a ruleset matter (see ``rules.CupMode``), not a card fact.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import lru_cache
from typing import Final

from .errors import CardCodeError

__all__ = [
    "ALL_CARDS",
    "ANIMALS",
    "BONUS",
    "BONUS_CODES",
    "BRIGHTS",
    "CARDS",
    "CHEONGDAN",
    "CHODAN",
    "CODES",
    "CODE_FORMS",
    "CODE_TO_INDEX",
    "CUP",
    "DOUBLE_JUNK",
    "GODORI",
    "HONGDAN",
    "JUNK",
    "MONTH_CARDS",
    "MONTH_MASKS",
    "MONTH_OF",
    "RAIN_BRIGHT",
    "RIBBONS",
    "SINGLE_JUNK",
    "STANDARD_DECK",
    "Card",
    "CardCodeError",
    "Kind",
    "RibbonSet",
    "bit",
    "card",
    "codes",
    "index",
    "indices",
    "mask_of",
    "month_of",
    "parse",
    "popcount",
]


class Kind(enum.StrEnum):
    """What a card is worth in scoring."""

    BRIGHT = "bright"
    ANIMAL = "animal"
    RIBBON = "ribbon"
    JUNK = "junk"
    DOUBLE_JUNK = "double_junk"
    BONUS = "bonus"


class RibbonSet(enum.StrEnum):
    """The three ribbon sets worth 3 points each (the December ribbon belongs to none)."""

    HONGDAN = "hongdan"  # red poem ribbons: January, February, March
    CHEONGDAN = "cheongdan"  # blue ribbons: June, September, October
    CHODAN = "chodan"  # plain red ribbons: April, May, July


@dataclass(frozen=True, slots=True)
class Card:
    """One physical card and every fact the rules ask of it."""

    index: int
    code: str
    month: int  # 1..12; 0 for bonus cards
    kind: Kind
    name: str
    ribbon_set: RibbonSet | None = None
    godori_bird: bool = False
    rain_bright: bool = False
    cup: bool = False
    junk_units: int = 0  # as junk; the cup's 2 units apply only when it is used as junk

    @property
    def bit(self) -> int:
        return 1 << self.index

    def __str__(self) -> str:
        return self.code


def _month_cards() -> list[Card]:
    b, a, r, j, d = Kind.BRIGHT, Kind.ANIMAL, Kind.RIBBON, Kind.JUNK, Kind.DOUBLE_JUNK
    hong, cheong, cho = RibbonSet.HONGDAN, RibbonSet.CHEONGDAN, RibbonSet.CHODAN
    rows: list[tuple[str, Kind, str, dict[str, object]]] = [
        ("01G", b, "pine, crane and sun", {}),
        ("01R", r, "pine, red poem ribbon", {"ribbon_set": hong}),
        ("01J1", j, "pine junk", {"junk_units": 1}),
        ("01J2", j, "pine junk", {"junk_units": 1}),
        ("02A", a, "plum, bush warbler", {"godori_bird": True}),
        ("02R", r, "plum, red poem ribbon", {"ribbon_set": hong}),
        ("02J1", j, "plum junk", {"junk_units": 1}),
        ("02J2", j, "plum junk", {"junk_units": 1}),
        ("03G", b, "cherry blossom, curtain", {}),
        ("03R", r, "cherry, red poem ribbon", {"ribbon_set": hong}),
        ("03J1", j, "cherry junk", {"junk_units": 1}),
        ("03J2", j, "cherry junk", {"junk_units": 1}),
        ("04A", a, "black bush clover, cuckoo", {"godori_bird": True}),
        ("04R", r, "black bush clover, plain red ribbon", {"ribbon_set": cho}),
        ("04J1", j, "black bush clover junk", {"junk_units": 1}),
        ("04J2", j, "black bush clover junk", {"junk_units": 1}),
        ("05A", a, "orchid, bridge", {}),
        ("05R", r, "orchid, plain red ribbon", {"ribbon_set": cho}),
        ("05J1", j, "orchid junk", {"junk_units": 1}),
        ("05J2", j, "orchid junk", {"junk_units": 1}),
        ("06A", a, "peony, butterflies", {}),
        ("06R", r, "peony, blue ribbon", {"ribbon_set": cheong}),
        ("06J1", j, "peony junk", {"junk_units": 1}),
        ("06J2", j, "peony junk", {"junk_units": 1}),
        ("07A", a, "red bush clover, boar", {}),
        ("07R", r, "red bush clover, plain red ribbon", {"ribbon_set": cho}),
        ("07J1", j, "red bush clover junk", {"junk_units": 1}),
        ("07J2", j, "red bush clover junk", {"junk_units": 1}),
        ("08G", b, "pampas grass, full moon", {}),
        ("08A", a, "pampas grass, geese", {"godori_bird": True}),
        ("08J1", j, "pampas grass junk", {"junk_units": 1}),
        ("08J2", j, "pampas grass junk", {"junk_units": 1}),
        ("09A", a, "chrysanthemum, sake cup", {"cup": True, "junk_units": 2}),
        ("09R", r, "chrysanthemum, blue ribbon", {"ribbon_set": cheong}),
        ("09J1", j, "chrysanthemum junk", {"junk_units": 1}),
        ("09J2", j, "chrysanthemum junk", {"junk_units": 1}),
        ("10A", a, "maple, deer", {}),
        ("10R", r, "maple, blue ribbon", {"ribbon_set": cheong}),
        ("10J1", j, "maple junk", {"junk_units": 1}),
        ("10J2", j, "maple junk", {"junk_units": 1}),
        ("11G", b, "paulownia, phoenix", {}),
        ("11D", d, "paulownia double junk", {"junk_units": 2}),
        ("11J1", j, "paulownia junk", {"junk_units": 1}),
        ("11J2", j, "paulownia junk", {"junk_units": 1}),
        ("12G", b, "rain, man with umbrella", {"rain_bright": True}),
        ("12A", a, "rain, swallow", {}),
        ("12R", r, "rain ribbon", {}),
        ("12D", d, "rain double junk", {"junk_units": 2}),
    ]
    out = []
    for i, (code, kind, name, extra) in enumerate(rows):
        out.append(Card(i, code, int(code[:2]), kind, name, **extra))  # type: ignore[arg-type]
    return out


#: The bonus (joker) cards, in the order a ruleset takes them: the digit is the junk units.
BONUS_CODES: Final[tuple[str, ...]] = ("B2", "B3", "B2B", "B3B", "B2C")
#: How a card is written, in the words every message, help and schema uses.
CODE_FORMS: Final = (
    "a month 01..12 then G (bright), A (animal), R (ribbon), J1/J2 (junk) or D (double junk), "
    f"as in 01G, 09A, 11D, 12R; bonus cards {', '.join(BONUS_CODES)}"
)
#: What an error about a bad code says of the good ones.
_GOOD_CODES: Final = f"a card is {CODE_FORMS}"

MONTH_CARDS: Final[tuple[Card, ...]] = tuple(_month_cards())
ALL_CARDS: Final[tuple[Card, ...]] = (
    *MONTH_CARDS,
    *(
        Card(48 + i, code, 0, Kind.BONUS, f"bonus card worth {code[1]} junk", junk_units=int(u))
        for i, code in enumerate(BONUS_CODES)
        for u in code[1]
    ),
)
#: The code of each card index (``CODES[i] == ALL_CARDS[i].code``).
CODES: Final[tuple[str, ...]] = tuple(c.code for c in ALL_CARDS)
#: The month of each card index, 0 for bonus cards: a lookup, as fast as the arithmetic in
#: the engine's hot paths.
MONTH_OF: Final[tuple[int, ...]] = tuple(c.month for c in ALL_CARDS)
#: Index -> card, for every card including bonus cards.
CARDS: Final = ALL_CARDS
CODE_TO_INDEX: Final[dict[str, int]] = {c.code: c.index for c in ALL_CARDS}


def _mask(pred: object) -> int:
    m = 0
    for c in ALL_CARDS:
        if pred(c):  # type: ignore[operator]
            m |= c.bit
    return m


#: Index 0 is empty so that MONTH_MASKS[m] is month m's four bits.
MONTH_MASKS: Final[tuple[int, ...]] = (0, *(0xF << (4 * (m - 1)) for m in range(1, 13)))
STANDARD_DECK: Final[int] = (1 << 48) - 1
BONUS: Final[int] = _mask(lambda c: c.kind is Kind.BONUS)
BRIGHTS: Final[int] = _mask(lambda c: c.kind is Kind.BRIGHT)
ANIMALS: Final[int] = _mask(lambda c: c.kind is Kind.ANIMAL)
RIBBONS: Final[int] = _mask(lambda c: c.kind is Kind.RIBBON)
SINGLE_JUNK: Final[int] = _mask(lambda c: c.kind is Kind.JUNK)
DOUBLE_JUNK: Final[int] = _mask(lambda c: c.kind is Kind.DOUBLE_JUNK)
#: Junk proper: single and double junk (bonus cards and the cup are counted separately).
JUNK: Final[int] = SINGLE_JUNK | DOUBLE_JUNK
HONGDAN: Final[int] = _mask(lambda c: c.ribbon_set is RibbonSet.HONGDAN)
CHEONGDAN: Final[int] = _mask(lambda c: c.ribbon_set is RibbonSet.CHEONGDAN)
CHODAN: Final[int] = _mask(lambda c: c.ribbon_set is RibbonSet.CHODAN)
GODORI: Final[int] = _mask(lambda c: c.godori_bird)
RAIN_BRIGHT: Final[int] = _mask(lambda c: c.rain_bright)
CUP: Final[int] = _mask(lambda c: c.cup)


def parse(code: str, where: str | None = None) -> int:
    """Index of a card code, case-insensitive (``11d`` is ``11D``); ``1G`` is ``01G``."""
    key = code.strip().upper() if isinstance(code, str) else code
    idx = CODE_TO_INDEX.get(key)  # type: ignore[arg-type]
    if (
        idx is None
        and isinstance(key, str)
        and len(key) >= 2
        and key[0].isdecimal()
        and not (key[1].isdecimal())
    ):
        idx = CODE_TO_INDEX.get("0" + key)
    if idx is None:
        raise CardCodeError(code, _GOOD_CODES, where)
    return idx


def card(code_or_index: str | int) -> Card:
    """The card for a code or an index."""
    if isinstance(code_or_index, int):
        return ALL_CARDS[code_or_index]
    return ALL_CARDS[parse(code_or_index)]


def index(code: str) -> int:
    """Index of a canonical code (no normalisation: the fast path for logs)."""
    try:
        return CODE_TO_INDEX[code]
    except KeyError:
        raise CardCodeError(code, _GOOD_CODES) from None


def bit(code: str) -> int:
    return 1 << index(code)


def mask_of(codes: Iterable[str]) -> int:
    m = 0
    for c in codes:
        m |= 1 << index(c)
    return m


def indices(mask: int) -> Iterator[int]:
    """The card indices in a mask, lowest first."""
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


def codes(mask: int) -> list[str]:
    """The codes of the cards in a mask, in deck order."""
    return list(_codes(mask))


@lru_cache(maxsize=8192)
def _codes(mask: int) -> tuple[str, ...]:
    # cached: the same small groups (a pair, a month) are named on every turn of a replay
    return tuple(ALL_CARDS[i].code for i in indices(mask))


#: Whether this module runs compiled (in the kernel, ``make native``), not as its source.
_NATIVE: Final = not __file__.endswith(".py")


def popcount(mask: int) -> int:
    """The cards in a mask, for the kernel, which counts them after every turn: compiled,
    integer arithmetic on a mask below ``2**62`` runs as native operations, where
    ``int.bit_count`` is a Python method call; as source, ``bit_count`` itself. Code outside
    the kernel calls ``bit_count``."""
    if not _NATIVE or mask < 0 or mask >> 62:
        return mask.bit_count()
    m = mask - ((mask >> 1) & 0x1555555555555555)
    m = (m & 0x3333333333333333) + ((m >> 2) & 0x3333333333333333)
    m = (m + (m >> 4)) & 0x0F0F0F0F0F0F0F0F
    m += m >> 8
    m += m >> 16
    m += m >> 32
    return m & 0x7F


def month_of(idx: int) -> int:
    """Month of a card index (0 for bonus cards)."""
    return MONTH_OF[idx]
