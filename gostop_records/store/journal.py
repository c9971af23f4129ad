"""The store's write-ahead journal: an append durable at one ``fsync``, its rows in DuckDB later.

Why: DuckDB charges for every statement and every row of a statement (about a millisecond
each on a two-core server), so the transaction of one recorded entry (its events, the heads
chain entry, the answer kept for a retry, the commit) costs several milliseconds, and a
server where twenty tables record at once spends most of its time there. A journal record
holds exactly the rows that transaction would have written, as ``{table: [row, ...]}``,
appended to a file beside the store and synced: once the sync returns, the entry is as
durable as a DuckDB commit would have made it, and its answer may be sent. The rows of many
records then go to DuckDB together (one transaction, one statement per table), before
anything reads or writes the store otherwise.

The journal is a series of segment files, ``gostop.duckdb.journal.000001``, ``.000002``
and so on: records are appended to the newest; taking the rows to write to DuckDB
(:meth:`Journal.take`) closes it and starts the next, whose name is synced to the
directory before anything is written to it, so the rows being written and the records
appended meanwhile are in separate files. That lets a second thread (the service's
settler, with its own DuckDB connection) write a batch while the appending thread goes on
journaling: neither waits for the other, except that taking the rows waits for a sync in
progress. A segment is removed only once DuckDB has committed its rows.

A record is ``length (4 bytes) | crc32 (4 bytes) | JSON``. A record cut short by a crash
(the last one, never acknowledged: its sync did not return) fails its length or checksum
and is ignored with everything after it in its file. Every open of the store for writing
applies every segment left behind (:func:`recover`), oldest first, in one transaction, with
``INSERT OR IGNORE``: rows a crash between the DuckDB commit and a segment's removal already
wrote are skipped, so applying twice changes nothing. (A journal of one file named
``gostop.duckdb.journal``, as written before segments, is applied first.)

One writer journals to a file: the process that holds the store open for writing (DuckDB
locks the file to every other process). Another store of the same file in that process
applies the journal (:func:`active`) before it reads or writes. Whoever writes the
journal's rows to DuckDB holds :attr:`Journal.turn`, so two threads never write them twice.
"""

from __future__ import annotations

import contextlib
import os
import struct
import threading
import time
import zlib
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import msgspec

from .bulk import UNNEST_VALUES, insert_rows
from .heads import chain_pending
from .schema import EVENT_COLUMNS, Columns

if TYPE_CHECKING:
    import duckdb

__all__ = [
    "Journal",
    "Taken",
    "active",
    "insert_tables",
    "journal_path",
    "pending",
    "read_records",
    "recover",
    "segments",
]

_HEADER = struct.Struct(">II")
#: The tables whose columns the store knows (others are inserted by position).
_COLUMNS: dict[str, Columns] = {"events": EVENT_COLUMNS}
#: The order rows are written in (the events before the chain entries that count them).
_FIRST = ("events", "heads")
#: Digits of a segment's number in its name (more digits still sort by number).
_DIGITS = 6

Rows = Mapping[str, Sequence[Sequence[Any]]]


#: The journal open in this process for each store file (by its real path).
_OPEN: dict[str, Journal] = {}


def active(store_path: str | os.PathLike[str]) -> Journal | None:
    """The journal this process keeps for the store file, if any."""
    return _OPEN.get(os.path.realpath(store_path))


def journal_path(store_path: str | os.PathLike[str]) -> Path:
    """The journal's name beside the store; its segments add ``.NUMBER`` to it."""
    p = Path(store_path)
    return p.with_name(p.name + ".journal")


def _numbered(store_path: str | os.PathLike[str]) -> list[tuple[int, Path]]:
    base = journal_path(store_path)
    prefix = base.name + "."
    out: list[tuple[int, Path]] = []
    with contextlib.suppress(FileNotFoundError):
        for entry in os.scandir(base.parent):
            rest = entry.name[len(prefix) :]
            if entry.name.startswith(prefix) and rest.isdigit():
                out.append((int(rest), base.parent / entry.name))
    return sorted(out)


def segments(store_path: str | os.PathLike[str]) -> list[Path]:
    """The journal's files beside the store, oldest first."""
    base = journal_path(store_path)
    return ([base] if base.exists() else []) + [p for _n, p in _numbered(store_path)]


def pending(store_path: str | os.PathLike[str]) -> bool:
    """Whether a journal with something in it lies beside the store file."""
    for path in segments(store_path):
        with contextlib.suppress(OSError):
            if path.stat().st_size > 0:
                return True
    return False


def _encode(rows: Rows) -> bytes:
    body = msgspec.json.encode({t: [list(r) for r in rs] for t, rs in rows.items() if rs})
    return _HEADER.pack(len(body), zlib.crc32(body)) + body


