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
from collections.abc import Collection, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import msgspec

from .schema import Columns, quote

if TYPE_CHECKING:
    import duckdb

__all__ = [
    "SMALL_ROWS",
    "Prepared",
    "arrow_available",
    "combine",
    "compact",
    "from_arrow",
    "insert_rows",
    "placeholder",
    "prepare",
    "prepare_columns",
    "row_source",
    "to_arrow",
    "without_games",
]

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


#: How a value of these column types is read from its text: a bad date leniently (as
#: NULL), JSON parsed; other types take their value as given.
_FROM_TEXT = {"DATE": "TRY_CAST({} AS DATE)", "JSON": "CAST({} AS JSON)"}


def _cast(col: str, sql_type: str) -> str:
    value = _FROM_TEXT.get(sql_type, f"CAST({{}} AS {sql_type})").format(quote(col))
    return f"{value} AS {quote(col)}"


def _unnest(sql_type: str) -> str:
    """A column's values given as one list parameter, one row per item."""
    if sql_type in _FROM_TEXT:
        return _FROM_TEXT[sql_type].format("unnest(?::VARCHAR[])")
    return f"unnest(?::{sql_type}[])"


def placeholder(sql_type: str) -> str:
    """The ``?`` of a value of this column type in a statement (with its cast)."""
    return _FROM_TEXT.get(sql_type, "{}").format("?")


def _arrow_type(sql_type: str) -> Any:
    import pyarrow as pa

    if sql_type == "JSON" and hasattr(pa, "json_"):
        # Arrow's JSON extension type: DuckDB takes the text as JSON without parsing it
        # again (about a tenth of an event's insert), which the payloads, all encoded by msgspec
        # here, do not need.
        return pa.json_(pa.string())
    if sql_type.endswith("[]"):
        return pa.list_(pa.string())
    if sql_type in ("INTEGER", "TINYINT", "SMALLINT", "BIGINT"):
        return pa.int64()
    if sql_type == "BOOLEAN":
        return pa.bool_()
    return pa.string()


def _arrow_table(columns: Columns, values: Sequence[Sequence[Any]]) -> Any:
    import pyarrow as pa

    return pa.Table.from_arrays(
        [pa.array(col, type=_arrow_type(t)) for (_, t), col in zip(columns, values, strict=True)],
        names=[name for name, _ in columns],
    )


#: Up to this many rows go in as one parameterised statement: registering an Arrow table
#: costs a few milliseconds, which a live append of one event should not pay.
SMALL_ROWS = 64
#: From this many values (rows times columns), those rows go in as one list per column,
#: unnested, instead of a ``VALUES`` list: DuckDB spends about 30 us on each value of a
#: ``VALUES`` list and little on a list's items, so a batch of a few dozen events costs a
#: third (``python -m bench.commit_cost``). Tables with list columns keep ``VALUES``.
UNNEST_VALUES = 48


@dataclass(frozen=True, slots=True)
class Prepared:
    """Rows made ready to insert, as columns; many rows come with their Arrow table."""

    values: Sequence[Sequence[Any]]  # one sequence per column (empty when only Arrow holds them)
    count: int
    arrow: Any = None

    def rows(self) -> list[tuple[Any, ...]]:
        return list(zip(*self.values, strict=True))


def prepare(columns: Columns, rows: Sequence[tuple[Any, ...]]) -> Prepared:
    """Rows made ready for :func:`insert_rows` (see :func:`prepare_columns`)."""
    # one pass turns the rows into column tuples, which pyarrow reads as they are
    values = list(zip(*rows, strict=True)) if rows else [() for _ in columns]
    return prepare_columns(columns, values, len(rows))


def prepare_columns(columns: Columns, values: Sequence[Sequence[Any]], count: int) -> Prepared:
    """``count`` rows given as columns, made ready for :func:`insert_rows`.

    Building an Arrow table is Python work that holds the interpreter lock; the import does
    it on its main thread, so that its writer thread takes the lock only for moments.
    """
    if count > SMALL_ROWS and arrow_available():
        return Prepared(values, count, _arrow_table(columns, values))
    return Prepared(_as_text(columns, values), count)


def _as_text(columns: Columns, values: Sequence[Sequence[Any]]) -> Sequence[Sequence[Any]]:
    """JSON columns given as UTF-8 bytes made text, for statement parameters and JSON Lines."""
    out = list(values)
    for k, (_, sql_type) in enumerate(columns):
        col = out[k]
        if sql_type == "JSON" and any(type(v) is bytes for v in col):
            out[k] = [v.decode() if type(v) is bytes else v for v in col]
    return out


def to_arrow(columns: Columns, ready: Prepared) -> Any:
    """The rows as an Arrow table, however few (to send them to another process)."""
    return ready.arrow if ready.arrow is not None else _arrow_table(columns, ready.values)


