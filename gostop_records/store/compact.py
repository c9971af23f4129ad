"""A store rewritten into a fresh file: what forgetting needs of DuckDB.

DuckDB reuses the blocks of deleted rows but never clears them, so a value deleted from a
table (a forgotten person's name in a projection row, their key) can stay in the file's
free blocks until they are written over. :func:`compact` copies every table, view and
constraint into a new file (``COPY FROM DATABASE``) and renames it onto the store, which
then holds only what its tables hold. The store must be closed (no server on it): a
server's connection is locked down to reach no other file, and another process's open
handle would keep the old file alive.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

from .errors import StoreError

__all__ = ["compact"]


def compact(path: Path) -> int:
    """Rewrite the store at ``path`` into a fresh file and rename it onto ``path``; the new
    file's size. Nothing is left at ``path`` but the old file or the new one."""
    import duckdb

    path = Path(path)
    if not path.exists():
        raise StoreError(f"{path}: no store here")
    fresh = path.with_name(path.name + ".compact")
    with contextlib.suppress(FileNotFoundError):
        fresh.unlink()
    try:
        conn = duckdb.connect(str(path))
    except duckdb.IOException as exc:
        raise StoreError(
            f"{path}: in use by another process (stop the server first): {exc}"
        ) from None
    try:
        conn.execute("CHECKPOINT")
        (name,) = conn.execute("SELECT current_database()").fetchall()[0]
        conn.execute("ATTACH ? AS fresh", [str(fresh)])
        conn.execute(f'COPY FROM DATABASE "{name}" TO fresh')
        conn.execute("DETACH fresh")
    except BaseException:
        conn.close()
        with contextlib.suppress(FileNotFoundError):
            fresh.unlink()
        raise
    conn.close()
    with open(fresh, "rb") as f:
        os.fsync(f.fileno())
    os.replace(fresh, path)
    with contextlib.suppress(FileNotFoundError):
        Path(str(path) + ".wal").unlink()
    dir_fd = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(dir_fd)
    finally:
        os.close(dir_fd)
    return path.stat().st_size
