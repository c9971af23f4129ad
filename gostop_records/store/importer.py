"""Bulk import of log files: validated per game, atomic per game, idempotent.

Each game read from a file is checked on its own: its hash chain, then the rules (strict by
default, or lenient), then against what the store already holds:

- not stored yet: imported;
- stored with the same hashes: skipped (importing the same logs twice adds nothing);
- stored as a prefix of the file's game: the new events are appended;
- stored with different events: a conflict, reported with the first differing seq; the
  store keeps its version;
- a file that starts a game at seq k > 1 continues the stored game if the store holds
  seq 1..k-1 with the chain it continues.

A rejected game leaves nothing behind and is reported with its file, seq and reason; the
other games go in. Many games are written per transaction for speed, and a transaction
only ever holds whole games, so an import killed at any moment leaves whole games only and
running it again completes it. Rows go in through Arrow (or JSON Lines, see :mod:`.rows`).

A batch is written by a background thread while the next one is read, checked and
derived: DuckDB releases the interpreter lock while it inserts and commits, so the two
overlap on a second core. A batch that holds a game of the batch being written waits for
that write before it is planned, so each game is planned against everything written
before it, as if the writes were in line.
"""

from __future__ import annotations

import contextlib
import gc
import os
import sys
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from itertools import chain
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .. import log as L
from ..errors import GostopError, LogError, ProjectionError
from ..events import Envelope
from ..projector import Issue, Projector
from .codec import event_columns
from .projections import derive, empty_rows
from .rows import Prepared, combine
from .schema import EVENT_COLUMNS, TABLES
from .writer import (
    clear_games,
    insert_events,
    insert_projection,
    is_write_conflict,
    prepare_events,
    prepare_projection,
    transaction,
)

if TYPE_CHECKING:
    from ..engine.game import GameState
    from .store import Store

__all__ = [
    "CHUNK_EVENTS",
    "DEFAULT_BATCH_EVENTS",
    "ImportProgress",
    "ImportReport",
    "Importer",
    "Problem",
    "discover",
]

#: Events per transaction. DuckDB writes an insert of more than a row group (122,880 rows)
#: straight to the database file; smaller ones go through its write-ahead log and are copied
#: again at the next checkpoint, which costs the writer about twice the time.
DEFAULT_BATCH_EVENTS = 250_000
#: Events read, checked and derived at a time: the Python objects an import holds at once
#: (a transaction holds several of these as compact Arrow tables).
CHUNK_EVENTS = 50_000


@dataclass(frozen=True, slots=True)
class Problem:
    """A game (or file) that was not imported, and why."""

    file: str | None
    game_id: str | None
    seq: int | None
    reason: str
    rule: str | None = None
    line: int | None = None

    def describe(self) -> str:
        parts = [
            p
            for p in (
                self.file,
                f"line {self.line}" if self.line is not None else None,
                f"game {self.game_id}" if self.game_id else None,
                f"seq {self.seq}" if self.seq is not None else None,
            )
            if p
        ]
        rule = f" [rule: {self.rule}]" if self.rule else ""
        return f"{', '.join(parts)}: {self.reason}{rule}" if parts else self.reason + rule


@dataclass(slots=True)
class ImportReport:
    """Counts and problems of one import run."""

    files: int = 0
    games: int = 0  # games read from the files
    imported: int = 0  # new games
    extended: int = 0  # stored games that got new events
    skipped: int = 0  # games already stored in full
    events: int = 0  # events written
    violations: int = 0  # rule violations accepted in lenient mode
    rejected: list[Problem] = field(default_factory=list)
    conflicts: list[Problem] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.rejected and not self.conflicts

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["ok"] = self.ok
        return d

    def summary(self) -> str:
        return (
            f"{self.files} file(s), {self.games} game(s): {self.imported} imported, "
            f"{self.extended} extended, {self.skipped} already stored, "
            f"{len(self.rejected)} rejected, {len(self.conflicts)} in conflict; "
            f"{self.events} event(s) written"
            + (
                f"; {self.violations} rule violation(s) accepted (lenient)"
                if self.violations
                else ""
            )
        )


