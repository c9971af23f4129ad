"""Running a stranger's SQL within limits, so that no query can hurt the store or the process.

A query with nothing to hold it could run for minutes beside the recorders' entries, go on
after its client left, grow the process by gigabytes and answer with more than anyone can
read. :func:`run_query` runs one on a cursor of its own (a DuckDB connection of its own) of
the connection it is given, after :func:`~.statements.check_read_only`, inside a ``READ
ONLY`` transaction that is rolled back, and within :class:`QueryLimits`:

- **time**: a watchdog thread interrupts the query (``interrupt()``) at the limit, or when
  the caller cancels it through its :class:`QueryHandle` (a server whose client went away),
  and :class:`~.errors.QueryTimeoutError` / :class:`~.errors.QueryCancelledError` say so.
- **answer**: rows are fetched in small batches from DuckDB's streaming result and counted,
  with their size encoded as JSON, as they come; the first batch past ``max_rows`` or
  ``max_bytes`` stops the query with :class:`~.errors.QueryTooLargeError`, so an answer is
  never held whole beyond its limit.
- **memory and threads**: in DuckDB 2.0 ``memory_limit`` and ``threads`` belong to the
  database (every connection to the file in the process shares them; ``SET SESSION`` is
  refused), so a query cannot get its own. The query's cursor gets
  ``operator_memory_limit`` (the one per-connection memory setting: sorts and hash tables;
  measured, it bounds little), and the database's ``memory_limit`` is *lowered* to
  ``memory`` when above it, never raised: DuckDB then spills a large sort or join to its
  temporary file instead of growing the process. The store's writer shares that budget,
  which its appends need little of (its passes over the whole store already run within
  64 MiB, :data:`~.connection.WHOLE_STORE_MEMORY`). ``threads`` cannot be lowered without
  slowing the writer: :func:`database_settings` gives both settings for a database opened
  for queries alone, and the server's store already runs with one DuckDB thread, so a
  query takes one core, the one of the thread that runs it.
- **Python objects**: DuckDB's Python client resolves an unknown table name to a variable
  of the calling code (a "replacement scan"); the cursor turns that off.
"""

from __future__ import annotations

import contextlib
import re
import threading
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import msgspec

from .errors import (
    QueryCancelledError,
    QueryRefusedError,
    QueryTimeoutError,
    QueryTooLargeError,
    StoreError,
)
from .statements import check_read_only, error_text

if TYPE_CHECKING:
    import duckdb

__all__ = [
    "DEFAULT_LIMITS",
    "NO_LIMITS",
    "QueryAnswer",
    "QueryHandle",
    "QueryLimits",
    "database_settings",
    "run_query",
]

#: Rows fetched from DuckDB at a time: small enough that one batch past a limit is little.
BATCH_ROWS = 256


_UNITS = {"": 1, "B": 1, "BYTES": 1, "KB": 10**3, "MB": 10**6, "GB": 10**9, "TB": 10**12}
_UNITS.update({"KIB": 2**10, "MIB": 2**20, "GIB": 2**30, "TIB": 2**40})


def _size(text: str) -> float | None:
    """Bytes of a DuckDB memory size ("256MB", "244.1 MiB"); None when unreadable."""
    m = re.fullmatch(r"\s*([0-9.]+)\s*([A-Za-z]*)\s*", text)
    unit = _UNITS.get(m.group(2).upper()) if m else None
    return float(m.group(1)) * unit if m and unit else None  # type: ignore[union-attr]


@dataclass(frozen=True, slots=True)
class QueryLimits:
    """What one query may take; None lifts a limit.

    ``timeout`` in seconds; ``memory`` in DuckDB's units ("256MB"); ``threads`` DuckDB's
    threads where the database is the query's alone; ``max_rows`` and ``max_bytes`` bound
    the answer (bytes as its rows encode in JSON); ``max_statements`` the statements of one
    query (the result is the last one's).
    """

    timeout: float | None = 5.0
    memory: str | None = "1GB"
    threads: int | None = 1
    max_rows: int | None = 100_000
    max_bytes: int | None = 16 * 1024 * 1024
    max_statements: int | None = 1

    def __post_init__(self) -> None:
        for name in ("timeout", "threads", "max_rows", "max_bytes", "max_statements"):
            value = getattr(self, name)
            if value is not None and value <= 0:
                raise ValueError(f"QueryLimits.{name} must be above 0 (None: no limit)")
        if self.memory is not None and not _size(self.memory):
            raise ValueError(f"QueryLimits.memory {self.memory!r}: give a size such as '256MB'")

    def describe(self) -> dict[str, Any]:
        """The limits as JSON, for an answer that names them."""
        return {
            "timeout_s": self.timeout,
            "max_rows": self.max_rows,
            "max_bytes": self.max_bytes,
            "max_statements": self.max_statements,
        }


