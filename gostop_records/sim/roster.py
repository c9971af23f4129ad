"""The bots by name, as ``--bot``, the play page and the benchmarks take them, and the
levels the play page offers.

Its own module because the bots build on one another (``strong`` searches with ``greedy``
playing the other seats), so the list of all of them stands above every bot.

A *level* is a bot at a budget, named for a person choosing an opponent: ``beginner``
plays at random, ``casual`` is ``greedy``, and ``club``, ``strong`` and ``expert`` are the
``strong`` search at 24, 96 (its default) and 288 rollouts a decision; ``master`` is ``deep``
(``strong`` at 96, then a second look, :mod:`.deep`). ``make_bot`` takes a
bot's name or a level's; ``python -m bench.ladder`` measures the levels against each other.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ..errors import GostopError
from .bots import Bot, GreedyBot, RandomBot
from .dealer import SplitMix64
from .deep import DeepBot
from .strong import DEFAULT_ROLLOUTS, StrongBot

__all__ = ["BOTS", "LEVELS", "Level", "known", "make_bot", "names"]

#: Every bot by name: a class (or a factory) taking one seeded generator.
BOTS: dict[str, Callable[[SplitMix64], Bot]] = {
    "random": RandomBot,
    "greedy": GreedyBot,
    "strong": StrongBot,
    "deep": DeepBot,
}


@dataclass(frozen=True, slots=True)
class Level:
    """A bot at a budget: ``rollouts`` a decision for the search (None: the bot's own)."""

    name: str
    bot: str
    rollouts: int | None
    about: str  # one line for the person choosing it

    def make(self, rng: SplitMix64) -> Bot:
        if self.bot == "strong":
            return StrongBot(rng, rollouts=self.rollouts)
        if self.bot == "deep":
            return DeepBot(rng, rollouts=self.rollouts)
        return BOTS[self.bot](rng)


#: The levels, weakest first.
LEVELS: dict[str, Level] = {
    lv.name: lv
    for lv in (
        Level("beginner", "random", None, "plays any legal card at random"),
        Level("casual", "greedy", None, "takes the best cards in sight; Go or Stop by rule"),
        Level("club", "strong", 24, "looks ahead: 24 played-out deals a decision"),
        Level("strong", "strong", DEFAULT_ROLLOUTS, "looks ahead: 96 played-out deals a decision"),
        Level("expert", "strong", 288, "looks ahead: 288 played-out deals a decision (slower)"),
        Level(
            "master",
            "deep",
            DEFAULT_ROLLOUTS,
            "looks twice: the strong search, then hundreds more played-out deals (slowest)",
        ),
    )
}


def known(name: str) -> bool:
    """Whether ``name`` is a bot's or a level's."""
    return name in BOTS or name in LEVELS


def make_bot(name: str, rng: SplitMix64) -> Bot:
    """A bot by name (a bot's or a level's); an unknown name is a :class:`GostopError`
    listing the bots and the levels."""
    if name in BOTS:
        return BOTS[name](rng)
    if name in LEVELS:
        return LEVELS[name].make(rng)
    raise GostopError(f"unknown bot {name!r}: {names()}")


def names() -> str:
    """The bots and the levels, for a message."""
    return f"bots are {', '.join(BOTS)}; levels are {', '.join(LEVELS)}"
