"""The archive: game logs as Parquet on a Dask cluster, for corpora beyond one machine.

``build_archive(logs, out)`` validates every game with the project's projector on the
cluster's workers and writes the events and every projection table in the layout of
:mod:`gostop_records.store.layout` (shared with ``gostop db export``); ``query(dir, sql)``
answers SQL over it with the store's table and view names. Dask and distributed come with
the ``archive`` extra and are imported only when a build runs.
"""

from __future__ import annotations

from .build import ArchiveError, BuildReport, build_archive, require_dask
from .query import connect, query

__all__ = ["ArchiveError", "BuildReport", "build_archive", "connect", "query", "require_dask"]
