"""Who plays a game against the computer: the human's seat, the bots by name, the seed and
the game's id, the setup checked."""

from __future__ import annotations

import secrets
from collections.abc import Sequence

from .. import events as E
from .. import log as L
from ..engine.table import table_for
from ..errors import GostopError
from ..people import COMPUTER_IDS, computer_names, derived_person_id
from ..recorder import Clock, make_players
from ..rules import Ruleset, resolve

#: The human's seat; the bots sit after it.
HUMAN = 0
DEFAULT_BOT = "greedy"


class PlayInputError(GostopError):
    """An answer the session cannot take, with the reason; nothing was written."""


def random_seed() -> int:
    """A fresh seed for a game nobody asked to replay (shown, so it can be)."""
    return secrets.randbelow(10**9)


def new_play_id(clock: Clock = L.now) -> str:
    """A fresh game id for a game against the computer: ``play-2026-05-01-3fa2c1``."""
    return f"play-{clock()[:10]}-{secrets.token_hex(3)}"


def resolve_setup(ruleset: str | Ruleset, players: int | None = None) -> tuple[Ruleset, int]:
    """The ruleset and the player count of a game: ``players`` defaults to 2 when the
    ruleset is played by two, else its smallest table; a count it is not played with is a
    :class:`~gostop_records.errors.RulesetError`."""
    rules = ruleset if isinstance(ruleset, Ruleset) else resolve(ruleset)
    n = players if players is not None else (2 if 2 in rules.players else rules.players[0])
    table_for(rules, n)
    return rules, n


def seat_names(name: str, players: int) -> list[str]:
    """The names in seat order: the human's (``You`` when blank), then the bots'; a name
    that is a bot's, at any table size (its id is the computer's in every game), is a
    :class:`~gostop_records.errors.GostopError`."""
    names = [name.strip() or "You", *computer_names(players)]
    if derived_person_id(names[0]) in COMPUTER_IDS:
        raise GostopError(f"{names[0]!r} is the computer's name: give a name of your own")
    seated(names)  # refuses two seats with one name
    return names


def seated(names: Sequence[str], person: str | None = None) -> list[E.Player]:
    """The seats as persons: the human is ``person`` (a browser's own, on ``/play``), or
    the person of their name when none is given (one player at a terminal); each bot is
    the person of its name, the same in every game."""
    return make_players(
        [
            E.Player(id=(person if s == 0 and person else derived_person_id(n)), name=n)
            for s, n in enumerate(names)
        ]
    )