def read_records(path: str | os.PathLike[str]) -> tuple[list[dict[str, list[list[Any]]]], int]:
    """The whole records of a journal file and the bytes after the last (a torn tail)."""
    data = Path(path).read_bytes()
    out: list[dict[str, list[list[Any]]]] = []
    at = 0
    while at + _HEADER.size <= len(data):
        size, crc = _HEADER.unpack_from(data, at)
        body = data[at + _HEADER.size : at + _HEADER.size + size]
        if len(body) < size or zlib.crc32(body) != crc:
            break
        try:
            rec = msgspec.json.decode(body)
        except msgspec.DecodeError:
            break
        if not isinstance(rec, dict):
            break
        out.append(rec)
        at += _HEADER.size + size
    return out, len(data) - at


def _merge(into: dict[str, list[Sequence[Any]]], rows: Rows) -> None:
    for table, rs in rows.items():
        into.setdefault(table, []).extend(rs)


#: The width of an ``events`` row journaled before schema version 8, with ``prev`` before
#: ``hash``: a journal left by that version is applied after the store is upgraded.
_ROW_WITH_PREV = len(EVENT_COLUMNS) + 1


def _without_prev(row: tuple[Any, ...]) -> tuple[Any, ...]:
    return row[:-2] + row[-1:] if len(row) == _ROW_WITH_PREV else row


def insert_tables(
    conn: duckdb.DuckDBPyConnection,
    rows: Mapping[str, Sequence[Sequence[Any]]],
    ignore: bool = False,
) -> None:
    """Every table's rows, one statement per table, in the caller's transaction (the
    events by their columns, other tables' rows by position). The heads entries asked for
    are chained here, after the tip the transaction sees (:func:`.heads.chain_pending`)."""
    order = [t for t in _FIRST if t in rows] + [t for t in rows if t not in _FIRST]
    for table in order:
        rs = [tuple(r) for r in rows[table]]
        if not rs:
            continue
        if table == "heads":
            chain_pending(conn, rs, skip_held=ignore)
            continue
        if not table.replace("_", "").isalnum():
            raise ValueError(f"journal: bad table name {table!r}")
        cols = _COLUMNS.get(table)
        if table == "events":
            rs = [_without_prev(r) for r in rs]
        if cols is not None:
            insert_rows(conn, table, cols, rs, ignore=ignore)
        else:
            verb = "INSERT OR IGNORE INTO" if ignore else "INSERT INTO"
            width = len(rs[0])
            if len(rs) * width >= UNNEST_VALUES:  # one list per column (see .rows)
                lists = [list(c) for c in zip(*rs, strict=True)]
                conn.execute(f"{verb} {table} SELECT " + ", ".join(["unnest(?)"] * width), lists)
            else:
                one = "(" + ", ".join("?" * width) + ")"
                conn.execute(
                    f"{verb} {table} VALUES " + ", ".join([one] * len(rs)),
                    [v for r in rs for v in r],
                )


@contextlib.contextmanager
def _transaction(conn: duckdb.DuckDBPyConnection) -> Iterator[None]:
    from .writer import transaction

    with transaction(conn):
        yield


@dataclass(slots=True)
class _Segment:
    """A closed segment whose rows are not in DuckDB yet."""

    path: Path
    rows: dict[str, list[Sequence[Any]]]
    records: int
    since: float


@dataclass(frozen=True, slots=True)
class Taken:
    """What :meth:`Journal.take` handed out: the rows of every record not in DuckDB yet."""

    rows: Mapping[str, Sequence[Sequence[Any]]]
    records: int
    segments: tuple[_Segment, ...]


