"""Projection rows: typed tables for SQL, derived from a game's events and its projection.

What happened at the table (turns, captures, transfers, decisions, recorded payments) comes
from the events as recorded; what the rules make of it (final scores, payouts with their
multipliers) comes from the projector's hand results (:class:`HandResult` and its proof).
The two sit side by side, so a query can set the recorded payment beside the computed one.

Rows are a pure function of the events and the projector's game state: :func:`derive` gives
the rows of a whole game, or of some hands only (a live append re-derives just the hand it
touched). Events undone by ``entry_retracted`` are left out, as the projector leaves them.

A turn is the play (with its shake and any bonus card played before it), the flip and what
follows, as recorded. What the rules know of a turn once it is resolved (the mover's score,
whether it swept the layout) is read from the hand state's ``turn_ends``
(:class:`~gostop_records.engine.state.TurnEnd`), not worked out again from the record.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from typing import Any, Final

from .. import cards as C
from .. import events as E
from ..engine.game import GameState, HandResult
from ..engine.state import TurnEnd
from ..projector import Issue
from .hand_rows import (
    COLUMN_AT,
    GameFacts,
    HandRows,
    Row,
    Rows,
)
from .schema import TABLES

__all__ = ["Rows", "derive", "empty_rows", "player_games"]


#: Each card's month (None for a bonus card) and kind, as the rows give them.
_CARD: Final[dict[str, tuple[int | None, str]]] = {
    c.code: (c.month or None, c.kind.value) for c in C.ALL_CARDS
}


def empty_rows() -> Rows:
    return {name: [] for name in TABLES}


@dataclass(slots=True)
class _Turn:
    number: int
    seq: int
    seat: int
    action: str | None = None
    played: str | None = None
    played_month: int | None = None
    played_kind: str | None = None
    chosen: str | None = None
    bomb_cards: list[str] | None = None
    flipped: str | None = None
    flips: int = 0
    bonus: int = 0
    shaken: bool = False
    ppuk: bool = False
    jjok: bool = False
    ttadak: bool = False
    sseul: bool = False
    captured: int = 0
    junk_taken: int = 0

    def open_for_play(self, seat: int) -> bool:
        """A play continues this turn: after a shake, or after a bonus card from the hand."""
        if seat != self.seat or self.flips:
            return False
        return self.action is None or (self.action == "card" and self.played_kind == "bonus")


class _HandWalk(HandRows):
    """Follows one hand's events: the turn in progress, the rows of each event."""

    def __init__(self, g: GameFacts, hand: int, rows: Rows, ends: Sequence[TurnEnd] | None) -> None:
        self.g = g
        self.hand = hand
        self.rows = rows
        # each turn the rules resolved (``turn_ends`` of the projector's hand state); None
        # for a hand the rules did not follow
        self.ends = ends
        n = g.players
        self.turn: _Turn | None = None
        self.turns = 0
        self.go_counts = [0] * n
        self.gos = 0
        self.dealer = None
        self.started_at = None
        self.ended = None
        self.stop_score = None
        self.recorded = {}
        self.sat_out = None
        self.sat_out_seq = 0
        self.sold = {}  # seat -> brights sold
        self.sale_points = {}  # seller -> points owed by each player
        # where this hand's rows begin in each table: the summary rows read them back
        self.first = {name: len(r) for name, r in rows.items()}

    # --- turns -----------------------------------------------------------------------

    def _turn_number(self) -> int:
        return self.turn.number if self.turn is not None else self.turns

    def _start(self, seq: int, seat: int) -> _Turn:
        self._close()
        self.turns += 1
        self.turn = _Turn(self.turns, seq, seat)
        return self.turn

    def _for_play(self, seq: int, seat: int) -> _Turn:
        t = self.turn
        if t is not None and t.open_for_play(seat):
            return t
        return self._start(seq, seat)

    def _close(self) -> None:
        t = self.turn
        if t is None:
            return
        self.turn = None
        g = self.g
        end = self._end_of(t.number)
        score_after = None
        if end is not None:
            score_after = end.score
            t.sseul = t.sseul or end.swept
        fl = _CARD[t.flipped] if t.flipped is not None else None
        self.rows["turns"].append(
            (
                g.game_id,
                self.hand,
                t.number,
                t.seq,
                t.seat,
                t.action,
                t.played,
                t.played_month,
                t.played_kind,
                t.chosen,
                t.bomb_cards,
                t.flipped,
                fl[0] if fl else None,
                fl[1] if fl else None,
                t.flips,
                t.bonus,
                t.shaken,
                t.action == "bomb",
                t.action == "flip_only",
                t.ppuk,
                t.jjok,
                t.ttadak,
                t.sseul,
                t.captured,
                t.junk_taken,
                score_after,
            )
        )

    def _end_of(self, turn: int) -> TurnEnd | None:
        """The rules' :class:`TurnEnd` of a turn; None for a turn they did not resolve."""
        ends = self.ends
        return ends[turn - 1] if ends is not None and 0 < turn <= len(ends) else None

    # --- events ----------------------------------------------------------------------

    def feed(self, env: E.Envelope) -> None:
        """One event of the hand: the method :data:`_STEPS` names for its type, if any."""
        step = _STEPS.get(type(env.event))
        if step is not None:
            step(self, env, env.event)

    def _capture(self, seq: int, seat: int, code: str, how: str, source: str, at: int) -> None:
        """A ``captures`` row: one card taken into ``seat``'s pile, ``at`` its place in the
        capture."""
        month, kind = _CARD[code]
        self.rows["captures"].append(
            (
                self.g.game_id,
                self.hand,
                seq,
                self._turn_number(),
                seat,
                code,
                month,
                kind,
                how,
                source,
                at,
            )
        )

    def _cards_captured(self, env: E.Envelope, ev: Any) -> None:
        for position, code in enumerate(ev.cards, 1):
            self._capture(env.seq, ev.seat, code, ev.kind, ev.source, position)
        turn = self.turn
        if turn is not None:
            turn.captured += len(ev.cards)
            if ev.kind == "jjok":
                turn.jjok = True
            elif ev.kind == "ttadak":
                turn.ttadak = True

    def _card_flipped(self, env: E.Envelope, ev: Any) -> None:
        turn = self.turn if self.turn is not None else self._start(env.seq, ev.seat)
        turn.flipped = ev.card
        turn.flips += 1

    def _card_played(self, env: E.Envelope, ev: Any) -> None:
        turn = self._for_play(env.seq, ev.seat)
        turn.action = "card"
        month, kind = _CARD[ev.card]
        if kind != "bonus" or turn.played is None:
            turn.played, turn.played_month, turn.played_kind = ev.card, month, kind
            turn.chosen = ev.chosen

    def _hand_started(self, env: E.Envelope, ev: Any) -> None:
        self.dealer = ev.dealer
        self.started_at = env.at

    def _shaken(self, env: E.Envelope, ev: Any) -> None:
        turn = self._for_play(env.seq, ev.seat)
        turn.shaken = True

    def _bomb_played(self, env: E.Envelope, ev: Any) -> None:
        turn = self._for_play(env.seq, ev.seat)
        turn.action = "bomb"
        turn.bomb_cards = list(ev.cards)
        turn.played_month = ev.month

    def _flip_only_played(self, env: E.Envelope, ev: Any) -> None:
        turn = self._for_play(env.seq, ev.seat)
        turn.action = "flip_only"

    def _bonus_card_taken(self, env: E.Envelope, ev: Any) -> None:
        self._capture(env.seq, ev.seat, ev.card, "bonus", ev.source, 1)
        if self.turn is not None:
            self.turn.bonus += 1
            self.turn.captured += 1

    def _ppuk_made(self, env: E.Envelope, ev: Any) -> None:
        if self.turn is not None:
            self.turn.ppuk = True

    def _junk_transferred(self, env: E.Envelope, ev: Any) -> None:
        g = self.g
        rows = self.rows
        seq = env.seq
        month, kind = _CARD[ev.card]
        rows["transfers"].append(
            (
                g.game_id,
                self.hand,
                seq,
                self._turn_number(),
                ev.from_seat,
                ev.to_seat,
                ev.card,
                month,
                kind,
                ev.reason,
            )
        )
        turn = self.turn
        if turn is not None:
            if ev.to_seat == turn.seat:
                turn.junk_taken += 1
            if ev.reason == "sseul":
                turn.sseul = True

    def _cup_assigned(self, env: E.Envelope, ev: Any) -> None:
        seq = env.seq
        end = self._end_of(self._turn_number())
        score = end.score if end is not None else None
        self._decision(seq, ev.seat, "cup", None, score, None, ev.role)

    def _go_called(self, env: E.Envelope, ev: Any) -> None:
        seq = env.seq
        self.gos += 1
        self.go_counts[ev.seat] = ev.count
        self._decision(seq, ev.seat, "go", ev.count, ev.score, False, None)

    def _stop_called(self, env: E.Envelope, ev: Any) -> None:
        seq = env.seq
        self.stop_score = ev.score
        self._decision(seq, ev.seat, "stop", self.go_counts[ev.seat], ev.score, ev.auto, None)

    def _hand_ended(self, env: E.Envelope, ev: Any) -> None:
        self._close()
        self.ended = ev

    def _payment_recorded(self, env: E.Envelope, ev: Any) -> None:
        key = (ev.payer, ev.payee)
        self.recorded[key] = self.recorded.get(key, 0) + ev.chips

    def _seats_sat_out(self, env: E.Envelope, ev: Any) -> None:
        seq = env.seq
        self.sat_out, self.sat_out_seq = ev, seq

    def _brights_sold(self, env: E.Envelope, ev: Any) -> None:
        self.sold[ev.seat] = list(ev.cards)

    def _payment_due(self, env: E.Envelope, ev: Any) -> None:
        if ev.reason == "gwang_pali":
            self.sale_points[ev.payee] = ev.points

    def _payment_capped(self, env: E.Envelope, ev: Any) -> None:
        g = self.g
        rows = self.rows
        seq = env.seq
        rows["capped_payments"].append(
            (
                g.game_id,
                self.hand,
                seq,
                ev.payer,
                ev.payee,
                ev.due,
                ev.paid,
                ev.due - ev.paid,
                ev.cap,
            )
        )

    def _decision(
        self,
        seq: int,
        seat: int,
        kind: str,
        go_count: int | None,
        score: int | None,
        auto: bool | None,
        role: str | None,
    ) -> None:
        """A ``decisions`` row: a Go, a Stop or where the cup counts (``won_by_stop`` is
        settled when the hand is finished)."""
        turn = self._turn_number()
        row = (
            self.g.game_id,
            self.hand,
            seq,
            turn,
            seat,
            kind,
            go_count,
            score,
            auto,
            role,
        )
        self.rows["decisions"].append((*row, False))

    # --- the hand's own rows ---------------------------------------------------------

    def finish(self, result: HandResult | None) -> None:
        self._close()
        self.summarize(result)


