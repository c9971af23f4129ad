"""The rows of a hand's events and of its result: ``hands``, ``turns``, ``captures``,
``transfers``, ``decisions``, ``scores``, ``payouts``, ``sitting_out``, ``capped_payments``."""

from typing import Annotated

from msgspec import Struct

from ...engine import rulebook as RB
from .fields import (
    DOKBAK_ID,
    Date,
    GameId,
    HandNo,
    SeatNo,
    Tiny,
    about,
    rule_fields,
    stop_only,
    table_row,
)

__all__ = [
    "CappedPaymentRow",
    "CaptureRow",
    "DecisionRow",
    "HandRow",
    "PayoutRow",
    "ScoreRow",
    "SittingOutRow",
    "TransferRow",
    "TurnRow",
]

PAYOUT_REASON = about(
    "the reasons of the pair's dues joined by `'+'`: `'stop'`, "
    + ", ".join(f"`'{i.id}'`" for i in RB.INSTANTS)
    + ", `'gwang_pali'` (e.g. `'first_ppuk+stop'`); a loser's row of a hand won by a "
    "Stop always includes `'stop'`; NULL for a pair with a recorded payment only"
)
PAYOUT_MULTIPLIER = stop_only(
    "product of the factors that apply to this loser ("
    + ", ".join(m.name for m in RB.MULTIPLIERS if m is not RB.NAGARI_CARRY)
    + ", nagari `carry`; 1 = none): the Stop share is `go_points` times it before dokbak"
)


class HandRow(Struct):
    """One row per hand started: what the record says (`hand_started`, `hand_ended`, `go_called`,
    `stop_called`, `payment_recorded`) beside what the rules compute for it. Key (`game_id`,
    `hand`).
    """

    game_id: GameId
    hand: Annotated[int, about("hand number within the game, from 1")]
    ruleset: Annotated[
        str,
        about(
            "the game's ruleset name (`games.ruleset`), kept on every hand so that a question "
            "by ruleset reads `hands` alone: a join with `games` on the text `game_id` makes "
            "such a query 8 to 25 times slower on millions of hands"
        ),
    ]
    players: Annotated[Tiny, about("number of seats (`games.players`), kept like `ruleset`")]
    dealer: Annotated[
        Tiny | None, about("0-based seat that dealt and plays first (`hand_started.dealer`)")
    ]
    started_at: Annotated[
        str | None, about("`events.at` of the hand's `hand_started` event (RFC 3339 UTC text)")
    ]
    date: Annotated[Date | None, about("the UTC date of `started_at`")]
    outcome: Annotated[
        str | None,
        about(
            "`hand_ended.outcome`: `'stop'`, `'instant'` (four of a month in hand, three ppuk, "
            "hudang), `'nagari'` (no winner: the next hand pays more) or `'void'` (the deal did"
            " not stand); NULL while the hand has not ended"
        ),
    ]
    winner: Annotated[
        Tiny | None,
        about(
            "0-based seat of `hand_ended.winner`; NULL for a nagari, a void deal or a hand not "
            "ended"
        ),
    ]
    reason: Annotated[
        str | None,
        about(
            "`hand_ended.reason` as recorded: `'stop'`, `'auto_stop'`, `'hand_four'`, "
            "`'three_ppuk'`, `'hudang'`, `'cards_exhausted'`, `'layout_four'` or "
            "`'hand_fours'`; NULL while the hand has not ended"
        ),
    ]
    carry: Annotated[
        int | None,
        about(
            "nagari factor this hand's payments were multiplied by (1 = none; "
            "`hand_ended.carry`); NULL while the hand has not ended"
        ),
    ]
    next_carry: Annotated[
        int | None,
        about(
            "nagari factor the next hand starts with (`hand_ended.next_carry`); NULL while the "
            "hand has not ended"
        ),
    ]
    turns: Annotated[int, about("turns played: the hand's rows in `turns`")]
    gos: Annotated[int, about("`go_called` events in the hand, all seats together")]
    stop_score: Annotated[
        int | None,
        about(
            "`stop_called.score`: the combination score the Stop was called on, as recorded "
            "(chosen or automatic); NULL without a Stop"
        ),
    ]
    winner_score: Annotated[
        int | None,
        about(
            "the winner's combination score at the Stop as the rules compute it, before Go "
            "points; NULL unless `checked` and `outcome` is `'stop'`"
        ),
    ]
    go_count: Annotated[
        int | None,
        about("the winner's Gos in the hand; NULL unless `checked` and `outcome` is `'stop'`"),
    ]
    go_points: Annotated[
        int | None,
        about(
            "`winner_score` with the Go bonus by `rules.go_payout`: each loser's points before "
            "multipliers; NULL unless `checked` and `outcome` is `'stop'`"
        ),
    ]
    points: Annotated[
        int | None,
        about(
            "points the rules make due in the hand, all payers together (Stop shares after "
            "multipliers plus instant payments; 0 for a nagari or void deal); NULL unless "
            "`checked`"
        ),
    ]
    chips: Annotated[
        int | None, about("`points` in chips (times `games.stake`); NULL unless `checked`")
    ]
    recorded_chips: Annotated[
        int | None,
        about(
            "chips recorded as paid in the hand (`payment_recorded`, all pairs); NULL when no "
            "payment was recorded"
        ),
    ]
    ended: Annotated[bool, about("whether the record holds the hand's `hand_ended` event")]
    checked: Annotated[
        bool,
        about(
            "whether the rules re-derived the hand to its end; false for a hand in progress or "
            "one kept unchecked after a rule violation (lenient import), which have no `scores`"
            " or `payouts` rows"
        ),
    ]


