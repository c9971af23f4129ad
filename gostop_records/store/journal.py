"""The store's write-ahead journal: an append durable at one ``fsync``, its rows in DuckDB later.

Why: DuckDB charges for every statement and every row of a statement (about a millisecond
each on a two-core server), so the transaction of one recorded entry (its events, the heads
chain entry, the answer kept for a retry, the commit) costs several milliseconds, and a
server where twenty tables record at once spends most of its time there. A journal record
holds exactly the rows that transaction would have written, as ``{table: [row, ...]}``,
appended to a file beside the store (``gostop.duckdb.journal``) and synced: once the sync
returns, the entry is as durable as a DuckDB commit would have made it, and its answer may
be sent. The rows of many records then go to DuckDB together (:meth:`Journal.apply`: one
transaction, one statement per table), when the writer has nothing else to do and before
anything reads or writes the store otherwise; the file is emptied after that commit.

A record is ``length (4 bytes) | crc32 (4 bytes) | JSON``. A record cut short by a crash
(the last one, never acknowledged: its sync did not return) fails its length or checksum
and is ignored with everything after it. Every open of the store for writing applies a
journal left behind (:func:`recover`) with ``INSERT OR IGNORE``: rows a crash between the
DuckDB commit and the emptying of the file already wrote are skipped, so applying twice
changes nothing.

One writer journals to a file: the process that holds the store open for writing (DuckDB
locks the file to every other process). Another store of the same file in that process
applies the journal (:func:`active`) before it reads or writes.
"""

from __future__ import annotations

import contextlib
import os
import struct
import time
import zlib
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import msgspec

from .rows import UNNEST_VALUES, insert_rows
from .schema import EVENT_COLUMNS, HEADS_COLUMNS, Columns

if TYPE_CHECKING:
    import duckdb

__all__ = [
    "Journal",
    "active",
    "insert_tables",
    "journal_path",
    "pending",
    "read_records",
    "recover",
]

_HEADER = struct.Struct(">II")
#: The tables whose columns the store knows (others are inserted by position).
_COLUMNS: dict[str, Columns] = {"events": EVENT_COLUMNS, "heads": HEADS_COLUMNS}
#: The order rows are written in (the events before the chain entries that count them).
_FIRST = ("events", "heads")

Rows = Mapping[str, Sequence[Sequence[Any]]]


#: The journal open in this process for each store file (by its real path).
_OPEN: dict[str, Journal] = {}


def active(store_path: str | os.PathLike[str]) -> Journal | None:
    """The journal this process keeps for the store file, if any."""
    return _OPEN.get(os.path.realpath(store_path))


def journal_path(store_path: str | os.PathLike[str]) -> Path:
    p = Path(store_path)
    return p.with_name(p.name + ".journal")


def pending(store_path: str | os.PathLike[str]) -> bool:
    """Whether a journal with something in it lies beside the store file."""
    try:
        return journal_path(store_path).stat().st_size > 0
    except OSError:
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


def insert_tables(
    conn: duckdb.DuckDBPyConnection,
    rows: Mapping[str, Sequence[Sequence[Any]]],
    ignore: bool = False,
) -> None:
    """Every table's rows, one statement per table, in the caller's transaction (the
    events and heads by their columns, other tables' rows by position)."""
    order = [t for t in _FIRST if t in rows] + [t for t in rows if t not in _FIRST]
    for table in order:
        rs = [tuple(r) for r in rows[table]]
        if not rs:
            continue
        if not table.replace("_", "").isalnum():
            raise ValueError(f"journal: bad table name {table!r}")
        cols = _COLUMNS.get(table)
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


class Journal:
    """The journal of one store file, open for appending; ``rows`` holds what its records
    wrote that DuckDB does not hold yet."""

    def __init__(self, store_path: str | os.PathLike[str]) -> None:
        self.path = journal_path(store_path)
        self.key = os.path.realpath(store_path)
        if self.key in _OPEN:
            raise OSError(f"{self.path}: a journal of this store is open already")
        fresh = not self.path.exists()
        self.fd: int | None = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        if fresh:  # the file's name is durable too
            _sync_dir(self.path.parent)
        self.size = os.fstat(self.fd).st_size
        _OPEN[self.key] = self
        self.rows: dict[str, list[Sequence[Any]]] = {}
        self.records = 0
        #: When the oldest record not applied yet was written (``time.monotonic``).
        self.since = 0.0

    def write(self, rows: Rows) -> None:
        """Append one record and sync it: when this returns, the rows are durable."""
        if self.fd is None:
            raise OSError(f"{self.path}: the journal is closed")
        data = _encode(rows)
        try:
            if os.write(self.fd, data) != len(data):
                raise OSError(f"{self.path}: short write (is the disk full?)")
            os.fdatasync(self.fd)
        except BaseException:
            # a record cut short would hide every later one from recovery: cut it off
            os.ftruncate(self.fd, self.size)
            raise
        self.size += len(data)
        if not self.records:
            self.since = time.monotonic()
        _merge(self.rows, rows)
        self.records += 1

    def apply(self, conn: duckdb.DuckDBPyConnection) -> int:
        """Write the rows of every record so far to DuckDB in one transaction, then empty
        the file; returns the number of records. On an error nothing is emptied (the rows
        stay pending and the file keeps them)."""
        if not self.records:
            return 0
        with _transaction(conn):
            self.insert(conn)
        return self.applied()

    def insert(self, conn: duckdb.DuckDBPyConnection) -> None:
        """The rows of every record so far, in the caller's transaction (then
        :meth:`applied` once it is committed)."""
        insert_tables(conn, self.rows)

    def applied(self) -> int:
        """The rows are committed to DuckDB: forget them and empty the file; returns the
        number of records they came from."""
        n = self.records
        self.rows, self.records = {}, 0
        self._empty()
        return n

    def _empty(self) -> None:
        if self.fd is not None:
            os.ftruncate(self.fd, 0)
            os.fsync(self.fd)
            self.size = 0

    def close(self) -> None:
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None
            _OPEN.pop(self.key, None)


def _sync_dir(path: Path) -> None:
    with contextlib.suppress(OSError):  # not every system syncs a directory
        fd = os.open(path, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def recover(conn: duckdb.DuckDBPyConnection, store_path: str | os.PathLike[str]) -> int:
    """Apply a journal left behind (a writer that died before applying it), rows already in
    the store skipped, then remove the file; returns the number of records applied. A torn
    last record (its sync never returned, so it was never acknowledged) is dropped."""
    path = journal_path(store_path)
    if not path.exists():
        return 0
    records, _torn = read_records(path)
    if records:
        rows: dict[str, list[Sequence[Any]]] = {}
        for rec in records:
            _merge(rows, rec)
        with _transaction(conn):
            insert_tables(conn, rows, ignore=True)
    path.unlink()
    return len(records)
