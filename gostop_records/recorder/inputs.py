"""The table's inputs as methods of a session, one per input (``play``, ``flip``, ``go``,
``pay`` ...): each builds its payload from the state (the seat that acts, the cards a
shake shows) and records it through :meth:`RecordingSession.record`."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .. import cards as C
from .. import events as E
from .. import notation
from ..engine.state import HandState, Phase
from ..errors import IllegalAction
from ..notation import card_code
from .answers import Entry
from .view import GameView

_MM = C.MONTH_MASKS


class TableInputs(GameView):
    """The inputs of :class:`~.session.RecordingSession`, one method each, written against
    the little a session supplies: its state (:class:`GameView`), its last seq and
    :meth:`record`."""

    @property
    def last_seq(self) -> int:
        raise NotImplementedError

    def record(self, payload: Any) -> Entry:
        raise NotImplementedError

    def record_all(self, payloads: Sequence[Any]) -> list[Entry]:
        raise NotImplementedError

    def start_hand(self, dealer: int | None = None) -> Entry:
        """``hand_started``: the next hand; the dealer is the rules' (the winner deals),
        ``dealer`` for the first hand (default seat 0)."""
        return self.record(self._hand_started(dealer))

    def _hand_started(self, dealer: int | None) -> E.HandStarted:
        return notation.hand_started(self.game, dealer)

    def needs_hand_start(self) -> bool:
        g = self.game
        return g.hand is None or g.hand.phase is Phase.ENDED

    def deal(
        self,
        layout: Sequence[str],
        hands: Sequence[Sequence[str] | None] | None = None,
        stock: Sequence[str] | None = None,
        bonus_to_pile: Sequence[str] = (),
        *,
        dealer: int | None = None,
    ) -> list[Entry]:
        """``cards_dealt`` (starting the hand first when needed): the face-up layout is
        required; a hand or the stock left out (None) is unknown to the record."""
        g = self.game
        n = g.table.players
        hs = list(hands) if hands is not None else [None] * n
        if len(hs) != n:
            raise IllegalAction("deal_shape", f"{len(hs)} hands listed for {n} players")
        deal = E.CardsDealt(
            hands=[None if h is None else [card_code(c) for c in h] for h in hs],
            layout=[card_code(c) for c in layout],
            stock=None if stock is None else [card_code(c) for c in stock],
            bonus_to_pile=[card_code(c) for c in bonus_to_pile],
        )
        if self.needs_hand_start():
            return self.record_all([self._hand_started(dealer), deal])
        if dealer is not None and g.hand is not None and dealer != g.hand.dealer:
            raise IllegalAction(
                "dealer", f"hand {g.hand_no} was started with seat {g.hand.dealer} dealing"
            )
        return [self.record(deal)]

    def play(self, card: str, chosen: str | None = None) -> Entry:
        """``card_played`` by the seat to play; ``chosen`` when two layout cards match."""
        return self._card_move(E.CardPlayed, "play", card, chosen)

    def flip(self, card: str, chosen: str | None = None) -> Entry:
        """``card_flipped``: the stock card the mover turned."""
        return self._card_move(E.CardFlipped, "flip", card, chosen)

    def _card_move(
        self,
        kind: type[E.CardPlayed] | type[E.CardFlipped],
        step: str,
        card: str,
        chosen: str | None,
    ) -> Entry:
        """A card played or flipped by the mover, ``chosen`` the layout card it takes."""
        seat = seat_expected(self.actor, step)
        return self.record(
            kind(
                seat=seat,
                card=card_code(card),
                chosen=None if chosen is None else card_code(chosen),
            )
        )

    def bomb(self, month: int, cards: Sequence[str] | None = None) -> Entry:
        """``bomb_played``: the mover's cards of ``month`` (the ones not on the layout)."""
        seat = seat_expected(self.actor, "bomb")
        _month_ok(month)
        h = self.hand
        assert h is not None
        codes = [card_code(c) for c in cards] if cards else notation.bomb_cards(h, seat, month)
        return self.record(E.BombPlayed(seat=seat, month=month, cards=codes))

    def shake_cards(self, month: int) -> list[str] | None:
        """The three cards the mover can shake in ``month``, when the record knows them."""
        h = self.hand
        seat = self.actor
        if h is None or seat is None:
            return None
        return notation.shake_cards(h, seat, month)

    def shake(self, month: int, cards: Sequence[str] | None = None) -> Entry:
        """``shaken``: the mover shows three cards of ``month`` (named when unknown)."""
        seat = seat_expected(self.actor, "shake")
        _month_ok(month)
        if cards:
            codes = [card_code(c) for c in cards]
        else:
            known = self.shake_cards(month)
            if known is None:
                raise IllegalAction(
                    "shaking",
                    f"name the three cards of month {month:02d} shown "
                    f"(e.g. shake {month:02d} {' '.join(C.codes(_MM[month])[:3])})",
                )
            codes = known
        return self.record(E.Shaken(seat=seat, month=month, cards=codes))

    def flip_only(self) -> Entry:
        """``flip_only_played``: a turn with no hand card (after a bomb)."""
        return self.record(E.FlipOnlyPlayed(seat=seat_expected(self.actor, "flip-only turn")))

    def show_fours(self, shown: Sequence[tuple[int, int]]) -> Entry:
        """``four_of_a_month_shown``: (seat, month) of each four shown at the deal."""
        for _seat, month in shown:
            _month_ok(month)
        return self.record(
            E.FourOfAMonthShown(
                shown=[E.FourShown(seat=seat, month=m, cards=C.codes(_MM[m])) for seat, m in shown]
            )
        )

    def cup(self, role: str) -> Entry:
        """``cup_assigned``: the September cup counts as ``animal`` or ``junk``."""
        role = role.strip().lower()
        if role not in ("animal", "junk"):
            raise IllegalAction("cup", f"the cup counts as animal or junk, not {role!r}")
        h = self.hand
        seat = h.decider if h is not None and h.phase is Phase.CUP else self.actor
        return self.record(E.CupAssigned(seat=seat_expected(seat, "cup decision"), role=role))

    def _decider(self) -> tuple[int, HandState]:
        h = self.hand
        if h is None or h.phase is not Phase.DECIDE:
            w = self.waiting()
            raise IllegalAction(
                "go_stop", f"nobody may say Go or Stop now (the table waits for {w.kind})"
            )
        return h.decider, h

    def go(self) -> Entry:
        """``go_called`` by the seat that may say Go or Stop."""
        seat, h = self._decider()
        return self.record(
            E.GoCalled(seat=seat, count=h.go_count[seat] + 1, score=h.score_of(seat))
        )

    def stop(self) -> Entry:
        """``stop_called`` (chosen): ends the hand; the consequences carry the payments due."""
        seat, h = self._decider()
        return self.record(E.StopCalled(seat=seat, score=h.score_of(seat)))

    def pay(self, payer: int, payee: int, chips: int, note: str | None = None) -> Entry:
        """``payment_recorded``: what the table actually paid (audited against the dues)."""
        if chips < 0:
            raise IllegalAction("payment", f"a payment is 0 chips or more, not {chips}")
        return self.record(E.PaymentRecorded(payer=payer, payee=payee, chips=chips, note=note))

    def pay_due(self) -> list[Entry]:
        """Record every pending due as paid at the computed amount."""
        dues = self.pending_dues()
        if not dues:
            raise IllegalAction("payment", "no payment is due")
        return [self.pay(d.payer, d.payee, d.chips) for d in dues]

    def settle(self, note: str | None = None) -> Entry:
        """``game_closed``: close the night; the consequence is the settlement the rules
        propose (``settlement_proposed``: each seat's total and the transfers). Sealed."""
        return self.record(E.GameClosed(note=note))

    def settle_pay(self, payer: int, payee: int, chips: int, note: str | None = None) -> Entry:
        """``settlement_paid``: a transfer of the night's settlement as paid; one that
        differs from the proposal needs a note (``settlement_note``)."""
        if chips < 0:
            raise IllegalAction("payment", f"a payment is 0 chips or more, not {chips}")
        return self.record(E.SettlementPaid(payer=payer, payee=payee, chips=chips, note=note))

    def note(self, text: str, about_seq: int | None = None) -> Entry:
        """``note_added``: free text, optionally about an earlier seq."""
        text = text.strip()
        if not text:
            raise IllegalAction("note", "a note needs some text")
        if about_seq is not None and not 1 <= about_seq <= self.last_seq:
            raise IllegalAction("note", f"there is no seq {about_seq} to comment on")
        return self.record(E.NoteAdded(text=text, about_seq=about_seq))


def seat_expected(seat: int | None, who: str) -> int:
    """``seat``, the seat an input is for; None (nobody is expected now) is refused."""
    if seat is None:
        raise IllegalAction("turn_order", f"no {who} is expected now")
    return seat


def _month_ok(month: int) -> None:
    if not 1 <= month <= 12:
        raise IllegalAction("month", f"a month is 1..12, not {month}")
