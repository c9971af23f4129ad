"""One notation for a table input, both ways: a line of text to input payloads, and back.

``gostop record`` reads it at its prompt and from scripts, the scripted games of
:mod:`gostop_records.script` are written in it, ``gostop play`` reads its answers with
it and the HTTP service takes entries as lines of it. :func:`parse` gives the payloads a line
stands for in a game state; :func:`text` writes a payload as a line that parses back to it.
A grammar error is a :class:`NotationError` with the reason; a line that parses can still be
refused by the rules, which is the engine's business, not this module's.

The grammar (one input per line; case does not matter; commas and colons count as spaces)::

    [SEAT] play CARD [TAKE]    a hand card; TAKE (or ``choose TAKE``) is the layout card it
                               takes when two of its month lie there
    [SEAT] flip [CARD] [TAKE]  the card turned from the stock (left out: the known top)
    CARD [TAKE]                play or flip, whichever the table waits for
    [SEAT] bomb MONTH [CARDS]  three (or two) cards of a month onto the rest of it
    [SEAT] shake MONTH [CARDS] three cards of a month shown (named when the hand is unknown)
    [SEAT] flip-only           a turn without a hand card, after a bomb (alias ``fo``)
    four [SEAT MONTH]...       fours of a month shown at the deal (alone: every four held)
    [SEAT] cup animal|junk     the September cup counts as animal or as junk
    [SEAT] go | [SEAT] stop    the decision of the player who may stop
    pay [due]                  every payment due, at the computed amounts
    pay PAYER->PAYEE CHIPS [NOTE]
                               what the table paid: ``pay Ben->Ann 24``
    settle                     close the night (정산): no hand follows; the rules propose
                               each seat's total and the transfers that square them
    settle pay [PAYER->PAYEE CHIPS [NOTE]]
                               a transfer of the settlement as paid (alone: every open
                               transfer at the proposed amounts); a different one needs a NOTE
    note [@SEQ] TEXT           free text, optionally about an earlier seq
    undo [@SEQ] [REASON]       retract the latest input entry (alias ``retract``)
    hand [dealer SEAT] [out SEAT...] [order SEAT...] [deck CARD...]
                               start the next hand (``deal`` does it when needed); at 4 or 5
                               seats ``out`` names the seats sitting out (by choice) or
                               ``order`` the three that play
    deal layout CARD... [hand SEAT CARD...]... [stock CARD...] [bonus CARD...] [dealer SEAT]
         [out SEAT...]         the deal; a hand or the stock left out (or ``?``) is unknown
    [SEAT] sell [SEAT] CARD... gwang-pali: a seat sitting out sells the brights in its hand
    chips N...                 the chips of every seat at the start of the sitting
    draw night|day SEAT CARD...
                               the draw for the first deal (밤일낮장), a card per seat

A SEAT is a seat number or a player's id or name (or a unique start of a name); left out, it
is the seat that acts. MONTH is 1..12. A card is a code in any case (``03r``, ``9a``,
``11d``). ``draw CARD`` after a bonus card played from the hand names the card drawn for it
(the rules derive it; a script checks it). Lines are written by :func:`text` with the seat
left out unless asked for, cards in canonical codes and seats by number.
"""

from __future__ import annotations

from .completion import complete, lines_now
from .facts import actor, bomb_cards, hand_started, shake_cards
from .line import (
    CARD_FORM,
    VERBS,
    Line,
    NotationError,
    UnknownCommand,
    card_code,
    month,
    read,
    seat_of,
)
from .parsing import parse
from .writing import text

__all__ = [
    "CARD_FORM",
    "VERBS",
    "Line",
    "NotationError",
    "UnknownCommand",
    "actor",
    "bomb_cards",
    "card_code",
    "complete",
    "hand_started",
    "lines_now",
    "month",
    "parse",
    "read",
    "seat_of",
    "shake_cards",
    "text",
]