class TurnRow(Struct):
    """One row per turn: a seat's play (with the shake before it and any bonus card played from
    hand first), the stock flip(s) after it and what they brought. Key (`game_id`, `hand`,
    `turn`).
    """

    game_id: GameId
    hand: HandNo
    turn: Annotated[int, about("turn number within the hand, from 1, in the order played")]
    seq: Annotated[int, about("`seq` of the turn's first event (shake, play or flip)")]
    seat: Annotated[Tiny, about("0-based seat whose turn it is")]
    action: Annotated[
        str,
        about(
            "how the turn was played: `'card'`, `'bomb'` or `'flip_only'`; NULL when the record"
            " holds no play for it"
        ),
    ]
    played: Annotated[
        str,
        about(
            "code of the hand card played (after a bonus card played from hand, the card played"
            " next); NULL for a bomb or a flip-only turn"
        ),
    ]
    played_month: Annotated[
        Tiny,
        about(
            "month (1-12) of `played`, or the bomb's month; NULL for a flip-only turn and a "
            "bonus card"
        ),
    ]
    played_kind: Annotated[
        str,
        about(
            "card kind of `played`: `'bright'`, `'animal'`, `'ribbon'`, `'junk'`, "
            "`'double_junk'` or `'bonus'`; NULL when `played` is"
        ),
    ]
    chosen: Annotated[
        str,
        about(
            "the layout card taken when the played card matched two (`card_played.chosen`); "
            "NULL otherwise"
        ),
    ]
    bomb_cards: Annotated[
        list[str], about("the hand cards of a bomb (`bomb_played.cards`); NULL unless `bomb`")
    ]
    flipped: Annotated[
        str,
        about(
            "code of the stock card flipped (the last one when a flipped bonus card made the "
            "seat flip again); NULL when the turn has no flip"
        ),
    ]
    flipped_month: Annotated[
        Tiny, about("month (1-12) of `flipped`; NULL for a bonus card or no flip")
    ]
    flipped_kind: Annotated[str, about("card kind of `flipped`; NULL when `flipped` is")]
    flips: Annotated[
        Tiny, about("`card_flipped` events in the turn (more than 1 after a flipped bonus card)")
    ]
    bonus_cards: Annotated[
        Tiny, about("bonus cards taken during the turn (also counted in `captured`)")
    ]
    shaken: Annotated[
        bool, about("whether the seat shook (heundeum: showed three of a month) this turn")
    ]
    bomb: Annotated[bool, about("whether the turn was a bomb (`action` is `'bomb'`)")]
    flip_only: Annotated[
        bool, about("whether the turn played no hand card (`action` is `'flip_only'`)")
    ]
    ppuk: Annotated[
        bool,
        about("whether the turn made a ppuk (`ppuk_made`: three of a month left on the layout)"),
    ]
    jjok: Annotated[bool, about("whether the turn made a jjok (a capture of kind `'jjok'`)")]
    ttadak: Annotated[bool, about("whether the turn made a ttadak (a capture of kind `'ttadak'`)")]
    sseul: Annotated[
        bool,
        about(
            "whether the turn swept the layout: it captured and the rules found the layout "
            "empty after it (also where the ruleset pays that sweep nothing), or it brought a "
            "`'sseul'` junk transfer; in a hand the rules did not follow to its end, only the "
            "transfer marks the turns they did not resolve (as `score_after` is NULL there)"
        ),
    ]
    captured: Annotated[
        int,
        about(
            "cards the turn took into piles (its `captures` rows: captured cards and bonus "
            "cards); junk received by steals is in `junk_taken`"
        ),
    ]
    junk_taken: Annotated[
        int, about("junk cards (not units) handed to `seat` by steals during the turn")
    ]
    score_after: Annotated[
        int,
        about(
            "the seat's combination score after the turn, without Go points, as the rules "
            "computed it; NULL for a turn the rules did not resolve (the rest of a hand after a"
            " violation, a turn still in progress)"
        ),
    ]


