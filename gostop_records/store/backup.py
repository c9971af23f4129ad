"""Backups of a store: a consistent copy taken while the store may be in use, and a restore
that verifies the copy before anything uses it.

A backup is a copy of the DuckDB file at one point of the store's history. It is taken
holding the store's write turn (the journal's turn and the file's, :func:`.heads.writing`),
so no write runs meanwhile: the journal's rows and the pending projection rows are written
into DuckDB first (nothing acknowledged is left out), a ``CHECKPOINT`` moves DuckDB's own
write-ahead log into the file, and the file (with what is left of that log, if a reader kept
some) is copied. Reads go on during the copy; writes wait for it, a club's store being
copied in a second or so. The copy is then opened on its own, outside the turn, and must
hold the heads chain tip (entry, hash) and the number of events the store held at that
point; only then is it renamed to its final name (a backup that exists is whole).

Why a copy of the file rather than DuckDB's ``EXPORT DATABASE`` or ``ATTACH`` and ``COPY
FROM DATABASE``: the copy is the store itself (its tables, keys, views, ``meta`` and heads
chain, block for block), which ``gostop db verify`` reads as it is; and a server's database
is locked down to reach no file (:func:`.query.lock_down`, for SQL over HTTP), which refuses
``ATTACH`` and ``EXPORT`` on it for the life of the process.

A restore (:func:`restore`) copies a backup beside the target file, opens it, runs every
check of ``gostop db verify`` (every hash chain and signature, the heads chain against the
events, the projection tables against a fresh rebuild) and renames it onto the target only
when they all pass; a backup that does not verify is refused with the problems and leaves
nothing at the target.

The server's signing key (``STORE.key``) is not in a backup: it is a secret, kept beside
the store; a restored store verifies without it (every signed game holds its public key).
"""

from __future__ import annotations

import contextlib
import datetime as dt
import os
import re
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .connection import fetch_one
from .errors import StoreError, StoreLockedError

if TYPE_CHECKING:
    from .store import Store
    from .verify import VerifyReport

__all__ = [
    "BackupError",
    "BackupInfo",
    "Copied",
    "RestoreReport",
    "backup",
    "check_name",
    "copy_store",
    "finish_copy",
    "prune",
    "remove_partials",
    "restore",
    "stamped_name",
    "stamped_names",
]

#: A backup's name: a file name, no folder, ending in ``.duckdb``.
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,118}\.duckdb")
#: The UTC time in a backup's name (``club-20261206T051800Z.duckdb``), which orders them.
_STAMP = "%Y%m%dT%H%M%SZ"
_STAMPED = re.compile(r"-(\d{8}T\d{6}Z)(?:-(\d+))?\.duckdb$")


class BackupError(StoreError):
    """A backup cannot be written or restored: the reason in words."""


@dataclass(frozen=True, slots=True)
class BackupInfo:
    """A backup as written: its file, size, the heads chain tip it holds and its contents."""

    path: Path
    size: int
    entry: int
    hash: str
    games: int
    events: int
    at: str

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.path.name,
            "size": self.size,
            "heads_tip": {"entry": self.entry, "hash": self.hash},
            "games": self.games,
            "events": self.events,
            "at": self.at,
        }


@dataclass(frozen=True, slots=True)
class Copied:
    """A copy taken under the write turn, not checked yet (:func:`finish_copy`)."""

    partial: Path
    dest: Path
    entry: int
    hash: str
    games: int
    events: int
    at: str


@dataclass(slots=True)
class RestoreReport:
    """What a restore found: the verification, and the store it wrote (when it verified)."""

    source: Path
    dest: Path
    verify: VerifyReport
    entry: int = 0
    hash: str = ""
    written: bool = False
    problems: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "ok": self.written,
            "source": str(self.source),
            "db": str(self.dest),
            "heads_tip": {"entry": self.entry, "hash": self.hash},
            "verify": self.verify.to_dict(),
        }


# --- names ------------------------------------------------------------------------------------


