"""What a sentence is made of, whatever it tells: the parts a display may highlight
(:class:`Marks`, :data:`PLAIN`), a seat by its player's name, the subject and its verb
(``Ann plays``, ``you play``), a pile by kind."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from .. import cards as C
from .. import events as E
from ..engine.state import HandState
from ..names import is_sealed


class Marks(Protocol):
    """How a display marks the parts of a sentence it may highlight. ``role`` is ``ppuk``,
    ``call`` (a Go or a Stop), ``outcome`` (a hand's end) or ``heading``."""

    def card(self, code: str) -> str: ...

    def cards(self, codes: Sequence[str]) -> str: ...

    def mark(self, text: str, role: str) -> str: ...


class _Plain:
    """Marks that leave the text as it is."""

    def card(self, code: str) -> str:
        return code

    def cards(self, codes: Sequence[str]) -> str:
        return " ".join(codes) if codes else "-"

    def mark(self, text: str, role: str) -> str:
        return text


PLAIN: Marks = _Plain()


def pile_groups(h: HandState, seat: int) -> list[tuple[str, list[str]]]:
    """A seat's pile by kind, as a display names it: (``brights``, codes), (``animals``, ...),
    (``ribbons``, ...), (``junk``, ...), the kinds it holds none of left out."""
    pile = h.piles[seat]
    kinds = (
        ("brights", C.BRIGHTS),
        ("animals", C.ANIMALS),
        ("ribbons", C.RIBBONS),
        ("junk", h.table.stealable),
    )
    return [(label, got) for label, mask in kinds if (got := C.codes(pile & mask))]


def seat_name(players: Sequence[E.Player], seat: int | None) -> str:
    """``Ann (seat 0)``; just ``seat N`` when the seat has no player."""
    if seat is None:
        return "nobody"
    if 0 <= seat < len(players):
        return f"{players[seat].name} (seat {seat})"
    return f"seat {seat}"


def who(players: Sequence[E.Player], seat: int | None) -> str:
    """A seat by its player's name; ``seat N`` without one (or with a name sealed in a log
    read as stored, see ``names``), ``nobody`` for no seat."""
    if seat is not None and 0 <= seat < len(players):
        name = players[seat].name
        if name and not is_sealed(name):
            return name
    return "nobody" if seat is None else f"seat {seat}"


def acts(name: str, verb: str) -> str:
    """``Ben plays``, but ``You play``: a player named "You" (the default name of the person
    at ``gostop play``) is told in the second person."""
    return f"{name} {verb}" if name.lower() == "you" else f"{name} {verb}s"


def subject_of(players: Sequence[E.Player], viewer: int | None, seat: int | None, verb: str) -> str:
    """``you play`` for the viewer's seat, ``Ben plays`` for another (with no viewer, every
    seat in the third person)."""
    if seat is not None and seat == viewer:
        return f"you {verb}"
    return acts(who(players, seat), verb)


def object_of(players: Sequence[E.Player], viewer: int | None, seat: int | None) -> str:
    """``you`` for the viewer's seat, the player's name for another."""
    return "you" if seat is not None and seat == viewer else who(players, seat)
