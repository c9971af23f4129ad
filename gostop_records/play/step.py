"""What a game against the computer waits for next (:meth:`~.session.PlaySession.next_step`):
the session takes the automatic steps itself, the play prompt reads the human's answers."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["AUTOMATIC", "Step"]

#: Steps the session takes by itself, without an answer from anybody.
AUTOMATIC = frozenset({"deal", "fours", "pay"})


@dataclass(frozen=True, slots=True)
class Step:
    """What the game waits for next.

    ``kind``: ``deal`` (the next deal: the first one, or again after a void deal), ``fours``
    (four of a month held at the deal must be shown), ``play``, ``flip``, ``cup`` (the
    September cup's role), ``decide`` (Go or Stop), ``pay`` (record the payments of a
    finished hand), ``hand_over`` (a hand is over and paid; another may follow), ``over``
    (a single-hand game has ended). ``human`` says whether the human answers it.
    """

    kind: str
    seat: int | None
    hand: int
    human: bool = False

    @property
    def automatic(self) -> bool:
        return self.kind in AUTOMATIC