def check_name(name: str) -> str:
    """``name`` when it is a backup's file name (no folder, no leading dot, ``.duckdb``)."""
    if not isinstance(name, str) or not _NAME.fullmatch(name) or ".." in name:
        raise BackupError(
            f"{name!r} is not a backup name: give a file name such as club-before-the-final"
            ".duckdb (letters, digits, '.', '-', '_'; no folder; ending in .duckdb)"
        )
    return name


def stamped_name(store_path: Path, folder: Path, now: dt.datetime | None = None) -> str:
    """A name for a backup of ``store_path`` taken now, in UTC, free in ``folder``."""
    when = (now or dt.datetime.now(dt.UTC)).astimezone(dt.UTC)
    stem = re.sub(r"[^A-Za-z0-9_.-]", "_", store_path.stem).lstrip(".-_") or "gostop"
    base = f"{stem}-{when.strftime(_STAMP)}"
    name, n = f"{base}.duckdb", 1
    while (folder / name).exists() or (folder / f".{name}.partial").exists():
        n += 1
        name = f"{base}-{n}.duckdb"
    return check_name(name)


def stamped_names(folder: Path) -> list[Path]:
    """The backups in ``folder`` named by their time, oldest first."""
    if not folder.is_dir():
        return []

    def key(p: Path) -> tuple[str, int]:
        m = _STAMPED.search(p.name)
        assert m is not None
        return (m[1], int(m[2] or 1))

    found = [
        p
        for p in folder.iterdir()
        if p.is_file() and not p.name.startswith(".") and _STAMPED.search(p.name)
    ]
    return sorted(found, key=key)


def remove_partials(folder: Path) -> list[Path]:
    """Remove what backups cut short (a server stopped during one) left in ``folder``."""
    found = [p for p in folder.glob(".*.duckdb.partial*") if p.is_file()] if folder.is_dir() else []
    for p in found:
        p.unlink(missing_ok=True)
    return found


def prune(folder: Path, keep: int) -> list[Path]:
    """Remove all but the ``keep`` newest backups named by their time; those removed.
    Backups given a name of their own are left alone."""
    if keep < 1:
        raise BackupError("keep at least one backup")
    old = stamped_names(folder)[:-keep]
    for p in old:
        p.unlink(missing_ok=True)
    return old


# --- taking a backup --------------------------------------------------------------------------


