"""An input payload written as the line that parses back to it."""

from __future__ import annotations

from typing import Any

from .. import events as E
from .line import NotationError


def text(payload: Any, *, seat: bool = False) -> str:
    """The line of an input payload, which :func:`parse` reads back to it in the state it was
    entered in. ``seat`` writes the seat of a seat's input first (``0 play 08G``), as scripts
    do. Raises :class:`NotationError` for a consequence or ``game_started`` (no table input)."""
    t = type(payload)
    who = f"{payload.seat} " if seat and hasattr(payload, "seat") else ""
    if t is E.CardPlayed or t is E.CardFlipped:
        verb = "play" if t is E.CardPlayed else "flip"
        take = f" {payload.chosen}" if payload.chosen else ""
        return f"{who}{verb} {payload.card}{take}"
    if t is E.FlipOnlyPlayed:
        return f"{who}flip-only"
    if t is E.Shaken or t is E.BombPlayed:
        verb = "shake" if t is E.Shaken else "bomb"
        return f"{who}{verb} {payload.month:02d} " + " ".join(payload.cards)
    if t is E.FourOfAMonthShown:
        return "four " + " ".join(f"{f.seat} {f.month:02d}" for f in payload.shown)
    if t is E.FourKept:
        return f"keep {payload.seat}"
    if t is E.ShakeDeclined:
        return f"{who}noshake {payload.month:02d}"
    if t is E.CupAssigned:
        return f"{who}cup {payload.role}"
    if t is E.GoCalled:
        return f"{who}go"
    if t is E.StopCalled and not payload.auto:
        return f"{who}stop"
    if t is E.PaymentRecorded:
        note = f" {payload.note}" if payload.note else ""
        return f"pay {payload.payer}->{payload.payee} {payload.chips}{note}"
    if t is E.GameClosed:
        return "settle" + (f" note {payload.note}" if payload.note else "")
    if t is E.SettlementPaid:
        note = f" {payload.note}" if payload.note else ""
        return f"settle pay {payload.payer}->{payload.payee} {payload.chips}{note}"
    if t is E.NoteAdded:
        about = f"@{payload.about_seq} " if payload.about_seq is not None else ""
        return f"note {about}{payload.text}"
    if t is E.EntryRetracted:
        return f"undo @{payload.seq}" + (f" {payload.reason}" if payload.reason else "")
    if t is E.HandStarted:
        deck = " deck " + " ".join(payload.deck) if payload.deck else ""
        # a hand of three names its players: at 4 or 5 seats they are three of the seats
        o = payload.order
        order = " order " + " ".join(map(str, o)) if len(o) == 3 else ""
        return f"hand dealer {payload.dealer}{order}{deck}"
    if t is E.BrightsSold:
        return f"{payload.seat} sell " + " ".join(payload.cards)
    if t is E.ChipsCounted:
        return "chips " + " ".join(map(str, payload.chips))
    if t is E.DealerDrawn:
        draws = " ".join(f"{d.seat} {d.card}" for d in payload.draws)
        lot = f" lot {payload.dealer}" if payload.by_lot else ""
        return f"draw {'night' if payload.night else 'day'} {draws}{lot}"
    if t is E.CardsDealt:
        parts = ["deal layout " + " ".join(payload.layout)]
        for s, held in enumerate(payload.hands):
            if held is not None:
                parts.append(f"hand {s} " + " ".join(held))
        if payload.stock is not None:
            parts.append("stock " + " ".join(payload.stock))
        if payload.bonus_to_pile:
            parts.append("bonus " + " ".join(payload.bonus_to_pile))
        return " ".join(parts)
    raise NotationError(f"{E.event_type(payload)} is not a table input: the rules derive it")
