"""The part of an import that worker processes check: JSON Lines files are cut into tasks
(large files in pieces, small ones gathered, see :mod:`.parallel`), and the importer takes
a worker's verdict only for a game it has not met and the store does not hold; every other
run is read and planned in this process, so the outcome is the same as without workers.

:class:`WorkerReading` is the importer's reading with workers, kept beside the
:class:`~.importer.Importer` that it is mixed into (it uses the importer's state and its
planning).
"""

from __future__ import annotations

import threading
from collections import Counter, deque
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

from . import parallel
from .bulk import without_games
from .game_runs import (
    Run,
    RunReader,
    scan,
)
from .parallel import Checkers, Note, PieceResult, Task, WorkerFailed

if TYPE_CHECKING:
    pass

__all__ = ["WorkerReading"]


@dataclass(slots=True)
class _Place:
    """How far an import with workers has taken each file."""

    runs: dict[str, int] = field(default_factory=dict)  # runs taken
    ended: set[str] = field(default_factory=set)  # files a read error ended
    done: set[str] = field(default_factory=set)  # files taken in full (or ended)


class WorkerReading:
    """The importer's reading of files through worker processes (mixed into the importer)."""

    def _import_with_workers(self, checkers: Checkers, files: list[Path]) -> None:
        """The files checked by the worker processes, in tasks (see :mod:`.parallel`).

        Transactions are cut by :func:`ripe` alone, to the last, which holds what is left:
        a transaction smaller than a row group goes through DuckDB's write-ahead log and is
        copied again at the checkpoint, so smaller ones near the end do not finish sooner
        (docs/performance.md, "Import: where the wall goes").
        """
        at = _Place()
        # The scan of each file (see :func:`.game_runs.scan`), which the importer needs before it
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

    # Long: a worker's verdicts taken run by run; the cases share the store's state.
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
