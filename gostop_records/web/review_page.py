"""The review of a game as one self-contained HTML page.

``gostop review --html`` writes it: its styles are inside it and a Content-Security-Policy
forbids loading anything else, so it opens from the disk with no network, like the replayer.
Every decision is a table of its options with their expected chips and 95% intervals, the
option taken and the best one marked, and the grade; each hand ends with the luck against
the skill of every seat.
"""

from __future__ import annotations

from ..review.grades import BLUNDER, INACCURACY, MISTAKE
from ..review.model import GameReview
from ..review.render import chips, span
from .pages import _env

__all__ = ["review_page"]


def review_page(review: GameReview) -> str:
    """The page of ``review``."""
    return (
        _env()
        .get_template("review.html")
        .render(
            r=review,
            chips=chips,
            span=span,
            thresholds={"inaccuracy": INACCURACY, "mistake": MISTAKE, "blunder": BLUNDER},
        )
    )
