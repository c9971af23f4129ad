"""Which game a JSON Lines record names first.

A line this package writes begins with its game's id: ``{"game_id":"<id>",...``. The
import's scan places a run's lines by those leading bytes without decoding them
(``store.runs``), while a decoder keeps the last of repeated members: a line that begins
with one game's id and says ``"game_id"`` again further on would belong to one game for
the scan and to another for the reader. Every reader refuses such a line
(``codec.lead_conflict`` names it); this module holds the quick check the readers run on
every line, compiled in the native build (``make native``; see ``NATIVE_MODULES``).
"""

from __future__ import annotations

from typing import Final

__all__ = ["LEAD", "LeadCheck", "lead_of", "own_lead"]

#: How a line in the form this package writes begins: its game's id comes first.
LEAD: Final = b'{"game_id":"'


def lead_of(game_id: str) -> bytes:
    """The bytes every line of the game written in the usual form begins with, up to the
    quote that closes its id."""
    return LEAD + game_id.encode() + b'"'


def own_lead(line: bytes, game_id: str) -> bool:
    """Whether a line either does not begin with a game id or begins with its own (a line
    that fails this goes to ``codec.lead_conflict``, which refuses it when the two ids
    differ and lets pass an id written with escapes)."""
    return not line.startswith(LEAD) or line.startswith(lead_of(game_id))


class LeadCheck:
    """:func:`own_lead` over consecutive lines, keeping the last game's leading bytes: a
    line of the same game as the one before costs one ``startswith``."""

    def __init__(self) -> None:
        self.game_id = ""
        self.lead = lead_of("")

    def own(self, line: bytes, game_id: str) -> bool:
        if game_id != self.game_id:
            self.game_id = game_id
            self.lead = lead_of(game_id)
        return line.startswith(self.lead) or not line.startswith(LEAD)
