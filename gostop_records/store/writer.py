"""Writing inside a transaction: event rows, projection rows, and DuckDB's write errors.

Shared by the live append, the bulk import and the rebuild, so that the three keep the
projection tables the same way: a game's rows are replaced whole (import, rebuild) or hand
by hand (a live append), always in the transaction that writes the events, so the tables
never disagree with the events after a crash.
"""

from __future__ import annotations

import contextlib
from collections.abc import Collection, Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

from .codec import EventRow
from .projections import Rows
from .rows import insert_rows
from .schema import EVENT_COLUMNS, GAME_TABLES, TABLES, quote

if TYPE_CHECKING:
    import duckdb

__all__ = [
    "EVENT_SELECT",
    "clear_games",
    "insert_events",
    "insert_projection",
    "is_write_conflict",
    "replace_changed",
    "transaction",
]

#: The event columns in row order, quoted, for ``SELECT``.
EVENT_SELECT = ", ".join(quote(c) for c, _ in EVENT_COLUMNS)


def is_write_conflict(exc: BaseException) -> bool:
    """A duplicate key or a conflicting update: another writer got there first."""
    import duckdb

    if isinstance(exc, duckdb.ConstraintException | duckdb.TransactionException):
        return True
    text = str(exc)
    return "Conflict on" in text or "constraint violation" in text.lower()


@contextlib.contextmanager
def transaction(conn: duckdb.DuckDBPyConnection) -> Iterator[None]:
    """BEGIN ... COMMIT, rolled back on any error (a failed COMMIT has rolled back itself)."""
    conn.execute("BEGIN TRANSACTION")
    try:
        yield
    except BaseException:
        with contextlib.suppress(Exception):
            conn.execute("ROLLBACK")
        raise
    try:
        conn.execute("COMMIT")
    except BaseException:
        with contextlib.suppress(Exception):
            conn.execute("ROLLBACK")
        raise


def insert_events(conn: duckdb.DuckDBPyConnection, rows: Sequence[EventRow]) -> int:
    return insert_rows(conn, "events", EVENT_COLUMNS, rows)


def insert_projection(conn: duckdb.DuckDBPyConnection, rows: Rows) -> int:
    n = 0
    for name, cols in TABLES.items():
        n += insert_rows(conn, name, cols, rows.get(name, []))
    return n


def clear_games(
    conn: duckdb.DuckDBPyConnection, game_ids: Collection[str], tables: Iterable[str] = TABLES
) -> None:
    """Delete the projection rows of these games."""
    if not game_ids:
        return
    ids: list[Any] = list(game_ids)
    for name in tables:
        conn.execute(f"DELETE FROM {name} WHERE game_id IN (SELECT unnest(?::VARCHAR[]))", [ids])


def replace_changed(
    conn: duckdb.DuckDBPyConnection, game_id: str, hands: set[int], old: Rows, fresh: Rows
) -> Rows:
    """Replace the rows that changed (game-level rows, rows of the touched hands).

    Tables whose rows for these hands did not change are not touched: a played card
    changes the turn and the hand, rarely the payouts, and each statement costs time.
    """
    merged: Rows = {}
    for name, cols in TABLES.items():
        keep: list[tuple[Any, ...]] = []
        if name in GAME_TABLES:
            before = old.get(name, [])
        else:
            keep = [r for r in old.get(name, []) if r[1] not in hands]
            before = [r for r in old.get(name, []) if r[1] in hands]
        now = fresh.get(name, [])
        merged[name] = keep + now
        if before == now:
            continue
        if before:
            if name in GAME_TABLES:
                conn.execute(f"DELETE FROM {name} WHERE game_id = ?", [game_id])
            else:
                conn.execute(
                    f"DELETE FROM {name} WHERE game_id = ? AND hand IN "
                    "(SELECT unnest(?::INTEGER[]))",
                    [game_id, sorted(hands)],
                )
        insert_rows(conn, name, cols, now)
    return merged
