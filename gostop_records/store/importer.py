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
running it again completes it. Rows go in through Arrow (or JSON Lines, see :mod:`.bulk`).

Games are read, checked and derived in chunks (:data:`CHUNK_EVENTS`) and gathered into a
transaction (:data:`DEFAULT_BATCH_EVENTS`) as Arrow tables; a background thread writes a
transaction while the next one is gathered (DuckDB releases the interpreter lock while it
inserts and commits). A chunk that holds a game of a transaction not yet committed waits
for that commit before it is planned, so each game is planned against everything written
before it, as if the writes were in line. After a write conflict (another writer touched a
game meanwhile) nothing of the transaction is written, and each of its games is read again
and imported on its own.

When there is enough JSON Lines to check, worker processes check it in tasks (large files in
pieces, small ones gathered, see :mod:`.parallel`); the importer takes their verdicts only
for games it has not met and the store does not hold, and plans every other run itself, so
the outcome is the same as in-process.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from .. import log as L
from ..errors import Finding
from ..events import Envelope
from . import parallel
from .bulk import arrow_available, combine, compact
from .connection import bounded_memory
from .errors import no_space
from .game_runs import (
    Checked,
    FileScan,
    Problem,
    Run,
    RunReader,
    first_bad_hash,
    rows_of,
    scan,
    scan_envelopes,
)
from .import_process import no_vacuum, one_duckdb_thread, tuned_interpreter
from .import_report import ImportProgress, ImportReport
from .import_workers import WorkerReading
from .import_writes import (
    DEFAULT_BATCH_EVENTS,
    ROW_GROUP_ROWS,
    PendingWrite,
    TransactionGroup,
    _write,
    ripe,
)
from .parallel import Checkers, default_workers
from .schema import EVENT_COLUMNS, TABLES
from .verdict import Conflict, judge
from .writer import (
    is_write_conflict,
)

if TYPE_CHECKING:
    from .handle import StoreHandle

__all__ = [
    "CHUNK_EVENTS",
    "DEFAULT_BATCH_EVENTS",
    "ROW_GROUP_ROWS",
    "ImportProgress",
    "ImportReport",
    "Importer",
    "Problem",
    "discover",
    "ripe",
]

#: Events read, checked and derived at a time: the Python objects an import holds at once
#: (a transaction holds several of these as compact Arrow tables).
CHUNK_EVENTS = 50_000


def discover(paths: Iterable[str | os.PathLike[str]]) -> tuple[list[Path], list[Finding]]:
    """Log files named or found (recursively) in folders, and the paths that are neither."""
    files, missing = L.find_logs(paths)
    return files, [Finding(file=str(p), reason="no such file or folder") for p in missing]