#: The limits of a query from elsewhere (an HTTP client) unless the server sets others.
DEFAULT_LIMITS = QueryLimits()
#: No limit at all: for code of this project that runs its own SQL.
NO_LIMITS = QueryLimits(None, None, None, None, None, None)


@dataclass(frozen=True, slots=True)
class QueryAnswer:
    """The result of the last statement: its columns and rows (at most the ``limit`` asked,
    ``truncated`` when there were more), and the rows' size encoded as JSON."""

    columns: tuple[str, ...]
    rows: list[tuple[Any, ...]]
    truncated: bool = False
    size: int = 0
    seconds: float = 0.0

    def records(self) -> list[dict[str, Any]]:
        return [dict(zip(self.columns, r, strict=True)) for r in self.rows]


@dataclass(eq=False)
class QueryHandle:
    """Cancels a running query from any thread (:meth:`cancel`); made by the caller and
    given to :func:`run_query`. Cancelling before the query starts stops it at the start."""

    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)
    _wake: threading.Event = field(default_factory=threading.Event, repr=False)
    _cursor: Any = field(default=None, repr=False)
    #: why the query was stopped: "cancelled", "timeout" or None
    reason: str | None = None

    def cancel(self) -> None:
        self._stop("cancelled")

    @property
    def cancelled(self) -> bool:
        return self.reason == "cancelled"

    def _stop(self, reason: str) -> None:
        """Marks the query stopped; its watchdog interrupts it (so that a caller, an event
        loop, never waits on DuckDB)."""
        with self._lock:
            if self.reason is None:
                self.reason = reason
        self._wake.set()


def database_settings(limits: QueryLimits) -> dict[str, Any]:
    """DuckDB settings of a database opened for queries alone (they are per database, see
    the module docstring): its memory and threads, and no Python variable read as a table."""
    out: dict[str, Any] = {"python_enable_replacements": False}
    if limits.memory is not None:
        out["memory_limit"] = limits.memory
    if limits.threads is not None:
        out["threads"] = limits.threads
    return out


def run_query(
    conn: duckdb.DuckDBPyConnection,
    sql: str,
    limits: QueryLimits = DEFAULT_LIMITS,
    *,
    limit: int | None = None,
    handle: QueryHandle | None = None,
) -> QueryAnswer:
    """Run read-only ``sql`` on a cursor of ``conn`` within ``limits``; the last result.

    ``limit`` cuts the answer to that many rows quietly (``truncated``) when it is within
    ``limits.max_rows``; past ``max_rows`` or ``max_bytes`` the query stops with
    :class:`~.errors.QueryTooLargeError`. ``handle`` lets another thread cancel it.
    ``conn`` must be the caller's own (a read connection): the query never runs on it
    directly, but a cursor shares its database.
    """
    import duckdb

    handle = handle or QueryHandle()
    start = time.monotonic()
    cur = conn.cursor()
    watchdog: threading.Thread | None = None
    try:
        _local_settings(cur, limits)
        statements = check_read_only(cur, sql, max_statements=limits.max_statements)
        with handle._lock:
            handle._cursor = cur
        watchdog = threading.Thread(
            target=_watch, args=(handle, limits.timeout), name="query-watchdog", daemon=True
        )
        watchdog.start()
        if handle.reason is not None:
            raise _stopped(handle, limits)
        cur.execute("BEGIN TRANSACTION READ ONLY")
        rel: Any = None
        for st in statements:
            rel = cur.execute(st)
        assert rel is not None
        columns = tuple(d[0] for d in (rel.description or ()))
        rows, truncated, size = _fetch(rel, limits, limit, handle)
    except duckdb.InterruptException:
        raise _stopped(handle, limits) from None
    except duckdb.Error as exc:
        if handle.reason is not None:  # an interrupt may surface as another error
            raise _stopped(handle, limits) from None
        raise StoreError(f"SQL: {error_text(exc)}") from None
    finally:
        with handle._lock:
            handle._cursor = None
        handle._wake.set()
        if watchdog is not None:
            watchdog.join()
        with contextlib.suppress(duckdb.Error):
            cur.execute("ROLLBACK")
        cur.close()
    return QueryAnswer(columns, rows, truncated, size, time.monotonic() - start)


