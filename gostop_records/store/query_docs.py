"""What the store's views give (:data:`VIEW_DOCS`), how its tables join
(:data:`JOINS`) and example queries (:data:`EXAMPLES`), for the SQL reference
(:mod:`.columns`). The descriptions follow the conventions of :mod:`.tables`.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..engine import rulebook as RB
from .tables import FLAG_IDS, SPECIAL_KINDS

__all__ = ["EXAMPLES", "JOINS", "VIEW_DOCS"]


def _each(ids: Sequence[str], *suffixes: str) -> str:
    """The columns a view gives per special or payout flag, as the reference names them:
    ``_each(("jjok",), "made", "suffered")`` is "`jjok_made`, `jjok_suffered`"."""
    return ", ".join(f"`{i}_{s}`" for i in ids for s in suffixes)


VIEW_DOCS: dict[str, str] = {
    "v_events": (
        "The raw record with its chain link and its time parsed: every `events` column plus "
        "`prev` (the `hash` of the game's event before, 64 zeros for `seq` 1, as in the log), "
        "`at_ts` (`at` as a TIMESTAMPTZ, NULL when it does not parse) and `date` (the UTC "
        "date of `at`), to filter events by time."
    ),
    "v_hand_summary": (
        "How did each hand end and what did it pay? One row per hand with the seats named: "
        "`game_id`, `hand`, `ruleset`, `players`, `date`, `dealer` and `dealer_name`, "
        "`outcome`, `winner` and `winner_name`, `reason`, `turns`, `winner_score`, "
        "`go_count`, `go_points`, `carry`, `points`, `chips` (computed), `recorded_chips`, "
        "`difference` (`recorded_chips` minus `chips`, NULL when either is) and `checked`, "
        "as in `hands`."
    ),
    "v_payout_disputes": (
        "Which recorded payments differ from what the rules make due? The `payouts` rows of "
        "hands with recorded payments where the recorded chips (none recorded counts 0) "
        "differ from the computed ones: `game_id`, `hand`, `ruleset`, `payer`, `payer_name`, "
        "`payee`, `payee_name`, `reason`, `computed_chips`, `recorded_chips`, `difference` "
        "(recorded minus computed), and the settlement behind the computed amount: "
        "`multiplier`, "
        + "".join(f"`{m.id}`, " for m in RB.MULTIPLIERS if m.column)
        + "`shakes`, `bombs`, `carry`, `go_count`, `go_points`, `score`."
    ),
    "v_specials_by_seat": (
        "Which specials did each seat make in each hand? One row per `game_id`, `hand` and "
        "`seat` that played a turn, counting its turns with `ppuk`, `jjok`, `ttadak`, "
        "`sseul`, `bomb` and `shake` (a shaken turn)."
    ),
    "v_specials": (
        "The same counts per hand, all seats together: `game_id`, `hand`, `outcome`, "
        "`winner`, then the turns with `ppuk`, `jjok`, `ttadak`, `sseul`, `bomb` and `shake`; "
        "every hand has a row (zeros when it had no turns)."
    ),
    "v_player_ledger": (
        "Who won and lost how much in each game? One row per seat that appears in `payouts`: "
        "`game_id`, `ruleset`, `seat`, `player_id`, `player_name`, `hands_won` (instant wins "
        "included), `computed_chips` (net chips the rules make due: received minus paid), "
        "`recorded_chips` (net chips recorded as paid) and `difference` (recorded minus "
        "computed)."
    ),
    "v_settlements": (
        "The night's settlement (정산) of each closed game: who owes whom at the end of the "
        "night? One row per seat of every game closed with `game_closed`, from its "
        "`settlement_proposed` (the latest one an undo left standing) and the "
        "`settlement_paid` after it: `game_id`, `ruleset`, `seat`, `player_id`, "
        "`player_name`, `total` (net chips over all the game's hands, the dues after caps: "
        "positive won, negative lost), `paid_during_night` (net chips recorded as paid "
        "during the night, `payment_recorded`: received minus paid), `paid_in_settlement` "
        "(net chips of the settlement's recorded transfers, `settlement_paid`: received "
        "minus paid), `paid` (the two together), `owed` (`total` minus `paid`: 0 once the "
        "seat is square; positive: still owed to the seat, negative: the seat still owes) "
        "and `proposed_seq` (the seq of the `settlement_proposed`)."
    ),
    "v_player_hands": (
        "What did each player make of each hand? One row per seat of every ended hand: "
        "`game_id`, `hand`, `started_at`, `date`, `ruleset`, `seat`, `player_id`, "
        "`player_name`, `outcome`, `won` (the seat won it, instant wins included), `gos` "
        "(the Gos the seat called), `chips` (net chips the rules make due to the seat in the "
        "hand: received minus paid), `recorded_chips` (net chips recorded, a payment not "
        "recorded counting 0); for each special, the seat's turns with it ("
        + _each(SPECIAL_KINDS, "made")
        + ") and the other seats' turns with it in the same hand ("
        + _each(SPECIAL_KINDS, "suffered")
        + "), counted as `v_specials_by_seat` counts them; for each payout flag, the seat's "
        "payments in the hand that carry it as payer ("
        + _each(FLAG_IDS, "paid")
        + ") and as payee ("
        + _each(FLAG_IDS, "received")
        + "); `sat_out`: the seat sat the hand out (4 or 5 seats), its `chips` what it sold; "
        "`person_id`: the person the seat's hands count for (`people.counts_for`, else "
        "`player_id`)."
    ),
    "v_player_gos": (
        "Did a Go pay off? One row per Go called in an ended hand: `game_id`, `hand`, `seq`, "
        "`seat`, `player_id`, `player_name`, `ruleset`, `date`, `go_count` (the Go's number "
        "in the hand), `score` (the score it was called at), the hand's `outcome`, "
        "`paid_off`: the caller went on to win the hand by a Stop, and `person_id` (as in "
        "`v_player_hands`)."
    ),
    "v_player_stats": (
        "Each person's figures over the whole store, by `player_id`: the person every id "
        "merged into theirs counts for (`people.counts_for`). `player_name` is the name a "
        "rename gave, else the latest used at a table; `names` every name they were seated "
        "by, `ids` every id their games seat them as; `games`, `hands` (ended hands played, "
        "not sat out), `wins`, `chips` and `recorded_chips` (net, as in `v_player_hands`, sales "
        "included), `avg_chips` (chips per hand played, 2 decimals), `gos` and "
        "`gos_paid_off` (as counted over `v_player_gos`), and the sums of "
        "`v_player_hands`' special and payout flag counts (summed from `player_games`): "
        + _each(SPECIAL_KINDS, "made", "suffered")
        + ", "
        + _each(FLAG_IDS, "paid", "received")
        + "."
    ),
    "v_people": (
        "Who is who? One row per person a game seated or the people record names: "
        "`person_id`, `name` (a rename's, else the one at their latest game), "
        "`name_at_table` (the one at their latest game), `named_at`, `merged_into` and "
        "`counts_for` (as in `people`), `games` (the games that seated this id), "
        "`last_started_at` (when the latest of them started) and `forgotten` (as in "
        "`people`; false for a person it does not name)."
    ),
}


JOINS = """\
A game is `game_id`, a hand (`game_id`, `hand`) with `hand` counted from 1 in each game, an
event (`game_id`, `seq`). `games` joins `hands` on `game_id`; `hands` joins `turns`,
`captures`, `transfers`, `decisions`, `scores` and `payouts` on (`game_id`, `hand`);
`captures`, `transfers` and `decisions` reach their turn on (`game_id`, `hand`, `turn`) and
their event, with every field of it in `payload`, on (`game_id`, `seq`). Seats are 0-based in
the game's seat order: the name of seat s is `games.player_names[s + 1]` (DuckDB lists
count from 1). Chips are points times `games.stake`. The keys below are not declared as
constraints, except `events`' primary key. Events undone by `entry_retracted` stay in
`events` and are left out of every other table. The rules' own numbers (`scores`, `payouts`,
`hands.points` and the like) exist only for hands the rules could check (`hands.checked`).
`meta` holds the schema version (key `'schema_version'`)."""


#: Example questions and their SQL (one statement each); a test runs them on a simulated
#: store and expects rows.
EXAMPLES: tuple[tuple[str, str], ...] = (
    (
        "What does a loser pay in a hand won by a Stop, by the winner's number of Gos?",
        """\
