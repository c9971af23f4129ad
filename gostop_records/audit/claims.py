"""Claims: "PAYER->PAYEE=CHIPS", what a player says was (or should be) paid.

A claim names its payer and payee by seat number (``1``, ``seat1``, ``seat 1``) or by the
player's id or display name from ``game_started`` (case-insensitive), so that the people at
the table can write it as they talk: ``--claim "Kim->Lee=2400"``.

Parsing is split from resolving: the syntax is checked before any log is read, the names
once the seats are known. Both fail with :class:`ClaimError`, a usage error.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from ..errors import GostopError
from .model import Seat

__all__ = ["AuditArgumentError", "Claim", "ClaimError", "parse_claim"]

CLAIM_FORM = "PAYER->PAYEE=CHIPS (payer and payee as seat numbers, player ids or names)"
_SEAT = re.compile(r"^(?:seat\s*)?(\d+)$", re.IGNORECASE)


class AuditArgumentError(GostopError, ValueError):
    """An argument of the audit does not fit the game (a hand it does not have, ...)."""


class ClaimError(AuditArgumentError):
    """A claim that cannot be read, or names a player the game does not have."""


@dataclass(frozen=True, slots=True)
class Claim:
    """A claimed payment as written; :meth:`resolve` turns the names into seats."""

    text: str
    payer: str
    payee: str
    chips: int

    def resolve(self, seats: Sequence[Seat]) -> tuple[int, int]:
        """(payer seat, payee seat); raises :class:`ClaimError` naming the unknown player."""
        payer = _seat_of(self.payer, seats, self.text)
        payee = _seat_of(self.payee, seats, self.text)
        if payer == payee:
            raise ClaimError(f"claim {self.text!r}: the payer and the payee are both seat {payer}")
        return payer, payee


def parse_claim(text: str) -> Claim:
    """Read ``PAYER->PAYEE=CHIPS``; raises :class:`ClaimError` with the expected form."""
    raw = text.strip()
    left, eq, amount = raw.rpartition("=")
    payer, arrow, payee = left.partition("->")
    payer, payee, amount = payer.strip(), payee.strip(), amount.strip()
    if not eq or not arrow or not payer or not payee or not amount:
        raise ClaimError(f'claim {text!r} is not of the form {CLAIM_FORM}, e.g. "1->0=2400"')
    if not amount.isdecimal():
        raise ClaimError(
            f"claim {text!r}: chips must be a whole number of chips (0 or more), not {amount!r}"
        )
    return Claim(raw, payer, payee, int(amount))


def _seat_of(ref: str, seats: Sequence[Seat], text: str) -> int:
    m = _SEAT.match(ref)
    if m:
        n = int(m.group(1))
        if any(s.seat == n for s in seats):
            return n
        raise ClaimError(
            f"claim {text!r}: there is no seat {n}; seats are "
            + ", ".join(str(s.seat) for s in seats)
        )
    key = ref.casefold()
    by_id = [s.seat for s in seats if s.id.casefold() == key]
    if len(by_id) == 1:
        return by_id[0]
    by_name = [s.seat for s in seats if s.name.casefold() == key]
    if len(by_name) == 1:
        return by_name[0]
    if len(by_id) > 1 or len(by_name) > 1:
        raise ClaimError(f"claim {text!r}: {ref!r} names several seats; use a seat number")
    known = ", ".join(f"{s.seat} = {s.id} ({s.name})" for s in seats)
    raise ClaimError(f"claim {text!r}: no player is called {ref!r}; the seats are {known}")
