"""The store's views: named queries over the tables, made again whenever the schema is.

``v_events`` shows each event's ``prev`` (:data:`PREV_SQL`); the rest read the projection
tables, the players' views their per-seat sums (``hand_seats``, ``player_games``).
"""

from __future__ import annotations

from ..log.chain import GENESIS
from .tables import FLAG_IDS, SPECIAL_KINDS

__all__ = ["PREV_SQL", "VIEWS"]

#: An event's ``prev`` in SQL over ``events``: the ``hash`` of its game's event before.
PREV_SQL = "coalesce(lag(hash) OVER (PARTITION BY game_id ORDER BY seq), '" + GENESIS + "')"

VIEWS: dict[str, str] = {
    "v_events": f"""
        SELECT e.*, {PREV_SQL} AS prev, TRY_CAST(e."at" AS TIMESTAMPTZ) AS at_ts,
               TRY_CAST(left(e."at", 10) AS DATE) AS date
        FROM events e""",
    "v_hand_summary": """
        SELECT h.game_id, h.hand, g.ruleset, g.players, h.date, h.dealer,
               g.player_names[h.dealer + 1] AS dealer_name, h.outcome, h.winner,
               g.player_names[h.winner + 1] AS winner_name, h.reason, h.turns,
               h.winner_score, h.go_count, h.go_points, h.carry, h.points, h.chips,
               h.recorded_chips, h.recorded_chips - h.chips AS difference, h.checked
        FROM hands h JOIN games g USING (game_id)""",
    "v_payout_disputes": """
        SELECT p.game_id, p.hand, p.ruleset, p.payer, p.payer_name, p.payee, p.payee_name,
               p.reason,
               p.chips AS computed_chips, coalesce(p.recorded_chips, 0) AS recorded_chips,
               coalesce(p.recorded_chips, 0) - p.chips AS difference, p.multiplier, """
    + "".join(f"p.{rid}, " for rid in FLAG_IDS)
    + """p.shakes, p.bombs, p.carry,
               p.go_count, p.go_points, p.score
        FROM payouts p  -- each row carries its game's ruleset and names: no join
        WHERE p.hand_recorded AND coalesce(p.recorded_chips, 0) <> p.chips""",
    "v_specials_by_seat": """
        SELECT t.game_id, t.hand, t.seat,
               count(*) FILTER (WHERE t.ppuk) AS ppuk,
               count(*) FILTER (WHERE t.jjok) AS jjok,
               count(*) FILTER (WHERE t.ttadak) AS ttadak,
               count(*) FILTER (WHERE t.sseul) AS sseul,
               count(*) FILTER (WHERE t.bomb) AS bomb,
               count(*) FILTER (WHERE t.shaken) AS shake
        FROM turns t GROUP BY t.game_id, t.hand, t.seat""",
    "v_specials": """
        SELECT h.game_id, h.hand, h.outcome, h.winner,
               count(t.turn) FILTER (WHERE t.ppuk) AS ppuk,
               count(t.turn) FILTER (WHERE t.jjok) AS jjok,
               count(t.turn) FILTER (WHERE t.ttadak) AS ttadak,
               count(t.turn) FILTER (WHERE t.sseul) AS sseul,
               count(t.turn) FILTER (WHERE t.bomb) AS bomb,
               count(t.turn) FILTER (WHERE t.shaken) AS shake
        FROM hands h LEFT JOIN turns t USING (game_id, hand)
        GROUP BY h.game_id, h.hand, h.outcome, h.winner""",
    "v_player_ledger": """
        WITH flows AS (
            SELECT game_id, payer AS seat, -chips AS computed,
                   -coalesce(recorded_chips, 0) AS recorded
            FROM payouts
            UNION ALL
            SELECT game_id, payee, chips, coalesce(recorded_chips, 0) FROM payouts
        ), won AS (
            SELECT game_id, winner AS seat, count(*) AS hands_won
            FROM hands WHERE winner IS NOT NULL GROUP BY game_id, winner
        )
        SELECT f.game_id, g.ruleset, f.seat, g.player_ids[f.seat + 1] AS player_id,
               g.player_names[f.seat + 1] AS player_name,
               coalesce(any_value(w.hands_won), 0) AS hands_won,
               sum(f.computed) AS computed_chips, sum(f.recorded) AS recorded_chips,
               sum(f.recorded) - sum(f.computed) AS difference
        FROM flows f JOIN games g USING (game_id)
        LEFT JOIN won w ON w.game_id = f.game_id AND w.seat = f.seat
        GROUP BY f.game_id, g.ruleset, f.seat, g.player_ids, g.player_names""",
    # the night's settlement, read from the events as recorded: the latest
    # settlement_proposed of a game (game_closed's consequence) per seat, beside what the
    # table paid; events an entry_retracted undid are left out, as the projector leaves them
    "v_settlements": """
        WITH undone AS (
            SELECT game_id, CAST(payload->>'seq' AS INTEGER) AS lo, seq AS hi
            FROM events WHERE type = 'entry_retracted'
        ), live AS (
            SELECT e.game_id, e.seq, e.type, e.payload FROM events e
            WHERE e.type IN ('settlement_proposed', 'settlement_paid')
              AND NOT EXISTS (
                  SELECT 1 FROM undone u
                  WHERE u.game_id = e.game_id AND e.seq BETWEEN u.lo AND u.hi)
        ), proposed AS (
            SELECT game_id, arg_max(seq, seq) AS seq, arg_max(payload, seq) AS payload
            FROM live WHERE type = 'settlement_proposed' GROUP BY game_id
        ), seats AS (
            SELECT p.game_id, p.seq, s.seat - 1 AS seat,
                   CAST(p.payload->'totals' AS BIGINT[])[s.seat] AS total,
                   CAST(p.payload->'paid' AS BIGINT[])[s.seat] AS paid_during_night
            FROM proposed p,
                 generate_series(1, CAST(json_array_length(p.payload->'totals') AS BIGINT))
                     AS s(seat)
        ), flows AS (
            SELECT game_id, CAST(payload->>'payer' AS INTEGER) AS seat,
                   -CAST(payload->>'chips' AS BIGINT) AS chips
            FROM live WHERE type = 'settlement_paid'
            UNION ALL
            SELECT game_id, CAST(payload->>'payee' AS INTEGER),
                   CAST(payload->>'chips' AS BIGINT)
            FROM live WHERE type = 'settlement_paid'
        ), settled AS (
            SELECT game_id, seat, sum(chips) AS chips FROM flows GROUP BY game_id, seat
        )
        SELECT s.game_id, g.ruleset, s.seat, g.player_ids[s.seat + 1] AS player_id,
               g.player_names[s.seat + 1] AS player_name, s.total,
               s.paid_during_night,
               CAST(coalesce(t.chips, 0) AS BIGINT) AS paid_in_settlement,
               s.paid_during_night + coalesce(t.chips, 0) AS paid,
               s.total - s.paid_during_night - coalesce(t.chips, 0) AS owed,
               s.seq AS proposed_seq
        FROM seats s JOIN games g USING (game_id)
        LEFT JOIN settled t ON t.game_id = s.game_id AND t.seat = s.seat""",
}