SELECT h.ruleset, h.go_count AS winner_gos, count(*) AS loser_rows,
       round(avg(p.chips), 2) AS avg_chips, max(p.multiplier) AS max_multiplier,
       count(*) FILTER (WHERE p.pi_bak) AS pi_bak
FROM payouts p
JOIN hands h USING (game_id, hand)
WHERE h.outcome = 'stop' AND h.checked AND p.payee = h.winner
GROUP BY h.ruleset, h.go_count
ORDER BY h.ruleset, winner_gos;""",
    ),
    (
        "Each player's hands, wins and average final score, by name",
        """\
SELECT g.player_names[s.seat + 1] AS player, count(*) AS hands,
       count(*) FILTER (WHERE s.winner) AS won, round(avg(s.total), 2) AS avg_score,
       round(avg(s.junk_units), 1) AS avg_junk_units
FROM scores s
JOIN games g USING (game_id)
GROUP BY player
ORDER BY won DESC, player;""",
    ),
    (
        "What do the flips take, by the kind of card flipped?",
        """\
SELECT t.flipped_kind, c.capture_kind, count(*) AS cards
FROM captures c
JOIN turns t USING (game_id, hand, turn)
WHERE c.source IN ('flip', 'hand_and_flip')
GROUP BY t.flipped_kind, c.capture_kind
ORDER BY cards DESC, t.flipped_kind, c.capture_kind;""",
    ),
    (
        'Recorded payments read straight from the log (note the quoted "at")',
        """\
SELECT game_id, hand, seq, "at",
       CAST(payload ->> 'payer' AS INTEGER) AS payer,
       CAST(payload ->> 'payee' AS INTEGER) AS payee,
       CAST(payload ->> 'chips' AS INTEGER) AS chips, payload ->> 'note' AS note
FROM events
WHERE type = 'payment_recorded'
ORDER BY game_id, seq
LIMIT 10;""",
    ),
)
