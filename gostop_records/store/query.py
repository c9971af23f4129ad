"""SQL for analysts that cannot write and, unless asked, reads nothing but the store.

The guarantees come from DuckDB's own settings, not from reading the SQL:

- :func:`.store.open_for_queries` opens the file **read-only** on a connection of its own, with
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

On top of that, the statements are checked first (:mod:`.statements`), which says why a
statement is refused and what does the job instead, and refuses what DuckDB's settings let
through (``CHECKPOINT``, ``checkpoint()``). With file access allowed, the check is what keeps
``COPY ... TO`` and ``EXPLAIN ANALYZE COPY ...`` from writing. Every query runs through
:func:`~.sandbox.run_query`, within :class:`~.sandbox.QueryLimits` (time, answer size).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .errors import StoreError
from .sandbox import (
    DEFAULT_LIMITS,
    NO_LIMITS,
    QueryAnswer,
    QueryHandle,
    QueryLimits,
    database_settings,
    run_query,
)
from .statements import READ_PRAGMAS, READ_STATEMENTS, check_read_only

if TYPE_CHECKING:
    import duckdb

    from .handle import StoreHandle

__all__ = [
    "READ_PRAGMAS",
    "READ_STATEMENTS",
    "QueryResult",
    "can_reach_files",
    "check_read_only",
    "lock_down",
    "query",
    "query_settings",
]

#: A query's columns and rows (the sandbox's answer; the name the command line knows).
QueryResult = QueryAnswer


def query_settings(
    *, allow_files: bool = False, limits: QueryLimits | None = None
) -> dict[str, Any]:
    """The DuckDB settings of a connection opened for queries (see the module docstring),
    with the database's memory and threads of ``limits`` (:func:`.sandbox.database_settings`)."""
    return {
        "enable_external_access": allow_files,
        "autoinstall_known_extensions": False,
        "autoload_known_extensions": False,
        **database_settings(limits or NO_LIMITS),
    }


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


def query(
    store: StoreHandle | duckdb.DuckDBPyConnection,
    sql: str,
    *,
    limit: int | None = None,
    allow_files: bool = True,
    limits: QueryLimits = DEFAULT_LIMITS,
    handle: QueryHandle | None = None,
) -> QueryResult:
    """Run read-only SQL; the result of the last statement (:func:`.sandbox.run_query`).

    Each run has a cursor of its own and a ``READ ONLY`` transaction, rolled back at the
    end. ``allow_files=False`` refuses to run on a connection that can reach files
    (one neither opened by :func:`.store.open_for_queries` nor put through :func:`lock_down`):
    the guarantee a service that runs strangers' SQL needs. ``limits`` are a stranger's
    (:data:`~.sandbox.DEFAULT_LIMITS`) unless given: the command line and the project's
    own code pass :data:`~.sandbox.NO_LIMITS` (:meth:`.Store.query` does).
    """
    import duckdb

    conn = store if isinstance(store, duckdb.DuckDBPyConnection) else store.conn
    if not allow_files and can_reach_files(conn):
        raise StoreError(
            "this store connection can reach files: open it with open_for_queries() or "
            "call lock_down() on it before running queries from elsewhere"
        )
    return run_query(conn, sql, limits, limit=limit, handle=handle)