@dataclass(frozen=True, slots=True)
class ImportProgress:
    """Where an import is: after each file and after each committed batch."""

    files_done: int
    files_total: int
    games: int
    events: int
    committed: bool
    file: str | None


@dataclass(slots=True)
class _Run:
    """A run of consecutive events of one game, as read."""

    file: str
    index: int  # the run's place in its file (0, 1, ...), to read it again after a conflict
    events: list[Envelope]
    bad_hash: int | None  # index of the first event whose own hash is wrong


@dataclass(slots=True)
class _Planned:
    """A validated game waiting for its transaction."""

    run: _Run
    new: list[list[Any]]  # the rows to insert, as columns
    full: list[Envelope]  # every event of the game after the import
    game: GameState
    issues: list[Issue]
    stored: int  # events the store held before
    violations: int


@dataclass(slots=True)
class _Group:
    """The games of one transaction: their rows as Arrow tables, and what to count.

    Only compact rows are kept, not the envelopes: after a conflict, the games of a file
    are read from it again (``again`` holds only the runs that cannot be).
    """

    events: list[Prepared] = field(default_factory=list)
    rows: dict[str, list[Prepared]] = field(default_factory=dict)
    replace: set[str] = field(default_factory=set)  # games whose projection rows are replaced
    games: set[str] = field(default_factory=set)
    # each planned game: (file, game id, events stored before, violations, run index)
    planned: list[tuple[str, str, int, int, int]] = field(default_factory=list)
    again: list[_Run] = field(default_factory=list)
    count: int = 0  # events


@dataclass(slots=True)
class _Tuning:
    """The interpreter's settings before the first import that runs, while any runs."""

    users: int = 0
    gc_enabled: bool = True
    interval: float = 0.005


_TUNING = _Tuning()
_TUNING_LOCK = threading.Lock()
#: How soon a thread waiting for the interpreter lock gets it during an import (seconds).
SWITCH_INTERVAL = 0.0002


@contextlib.contextmanager
def _tuned_interpreter() -> Iterator[None]:
    """The interpreter tuned for imports, restored when the last one running ends.

    - The cyclic garbage collector is paused. A batch keeps tens of thousands of envelopes
      and game states alive until it is written, and each automatic collection walks all
      of them again to find next to no garbage: about a sixth of the import time.
    - A thread that waits for the interpreter lock gets it within :data:`SWITCH_INTERVAL`.
      The writer thread needs the lock only for moments (DuckDB takes it to start scanning
      each Arrow table), but by default Python hands the lock over every 5 ms only, and the
      writer spent most of a batch waiting for the main thread.
    """
    with _TUNING_LOCK:
        if _TUNING.users == 0:
            _TUNING.gc_enabled = gc.isenabled()
            _TUNING.interval = sys.getswitchinterval()
            gc.disable()
            sys.setswitchinterval(min(_TUNING.interval, SWITCH_INTERVAL))
        _TUNING.users += 1
    try:
        yield
    finally:
        with _TUNING_LOCK:
            _TUNING.users -= 1
            if _TUNING.users == 0:
                sys.setswitchinterval(_TUNING.interval)
                if _TUNING.gc_enabled:
                    gc.enable()


def discover(paths: Iterable[str | os.PathLike[str]]) -> tuple[list[Path], list[Problem]]:
    """Log files named or found (recursively) in folders, and the paths that are neither."""
    files, missing = L.find_logs(paths)
    return files, [Problem(str(p), None, None, "no such file or folder") for p in missing]


def _first_bad_hash(run: Sequence[Envelope]) -> int | None:
    """The index of the first envelope whose hash does not match its content."""
    for i, env in enumerate(run):
        if not env.hash or L.compute_hash(env.prev, env) != env.hash:
            return i
    return None


