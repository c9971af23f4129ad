"""Opening the DuckDB file: the default path, the progress bar, the lock error.

One process owns a DuckDB file: while it is open for writing, any other process that opens
it, even read-only, gets DuckDB's lock error, which :func:`connect` turns into a
:class:`~gostop_records.store.errors.StoreLockedError` naming the file. Inside one process,
several connections to the same file share one database (DuckDB caches the instance), which
is how two :class:`~gostop_records.store.Store` objects in one program see each other's
commits and are kept apart by expected versions.

DuckDB draws a progress bar on stdout during long queries; every connection turns it off,
because stdout carries the results of a command.
"""

from __future__ import annotations

import contextlib
import os
import re
import threading
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .errors import StoreError, StoreLockedError

if TYPE_CHECKING:
    import duckdb

__all__ = [
    "DEFAULT_DB",
    "ENV_VAR",
    "WHOLE_STORE_MEMORY",
    "bounded_memory",
    "connect",
    "database_setting",
    "default_path",
    "fetch_one",
    "is_lock_error",
    "scalar",
]

#: The store file used when none is named: in the current folder.
DEFAULT_DB = "gostop.duckdb"
#: An environment variable that names the store file when ``--db`` is not given.
ENV_VAR = "GOSTOP_DB"

_HOLDER = re.compile(r"held in (?P<exe>.+?) \(PID (?P<pid>\d+)\)")


def default_path() -> Path:
    """``$GOSTOP_DB`` when set, else ``gostop.duckdb`` in the current folder."""
    return Path(os.environ.get(ENV_VAR) or DEFAULT_DB)


def is_lock_error(exc: BaseException) -> bool:
    text = str(exc)
    return "Could not set lock on file" in text or "Conflicting lock" in text


def connect(
    path: str | os.PathLike[str],
    *,
    read_only: bool = False,
    settings: Mapping[str, Any] | None = None,
) -> duckdb.DuckDBPyConnection:
    """A connection to the store file, progress bar off; typed errors for the usual failures.

    ``settings`` are DuckDB settings given at the start; the configuration is then locked,
    so that no statement can change them (see :mod:`.query`).
    """
    import duckdb

    name = os.fspath(path)
    if read_only and not Path(name).exists():
        raise StoreError(f"{name}: no store here (import logs first: gostop db import PATH)")
    if not read_only:
        parent = Path(name).parent
        if not parent.exists():
            raise StoreError(f"{name}: the folder {parent} does not exist")
    try:
        conn = duckdb.connect(name, read_only=read_only, config=dict(settings or {}))
    except duckdb.IOException as exc:
        if is_lock_error(exc):
            m = _HOLDER.search(str(exc))
            holder = f"PID {m['pid']}" if m else None
            raise StoreLockedError(name, holder) from None
        raise StoreError(f"{name}: cannot open the store: {_first_line(exc)}") from None
    except duckdb.ConnectionException as exc:
        # Same process, same file, other mode (read-only next to read-write).
        raise StoreError(
            f"{name}: already open in this program in another mode (read-only and "
            f"read-write cannot be mixed): {_first_line(exc)}"
        ) from None
    except duckdb.Error as exc:
        raise StoreError(f"{name}: not a DuckDB store: {_first_line(exc)}") from None
    conn.execute("SET enable_progress_bar = false")
    if settings:
        conn.execute("SET lock_configuration = true")
    return conn


#: DuckDB's memory limit while a command reads or writes the whole store (import, verify,
#: rebuild). DuckDB keeps every block it has read cached up to its limit, which is 80% of
#: the machine's memory by default: a pass over a large store would grow to that size.
#: Under this limit it evicts (and spills a large query to a temporary file), so those
#: commands take the same memory for any store (the bench holds each to a budget).
WHOLE_STORE_MEMORY = "64MiB"

_SETTINGS_LOCK = threading.Lock()
#: (database file, setting) -> (users holding it, the setting's value before the first)
_HELD: dict[tuple[str, str], tuple[int, str]] = {}


@contextlib.contextmanager
def database_setting(
    conn: duckdb.DuckDBPyConnection, path: Path, name: str, value: str
) -> Iterator[None]:
    """DuckDB's setting ``name`` held at ``value`` while the block runs, restored after the
    last holder. A setting such as ``threads`` or ``memory_limit`` belongs to the database,
    shared by every connection to the file in this process, hence the count of holders. A
    connection whose settings are locked (:mod:`.query`) keeps its own."""
    import duckdb

    key = (str(path.resolve()), name)
    with _SETTINGS_LOCK:
        users, before = _HELD.get(key, (0, ""))
        if users == 0:
            try:
                before = str(scalar(conn, f"SELECT current_setting('{name}')"))
                conn.execute(f"SET {name} = '{value}'")
            except duckdb.Error:  # locked settings: left as they are
                before = ""
        _HELD[key] = (users + 1, before)
    try:
        yield
    finally:
        with _SETTINGS_LOCK:
            users, before = _HELD[key]
            if users > 1:
                _HELD[key] = (users - 1, before)
            else:
                del _HELD[key]
                if before:
                    with contextlib.suppress(duckdb.Error):  # the store may be closed by now
                        conn.execute(f"SET {name} = '{before}'")


def bounded_memory(
    conn: duckdb.DuckDBPyConnection, path: Path
) -> contextlib.AbstractContextManager[None]:
    """DuckDB's memory held to :data:`WHOLE_STORE_MEMORY` while a pass over the whole store
    runs, restored after the last."""
    return database_setting(conn, path, "memory_limit", WHOLE_STORE_MEMORY)


def _first_line(exc: BaseException) -> str:
    return str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__


def fetch_one(
    conn: duckdb.DuckDBPyConnection, sql: str, params: list[Any] | None = None
) -> tuple[Any, ...] | None:
    """The first row of a query, with the result read to its end.

    DuckDB refuses further work on a connection while a result is unfinished, which a
    ``fetchone`` leaves behind.
    """
    rows = conn.execute(sql, params or []).fetchall()
    return rows[0] if rows else None


def scalar(conn: duckdb.DuckDBPyConnection, sql: str, params: list[Any] | None = None) -> Any:
    """The first value of the first row of a query (None when there is no row)."""
    row = fetch_one(conn, sql, params)
    return row[0] if row else None
