"""Money in words: a sale of brights, the transfers of a settlement, a recorded payment that
differs from the computed one."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .. import events as E
from .marks import acts, who


def sale_proof(
    players: Sequence[E.Player],
    seller: int,
    cards: Sequence[str],
    price: int,
    stake: int,
    payers: Sequence[int],
) -> str:
    """The arithmetic of a gwang-pali sale, as a ledger line's proof: brights times the
    ruleset's price per bright times the stake, from each player of the hand."""
    n = len(cards)
    pts = n * price
    return (
        f"gwang-pali: {who(players, seller)} sells {n} bright{'s' * (n != 1)} "
        f"({' '.join(cards)}) at {price} points each (gwang_price): {n} x {price} = {pts} "
        f"points x stake {stake} = {pts * stake} chips from each of "
        f"{', '.join(who(players, s) for s in payers)}"
    )


def transfer_words(players: Sequence[E.Player], transfers: Sequence[Any]) -> str:
    """``Ben pays Ann 340, Cho pays Ann 120`` (transfers as structs or (payer, payee,
    chips)); ``nobody pays anybody`` when every seat is square."""
    out = []
    for tr in transfers:
        payer, payee, chips = (tr.payer, tr.payee, tr.chips) if hasattr(tr, "payer") else tuple(tr)
        out.append(f"{acts(who(players, payer), 'pay')} {who(players, payee)} {chips}")
    return ", ".join(out) if out else "nobody pays anybody"


def settlement_words(
    players: Sequence[E.Player],
    totals: Sequence[int],
    paid: Sequence[int],
    transfers: Sequence[Any],
) -> str:
    """The night's settlement in a sentence: each seat's total (and what was paid during
    the night, when anything was), then the transfers: ``Ann +460, Ben -340, Cho -120;
    Ben pays Ann 340, Cho pays Ann 120``."""
    seats = []
    for s, total in enumerate(totals):
        part = f"{who(players, s)} {total:+d}" if total else f"{who(players, s)} 0"
        if paid[s]:
            part += f" ({paid[s]:+d} paid during the night)"
        seats.append(part)
    return ", ".join(seats) + "; " + transfer_words(players, transfers)


def payment_difference(
    players: Sequence[E.Player],
    payer: int,
    payee: int,
    chips: int,
    due: Sequence[tuple[int, int, int, int, str]],
) -> str | None:
    """How a payment the table made differs from what the rules make due, or None when it is
    what is due. ``due``: the pending dues (payer, payee, points, chips, reason) of the hand."""
    paid = f"{who(players, payer)}->{who(players, payee)} {chips}"
    match = [d for d in due if d[0] == payer and d[1] == payee]
    if not match:
        owed = "; ".join(f"{who(players, d[0])}->{who(players, d[1])} {d[3]}" for d in due)
        return f"{paid}: no payment from {who(players, payer)} to {who(players, payee)} is " + (
            f"due (due: {owed})" if owed else "due"
        )
    _, _, points, owed_chips, reason = match[0]
    if chips == owed_chips:
        return None
    gap = chips - owed_chips
    how = f"{abs(gap)} chip{'s' if abs(gap) != 1 else ''} {'more' if gap > 0 else 'less'}"
    return (
        f"{paid} differs from the {owed_chips} due ({points} point"
        f"{'s' if points != 1 else ''}, {reason}): {how}"
    )