def _check_run(run: Sequence[Envelope], bad_hash: int | None) -> tuple[int, str] | None:
    """The first break in a run's seq order or hash chain: (seq, reason).

    ``bad_hash`` is the index of the first envelope whose own hash is wrong (checked as the
    file was read, see :func:`gostop_records.log.read_checked`).
    """
    first = run[0]
    if first.seq == 1 and first.prev != L.GENESIS:
        return 1, "prev of seq 1 is not the genesis value (64 zeros)"
    prev_seq, prev_hash = first.seq - 1, first.prev
    for i, env in enumerate(run):
        if env.seq != prev_seq + 1:
            return env.seq, f"seq {env.seq} follows seq {prev_seq}: the seqs must be dense"
        if env.prev != prev_hash:
            return env.seq, (
                f"prev is not the hash of seq {prev_seq} (an event before it was "
                "changed, removed or inserted)"
            )
        if i == bad_hash:
            return env.seq, "hash does not match the content (changed after it was sealed)"
        prev_seq, prev_hash = env.seq, env.hash
    return None


def _write(conn: Any, events: Prepared, replace: list[str], rows: Mapping[str, Prepared]) -> None:
    """One batch in one transaction: its events, and its games' projection rows."""
    with transaction(conn):
        insert_events(conn, events)
        clear_games(conn, replace)
        insert_projection(conn, rows)


@dataclass(slots=True)
class _Write:
    """A transaction being written on the writer thread, through a connection of its own."""

    group: _Group
    conn: Any
    done: Future[None]

    def wait(self) -> BaseException | None:
        """The write's error, if it failed; its connection is closed either way."""
        try:
            return self.done.exception()
        finally:
            self.conn.close()