class Importer(WorkerReading):
    """One import run into a store.

    ``batch_events`` bounds a transaction; ``workers`` is the number of processes that
    check JSON Lines logs (default: one per core; 0 checks all in this process).
    """

    def __init__(
        self,
        store: StoreHandle,
        *,
        strict: bool = True,
        batch_events: int | None = None,
        progress: Callable[[ImportProgress], None] | None = None,
        workers: int | None = None,
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
        self._writing: PendingWrite | None = None
        self._group = TransactionGroup()
        self._chunk: list[Run] = []  # runs read, not yet planned
        self._chunk_events = 0
        self._from_files = True  # games can be read again from their files
        self._scans: dict[str, FileScan] = {}  # each file's runs and broken games
        self._scanning: dict[str, Future[FileScan]] = {}  # scans under way (with workers)
        self._told: set[tuple[str, str]] = set()  # (file, game) whose break is reported
        n = default_workers() if workers is None else workers
        self._checkers = Checkers(n) if n > 0 and arrow_available() else None

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
        with (
            tuned_interpreter(),
            one_duckdb_thread(self.store),
            no_vacuum(self.store),
            bounded_memory(self.store.conn, self.store.path),
            ThreadPoolExecutor(1, "gostop-import") as writer,
        ):
            self._writer = writer
            try:
                yield
                if self._checkers is not None:
                    self._checkers.close()  # idle now: they end while the last batch is written
                self._submit()
                self._wait()
            finally:
                if self._checkers is not None:
                    self._checkers.close()
                # on an error, let the batch being written finish (it holds whole games)
                if self._writing is not None:
                    self._writing.wait()
                    self._writing = None
                self._writer = None

    def _import_paths(self, paths: Iterable[str | os.PathLike[str]]) -> ImportReport:
        files, missing = discover(paths)
        self.report.rejected.extend(missing)
        self._files_total = len(files)
        checkers = self._checkers
        total = parallel.input_bytes(files) if checkers is not None else 0
        if checkers is not None and not checkers.broken and total >= parallel.MIN_BYTES:
            self._import_with_workers(checkers, files)
        else:
            for path in files:
                self._file = str(path)
                self._read_file(path)
                self._file_done(str(path))
        self._flush_chunk()
        return self.report

    def _file_done(self, name: str) -> None:
        self._file = name
        self.report.files += 1
        self._tell(committed=False)

    def _import_envelopes(self, envelopes: Iterable[Envelope], source: str) -> ImportReport:
        """Envelopes in memory, under the whole-run rules of a file: a game whose
        envelopes are interrupted by another game's (and come back, or continue its chain
        under another id) is rejected whole, naming the position where it breaks."""
        self._files_total = 1
        self._file = source
        self._from_files = False
        envs = envelopes if isinstance(envelopes, list) else list(envelopes)
        self._scans[source] = scan_envelopes(source, envs)
        for index, (_, run) in enumerate(L.iter_games(envs)):
            self._add_run(Run(source, index, run, first_bad_hash(run)))
        self._flush_chunk()
        self.report.files += 1
        return self.report

    def _scan_of(self, name: str) -> FileScan:
        """The file's runs and the games whose lines do not form one run (read once)."""
        found = self._scans.get(name)
        if found is None:
            under_way = self._scanning.pop(name, None)
            found = under_way.result() if under_way is not None else scan(name)
            self._scans[name] = found
        return found

    def _broken(self, file: str, gid: str) -> bool:
        """Whether the game's lines in the file do not form one run; reported once."""
        found = self._scans.get(file)
        if found is None or gid not in found.broken:
            return False
        if (file, gid) not in self._told:
            self._told.add((file, gid))
            self.report.rejected.append(found.broken[gid])
        return True

    def _placed(self, problem: Finding, run: int) -> Finding:
        """The problem with the line of its seq in the file, when it has none yet."""
        found = self._scans.get(problem.file or "")
        if problem.line is not None or found is None:
            return problem
        return replace(problem, line=found.line_of_seq(run, problem.seq, problem.game_id))

    def _read_file(self, path: Path, first: int = 0) -> None:
        """The runs of a file read in this process, from its run number ``first`` on."""
        name = str(path)
        self._scan_of(name)
        for index, (run, bad) in enumerate(self._runs(path)):
            if index >= first:
                self._add_run(Run(name, index, run, bad))

    def _add_run(self, run: Run) -> None:
        self._chunk.append(run)
        self._chunk_events += len(run.events)
        if self._chunk_events >= self.chunk_events:
            self._flush_chunk()

    def _flush_chunk(self) -> None:
        chunk, self._chunk, self._chunk_events = self._chunk, [], 0
        self._process(chunk)

    def _runs(self, path: Path) -> Iterator[tuple[list[Envelope], int | None]]:
        """The runs of a file (see :class:`.game_runs.RunReader`); a read error is reported."""
        reader = RunReader(path)
        yield from reader
        if reader.error is not None:
            self.report.rejected.append(reader.error)

    # --- planning --------------------------------------------------------------------

    def _process(self, chunk: list[Run]) -> None:
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
        pending: dict[str, Checked] = {}
        planned: list[Checked] = []
        for run in chunk:
            self.report.games += 1
            p = self._plan(run, hashes, pending)
            if p is not None:
                planned.append(p)
                gid = run.events[0].game_id
                pending[gid] = p
                hashes[gid] = [e.hash for e in p.full]
        before = self._group.count
        self._add(planned)
        if self._ripe(self._group.count - before):
            self._submit()

    def _plan(
        self, read: Run, hashes: dict[str, list[str]], pending: dict[str, Checked]
    ) -> Checked | None:
        gid = read.events[0].game_id
        if self._broken(read.file, gid):
            return None
        verdict = judge(
            read,
            hashes.get(gid, []),
            lambda: pending[gid].full if gid in pending else self.store.events(gid),
            strict=self.strict,
            scan=self._scans.get(read.file),
        )
        if verdict is None:
            self.report.skipped += 1
        elif isinstance(verdict, Conflict):
            self.report.conflicts.append(verdict.problem)
        elif isinstance(verdict, Finding):
            self.report.rejected.append(self._placed(verdict, read.index))
        else:
            return verdict
        return None

    # --- writing ---------------------------------------------------------------------

    def _ripe(self, step: int) -> bool:
        """Whether the transaction being gathered is written now (see :func:`ripe`)."""
        return ripe(self._group.count, step, self.batch_events)

    def _add(self, planned: list[Checked]) -> None:
        """A chunk's planned games into the transaction being gathered, as Arrow tables."""
        if not planned:
            return
        ready, rows = rows_of(planned)
        g = self._group
        g.events.append(compact(ready))
        g.count += ready.count
        for name, part in rows.items():
            g.rows.setdefault(name, []).append(compact(part))
        g.games.update(p.full[0].game_id for p in planned)
        # games the store held before: their projection rows are replaced whole
        g.replace.update(p.full[0].game_id for p in planned if p.stored)
        for p in planned:
            g.planned.append((p.run.file, p.full[0].game_id, p.stored, p.violations, p.run.index))
            g.heads.append((p.full[0].game_id, p.full[-1].seq, p.full[-1].hash))
            if not self._from_files:
                g.again.append(p.run)

    def _submit(self) -> None:
        """Hand the gathered transaction to the writer thread (after the one before it)."""
        g = self._group
        if not g.planned:
            return
        self._group = TransactionGroup()
        events = combine(EVENT_COLUMNS, g.events)
        rows = {name: combine(cols, g.rows.get(name, [])) for name, cols in TABLES.items()}
        g.events, g.rows = [], {}
        self._wait()
        assert self._writer is not None
        conn = self.store.conn.cursor()
        done = self._writer.submit(
            _write, conn, events, sorted(g.replace), rows, g.heads, self.store.path
        )
        self._writing = PendingWrite(g, conn, done)

    def _wait(self) -> None:
        """Wait for the transaction being written, then count it (or retry it after a
        conflict)."""
        write = self._writing
        if write is None:
            return
        self._writing = None
        exc = write.wait()
        if exc is not None:
            full = no_space(exc, self.store.path)
            if full is not None:
                raise full from None  # the games committed before stay; run the import again
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

    def _after_conflict(self, group: TransactionGroup) -> None:
        """Another writer touched a game of the transaction, which wrote nothing: import
        each of its games again on its own, against what the store holds now."""
        if len(group.planned) == 1:
            file, gid, stored, _, _ = group.planned[0]
            self.report.conflicts.append(
                Finding(
                    file=file,
                    game_id=gid,
                    seq=stored + 1,
                    reason="another writer appended to this game during the import; "
                    "nothing was written",
                )
            )
            return
        self.report.games -= len(group.planned)
        for run in group.again if not self._from_files else self._read_again(group):
            self._process([run])
            self._submit()
            self._wait()

    def _read_again(self, group: TransactionGroup) -> Iterator[Run]:
        """The runs of a transaction's games, read again from their files in order."""
        wanted: dict[str, set[int]] = {}
        for file, _, _, _, index in group.planned:
            wanted.setdefault(file, set()).add(index)
        for file, indices in wanted.items():
            last = max(indices)
            for index, (run, bad) in enumerate(self._runs(Path(file))):
                if index in indices:
                    yield Run(file, index, run, bad)
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
