"""Backups through the service: a copy of the store taken as a write job, so that every
entry is ordered before or after it and the copy is the store at that point, with the
journal's rows written first (:mod:`gostop_records.store.backup`).

The copy is taken on the writer thread holding the journal's turn; checking it and giving
it its name happen off that thread (:func:`~gostop_records.store.backup.finish_copy`), so
entries wait for the copy only. A backup is written into the server's backup folder, never
elsewhere: a request may give a name at most, which must be a bare file name.
"""

from __future__ import annotations

import errno
import logging
from pathlib import Path

from ..store.backup import BackupError, Copied, check_name, copy_store, stamped_name
from .errors import ServiceError
from .sessions import Sessions

log = logging.getLogger("gostop.backup")

__all__ = ["Backups", "default_folder", "failed"]


def default_folder(store_path: Path) -> Path:
    """Where a server keeps its backups unless told: ``backups/`` beside the store."""
    return store_path.absolute().parent / "backups"


class Backups(Sessions):
    """A backup as a write job (see the module docstring)."""

    def copy_for_backup(self, folder: Path, name: str | None = None) -> Copied:
        """Copy the store into ``folder`` under ``name`` (a bare file name) or one made of
        the UTC time; the copy still has to be checked and named (``finish_copy``)."""
        if name is not None:
            try:
                check_name(name)
            except BackupError as exc:
                raise ServiceError(400, "bad_name", str(exc)) from None
        try:
            folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        except OSError as exc:
            log.error("the backup folder cannot be made: %s", exc)
            raise ServiceError(
                500, "backup_failed", "the backup folder cannot be made (see the server's log)"
            ) from None
        dest = folder / (name or stamped_name(self.path, folder))
        if dest.exists():
            raise ServiceError(409, "backup_exists", f"a backup named {dest.name} exists already")
        self._conn()  # every acknowledged entry in DuckDB, or a 503 saying why not
        try:
            return copy_store(self.store, dest)
        except BackupError as exc:
            raise ServiceError(409, "backup_failed", self.hide_paths(str(exc))) from None
        except OSError as exc:
            raise failed(exc) from None


def failed(exc: OSError) -> ServiceError:
    """A backup the disk refused: logged with its cause, answered without a path."""
    log.error("backup not written: %s", exc)
    full = exc.errno == errno.ENOSPC
    return ServiceError(
        507 if full else 500,
        "backup_failed",
        "the backup could not be written: "
        + ("the disk holding the backups is full" if full else "see the server's log"),
    )
