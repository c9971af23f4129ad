"""SQL for analysts that cannot write and, unless asked, reads nothing but the store.

The guarantees come from DuckDB's own settings, not from reading the SQL:

- :func:`open_for_queries` opens the file **read-only** on a connection of its own, with
  ``enable_external_access = false`` (no file, URL or other database is reached: ``COPY``,
  ``read_text``, ``glob``, ``ATTACH``, ``INSTALL`` all fail), no extension installed or
  loaded on demand, and ``lock_configuration = true``, so no statement can turn any of it
  back. ``allow_files=True`` lets statements *read* files (``read_csv('x.csv')``); it is
  for a person at the command line (``gostop db query --allow-files``), never for a
  network service.
- A process that holds the store for writing (DuckDB lets no other connection to the file,
  read-only or not, exist next to it in that process) calls :func:`lock_down` once on its
  connection: the database then reaches no file for anyone in the process, which DuckDB
  cannot undo while it runs (imports still work through Arrow, but not through the JSON
  Lines fallback used without pyarrow, which reads a temporary file; ``COPY`` exports stop).
  :func:`query` then runs each statement on a cursor of its own inside a ``READ ONLY``
  transaction that is rolled back, so nothing of the store changes either.

On top of that, the statement types are checked first (:func:`check_read_only`), which
changes nothing of the guarantees but says why a statement is refused and what does the job
instead. With file access allowed, the check is what keeps ``COPY ... TO`` and
``EXPLAIN ANALYZE COPY ...`` from writing.
"""

from __future__ import annotations

import contextlib
import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .errors import StoreError

if TYPE_CHECKING:
    import os

    import duckdb

    from .store import Store

__all__ = [
    "READ_PRAGMAS",
    "READ_STATEMENTS",
    "QueryResult",
    "can_reach_files",
    "check_read_only",
    "lock_down",
    "open_for_queries",
    "query",
    "query_settings",
]

#: Statement types a query may run (DESCRIBE, SHOW and SUMMARIZE parse as SELECT).
READ_STATEMENTS = frozenset({"SELECT", "EXPLAIN", "PRAGMA", "CALL"})
#: PRAGMAs that only tell (the others change settings).
READ_PRAGMAS = frozenset(
    {
        "collations",
        "database_list",
        "database_size",
        "functions",
        "metadata_info",
        "platform",
        "show",
        "show_databases",
        "show_tables",
        "show_tables_expanded",
        "storage_info",
        "table_info",
        "user_agent",
        "version",
    }
)

_INSTEAD = {
    "COPY": "to write files use gostop db export",
    "EXPORT": "to write files use gostop db export",
    "INSERT": "events are added by gostop db import or a recorder",
    "UPDATE": "events are never edited: a correction is a new event",
    "DELETE": "events are never deleted",
    "ATTACH": "a query reads this store only",
    "LOAD": "a query installs and loads no extension",
    "SET": "a query runs with the store's settings",
    "VARIABLE_SET": "a query runs with the store's settings",
}

