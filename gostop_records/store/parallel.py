"""Checking the games of an import in worker processes.

Reading, hash checks, the rules and the projection rows are Python work that one
interpreter does on one core, while DuckDB's writes are cheap next to them. The files of an
import are therefore cut into tasks (:func:`tasks`): a large JSON Lines file into pieces of
whole runs (a piece never splits a game's run), small ones gathered several to a task. Worker
processes check the games that *start* in a task exactly as the importer does in-process
(:mod:`.game_runs`) and send back verdicts and rows as Arrow tables.

The importer stays the one place that decides against the store: it takes a worker's
verdict only for a game the store and the import have not met yet and that appears once
in its task; every other run (a continuation, a duplicate, a game already stored or
waiting to be written) is read again and planned in-process. Tasks are taken in file
order, and a log the workers do not read (msgpack) is read by the importer at its turn, so
the outcome is the one a single process reading the files in order would reach.
"""

from __future__ import annotations

import contextlib
import gc
import os
import pickle
import queue
import signal
import socket
import subprocess
import sys
import threading
from collections import deque
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, Literal

import msgspec

from .. import log as L
from ..errors import Finding, LogError
from . import transfer
from .bulk import Prepared, from_arrow, to_arrow
from .game_runs import Checked, Run, RunReader, check_links, replay, rows_of
from .schema import EVENT_COLUMNS, TABLES

__all__ = [
    "MIN_BYTES",
    "PIECE_BYTES",
    "WORKER_CODE",
    "Checkers",
    "Note",
    "Part",
    "PartResult",
    "PieceResult",
    "Task",
    "WorkerFailed",
    "check_piece",
    "default_workers",
    "input_bytes",
    "lines_before",
    "pieces",
    "serve",
    "tasks",
]

#: About 20,000 events: large enough that sending the rows back costs little next to
#: checking them, small enough to keep both cores busy from the start.
PIECE_BYTES = 8 << 20
#: Less JSON Lines than this is checked in-process: starting the workers would cost more
#: than it saves.
MIN_BYTES = 3 * PIECE_BYTES
#: What a worker process runs.
WORKER_CODE = "from gostop_records.store.parallel import serve; serve()"


def default_workers() -> int:
    """One worker per core: the importer's own thread and DuckDB wait for them mostly."""
    return min(os.cpu_count() or 1, 8)


class _GameOf(msgspec.Struct):
    game_id: str


_game_dec = msgspec.json.Decoder(_GameOf)


def _game_of(line: bytes) -> str | None:
    try:
        return _game_dec.decode(line).game_id
    except (msgspec.DecodeError, msgspec.ValidationError):
        return None


def _boundary(f: IO[bytes], pos: int, total: int) -> int:
    """The first line start at or after ``pos`` where another game's run begins."""
    if pos >= total:
        return total
    f.seek(pos)
    f.readline()  # the rest of the line that ``pos`` falls in
    game: str | None = None
    while True:
        at = f.tell()
        line = f.readline()
        if not line:
            return total
        if line.isspace():
            continue
        this = _game_of(line)
        if this is None:
            # a line the reader will refuse: no cut after it, so that the error ends the
            # file where a reader in order would stop
            return total
        if game is None:
            game = this
        elif this != game:
            return at


def pieces(path: L.PathLike, size: int = PIECE_BYTES) -> Iterator[tuple[int, int]]:
    """Byte spans ``[start, end)`` of about ``size`` bytes, each made of whole runs."""
    total = os.path.getsize(path)
    start = 0
    with open(path, "rb") as f:
        while start < total:
            end = _boundary(f, start + size, total)
            yield start, end
            start = end


@dataclass(frozen=True, slots=True)
class Note:
    """A worker's verdict on one run of a piece."""

    game_id: str
    verdict: Literal["ok", "rejected", "later"]  # later: not from seq 1, the importer's
    problem: Finding | None = None
    violations: int = 0
    head: tuple[int, str] | None = None  # an ok run's last seq and hash (the heads chain)


@dataclass(frozen=True, slots=True)
class Part:
    """A file, or a span of one, in a task."""

    file: str
    span: tuple[int, int] | None = None  # None: the whole file
    last: bool = True  # the file's last part
    here: bool = False  # not for a worker: the importer reads it (a msgpack log)


#: What a worker checks at once: a piece of a large file, or several small files.
Task = tuple[Part, ...]


@dataclass(slots=True)
class PartResult:
    """A worker's verdicts on the runs of one part; line numbers count from its start."""

    notes: list[Note]
    error: Finding | None = None  # the read error that ends the file


@dataclass(slots=True)
class PieceResult:
    """What a worker sends back for one task: per part, and the rows of them all."""

    parts: list[PartResult]
    events: Any = None  # Arrow table of the event rows of the runs found "ok"
    rows: dict[str, Any] = field(default_factory=dict)  # Arrow table per projection table
    shared: transfer.Index | None = None  # the tables sent apart in a memory file

    def prepared(self) -> tuple[Prepared, dict[str, Prepared]]:
        return from_arrow(self.events), {name: from_arrow(t) for name, t in self.rows.items()}


