"""A log written back as a script: its deals and inputs (the rules derive the rest)."""

from __future__ import annotations

import shlex
from collections.abc import Callable, Iterable
from typing import Any

from .. import events as E
from .. import notation
from .model import UNKNOWN


def script_of(envelopes: Iterable[E.Envelope]) -> str:
    """The text script of one game's log: its deals and inputs (consequences are derived).

    Building the result gives the same payloads again, so a simulated or recorded hand can
    be kept, read and edited as a script.
    """
    w = _Writer()
    for env in envelopes:
        ev = env.event
        own = _OWN_LINES.get(type(ev))
        if own is not None:
            own(w, env)
        elif E.is_input(ev):
            w.input(ev)
    return "\n".join(w.lines) + "\n"


class _Writer:
    """The lines written so far, and what a later event still adds to one of them."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.seats = 3
        self.pending_draw: int | None = None  # the line of a bonus card played from hand

    def game(self, env: E.Envelope) -> None:
        ev = env.event
        assert type(ev) is E.GameStarted
        self.seats = len(ev.players)
        attrs = [
            f"ruleset={ev.ruleset.get('name', '?')}",
            f"players={len(ev.players)}",
            f"stake={ev.stake}",
            f"by={shlex.quote(env.by)}",
        ]
        line = f"game {shlex.quote(env.game_id)} " + " ".join(attrs)
        line += " names=" + shlex.quote(",".join(p.name for p in ev.players))
        for key in ("venue", "notes"):
            value = getattr(ev, key)
            if value is not None:
                line += f" {key}={shlex.quote(value)}"
        self.lines.append(line)

    def hand(self, env: E.Envelope) -> None:
        ev = env.event
        assert type(ev) is E.HandStarted
        deck_flag = "" if ev.deck is not None else " deck=no"
        order = f" order={','.join(map(str, ev.order))}" if len(ev.order) < self.seats else ""
        self.lines.append(f"hand dealer={ev.dealer}{order}{deck_flag}")
        if ev.deck is not None:
            self.lines.append("deck: " + " ".join(ev.deck))

    def deal(self, env: E.Envelope) -> None:
        ev = env.event
        assert type(ev) is E.CardsDealt
        lines = self.lines
        for s, h in enumerate(ev.hands):
            lines.append(f"seat{s}: " + (" ".join(h) if h is not None else UNKNOWN))
        lines.append("layout: " + " ".join(ev.layout))
        if ev.bonus_to_pile:
            lines.append("bonus: " + " ".join(ev.bonus_to_pile))
        lines.append("stock: " + (" ".join(ev.stock) if ev.stock is not None else UNKNOWN))

    def bonus(self, env: E.Envelope) -> None:
        """The card drawn for a bonus card played from hand, on the line that played it."""
        ev = env.event
        assert type(ev) is E.BonusCardTaken
        if ev.source == "hand" and ev.replacement is not None and self.pending_draw is not None:
            self.lines[self.pending_draw] += f" draw {ev.replacement}"
            self.pending_draw = None

    def input(self, ev: Any) -> None:
        try:
            text = notation.text(ev, seat=True)
        except notation.NotationError:
            return
        self.lines.append(text)
        if type(ev) is E.CardPlayed and ev.card.startswith("B"):
            self.pending_draw = len(self.lines) - 1


#: The events a script states in lines of its own (every other input is a line of notation;
#: consequences are derived, but for the card a bonus card played from hand draws).
_OWN_LINES: dict[type, Callable[[_Writer, E.Envelope], None]] = {
    E.GameStarted: _Writer.game,
    E.HandStarted: _Writer.hand,
    E.CardsDealt: _Writer.deal,
    E.BonusCardTaken: _Writer.bonus,
}
