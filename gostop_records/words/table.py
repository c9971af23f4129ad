"""The table in words: what it waits for, the standings, the fours held, the stock, the
seats that stay and the rate."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from .. import cards as C
from .. import events as E
from ..engine.state import HandState, Phase
from .marks import who
from .payments import transfer_words

#: What the seat that acts does next, after its name ("Ann to play").
PHASE_WORDS = {
    Phase.DEAL: "waits for the deal",
    Phase.PLAY: "to play",
    Phase.FLIP: "to flip",
    Phase.FLIP_AS_PLAY: "to flip (in place of the bonus card)",
    Phase.CUP: "to decide the September cup",
    Phase.DECIDE: "to say Go or Stop",
}

#: What the seat the table waits for does next, after its name, by the table's ``waiting``
#: kind: as a listing of games says it ("Ann to flip"), and as the live table's sentence
#: does ("Ann to flip a card from the stock").
_DOING = {
    "play": ("to play", "to play"),
    "flip": ("to flip", "to flip a card from the stock"),
    "cup": ("to decide the September cup", "to count the September cup as animal or junk"),
    "decide": ("to say Go or Stop", "to say Go or Stop"),
}


def waiting_words(kind: str, seat: int | None, hand: int, players: Sequence[E.Player]) -> str:
    """Where a game stands, from what its table waits for (``GameState.waiting``): a listing
    of games shows it ("hand 2: Ann to play", "between hands: hand 3 to deal")."""
    name = who(players, seat)
    if kind == "over":
        return "over"
    if kind == "settle":
        return "closed: the settlement to pay"
    if kind == "closed":
        return "closed and settled"
    if kind == "pay":
        return f"hand {hand}: payments due"
    if kind == "deal":
        if hand <= 1:
            return "not dealt yet"
        return f"between hands: hand {hand} to deal"
    return f"hand {hand}: {name} {_DOING.get(kind, (kind,))[0]}"


#: The viewer of :func:`describe` that sits at no seat: someone watching the table, told
#: what the table sees (a card drawn into a hand stays hidden) in the third person.
WATCHER = -1


def standings(players: Sequence[E.Player], net: Sequence[int]) -> str:
    """Chips won and lost so far, best first: ``Ann +30, Cho 0, Ben -30 chips``."""
    order = sorted(range(len(net)), key=lambda s: (-net[s], s))
    return (
        ", ".join(
            f"{who(players, s)} {net[s]:+d}" if net[s] else f"{who(players, s)} 0" for s in order
        )
        + " chips"
    )


def table_words(
    kind: str,
    seat: int | None,
    hand: int,
    players: Sequence[E.Player],
    result: str | None,
    net: Sequence[int],
    settled: Sequence[Any] = (),
) -> str:
    """Where a game stands, in a sentence with names, for the live table: what the table
    waits for (``GameState.waiting``) and, between hands or at the end, how the last hand
    ended (``result``, a sentence of :func:`describe`) and the chips won and lost (``net``:
    the night's totals); once the night is closed, the transfers ``settled`` so far."""
    name = who(players, seat)
    ended = _sentence(result.removeprefix("hand over: ")) if result else ""
    if kind == "over":
        return f"The game is over after hand {hand}. {ended}Standing: {standings(players, net)}."
    if kind in ("settle", "closed"):
        paying = "the settlement is being paid" if kind == "settle" else "the settlement is paid"
        if settled:
            paying += f" ({transfer_words(players, settled)})"
        return (
            f"The night is closed after hand {hand}: {paying}. Standing: {standings(players, net)}."
        )
    if kind == "pay":
        # paid now or tallied for the night's settlement: the table decides, the record waits
        return (
            f"Hand {hand} is over. {ended}Its payments are due. "
            f"Standing: {standings(players, net)}."
        )
    if kind == "deal":
        if hand <= 1:
            return f"Hand 1: the deal{f', {name} deals' if seat is not None else ''}."
        return (
            f"Hand {hand - 1} is over. {ended}Standing: {standings(players, net)}. "
            f"Next: hand {hand}, {name} deals."
        )
    return f"Hand {hand}: {name} {_DOING.get(kind, (kind, kind))[1]}."


def _sentence(text: str) -> str:
    """``hand over: Ann wins by Stop`` as a sentence of its own: capitalised, stopped."""
    text = text.strip()
    return (text[:1].upper() + text[1:]).rstrip(".") + ". " if text else ""


def fours_form(reason: str, form: str) -> str:
    """A refusal about fours of a month not shown, with the entry that shows them all."""
    return f"{reason}; enter `{form}` (or `four` alone) to show every four the hands hold"


def fours_held(shown: Any, players: Sequence[E.Player], form: str) -> str:
    """The fours of a month the dealt hands hold, and how to record them (before any play)."""
    by_seat: dict[int, list[str]] = {}
    for f in shown.shown:
        by_seat.setdefault(f.seat, []).append(f"{f.month:02d}")
    held = "; ".join(
        f"{who(players, seat)} holds four of month{'s' if len(ms) > 1 else ''} {' and '.join(ms)}"
        for seat, ms in by_seat.items()
    )
    return f"fours at the deal: {held}: they are shown before any play: `{form}` (or `four`)"


_SEAT = re.compile(r"\bseat (\d+)('s)?")


def named_seats(text: str, players: Sequence[E.Player]) -> str:
    """A message of the rules (which know seats, not names) with each ``seat N`` as its
    player's name: "Ann does not hold 07R: it is in Ben's pile"."""

    def name(m: re.Match[str]) -> str:
        seat = int(m.group(1))
        if seat >= len(players):
            return m.group(0)
        return players[seat].name + (m.group(2) or "")

    return _SEAT.sub(name, text)


def stock_words(h: HandState, face_down: bool = False) -> str:
    """The stock's size, and why it is more than 48 less the deal with bonus cards:
    "22 cards, face down (the deck's 2 bonus cards make 50)"."""
    n = h.stock_remaining()
    extra = h.table.deck_size - C.STANDARD_DECK.bit_count()
    text = f"{n} card{'s' if n != 1 else ''}" + (", face down" if face_down else "")
    if extra:
        text += (
            f" (the deck's {extra} bonus card{'s' if extra != 1 else ''} make {h.table.deck_size})"
        )
    return text


def stays(card: str, consequences: Sequence[Any]) -> bool:
    """Whether a flipped card stayed on the layout: no consequence of its entry (a capture,
    a ppuk, a bonus taken) moved it."""
    for ev in consequences:
        moved = getattr(ev, "cards", None) or ()
        if card in moved or getattr(ev, "card", None) == card:
            return False
    return True


#: Said after a flip that takes nothing and is not taken.
STAYS = "it stays on the layout"


def rate_words(count: int, noun: str, seconds: float) -> str:
    """``in T s (R nouns/s)`` for ``count`` nouns done in ``seconds``, with a rate only when
    the time can bear one: a run under a tenth of a second is told in milliseconds."""
    if seconds < 0.1:
        return f"in {seconds * 1000:.0f} ms"
    return f"in {seconds:.1f} s ({count / seconds:,.0f} {noun}s/s)"
