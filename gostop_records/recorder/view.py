"""What a session shows of its running game, read alike by the recording session and the
play table."""

from __future__ import annotations

from .. import events as E
from .. import notation
from ..engine.game import GameState, Waiting
from ..engine.state import HandState
from ..rules import Ruleset
from .answers import PendingDue

__all__ = ["GameView"]


class GameView:
    """What a session shows of its running game (``game``): the hand, the rules, the
    players; the recording session and the play table both read them so."""

    @property
    def game(self) -> GameState:
        raise NotImplementedError

    @property
    def hand(self) -> HandState | None:
        return self.game.hand

    @property
    def rules(self) -> Ruleset:
        return self.game.rules

    @property
    def players(self) -> tuple[E.Player, ...]:
        return self.game.players

    def waiting(self) -> Waiting:
        """What the table waits for next (see :class:`~gostop_records.engine.game.Waiting`)."""
        return self.game.waiting()

    @property
    def actor(self) -> int | None:
        """The seat that acts next (None between hands)."""
        return notation.actor(self.hand)

    def pending_dues(self) -> list[PendingDue]:
        """Payments due in the latest hand that no recorded payment answers yet (see
        :meth:`~gostop_records.engine.game.GameState.pending_dues`)."""
        return [PendingDue(*d) for d in self.game.pending_dues()]
