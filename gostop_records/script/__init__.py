"""The script format: a complete, valid log from an explicit deal and a list of inputs.

A sample log, a test fixture or a hand copied from a paper score sheet is a deal plus what the
players did. A script states exactly that, and the rules engine derives every consequence
(captures, ppuk, junk transfers, Go/Stop prompts, payments due, the end of the hand) with
:func:`~gostop_records.engine.game.apply_game`, so a scripted log is a real game: it
validates strictly, and a script with an illegal input fails at that line with the rule.

The text form, one statement per line (``#`` starts a comment)::

    game sample-ppuk ruleset=matgo players=2 stake=1 by=sample names=North,South
    chips 100 100                  # chips at the start of the sitting (before the first hand)
    draw night 0 03G 1 11J1        # the draw for the first dealer (밤일낮장)
    hand dealer=0                  # a new hand; deck=no leaves the shuffled deck out
                                   # (dealer left out: the drawn dealer, or the winner)
    seat0: 08G 01J1 03G ...        # a hand; "..." completes it (see below); "?" = unknown
    seat1: 02R 05A ...
    layout: 08A 01G 03J1 04J1 06R 07R 10J1 12A
    bonus: B2                      # bonus cards dealt face up, moved to the dealer's pile
    stock: auto                    # or the cards top first (may end in "..."), or "?"
    deck: 01G 01R ...              # the shuffled deck; alone, it is dealt by the dealer
    0 play 08G                     # seat 0 plays 08G
    0 play 09R choose 09J1         # ... taking 09J1 when two cards of its month lie face up
    0 play B2 draw 05A             # a bonus card from the hand; 05A is drawn to replace it
    0 flip 01J1                    # seat 0 turns the stock ("0 flip": the top of a listed
                                   # stock)
    0 flip 08A choose 08G
    1 flip-only                    # a turn without a hand card (after a bomb)
    0 shake 08                     # show the three cards of month 08 (or list them)
    0 bomb 10                      # play the three cards of month 10 (or list them)
    fours                          # every four of a month held is shown ("fours 0:05 1:07")
    0 cup junk                     # the September cup as junk (or animal)
    1 go                           # Go at the current score (count and score are derived)
    0 stop
    pay 1->0 24 paid in cash       # what the table paid, with an optional note
    pay due                        # every payment the rules made due in this hand, as due
    note @12 the flip was dropped  # a note, optionally about a seq
    retract typo                   # undo the latest input entry

At 4 or 5 seats three play each hand: ``hand dealer=0 out=3`` names the seats sitting out
(by choice), ``order=0,1,2`` the three that play; left out, the dealer and the next two play.
A sitter's seat line is its dealt hand, which lies at the bottom of the stock (may be left
out, or ``?``); ``3 sell 01G 08G`` is its sale of brights (gwang-pali), after the deal.

The game line also takes ``venue=``, ``notes=`` (quote values with spaces) and ``step=N``,
the seconds between two inputs (timestamps start at ``build(start=...)``; consequences carry
the time of their input). ``ruleset=`` is a preset name or a ruleset file.

Completing a deal: a hand line ending in ``...`` gets the cards its seat plays, shakes or
bombs in the script (unless they come from the stock), then filler cards (never a bonus card,
never the fourth of a month). ``stock: auto`` stacks the stock with the cards the script
flips and draws, in order, then the rest. Filler comes in an order shuffled by a seed drawn
from the game id, so a completed deal looks like a real one and is the same on every run.
When every card is known, ``hand_started`` records the deck order that
:func:`~gostop_records.sim.dealer.deal` turns into exactly this deal, so a scripted hand is
a game with a fixed deck order.
"""

from __future__ import annotations

from .deals import deck_of, parse_input
from .model import GameScript, HandScript, ScriptError
from .reading import parse_script
from .running import amend, build, load, payloads
from .writing import script_of

__all__ = [
    "GameScript",
    "HandScript",
    "ScriptError",
    "amend",
    "build",
    "deck_of",
    "load",
    "parse_input",
    "parse_script",
    "payloads",
    "script_of",
]
