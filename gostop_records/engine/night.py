"""The night's settlement (정산): many tables tally through the night and pay at the end.

A game (a sitting) is closed with ``game_closed``. The rules then derive the settlement
(``settlement_proposed``): each seat's total over all its hands (the dues the rules made,
after caps), what the table recorded as paid during the night (``payment_recorded``), what is
still owed (total minus paid), and the transfers that square what is owed. The table records
what it actually paid with ``settlement_paid``. This module is the one place of those rules;
it is pure (a :class:`~gostop_records.engine.sitting.GameState` in, numbers out). The state
holds the settlement (:class:`~gostop_records.engine.sitting.Night`) and tells which of its
transfers are still open (``GameState.open_transfers``), as it tells the dues still open.

The transfers: the fewest that square what is owed. The seats owed or owing are split into
the most groups that each square among themselves (a seat owed 10 and one owing 10 are a
group of their own), and within a group the largest debtor pays the largest creditor the
smaller of the two amounts (ties by the lower seat) until the group is square: a group of
``k`` seats takes ``k - 1`` transfers, none fewer can do, and a table can check each one by
hand. With at most five seats every split is tried.

Checks (named rules, raised as :class:`~gostop_records.errors.IllegalAction`):

- ``settlement_order``: the night is closed between hands, once a hand has ended; a
  ``settlement_paid`` comes after the close.
- ``game_closed``: nothing is recorded after the close but the settlement's payments, notes,
  an undo and the record's metadata (checkpoints, countersignatures).
- ``settlement_note``: a paid transfer that differs from the proposal (another amount, or a
  pair the proposal does not name, or one already paid) says why in its note.
"""

from __future__ import annotations

from itertools import combinations
from typing import Final

from ..errors import IllegalAction
from .sitting import GameState, Night, Transfer

__all__ = [
    "GAME_CLOSED",
    "SETTLEMENT_NOTE",
    "SETTLEMENT_ORDER",
    "check_close",
    "check_paid",
    "night_of",
    "transfers",
]

#: The rule that nothing but the settlement's payments and notes follow the close.
GAME_CLOSED: Final = "game_closed"
#: The rule that a paid transfer differing from the proposal says why.
SETTLEMENT_NOTE: Final = "settlement_note"
#: The rule that the night is closed between hands, and paid after it is closed.
SETTLEMENT_ORDER: Final = "settlement_order"


def transfers(owed: list[int] | tuple[int, ...]) -> list[Transfer]:
    """The fewest transfers that square ``owed`` (net chips per seat: positive is owed to the
    seat, negative owed by it; the sum is 0), see the module docstring.

    >>> transfers([10, 20, -10, -20])
    [(2, 0, 10), (3, 1, 20)]
    """
    if sum(owed) != 0:
        raise ValueError(f"the nets do not sum to 0: {list(owed)}")
    out: list[Transfer] = []
    for group in _square_groups(owed, [s for s, v in enumerate(owed) if v]):
        out.extend(_within(owed, group))
    return out


def _square_groups(owed: list[int] | tuple[int, ...], seats: list[int]) -> list[list[int]]:
    """``seats`` split into the most groups whose nets each sum to 0 (every split tried,
    the first found in seat order kept)."""
    if not seats:
        return []
    first, rest = seats[0], seats[1:]
    best: list[list[int]] = [seats]
    for size in range(len(rest)):
        for others in combinations(rest, size):
            group = [first, *others]
            if sum(owed[s] for s in group) != 0:
                continue
            split = [group, *_square_groups(owed, [s for s in rest if s not in others])]
            if len(split) > len(best):
                best = split
    return best


def _within(owed: list[int] | tuple[int, ...], group: list[int]) -> list[Transfer]:
    """A group that squares among itself, squared by the largest debtor paying the largest
    creditor: ``len(group) - 1`` transfers at most."""
    bal = {s: owed[s] for s in group}
    out: list[Transfer] = []
    while True:
        debtor = min(group, key=lambda s: (bal[s], s))
        creditor = max(group, key=lambda s: (bal[s], -s))
        if bal[debtor] >= 0 or bal[creditor] <= 0:
            return out
        chips = min(-bal[debtor], bal[creditor])
        out.append((debtor, creditor, chips))
        bal[debtor] += chips
        bal[creditor] -= chips


def night_of(g: GameState) -> Night:
    """The settlement of a game as it stands (between hands)."""
    totals = g.ledger()
    paid = g.recorded_ledger()
    owed = [t - p for t, p in zip(totals, paid, strict=True)]
    return Night(tuple(totals), tuple(paid), tuple(owed), tuple(transfers(owed)))


def check_close(g: GameState) -> None:
    """Refuse a ``game_closed`` the rules do not allow now."""
    if g.night is not None:
        raise IllegalAction(GAME_CLOSED, "the night is closed already")
    if g.in_hand:
        raise IllegalAction(
            SETTLEMENT_ORDER, f"hand {g.hand_no} is still in progress: close the night after it"
        )
    if not g.results:
        raise IllegalAction(SETTLEMENT_ORDER, "no hand has ended: there is nothing to settle")


def check_paid(g: GameState, payer: int, payee: int, chips: int, note: str | None) -> None:
    """Refuse a ``settlement_paid`` the rules do not allow: before the close, between
    seats that do not exist, or differing from the proposal without a note."""
    n = g.table.players
    if payer >= n or payee >= n or payer == payee:
        raise IllegalAction("payment", f"a payment from seat {payer} to seat {payee}")
    if g.night is None:
        raise IllegalAction(
            SETTLEMENT_ORDER, "the night is not closed: close it first (settle), then pay"
        )
    if (note or "").strip():
        return
    for p, q, c in g.open_transfers():
        if p == payer and q == payee:
            if c == chips:
                return
            raise IllegalAction(
                SETTLEMENT_NOTE,
                f"the settlement proposes seat {payer} pays seat {payee} {c}, not {chips}: "
                f"a different amount needs a note saying why "
                f"(settle pay {payer}->{payee} {chips} NOTE)",
            )
    raise IllegalAction(
        SETTLEMENT_NOTE,
        f"the settlement proposes no open transfer from seat {payer} to seat {payee}: "
        f"it needs a note saying why (settle pay {payer}->{payee} {chips} NOTE)",
    )