def _local_settings(cur: Any, limits: QueryLimits) -> None:
    """The cursor's own settings; where the configuration is locked (a database opened for
    queries), they were given at the start (:func:`database_settings`) and are checked."""
    import duckdb

    wanted = [("python_enable_replacements", "false")]
    if limits.memory is not None:
        wanted.append(("operator_memory_limit", f"'{limits.memory}'"))
        _cap_database_memory(cur, limits.memory)
    for name, value in wanted:
        try:
            cur.execute(f"SET {name} = {value}")
        except duckdb.Error:
            if name == "python_enable_replacements":
                row = cur.execute(f"SELECT current_setting('{name}')").fetchall()
                if row and row[0][0]:
                    raise QueryRefusedError(
                        "this connection reads Python variables as tables and cannot be "
                        "changed: open it with python_enable_replacements = false"
                    ) from None


def _cap_database_memory(cur: Any, memory: str) -> None:
    """The database's ``memory_limit`` lowered to ``memory`` when above it (never raised,
    so a pass holding it lower keeps its own); left alone where the configuration is
    locked (a database opened for queries alone was given it at the start)."""
    import duckdb

    row = cur.execute("SELECT current_setting('memory_limit')").fetchall()
    now, wanted = _size(str(row[0][0])), _size(memory)
    if now is None or wanted is None or now <= wanted * 1.01:  # DuckDB shows it rounded
        return
    with contextlib.suppress(duckdb.Error):
        cur.execute(f"SET memory_limit = '{memory}'")


def _watch(handle: QueryHandle, timeout: float | None) -> None:
    """Interrupts the query at its time limit or on cancel, and again every 50 ms until it
    ends (an interrupt that comes between two statements would be lost)."""
    deadline = None if timeout is None else time.monotonic() + timeout
    while True:
        left = None if deadline is None else deadline - time.monotonic()
        fired = handle._wake.wait(left if left is None else max(left, 0.0))
        handle._wake.clear()  # before looking: an end after this wakes the next wait
        with handle._lock:
            running = handle._cursor is not None
        if not running:
            return
        if not fired:
            handle._stop("timeout")
        if handle.reason is not None:
            while True:
                with handle._lock:
                    cur = handle._cursor
                if cur is None:
                    return
                with contextlib.suppress(Exception):
                    cur.interrupt()
                time.sleep(0.05)


def _fetch(
    rel: Any, limits: QueryLimits, limit: int | None, handle: QueryHandle
) -> tuple[list[tuple[Any, ...]], bool, int]:
    quiet = limit is not None and (limits.max_rows is None or limit <= limits.max_rows)
    rows: list[tuple[Any, ...]] = []
    size = 0
    encode = msgspec.json.Encoder(enc_hook=str).encode
    while True:
        want = BATCH_ROWS if not quiet else min(BATCH_ROWS, limit - len(rows) + 1)  # type: ignore[operator]
        batch = rel.fetchmany(want)
        if handle.reason is not None:
            raise _stopped(handle, limits)
        if not batch:
            return rows, False, size
        if quiet and len(rows) + len(batch) > limit:  # type: ignore[operator]
            batch = batch[: limit - len(rows)]  # type: ignore[operator]
            rows.extend(batch)
            size += len(encode(batch))
            _bytes(size, limits)
            return rows, True, size
        rows.extend(batch)
        size += len(encode(batch))
        if limits.max_rows is not None and len(rows) > limits.max_rows:
            raise QueryTooLargeError("rows", limits.max_rows, limits.max_rows, limits.max_bytes)
        _bytes(size, limits)


def _bytes(size: int, limits: QueryLimits) -> None:
    if limits.max_bytes is not None and size > limits.max_bytes:
        raise QueryTooLargeError("bytes", limits.max_bytes, limits.max_rows, limits.max_bytes)


def _stopped(handle: QueryHandle, limits: QueryLimits) -> StoreError:
    if handle.reason == "timeout" and limits.timeout is not None:
        return QueryTimeoutError(limits.timeout)
    return QueryCancelledError()
