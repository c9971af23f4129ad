"""The bots by name, as ``--bot``, the play page and the benchmarks take them.

Its own module because the bots build on one another (``strong`` searches with ``greedy``
playing the other seats), so the list of all of them stands above every bot.
"""

from __future__ import annotations

from collections.abc import Callable

from ..errors import GostopError
from .bots import Bot, GreedyBot, RandomBot
from .dealer import SplitMix64
from .strong import StrongBot

__all__ = ["BOTS", "make_bot"]

#: Every bot by name: a class (or a factory) taking one seeded generator.
BOTS: dict[str, Callable[[SplitMix64], Bot]] = {
    "random": RandomBot,
    "greedy": GreedyBot,
    "strong": StrongBot,
}


def make_bot(name: str, rng: SplitMix64) -> Bot:
    """A bot by name; an unknown name is a :class:`GostopError` listing the bots."""
    try:
        cls = BOTS[name]
    except KeyError:
        raise GostopError(f"unknown bot {name!r}: bots are {', '.join(BOTS)}") from None
    return cls(rng)
