"""Parquet export: the store in the layout of :mod:`.layout`, the one the archive writes.

Every table (``events`` and each projection) goes to ``DIR/<table>/month=YYYY-MM/``, a
game's rows in the month it started, the event type a column, each file carrying the
table's and its columns' descriptions from its row type (``description`` and ``columns``,
JSON, in its key-value metadata); a manifest of the games and a build record (build
``export``) make the folder readable by ``gostop archive query`` and extendable by
``gostop archive build``, like any archive.
"""

from __future__ import annotations

import datetime as _dt
import json
import os
import shutil
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from ..plain import Record
from .connection import scalar
from .errors import StoreError
from .layout import (
    BUILDS,
    LAYOUT_TABLES,
    MANIFEST,
    PARTITION,
    ROW_GROUP_ROWS,
    build_record,
    month_of,
)
from .schema import KEYS, quote
from .tables import ROWS, column_docs, table_doc

if TYPE_CHECKING:
    from .handle import StoreHandle

__all__ = ["EXPORT_BUILD", "ExportReport", "export_parquet"]

#: The build id of an export in the layout's records.
EXPORT_BUILD = "export"
#: A month's file of one table is split past this size.
FILE_BYTES = "256MB"


@dataclass(slots=True)
class ExportReport(Record):
    directory: str
    events: int = 0
    tables: dict[str, int] = field(default_factory=dict)
    files: int = 0


def _literal(path: Path | str) -> str:
    return "'" + str(path).replace("'", "''") + "'"


def _about(table: str) -> str:
    """The Parquet key-value metadata of a table's files: its description and its columns',
    from its row type (:mod:`.tables`), so a file explains itself to any reader."""
    row = ROWS[table]
    columns = json.dumps(column_docs(row), ensure_ascii=False)
    return f"KV_METADATA {{description: {_literal(table_doc(row))}, columns: {_literal(columns)}}}"


def _order(table: str) -> str:
    keys = ("game_id", "seq") if table == "events" else KEYS.get(table, ("game_id",))
    return ", ".join(f"t.{quote(k)}" for k in keys)


# Long: one COPY per table in order, with the progress, the manifest and the cleanup.
def export_parquet(
    store: StoreHandle,
    directory: Path,
    *,
    overwrite: bool = False,
    progress: Callable[[int, int], None] | None = None,
) -> ExportReport:
    """Every table of the layout as Parquet; ``progress(done, total)`` is called after each
    table (a table is one COPY: DuckDB tells nothing finer)."""
    targets = [directory / t for t in (*LAYOUT_TABLES, MANIFEST, BUILDS)]
    existing = [t for t in targets if t.exists()]
    if existing and not overwrite:
        raise StoreError(
            f"{directory}: already holds an export ({existing[0].name}); choose an empty "
            "folder or pass --overwrite"
        )
    try:
        for t in existing:
            shutil.rmtree(t) if t.is_dir() else t.unlink()
        directory.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise StoreError(f"{directory}: cannot write the folder: {exc.strerror}") from None
    import pyarrow as pa

    conn = store.conn
    report = ExportReport(str(directory))
    report.events = int(scalar(conn, "SELECT count(*) FROM events"))
    started = conn.execute("SELECT game_id, started_at FROM games").fetchall()
    months = pa.table(
        {
            "game_id": pa.array([g for g, _ in started], pa.string()),
            PARTITION: pa.array([month_of(at) for _, at in started], pa.string()),
        }
    )
    view = f"_gostop_months_{os.getpid()}"
    conn.register(view, months)
    files: dict[str, list[str]] = {}
    try:
        for k, (name, cols) in enumerate(LAYOUT_TABLES.items(), 1):
            report.tables[name] = n = int(scalar(conn, f"SELECT count(*) FROM {name}"))
            if n:
                select = ", ".join(f"t.{quote(c)}" for c, _ in cols)
                conn.execute(
                    f"""COPY (SELECT {select}, coalesce(m.{PARTITION}, 'unknown') AS {PARTITION}
                             FROM {name} t LEFT JOIN {view} m USING (game_id)
                             ORDER BY {_order(name)})
                        TO {_literal(directory / name)}
                        (FORMAT PARQUET, PARTITION_BY ({PARTITION}), COMPRESSION zstd,
                         ROW_GROUP_SIZE {ROW_GROUP_ROWS}, FILE_SIZE_BYTES '{FILE_BYTES}',
                         FILENAME_PATTERN 'part-{EXPORT_BUILD}-{{i}}', {_about(name)})"""
                )
                files[name] = sorted(
                    os.path.relpath(os.path.join(d, f), directory).replace(os.sep, "/")
                    for d, _, names in os.walk(directory / name)
                    for f in names
                )
            if progress is not None:
                progress(k, len(LAYOUT_TABLES))
        (directory / MANIFEST).mkdir()
        conn.execute(
            f"""COPY (SELECT g.game_id, {_literal(store.path)} AS source,
                             CAST(NULL AS INTEGER) AS line, p.hash AS head, g.events,
                             m.{PARTITION},
                             'events/{PARTITION}=' || m.{PARTITION} AS part,
                             '{EXPORT_BUILD}' AS build
                      FROM games g JOIN positions p USING (game_id)
                      JOIN {view} m USING (game_id) ORDER BY g.game_id)
                TO {_literal(directory / MANIFEST / f"{EXPORT_BUILD}.parquet")}
                (FORMAT PARQUET)"""
        )
    finally:
        conn.unregister(view)
    (directory / BUILDS).mkdir()
    record = build_record(
        EXPORT_BUILD,
        files,
        finished=_dt.datetime.now(_dt.UTC).isoformat(timespec="seconds"),
        source=str(store.path),
        games=report.tables.get("games", 0),
        events=report.events,
        rejected=[],
        changed=[],
    )
    (directory / BUILDS / f"{EXPORT_BUILD}.json").write_bytes(record)
    report.files = sum(len(f) for f in files.values()) + 2
    return report
