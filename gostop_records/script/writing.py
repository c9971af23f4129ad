"""A log written back as a script: its deals and inputs (the rules derive the rest)."""

from __future__ import annotations

import shlex
from collections.abc import Iterable
from typing import Any

from .. import events as E
from .. import notation
from .model import UNKNOWN


def script_of(envelopes: Iterable[E.Envelope]) -> str:
    """The text script of one game's log: its deals and inputs (consequences are derived).

    Building the result gives the same payloads again, so a simulated or recorded hand can
    be kept, read and edited as a script.
    """
    lines: list[str] = []
    pending_draw: int | None = None
    seats = 3
    for env in envelopes:
        ev = env.event
        t = type(ev)
        if t is E.GameStarted:
            seats = len(ev.players)
            attrs = [
                f"ruleset={ev.ruleset.get('name', '?')}",
                f"players={len(ev.players)}",
                f"stake={ev.stake}",
                f"by={shlex.quote(env.by)}",
            ]
            lines.append(f"game {shlex.quote(env.game_id)} " + " ".join(attrs))
            lines[-1] += " names=" + shlex.quote(",".join(p.name for p in ev.players))
            for key in ("venue", "notes"):
                value = getattr(ev, key)
                if value is not None:
                    lines[-1] += f" {key}={shlex.quote(value)}"
        elif t is E.HandStarted:
            deck_flag = "" if ev.deck is not None else " deck=no"
            order = f" order={','.join(map(str, ev.order))}" if len(ev.order) < seats else ""
            lines.append(f"hand dealer={ev.dealer}{order}{deck_flag}")
            if ev.deck is not None:
                lines.append("deck: " + " ".join(ev.deck))
        elif t is E.CardsDealt:
            for s, h in enumerate(ev.hands):
                lines.append(f"seat{s}: " + (" ".join(h) if h is not None else UNKNOWN))
            lines.append("layout: " + " ".join(ev.layout))
            if ev.bonus_to_pile:
                lines.append("bonus: " + " ".join(ev.bonus_to_pile))
            lines.append("stock: " + (" ".join(ev.stock) if ev.stock is not None else UNKNOWN))
        elif t is E.BonusCardTaken and ev.source == "hand" and ev.replacement is not None:
            if pending_draw is not None:
                lines[pending_draw] += f" draw {ev.replacement}"
                pending_draw = None
        elif E.is_input(ev):
            text = _input_text(ev)
            if text is not None:
                lines.append(text)
                if t is E.CardPlayed and ev.card.startswith("B"):
                    pending_draw = len(lines) - 1
    return "\n".join(lines) + "\n"


def _input_text(ev: Any) -> str | None:
    if type(ev) in (E.GameStarted, E.HandStarted, E.CardsDealt):
        return None  # a script states these in its own lines
    try:
        return notation.text(ev, seat=True)
    except notation.NotationError:
        return None