_LEADING = re.compile(r"\A(?:\s+|--[^\n]*(?:\n|\Z)|/\*.*?\*/)*", re.DOTALL)
_EXPLAIN = re.compile(r"\AEXPLAIN(?:\s+ANALY[SZ]E)?\b", re.IGNORECASE)
_PRAGMA = re.compile(r"\APRAGMA\s+([A-Za-z_][A-Za-z0-9_]*)\s*(=)?", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class QueryResult:
    columns: tuple[str, ...]
    rows: list[tuple[Any, ...]]

    def records(self) -> list[dict[str, Any]]:
        return [dict(zip(self.columns, r, strict=True)) for r in self.rows]


def query_settings(*, allow_files: bool = False) -> dict[str, Any]:
    """The DuckDB settings of a connection opened for queries (see the module docstring)."""
    return {
        "enable_external_access": allow_files,
        "autoinstall_known_extensions": False,
        "autoload_known_extensions": False,
    }


def open_for_queries(path: str | os.PathLike[str], *, allow_files: bool = False) -> Store:
    """The store file opened read-only on a locked connection of its own, for queries."""
    from .store import Store

    return Store(Path(path), read_only=True, settings=query_settings(allow_files=allow_files))


def lock_down(conn: duckdb.DuckDBPyConnection) -> None:
    """Close a database held in this process to files, URLs and extensions, for good.

    For a process that keeps the store open for writing and runs :func:`query` on it (an
    HTTP service): DuckDB refuses to enable external access again while the database runs.
    """
    conn.execute("SET autoinstall_known_extensions = false")
    conn.execute("SET autoload_known_extensions = false")
    conn.execute("SET enable_external_access = false")


def can_reach_files(conn: duckdb.DuckDBPyConnection) -> bool:
    """Whether statements on this connection can reach files (external access is on)."""
    row = conn.execute("SELECT current_setting('enable_external_access')").fetchall()
    return bool(row and row[0][0])


def _strip(text: str) -> str:
    return text[_LEADING.match(text).end() :]  # type: ignore[union-attr]


def _refusal(k: int, many: bool, kind: str, hint: str | None = None) -> StoreError:
    which = f"statement {k} " if many else "the statement "
    return StoreError(
        f"gostop db query is read-only: {which}is {kind}, which writes or changes "
        f"the session; {hint or _INSTEAD.get(kind.split()[-1], 'queries run read-only')}"
    )


def _check_one(conn: Any, st: Any, k: int, many: bool, depth: int = 0) -> None:
    kind = st.type.name
    if kind not in READ_STATEMENTS:
        raise _refusal(k, many, kind if depth == 0 else f"EXPLAIN of {kind}")
    text = _strip(st.query)
    if kind == "EXPLAIN":
        m = _EXPLAIN.match(text)
        inner = conn.extract_statements(text[m.end() :]) if m and depth < 4 else []
        if len(inner) != 1:
            raise _refusal(k, many, "EXPLAIN", "explain one SELECT at a time")
        _check_one(conn, inner[0], k, many, depth + 1)
    elif kind == "PRAGMA":
        m = _PRAGMA.match(text)
        name = m.group(1).lower() if m else ""
        if not m or m.group(2) or name not in READ_PRAGMAS:
            raise _refusal(
                k,
                many,
                f"PRAGMA {name or '?'}",
                "the PRAGMAs a query may run only tell: " + ", ".join(sorted(READ_PRAGMAS)),
            )


def check_read_only(conn: Any, sql: str) -> list[Any]:
    """The parsed statements of ``sql``; :class:`StoreError` naming the first statement
    that writes or changes the session, and what to use instead."""
    import duckdb

    try:
        statements = conn.extract_statements(sql)
    except duckdb.Error as exc:
        raise StoreError(f"SQL: {str(exc).strip()}") from None
    if not statements:
        raise StoreError("SQL: no statement given")
    try:
        for k, st in enumerate(statements, 1):
            _check_one(conn, st, k, len(statements) > 1)
    except duckdb.Error as exc:
        raise StoreError(f"SQL: {str(exc).strip()}") from None
    return list(statements)


def query(
    store: Store | duckdb.DuckDBPyConnection,
    sql: str,
    *,
    limit: int | None = None,
    allow_files: bool = True,
) -> QueryResult:
    """Run read-only SQL; the result of the last statement.

    Each run has a cursor of its own and a ``READ ONLY`` transaction, rolled back at the
    end. ``allow_files=False`` refuses to run on a connection that can reach files
    (one neither opened by :func:`open_for_queries` nor put through :func:`lock_down`):
    the guarantee a service that runs strangers' SQL needs.
    """
    import duckdb

    from .store import Store

    conn = store.conn if isinstance(store, Store) else store
    statements = check_read_only(conn, sql)
    if not allow_files and can_reach_files(conn):
        raise StoreError(
            "this store connection can reach files: open it with open_for_queries() or "
            "call lock_down() on it before running queries from elsewhere"
        )
    cur = conn.cursor()
    try:
        cur.execute("BEGIN TRANSACTION READ ONLY")
        rel = None
        for st in statements:
            rel = cur.execute(st)
        assert rel is not None
        columns = tuple(d[0] for d in (rel.description or ()))
        rows = rel.fetchmany(limit) if limit is not None else rel.fetchall()
    except duckdb.Error as exc:
        raise StoreError(f"SQL: {_reason(exc)}") from None
    finally:
        with contextlib.suppress(duckdb.Error):
            cur.execute("ROLLBACK")
        cur.close()
    return QueryResult(columns, rows)


def _reason(exc: BaseException) -> str:
    text = str(exc).strip()
    if "disabled by configuration" in text or "external access" in text.lower():
        return (
            f"{text.splitlines()[0]} (a query reads the store only; "
            "gostop db query --allow-files lets it read files)"
        )
    return text
