"""How a loss becomes a word: the grades and their thresholds, in one place.

A rollout estimate is noisy, so a grade is only given where the loss is clear of the noise:
the 95% interval of the loss (paired over the same samples) lies above zero. Inside the
noise the decision is "within noise", whatever the point estimate says, because the
review cannot tell the options apart at that budget, and a larger ``--budget`` may.

The thresholds are in chips per point of stake (at stake 1, in chips): a game played for 100
chips a point loses 100 times more on the same mistake, and is graded the same.
"""

from __future__ import annotations

from typing import Final, Literal

__all__ = ["BLUNDER", "GRADES", "INACCURACY", "MISTAKE", "Grade", "grade"]

#: A clear loss of at least this many chips (per point of stake) is an inaccuracy.
INACCURACY: Final = 0.5
#: ... a mistake.
MISTAKE: Final = 2.0
#: ... a blunder.
BLUNDER: Final = 5.0

Grade = Literal["best", "within noise", "negligible", "inaccuracy", "mistake", "blunder"]

#: Every grade, from the best to the worst.
GRADES: Final[tuple[Grade, ...]] = (
    "best",
    "within noise",
    "negligible",
    "inaccuracy",
    "mistake",
    "blunder",
)


def grade(loss: float, low: float, stake: int = 1, margin_low: float | None = None) -> Grade:
    """The grade of a decision that lost ``loss`` chips (mean) against the best option, the
    lower end of its 95% interval being ``low``.

    When the option taken is the best found (``loss`` is 0), ``margin_low`` is the lower end
    of the interval of its gain over the next best: ``best`` when that is clear of zero,
    ``within noise`` when the options cannot be told apart (two equal options are). A loss
    whose interval reaches zero is ``within noise`` too. Otherwise the loss per point of
    stake against the thresholds; ``negligible`` is a clear loss below :data:`INACCURACY`.
    """
    if loss <= 0:
        return "best" if margin_low is None or margin_low > 0 else "within noise"
    if low <= 0:
        return "within noise"
    per_point = loss / max(stake, 1)
    if per_point >= BLUNDER:
        return "blunder"
    if per_point >= MISTAKE:
        return "mistake"
    if per_point >= INACCURACY:
        return "inaccuracy"
    return "negligible"