_HS = COLUMN_AT["hand_seats"]
#: ``hand_seats`` columns summed into ``player_games``: the specials and the baks.
_SUMMED_AT = tuple(range(_HS["payments_received"] + 1, len(TABLES["hand_seats"])))


#: The events whose rows or state a hand's walk keeps, each with its method.
_STEPS: dict[type, Callable[[_HandWalk, E.Envelope, Any], None]] = {
    E.CardsCaptured: _HandWalk._cards_captured,
    E.CardFlipped: _HandWalk._card_flipped,
    E.CardPlayed: _HandWalk._card_played,
    E.HandStarted: _HandWalk._hand_started,
    E.Shaken: _HandWalk._shaken,
    E.BombPlayed: _HandWalk._bomb_played,
    E.FlipOnlyPlayed: _HandWalk._flip_only_played,
    E.BonusCardTaken: _HandWalk._bonus_card_taken,
    E.PpukMade: _HandWalk._ppuk_made,
    E.JunkTransferred: _HandWalk._junk_transferred,
    E.CupAssigned: _HandWalk._cup_assigned,
    E.GoCalled: _HandWalk._go_called,
    E.StopCalled: _HandWalk._stop_called,
    E.HandEnded: _HandWalk._hand_ended,
    E.PaymentRecorded: _HandWalk._payment_recorded,
    E.SeatsSatOut: _HandWalk._seats_sat_out,
    E.BrightsSold: _HandWalk._brights_sold,
    E.PaymentDue: _HandWalk._payment_due,
    E.PaymentCapped: _HandWalk._payment_capped,
}


