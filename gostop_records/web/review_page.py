"""The review of a game drawn in the replayer, as one self-contained HTML page.

The page is the replayer's (:func:`~.pages.replay_page`) with the review in its data: every
reviewed decision is marked on the timeline and in the events, and at a decision the
replayer shows the table in front of the seat beside its options, each drawn with its
expected chips and 95% interval, the option taken, the best one, the loss and the grade
(``review.js``). ``gostop review --html`` writes it as a file that makes no request, like
``gostop replay --html``; ``gostop serve`` shows it at ``/games/{id}/review`` and, for a hand
played on ``/play``, with a "replay to this decision" button at each of the player's
decisions. The words of a review are :mod:`gostop_records.review.render`'s, computed here so
the script only places them.

While a review is computed on the server (:mod:`.review_jobs`), its address answers a small
page that says so with the progress, and looks again every two seconds.
"""

from __future__ import annotations

from collections.abc import Sequence
from html import escape
from typing import Any

from .. import events as E
from ..review.grades import BLUNDER, GRADES, INACCURACY, MISTAKE
from ..review.model import DecisionReview, GameReview, HandReview
from ..review.render import EXACT, chips, kind_name, luck_words, span, verdict
from .pages import replay_page

__all__ = ["progress_page", "review_data", "review_page", "stored_review"]

#: Grades that say the option taken lost clearly (the page opens at the worst of them).
_BAD = ("inaccuracy", "mistake", "blunder")


def _decision(d: DecisionReview) -> dict[str, Any]:
    options = sorted(d.options, key=lambda o: -o.chips.mean)
    top = options[0].chips.mean
    return {
        "seq": d.seq,
        "hand": d.hand,
        "seat": d.seat,
        "kind": d.kind,
        "kind_text": kind_name(d.kind),
        "taken": d.taken,
        "best": d.best,
        "grade": d.grade,
        "loss": [d.loss.mean, d.loss.low, d.loss.high],
        "verdict": verdict(d),
        "basis": f"{d.samples} deals of {d.unseen} unseen cards" if d.samples else EXACT,
        "options": [
            {
                "label": o.label,
                "chips": [o.chips.mean, o.chips.low, o.chips.high],
                "chips_text": chips(o.chips.mean),
                "span_text": span(o.chips),
                # the mean of the paired differences is the difference of the means
                "behind_text": "" if o.best else f"{top - o.chips.mean:.1f} below the best",
                "taken": o.taken,
                "best": o.best,
            }
            for o in options
        ],
    }


def _start(review: GameReview) -> int | None:
    """The seq the page opens at: the table in front of the worst decision (the first of
    them), else in front of the first decision."""
    found = [d for h in review.hands for d in h.decisions]
    if not found:
        return None
    worst = max(found, key=lambda d: (GRADES.index(d.grade) if d.grade in _BAD else -1, -d.seq))
    return max(worst.seq - 1, 1)


def review_data(review: GameReview, rewind: tuple[str, int] | None = None) -> dict[str, Any]:
    """What ``review.js`` draws: the settings, the thresholds, every decision with its words,
    each hand's luck; ``rewind`` is the address a decision of the player's seat is posted
    to, to play it again, and that seat (a ``/play`` hand), else None."""
    return {
        "policy": review.policy,
        "budget": review.budget,
        "seed": review.seed,
        "seat": review.seat,
        "stake": review.stake,
        "thresholds": {"inaccuracy": INACCURACY, "mistake": MISTAKE, "blunder": BLUNDER},
        "rewind": None if rewind is None else {"url": rewind[0], "seat": rewind[1]},
        "decisions": [_decision(d) for h in review.hands for d in h.decisions],
        "luck": [
            {"hand": h.hand, "seat": x.seat, "text": luck_words(x)}
            for h in review.hands
            for x in h.luck
        ],
    }


def review_page(
    review: GameReview,
    envelopes: Sequence[E.Envelope],
    *,
    rewind: tuple[str, int] | None = None,
) -> str:
    """The replayer page of the reviewed game with ``review`` drawn over it."""
    return replay_page(
        review.game_id,
        envelopes,
        start=_start(review),
        review=review_data(review, rewind),
    )


def stored_review(
    game_id: str,
    envelopes: Sequence[E.Envelope],
    stored: tuple[list[HandReview], dict[str, Any]] | None,
) -> GameReview | None:
    """The review a store keeps for a game (see
    :func:`~gostop_records.review.store.load_review`) as a :class:`GameReview`; None when it
    keeps none."""
    if stored is None:
        return None
    hands, settings = stored
    first = envelopes[0].event if envelopes else None
    started = first if type(first) is E.GameStarted else None
    return GameReview(
        game_id=game_id,
        ruleset=str(started.ruleset.get("name", "?")) if started else "?",
        players=len(started.players) if started else 0,
        stake=started.stake if started else 1,
        policy=settings["policy"],
        budget=settings["budget"],
        seed=settings["seed"],
        seat=None,
        hands=hands,
        through_seq=settings.get("through_seq", 0),
    )


def progress_page(game_id: str, state: str, done: int, total: int, error: str | None) -> str:
    """What a review's address answers while the review is computed: the progress, and a
    look again every two seconds (no script: a refresh); or why it failed."""
    gid = escape(game_id)
    head = (
        "<!doctype html><meta charset='utf-8'>"
        "<meta name='viewport' content='width=device-width, initial-scale=1'>"
    )
    if state == "failed":
        return (
            f"{head}<title>No review of {gid}</title>"
            f"<p id='review-state' data-state='failed'>The review of game {gid} failed: "
            f"{escape(error or 'unknown reason')}. Load the page again to try again.</p>"
        )
    if state == "queued":
        what = "waits for the reviews before it"
    elif total:
        what = f"{done} of {total} decisions judged ({100 * done // total}%)"
    else:
        what = "finding the decisions"
    return (
        f"{head}<meta http-equiv='refresh' content='2'>"
        f"<title>Reviewing {gid}…</title>"
        f"<p id='review-state' data-state='{escape(state)}' data-done='{done}' "
        f"data-total='{total}'>The review of game {gid} is being computed: {what}.</p>"
        f"<progress max='{max(total, 1)}' value='{done}'></progress>"
        "<p>Every option of every decision is played out in deals of the cards its seat "
        "could not see; this page looks again every two seconds and shows the review when "
        "it is ready.</p>"
    )
