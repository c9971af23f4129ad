"""The values a rule that is not a number or a yes/no takes: one enum per such rule, each
value named for what the table does."""

from __future__ import annotations

import enum
from typing import Annotated, Literal

from pydantic import Field

#: The enums a ruleset's fields take, exported by :mod:`gostop_records.rules` as they are.
__all__ = [
    "BonusFour",
    "BonusPlay",
    "ChipLimit",
    "CupMode",
    "DoubleJunk",
    "FirstDealer",
    "GoBak",
    "GoPayout",
    "HandFourTie",
    "InstantFactor",
    "LastTurnRule",
    "LayoutFour",
    "NagariCarry",
    "Shaking",
    "SitOut",
    "SseulRule",
    "StealCount",
    "TransferOrder",
]


class DoubleJunk(enum.StrEnum):
    """Which junk cards count two units (A1, A2)."""

    STANDARD = "standard"  # 11D and 12D (every deck source; A1 and A2 resolution)
    NONE = "none"  # literal general page: it never says any junk is double
    ALL_NOVEMBER = "all_november"  # literal CARDAVIA C5.8: every November junk and 12D


class CupMode(enum.StrEnum):
    """How the September cup (09A) scores (A9)."""

    ANIMAL_ONLY = "animal_only"  # always an animal (general page: no dual role mentioned)
    AUTO_BEST = "auto_best"  # whichever gives the higher combination score, animal on ties (C5.9)
    PLAYER_CHOICE = "player_choice"  # the holder decides when capturing it; junk is final (A9)


class SseulRule(enum.StrEnum):
    """When a turn is a sweep (sseul) that takes junk (A6)."""

    TWO_CARDS = "two_cards"  # the layout held exactly 2 cards of different months, both taken
    FLOOR_EMPTY = "floor_empty"  # the layout is empty at the end of the turn (standard)


class StealCount(enum.StrEnum):
    """What a steal of N counts (A8)."""

    CARDS = "cards"  # N junk cards, whatever their value (general page G18 "takes 2 junk")
    UNITS = "units"  # N junk units; a double may pay two and may overshoot by one (C4.2)


class TransferOrder(enum.StrEnum):
    """Which junk card an opponent hands over (A8)."""

    LEAST_VALUABLE_FIRST = "least_valuable_first"  # fewest units, then lowest card code (C4.3)
    MOST_VALUABLE_FIRST = "most_valuable_first"  # most units that still fit, then lowest code


class Shaking(enum.StrEnum):
    """Heundeum: showing three cards of a month for a payment multiplier (A26)."""

    NONE = "none"  # not played (CARDAVIA C4.5)
    BEFORE_TURN = "before_turn"  # shown at the start of any own turn, no layout condition (G10)
    ON_PLAY = "on_play"  # shown when playing one of the three; the month is not on the layout


class BonusPlay(enum.StrEnum):
    """What happens when a bonus card (joker) is played from the hand (A27)."""

    DRAW_AND_PLAY_AGAIN = "draw_and_play_again"  # capture it, draw the stock top, play again
    FLIP_IN_PLACE = "flip_in_place"  # capture it, turn a stock card to play in its place (G22)


class BonusFour(enum.StrEnum):
    """When a four completed in hand by a bonus card's replacement counts as a dealt four."""

    NEVER = "never"  # not a four (Pmang)
    FIRST_TURN = "first_turn"  # on the holder's first turn only (p2p)
    ALWAYS = "always"  # on any turn (Hangame)


class LayoutFour(enum.StrEnum):
    """Four cards of one month dealt face up (A25)."""

    REDEAL = "redeal"  # void deal, same dealer deals again, no carry (G7, C2.4)
    NAGARI = "nagari"  # no winner, counts as a nagari for the carry (Pmang)
    DEALER_WINS = "dealer_wins"  # the dealer wins hand_four_points from each (Hangame)


