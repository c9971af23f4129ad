"""The results of a review, as msgspec Structs: the types are the schema.

``msgspec.json.encode(review)`` is the JSON of ``gostop review --json``; a stored review
decodes back with ``msgspec.json.decode(data, type=GameReview)``. Chips are the seat's own:
positive won, negative paid, from the decision to the end of the hand (what was paid before
it is the same whatever the seat chooses, so it is left out).
"""

from __future__ import annotations

import msgspec

from .grades import Grade

__all__ = ["DecisionReview", "GameReview", "HandLuck", "HandReview", "Interval", "OptionValue"]


class Interval(msgspec.Struct, frozen=True):
    """A mean over the samples and its 95% interval."""

    mean: float
    low: float
    high: float


class OptionValue(msgspec.Struct, frozen=True):
    """One legal option of a decision: what it is and the chips it is expected to bring."""

    label: str  # in the script notation: "go", "stop", "play 09R choose 09J1", "cup junk"
    chips: Interval
    taken: bool = False
    best: bool = False


class DecisionReview(msgspec.Struct, frozen=True):
    """One decision of a seat, judged on what the seat knew then."""

    seq: int  # the input's seq in the log
    hand: int
    seat: int
    kind: str  # go_stop, capture, play, shake, bomb, flip_only, cup, four, sell
    taken: str  # the label of the option taken
    best: str  # the label of the best option found
    options: list[OptionValue]
    loss: Interval  # chips lost against the best option, paired over the same samples
    grade: Grade
    samples: int  # worlds every option was played in (0: the values are exact)
    unseen: int  # cards whose place the seat did not know


class HandLuck(msgspec.Struct, frozen=True):
    """Luck against skill in one hand for one seat.

    ``won = deal + luck - lost``: what the deal was worth to the seat (every seat playing the
    rollout policy from the deal on), less what its decisions lost, and the rest, which is
    the luck of the cards turned after the deal and of the other seats' play (and the
    distance between the rollout policy and the players)."""

    seat: int
    deal: Interval  # chips the deal was worth, from the seat's view of it
    won: int  # chips the seat won (negative: paid) in the hand
    lost: float  # chips lost to its reviewed decisions (sum of the mean losses)
    luck: float  # won - deal + lost


class HandReview(msgspec.Struct, frozen=True):
    hand: int
    decisions: list[DecisionReview]
    luck: list[HandLuck]


class GameReview(msgspec.Struct, frozen=True):
    """A review of one game's hands (all, or the one asked for)."""

    game_id: str
    ruleset: str
    players: int
    stake: int
    policy: str  # the rollout policy
    budget: int  # worlds per decision
    seed: int
    seat: int | None  # the seat reviewed (None: every seat)
    hands: list[HandReview]
    #: The game's last seq when it was reviewed: a game that went on since is reviewed again.
    through_seq: int = 0
