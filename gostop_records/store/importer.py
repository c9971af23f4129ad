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
import gc
import os
import sys
import threading
from collections import Counter, deque
from collections.abc import Callable, Iterable, Iterator, Mapping
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .. import log as L
from ..errors import Finding
from ..events import Envelope
from . import parallel
from .connection import bounded_memory, database_setting
from .errors import no_space
from .heads import record as record_heads
from .heads import writing
from .parallel import Checkers, Note, PieceResult, Task, WorkerFailed, default_workers
from .rows import Prepared, arrow_available, combine, compact, without_games
from .runs import (
    Checked,
    FileScan,
    Problem,
    Run,
    RunReader,
    check_links,
    first_bad_hash,
    replay,
    rows_of,
    scan,
    scan_envelopes,
)
from .schema import EVENT_COLUMNS, TABLES
from .writer import (
    clear_games,
    insert_events,
    insert_projection,
    is_write_conflict,
    transaction,
)

if TYPE_CHECKING:
    from .store import Store

__all__ = [
    "CHUNK_EVENTS",
    "DEFAULT_BATCH_EVENTS",
    "ImportProgress",
    "ImportReport",
    "Importer",
    "Problem",
    "discover",
    "ripe",
]

#: Events per transaction at most. DuckDB writes an insert of more than a row group
#: straight to the database file; smaller ones go through its write-ahead log and are copied
#: again at the next checkpoint, which costs the writer about twice the time.
DEFAULT_BATCH_EVENTS = 250_000
#: DuckDB's rows per row group (see :func:`ripe`).
ROW_GROUP_ROWS = 122_880
#: Events read, checked and derived at a time: the Python objects an import holds at once
#: (a transaction holds several of these as compact Arrow tables).
CHUNK_EVENTS = 50_000


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
    rejected: list[Finding] = field(default_factory=list)
    conflicts: list[Finding] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.rejected and not self.conflicts

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["rejected"] = [p.to_dict() for p in self.rejected]
        d["conflicts"] = [p.to_dict() for p in self.conflicts]
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
class _Place:
    """How far an import with workers has taken each file."""

    runs: dict[str, int] = field(default_factory=dict)  # runs taken
    ended: set[str] = field(default_factory=set)  # files a read error ended
    done: set[str] = field(default_factory=set)  # files taken in full (or ended)


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
    again: list[Run] = field(default_factory=list)
    count: int = 0  # events
    heads: list[tuple[str, int, str]] = field(default_factory=list)  # for the heads chain


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


def _one_duckdb_thread(store: Store) -> contextlib.AbstractContextManager[None]:
    """DuckDB works with one thread while imports run into a file, restored after the last.

    The import's workers (or its own thread) keep the cores busy; DuckDB's own extra
    threads would only take turns with them, which costs its writes about a sixth more
    time.
    """
    return database_setting(store.conn, store.path, "threads", "1")


def _no_vacuum(store: Store) -> contextlib.AbstractContextManager[None]:
    """DuckDB does not merge row groups at its checkpoints while imports run into a file,
    restored after the last.

    Each transaction of an import leaves a partial last row group in every table (the
    projection tables' rows do not follow the events' cut, see :func:`ripe`); at the next
    checkpoint DuckDB merged them with the groups after them, rewriting rows it had just
    compressed: 1.2 to 2 s of the writer's 7 s of CPU on the bench corpus. The partial
    groups stay (on that corpus 11 groups of ``captures`` where 7 would do, the store 5%
    larger).
    """
    return database_setting(store.conn, store.path, "max_vacuum_tasks", "0")