class Importer:
    """One import run into a store."""

    def __init__(
        self,
        store: Store,
        *,
        strict: bool = True,
        batch_events: int | None = None,
        progress: Callable[[ImportProgress], None] | None = None,
    ) -> None:
        self.store = store
        self.strict = strict
        self.batch_events = max(1, batch_events or DEFAULT_BATCH_EVENTS)
        self.chunk_events = min(self.batch_events, CHUNK_EVENTS)
        self.progress = progress
        self.report = ImportReport()
        self._files_total = 0
        self._file: str | None = None
        self._writer: ThreadPoolExecutor | None = None
        self._writing: _Write | None = None
        self._group = _Group()
        self._from_files = True  # games can be read again from their files

    # --- reading ---------------------------------------------------------------------

    def import_paths(self, paths: Iterable[str | os.PathLike[str]]) -> ImportReport:
        with self._running():
            return self._import_paths(paths)

    def import_envelopes(self, envelopes: Iterable[Envelope], source: str) -> ImportReport:
        with self._running():
            return self._import_envelopes(envelopes, source)

    @contextlib.contextmanager
    def _running(self) -> Iterator[None]:
        """The background writer for one run; its last batch is waited for on the way out."""
        with _tuned_interpreter(), ThreadPoolExecutor(1, "gostop-import") as writer:
            self._writer = writer
            try:
                yield
                self._submit()
                self._wait()
            finally:
                # on an error, let the batch being written finish (it holds whole games)
                if self._writing is not None:
                    self._writing.wait()
                    self._writing = None
                self._writer = None

    def _import_paths(self, paths: Iterable[str | os.PathLike[str]]) -> ImportReport:
        files, missing = discover(paths)
        self.report.rejected.extend(missing)
        self._files_total = len(files)
        chunk: list[_Run] = []
        size = 0
        for path in files:
            name = str(path)
            self._file = name
            for index, (run, bad) in enumerate(self._runs(path)):
                chunk.append(_Run(name, index, run, bad))
                size += len(run)
                if size >= self.chunk_events:
                    self._process(chunk)
                    chunk, size = [], 0
            self.report.files += 1
            self._tell(committed=False)
        self._process(chunk)
        return self.report

    def _import_envelopes(self, envelopes: Iterable[Envelope], source: str) -> ImportReport:
        self._files_total = 1
        self._file = source
        self._from_files = False
        chunk: list[_Run] = []
        size = 0
        for index, (_, run) in enumerate(L.iter_games(envelopes)):
            chunk.append(_Run(source, index, run, _first_bad_hash(run)))
            size += len(run)
            if size >= self.chunk_events:
                self._process(chunk)
                chunk, size = [], 0
        self._process(chunk)
        self.report.files += 1
        return self.report

    def _runs(self, path: Path) -> Iterator[tuple[list[Envelope], int | None]]:
        """Runs of consecutive events of one game, each with the index of its first event
        whose hash is wrong; a read error ends the file."""
        name = str(path)
        run: list[Envelope] = []
        bad: int | None = None
        try:
            for env, hash_ok in L.read_checked(path):
                if run and env.game_id != run[0].game_id:
                    yield run, bad
                    run, bad = [], None
                if not hash_ok and bad is None:
                    bad = len(run)
                run.append(env)
        except LogError as exc:
            gid = run[0].game_id if run else None
            more = f"; game {gid} (read up to seq {run[-1].seq}) is not imported" if run else ""
            self.report.rejected.append(
                Problem(
                    name,
                    gid,
                    exc.seq,
                    f"{exc.reason}{more}; the rest of the file was not read",
                    line=exc.line,
                )
            )
            return
        if run:
            yield run, bad

    # --- planning --------------------------------------------------------------------

    def _process(self, chunk: list[_Run]) -> None:
        if not chunk:
            return
        ids = list(dict.fromkeys(run.events[0].game_id for run in chunk))
        writing = self._writing
        if not self._group.games.isdisjoint(ids) or (
            writing is not None and not writing.group.games.isdisjoint(ids)
        ):
            self._submit()
            self._wait()  # plan those games against what that transaction stores
        rows = self.store.conn.execute(
            "SELECT game_id, hash FROM events WHERE game_id IN (SELECT unnest(?::VARCHAR[])) "
            "ORDER BY game_id, seq",
            [ids],
        ).fetchall()
        hashes: dict[str, list[str]] = {}
        for gid, digest in rows:
            hashes.setdefault(gid, []).append(digest)
        pending: dict[str, _Planned] = {}
        planned: list[_Planned] = []
        for run in chunk:
            self.report.games += 1
            p = self._plan(run, hashes, pending)
            if p is not None:
                planned.append(p)
                gid = run.events[0].game_id
                pending[gid] = p
                hashes[gid] = [e.hash for e in p.full]
        self._add(planned)
        if self._group.count >= self.batch_events:
            self._submit()

    def _plan(
        self, read: _Run, hashes: dict[str, list[str]], pending: dict[str, _Planned]
    ) -> _Planned | None:
        file, run = read.file, read.events
        gid = run[0].game_id
        report = self.report
        broken = _check_run(run, read.bad_hash)
        if broken is not None:
            report.rejected.append(Problem(file, gid, broken[0], broken[1], "hash_chain"))
            return None
        stored = hashes.get(gid, [])
        n = len(stored)
        for env in run:
            if env.seq > n:
                break
            if stored[env.seq - 1] != env.hash:
                report.conflicts.append(
                    Problem(
                        file,
                        gid,
                        env.seq,
                        f"the store holds another event at seq {env.seq} (stored hash "
                        f"{stored[env.seq - 1][:12]}..., file {env.hash[:12]}...); the stored "
                        "events are kept",
                    )
                )
                return None
        new = [env for env in run if env.seq > n]
        if not new:
            report.skipped += 1
            return None
        first = run[0].seq
        if first > n + 1:
            report.rejected.append(
                Problem(
                    file,
                    gid,
                    first,
                    f"the file's events start at seq {first}, but the store holds {n}: "
                    f"seq {n + 1}..{first - 1} are missing",
                    "seq_dense",
                )
            )
            return None
        if n and first == n + 1 and run[0].prev != stored[-1]:
            report.conflicts.append(
                Problem(
                    file,
                    gid,
                    first,
                    "does not continue the stored hash chain of the game",
                )
            )
            return None
        if first == 1:
            full = list(run)
        else:
            before = pending[gid].full if gid in pending else self.store.events(gid)
            full = [*before[: first - 1], *run]
        try:
            p = Projector(strict=False, inplace=True)
            for env in full[:n]:
                p.feed(env)
            p.strict = self.strict
            for env in full[n:]:
                p.feed(env)
            if p.game is None:
                raise ProjectionError(1, "game_started", "the log does not start with game_started")
            rows = event_columns(new)
        except ProjectionError as exc:
            report.rejected.append(Problem(file, gid, exc.seq, exc.reason, exc.rule))
            return None
        except GostopError as exc:
            seq = getattr(exc, "seq", None)
            reason = getattr(exc, "reason", None) or str(exc)
            report.rejected.append(Problem(file, gid, seq, reason))
            return None
        violations = sum(
            1 for i in p.issues if i.severity == "violation" and (i.seq is None or i.seq > n)
        )
        return _Planned(read, rows, full, p.game, p.issues, n, violations)

    # --- writing ---------------------------------------------------------------------

    def _add(self, planned: list[_Planned]) -> None:
        """A chunk's planned games into the transaction being gathered, as Arrow tables."""
        if not planned:
            return
        last: dict[str, _Planned] = {}
        for p in planned:
            last[p.full[0].game_id] = p
        rows = empty_rows()
        for p in last.values():
            derive(p.full, p.game, p.issues, rows=rows)
        # each column of the chunk's events: the games' columns one after another
        events = [
            list(chain.from_iterable(p.new[k] for p in planned)) for k in range(len(EVENT_COLUMNS))
        ]
        g = self._group
        ready = prepare_events(events)
        g.events.append(ready)
        g.count += ready.count
        for name, part in prepare_projection(rows).items():
            g.rows.setdefault(name, []).append(part)
        g.games.update(last)
        # games the store held before: their projection rows are replaced whole
        g.replace.update(p.full[0].game_id for p in planned if p.stored)
        for p in planned:
            g.planned.append((p.run.file, p.full[0].game_id, p.stored, p.violations, p.run.index))
            if not self._from_files:
                g.again.append(p.run)

    def _submit(self) -> None:
        """Hand the gathered transaction to the writer thread (after the one before it)."""
        g = self._group
        if not g.planned:
            return
        self._group = _Group()
        events = combine(EVENT_COLUMNS, g.events)
        rows = {name: combine(cols, g.rows.get(name, [])) for name, cols in TABLES.items()}
        g.events, g.rows = [], {}
        self._wait()
        assert self._writer is not None
        conn = self.store.conn.cursor()
        done = self._writer.submit(_write, conn, events, sorted(g.replace), rows)
        self._writing = _Write(g, conn, done)

    def _wait(self) -> None:
        """Wait for the transaction being written, then count it (or retry it after a
        conflict)."""
        write = self._writing
        if write is None:
            return
        self._writing = None
        exc = write.wait()
        if exc is not None:
            if not is_write_conflict(exc):
                raise exc
            self._after_conflict(write.group)
            return
        report = self.report
        for _file, gid, stored, violations, _index in write.group.planned:
            self.store.cache.pop(gid, None)
            if stored:
                report.extended += 1
            else:
                report.imported += 1
            report.violations += violations
        report.events += write.group.count
        self._tell(committed=True)

    def _after_conflict(self, group: _Group) -> None:
        """Another writer touched a game of the transaction, which wrote nothing: import
        each of its games again on its own, against what the store holds now."""
        if len(group.planned) == 1:
            file, gid, stored, _, _ = group.planned[0]
            self.report.conflicts.append(
                Problem(
                    file,
                    gid,
                    stored + 1,
                    "another writer appended to this game during the import; nothing was written",
                )
            )
            return
        self.report.games -= len(group.planned)
        for run in group.again if not self._from_files else self._read_again(group):
            self._process([run])
            self._submit()
            self._wait()

    def _read_again(self, group: _Group) -> Iterator[_Run]:
        """The runs of a transaction's games, read again from their files in order."""
        wanted: dict[str, set[int]] = {}
        for file, _, _, _, index in group.planned:
            wanted.setdefault(file, set()).add(index)
        for file, indices in wanted.items():
            last = max(indices)
            for index, (run, bad) in enumerate(self._runs(Path(file))):
                if index in indices:
                    yield _Run(file, index, run, bad)
                if index >= last:
                    break

    def _tell(self, *, committed: bool) -> None:
        if self.progress is not None:
            r = self.report
            self.progress(
                ImportProgress(
                    r.files,
                    self._files_total,
                    r.imported + r.extended,
                    r.events,
                    committed,
                    self._file,
                )
            )