class CaptureRow(Struct):
    """One row per card taken into a pile: every card of a `cards_captured` event and every
    `bonus_card_taken`. Key (`game_id`, `seq`, `card`); the cards of one capture share `seq`.
    """

    game_id: GameId
    hand: HandNo
    seq: Annotated[int, about("`seq` of the `cards_captured` or `bonus_card_taken` event")]
    turn: Annotated[int, about("`turns.turn` it happened in; 0 for a bonus card taken at the deal")]
    seat: Annotated[Tiny, about("0-based seat whose pile took the card")]
    card: Annotated[str, about("the card's code, e.g. `'09A'`")]
    month: Annotated[Tiny, about("the card's month (1-12); NULL for a bonus card")]
    card_kind: Annotated[
        str,
        about(
            "the card's printed kind: `'bright'`, `'animal'`, `'ribbon'`, `'junk'`, "
            "`'double_junk'` or `'bonus'` (the September cup `'09A'` is `'animal'` whatever it "
            "scores as)"
        ),
    ]
    capture_kind: Annotated[
        str,
        about(
            "`cards_captured.kind`: `'pair'`, `'stack'`, `'ppuk_taken'`, `'own_ppuk'`, "
            "`'ttadak'`, `'jjok'`, `'last_turn_three'`, `'bomb'`; `'bonus'` for a bonus card"
        ),
    ]
    source: Annotated[
        str,
        about(
            "where the capture came from: `'hand'`, `'flip'` or `'hand_and_flip'`; for a bonus "
            "card where it was met: `'hand'`, `'flip'` or `'layout'`"
        ),
    ]
    position: Annotated[
        Tiny,
        about(
            "the card's place (1, 2, ...) among the cards of its capture event, as the event "
            "lists them: `count(*) FILTER (WHERE position = 1)` counts captures"
        ),
    ]


class TransferRow(Struct):
    """One row per junk card handed from one pile to another (`junk_transferred`: a steal for a
    jjok, ttadak, sseul, bomb, bonus card, stack or ppuk). Key (`game_id`, `seq`).
    """

    game_id: GameId
    hand: HandNo
    seq: Annotated[int, about("`seq` of the `junk_transferred` event")]
    turn: Annotated[int, about("`turns.turn` it happened in")]
    from_seat: Annotated[Tiny, about("0-based seat whose pile gave the card")]
    to_seat: Annotated[
        Tiny, about("0-based seat whose pile received it: the one who earned the steal")
    ]
    card: Annotated[str, about("the card's code")]
    month: Annotated[Tiny, about("the card's month (1-12); NULL for a bonus card")]
    card_kind: Annotated[
        str,
        about(
            "the card's printed kind: `'junk'`, `'double_junk'`, `'bonus'`, or `'animal'` for "
            "the September cup where it counts as junk and `rules.cup_transferable` lets it be "
            "stolen"
        ),
    ]
    reason: Annotated[
        str,
        about(
            "why it was handed over: `'jjok'`, `'ttadak'`, `'sseul'`, `'stack'`, "
            "`'ppuk_taken'`, `'own_ppuk'`, `'bomb'` or `'bonus'`"
        ),
    ]


