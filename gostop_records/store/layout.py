"""The Parquet layout shared by ``gostop db export`` and ``gostop archive build``.

::

    DIR/events/month=2026-01/part-<build>-<unit>.parquet
    DIR/games/month=2026-01/part-<build>-<unit>.parquet
    ...                                     (one folder per table of the store)
    DIR/_manifest/<build>.parquet           the games each build wrote
    DIR/_builds/<build>.json                a build's record: its files, what it rejected

Every row of a game, in every table, sits in the partition of the month the game started
(the first seven characters of its first event's ``at``), so a game is never split across
partitions and a month is one folder per table. The event type is a column, not a folder:
a month of events is a few large files rather than thousands of small ones, which is what
Spark, Trino, DuckDB and object stores read best. Columns and types are the store's
(``INTEGER`` as int32, ``TINYINT`` as int8, ``DATE`` as date32, lists as lists of strings,
``JSON`` as its text); the partition column ``month`` lives in the folder names only.

A file is part of the layout once a build record lists it: a build writes its files first
and its record last, so readers that go through the records (:func:`views_sql`) never see
a build that did not finish.
"""

from __future__ import annotations

import datetime as _dt
import json
import re
from collections.abc import Mapping, Sequence
from typing import Any

from .schema import EVENT_COLUMNS, PEOPLE_COLUMNS, TABLES, VIEWS, Columns, quote
from .tables import ROWS, column_docs, table_doc

__all__ = [
    "BUILDS",
    "LAYOUT_TABLES",
    "MANIFEST",
    "MANIFEST_COLUMNS",
    "PARTITION",
    "UNKNOWN_MONTH",
    "arrow_schema",
    "arrow_table",
    "build_record",
    "month_of",
    "part_name",
    "part_path",
    "views_sql",
]

#: Every table of the layout with its columns: the events and each projection table.
LAYOUT_TABLES: dict[str, Columns] = {"events": EVENT_COLUMNS, **TABLES}
#: The partition column (a folder level ``month=YYYY-MM``).
PARTITION = "month"
#: The partition of a game whose first event has no readable date.
UNKNOWN_MONTH = "unknown"
MANIFEST = "_manifest"
BUILDS = "_builds"
#: Rows per Parquet row group: large enough for scans, small enough for a reader's memory.
ROW_GROUP_ROWS = 250_000

#: One row per game a build wrote.
MANIFEST_COLUMNS: Columns = (
    ("game_id", "VARCHAR"),
    ("source", "VARCHAR"),  # the log file the game was read from (the store, for an export)
    ("line", "INTEGER"),  # line of the game's first event in that file; NULL for an export
    ("head", "VARCHAR"),  # hash of the game's last event: the head of its chain
    ("events", "INTEGER"),
    ("month", "VARCHAR"),
    ("part", "VARCHAR"),  # the file of its events, relative to DIR
    ("build", "VARCHAR"),
)

_MONTH = re.compile(r"\d{4}-(0[1-9]|1[0-2])")


def month_of(at: str | None) -> str:
    """The partition of a game whose first event happened at ``at`` (RFC 3339 text)."""
    if at and _MONTH.fullmatch(at[:7]):
        return at[:7]
    return UNKNOWN_MONTH


def part_name(build: str, unit: int | str) -> str:
    return f"part-{build}-{unit}.parquet"


def part_path(table: str, month: str, name: str) -> str:
    """A data file's path relative to the layout's folder."""
    return f"{table}/{PARTITION}={month}/{name}"


def _arrow_type(sql_type: str) -> Any:
    import pyarrow as pa

    if sql_type.endswith("[]"):
        return pa.list_(pa.string())
    return {
        "INTEGER": pa.int32(),
        "TINYINT": pa.int8(),
        "SMALLINT": pa.int16(),
        "BIGINT": pa.int64(),
        "BOOLEAN": pa.bool_(),
        "DATE": pa.date32(),
    }.get(sql_type, pa.string())


def _date(v: Any) -> _dt.date | None:
    if v is None or isinstance(v, _dt.date):
        return v
    try:
        return _dt.date.fromisoformat(v)
    except (TypeError, ValueError):
        return None  # as the store's TRY_CAST makes it


def arrow_schema(columns: Columns, table: str | None = None) -> Any:
    """The Arrow schema of rows with these columns.

    With the name of a store ``table``, every field carries the column's description
    (``description`` in its metadata, the SQL reference's text) and the schema the table's,
    both from its row type (:mod:`.tables`), so a Parquet file explains itself to any engine
    that shows field metadata."""
    import pyarrow as pa

    row = ROWS.get(table) if table else None
    docs = column_docs(row) if row is not None else {}
    fields = [
        pa.field(
            name,
            _arrow_type(sql_type),
            metadata={"description": docs[name]} if name in docs else None,
        )
        for name, sql_type in columns
    ]
    meta = {"description": table_doc(row)} if row is not None else None
    return pa.schema(fields, metadata=meta)


def arrow_table(columns: Columns, values: Sequence[Sequence[Any]], table: str | None = None) -> Any:
    """Columns of rows (as the store's row builders give them) as a typed Arrow table, in
    the schema of :func:`arrow_schema`."""
    import pyarrow as pa

    schema = arrow_schema(columns, table)
    arrays = []
    for (_, sql_type), col, f in zip(columns, values, schema, strict=True):
        if sql_type == "DATE":
            col = [_date(v) for v in col]
        arrays.append(pa.array(col, type=f.type))
    return pa.Table.from_arrays(arrays, schema=schema)


def build_record(build: str, files: Mapping[str, Sequence[str]], **facts: Any) -> bytes:
    """The JSON of a build's record: its files by table, and what else it tells."""
    return json.dumps({"build": build, "files": dict(files), **facts}, indent=1).encode()


def _literal(s: str) -> str:
    return "'" + s.replace("'", "''") + "'"


def _select(columns: Columns, files: Sequence[str]) -> str:
    if not files:
        cols = ", ".join(f"CAST(NULL AS {t}) AS {quote(c)}" for c, t in columns)
        return f"SELECT {cols} WHERE false"
    cols = ", ".join(f"CAST({quote(c)} AS {t}) AS {quote(c)}" for c, t in columns)
    listed = ", ".join(_literal(f) for f in files)
    return f"SELECT {cols} FROM read_parquet([{listed}], hive_partitioning = false)"


def views_sql(files: Mapping[str, Sequence[str]], manifests: Sequence[str] = ()) -> list[str]:
    """Statements that make a DuckDB connection read a layout like a store.

    ``files`` are the data files of each table (full paths or URLs DuckDB can open),
    ``manifests`` the manifest files. Each table becomes a view of the same name, columns
    and types as in the store, and the store's own views are created on top of them, so
    a query written for the store runs unchanged.
    """
    out = [
        f"CREATE OR REPLACE VIEW {name} AS {_select(cols, files.get(name, ()))}"
        for name, cols in LAYOUT_TABLES.items()
    ]
    out.append(f"CREATE OR REPLACE VIEW archive_manifest AS {_select(MANIFEST_COLUMNS, manifests)}")
    # the people record (renames, merges) lives in the store, not in the games' logs: an
    # archive counts each seat's id as recorded, and holds no name the store has forgotten
    out.append(f"CREATE OR REPLACE VIEW people AS {_select(PEOPLE_COLUMNS, ())}")
    out.extend(f"CREATE OR REPLACE VIEW {name} AS {sql}" for name, sql in VIEWS.items())
    return out