def ripe(count: int, step: int, bound: int, row_group: int = ROW_GROUP_ROWS) -> bool:
    """Whether a transaction of ``count`` events is written now, its last part having
    added ``step`` (about what the next will add), ``bound`` being its most.

    DuckDB cuts a table's rows into row groups of ``row_group``; a transaction's last group
    is partial. A small partial group is merged with the groups after it at the next
    checkpoint, which rewrites them all: on 1.25 million events in transactions of 250,000,
    each ending 4,240 rows past its second row group, the final checkpoint took 2.4 s of
    DuckDB's 8.8 for the events. So once it holds half its bound (and a row group), a
    transaction is written before a part would carry its events just past a multiple of a
    row group, leaving its last group nearly full, and at its bound in any case.
    """
    if count >= bound:
        return True
    if count < max(bound // 2, row_group):
        return False
    tail = count % row_group
    return tail == 0 or tail + step >= row_group


def discover(paths: Iterable[str | os.PathLike[str]]) -> tuple[list[Path], list[Finding]]:
    """Log files named or found (recursively) in folders, and the paths that are neither."""
    files, missing = L.find_logs(paths)
    return files, [Finding(file=str(p), reason="no such file or folder") for p in missing]


def _write(
    conn: Any,
    events: Prepared,
    replace: list[str],
    rows: Mapping[str, Prepared],
    heads: list[tuple[str, int, str]],
    path: Path,
) -> None:
    """One transaction: its events, its games' projection rows and their heads."""
    with writing(path), transaction(conn):
        insert_events(conn, events)
        clear_games(conn, replace)
        insert_projection(conn, rows)
        record_heads(conn, "game_imported", heads)


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
    """One import run into a store.

    ``batch_events`` bounds a transaction; ``workers`` is the number of processes that
    check JSON Lines logs (default: one per core; 0 checks all in this process).
    """

    def __init__(
        self,
        store: Store,
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
        self._writing: _Write | None = None
        self._group = _Group()
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
            _tuned_interpreter(),
            _one_duckdb_thread(self.store),
            _no_vacuum(self.store),
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
        """The runs of a file (see :class:`.runs.RunReader`); a read error is reported."""
        reader = RunReader(path)
        yield from reader
        if reader.error is not None:
            self.report.rejected.append(reader.error)

    def _import_with_workers(self, checkers: Checkers, files: list[Path]) -> None:
        """The files checked by the worker processes, in tasks (see :mod:`.parallel`).

        Transactions are cut by :func:`ripe` alone, to the last, which holds what is left.
        Cutting smaller ones near the end, so that the last is small, measured no faster
        with DuckDB checkpointing on its own (bench/RESULTS.md, "Import: where the wall
        goes"): a transaction under a row group goes through the write-ahead log, and the
        checkpoint copies it again.
        """
        at = _Place()
        # The scan of each file (see :func:`.runs.scan`), which the importer needs before it
        # takes a file's first verdicts, runs on a thread from the start, while the workers
        # check the first tasks; verdicts that come before their file's scan is done wait,
        # a few of them, while the workers are given more tasks. Done in line, the scan
        # kept the workers waiting for new tasks.
        stop = threading.Event()
        scanner = ThreadPoolExecutor(1, "gostop-scan")
        for path in files:
            if str(path) not in self._scans:
                self._scanning[str(path)] = scanner.submit(scan, path, stop)
        held: deque[tuple[Task, PieceResult]] = deque()
        stream = checkers.results(parallel.tasks(files), self.strict)

        def take_held(wait: bool) -> None:
            """The verdicts held back, in order: those whose scans are done, or all."""
            while held and (wait or self._scanned(held[0][0])):
                self._take(*held.popleft(), at)

        try:
            while True:
                try:
                    task, result = next(stream)
                except StopIteration:
                    take_held(wait=True)
                    return
                except WorkerFailed:
                    take_held(wait=True)
                    # a worker that failed (killed, out of memory): the rest in-process,
                    # from the first run of each file not taken in full
                    for path in files:
                        name = str(path)
                        if name not in at.done:
                            self._read_file(path, at.runs.get(name, 0))
                            self._file_done(name)
                    return
                if result is None:  # a log the importer reads itself
                    take_held(wait=True)
                    name = task[0].file
                    self._read_file(Path(name))
                    self._flush_chunk()  # planned before what comes after it
                    self._file_done(name)
                    at.done.add(name)
                    continue
                held.append((task, result))
                take_held(wait=len(held) > checkers.workers)
        finally:
            stream.close()
            # scans not taken (a file a read error ended, an error): cut short, dropped
            stop.set()
            scanner.shutdown(wait=True, cancel_futures=True)
            self._scanning.clear()

    def _scanned(self, task: Task) -> bool:
        """Whether the scan of every file of a task is done (see :meth:`_scan_of`)."""
        for part in task:
            under_way = self._scanning.get(part.file)
            if under_way is not None and not under_way.done():
                return False
        return True

    def _take(self, task: Task, result: PieceResult, at: _Place) -> None:
        """A worker's verdicts on a task's runs: taken for the games met for the first
        time, the other runs planned in-process against the store."""
        if task[0].file in at.ended:
            return  # the rest of a file a read error ended
        entries = [
            (k, i, n) for k, part in enumerate(result.parts) for i, n in enumerate(part.notes)
        ]
        for part in task:
            self._scan_of(part.file)
        # games whose lines in their file do not form one run: none of them is taken
        broken = {(k, i) for k, i, n in entries if self._broken(task[k].file, n.game_id)}
        counts = Counter(n.game_id for _, _, n in entries)
        known = self._known(set(counts))
        here = {
            (k, i)
            for k, i, n in entries
            if (n.verdict == "later" or counts[n.game_id] > 1 or n.game_id in known)
            and (k, i) not in broken
        }
        report = self.report
        g = self._group
        taken: list[tuple[int, int, Note]] = []
        for k, i, n in entries:
            if (k, i) in here:
                continue
            report.games += 1
            if (k, i) in broken:
                continue
            if n.verdict == "rejected":
                assert n.problem is not None
                report.rejected.append(self._placed(n.problem, at.runs.get(task[k].file, 0) + i))
            else:
                taken.append((k, i, n))
        step = 0  # events this task adds to the transaction
        if taken:
            events, rows = result.prepared()
            dropped = {
                n.game_id
                for k, i, n in entries
                if ((k, i) in here or (k, i) in broken) and n.verdict == "ok"
            }
            if dropped:
                events = without_games(events, dropped)
                rows = {t: without_games(r, dropped) for t, r in rows.items()}
            g.events.append(events)
            g.count += events.count
            step = events.count
            for table, part in rows.items():
                g.rows.setdefault(table, []).append(part)
            for k, i, n in taken:
                name = task[k].file
                g.games.add(n.game_id)
                g.planned.append((name, n.game_id, 0, n.violations, at.runs.get(name, 0) + i))
                if n.head is not None:
                    g.heads.append((n.game_id, *n.head))
        if here:
            again: list[Run] = []
            for k, part in enumerate(task):
                wanted = {i for j, i in here if j == k}
                if wanted:
                    first = at.runs.get(part.file, 0)
                    again += [
                        Run(part.file, first + i, run, bad)
                        for i, (run, bad) in enumerate(RunReader(part.file, part.span))
                        if i in wanted
                    ]
            self._process(again)
        for part, done in zip(task, result.parts, strict=True):
            name = part.file
            if done.error is not None:
                line = done.error.line
                if line is not None and part.span is not None and part.span[0]:
                    line += parallel.lines_before(name, part.span[0])
                report.rejected.append(replace(done.error, line=line))
                at.ended.add(name)  # the rest of the file is not read
            at.runs[name] = at.runs.get(name, 0) + len(done.notes)
            if part.last or done.error is not None:
                at.done.add(name)
                self._file_done(name)
        if self._ripe(step):
            self._submit()

    def _known(self, ids: set[str]) -> set[str]:
        """The games the store holds or the import is about to write."""
        known = ids & self._group.games
        if self._writing is not None:
            known |= ids & self._writing.group.games
        # every stored game has its seq 1 (a store's seqs are dense from 1): one row a game,
        # and DuckDB filters on seq before it compares the ids (half the time of DISTINCT
        # over every row of the games on 10 million events with random ids: 23 ms, 50 ms)
        rows = self.store.conn.execute(
            "SELECT game_id FROM events WHERE seq = 1 AND game_id IN (SELECT unnest(?::VARCHAR[]))",
            [list(ids)],
        ).fetchall()
        return known | {gid for (gid,) in rows}

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
        file, run = read.file, read.events
        gid = run[0].game_id
        report = self.report
        if self._broken(file, gid):
            return None
        broken = check_links(run, read.bad_hash)
        if broken is not None:
            problem = Finding(
                file=file, game_id=gid, seq=broken[0], reason=broken[1], rule="hash_chain"
            )
            report.rejected.append(self._placed(problem, read.index))
            return None
        stored = hashes.get(gid, [])
        n = len(stored)
        for env in run:
            if env.seq > n:
                break
            if stored[env.seq - 1] != env.hash:
                report.conflicts.append(
                    Finding(
                        file=file,
                        game_id=gid,
                        seq=env.seq,
                        reason=f"the store holds another event at seq {env.seq} (stored hash "
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
                Finding(
                    file=file,
                    game_id=gid,
                    seq=first,
                    reason=f"the file's events start at seq {first}, but the store holds {n}: "
                    f"seq {n + 1}..{first - 1} are missing",
                    rule="seq_dense",
                    line=self._scans[file].line_of(read.index, 0, gid)
                    if file in self._scans
                    else None,
                )
            )
            return None
        if n and first == n + 1 and run[0].prev != stored[-1]:
            report.conflicts.append(
                Finding(
                    file=file,
                    game_id=gid,
                    seq=first,
                    reason="does not continue the stored hash chain of the game",
                )
            )
            return None
        if first == 1:
            full = list(run)
        else:
            before = pending[gid].full if gid in pending else self.store.events(gid)
            full = [*before[: first - 1], *run]
        checked = replay(read, full, n, self.strict)
        if isinstance(checked, Finding):
            report.rejected.append(self._placed(checked, read.index))
            return None
        return checked

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
        self._group = _Group()
        events = combine(EVENT_COLUMNS, g.events)
        rows = {name: combine(cols, g.rows.get(name, [])) for name, cols in TABLES.items()}
        g.events, g.rows = [], {}
        self._wait()
        assert self._writer is not None
        conn = self.store.conn.cursor()
        done = self._writer.submit(
            _write, conn, events, sorted(g.replace), rows, g.heads, self.store.path
        )
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

    def _after_conflict(self, group: _Group) -> None:
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

    def _read_again(self, group: _Group) -> Iterator[Run]:
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