class Journal:
    """The journal of one store file, open for appending (see the module docstring).

    One thread appends (:meth:`write`); the rows go to DuckDB by :meth:`take`, the
    caller's transaction, then :meth:`committed`, all while holding :attr:`turn`
    (:meth:`apply` does the three)."""

    def __init__(self, store_path: str | os.PathLike[str]) -> None:
        self.base = journal_path(store_path)
        self.key = os.path.realpath(store_path)
        if self.key in _OPEN:
            raise OSError(f"{self.base}: a journal of this store is open already")
        numbers = [n for n, _p in _numbered(store_path)]
        self._number = max(numbers, default=0)
        self.path, fd = self._new_segment()
        self.fd: int | None = fd
        self.size = 0
        _OPEN[self.key] = self
        #: Held by whoever writes the journal's rows to DuckDB (re-entrant: a thread that
        #: holds it to keep the others out may settle the journal itself).
        self.turn = threading.RLock()
        self._lock = threading.Lock()  # the open segment: its file, rows and count
        self._rows: dict[str, list[Sequence[Any]]] = {}
        self._records = 0
        self._since = 0.0
        self._closed: list[_Segment] = []  # taken, not committed yet (oldest first)
        self._spare: tuple[Path, int] | None = None

    def _new_segment(self) -> tuple[Path, int]:
        """A new, empty segment whose name is durable (a record synced into a file whose
        directory entry was lost would be lost with it)."""
        self._number += 1
        path = self.base.with_name(f"{self.base.name}.{self._number:0{_DIGITS}d}")
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_APPEND, 0o600)
        _sync_dir(path.parent)
        return path, fd

    @property
    def records(self) -> int:
        """Records whose rows DuckDB does not hold yet."""
        return self._records + sum(s.records for s in self._closed)

    @property
    def since(self) -> float:
        """When the oldest record DuckDB does not hold yet was written (``time.monotonic``)."""
        if self._closed:
            return self._closed[0].since
        return self._since

    def games(self) -> set[str]:
        """The games with events in records DuckDB may not hold yet. A game's records
        leave the journal only after DuckDB committed them, so a game not named here and
        not found in DuckDB afterwards is in neither."""
        with self._lock:
            parts = [self._rows, *(s.rows for s in self._closed)]
        return {row[0] for rows in parts for row in rows.get("events", ())}

    def write(self, rows: Rows) -> None:
        """Append one record and sync it: when this returns, the rows are durable."""
        data = _encode(rows)
        with self._lock:
            if self.fd is None:
                raise OSError(f"{self.path}: the journal is closed")
            try:
                if os.write(self.fd, data) != len(data):
                    raise OSError(f"{self.path}: short write (is the disk full?)")
                os.fdatasync(self.fd)
            except BaseException:
                # a record cut short would hide every later one from recovery: cut it off
                os.ftruncate(self.fd, self.size)
                raise
            self.size += len(data)
            if not self._records:
                self._since = time.monotonic()
            _merge(self._rows, rows)
            self._records += 1

    def take(self) -> Taken | None:
        """The rows of every record not in DuckDB yet (None when there are none), for the
        caller's transaction; the open segment is closed and the next one started, so
        records appended meanwhile stay apart. Call holding :attr:`turn`."""
        if self._records:
            spare = self._spare or self._new_segment()
            self._spare = None
            with self._lock:
                if self.fd is None or not self._records:
                    self._spare = spare
                else:
                    old = self.fd
                    done = _Segment(self.path, self._rows, self._records, self._since)
                    self.path, self.fd = spare
                    self.size, self._rows, self._records = 0, {}, 0
                    os.close(old)
                    self._closed.append(done)
        if not self._closed:
            return None
        segs = tuple(self._closed)
        if len(segs) == 1:
            rows: Mapping[str, Sequence[Sequence[Any]]] = segs[0].rows
        else:
            merged: dict[str, list[Sequence[Any]]] = {}
            for s in segs:
                _merge(merged, s.rows)
            rows = merged
        return Taken(rows, sum(s.records for s in segs), segs)

    def insert(self, conn: duckdb.DuckDBPyConnection, taken: Taken) -> None:
        """The rows taken, in the caller's transaction."""
        insert_tables(conn, taken.rows)

    def committed(self, taken: Taken) -> int:
        """The rows taken are committed to DuckDB: forget them and remove their segments;
        returns the number of records. (Until then they stay, to be taken again.)"""
        gone = set(map(id, taken.segments))
        self._closed = [s for s in self._closed if id(s) not in gone]
        for s in taken.segments:
            s.path.unlink(missing_ok=True)
        return taken.records

    def apply(self, conn: duckdb.DuckDBPyConnection) -> int:
        """Write the rows of every record so far to DuckDB in one transaction and remove
        their segments; returns the number of records. On an error nothing is removed (the
        rows stay pending and the files keep them)."""
        with self.turn:
            taken = self.take()
            if taken is None:
                return 0
            with _transaction(conn):
                self.insert(conn, taken)
            return self.committed(taken)

    def close(self) -> None:
        """Close the open segment (removed when empty: nothing is lost with it); segments
        whose rows DuckDB does not hold yet stay for the next open to apply."""
        with self._lock:
            fd, self.fd = self.fd, None
        if fd is not None:
            os.close(fd)
            if not self.size:
                self.path.unlink(missing_ok=True)
            _OPEN.pop(self.key, None)
        if self._spare is not None:
            os.close(self._spare[1])
            self._spare[0].unlink(missing_ok=True)
            self._spare = None


def _sync_dir(path: Path) -> None:
    with contextlib.suppress(OSError):  # not every system syncs a directory
        fd = os.open(path, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def recover(conn: duckdb.DuckDBPyConnection, store_path: str | os.PathLike[str]) -> int:
    """Apply every journal segment left behind (a writer that died before applying them),
    oldest first, in one transaction, rows already in the store skipped; then remove the
    files; returns the number of records applied. A torn last record (its sync never
    returned, so it was never acknowledged) is dropped."""
    paths = segments(store_path)
    if not paths:
        return 0
    rows: dict[str, list[Sequence[Any]]] = {}
    count = 0
    for path in paths:
        records, _torn = read_records(path)
        for rec in records:
            _merge(rows, rec)
        count += len(records)
    if count:
        with _transaction(conn):
            insert_tables(conn, rows, ignore=True)
    for path in paths:
        path.unlink(missing_ok=True)
    return count
