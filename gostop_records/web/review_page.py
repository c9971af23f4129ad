"""The review of a game as one self-contained HTML page.

``gostop review --html`` writes it: its styles are inside it and a Content-Security-Policy
forbids loading anything else, so it opens from the disk with no network, like the replayer.
Every decision is a table of its options with their expected chips and 95% intervals, the
option taken and the best one marked, and the grade; each hand ends with the luck against
the skill of every seat.

``gostop serve`` shows the review a store keeps (``gostop review --db FILE --store``) at
``/games/{id}/review``, with the same template: the server never runs rollouts for a page.
"""

from __future__ import annotations

from collections.abc import Sequence
from html import escape
from typing import Any

from .. import events as E
from ..review.grades import BLUNDER, INACCURACY, MISTAKE
from ..review.model import GameReview, HandReview
from ..review.render import chips, span
from .pages import _env

__all__ = ["no_review_page", "review_page", "stored_review_page"]


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


def stored_review_page(
    game_id: str,
    envelopes: Sequence[E.Envelope],
    stored: tuple[list[HandReview], dict[str, Any]] | None,
) -> str | None:
    """The page of the review a store keeps for a game (see
    :func:`~gostop_records.review.store.load_review`); None when it keeps none."""
    if stored is None:
        return None
    hands, settings = stored
    first = envelopes[0].event if envelopes else None
    started = first if type(first) is E.GameStarted else None
    review = GameReview(
        game_id=game_id,
        ruleset=str(started.ruleset.get("name", "?")) if started else "?",
        players=len(started.players) if started else 0,
        stake=started.stake if started else 1,
        policy=settings["policy"],
        budget=settings["budget"],
        seed=settings["seed"],
        seat=None,
        hands=hands,
    )
    return review_page(review)


def no_review_page(game_id: str) -> str:
    """What ``/games/{id}/review`` says when the store keeps no review of the game."""
    gid = escape(game_id)
    return (
        "<!doctype html><meta charset='utf-8'>"
        f"<title>No review of {gid}</title><p>The store keeps no review of game {gid}. "
        f"Review it with <code>gostop review --db FILE --game {gid} --store</code> (while no "
        "server holds the file), then serve the store again.</p>"
    )
