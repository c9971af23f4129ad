"""Parquet export: the path for corpora that outgrow one machine.

``events`` is written as a Hive-partitioned dataset, ``events/date=YYYY-MM-DD/type=T/``,
the date being the table date of the event (the first ten characters of ``at``, which is
RFC 3339), so that DuckDB, Polars, Spark or Trino read one day or one event type without
touching the rest. Every projection table is written beside it as ``<table>.parquet``.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .connection import scalar
from .errors import StoreError
from .schema import TABLES
from .writer import EVENT_SELECT

if TYPE_CHECKING:
    from .store import Store

__all__ = ["ExportReport", "export_parquet"]


@dataclass(slots=True)
class ExportReport:
    directory: str
    events: int = 0
    tables: dict[str, int] = field(default_factory=dict)
    files: int = 0

    def to_dict(self) -> dict[str, Any]:
        return {
            "directory": self.directory,
            "events": self.events,
            "tables": self.tables,
            "files": self.files,
        }


def _literal(path: Path) -> str:
    return "'" + str(path).replace("'", "''") + "'"


def export_parquet(store: Store, directory: Path, *, overwrite: bool = False) -> ExportReport:
    targets = [directory / "events", *(directory / f"{t}.parquet" for t in TABLES)]
    if not overwrite:
        existing = [t for t in targets if t.exists()]
        if existing:
            raise StoreError(
                f"{directory}: already holds an export ({existing[0].name}); choose an empty "
                "folder or pass --overwrite"
            )
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise StoreError(f"{directory}: cannot create the folder: {exc.strerror}") from None
    conn = store.conn
    report = ExportReport(str(directory))
    report.events = int(scalar(conn, "SELECT count(*) FROM events"))
    opts = "FORMAT PARQUET, PARTITION_BY (date, type)" + (", OVERWRITE" if overwrite else "")
    if report.events:
        conn.execute(
            f"""COPY (SELECT {EVENT_SELECT}, TRY_CAST(left("at", 10) AS DATE) AS date
                     FROM events ORDER BY game_id, seq)
                TO {_literal(directory / "events")} ({opts})"""
        )
    for name in TABLES:
        target = directory / f"{name}.parquet"
        conn.execute(f"COPY {name} TO {_literal(target)} (FORMAT PARQUET)")
        report.tables[name] = int(scalar(conn, f"SELECT count(*) FROM {name}"))
    report.files = sum(len(files) for _, _, files in os.walk(directory))
    return report