def lines_before(path: str, pos: int) -> int:
    """The lines of a file before byte ``pos``: where a span's line numbers start (counted
    only for a read error, the one place they are shown)."""
    count = 0
    with open(path, "rb") as f:
        while pos > 0:
            block = f.read(min(pos, 1 << 20))
            if not block:
                break
            count += block.count(b"\n")
            pos -= len(block)
    return count


def check_piece(parts: list[tuple[str, tuple[int, int] | None]], strict: bool) -> PieceResult:
    """Check every run of a task that starts a game: chain, rules, rows (in a worker)."""
    out: list[PartResult] = []
    checked: list[Checked] = []
    for path, span in parts:
        reader = RunReader(path, span)
        notes: list[Note] = []
        for index, (events, bad) in enumerate(reader):
            gid = events[0].game_id
            if events[0].seq != 1:
                notes.append(Note(gid, "later"))
                continue
            broken = check_links(events, bad)
            if broken is not None:
                problem = Finding(
                    file=path, game_id=gid, seq=broken[0], reason=broken[1], rule="hash_chain"
                )
                notes.append(Note(gid, "rejected", problem))
                continue
            result = replay(Run(path, index, events, bad), events, 0, strict)
            if isinstance(result, Finding):
                notes.append(Note(gid, "rejected", result))
                continue
            head = (events[-1].seq, events[-1].hash)
            notes.append(Note(gid, "ok", violations=result.violations, head=head))
            checked.append(result)
        out.append(PartResult(notes, reader.error))
    events_ready, rows_ready = rows_of(checked)
    return PieceResult(
        out,
        to_arrow(EVENT_COLUMNS, events_ready),
        {name: to_arrow(cols, rows_ready[name]) for name, cols in TABLES.items()},
    )


def tasks(files: Sequence[Path], size: int | None = None) -> Iterator[Task]:
    """The work of an import in file order: each large JSON Lines file in pieces of about
    ``size`` bytes, small ones gathered until they weigh as much, any other log alone as a
    part the importer reads itself."""
    size = size or PIECE_BYTES
    gathered: list[Part] = []
    held = 0
    for path in files:
        name = str(path)
        try:
            jsonl = L.log_format(path) == "jsonl"
            nbytes = path.stat().st_size
        except (LogError, OSError):
            jsonl, nbytes = False, 0
        if jsonl and nbytes < size:
            gathered.append(Part(name))
            held += nbytes
            if held >= size:
                yield tuple(gathered)
                gathered, held = [], 0
            continue
        if gathered:
            yield tuple(gathered)
            gathered, held = [], 0
        if not jsonl:
            yield (Part(name, here=True),)
            continue
        try:
            spans = list(pieces(path, size))
        except OSError:
            yield (Part(name, here=True),)  # the importer's reader says why
            continue
        for k, span in enumerate(spans):
            yield (Part(name, span, last=k == len(spans) - 1),)
    if gathered:
        yield tuple(gathered)


def input_bytes(files: Sequence[Path]) -> int:
    """The bytes of JSON Lines among the files: what the workers would check."""
    total = 0
    for path in files:
        with contextlib.suppress(LogError, OSError):
            if L.log_format(path) == "jsonl":
                total += path.stat().st_size
    return total


class WorkerFailed(Exception):
    """A worker process died or failed on a piece: the importer goes on in-process."""


class _Worker:
    """One worker process, fed tasks through its stdin; a thread collects its results.

    Workers are plain subprocesses running :func:`serve`, not ``multiprocessing`` ones,
    whose start methods run the caller's main script again in every child: a program that
    imports logs must not have to guard its main code for that.
    """

    def __init__(self) -> None:
        root = str(Path(__file__).resolve().parents[2])
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(p for p in (root, env.get("PYTHONPATH")) if p)
        # the rows come back in memory files over a socket where the platform allows
        # (see :mod:`.transfer`); the worker learns its end's descriptor from its argument
        ours, theirs = transfer.channel() if transfer.available() else (None, None)
        passed = [theirs.fileno()] if theirs is not None else []
        try:
            self.proc = subprocess.Popen(
                [sys.executable, "-c", WORKER_CODE, *map(str, passed)],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                env=env,
                pass_fds=passed,
            )
        except BaseException:
            if ours is not None:
                ours.close()
            raise
        finally:
            if theirs is not None:
                theirs.close()
        self._rows = ours
        self.results: queue.SimpleQueue[Any] = queue.SimpleQueue()
        self._reader = threading.Thread(target=self._collect, daemon=True)
        self._reader.start()

    def _collect(self) -> None:
        out = self.proc.stdout
        assert out is not None
        while True:
            try:
                item = pickle.load(out)
                if isinstance(item, PieceResult) and item.shared is not None:
                    assert self._rows is not None
                    tables = transfer.receive(self._rows, item.shared)
                    item.events = tables.pop("events")
                    item.rows, item.shared = tables, None
            except Exception:  # end of the stream: the process ended or died
                self.results.put(WorkerFailed("the worker process ended"))
                return
            self.results.put(item)

    def send(self, task: tuple[list[tuple[str, tuple[int, int] | None]], bool] | None) -> None:
        stdin = self.proc.stdin
        assert stdin is not None
        try:
            pickle.dump(task, stdin)
            stdin.flush()
        except OSError as exc:
            raise WorkerFailed(f"the worker process cannot be reached: {exc}") from None

    def receive(self) -> PieceResult:
        item = self.results.get()
        if isinstance(item, BaseException):
            raise item
        return item  # type: ignore[no-any-return]

    def stop(self) -> None:
        with contextlib.suppress(Exception):
            self.send(None)
            assert self.proc.stdin is not None
            self.proc.stdin.close()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        if self.proc.stdout is not None:
            self.proc.stdout.close()
        if self._rows is not None:
            self._rows.close()


