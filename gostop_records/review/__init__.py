"""A decision reviewer: was that Go a mistake?

A recorded hand is read input by input (:mod:`.decisions`); every input where the seat had
a choice is judged only on what the seat knew then (its information set: its own hand if the
record holds it, the layout, the piles, every card seen; never the stock's order or the other
hands, which a finished record also holds). Each legal option is played out in the same
random deals of the unseen cards (:mod:`.rollouts`), the option taken is compared with the
best one world by world, and the loss is graded only when it is clear of the noise
(:mod:`.judge`, :mod:`.grades`). The results are msgspec Structs (:mod:`.model`), rendered
as text (:mod:`.render`) or drawn in the replayer as a self-contained HTML page
(:mod:`gostop_records.web.review_page`).
"""

from .decisions import DEFAULT_KINDS, KINDS, Decision, decision_at, find_decisions, information_set
from .grades import BLUNDER, GRADES, INACCURACY, MISTAKE, grade
from .judge import judge, review_game
from .model import DecisionReview, GameReview, HandLuck, HandReview, Interval, OptionValue
from .rollouts import DEFAULT_BUDGET, POLICIES

__all__ = [
    "BLUNDER",
    "DEFAULT_BUDGET",
    "DEFAULT_KINDS",
    "GRADES",
    "INACCURACY",
    "KINDS",
    "MISTAKE",
    "POLICIES",
    "Decision",
    "DecisionReview",
    "GameReview",
    "HandLuck",
    "HandReview",
    "Interval",
    "OptionValue",
    "decision_at",
    "find_decisions",
    "grade",
    "information_set",
    "judge",
    "review_game",
]
