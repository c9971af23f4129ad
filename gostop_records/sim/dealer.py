"""A seeded dealer: the same seed gives the same deck on every machine and Python version.

Python's ``random`` may change its algorithms between versions, so the dealer uses its own
documented generator: SplitMix64 (Steele, Lea and Flood, 2014; the seeding generator of
xoshiro), with unbiased bounded integers by rejection, and a Fisher-Yates shuffle from the
last position down. A 64-bit seed is derived from the text ``"{seed}/{stream}"`` with
SHA-256, so games and hands draw from independent streams.

The deal follows the general rules page (G4, G5): half of each hand to every player from the
dealer's left round to the dealer, half of the layout, then the rest the same way; bonus
cards dealt face up go to the dealer's pile and are replaced from the stock top (G23).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from .. import cards as C
from ..engine.table import Table

__all__ = ["Deal", "SplitMix64", "deal", "shuffled_deck"]

_MASK64 = (1 << 64) - 1


class SplitMix64:
    """The SplitMix64 generator: tiny, fast, portable, and fully specified by its seed."""

    __slots__ = ("state",)

    def __init__(self, seed: int | str) -> None:
        if isinstance(seed, str):
            seed = int.from_bytes(hashlib.sha256(seed.encode()).digest()[:8], "big")
        self.state = seed & _MASK64

    def next64(self) -> int:
        self.state = (self.state + 0x9E3779B97F4A7C15) & _MASK64
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK64
        return z ^ (z >> 31)

    def below(self, n: int) -> int:
        """A uniform integer in [0, n), without modulo bias."""
        if n <= 0:
            raise ValueError("n must be positive")
        limit = _MASK64 - (_MASK64 + 1) % n
        while True:
            x = self.next64()
            if x <= limit:
                return x % n

    def choice(self, items: list) -> object:  # type: ignore[type-arg]
        return items[self.below(len(items))]


def shuffled_deck(table: Table, rng: SplitMix64) -> list[int]:
    """Every card of the table's deck in a shuffled order (Fisher-Yates)."""
    deck = list(C.indices(table.deck))
    for i in range(len(deck) - 1, 0, -1):
        j = rng.below(i + 1)
        deck[i], deck[j] = deck[j], deck[i]
    return deck


@dataclass(frozen=True, slots=True)
class Deal:
    hands: list[list[int]]  # by seat
    layout: list[int]  # after bonus replacement
    stock: list[int]  # top first
    bonus_to_pile: list[int]


def deal(table: Table, deck: list[int], dealer: int, playing: list[int] | None = None) -> Deal:
    """Deal a shuffled deck: two rounds, each of half the hands then half the layout.

    ``playing``: the seats of the hand when some sit out (4 or 5 seats); a sitter is dealt
    nothing here, its hand being the bottom of the stock (``rulebook/seats.py``)."""
    n = table.players
    hand, lay = table.hand_size, table.layout_size
    seats = [(dealer + k) % n for k in range(1, n + 1)]  # dealer's left first, dealer last
    if playing is not None:
        seats = [s for s in seats if s in playing]
    hands: list[list[int]] = [[] for _ in range(n)]
    layout: list[int] = []
    pos = 0
    h1, l1 = (hand + 1) // 2, (lay + 1) // 2
    for h_count, l_count in ((h1, l1), (hand - h1, lay - l1)):
        for seat in seats:
            hands[seat].extend(deck[pos : pos + h_count])
            pos += h_count
        layout.extend(deck[pos : pos + l_count])
        pos += l_count
    stock = deck[pos:]
    bonus: list[int] = []
    final: list[int] = []
    for i in layout:
        while i >= 48:
            bonus.append(i)
            i = stock.pop(0)
        final.append(i)
    return Deal(hands, final, stock, bonus)
