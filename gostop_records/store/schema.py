"""The store's tables, views and schema migrations.

``events`` is the record: one row per envelope, the payload as JSON exactly as it was hashed,
``PRIMARY KEY (game_id, seq)``. It holds each event's ``hash`` but not its ``prev``, which is
the ``hash`` of the game's event before (64 zeros at ``seq`` 1): ``v_events`` shows it, from
``lag(hash)``. Every other table is a projection, derived from the events
and the projector's results and rebuildable at any time (``gostop db rebuild``); ``positions``
holds how far each game's projection rows go. ``meta`` holds the schema version.

Column names follow the log. ``at`` and ``by`` are reserved words in DuckDB's SQL: write
them ``"at"`` and ``"by"`` (or ``e.at``) in queries; the projection tables use
``started_at`` and ``recorded_by`` instead.

A file written by an older version is upgraded when a writer opens it: :data:`MIGRATIONS`
maps a version to the step that brings a file from it to the next one, and the steps run
in order, each in its own transaction, until :data:`SCHEMA_VERSION`; then the views are
made again over the tables as they now stand (a step adds tables and columns, never views,
since a view of the current schema may read a column a later step adds).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

from ..engine import rulebook as RB
from ..log.chain import GENESIS
from .errors import StoreError

if TYPE_CHECKING:
    import duckdb

__all__ = [
    "BAK_IDS",
    "COMBO_IDS",
    "DOKBAK_ID",
    "EVENT_COLUMNS",
    "FLAG_IDS",
    "GAME_TABLES",
    "HAND_TABLES",
    "HEADS_COLUMNS",
    "KEYS",
    "MIGRATIONS",
    "PEOPLE_COLUMNS",
    "PERSON_EVENT_COLUMNS",
    "PERSON_KEY_COLUMNS",
    "PREV_SQL",
    "PROJECTIONS",
    "SCHEMA_VERSION",
    "SPECIAL_KINDS",
    "TABLES",
    "VIEWS",
    "create_schema",
    "file_version",
    "migrate",
    "projection_ddl",
    "quote",
]

#: The schema this version writes.
SCHEMA_VERSION = 9

Columns = tuple[tuple[str, str], ...]

#: ``scores`` has a ``<id>_points`` column per combination of the rulebook, in its order.
COMBO_IDS: tuple[str, ...] = tuple(c.id for c in RB.COMBINATIONS)
#: ``payouts`` has a BOOLEAN column per multiplier that has one (``column = True``), after
#: ``multiplier``, and one for dokbak at the end.
FLAG_IDS: tuple[str, ...] = tuple(m.id for m in RB.MULTIPLIERS if m.column)
DOKBAK_ID = RB.DOKBAK.id
#: The special plays counted per seat (columns of ``v_specials_by_seat`` and ``hand_seats``);
#: the payout flags (``BAK_IDS``, the ``FLAG_IDS``) are counted as bak paid and received.
SPECIAL_KINDS = ("ppuk", "jjok", "ttadak", "sseul", "bomb", "shake")

EVENT_COLUMNS: Columns = (
    ("game_id", "VARCHAR"),
    ("seq", "INTEGER"),
    ("type", "VARCHAR"),
    ("hand", "INTEGER"),
    ("at", "VARCHAR"),
    ("recorded_at", "VARCHAR"),
    ("by", "VARCHAR"),
    ("v", "INTEGER"),
    ("payload", "JSON"),
    ("hash", "VARCHAR"),
)
#: An event's ``prev`` in SQL over ``events``: the ``hash`` of its game's event before.
PREV_SQL = "coalesce(lag(hash) OVER (PARTITION BY game_id ORDER BY seq), '" + GENESIS + "')"

#: The store's chain of game heads (see :mod:`.heads`): a record like ``events``, never
#: rebuilt.
HEADS_COLUMNS: Columns = (
    ("entry", "BIGINT"),
    ("kind", "VARCHAR"),
    ("game_id", "VARCHAR"),
    ("seq", "INTEGER"),
    ("head", "VARCHAR"),
    ("recorded_at", "VARCHAR"),
    ("detail", "VARCHAR"),
    ("prev", "VARCHAR"),
    ("hash", "VARCHAR"),
)

#: The people record (see :mod:`gostop_records.people`): its events, a chain of their own
#: with the columns of ``events`` (``game_id`` is always ``people``), never rebuilt; and
#: ``people``, what they say per person, derived from them again on every append.
PERSON_EVENT_COLUMNS: Columns = EVENT_COLUMNS
#: Each person's key, under which the names their games hold are sealed (``names``):
#: outside every hashed record; forgetting a person deletes their row.
PERSON_KEY_COLUMNS: Columns = (("person_id", "VARCHAR"), ("key", "BLOB"))
PEOPLE_COLUMNS: Columns = (
    ("person_id", "VARCHAR"),
    ("name", "VARCHAR"),
    ("named_at", "VARCHAR"),
    ("merged_into", "VARCHAR"),
    ("counts_for", "VARCHAR"),
    ("forgotten", "BOOLEAN"),
)

#: Projection tables in the order they are derived; column order is the row tuple order.
TABLES: dict[str, Columns] = {
    "games": (
        ("game_id", "VARCHAR"),
        ("ruleset", "VARCHAR"),
        ("ruleset_hash", "VARCHAR"),
        ("players", "TINYINT"),
        ("player_ids", "VARCHAR[]"),
        ("player_names", "VARCHAR[]"),
        ("stake", "INTEGER"),
        ("venue", "VARCHAR"),
        ("started_at", "VARCHAR"),
        ("started_on", "DATE"),
        ("last_at", "VARCHAR"),
        ("recorded_by", "VARCHAR"),
        ("events", "INTEGER"),
        ("hands", "INTEGER"),
        ("hands_ended", "INTEGER"),
        ("violations", "INTEGER"),
    ),
    "hands": (
        ("game_id", "VARCHAR"),
        ("hand", "INTEGER"),
        ("ruleset", "VARCHAR"),
        ("players", "TINYINT"),
        ("dealer", "TINYINT"),
        ("started_at", "VARCHAR"),
        ("date", "DATE"),
        ("outcome", "VARCHAR"),
        ("winner", "TINYINT"),
        ("reason", "VARCHAR"),
        ("carry", "INTEGER"),
        ("next_carry", "INTEGER"),
        ("turns", "INTEGER"),
        ("gos", "INTEGER"),
        ("stop_score", "INTEGER"),
        ("winner_score", "INTEGER"),
        ("go_count", "INTEGER"),
        ("go_points", "INTEGER"),
        ("points", "INTEGER"),
        ("chips", "INTEGER"),
        ("recorded_chips", "INTEGER"),
        ("ended", "BOOLEAN"),
        ("checked", "BOOLEAN"),
    ),
    "turns": (
        ("game_id", "VARCHAR"),
        ("hand", "INTEGER"),
        ("turn", "INTEGER"),
        ("seq", "INTEGER"),
        ("seat", "TINYINT"),
        ("action", "VARCHAR"),
        ("played", "VARCHAR"),
        ("played_month", "TINYINT"),
        ("played_kind", "VARCHAR"),
        ("chosen", "VARCHAR"),
        ("bomb_cards", "VARCHAR[]"),
        ("flipped", "VARCHAR"),
        ("flipped_month", "TINYINT"),
        ("flipped_kind", "VARCHAR"),
        ("flips", "TINYINT"),
        ("bonus_cards", "TINYINT"),
        ("shaken", "BOOLEAN"),
        ("bomb", "BOOLEAN"),
        ("flip_only", "BOOLEAN"),
        ("ppuk", "BOOLEAN"),
        ("jjok", "BOOLEAN"),
        ("ttadak", "BOOLEAN"),
        ("sseul", "BOOLEAN"),
        ("captured", "INTEGER"),
        ("junk_taken", "INTEGER"),
        ("score_after", "INTEGER"),
    ),
    "captures": (
        ("game_id", "VARCHAR"),
        ("hand", "INTEGER"),
        ("seq", "INTEGER"),
        ("turn", "INTEGER"),
        ("seat", "TINYINT"),
        ("card", "VARCHAR"),
        ("month", "TINYINT"),
        ("card_kind", "VARCHAR"),
        ("capture_kind", "VARCHAR"),
        ("source", "VARCHAR"),
        ("position", "TINYINT"),
    ),
    "transfers": (
        ("game_id", "VARCHAR"),
        ("hand", "INTEGER"),
        ("seq", "INTEGER"),
        ("turn", "INTEGER"),
        ("from_seat", "TINYINT"),
        ("to_seat", "TINYINT"),
        ("card", "VARCHAR"),
        ("month", "TINYINT"),
        ("card_kind", "VARCHAR"),
        ("reason", "VARCHAR"),
    ),
    "decisions": (
        ("game_id", "VARCHAR"),
        ("hand", "INTEGER"),
        ("seq", "INTEGER"),
        ("turn", "INTEGER"),
        ("seat", "TINYINT"),
        ("kind", "VARCHAR"),
        ("go_count", "INTEGER"),
        ("score", "INTEGER"),
        ("auto", "BOOLEAN"),
        ("cup_role", "VARCHAR"),
        ("won_by_stop", "BOOLEAN"),
    ),
    "scores": (
        ("game_id", "VARCHAR"),
        ("hand", "INTEGER"),
        ("seat", "TINYINT"),
        ("winner", "BOOLEAN"),
        ("total", "INTEGER"),
        ("brights", "TINYINT"),
        ("animals", "TINYINT"),
        ("ribbons", "TINYINT"),
        ("junk_units", "INTEGER"),
        *((f"{c}_points", "INTEGER") for c in COMBO_IDS),
        ("cup_role", "VARCHAR"),
        ("go_count", "INTEGER"),
        ("shakes", "INTEGER"),
        ("bombs", "INTEGER"),
        ("ppuk", "INTEGER"),
    ),
    "payouts": (
        ("game_id", "VARCHAR"),
        ("hand", "INTEGER"),
        ("payer", "TINYINT"),
        ("payee", "TINYINT"),
        ("reason", "VARCHAR"),
        ("points", "INTEGER"),
        ("chips", "INTEGER"),
        ("instant_chips", "INTEGER"),
        ("recorded_chips", "INTEGER"),
        ("hand_recorded", "BOOLEAN"),
        ("difference", "INTEGER"),
        ("stake", "INTEGER"),
        ("score", "INTEGER"),
        ("go_count", "INTEGER"),
        ("go_points", "INTEGER"),
        ("multiplier", "INTEGER"),
        *((rid, "BOOLEAN") for rid in FLAG_IDS),
        ("shakes", "INTEGER"),
        ("bombs", "INTEGER"),
        ("carry", "INTEGER"),
        (DOKBAK_ID, "BOOLEAN"),
        # the game's, on the row: the disputes need no join with ``games``
        ("ruleset", "VARCHAR"),
        ("payer_name", "VARCHAR"),
        ("payee_name", "VARCHAR"),
    ),
    # the table around the hand: 4-5 seats, gwang-pali, chips, the draw for the first deal
    "sitting_out": (
        ("game_id", "VARCHAR"),
        ("hand", "INTEGER"),
        ("seq", "INTEGER"),
        ("seat", "TINYINT"),
        ("rule", "VARCHAR"),
        ("brights_sold", "VARCHAR[]"),
        ("sale_points", "INTEGER"),
        ("sale_chips", "INTEGER"),
    ),
    "capped_payments": (
        ("game_id", "VARCHAR"),
        ("hand", "INTEGER"),
        ("seq", "INTEGER"),
        ("payer", "TINYINT"),
        ("payee", "TINYINT"),
        ("due", "INTEGER"),
        ("paid", "INTEGER"),
        ("shortfall", "INTEGER"),
        ("cap", "VARCHAR"),
    ),
    # per-hand summaries of the rows above, for queries over every hand of a large store
    "capture_tallies": (
        ("game_id", "VARCHAR"),
        ("hand", "INTEGER"),
        ("capture_kind", "VARCHAR"),
        ("cards", "SMALLINT"),
        ("captures", "SMALLINT"),
    ),
    "transfer_tallies": (
        ("game_id", "VARCHAR"),
        ("hand", "INTEGER"),
        ("reason", "VARCHAR"),
        ("cards", "SMALLINT"),
        ("double_junk", "SMALLINT"),
        ("bonus_cards", "SMALLINT"),
    ),
    "hand_seats": (
        ("game_id", "VARCHAR"),
        ("hand", "INTEGER"),
        ("seat", "TINYINT"),
        ("player_id", "VARCHAR"),
        ("player_name", "VARCHAR"),
        ("started_at", "VARCHAR"),
        ("date", "DATE"),
        ("ruleset", "VARCHAR"),
        ("outcome", "VARCHAR"),
        ("ended", "BOOLEAN"),
        ("checked", "BOOLEAN"),
        ("won", "BOOLEAN"),
        ("sat_out", "BOOLEAN"),
        ("gos", "SMALLINT"),
        ("chips", "INTEGER"),
        ("recorded_chips", "INTEGER"),
        ("payments_received", "SMALLINT"),
        *((f"{k}_{side}", "SMALLINT") for k in SPECIAL_KINDS for side in ("made", "suffered")),
        *((f"{b}_{side}", "SMALLINT") for b in FLAG_IDS for side in ("paid", "received")),
    ),
    # per game and seat: the seat's ended hands of ``hand_seats`` summed (the players' views)
    "player_games": (
        ("game_id", "VARCHAR"),
        ("seat", "TINYINT"),
        ("player_id", "VARCHAR"),
        ("player_name", "VARCHAR"),
        ("last_started_at", "VARCHAR"),
        ("hands", "INTEGER"),
        ("hands_sat_out", "INTEGER"),
        ("wins", "INTEGER"),
        ("chips", "BIGINT"),
        ("recorded_chips", "BIGINT"),
        ("gos", "INTEGER"),
        ("gos_paid_off", "INTEGER"),
        *((f"{k}_{side}", "INTEGER") for k in SPECIAL_KINDS for side in ("made", "suffered")),
        *((f"{b}_{side}", "INTEGER") for b in FLAG_IDS for side in ("paid", "received")),
    ),
    "seats": (
        ("game_id", "VARCHAR"),
        ("seat", "TINYINT"),
        ("player_id", "VARCHAR"),
        ("hands_played", "INTEGER"),
        ("hands_sat_out", "INTEGER"),
        ("chips_counted", "INTEGER"),
        ("chips_held", "INTEGER"),
        ("broke", "BOOLEAN"),
        ("draw_card", "VARCHAR"),
        ("first_dealer", "BOOLEAN"),
    ),
    "issues": (
        ("game_id", "VARCHAR"),
        ("seq", "INTEGER"),
        ("hand", "INTEGER"),
        ("rule", "VARCHAR"),
        ("reason", "VARCHAR"),
        ("severity", "VARCHAR"),
    ),
    "positions": (
        ("game_id", "VARCHAR"),
        ("seq", "INTEGER"),
        ("hash", "VARCHAR"),
    ),
}

#: Tables whose rows belong to one hand (re-derived per hand on a live append).
HAND_TABLES = (
    "hands",
    "turns",
    "captures",
    "transfers",
    "decisions",
    "scores",
    "payouts",
    "sitting_out",
    "capped_payments",
    "capture_tallies",
    "transfer_tallies",
    "hand_seats",
)
#: Tables with one set of rows per game (derived again on every change to the game;
#: ``player_games`` from the game's ``hand_seats`` rows, see :func:`.projections.player_games`).
GAME_TABLES = ("games", "issues", "positions", "player_games", "seats")
#: Columns that tell a game's rows of a table apart, so that a live append can update or
#: delete single rows. Not constraints: the writer checks that they are unique and falls
#: back to replacing the rows when they are not. ``issues`` has none.
KEYS: dict[str, tuple[str, ...]] = {
    "games": ("game_id",),
    "hands": ("game_id", "hand"),
    "turns": ("game_id", "hand", "turn"),
    "captures": ("game_id", "hand", "seq", "card"),
    "transfers": ("game_id", "hand", "seq", "card"),
    "decisions": ("game_id", "hand", "seq"),
    "scores": ("game_id", "hand", "seat"),
    "payouts": ("game_id", "hand", "payer", "payee"),
    "sitting_out": ("game_id", "hand", "seat"),
    "capped_payments": ("game_id", "hand", "seq", "payer", "payee"),
    "capture_tallies": ("game_id", "hand", "capture_kind"),
    "transfer_tallies": ("game_id", "hand", "reason"),
    "hand_seats": ("game_id", "hand", "seat"),
    "player_games": ("game_id", "seat"),
    "seats": ("game_id", "seat"),
    "positions": ("game_id",),
}
PROJECTIONS = tuple(TABLES)

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

BAK_IDS = FLAG_IDS


def _player_views() -> dict[str, str]:
    """The per-player views: every figure of a player's page is read from these.

    They read ``hand_seats``, whose rows the projection sums per (game, hand, seat) when it
    derives a hand, and ``player_games``, those rows summed per (game, seat): on a large
    store grouping and joining the event rows by those keys is what a page would otherwise
    wait for.
    """
    columns = [
        *(f"{k}_{side}" for k in SPECIAL_KINDS for side in ("made", "suffered")),
        *(f"{b}_{side}" for b in BAK_IDS for side in ("paid", "received")),
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


def quote(name: str) -> str:
    """A column or table name as a quoted SQL identifier (``at`` and ``by`` are reserved)."""
    return '"' + name.replace('"', '""') + '"'


def _table_ddl(name: str, cols: Columns, extra: str = "") -> str:
    body = ", ".join(f"{quote(c)} {t}" for c, t in cols)
    return f"CREATE TABLE IF NOT EXISTS {name} ({body}{extra})"


def projection_ddl(table: str, name: str | None = None) -> str:
    """The ``CREATE TABLE`` of projection table ``table``, under ``name`` (another name: the
    rebuild's new table beside the live one, see :mod:`.staging`)."""
    return _table_ddl(name or table, TABLES[table])


def _events_ddl(columns: Columns = EVENT_COLUMNS) -> str:
    """``events`` with these columns (an older version's, for a test of its migration)."""
    cols = []
    for c, t in columns:
        null = "" if c == "hand" else " NOT NULL"
        cols.append(f"{quote(c)} {t}{null}")
    return f"CREATE TABLE IF NOT EXISTS events ({', '.join(cols)}, PRIMARY KEY (game_id, seq))"


def _heads_ddl() -> str:
    return _table_ddl("heads", HEADS_COLUMNS, ", PRIMARY KEY (entry)")


def _people_ddl(conn: duckdb.DuckDBPyConnection) -> None:
    """The people record's tables (:data:`PERSON_EVENT_COLUMNS`, :data:`PEOPLE_COLUMNS`)."""
    conn.execute(_table_ddl("person_events", PERSON_EVENT_COLUMNS, ", PRIMARY KEY (seq)"))
    conn.execute(_table_ddl("people", PEOPLE_COLUMNS, ", PRIMARY KEY (person_id)"))
    conn.execute(_table_ddl("person_keys", PERSON_KEY_COLUMNS, ", PRIMARY KEY (person_id)"))


def _create_tables(conn: duckdb.DuckDBPyConnection) -> None:
    """The projection tables a file lacks (a migration step adds the columns it lacks)."""
    for name, cols in TABLES.items():
        conn.execute(_table_ddl(name, cols))


def _create_views(conn: duckdb.DuckDBPyConnection) -> None:
    for name, sql in VIEWS.items():
        conn.execute(f"CREATE OR REPLACE VIEW {name} AS {sql}")


def _create_projections(conn: duckdb.DuckDBPyConnection) -> None:
    _create_tables(conn)
    _create_views(conn)


def _set_version(conn: duckdb.DuckDBPyConnection, version: int) -> None:
    conn.execute("CREATE TABLE IF NOT EXISTS meta (key VARCHAR PRIMARY KEY, value VARCHAR)")
    conn.execute("DELETE FROM meta WHERE key = 'schema_version'")
    conn.execute("INSERT INTO meta VALUES ('schema_version', ?)", [str(version)])


def create_schema(conn: duckdb.DuckDBPyConnection) -> None:
    """Every table and view of the current schema, in a new file."""
    conn.execute("BEGIN TRANSACTION")
    try:
        conn.execute(_events_ddl())
        conn.execute(_heads_ddl())
        _people_ddl(conn)
        _create_projections(conn)
        _set_version(conn, SCHEMA_VERSION)
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise


def _v0_to_v1(conn: duckdb.DuckDBPyConnection) -> None:
    """Version 0 is a bare ``events`` table: add the projection tables (the views of the
    current schema are made once the last step has run).

    The projection rows themselves are derived by the store after the migration (every
    game is then behind its position).
    """
    _create_tables(conn)


def _v1_to_v2(conn: duckdb.DuckDBPyConnection) -> None:
    """Version 2 numbers the cards of a capture (``captures.position``), so that captures
    are counted with one scan instead of a distinct count over millions of rows. The store
    derives the rows again after the migration."""
    columns = {r[0] for r in conn.execute("DESCRIBE captures").fetchall()}
    if "position" not in columns:
        conn.execute("ALTER TABLE captures ADD COLUMN position TINYINT")


def _v2_to_v3(conn: duckdb.DuckDBPyConnection) -> None:
    """Version 3 keeps the store's own chain of game heads (``heads``), which begins with an
    entry for every game already stored."""
    from .heads import adopt

    conn.execute(_heads_ddl())
    adopt(conn)


def _v3_to_v4(conn: duckdb.DuckDBPyConnection) -> None:
    """Version 4 chains every live append, not only hand ends: the games whose events go
    on past their latest entry get one now (:func:`.heads.adopt_tails`)."""
    from .heads import adopt_tails

    adopt_tails(conn)


def _v4_to_v5(conn: duckdb.DuckDBPyConnection) -> None:
    """Version 5 adds the tables of the table around the hand (``sitting_out``,
    ``capped_payments``, ``seats``); the store derives the rows again after the migration."""
    _create_tables(conn)


def _v5_to_v6(conn: duckdb.DuckDBPyConnection) -> None:
    """Version 6 adds per-hand summaries of the projection rows (``capture_tallies``,
    ``transfer_tallies``, ``hand_seats``) and reads the player views from ``hand_seats``;
    the store derives the rows again after the migration."""
    _create_tables(conn)


def _v6_to_v7(conn: duckdb.DuckDBPyConnection) -> None:
    """Version 7 says on each ``decisions`` row whether the deciding seat won the hand by a
    Stop (``won_by_stop``), so that counting the Gos that paid off needs no join with
    ``hands``; puts the game's ruleset and the payer's and payee's names on each
    ``payouts`` row, so that ``v_payout_disputes`` reads no ``games``; and sums each game's
    ``hand_seats`` per seat (``player_games``) for the players' views. The store derives the
    rows again after the migration."""
    _create_tables(conn)
    added = (
        ("decisions", "won_by_stop", "BOOLEAN"),
        ("payouts", "ruleset", "VARCHAR"),
        ("payouts", "payer_name", "VARCHAR"),
        ("payouts", "payee_name", "VARCHAR"),
    )
    for table, column, kind in added:
        columns = {r[0] for r in conn.execute(f"DESCRIBE {table}").fetchall()}
        if column not in columns:
            conn.execute(f"ALTER TABLE {table} ADD COLUMN {column} {kind}")


def _v7_to_v8(conn: duckdb.DuckDBPyConnection) -> None:
    """Version 8 no longer stores ``events.prev``, the ``hash`` of the game's event before
    (``lag(hash)`` gives it back; ``v_events`` shows it). A stored ``prev`` that is not that
    hash is a broken chain: the step refuses, leaving the file as it is, rather than drop
    the one column that shows the break."""
    columns = {r[0] for r in conn.execute("DESCRIBE events").fetchall()}
    if "prev" not in columns:
        return
    broken = conn.execute(
        f"""SELECT game_id, seq FROM (SELECT game_id, seq, prev, {PREV_SQL} AS chained
                                      FROM events)
            WHERE prev IS DISTINCT FROM chained ORDER BY game_id, seq LIMIT 1"""
    ).fetchall()
    if broken:
        gid, seq = broken[0]
        raise StoreError(
            f"game {gid!r} seq {seq}: the stored prev is not the hash of the event before it, "
            "so the file cannot be upgraded to schema version 8 (which no longer stores prev): "
            "the chain is broken (gostop db verify with the version that wrote it says where)"
        )
    conn.execute("ALTER TABLE events DROP COLUMN prev")


def _v8_to_v9(conn: duckdb.DuckDBPyConnection) -> None:
    """Version 9 keeps the people record (``person_events``, ``people``): players as
    persons, renamed and merged by events; and each person's key (``person_keys``), under
    which the names of the games recorded from now on are sealed. A file before it has no
    renames, merges or keys, so all three start empty; the player views read ``people``
    from now on."""
    _people_ddl(conn)


Migration = Callable[["duckdb.DuckDBPyConnection"], None]

#: ``from_version -> step`` that upgrades a file from that version to the next.
MIGRATIONS: dict[int, Migration] = {
    0: _v0_to_v1,
    1: _v1_to_v2,
    2: _v2_to_v3,
    3: _v3_to_v4,
    4: _v4_to_v5,
    5: _v5_to_v6,
    6: _v6_to_v7,
    7: _v7_to_v8,
    8: _v8_to_v9,
}


def file_version(conn: duckdb.DuckDBPyConnection) -> int | None:
    """The schema version of an open file; None for an empty file (no tables at all)."""
    names = {
        r[0]
        for r in conn.execute(
            "SELECT table_name FROM information_schema.tables WHERE table_schema = 'main'"
        ).fetchall()
    }
    if "meta" in names:
        rows = conn.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchall()
        row = rows[0] if rows else None
        if row is None:
            raise StoreError("the store's meta table has no schema_version")
        return int(row[0])
    if "events" in names:
        return 0
    if names:
        raise StoreError(
            "this DuckDB file holds other tables and no gostop events: not a gostop store"
        )
    return None


def migrate(
    conn: duckdb.DuckDBPyConnection,
    *,
    registry: Mapping[int, Migration] | None = None,
    target: int | None = None,
) -> list[int]:
    """Bring the file up to ``target`` (default :data:`SCHEMA_VERSION`); the steps run.

    An empty file gets the current schema directly. A file newer than this version is
    refused rather than guessed at.
    """
    steps = MIGRATIONS if registry is None else registry
    want = SCHEMA_VERSION if target is None else target
    version = file_version(conn)
    if version is None:
        create_schema(conn)
        return []
    if version > want:
        raise StoreError(
            f"the store has schema version {version}; this version of gostop reads up to "
            f"{want}: upgrade gostop-records"
        )
    ran = []
    while version < want:
        step = steps.get(version)
        if step is None:
            raise StoreError(f"no migration from schema version {version} to {version + 1}")
        conn.execute("BEGIN TRANSACTION")
        try:
            step(conn)
            _set_version(conn, version + 1)
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        ran.append(version)
        version += 1
    if version == SCHEMA_VERSION:
        if ran:
            # the views of the current schema, over the tables the steps brought up to it
            conn.execute("BEGIN TRANSACTION")
            try:
                _create_views(conn)
                conn.execute("COMMIT")
            except BaseException:
                conn.execute("ROLLBACK")
                raise
        else:
            _add_missing_views(conn)
    return ran


def _add_missing_views(conn: duckdb.DuckDBPyConnection) -> None:
    """Views added since the file was made (they hold no data, so no version step): a file
    of this version gets the ones it lacks when a writer opens it."""
    have = {r[0] for r in conn.execute("SELECT view_name FROM duckdb_views()").fetchall()}
    for name, sql in VIEWS.items():
        if name not in have:
            conn.execute(f"CREATE VIEW {name} AS {sql}")
