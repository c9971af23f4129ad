"""The rebuild's new projection tables beside the live ones, and the swap that puts them in.

A rebuild (:mod:`.rebuild`) writes every projection table afresh under another name
(``gostop_next_games`` beside ``games``, ...), a group of games per transaction, while the
live tables go on being read and written. The swap then renames them, in the caller's
transaction: the live table to ``gostop_old_<name>``, the new one to its name, the old one
dropped. A rename changes DuckDB's catalog and copies nothing, so the swap takes a few
milliseconds whatever the store's size; a read running meanwhile finishes on the tables it
began with (the catalog is transactional), and the views, bound again at each query, read
the new tables at once. Names with these prefixes belong to the rebuild: a table of one's
own must not use them.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import TYPE_CHECKING

from .bulk import Prepared, insert_rows
from .projections import Row
from .schema import TABLES, projection_ddl
from .writer import clear_games

if TYPE_CHECKING:
    import duckdb

__all__ = ["NEXT", "clear", "counts", "create", "drop", "insert", "swap"]

#: The prefix of the new tables, and of the live ones on their way out during a swap.
NEXT = "gostop_next_"
OLD = "gostop_old_"


def _next(table: str) -> str:
    return NEXT + table


def create(conn: duckdb.DuckDBPyConnection) -> None:
    """Empty new tables (those an earlier rebuild left behind, killed, are dropped first)."""
    drop(conn)
    for table in TABLES:
        conn.execute(projection_ddl(table, _next(table)))


def drop(conn: duckdb.DuckDBPyConnection) -> None:
    """Drop the new tables (a rebuild given up, or one a killed process left behind)."""
    for table in TABLES:
        conn.execute(f"DROP TABLE IF EXISTS {_next(table)}")
        conn.execute(f"DROP TABLE IF EXISTS {OLD}{table}")


def insert(
    conn: duckdb.DuckDBPyConnection, rows: Mapping[str, Sequence[Row] | Prepared]
) -> dict[str, int]:
    """Add projection rows to the new tables; the rows added, by table."""
    return {
        table: insert_rows(conn, _next(table), cols, rows.get(table, ()))
        for table, cols in TABLES.items()
    }


def clear(conn: duckdb.DuckDBPyConnection, game_ids: Collection[str]) -> None:
    """Delete these games' rows from the new tables (they are derived again)."""
    clear_games(conn, game_ids, [_next(t) for t in TABLES])


def counts(conn: duckdb.DuckDBPyConnection) -> dict[str, int]:
    """The rows of each new table."""
    return {
        t: int(conn.execute(f"SELECT count(*) FROM {_next(t)}").fetchall()[0][0]) for t in TABLES
    }


def swap(conn: duckdb.DuckDBPyConnection) -> None:
    """Put the new tables in place of the live ones; inside the caller's transaction."""
    for table in TABLES:
        conn.execute(f"ALTER TABLE {table} RENAME TO {OLD}{table}")
        conn.execute(f"ALTER TABLE {_next(table)} RENAME TO {table}")
        conn.execute(f"DROP TABLE {OLD}{table}")
