"""The store's DDL: its tables as SQL, their keys, the schema version of a file.

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

A file written by an older version is upgraded when a writer opens it, by the steps of
:mod:`.migrations`.
"""

from __future__ import annotations

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
    "create_tables",
    "create_views",
    "file_version",
    "heads_ddl",
    "people_ddl",
    "projection_ddl",
    "quote",
    "set_version",
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


def heads_ddl() -> str:
    return _table_ddl("heads", HEADS_COLUMNS, ", PRIMARY KEY (entry)")


def people_ddl(conn: duckdb.DuckDBPyConnection) -> None:
    """The people record's tables (:data:`PERSON_EVENT_COLUMNS`, :data:`PEOPLE_COLUMNS`)."""
    conn.execute(_table_ddl("person_events", PERSON_EVENT_COLUMNS, ", PRIMARY KEY (seq)"))
    conn.execute(_table_ddl("people", PEOPLE_COLUMNS, ", PRIMARY KEY (person_id)"))
    conn.execute(_table_ddl("person_keys", PERSON_KEY_COLUMNS, ", PRIMARY KEY (person_id)"))


def create_tables(conn: duckdb.DuckDBPyConnection) -> None:
    """The projection tables a file lacks (a migration step adds the columns it lacks)."""
    for name, cols in TABLES.items():
        conn.execute(_table_ddl(name, cols))


def create_views(conn: duckdb.DuckDBPyConnection) -> None:
    for name, sql in VIEWS.items():
        conn.execute(f"CREATE OR REPLACE VIEW {name} AS {sql}")


def _create_projections(conn: duckdb.DuckDBPyConnection) -> None:
    create_tables(conn)
    create_views(conn)


def set_version(conn: duckdb.DuckDBPyConnection, version: int) -> None:
    conn.execute("CREATE TABLE IF NOT EXISTS meta (key VARCHAR PRIMARY KEY, value VARCHAR)")
    conn.execute("DELETE FROM meta WHERE key = 'schema_version'")
    conn.execute("INSERT INTO meta VALUES ('schema_version', ?)", [str(version)])


def create_schema(conn: duckdb.DuckDBPyConnection) -> None:
    """Every table and view of the current schema, in a new file."""
    conn.execute("BEGIN TRANSACTION")
    try:
        conn.execute(_events_ddl())
        conn.execute(heads_ddl())
        people_ddl(conn)
        _create_projections(conn)
        set_version(conn, SCHEMA_VERSION)
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise


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
