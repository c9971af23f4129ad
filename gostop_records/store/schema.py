"""The store's DDL and schema migrations.

Each table's columns and their types are its row type's (:mod:`.tables`); the views are in
:mod:`.views`.

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

from .errors import StoreError
from .tables import (
    COMBO_IDS,
    DOKBAK_ID,
    FLAG_IDS,
    PROJECTION_ROWS,
    SPECIAL_KINDS,
    Columns,
    EventRow,
    HeadRow,
    PersonEventRow,
    PersonKeyRow,
    PersonRow,
    sql_columns,
)
from .views import PREV_SQL, VIEWS

if TYPE_CHECKING:
    import duckdb

__all__ = [
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

#: ``(column, DuckDB type)`` of each table, derived from its row type (:mod:`.tables`).
EVENT_COLUMNS: Columns = sql_columns(EventRow)
#: The store's chain of game heads (see :mod:`.heads`): a record like ``events``, never
#: rebuilt.
HEADS_COLUMNS: Columns = sql_columns(HeadRow)
#: The people record (see :mod:`gostop_records.people`): its events, a chain of their own
#: with the columns of ``events`` (``game_id`` is always ``people``), never rebuilt; and
#: ``people``, what they say per person, derived from them again on every append.
PERSON_EVENT_COLUMNS: Columns = sql_columns(PersonEventRow)
#: Each person's key, under which the names their games hold are sealed (``names``):
#: outside every hashed record; forgetting a person deletes their row.
PERSON_KEY_COLUMNS: Columns = sql_columns(PersonKeyRow)
PEOPLE_COLUMNS: Columns = sql_columns(PersonRow)

#: Projection tables in the order they are derived; column order is the row tuple order.
TABLES: dict[str, Columns] = {name: sql_columns(row) for name, row in PROJECTION_ROWS.items()}

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
