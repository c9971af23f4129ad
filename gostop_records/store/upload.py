"""An upload of whole games (the server's ``POST /api/import``, a finished ``/play`` hand),
appended through the journal as an entry is.

``db import`` writes straight into DuckDB, in bulk, and owns the store while it runs. A
server must keep recording meanwhile, so an upload goes the entries' way instead. It is read
and checked first, away from the writer (:func:`read_upload`: the chain, the rules of every
game that starts in it and that game's projection rows, the cost of an upload); the writer
then only judges each game against what the store holds (:func:`append_upload`, the same
verdicts as ``db import``: :mod:`.verdict`) and appends the new events through the store's
journal, with their heads entries, as one record. The settler writes them and their
projection rows into DuckDB later, as it does an entry's.

An upload is small (the server caps its size), so it is held in memory whole.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from ..errors import Finding
from ..names import reveal, sealed_ids
from .append import Append, AppendResult, holds_none
from .game_runs import Checked, FileScan, Run, RunReader, replay, scan
from .import_report import ImportReport
from .people import keys_for
from .projections import Rows, derive
from .verdict import Conflict, judge

if TYPE_CHECKING:
    from .store import Store

__all__ = ["Upload", "append_upload", "read_upload"]


@dataclass(slots=True)
class Upload:
    """A log file read and checked, waiting for the writer."""

    path: str
    strict: bool
    scan: FileScan
    report: ImportReport
    #: each game's run, with the rules' verdict and the game's rows when the run starts it
    runs: list[tuple[Run, Checked | Finding | None, Rows | None]] = field(default_factory=list)


def read_upload(path: str | os.PathLike[str], *, strict: bool = True) -> Upload:
    """The runs of the log at ``path``, each that starts a game replayed by the rules (as
    if the store held none of it: the writer checks that it does not)."""
    name = os.fspath(path)
    found = scan(name)
    up = Upload(name, strict, found, ImportReport(files=1))
    told: set[str] = set()
    reader = RunReader(name)
    for index, (events, bad) in enumerate(reader):
        gid = events[0].game_id
        if gid in found.broken:  # its lines are not one run: rejected whole, once
            if gid not in told:
                told.add(gid)
                up.report.games += 1
                up.report.rejected.append(found.broken[gid])
            continue
        run = Run(name, index, events, bad)
        ready = replay(run, events, 0, strict) if events[0].seq == 1 else None
        rows = None
        if isinstance(ready, Checked):  # its rows too, should the store hold none of it
            # names sealed under another store's keys read as forgotten, as the store's
            # own derivation shows them (the writer drops these rows should it hold a key)
            shown = [reveal(ready.full[0], {}), *ready.full[1:]]
            rows = derive(shown, ready.game, ready.issues, retracted=ready.retracted)
        up.runs.append((run, ready, rows))
    if reader.error is not None:
        up.report.rejected.append(reader.error)
    return up


def _opens(store: Store, run: Run) -> bool:
    """Whether the store holds a key to a name the run's first event seals (the log was
    recorded here, or names a person known here): then its rows are derived by the store's
    own way, with the names opened."""
    ids = sealed_ids(run.events[0].event)
    return bool(ids) and bool(keys_for(store.conn, ids))


def append_upload(store: Store, up: Upload) -> tuple[ImportReport, list[AppendResult]]:
    """Judge each game of ``up`` against the store and append the new events of all of
    them through the journal, in one record (on the writer's thread)."""
    report = up.report
    runs = up.runs
    stored = _stored_hashes(store, [run.events[0].game_id for run, _, _ in runs])
    appends: list[Append] = []
    planned: list[Checked] = []
    for run, ready, rows in runs:
        report.games += 1
        gid = run.events[0].game_id
        verdict = judge(
            run,
            stored.get(gid, []),
            lambda gid=gid: store.events(gid),  # type: ignore[misc]
            strict=up.strict,
            scan=up.scan,
            replayed=ready,
        )
        if verdict is None:
            report.skipped += 1
        elif isinstance(verdict, Conflict):
            report.conflicts.append(verdict.problem)
        elif isinstance(verdict, Finding):
            report.rejected.append(_placed(up.scan, verdict, run.index))
        else:
            assert verdict.projector is not None
            planned.append(verdict)
            if not stored.get(gid):
                holds_none(store, gid)  # just read: its append reads it no more
            stored[gid] = [e.hash for e in verdict.full]
            appends.append(
                Append(
                    gid,
                    verdict.new,
                    verdict.stored,
                    checked=verdict.projector,
                    kind="game_imported",
                    hashed=True,  # by read_upload, and judged against the stored chain
                    derived=rows if verdict is ready and not _opens(store, run) else None,
                )
            )
    if not appends:
        return report, []
    results = store.append_group(appends, defer_rows=True, journal=True)
    for c in planned:
        # the rules' projector ran in place (fast, but not one a later entry can fork):
        # a live entry to an imported game reads it again
        store.cache.pop(c.full[0].game_id, None)
        if c.stored:
            report.extended += 1
        else:
            report.imported += 1
        report.violations += c.violations
        report.events += len(c.new)
    return report, results


def _stored_hashes(store: Store, games: Sequence[str]) -> dict[str, list[str]]:
    """The stored hashes of those of ``games`` the store holds, in seq order."""
    wanted = list(dict.fromkeys(games))
    out: dict[str, list[str]] = {}
    unknown: list[str] = []
    for gid in wanted:
        cached = store.cache.get(gid)
        if cached is not None:
            out[gid] = [e.hash for e in cached.events]
        else:
            unknown.append(gid)
    if unknown:
        # the journal first, then DuckDB: a record leaves the journal only once DuckDB
        # holds it; only a game the journal names needs it settled (which waits for the
        # settler), every other one is read as DuckDB holds it
        journal = store.journal
        if journal is not None and not journal.games().isdisjoint(unknown):
            store.settle()
        if len(unknown) == 1:  # the usual upload, one game: half the time of the list's
            sql = "SELECT game_id, hash FROM events WHERE game_id = ? ORDER BY seq"
            args: list[object] = [unknown[0]]
        else:
            sql = (
                "SELECT game_id, hash FROM events WHERE game_id IN "
                "(SELECT unnest(?::VARCHAR[])) ORDER BY game_id, seq"
            )
            args = [unknown]
        rows = store.conn.execute(sql, args).fetchall()
        for gid, digest in rows:
            out.setdefault(gid, []).append(digest)
    return out


def _placed(found: FileScan, problem: Finding, run: int) -> Finding:
    if problem.line is not None:
        return problem
    return replace(problem, line=found.line_of_seq(run, problem.seq, problem.game_id))
