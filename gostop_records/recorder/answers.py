"""What a session answers: the entry written, a decision kept without writing, a payment
still due, a choice the rules need before an input can be recorded."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from .. import events as E
from ..engine.game import GameState
from ..errors import IllegalAction
from ..projector import Projector


@dataclass(slots=True)
class Decision:
    """What the session decided while :meth:`RecordingSession.deciding`: the envelopes to
    store (every input with its consequences, and any checkpoint the session sealed after
    them), the game's version before them, and the projector after them (so the store need
    not run the rules again). The session has taken them as its state already; the caller
    stores them, or drops the session if it cannot."""

    game_id: str
    base: int
    envelopes: list[E.Envelope] = field(default_factory=list)
    checked: Projector | None = None


@dataclass(frozen=True, slots=True)
class Entry:
    """One accepted input as stored, with the consequences the rules derived from it."""

    input: E.Envelope
    consequences: tuple[E.Envelope, ...]
    before: GameState | None
    after: GameState
    #: For an undo: the envelope of the input entry it retracted.
    retracted: E.Envelope | None = None

    @property
    def envelopes(self) -> tuple[E.Envelope, ...]:
        return (self.input, *self.consequences)


@dataclass(frozen=True, slots=True)
class PendingDue:
    """A payment the rules made due in a hand that no ``payment_recorded`` answers yet."""

    hand: int
    payer: int
    payee: int
    points: int
    chips: int
    reason: str


class ChoiceRequired(IllegalAction):
    """A card matches two layout cards of its month: the recorder must say which it takes."""

    def __init__(self, card: str, candidates: Sequence[str], step: str, reason: str) -> None:
        self.card = card
        self.candidates = tuple(candidates)
        self.step = step
        super().__init__("choice_required", reason)