def from_arrow(table: Any) -> Prepared:
    """Rows received as an Arrow table, ready to insert."""
    return Prepared((), table.num_rows, table)


def compact(ready: Prepared) -> Prepared:
    """The rows held by their Arrow table alone, when they have one.

    The Python columns an Arrow table was built from take several times its memory; a
    transaction being gathered keeps only the table.
    """
    return ready if ready.arrow is None or not ready.values else from_arrow(ready.arrow)


def without_games(ready: Prepared, game_ids: Collection[str]) -> Prepared:
    """Rows received as an Arrow table less those of some games."""
    import pyarrow as pa
    import pyarrow.compute as pc

    table = ready.arrow
    keep = pc.invert(pc.is_in(table["game_id"], value_set=pa.array(list(game_ids), pa.string())))
    return from_arrow(table.filter(keep))


def combine(columns: Columns, parts: Sequence[Prepared]) -> Prepared:
    """Several prepared parts of one table as one, for one ``INSERT``.

    DuckDB writes the row groups of a large insert straight to the database file, where many
    small inserts in one transaction all go through its write-ahead log first and are
    copied again at the checkpoint: a bulk import gathers its batches into one insert per
    table. Arrow tables are chained without copying their data.
    """
    parts = [p for p in parts if p.count]
    if len(parts) == 1:
        return parts[0]
    count = sum(p.count for p in parts)
    if (count > SMALL_ROWS or any(p.arrow is not None for p in parts)) and arrow_available():
        import pyarrow as pa

        tables = [
            p.arrow if p.arrow is not None else _arrow_table(columns, p.values) for p in parts
        ]
        return Prepared((), count, pa.concat_tables(tables))
    values = [
        list(itertools.chain.from_iterable(p.values[k] for p in parts)) for k in range(len(columns))
    ]
    return prepare_columns(columns, values, count)


@contextlib.contextmanager
def row_source(
    conn: duckdb.DuckDBPyConnection,
    columns: Columns,
    rows: Sequence[tuple[Any, ...]] | Prepared,
) -> Iterator[str]:
    """An SQL ``SELECT`` of ``rows`` with typed columns, valid inside the ``with`` block.

    DATE columns take ISO date strings (a bad one becomes NULL); JSON columns take the JSON
    text; list columns take lists of strings.
    """
    select = ", ".join(_cast(c, t) for c, t in columns)
    ready = rows if isinstance(rows, Prepared) else prepare(columns, rows)
    table = ready.arrow
    if table is None and arrow_available():
        table = _arrow_table(columns, ready.values)
    if table is not None:
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
            for row in ready.rows():
                f.write(enc.encode(dict(zip(names, row, strict=True))))
                f.write(b"\n")
        spec = ", ".join(
            f"{_sql_str(c)}: {_sql_str('VARCHAR' if t == 'JSON' else t)}" for c, t in columns
        )
        source = f"read_json({_sql_str(path)}, format = 'newline_delimited', columns = {{{spec}}})"
        yield f"SELECT {select} FROM {source}"
    finally:
        with contextlib.suppress(OSError):
            os.unlink(path)


def _sql_str(s: str) -> str:
    return "'" + s.replace("'", "''") + "'"


def insert_rows(
    conn: duckdb.DuckDBPyConnection,
    table: str,
    columns: Columns,
    rows: Sequence[tuple[Any, ...]] | Prepared,
    *,
    ignore: bool = False,
) -> int:
    """Insert rows in one statement; returns how many. ``ignore``: rows whose key the
    table holds already are skipped (``INSERT OR IGNORE``)."""
    n = rows.count if isinstance(rows, Prepared) else len(rows)
    if not n:
        return 0
    names = ", ".join(quote(c) for c, _ in columns)
    verb = "INSERT OR IGNORE INTO" if ignore else "INSERT INTO"
    if n <= SMALL_ROWS and not (isinstance(rows, Prepared) and rows.arrow is not None):
        if n * len(columns) >= UNNEST_VALUES and not any(t.endswith("[]") for _, t in columns):
            cols = rows.values if isinstance(rows, Prepared) else list(zip(*rows, strict=True))
            lists = [list(c) for c in _as_text(columns, cols)]
            select = ", ".join(_unnest(t) for _, t in columns)
            conn.execute(f"{verb} {table} ({names}) SELECT {select}", lists)
            return n
        one = "(" + ", ".join(placeholder(t) for _, t in columns) + ")"
        values = ", ".join([one] * n)
        small = rows.rows() if isinstance(rows, Prepared) else rows
        params = [v for row in small for v in row]
        conn.execute(f"{verb} {table} ({names}) VALUES {values}", params)
        return n
    with row_source(conn, columns, rows) as source:
        conn.execute(f"{verb} {table} ({names}) {source}")
    return n