def player_games(hand_seats: Sequence[Row]) -> list[Row]:
    """``player_games``: the ``hand_seats`` rows of ended hands summed per game and seat
    (a row per seat with an ended hand), so that the players' views read a row per game.

    Computed from a game's whole ``hand_seats`` rows: by :func:`derive` for a whole game,
    and by the writer from the rows it merges after a live append re-derives one hand.
    """
    at = _HS
    n = len(_SUMMED_AT)
    totals: dict[tuple[str, int], list[Any]] = {}
    for r in hand_seats:
        if not r[at["ended"]]:
            continue
        key = (r[at["game_id"]], r[at["seat"]])
        t = totals.get(key)
        if t is None:
            t = totals[key] = [
                r[at["player_id"]],
                r[at["player_name"]],
                None,
                *[0] * (7 + n),
            ]
        started = r[at["started_at"]]
        if started is not None and (t[2] is None or started > t[2]):
            t[2] = started
        sat_out, won, gos = r[at["sat_out"]], r[at["won"]], r[at["gos"]]
        t[3] += not sat_out
        t[4] += sat_out
        t[5] += won
        t[6] += r[at["chips"]]
        t[7] += r[at["recorded_chips"]]
        t[8] += gos
        if won and r[at["outcome"]] == "stop":
            t[9] += gos
        for k, c in enumerate(_SUMMED_AT):
            t[10 + k] += r[c]
    return [(game_id, seat, *t) for (game_id, seat), t in sorted(totals.items())]