class DecisionRow(Struct):
    """One row per decision after a turn: `go_called`, `stop_called` (chosen or automatic) and
    `cup_assigned`. Key (`game_id`, `seq`).
    """

    game_id: GameId
    hand: HandNo
    seq: Annotated[int, about("`seq` of the decision's event")]
    turn: Annotated[int, about("`turns.turn` the decision followed")]
    seat: Annotated[Tiny, about("0-based seat that decided")]
    kind: Annotated[str, about("`'go'`, `'stop'` or `'cup'` (the September cup's role)")]
    go_count: Annotated[
        int,
        about(
            "for a Go, its number for this seat in the hand (`go_called.count`); for a Stop, "
            "the seat's Gos before it; NULL for `'cup'`"
        ),
    ]
    score: Annotated[
        int,
        about(
            "for a Go or a Stop, the combination score recorded with it (`go_called.score`, "
            "`stop_called.score`); for `'cup'`, the seat's combination score with the role just"
            " chosen (NULL when the rules did not follow the hand)"
        ),
    ]
    auto: Annotated[
        bool,
        about(
            "for a Stop, whether it was automatic (`stop_called.auto`: qualifying on the last "
            "turn); false for a Go; NULL for `'cup'`"
        ),
    ]
    cup_role: Annotated[
        str, about("for `'cup'`, the role chosen: `'animal'` or `'junk'`; NULL otherwise")
    ]
    won_by_stop: Annotated[
        bool,
        about(
            "whether `seat` won the hand by a Stop (`hands.outcome` `'stop'` and `hands.winner`"
            " this seat): for a Go, whether it paid off; false while the hand goes on"
        ),
    ]


class _ScorePile(Struct):
    game_id: GameId
    hand: HandNo
    seat: SeatNo
    winner: Annotated[bool, about("whether this seat won the hand (by a Stop or an instant win)")]
    total: Annotated[
        int,
        about(
            "combination score of the final pile, without Go points (the winner's equals "
            "`hands.winner_score` after a Stop): the sum of the eight points columns"
        ),
    ]
    brights: Annotated[Tiny, about("bright cards in the pile")]
    animals: Annotated[
        Tiny, about("animals in the pile, the September cup left out when it counts as junk")
    ]
    ribbons: Annotated[
        Tiny,
        about(
            "ribbons that count toward the ribbon total (`rules.december_ribbon_counts` decides"
            " for 12R)"
        ),
    ]
    junk_units: Annotated[
        int,
        about(
            "junk units in the pile: junk 1, double junk 2, bonus cards 2 or 3, the cup 2 when "
            "it counts as junk"
        ),
    ]


class _ScoreSeat(Struct):
    cup_role: Annotated[
        str,
        about(
            "how the September cup in this pile counts, `'animal'` or `'junk'` (by "
            "`rules.cup_mode` or the holder's `cup_assigned`); NULL when the pile has no cup"
        ),
    ]
    go_count: Annotated[int, about("Gos this seat called in the hand")]
    shakes: Annotated[int, about("times this seat shook in the hand")]
    bombs: Annotated[int, about("bombs this seat played in the hand")]
    ppuk: Annotated[int, about("ppuks this seat made in the hand")]


class _PayoutDue(Struct):
    game_id: GameId
    hand: HandNo
    payer: Annotated[Tiny, about("0-based seat that owes")]
    payee: Annotated[Tiny, about("0-based seat that is owed")]
    reason: Annotated[str | None, PAYOUT_REASON]
    points: Annotated[
        int,
        about(
            "points the payer owes the payee in the hand: the Stop share after multipliers and "
            "dokbak, plus instant payments; 0 when nothing is due"
        ),
    ]
    chips: Annotated[int, about("`points` in chips (times `stake`)")]
    instant_chips: Annotated[
        int, about("the part of `chips` due for instant reasons (not `'stop'`); 0 when none")
    ]
    recorded_chips: Annotated[
        int | None,
        about(
            "chips the table recorded for this pair (`payment_recorded`, summed); NULL when "
            "none was recorded for it"
        ),
    ]
    hand_recorded: Annotated[
        bool,
        about(
            "whether any payment was recorded for the hand; when false, payments were not "
            "entered and `difference` is NULL"
        ),
    ]
    difference: Annotated[
        int | None,
        about(
            "recorded minus computed chips (a pair with no recorded payment counts 0) when "
            "`hand_recorded`, else NULL; positive when the table paid more"
        ),
    ]
    stake: Annotated[int, about("chips per point (`games.stake`)")]
    score: Annotated[int | None, stop_only("the winner's combination score, before Go points")]
    go_count: Annotated[int | None, stop_only("the winner's Gos")]
    go_points: Annotated[int | None, stop_only("`score` with the Go bonus by `rules.go_payout`")]
    multiplier: Annotated[int | None, PAYOUT_MULTIPLIER]


