"""Scripts for ``gostop record`` made from simulated games: every input as its command line."""

from __future__ import annotations

from typing import Any

from gostop_records import events as E
from gostop_records.rules import PRESETS
from gostop_records.sim.selfplay import GameSpec, play_payloads

__all__ = ["command_of", "script_for", "sim_payloads"]


def _take(chosen: str | None) -> str:
    return f" {chosen}" if chosen else ""


def command_of(ev: Any, dealer: int | None = None, hidden: bool = False) -> str | None:
    """The command line that records an input payload; None for what needs no line.

    ``hidden`` records what a live table sees: the layout, not the hands or the stock.
    """
    t = type(ev)
    if t is E.CardsDealt:
        parts = ["deal"]
        if dealer is not None:
            parts.append(f"dealer {dealer}")
        parts.append("layout " + " ".join(ev.layout))
        for seat, hand in enumerate(ev.hands):
            if not hidden:
                parts.append(f"hand {seat}: " + (" ".join(hand) if hand is not None else "?"))
        if ev.stock is not None and not hidden:
            parts.append("stock " + " ".join(ev.stock))
        if ev.bonus_to_pile:
            parts.append("bonus " + " ".join(ev.bonus_to_pile))
        return " ".join(parts)
    if t is E.CardPlayed:
        return f"play {ev.card}{_take(ev.chosen)}"
    if t is E.CardFlipped:
        return f"flip {ev.card}{_take(ev.chosen)}"
    if t is E.Shaken:
        return f"shake {ev.month:02d}" + (" " + " ".join(ev.cards) if hidden else "")
    if t is E.BombPlayed:
        return f"bomb {ev.month:02d}"
    if t is E.FlipOnlyPlayed:
        return "flip-only"
    if t is E.FourOfAMonthShown:
        return "four " + " ".join(f"{f.seat} {f.month:02d}" for f in ev.shown)
    if t is E.CupAssigned:
        return f"cup {ev.role}"
    if t is E.GoCalled:
        return "go"
    if t is E.StopCalled:
        return None if ev.auto else "stop"
    if t is E.PaymentRecorded:
        return f"pay {ev.payer}->{ev.payee} {ev.chips}"
    if t is E.NoteAdded:
        return f"note {ev.text}"
    return None


def sim_payloads(preset: str, players: int, seed: int, hands: int = 1) -> list[Any]:
    """The payloads of a simulated game, in log order."""
    spec = GameSpec(PRESETS[preset], players, hands, seed)
    return [p for _, p in play_payloads(spec)]


def script_for(payloads: list[Any], hidden: bool = False) -> list[str]:
    """The command lines that record the inputs of a game (the deck is not entered)."""
    lines: list[str] = []
    dealer: int | None = None
    for ev in payloads:
        if type(ev) is E.HandStarted:
            dealer = ev.dealer
            continue
        line = command_of(ev, dealer, hidden)
        if type(ev) is E.CardsDealt:
            dealer = None
        if line is not None:
            lines.append(line)
    return lines
