"""SQL over an archive: DuckDB reads its Parquet through views named like the store's tables.

Only the files of committed builds are read (the build records list them), so a query never
sees a build that did not finish. The store's own views (``v_hand_summary`` and the rest)
are created over the table views, so every query written for the store runs unchanged;
``archive_manifest`` lists the archived games.
"""

from __future__ import annotations

from typing import Any

from ..store.layout import LAYOUT_TABLES, MANIFEST, views_sql
from ..store.query import QueryResult
from ..store.query import query as run_read_only
from ..store.sandbox import NO_LIMITS
from .target import Target, is_local

__all__ = ["connect", "query"]


def connect(directory: str) -> Any:
    """An in-memory DuckDB connection whose views read the archive at ``directory``."""
    import duckdb

    from .build import ArchiveError

    target = Target(directory)
    records = target.records()
    if not records:
        raise ArchiveError(
            f"{directory}: no archive here (no build records in _builds/): build one with "
            "gostop archive build or gostop db export"
        )
    files: dict[str, list[str]] = {name: [] for name in LAYOUT_TABLES}
    for rec in records:
        for table, rels in rec["files"].items():
            files.setdefault(table, []).extend(target.url_of(r) for r in rels)
    manifests = [target.url_of(f"{MANIFEST}/{r['build']}.parquet") for r in records]
    conn = duckdb.connect()
    if not is_local(target.fs):
        conn.register_filesystem(target.fs)
    for statement in views_sql(files, manifests):
        conn.execute(statement)
    return conn


def query(directory: str, sql: str, *, limit: int | None = None) -> QueryResult:
    """Run read-only SQL on the archive; the result of the last statement."""
    conn = connect(directory)
    try:
        return run_read_only(conn, sql, limit=limit, limits=NO_LIMITS)  # the user's machine
    finally:
        conn.close()