def _player_views() -> dict[str, str]:
    """The per-player views: every figure of a player's page is read from these.

    They read ``hand_seats``, whose rows the projection sums per (game, hand, seat) when it
    derives a hand, and ``player_games``, those rows summed per (game, seat): on a large
    store grouping and joining the event rows by those keys is what a page would otherwise
    wait for.
    """
    columns = [
        *(f"{k}_{side}" for k in SPECIAL_KINDS for side in ("made", "suffered")),
        *(f"{b}_{side}" for b in FLAG_IDS for side in ("paid", "received")),
    ]
    sums = ", ".join(f"sum({c}) AS {c}" for c in columns)
    return {
        "v_player_hands": f"""
        SELECT h.game_id, h.hand, h.started_at, h.date, h.ruleset, h.seat, h.player_id,
               h.player_name, h.outcome, h.won, h.gos, h.chips, h.recorded_chips,
               {", ".join("h." + c for c in columns)}, h.sat_out,
               coalesce(p.counts_for, h.player_id) AS person_id
        FROM hand_seats h LEFT JOIN people p ON p.person_id = h.player_id WHERE h.ended""",
        "v_player_gos": """
        SELECT d.game_id, d.hand, d.seq, d.seat, s.player_id, s.player_name, s.ruleset,
               s.date, d.go_count, d.score, s.outcome, d.won_by_stop AS paid_off,
               coalesce(p.counts_for, s.player_id) AS person_id
        FROM decisions d
        JOIN hand_seats s ON s.game_id = d.game_id AND s.hand = d.hand AND s.seat = d.seat
        LEFT JOIN people p ON p.person_id = s.player_id
        WHERE d.kind = 'go' AND s.ended""",
        # ``player_games`` sums each game's ``v_player_hands`` rows per seat, so a player's
        # figures add a row per game (a seat's Gos pay off when it wins the hand by a Stop);
        # a person's row counts every id merged into theirs (``people.counts_for``), under
        # every name they were seated by (``names``)
        "v_player_stats": f"""
        SELECT s.player_id, coalesce(any_value(c.name), arg_max(s.player_name, s.last_started_at))
                   AS player_name,
               count(DISTINCT s.game_id) AS games, sum(hands) AS hands, sum(wins) AS wins,
               sum(chips) AS chips, round(sum(chips) / nullif(sum(hands), 0), 2) AS avg_chips,
               sum(recorded_chips) AS recorded_chips, sum(gos) AS gos,
               sum(gos_paid_off) AS gos_paid_off, {sums},
               list(DISTINCT s.player_name ORDER BY s.player_name) AS names,
               list(DISTINCT s.seat_id ORDER BY s.seat_id) AS ids
        FROM (SELECT g.* EXCLUDE (player_id), g.player_id AS seat_id,
                     coalesce(p.counts_for, g.player_id) AS player_id
              FROM player_games g LEFT JOIN people p ON p.person_id = g.player_id) s
        LEFT JOIN people c ON c.person_id = s.player_id
        GROUP BY s.player_id""",
        # every person a game seated or the people record names: their name now (a
        # rename's, else the one at their latest game), the person their games count for
        "v_people": """
        WITH seats AS (
            SELECT game_id, started_at, unnest(player_ids) AS player_id,
                   unnest(player_names) AS name
            FROM games
        ), seated AS (
            SELECT player_id, arg_max(name, started_at) AS name,
                   count(DISTINCT game_id) AS games, max(started_at) AS last_started_at
            FROM seats GROUP BY player_id
        )
        SELECT coalesce(p.person_id, s.player_id) AS person_id,
               coalesce(p.name, s.name) AS name, s.name AS name_at_table, p.named_at,
               p.merged_into, coalesce(p.counts_for, s.player_id, p.person_id) AS counts_for,
               coalesce(s.games, 0) AS games, s.last_started_at,
               coalesce(p.forgotten, false) AS forgotten
        FROM people p FULL JOIN seated s ON s.player_id = p.person_id""",
    }


VIEWS.update(_player_views())
