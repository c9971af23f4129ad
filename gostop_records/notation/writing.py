"""An input payload written as the line that parses back to it.

:data:`_WRITERS` maps each input class to its line; a test holds it to the input classes."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .. import events as E
from .line import NotationError

#: Writes a payload's line; the second argument is the seat prefix (``"0 "``, or ``""``).
Writer = Callable[[Any, str], str]


def text(payload: Any, *, seat: bool = False) -> str:
    """The line of an input payload, which :func:`parse` reads back to it in the state it was
    entered in. ``seat`` writes the seat of a seat's input first (``0 play 08G``), as scripts
    do. Raises :class:`NotationError` for a consequence or ``game_started`` (no table input)."""
    write = _WRITERS.get(type(payload))
    if write is None or not E.is_input(payload):
        raise NotationError(f"{E.event_type(payload)} is not a table input: the rules derive it")
    who = f"{payload.seat} " if seat and hasattr(payload, "seat") else ""
    return write(payload, who)


def _card(ev: E.CardPlayed | E.CardFlipped, who: str) -> str:
    verb = "play" if type(ev) is E.CardPlayed else "flip"
    take = f" {ev.chosen}" if ev.chosen else ""
    return f"{who}{verb} {ev.card}{take}"


def _month_cards(ev: E.Shaken | E.BombPlayed, who: str) -> str:
    verb = "shake" if type(ev) is E.Shaken else "bomb"
    return f"{who}{verb} {ev.month:02d} " + " ".join(ev.cards)


def _payer_payee(ev: E.PaymentRecorded | E.SettlementPaid) -> str:
    note = f" {ev.note}" if ev.note else ""
    return f"{ev.payer}->{ev.payee} {ev.chips}{note}"


def _hand(ev: E.HandStarted, who: str) -> str:
    deck = " deck " + " ".join(ev.deck) if ev.deck else ""
    # a hand of three names its players: at 4 or 5 seats they are three of the seats
    order = " order " + " ".join(map(str, ev.order)) if len(ev.order) == 3 else ""
    return f"hand dealer {ev.dealer}{order}{deck}"


def _deal(ev: E.CardsDealt, who: str) -> str:
    parts = ["deal layout " + " ".join(ev.layout)]
    parts += [f"hand {s} " + " ".join(held) for s, held in enumerate(ev.hands) if held is not None]
    if ev.stock is not None:
        parts.append("stock " + " ".join(ev.stock))
    if ev.bonus_to_pile:
        parts.append("bonus " + " ".join(ev.bonus_to_pile))
    return " ".join(parts)


def _draw(ev: E.DealerDrawn, who: str) -> str:
    draws = " ".join(f"{d.seat} {d.card}" for d in ev.draws)
    lot = f" lot {ev.dealer}" if ev.by_lot else ""
    return f"draw {'night' if ev.night else 'day'} {draws}{lot}"


def _note(ev: E.NoteAdded, who: str) -> str:
    about = f"@{ev.about_seq} " if ev.about_seq is not None else ""
    return f"note {about}{ev.text}"


_WRITERS: dict[type, Writer] = {
    E.CardPlayed: _card,
    E.CardFlipped: _card,
    E.FlipOnlyPlayed: lambda ev, who: f"{who}flip-only",
    E.Shaken: _month_cards,
    E.BombPlayed: _month_cards,
    E.FourOfAMonthShown: lambda ev, who: (
        "four " + " ".join(f"{f.seat} {f.month:02d}" for f in ev.shown)
    ),
    E.FourKept: lambda ev, who: f"keep {ev.seat}",
    E.ShakeDeclined: lambda ev, who: f"{who}noshake {ev.month:02d}",
    E.CupAssigned: lambda ev, who: f"{who}cup {ev.role}",
    E.GoCalled: lambda ev, who: f"{who}go",
    E.StopCalled: lambda ev, who: f"{who}stop",
    E.PaymentRecorded: lambda ev, who: f"pay {_payer_payee(ev)}",
    E.GameClosed: lambda ev, who: "settle" + (f" note {ev.note}" if ev.note else ""),
    E.SettlementPaid: lambda ev, who: f"settle pay {_payer_payee(ev)}",
    E.NoteAdded: _note,
    E.EntryRetracted: lambda ev, who: f"undo @{ev.seq}" + (f" {ev.reason}" if ev.reason else ""),
    E.HandStarted: _hand,
    E.BrightsSold: lambda ev, who: f"{ev.seat} sell " + " ".join(ev.cards),
    E.ChipsCounted: lambda ev, who: "chips " + " ".join(map(str, ev.chips)),
    E.DealerDrawn: _draw,
    E.CardsDealt: _deal,
}
