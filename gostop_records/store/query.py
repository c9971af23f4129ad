"""Read-only SQL for analysts: statements that could write are refused before they run.

The store is opened read-only for queries, which stops writes to the database itself;
statements that write elsewhere (``COPY ... TO`` a file, ``ATTACH`` another database,
``EXPORT DATABASE``) or change the session are refused by their type, with the command
that does the job instead.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .errors import StoreError

if TYPE_CHECKING:
    from .store import Store

__all__ = ["READ_STATEMENTS", "QueryResult", "check_read_only", "query", "run_read_only"]

#: Statement types a query may run (DESCRIBE, SHOW and SUMMARIZE parse as SELECT).
READ_STATEMENTS = frozenset({"SELECT", "EXPLAIN", "PRAGMA", "CALL"})

_INSTEAD = {
    "COPY": "to write files use gostop db export",
    "EXPORT": "to write files use gostop db export",
    "INSERT": "events are added by gostop db import or a recorder",
    "UPDATE": "events are never edited: a correction is a new event",
    "DELETE": "events are never deleted",
}


@dataclass(frozen=True, slots=True)
class QueryResult:
    columns: tuple[str, ...]
    rows: list[tuple[Any, ...]]

    def records(self) -> list[dict[str, Any]]:
        return [dict(zip(self.columns, r, strict=True)) for r in self.rows]


def check_read_only(conn: Any, sql: str) -> list[Any]:
    """The parsed statements of ``sql``; :class:`StoreError` if one of them writes."""
    import duckdb

    try:
        statements = conn.extract_statements(sql)
    except duckdb.Error as exc:
        raise StoreError(f"SQL: {str(exc).strip()}") from None
    if not statements:
        raise StoreError("SQL: no statement given")
    for k, st in enumerate(statements, 1):
        kind = st.type.name
        if kind not in READ_STATEMENTS:
            hint = _INSTEAD.get(kind, "queries run read-only")
            which = f"statement {k} " if len(statements) > 1 else "the statement "
            raise StoreError(
                f"gostop db query is read-only: {which}is {kind}, which writes or changes "
                f"the session; {hint}"
            )
    return list(statements)


def query(store: Store, sql: str, *, limit: int | None = None) -> QueryResult:
    """Run read-only SQL; the result of the last statement."""
    return run_read_only(store.conn, sql, limit=limit)


def run_read_only(conn: Any, sql: str, *, limit: int | None = None) -> QueryResult:
    """Read-only SQL on a connection (a store's, or one reading an archive)."""
    import duckdb

    statements = check_read_only(conn, sql)
    try:
        rel = None
        for st in statements:
            rel = conn.execute(st)
        assert rel is not None
        columns = tuple(d[0] for d in (rel.description or ()))
        rows = rel.fetchmany(limit) if limit is not None else rel.fetchall()
    except duckdb.Error as exc:
        raise StoreError(f"SQL: {str(exc).strip()}") from None
    return QueryResult(columns, rows)