class HandFourTie(enum.StrEnum):
    """Several players hold four of a month at the deal (A25)."""

    REDEAL = "redeal"  # void deal, same dealer deals again, nobody pays (C2.5)
    NAGARI = "nagari"  # no winner, counts as a nagari for the carry (Pmang)
    FIRST_IN_TURN_ORDER = "first_in_turn_order"  # the first holder from the dealer wins
    DEALER_WINS = "dealer_wins"  # the dealer if a holder, else the first holder (Hangame)


class LastTurnRule(enum.StrEnum):
    """Specials that do not happen on a player's last turn (A12)."""

    PPUK = "ppuk"  # no ppuk forms: the player takes all three
    JJOK = "jjok"
    TTADAK = "ttadak"
    SSEUL = "sseul"
    PPUK_TAKEN = "ppuk_taken"  # taking a stack steals nothing


class GoPayout(enum.StrEnum):
    """How n Gos change the payout of a score S (A16)."""

    STANDARD = "standard"  # S+n, and from 3 Gos (S+n)*2^(n-2)
    GENERAL_PAGE = "general_page"  # S+n chips; doubled once from go_double_from Gos (G38)
    DOUBLE_FROM_THIRD = "double_from_third"  # S, S+1, S+2, then S*2^(n-2) (C6.2)


class GoBak(enum.StrEnum):
    """What a loser who had called Go pays (A22)."""

    NONE = "none"  # nothing extra (both source documents)
    DOUBLE = "double"  # twice (standard matgo)
    PAYS_FOR_ALL = "pays_for_all"  # dokbak: pays every loser's share, the others pay nothing
    # both: the Go caller's own share doubles, then they pay every loser's (GoStopCalculator)
    DOUBLE_PAYS_FOR_ALL = "double_pays_for_all"


class NagariCarry(enum.StrEnum):
    """How a hand with no winner raises the next payment (A23)."""

    NONE = "none"  # no carry (single-hand play)
    CUMULATIVE = "cumulative"  # x2 per consecutive nagari, up to nagari_carry_cap
    ONCE = "once"  # x2 after any number of consecutive nagari


class InstantFactor(enum.StrEnum):
    """A factor that may multiply an instant win (A17, A24)."""

    NAGARI_CARRY = "nagari_carry"  # the carry of the nagari hands before this one
    SHAKE = "shake"  # the winner's shakes (x shake_multiplier each)
    BOMB = "bomb"  # the winner's bombs (x bomb_multiplier each)
    JACKPOT = "jackpot"  # a jackpot hand's factor (jackpot_every, jackpot_multiplier)


# --- seats, chips and the first dealer (4 or 5 at one table, gwang-pali, chips, 밤일낮장) ---


class SitOut(enum.StrEnum):
    """Who sits out a hand when 4 or 5 sit at a table of three players (G1, gwang-pali)."""

    TURN_ORDER = "turn_order"  # the dealer and the next two seats play; the rest sit out
    CHOICE = "choice"  # the seats that sit out choose to (recorded); the dealer always plays
    WATCH = "watch"  # the general page (G1): players beyond three watch and join next deal


class ChipLimit(enum.StrEnum):
    """What the chips on the table limit (P2P settle: cap at the loser's balance; Hangame
    유한책임제 limited liability)."""

    NONE = "none"  # every due is paid in full, whatever a player holds
    HOLDINGS = "holdings"  # a loser pays no more than they hold; the shortfall is recorded
    LIMITED_LIABILITY = "limited_liability"  # also: a winner gains from each loser at most
    # what the winner held when the hand began


class FirstDealer(enum.StrEnum):
    """How the first dealer of a sitting is chosen (G3); afterwards the winner deals."""

    LOT = "lot"  # by lot, unrecorded: the first hand names its dealer (G3)
    DRAW = "draw"  # 밤일낮장: each draws; by night the lowest month deals, by day the highest


PlayerCount = Literal[2, 3]
BonusCode = Literal["B2", "B3", "B2B", "B3B", "B2C"]
Steal = Annotated[int, Field(ge=0, le=3)]
Points = Annotated[int, Field(ge=0, le=100)]
