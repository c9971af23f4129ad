"""A script as data: a game's header and its hands, each a deal as given and its input lines;
and the error of a script that cannot be built."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

from .. import cards as C
from ..errors import GostopError
from ..rules import Ruleset

CODES = C.CODES
EPOCH = datetime(2026, 1, 1, 19, 0, tzinfo=UTC)
FILL = "..."
UNKNOWN = "?"


class ScriptError(GostopError):
    """A script that cannot be built: the line, its text and the reason (a rule, if any)."""


@dataclass(frozen=True, slots=True)
class HandScript:
    """One hand: the deal (cards as given, before completion) and the input lines.

    ``hands[s]`` is a seat's cards, or None when the record does not know them; ``fill[s]``
    completes it (see the module docstring). ``stock`` is the cards top first, None when
    unknown, or ``"auto"``; ``stock_fill`` completes an explicit stock. ``deck`` is the
    shuffled deck to record; without seats and layout, :func:`~.dealer.deal` deals it.
    """

    dealer: int | None = None  # None: the drawn dealer, the winner of the last hand, or 0
    out: tuple[str, ...] = ()  # seats sitting out (as the grammar's ``hand out``)
    order: tuple[str, ...] = ()  # the seats that play (as the grammar's ``hand order``)
    hands: tuple[tuple[str, ...] | None, ...] = ()
    fill: tuple[bool, ...] = ()
    listed: tuple[bool, ...] = ()  # a seat line given (a sitter's may be left out)
    layout: tuple[str, ...] = ()
    bonus_to_pile: tuple[str, ...] = ()
    stock: tuple[str, ...] | str | None = "auto"
    stock_fill: bool = False
    deck: tuple[str, ...] | None = None
    record_deck: bool = True
    inputs: tuple[tuple[int, str], ...] = ()  # (script line number, text)
    line: int = 0  # the script line of the ``hand`` statement


@dataclass(frozen=True, slots=True)
class GameScript:
    """A game: ruleset, seats, stake, who records it, and its hands."""

    rules: Ruleset
    players: int
    game_id: str
    hands: tuple[HandScript, ...] = ()
    stake: int = 1
    names: tuple[str, ...] = ()
    by: str = "script"
    venue: str | None = None
    notes: str | None = None
    pre: tuple[tuple[int, str], ...] = ()  # game-level lines before the first hand
    where: str = "<script>"
    step_seconds: int = 1


@dataclass(slots=True)
class Deal:
    hands: list[list[str] | None]
    layout: list[str]
    stock: list[str] | None
    bonus: list[str]
    deck: list[str] | None
