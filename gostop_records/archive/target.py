"""The archive's folder, local or on object storage (any fsspec URL), and its commits.

A build writes its data files into ``_staging/<build>/`` (each under a temporary name,
renamed when complete), moves them into their partitions, writes its manifest and, last,
its record in ``_builds/``: the record is the commit. Whatever a build that did not commit
left behind (its staging folder, files it had moved, temporary files) belongs to no record;
the next build removes it before it starts, and its games, being in no manifest, are built
again. Files of committed builds are never opened for writing again.
"""

from __future__ import annotations

import json
import os
import uuid
from collections.abc import Iterator
from pathlib import PurePosixPath
from typing import Any

from ..store.layout import BUILDS, LAYOUT_TABLES, MANIFEST

__all__ = ["STAGING", "Target", "build_of", "open_fs"]

STAGING = "_staging"
_TMP = ".tmp-"


def open_fs(url: str) -> tuple[Any, str]:
    """The fsspec filesystem of a path or URL, and the path within it."""
    import fsspec

    fs, path = fsspec.core.url_to_fs(url)
    if getattr(fs, "protocol", None) in ("file", ("file", "local")):
        path = os.path.abspath(path)
    return fs, path


def is_local(fs: Any) -> bool:
    protocol = fs.protocol if isinstance(fs.protocol, str) else fs.protocol[0]
    return protocol in ("file", "local")


def build_of(name: str) -> str | None:
    """The build id in a data file's name ``part-<build>-<unit>.parquet``."""
    if not name.startswith("part-") or not name.endswith(".parquet"):
        return None
    head, sep, _ = name[5:-8].rpartition("-")
    return head if sep else None


class Target:
    """An archive folder: paths in it, atomic writes, the committed builds."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.fs, self.root = open_fs(url)

    def path(self, rel: str) -> str:
        return (
            str(PurePosixPath(self.root) / rel)
            if not is_local(self.fs)
            else os.path.join(self.root, *rel.split("/"))
        )

    def url_of(self, rel: str) -> str:
        """A full path or URL of a file, as DuckDB and other readers open it."""
        p = self.path(rel)
        return p if is_local(self.fs) else self.fs.unstrip_protocol(p)

    def write_bytes(self, rel: str, data: bytes) -> None:
        """Write a file whole under a temporary name, then rename it into place."""
        final = self.path(rel)
        self.fs.makedirs(self.fs._parent(final), exist_ok=True)
        tmp = f"{final}{_TMP}{uuid.uuid4().hex[:8]}"
        with self.fs.open(tmp, "wb") as f:
            f.write(data)
        self.fs.mv(tmp, final)

    def write_parquet(self, rel: str, table: Any) -> int:
        """A Parquet file under a temporary name, renamed when complete; its size."""
        import pyarrow.parquet as pq

        from ..store.layout import ROW_GROUP_ROWS

        final = self.path(rel)
        self.fs.makedirs(self.fs._parent(final), exist_ok=True)
        tmp = f"{final}{_TMP}{uuid.uuid4().hex[:8]}"
        with self.fs.open(tmp, "wb") as f:
            pq.write_table(table, f, compression="zstd", row_group_size=ROW_GROUP_ROWS)
        size = int(self.fs.size(tmp))
        _written(tmp)
        self.fs.mv(tmp, final)
        return size

    def merge_parquet(self, rel: str, sources: list[str]) -> None:
        """One Parquet file of the rows of several (of one schema), read one at a time and
        written in row groups of :data:`ROW_GROUP_ROWS`: memory holds a row group or so."""
        import pyarrow as pa
        import pyarrow.parquet as pq

        from ..store.layout import ROW_GROUP_ROWS

        final = self.path(rel)
        self.fs.makedirs(self.fs._parent(final), exist_ok=True)
        tmp = f"{final}{_TMP}{uuid.uuid4().hex[:8]}"
        with self.fs.open(tmp, "wb") as f:
            writer: Any = None
            pending: list[Any] = []
            held = 0
            for src in sources:
                with self.fs.open(self.path(src), "rb") as g:
                    t = pq.read_table(g)
                if writer is None:
                    writer = pq.ParquetWriter(f, t.schema, compression="zstd")
                pending.append(t)
                held += t.num_rows
                if held >= ROW_GROUP_ROWS:
                    writer.write_table(pa.concat_tables(pending), row_group_size=ROW_GROUP_ROWS)
                    pending, held = [], 0
            if pending:
                writer.write_table(pa.concat_tables(pending), row_group_size=ROW_GROUP_ROWS)
            writer.close()
        _written(tmp)
        self.fs.mv(tmp, final)

    def move(self, src_rel: str, dst_rel: str) -> None:
        dst = self.path(dst_rel)
        self.fs.makedirs(self.fs._parent(dst), exist_ok=True)
        self.fs.mv(self.path(src_rel), dst)

    def records(self) -> list[dict[str, Any]]:
        """The records of the committed builds, oldest first."""
        folder = self.path(BUILDS)
        if not self.fs.exists(folder):
            return []
        out = []
        for p in sorted(self.fs.ls(folder, detail=False)):
            name = PurePosixPath(p).name
            if name.endswith(".json") and _TMP not in name:
                with self.fs.open(p, "rb") as f:
                    out.append(json.loads(f.read()))
        return out

    def _all_files(self) -> Iterator[str]:
        if self.fs.exists(self.root):
            yield from self.fs.find(self.root)

    def clean(self, committed: set[str]) -> list[str]:
        """Remove what builds that did not commit left behind; the paths removed."""
        removed: list[str] = []
        staging = self.path(STAGING)
        if self.fs.exists(staging):
            removed.extend(self.fs.find(staging))
            self.fs.rm(staging, recursive=True)
        tables = set(LAYOUT_TABLES) | {MANIFEST, BUILDS}
        for p in self._all_files():
            parts = PurePosixPath(p.replace(os.sep, "/")).parts
            rel = parts[len(PurePosixPath(self.root.replace(os.sep, "/")).parts) :]
            if not rel or rel[0] not in tables:
                continue
            name = rel[-1]
            stale = _TMP in name
            if rel[0] == MANIFEST and name.endswith(".parquet"):
                stale = stale or name[: -len(".parquet")] not in committed
            elif rel[0] in LAYOUT_TABLES:
                build = build_of(name)
                stale = stale or (build is not None and build not in committed)
            if stale:
                self.fs.rm(p)
                removed.append(p)
        return removed


def _written(path: str) -> None:
    """Called when a data file is complete under its temporary name (a seam for tests)."""
