"""A game against the computer, recorded like any table game.

The CARDAVIA page offers "2 players, you vs AI, a single hand" under a precise ruleset. A
:class:`PlaySession` offers that (and the other presets, with one or two bots) on the same
engine that replays and audits logs: the deck comes from the seeded dealer, the whole deal is
recorded (digital play knows every hand, the stock and the shuffled deck), and every input,
the human's and the bots', goes through a :class:`~gostop_records.recorder.RecordingSession`,
so each entry is checked by the rules before it is written and is durable when it returns.
At the end of a hand the amount the rules make due is recorded as paid, as a table would.

What the session tells its user interface: who moves (:meth:`PlaySession.next_step`), what
the human may do and what each hand card would capture (:meth:`PlaySession.options`), the
human's answers read as options (:meth:`PlaySession.parse_play`), the bots' moves one input
at a time (:meth:`PlaySession.bot_step`, an :class:`~gostop_records.recorder.Entry` with its
consequences), what a Stop would pay now (:meth:`PlaySession.stop_value`) and the final proof.

Randomness comes from :class:`~gostop_records.sim.dealer.SplitMix64` streams named after
the seed: ``"{seed}/play-{ruleset}-{n}p-{seed}"`` picks the first player (CARDAVIA C2.3:
chosen at random), ``.../hand{h}`` shuffles hand ``h`` and ``.../bot{s}`` breaks seat ``s``'s
ties. The same seed and the same answers give the same payloads.

No terminal I/O here: the ``gostop play`` command is the user interface.
"""

from __future__ import annotations

from .prompt import Option
from .session import PlaySession
from .setup import (
    DEFAULT_BOT,
    HUMAN,
    PlayInputError,
    new_play_id,
    random_seed,
    resolve_setup,
    seat_names,
)
from .step import Step

__all__ = [
    "DEFAULT_BOT",
    "HUMAN",
    "Option",
    "PlayInputError",
    "PlaySession",
    "Step",
    "new_play_id",
    "random_seed",
    "resolve_setup",
    "seat_names",
]
