"""Events in words: one place that says what a payload means, for every front end.

:func:`describe` tells an event in a sentence, naming players by name, in the third person
("Ben plays 03R, taking 03J1") or to the player in seat ``viewer`` ("you play 03R, taking
03J1"; what that seat may not see stays hidden, such as the card drawn into another hand).
:func:`recorded` states an input as the record has it, for an audit ("seat 1 played 07R").

Colour is no business of the library: the parts a display may highlight (card codes, a ppuk,
a Go or Stop call, the outcome of a hand) go through a :class:`Marks` object; the default,
:data:`PLAIN`, leaves them as they are, and the terminal's painter colours them.
"""

from __future__ import annotations

from .marks import PLAIN, Marks, pile_groups, seat_name, who
from .payments import payment_difference, sale_proof, settlement_words, transfer_words
from .table import (
    PHASE_WORDS,
    STAYS,
    WATCHER,
    fours_form,
    fours_held,
    named_seats,
    rate_words,
    standings,
    stays,
    stock_words,
    table_words,
    waiting_words,
)
from .telling import CAPTURE_KINDS, SOURCES, describe, recorded

__all__ = [
    "CAPTURE_KINDS",
    "PHASE_WORDS",
    "PLAIN",
    "SOURCES",
    "STAYS",
    "WATCHER",
    "Marks",
    "describe",
    "fours_form",
    "fours_held",
    "named_seats",
    "payment_difference",
    "pile_groups",
    "rate_words",
    "recorded",
    "sale_proof",
    "seat_name",
    "settlement_words",
    "standings",
    "stays",
    "stock_words",
    "table_words",
    "transfer_words",
    "waiting_words",
    "who",
]
