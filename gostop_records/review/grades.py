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


def grade(loss: float, low: float, stake: int = 1) -> Grade:
    """The grade of a decision that lost ``loss`` chips (mean) against the best option, the
    lower end of its 95% interval being ``low``.

    ``best``: the option taken is the best found (nothing lost). ``within noise``: the
    interval reaches zero. Otherwise the loss per point of stake against the thresholds;
    ``negligible`` is a clear loss below :data:`INACCURACY`.
    """
    if loss <= 0:
        return "best"
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