def copy_store(store: Store, dest: Path) -> Copied:
    """Copy ``store`` to a partial file beside ``dest``, holding its write turn (see the
    module docstring); :func:`finish_copy` checks it and gives it its name. The caller
    runs this where the store's writes run (the service's writer thread)."""
    import duckdb

    from .heads import tip, writing

    if dest.exists():
        raise BackupError(f"{dest.name}: a backup of that name exists already")
    if not dest.parent.is_dir():
        raise BackupError(f"{dest.parent}: the folder for the backup does not exist")
    partial = dest.with_name(f".{dest.name}.partial")
    with store.journal_turn(), writing(store.path):
        store.flush_rows()  # the journal's rows first: nothing acknowledged is left out
        conn = store.conn
        entry, head = tip(conn)
        row = fetch_one(conn, "SELECT count(DISTINCT game_id), count(*) FROM events")
        games, events = (int(row[0]), int(row[1])) if row else (0, 0)
        with contextlib.suppress(duckdb.Error):  # refused: DuckDB's log is copied along
            conn.execute("CHECKPOINT")
        at = dt.datetime.now(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
        try:
            _copy(store.path, partial)
            wal = _wal(store.path)
            if wal.exists() and wal.stat().st_size:  # a reader held it back: it goes along
                _copy(wal, _wal(partial))
        except BaseException:
            _remove(partial)
            raise
    return Copied(partial, dest, entry, head, games, events, at)


def finish_copy(copied: Copied) -> BackupInfo:
    """Open the copy on its own: it must hold the tip and the events counted when it was
    taken; then it gets its name. A copy that does not is removed, and the reason raised."""
    import duckdb

    from .heads import tip

    partial = copied.partial
    try:
        conn = duckdb.connect(str(partial))
        try:
            conn.execute("SET enable_progress_bar = false")
            got = tip(conn)
            row = fetch_one(conn, "SELECT count(*) FROM events")
            events = int(row[0]) if row else 0
            conn.execute("CHECKPOINT")  # what came along of DuckDB's log, into the file
        finally:
            conn.close()
        if got != (copied.entry, copied.hash) or events != copied.events:
            raise BackupError(
                f"the copy holds heads entry {got[0]} and {events} event(s), the store held "
                f"entry {copied.entry} and {copied.events}: the backup was not kept"
            )
        _wal(partial).unlink(missing_ok=True)
        _fsync(partial)
        if copied.dest.exists():
            raise BackupError(f"{copied.dest.name}: a backup of that name exists already")
        os.replace(partial, copied.dest)
        _fsync_dir(copied.dest.parent)
    except BaseException:
        _remove(partial)
        raise
    return BackupInfo(
        copied.dest,
        copied.dest.stat().st_size,
        copied.entry,
        copied.hash,
        copied.games,
        copied.events,
        copied.at,
    )


def backup(store: Store, dest: Path) -> BackupInfo:
    """A backup of ``store`` at ``dest`` (see the module docstring)."""
    return finish_copy(copy_store(store, dest))


# --- restoring --------------------------------------------------------------------------------


def restore(source: Path, dest: Path, *, force: bool = False) -> RestoreReport:
    """Restore the backup ``source`` into the store file ``dest``, verified first (see the
    module docstring). ``force``: replace an existing ``dest`` (never one a process holds).
    Raises :class:`BackupError` when it cannot start; a backup that does not verify comes
    back with ``written`` False and its problems, and nothing is left at ``dest``."""
    from .journal import segments
    from .store import Store
    from .verify import VerifyReport

    if not source.is_file():
        raise BackupError(f"{source}: no such backup")
    if dest.exists() or _wal(dest).exists() or segments(dest):
        if not force:
            raise BackupError(
                f"{dest}: a store is there already: give --force to replace it, or restore "
                "into a new file"
            )
        _release(dest)
    if not dest.parent.is_dir():
        raise BackupError(f"{dest.parent}: the folder does not exist")
    if os.path.realpath(source) == os.path.realpath(dest):
        raise BackupError(f"{source}: the backup and the store are the same file")
    work = dest.with_name(f".{dest.name}.restoring")
    _remove(work)
    report = RestoreReport(source, dest, VerifyReport())
    try:
        _copy(source, work)
        if _wal(source).exists():
            _copy(_wal(source), _wal(work))
        try:
            with Store(work) as store:
                report.verify = store.verify()
                report.entry, report.hash = store.heads_tip()
        except StoreError as exc:
            text = str(exc).replace(str(work), str(source))
            report.problems = [f"not a store that opens: {text}"]
            return report
        if not report.verify.ok:
            report.problems = report.verify.problems()
            return report
        _wal(work).unlink(missing_ok=True)
        _fsync(work)
        os.replace(work, dest)
        _fsync_dir(dest.parent)
        report.written = True
        return report
    finally:
        _remove(work)


def _release(dest: Path) -> None:
    """Make sure no process holds the store being replaced, and that nothing of it (its
    journal, DuckDB's log) would be applied to the restored one."""
    from .journal import segments
    from .store import Store

    try:
        Store(dest).close()  # applies its journal; refused when another process holds it
    except StoreLockedError as exc:
        raise BackupError(
            f"{dest}: the store is in use (a running gostop serve?): stop it before "
            "replacing its store"
        ) from exc
    except StoreError:
        if segments(dest):
            raise BackupError(
                f"{dest}: not a store that opens, and a journal lies beside it: move it "
                "away by hand before restoring over it"
            ) from None
    _wal(dest).unlink(missing_ok=True)


# --- files ------------------------------------------------------------------------------------


def _wal(path: Path) -> Path:
    return path.with_name(path.name + ".wal")


def _copy(src: Path, dst: Path) -> None:
    with open(src, "rb") as fi, open(dst, "xb") as fo:
        shutil.copyfileobj(fi, fo, 1 << 20)
        fo.flush()
        os.fsync(fo.fileno())


def _fsync(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _fsync_dir(path: Path) -> None:
    with contextlib.suppress(OSError):
        _fsync(path)


def _remove(path: Path) -> None:
    for p in (path, _wal(path)):
        p.unlink(missing_ok=True)