# Long: the game-level rows, then each hand's walk, in log order (once per imported event).
def derive(
    envelopes: Sequence[E.Envelope],
    game: GameState,
    issues: Sequence[Issue] = (),
    hands: Collection[int] | None = None,
    rows: Rows | None = None,
    retracted: Collection[int] = (),
) -> Rows:
    """The projection rows of one game (of ``hands`` only, when given), added to ``rows``.

    ``envelopes`` are the game's events from seq 1, ``game`` the projector's state after
    them, ``issues`` its findings and ``retracted`` the seqs it undid (``entry_retracted``),
    which are left out. The game-level rows (``games``, ``issues``, ``positions``) are
    always derived.
    """
    out = rows if rows is not None else empty_rows()
    if not envelopes:
        return out
    void = set(retracted)
    first, last = envelopes[0], envelopes[-1]
    started = first.event if type(first.event) is E.GameStarted else None
    # the names as the envelopes show them (opened by the store's keys, or forgotten),
    # whoever fed the projector: a sealed name is never a row's name
    players = started.players if started is not None else game.players
    g = GameFacts(
        game.game_id,
        game.rules.name,
        game.table.players,
        game.stake,
        tuple(p.id for p in players),
        tuple(p.name for p in players),
    )
    by_hand: dict[int, list[E.Envelope]] = {}
    hands_seen: set[int] = set()
    hands_ended = 0
    draws: dict[int, str] = {}
    sat_out = [0] * g.players
    for env in envelopes:
        if env.seq in void:
            continue
        ev: Any = env.event
        t = type(ev)
        if t is E.DealerDrawn:
            draws.update((d.seat, d.card) for d in ev.draws)
        elif t is E.SeatsSatOut:
            for seat in ev.seats:
                sat_out[seat] += 1
        hand = env.hand
        if hand is None:
            continue
        if t is E.HandStarted:
            hands_seen.add(ev.hand)
        elif t is E.HandEnded:
            hands_ended += 1
        if hands is None or hand in hands:
            by_hand.setdefault(hand, []).append(env)

    rules = game.rules
    out["games"].append(
        (
            game.game_id,
            rules.name,
            rules.content_hash,
            g.players,
            list(g.player_ids),
            list(g.player_names),
            game.stake,
            started.venue if started is not None else None,
            first.at,
            first.at[:10],
            last.at,
            first.by,
            last.seq,
            len(hands_seen),
            hands_ended,
            sum(1 for i in issues if i.severity == "violation"),
        )
    )
    for i in issues:
        out["issues"].append((game.game_id, i.seq, i.hand, i.rule, i.reason, i.severity))
    out["positions"].append((game.game_id, last.seq, last.hash))
    held = game.holdings()
    drawn = game.rules.first_dealer.value == "draw" and bool(draws)
    first_dealer = game.results[0].dealer if game.results else game.next_dealer
    for seat, player in enumerate(game.players):
        out["seats"].append(
            (
                game.game_id,
                seat,
                player.id,
                len(hands_seen) - sat_out[seat],
                sat_out[seat],
                game.chips[seat] if game.chips is not None else None,
                held[seat] if held is not None else None,
                seat in game.broke,
                draws.get(seat),
                (seat == first_dealer) if drawn else None,
            )
        )

    results = {r.hand: r for r in game.results}
    live = game.hand
    first_seat_row = len(out["hand_seats"])
    for hand in sorted(by_hand):
        result = results.get(hand)
        state = result.state if result is not None else live
        ends = state.turn_ends if state is not None and state.hand_no == hand else None
        walk = _HandWalk(g, hand, out, ends)
        for env in by_hand[hand]:
            walk.feed(env)
        walk.finish(result)
    if hands is None:
        out["player_games"].extend(player_games(out["hand_seats"][first_seat_row:]))
    return out
