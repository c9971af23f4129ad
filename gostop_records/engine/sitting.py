"""What a sitting of hands holds between inputs: its seats, the hand in progress, the
results of the hands played (:class:`HandResult`), who deals next, the nagari carry, the
chips and the ledger (:class:`GameState`), what the table waits for (:class:`Waiting`), and
the night's settlement once the night is closed (:class:`Night`, derived by :mod:`.night`).
:mod:`.game` applies the inputs to it.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..events import (
    Player,
)
from ..rules import ChipLimit, FirstDealer, Ruleset
from .deal import first_play_pending
from .settlement import Proof, settle
from .state import HandState, Phase
from .table import Table
from .turn import facts_of

__all__ = ["GameState", "HandResult", "Night", "Transfer", "Waiting"]


class HandResult:
    """How a hand ended and what the rules made due. Never changed once made."""

    __slots__ = (
        "carry",
        "dealer",
        "dues",
        "hand",
        "next_carry",
        "outcome",
        "reason",
        "state",
        "winner",
    )

    def __init__(
        self,
        hand: int,
        dealer: int,
        outcome: str,
        winner: int | None,
        reason: str,
        carry: int,
        next_carry: int,
        dues: tuple[tuple[int, int, int, int, str], ...],  # payer, payee, points, chips, reason
        state: HandState | None = None,  # the final hand state: piles, counters, for proofs
    ) -> None:
        self.hand = hand
        self.dealer = dealer
        self.outcome = outcome
        self.winner = winner
        self.reason = reason
        self.carry = carry
        self.next_carry = next_carry
        self.dues = dues
        self.state = state

    def __repr__(self) -> str:
        return (
            f"HandResult(hand={self.hand}, dealer={self.dealer}, outcome={self.outcome!r}, "
            f"winner={self.winner}, reason={self.reason!r}, carry={self.carry}, "
            f"next_carry={self.next_carry}, dues={self.dues!r})"
        )

    def proof(self) -> Proof | None:
        """The payout proof of a hand won by a Stop (the one its settlement made)."""
        if self.outcome != "stop" or self.state is None or self.winner is None:
            return None
        if self.state.proof is not None:
            return self.state.proof  # type: ignore[no-any-return]
        return settle(self.state.table, facts_of(self.state, self.winner))


@dataclass(frozen=True, slots=True)
class Waiting:
    """What the table waits for next, and who acts.

    ``kind``: ``deal`` (the next hand's deal), ``play``, ``flip``, ``cup`` (the September
    cup's holder decides animal or junk), ``decide`` (Go or Stop), ``pay`` (the payments of a
    finished hand), ``over`` (a single-hand game has ended), ``settle`` (the night is closed:
    the settlement's transfers are to be paid), ``closed`` (closed and paid).
    """

    kind: str
    seat: int | None
    hand: int
    options: tuple[str, ...] = ()


Transfer = tuple[int, int, int]  # payer, payee, chips


@dataclass(frozen=True, slots=True)
class Night:
    """A night's settlement (:mod:`.night` derives it): per seat ``totals`` (net chips over
    all hands, after caps), ``paid`` (net chips recorded as paid during the night), ``owed``
    (totals minus paid) and the ``transfers`` that square ``owed``."""

    totals: tuple[int, ...]
    paid: tuple[int, ...]
    owed: tuple[int, ...]
    transfers: tuple[Transfer, ...]


class GameState:
    """A game in progress. Treated as immutable: :func:`apply_game` returns a copy.

    A plain class with its own ``__init__`` (see :class:`HandResult`): a fold copies the
    state at every hand's start."""

    __slots__ = (
        "broke",
        "carry",
        "chips",
        "deck",
        "draw_tied",
        "draw_ties",
        "finished",
        "game_id",
        "hand",
        "hand_dues",
        "hand_no",
        "next_dealer",
        "night",
        "notes",
        "payments",
        "players",
        "results",
        "rules",
        "sales",
        "sat_out",
        "settled",
        "shortfalls",
        "stake",
        "table",
    )

    def __init__(
        self,
        game_id: str,
        rules: Ruleset,
        table: Table,
        players: tuple[Player, ...],
        stake: int,
        hand: HandState | None = None,
        hand_no: int = 0,
        deck: int | None = None,
        carry: int = 1,
        next_dealer: int | None = None,
        results: tuple[HandResult, ...] = (),
        # hand, payer, payee, chips (recorded)
        payments: tuple[tuple[int, int, int, int], ...] = (),
        finished: bool = False,
        notes: tuple[tuple[int | None, str], ...] = (),
        # the table around the hand (rulebook/seats.py): 4-5 seats, gwang-pali, chips, the draw
        sat_out: tuple[int, ...] = (),  # seats sitting out the hand in progress
        sales: tuple[tuple[int, int, tuple[str, ...]], ...] = (),  # hand, seller, brights sold
        # this hand's dues paid so far (sales, instant payments), as the chips allowed them
        hand_dues: tuple[tuple[int, int, int, int, str], ...] = (),
        chips: tuple[int, ...] | None = None,  # chips counted at the start of the sitting
        shortfalls: tuple[tuple[int, int, int, int, int, str], ...] = (),  # hand + a capped due
        draw_tied: tuple[int, ...] = (),  # seats that tied in the draw for the first deal
        broke: tuple[int, ...] = (),  # seats left with no chips: the sitting ended
        draw_ties: int = 0,  # tied draws for the first deal so far (draw_ties_by_lot)
        night: Night | None = None,  # the settlement, once the night is closed
        settled: tuple[tuple[int, int, int, str | None], ...] = (),  # settlement_paid
    ) -> None:
        self.game_id = game_id
        self.rules = rules
        self.table = table
        self.players = players
        self.stake = stake
        self.hand = hand
        self.hand_no = hand_no
        self.deck = deck
        self.carry = carry
        self.next_dealer = next_dealer
        self.results = results
        self.payments = payments
        self.finished = finished
        self.notes = notes
        self.sat_out = sat_out
        self.sales = sales
        self.hand_dues = hand_dues
        self.chips = chips
        self.shortfalls = shortfalls
        self.draw_tied = draw_tied
        self.broke = broke
        self.draw_ties = draw_ties
        self.night = night
        self.settled = settled

    def copy(self, deep: bool = False) -> GameState:
        """A copy; ``deep`` also copies the hand in progress (for in-place folds)."""
        hand = self.hand
        if deep and hand is not None:
            hand = hand.copy()
        return GameState(
            self.game_id,
            self.rules,
            self.table,
            self.players,
            self.stake,
            hand,
            self.hand_no,
            self.deck,
            self.carry,
            self.next_dealer,
            self.results,
            self.payments,
            self.finished,
            self.notes,
            self.sat_out,
            self.sales,
            self.hand_dues,
            self.chips,
            self.shortfalls,
            self.draw_tied,
            self.broke,
            self.draw_ties,
            self.night,
            self.settled,
        )

    @property
    def in_hand(self) -> bool:
        return self.hand is not None and self.hand.phase is not Phase.ENDED

    def ledger(self) -> list[int]:
        """Net chips per seat from every payment the rules made due so far."""
        net = [0] * self.table.players
        for r in self.results:
            for payer, payee, _pts, chips, _why in r.dues:
                net[payer] -= chips
                net[payee] += chips
        if self.hand is not None and self.hand.phase is not Phase.ENDED:
            for payer, payee, _pts, chips, _why in self.hand_dues:
                net[payer] -= chips
                net[payee] += chips
        return net

    def holdings(self) -> list[int] | None:
        """Chips each seat holds now: those counted at the start plus the ledger (None when
        the table counted no chips)."""
        if self.chips is None:
            return None
        return [c + d for c, d in zip(self.chips, self.ledger(), strict=True)]

    def table_entries(self) -> list[str]:
        """The entries of the table around the hand that the rules wait for or allow now:
        ``chips`` and ``draw`` before the first hand, ``sell`` while a seat sitting out may
        sell its brights (after the deal, before the first play, once a hand)."""
        rules = self.rules
        out: list[str] = []
        if self.hand_no == 0:
            limited = rules.chip_limit is not ChipLimit.NONE or rules.end_when_broke
            if self.chips is None and limited:
                out.append("chips")
            if rules.first_dealer is FirstDealer.DRAW and self.next_dealer is None:
                out.append("draw")
        if self.sellers():
            out.append("sell")
        return out

    def sellers(self) -> list[int]:
        """The seats sitting out that may sell their brights now (gwang-pali)."""
        h = self.hand
        if not self.rules.gwang_price or h is None or not self.in_hand:
            return []
        if not first_play_pending(h):
            return []
        sold = {seat for hand, seat, _ in self.sales if hand == self.hand_no}
        return [seat for seat in self.sat_out if seat not in sold]

    def waiting(self) -> Waiting:
        """What the table waits for next, and who acts (see :class:`Waiting`)."""
        h = self.hand
        if h is not None and h.phase is not Phase.ENDED:
            p = h.phase
            if p is Phase.DEAL:
                return Waiting("deal", h.dealer, h.hand_no)
            if p is Phase.PLAY:
                return Waiting("play", h.turn_seat, h.hand_no)
            if p in (Phase.FLIP, Phase.FLIP_AS_PLAY):
                return Waiting("flip", h.turn_seat, h.hand_no)
            if p is Phase.CUP:
                return Waiting("cup", h.decider, h.hand_no, ("animal", "junk"))
            return Waiting("decide", h.decider, h.hand_no, ("go", "stop"))
        if self.night is not None:
            if self.open_transfers():
                return Waiting("settle", None, self.hand_no)
            return Waiting("closed", None, self.hand_no)
        if self.pending_dues():
            return Waiting("pay", None, self.hand_no)
        if self.finished:
            return Waiting("over", None, self.hand_no)
        return Waiting("deal", self.next_dealer, self.hand_no + 1)

    @property
    def closed(self) -> bool:
        """Whether the night is closed (``game_closed``): no hand follows."""
        return self.night is not None

    def can_close(self) -> bool:
        """Whether the night can be closed now (between hands, once a hand has ended)."""
        return self.night is None and not self.in_hand and bool(self.results)

    def pending_dues(self) -> list[tuple[int, int, int, int, int, str]]:
        """Payments due in the latest hand that no recorded payment answers yet: (hand,
        payer, payee, points, chips, reason) each.

        A recorded payment from the same payer to the same payee answers a due whatever its
        amount: a different amount is the table's record, for the audit to compare.
        """
        if not self.hand_no:
            return []
        dues: list[tuple[int, int, int, int, str]]
        res = next((r for r in reversed(self.results) if r.hand == self.hand_no), None)
        if res is not None:
            dues = list(res.dues)
        elif self.hand is not None:
            dues = list(self.hand_dues)
        else:
            return []
        open_ = [d for d in dues if d[3] > 0]
        for hand, payer, payee, _chips in self.payments:
            if hand != self.hand_no:
                continue
            for k, d in enumerate(open_):
                if d[0] == payer and d[1] == payee:
                    del open_[k]
                    break
        return [(self.hand_no, *d) for d in open_]

    def open_transfers(self) -> list[Transfer]:
        """The settlement's proposed transfers no ``settlement_paid`` answers yet (a paid
        transfer answers the first open one of the same payer and payee, whatever its
        amount)."""
        night = self.night
        if night is None:
            return []
        open_ = list(night.transfers)
        for payer, payee, _chips, _note in self.settled:
            for k, t in enumerate(open_):
                if t[0] == payer and t[1] == payee:
                    del open_[k]
                    break
        return open_

    def recorded_ledger(self) -> list[int]:
        """Net chips per seat from what the table recorded as paid."""
        net = [0] * self.table.players
        for _h, payer, payee, chips in self.payments:
            net[payer] -= chips
            net[payee] += chips
        return net