def serve() -> None:
    """A worker's main loop: ``(parts, strict)`` in, :class:`PieceResult` out; its
    argument, when given, is the descriptor of the socket for the rows' memory files."""
    rows = socket.socket(fileno=int(sys.argv[1])) if len(sys.argv) > 1 else None
    # Ctrl-C is the importer's to handle: it stops feeding the workers, which then end
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    out = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)  # anything printed goes to stderr, never into the results
    # A piece's objects die with it by reference counting: the cyclic collector, which
    # would walk them again and again for nothing, runs only now and then, and never
    # walks the modules loaded so far.
    gc.disable()
    gc.freeze()
    tasks = sys.stdin.buffer
    done = 0
    while True:
        try:
            task = pickle.load(tasks)
        except EOFError:
            task = None
        if task is None:
            # every result is written and flushed: end without the interpreter's teardown
            # (freeing every module and object, about 0.1 s), which the importer waits for
            out.close()
            os._exit(0)
        try:
            result: Any = check_piece(*task)
        except Exception as exc:  # a defect: the importer checks the piece in-process
            result = WorkerFailed(f"{type(exc).__name__}: {exc}")
        if rows is not None and isinstance(result, PieceResult):
            _send_apart(rows, result)
        pickle.dump(result, out, protocol=pickle.HIGHEST_PROTOCOL)
        out.flush()
        done += 1
        if done % 16 == 0:
            gc.collect()


def _send_apart(sock: socket.socket, result: PieceResult) -> None:
    """The result's tables sent in a memory file, when one can be made (else they stay
    in the result, pickled with it)."""
    index = transfer.send(sock, {"events": result.events, **result.rows})
    if index is not None:
        result.events, result.rows, result.shared = None, {}, index


class Checkers:
    """The worker processes of one import, started on first use.

    Pieces go to the workers in turn and their results are taken in the same turn, so
    they come back in file order; a few pieces per worker are sent ahead.
    """

    def __init__(self, workers: int) -> None:
        self.workers = workers
        self._procs: list[_Worker] = []
        self.broken = False

    def results(
        self, work: Iterable[Task], strict: bool
    ) -> Iterator[tuple[Task, PieceResult | None]]:
        """(task, result) of each task, in order; None for a part the importer reads.

        Raises :class:`WorkerFailed` when a worker fails; the checkers are then broken and
        the importer reads the rest itself. Closing the iterator early collects what was
        sent, so that the workers are idle again.
        """
        if not self._procs:
            try:
                for _ in range(self.workers):
                    self._procs.append(_Worker())
            except OSError as exc:  # no interpreter to start, no processes left
                self.close()
                self.broken = True
                raise WorkerFailed(f"the worker processes cannot start: {exc}") from None
        pending: deque[tuple[Task, _Worker | None]] = deque()
        turn = 0
        ahead = 2 * len(self._procs)
        try:
            for task in work:
                worker: _Worker | None = None
                if not task[0].here:
                    worker = self._procs[turn % len(self._procs)]
                    turn += 1
                    worker.send(([(p.file, p.span) for p in task], strict))
                pending.append((task, worker))
                while len(pending) > ahead:
                    first, w = pending.popleft()
                    yield first, w.receive() if w is not None else None
            while pending:
                first, w = pending.popleft()
                yield first, w.receive() if w is not None else None
        except WorkerFailed:
            self.broken = True
            raise
        finally:
            if not self.broken:
                try:
                    for _, w in pending:
                        if w is not None:
                            w.receive()
                except WorkerFailed:
                    self.broken = True

    def close(self) -> None:
        for w in self._procs:
            w.stop()
        self._procs = []