class _PayoutWinner(Struct):
    shakes: Annotated[int | None, stop_only("times the winner shook in the hand")]
    bombs: Annotated[int | None, stop_only("bombs the winner played in the hand")]
    carry: Annotated[
        int | None, stop_only("the hand's nagari factor, also a factor of `multiplier`")
    ]


class _PayoutNames(Struct):
    ruleset: Annotated[
        str, about("`games.ruleset`, on the row so that a question about payments joins no `games`")
    ]
    payer_name: Annotated[str | None, about("the payer's name (`games.player_names`)")]
    payee_name: Annotated[str | None, about("the payee's name (`games.player_names`)")]


class SittingOutRow(Struct):
    """One row per seat sitting out a hand at a table of 4 or 5 seats (`seats_sat_out`: three play
    each hand), with the brights it sold (`brights_sold`, gwang-pali). Key (`game_id`, `hand`,
    `seat`).
    """

    game_id: GameId
    hand: HandNo
    seq: Annotated[int, about("`seq` of the hand's `seats_sat_out` event")]
    seat: Annotated[Tiny, about("0-based seat that sits the hand out")]
    rule: Annotated[
        str,
        about(
            "the rule that chose it (`seats_sat_out.rule`, `rules.sit_out`): `'turn_order'` or "
            "`'choice'`"
        ),
    ]
    brights_sold: Annotated[
        list[str], about("the brights the seat sold (`brights_sold.cards`); empty when none")
    ]
    sale_points: Annotated[
        int,
        about(
            "points each player of the hand owes for the sale (brights times "
            "`rules.gwang_price`); NULL when nothing was sold"
        ),
    ]
    sale_chips: Annotated[
        int,
        about(
            "chips the seat is owed for the sale from every player together, after any cap of "
            "`capped_payments`; NULL when nothing was sold or the hand was not checked"
        ),
    ]


class CappedPaymentRow(Struct):
    """One row per payment the chips on the table limited (`payment_capped`): a loser who pays no
    more than they hold, or a winner's gain capped at their own chips (`rules.chip_limit`). Key
    (`game_id`, `hand`, `seq`, `payer`, `payee`).
    """

    game_id: GameId
    hand: HandNo
    seq: Annotated[int, about("`seq` of the `payment_capped` event")]
    payer: Annotated[Tiny, about("0-based seat that owes")]
    payee: Annotated[Tiny, about("0-based seat that is owed")]
    due: Annotated[int, about("chips the rules make due before the cap (`payment_due.chips`)")]
    paid: Annotated[int, about("chips the cap lets through")]
    shortfall: Annotated[int, about("`due - paid`: what the payee does not get")]
    cap: Annotated[
        str,
        about(
            "`'loser_holdings'` (the payer had no more) or `'winner_holdings'` (limited "
            "liability: the payee's own chips at the hand's start)"
        ),
    ]


ScoreRow = table_row(
    "ScoreRow",
    """One row per seat that played every hand the rules checked (`hands.checked`), whatever
    its outcome (a seat sitting out has none): the seat's final pile scored by the game's
    ruleset, itemised by combination. Key (`game_id`, `hand`, `seat`).""",
    _ScorePile,
    # each combination's column, in the rulebook's words
    rule_fields(((c.column, c.column_text) for c in RB.COMBINATIONS), int),
    _ScoreSeat,
)

PayoutRow = table_row(
    "PayoutRow",
    """One row per payer and payee of a checked hand (`hands.checked`): the chips the rules
    make due (`payment_due`, and the settlement proof of a Stop) beside the chips the table
    recorded (`payment_recorded`). There is a row for every pair the rules charge, for every
    loser of a hand won by a Stop (even at 0 chips) and for every pair with a recorded
    payment. Key (`game_id`, `hand`, `payer`, `payee`).""",
    _PayoutDue,
    # each multiplier's flag column, in the rulebook's words
    rule_fields(
        ((m.id, m.column_text) for m in RB.MULTIPLIERS if m.column), bool | None, stop_only
    ),
    _PayoutWinner,
    rule_fields([(DOKBAK_ID, RB.DOKBAK.column_text)], bool | None, stop_only),
    _PayoutNames,
)
