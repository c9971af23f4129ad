"""The rows a hand makes once it is over: ``hands``, ``scores``, ``payouts``, ``sitting_out``,
the capture and transfer tallies and ``hand_seats``, from the rows its events made and the
rules' result of it; and where each column sits in its table's row tuple."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from operator import itemgetter
from typing import Any, Final

from msgspec.structs import astuple

from .. import events as E
from ..engine.game import HandResult
from .tables import COLUMN_AT, COMBO_IDS, DOKBAK_ID, FLAG_IDS, SPECIAL_KINDS, HandRow, PayoutRow

__all__ = ["COLUMN_AT", "GameFacts", "HandRows", "Row", "Rows", "seat_name"]

Row = tuple[Any, ...]

Rows = dict[str, list[Row]]

#: A ``payouts`` row given by column name, as the tuple in the table's column order
#: (cheaper than a :class:`.tables.PayoutRow`, whose keyword init its thirty columns slow).
_PAYOUT_ROW: Final = itemgetter(*PayoutRow.__struct_fields__)
#: The ``payouts`` columns a loser's row of a Stop fills from the proof, NULL on other rows.
_NO_PROOF: Final[dict[str, Any]] = dict.fromkeys(
    (
        "score",
        "go_count",
        "go_points",
        "multiplier",
        *FLAG_IDS,
        "shakes",
        "bombs",
        "carry",
        DOKBAK_ID,
    )
)

#: ``turns`` columns of the specials, in ``SPECIAL_KINDS`` order (a shake is a shaken turn).
SPECIAL_AT: Final = tuple(
    COLUMN_AT["turns"]["shaken" if k == "shake" else k] for k in SPECIAL_KINDS
)

FLAG_AT: Final = tuple(COLUMN_AT["payouts"][b] for b in FLAG_IDS)


@dataclass(frozen=True, slots=True)
class GameFacts:
    """What every row of a game repeats."""

    game_id: str
    ruleset: str
    players: int
    stake: int
    player_ids: tuple[str, ...] = ()
    player_names: tuple[str, ...] = ()


def seat_name(names: Sequence[str], seat: int) -> str | None:
    """The name of a seat, None for a seat the game does not have (as a list index in SQL)."""
    return names[seat] if 0 <= seat < len(names) else None


class HandRows:
    """A hand's rows and what its walk gathered for the summary rows (the walk,
    ``projections._HandWalk``, sets these attributes and adds the rows of its events)."""

    g: GameFacts
    hand: int
    rows: Rows
    #: where this hand's rows begin in each table: the summary rows read them back
    first: dict[str, int]
    dealer: int | None
    started_at: str | None
    ended: E.HandEnded | None
    turns: int
    gos: int
    stop_score: int | None
    recorded: dict[tuple[int, int], int]
    sat_out: E.SeatsSatOut | None
    sat_out_seq: int
    sold: dict[int, list[str]]
    sale_points: dict[int, int]

    def summarize(self, result: HandResult | None) -> None:
        """The hand's summary rows, once its events are walked (``result``: the rules' result
        of the hand, None when they did not follow it)."""
        g = self.g
        rows = self.rows
        ended = self.ended
        checked = result is not None and result.outcome != "unchecked"
        state = result.state if checked and result is not None else None
        proof = result.proof() if checked and result is not None else None
        winner = ended.winner if ended is not None else None
        w_state = result.winner if result is not None else None
        # the winner's combination score and Gos mean something for a hand won by a Stop
        winner_score = go_count = None
        if proof is not None:
            winner_score = proof.score.total
            go_count = proof.go_count
        dues = result.dues if checked and result is not None else ()
        hand_recorded = bool(self.recorded)
        hand_row = HandRow(
            game_id=g.game_id,
            hand=self.hand,
            ruleset=g.ruleset,
            players=g.players,
            dealer=self.dealer,
            started_at=self.started_at,
            date=self.started_at[:10] if self.started_at else None,
            outcome=ended.outcome if ended else None,
            winner=winner,
            reason=ended.reason if ended else None,
            carry=ended.carry if ended else None,
            next_carry=ended.next_carry if ended else None,
            turns=self.turns,
            gos=self.gos,
            stop_score=self.stop_score,
            winner_score=winner_score,
            go_count=go_count,
            go_points=proof.go_points if proof is not None else None,
            points=sum(d[2] for d in dues) if checked else None,
            chips=sum(d[3] for d in dues) if checked else None,
            recorded_chips=sum(self.recorded.values()) if hand_recorded else None,
            ended=ended is not None,
            checked=checked,
        )
        rows["hands"].append(astuple(hand_row))
        if ended is not None and ended.outcome == "stop":
            self._won_by_stop(winner)
        if state is not None:
            self._scores(state, w_state)
        if checked and result is not None:
            self._payouts(result, state, proof, hand_recorded)
        self._sitting_out(dues if checked else None)
        self._tallies()
        self._hand_seats(ended is not None, checked, winner, ended.outcome if ended else None)

    def _won_by_stop(self, winner: int | None) -> None:
        """Mark the decisions of the seat that won the hand by a Stop, from the hand's
        ``hand_ended`` (a query of the Gos that paid off then reads one table)."""
        if winner is None:
            return
        decisions = self.rows["decisions"]
        seat_at, won_at = COLUMN_AT["decisions"]["seat"], COLUMN_AT["decisions"]["won_by_stop"]
        for i in range(self.first["decisions"], len(decisions)):
            row = decisions[i]
            if row[seat_at] == winner:
                decisions[i] = (*row[:won_at], True, *row[won_at + 1 :])

    def _own(self, table: str) -> list[Row]:
        """This hand's rows of ``table``, as derived so far."""
        return self.rows[table][self.first[table] :]

    def _tallies(self) -> None:
        """``capture_tallies`` and ``transfer_tallies``: the hand's ``captures`` and
        ``transfers`` rows counted by kind and reason, so that a query over every hand
        reads a few rows per hand rather than one per card."""
        g, hand = self.g, self.hand
        caps: dict[str, list[int]] = {}
        kind_at, pos_at = COLUMN_AT["captures"]["capture_kind"], COLUMN_AT["captures"]["position"]
        for r in self._own("captures"):
            c = caps.setdefault(r[kind_at], [0, 0])
            c[0] += 1
            if r[pos_at] == 1:
                c[1] += 1
        self.rows["capture_tallies"].extend(
            (g.game_id, hand, kind, cards, captures)
            for kind, (cards, captures) in sorted(caps.items())
        )
        moved: dict[str, list[int]] = {}
        why_at, ck_at = COLUMN_AT["transfers"]["reason"], COLUMN_AT["transfers"]["card_kind"]
        for r in self._own("transfers"):
            m = moved.setdefault(r[why_at], [0, 0, 0])
            m[0] += 1
            if r[ck_at] == "double_junk":
                m[1] += 1
            elif r[ck_at] == "bonus":
                m[2] += 1
        self.rows["transfer_tallies"].extend(
            (g.game_id, hand, reason, *counts) for reason, counts in sorted(moved.items())
        )

    def _hand_seats(
        self, ended: bool, checked: bool, winner: int | None, outcome: str | None
    ) -> None:
        """``hand_seats``: one row per seat with what the seat made of the hand, summed from
        the hand's ``turns``, ``decisions``, ``payouts`` and ``sitting_out`` rows."""
        g, n = self.g, self.g.players
        nk, nb = len(SPECIAL_KINDS), len(FLAG_IDS)
        made = [[0] * nk for _ in range(n)]
        total = [0] * nk
        t_seat = COLUMN_AT["turns"]["seat"]
        for r in self._own("turns"):
            seat = r[t_seat]
            for k, at in enumerate(SPECIAL_AT):
                if r[at]:
                    total[k] += 1
                    if 0 <= seat < n:
                        made[seat][k] += 1
        gos = [0] * n
        d_seat, d_kind = COLUMN_AT["decisions"]["seat"], COLUMN_AT["decisions"]["kind"]
        for r in self._own("decisions"):
            if r[d_kind] == "go" and 0 <= r[d_seat] < n:
                gos[r[d_seat]] += 1
        chips, recorded, received = [0] * n, [0] * n, [0] * n
        paid_baks = [[0] * nb for _ in range(n)]
        got_baks = [[0] * nb for _ in range(n)]
        pay_at = COLUMN_AT["payouts"]
        for r in self._own("payouts"):
            payer, payee, c = r[pay_at["payer"]], r[pay_at["payee"]], r[pay_at["chips"]]
            rec = r[pay_at["recorded_chips"]] or 0
            if 0 <= payer < n:
                chips[payer] -= c
                recorded[payer] -= rec
            if 0 <= payee < n:
                chips[payee] += c
                recorded[payee] += rec
                received[payee] += 1
            for k, b_at in enumerate(FLAG_AT):
                if r[b_at]:
                    if 0 <= payer < n:
                        paid_baks[payer][k] += 1
                    if 0 <= payee < n:
                        got_baks[payee][k] += 1
        out_seat = COLUMN_AT["sitting_out"]["seat"]
        sat_out = {r[out_seat] for r in self._own("sitting_out")}
        ids, names = g.player_ids, g.player_names
        date = self.started_at[:10] if self.started_at else None
        for seat in range(n):
            specials = [x for k in range(nk) for x in (made[seat][k], total[k] - made[seat][k])]
            baks = [x for k in range(nb) for x in (paid_baks[seat][k], got_baks[seat][k])]
            self.rows["hand_seats"].append(
                (
                    g.game_id,
                    self.hand,
                    seat,
                    ids[seat] if seat < len(ids) else None,
                    names[seat] if seat < len(names) else None,
                    self.started_at,
                    date,
                    g.ruleset,
                    outcome,
                    ended,
                    checked,
                    winner == seat,
                    seat in sat_out,
                    gos[seat],
                    chips[seat],
                    recorded[seat],
                    received[seat],
                    *specials,
                    *baks,
                )
            )

    def _sitting_out(self, dues: Sequence[tuple[int, int, int, int, str]] | None) -> None:
        out = self.sat_out
        if out is None:
            return
        for seat in out.seats:
            sold = seat in self.sale_points
            chips = None
            if sold and dues is not None:
                chips = sum(d[3] for d in dues if d[1] == seat and d[4] == "gwang_pali")
            self.rows["sitting_out"].append(
                (
                    self.g.game_id,
                    self.hand,
                    self.sat_out_seq,
                    seat,
                    out.rule,
                    self.sold.get(seat, []),
                    self.sale_points.get(seat),
                    chips,
                )
            )

    def _scores(self, state: Any, winner: int | None) -> None:
        g = self.g
        for seat in sorted(state.order):
            sc = state.itemised(seat)
            cat = dict.fromkeys(COMBO_IDS, 0)
            for ln in sc.lines:
                cat[ln.combo] += ln.points
            self.rows["scores"].append(
                (
                    g.game_id,
                    self.hand,
                    seat,
                    seat == winner,
                    sc.total,
                    sc.brights,
                    sc.animals,
                    sc.ribbons,
                    sc.junk_units,
                    *cat.values(),
                    sc.cup_role,
                    state.go_count[seat],
                    state.shakes[seat],
                    state.bombs[seat],
                    state.ppuk_count[seat],
                )
            )

    def _payouts(self, result: HandResult, state: Any, proof: Any, hand_recorded: bool) -> None:
        g = self.g
        pairs: dict[tuple[int, int], list[Any]] = {}  # points, chips, instant chips, reasons
        for payer, payee, pts, chips, why in result.dues:
            a = pairs.setdefault((payer, payee), [0, 0, 0, []])
            a[0] += pts
            a[1] += chips
            if why != "stop":
                a[2] += chips
            if why not in a[3]:
                a[3].append(why)
        losers = {}
        if proof is not None:
            for lp in proof.losers:
                losers[lp.loser] = lp
                pairs.setdefault((lp.loser, proof.winner), [0, 0, 0, []])
        for key in self.recorded:
            pairs.setdefault(key, [0, 0, 0, []])
        for (payer, payee), (pts, chips, instant, reasons) in sorted(pairs.items()):
            lp = losers.get(payer) if proof is not None and payee == proof.winner else None
            if lp is not None and "stop" not in reasons:
                reasons = ["stop", *reasons]
            recorded = self.recorded.get((payer, payee))
            diff = (recorded or 0) - chips if hand_recorded else None
            proven: dict[str, Any] = _NO_PROOF
            if lp is not None:
                w = proof.winner
                proven = {
                    "score": proof.score.total,
                    "go_count": proof.go_count,
                    "go_points": proof.go_points,
                    "multiplier": lp.multiplier,
                    **{rid: lp.applies(rid) for rid in FLAG_IDS},
                    "shakes": state.shakes[w],
                    "bombs": state.bombs[w],
                    "carry": proof.carry,
                    DOKBAK_ID: lp.applies(DOKBAK_ID),
                }
            payout = {
                "game_id": g.game_id,
                "hand": self.hand,
                "payer": payer,
                "payee": payee,
                "reason": "+".join(reasons) or None,
                "points": pts,
                "chips": chips,
                "instant_chips": instant,
                "recorded_chips": recorded,
                "hand_recorded": hand_recorded,
                "difference": diff,
                "stake": g.stake,
                "ruleset": g.ruleset,
                "payer_name": seat_name(g.player_names, payer),
                "payee_name": seat_name(g.player_names, payee),
                # the columns a loser's row of a Stop fills from the proof (else NULL)
                **proven,
            }
            self.rows["payouts"].append(_PAYOUT_ROW(payout))
