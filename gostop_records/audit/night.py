"""The audit of the night's settlement (정산): each seat's total itemised by hand, from the
dues of each hand's proof (after caps) as the hand audits show them, and every paid transfer
(``settlement_paid``) set beside the proposal. A paid transfer that differs (another amount,
or a transfer the proposal does not name) is flagged, whatever its note says: the note is
shown with it, as the table's reason."""

from __future__ import annotations

from collections.abc import Collection, Sequence

from .. import events as E
from ..engine.game import GameState
from .model import (
    AGREED,
    DIFFERS,
    UNRECORDED,
    SettlementAudit,
    SettlementItem,
    SettlementSeat,
    TransferCheck,
)

__all__ = ["audit_settlement"]


def audit_settlement(
    game: GameState, envs: Sequence[E.Envelope], retracted: Collection[int]
) -> SettlementAudit | None:
    """The settlement's audit of a closed game (None when the night is not closed)."""
    night = game.night
    if night is None:
        return None
    live = [e for e in envs if e.seq not in retracted]
    closed_seq = max(e.seq for e in live if type(e.event) is E.GameClosed)
    n = game.table.players
    items: list[list[SettlementItem]] = [[] for _ in range(n)]
    by_hand: list[dict[int, int]] = [{} for _ in range(n)]
    for r in game.results:
        for payer, payee, _pts, chips, why in r.dues:
            item = SettlementItem(r.hand, payer, payee, chips, why)
            for seat, sign in ((payer, -1), (payee, 1)):
                items[seat].append(item)
                by_hand[seat][r.hand] = by_hand[seat].get(r.hand, 0) + sign * chips
    seats = tuple(
        SettlementSeat(
            seat=s,
            total=night.totals[s],
            paid_during_night=night.paid[s],
            owed=night.owed[s],
            by_hand=tuple(sorted(by_hand[s].items())),
            items=tuple(items[s]),
        )
        for s in range(n)
    )
    open_ = list(night.transfers)
    checks: list[TransferCheck] = []
    for e in live:
        ev = e.event
        if type(ev) is not E.SettlementPaid or e.seq < closed_seq:
            continue
        match = next(
            (k for k, t in enumerate(open_) if t[0] == ev.payer and t[1] == ev.payee), None
        )
        if match is None:
            checks.append(
                TransferCheck(ev.payer, ev.payee, None, ev.chips, DIFFERS, e.seq, ev.note, ev.chips)
            )
            continue
        proposed = open_.pop(match)[2]
        status = AGREED if ev.chips == proposed else DIFFERS
        checks.append(
            TransferCheck(
                ev.payer,
                ev.payee,
                proposed,
                ev.chips,
                status,
                e.seq,
                ev.note,
                ev.chips - proposed,
            )
        )
    checks.extend(TransferCheck(p, q, c, None, UNRECORDED) for p, q, c in open_)
    return SettlementAudit(closed_seq, seats, tuple(checks))
