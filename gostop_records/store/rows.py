"""Rows into DuckDB in bulk: through Arrow when pyarrow is installed, else through JSON Lines.

Row-at-a-time inserts (``executemany``) run at a few thousand rows a second; an Arrow table
registered on the connection and read by one ``INSERT ... SELECT`` runs at about a million.
Without pyarrow the rows go to a temporary JSON Lines file read by ``read_json`` with
explicit column types, which is slower than Arrow but still one statement.

Either way the rows become a *source*: an SQL expression that selects the rows with every
column cast to its table type. Inserting is ``INSERT INTO t SELECT * FROM source``; the
verifier compares a table with a fresh derivation through the same source.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import tempfile
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any

import msgspec

from .schema import Columns, quote

if TYPE_CHECKING:
    import duckdb

__all__ = ["arrow_available", "insert_rows", "row_source"]

_FORCE_JSON = False  # tests set this to exercise the path taken without pyarrow
_counter = itertools.count()


def arrow_available() -> bool:
    if _FORCE_JSON:
        return False
    try:
        import pyarrow  # noqa: F401
    except ImportError:
        return False
    return True


def _cast(col: str, sql_type: str) -> str:
    if sql_type == "DATE":
        return f"TRY_CAST({quote(col)} AS DATE) AS {quote(col)}"
    return f"CAST({quote(col)} AS {sql_type}) AS {quote(col)}"


def _param(sql_type: str) -> str:
    if sql_type == "DATE":
        return "TRY_CAST(? AS DATE)"
    if sql_type == "JSON":
        return "CAST(? AS JSON)"
    return "?"


def _arrow_type(sql_type: str) -> Any:
    import pyarrow as pa

    if sql_type.endswith("[]"):
        return pa.list_(pa.string())
    if sql_type in ("INTEGER", "TINYINT", "SMALLINT", "BIGINT"):
        return pa.int64()
    if sql_type == "BOOLEAN":
        return pa.bool_()
    return pa.string()


@contextlib.contextmanager
def row_source(
    conn: duckdb.DuckDBPyConnection, columns: Columns, rows: Sequence[tuple[Any, ...]]
) -> Iterator[str]:
    """An SQL ``SELECT`` of ``rows`` with typed columns, valid inside the ``with`` block.

    DATE columns take ISO date strings (a bad one becomes NULL); JSON columns take the JSON
    text; list columns take lists of strings.
    """
    select = ", ".join(_cast(c, t) for c, t in columns)
    if arrow_available():
        import pyarrow as pa

        cols = list(zip(*rows, strict=True)) if rows else [()] * len(columns)
        table = pa.table(
            {
                name: pa.array(list(values), type=_arrow_type(t))
                for (name, t), values in zip(columns, cols, strict=True)
            }
        )
        view = f"_gostop_rows_{os.getpid()}_{next(_counter)}"
        conn.register(view, table)
        try:
            yield f"SELECT {select} FROM {view}"
        finally:
            conn.unregister(view)
        return
    names = [c for c, _ in columns]
    fd, path = tempfile.mkstemp(prefix="gostop-rows-", suffix=".ndjson")
    try:
        enc = msgspec.json.Encoder()
        with os.fdopen(fd, "wb") as f:
            for row in rows:
                f.write(enc.encode(dict(zip(names, row, strict=True))))
                f.write(b"\n")
        spec = ", ".join(
            f"{_sql_str(c)}: {_sql_str('VARCHAR' if t == 'JSON' else t)}" for c, t in columns
        )
        source = (
            f"read_json({_sql_str(path)}, format = 'newline_delimited', "
            f"columns = {{{spec}}})"
        )
        yield f"SELECT {select} FROM {source}"
    finally:
        with contextlib.suppress(OSError):
            os.unlink(path)


def _sql_str(s: str) -> str:
    return "'" + s.replace("'", "''") + "'"


#: Up to this many rows go in as one parameterised ``VALUES`` statement: registering an
#: Arrow table costs a few milliseconds, which a live append of one event should not pay.
SMALL_ROWS = 64


def insert_rows(
    conn: duckdb.DuckDBPyConnection, table: str, columns: Columns,
    rows: Sequence[tuple[Any, ...]],
) -> int:
    """Insert rows in one statement; returns how many."""
    if not rows:
        return 0
    names = ", ".join(quote(c) for c, _ in columns)
    if len(rows) <= SMALL_ROWS:
        one = "(" + ", ".join(_param(t) for _, t in columns) + ")"
        values = ", ".join([one] * len(rows))
        params = [v for row in rows for v in row]
        conn.execute(f"INSERT INTO {table} ({names}) VALUES {values}", params)
        return len(rows)
    with row_source(conn, columns, rows) as source:
        conn.execute(f"INSERT INTO {table} ({names}) {source}")
    return len(rows)
