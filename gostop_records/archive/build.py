"""``gostop archive build``: logs into a Parquet archive on a Dask cluster.

Two passes of ``dask.bag`` over the JSON Lines: the first scans pieces of the logs for their
games (:func:`.plan.scan_piece`), the client plans the units (:func:`.plan.plan`), the
second checks and writes each unit (:func:`.work.build_unit`). The client then publishes
the staged files, writes the build's manifest and, last, its record (see :mod:`.target`).
Without a scheduler address, a LocalCluster of worker processes on this machine runs it.
"""

from __future__ import annotations

import datetime as _dt
import secrets
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from ..errors import Finding, GostopError
from ..plain import Record
from ..store.layout import (
    BUILDS,
    MANIFEST,
    MANIFEST_COLUMNS,
    arrow_table,
    build_record,
    part_name,
    part_path,
)
from . import plan as P
from .target import STAGING, Target
from .work import MERGED, Merge, UnitResult, build_unit, merge_files

__all__ = ["ArchiveError", "BuildReport", "build_archive", "require_dask"]


class ArchiveError(GostopError):
    """The archive cannot be built or read: the message says why and what to do."""


def require_dask() -> None:
    """Dask and distributed, or a clear message naming the extra that brings them."""
    try:
        import dask.bag  # noqa: F401
        import distributed  # noqa: F401
        import pyarrow  # noqa: F401
    except ImportError as exc:
        raise ArchiveError(
            f"the archive needs Dask, distributed and pyarrow ({exc.name} is missing): "
            "pip install 'gostop-records[archive]'"
        ) from None


@dataclass(slots=True)
class BuildReport(Record):
    directory: str
    build: str | None = None  # None when there was nothing new to write
    games: int = 0
    hands: int = 0
    events: int = 0
    skipped: int = 0
    duplicates: int = 0
    units: int = 0
    files: dict[str, list[str]] = field(default_factory=dict)
    rejected: list[Finding] = field(default_factory=list)
    changed: list[Finding] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)  # leftovers of builds that never committed

    @property
    def ok(self) -> bool:
        return not self.rejected and not self.changed

    def summary(self) -> str:
        built = f"build {self.build}: " if self.build else "nothing new: "
        return (
            f"{built}{self.games} game(s), {self.hands} hand(s), {self.events} event(s) "
            f"archived in {sum(len(f) for f in self.files.values())} file(s); "
            f"{self.skipped} already archived, {self.duplicates} duplicate(s), "
            f"{len(self.changed)} changed, {len(self.rejected)} rejected"
        )


def _archived(target: Target, records: list[dict[str, Any]]) -> dict[str, tuple[str, int]]:
    """game_id -> (head, events) of every game in a committed build's manifest."""
    import pyarrow.parquet as pq

    out: dict[str, tuple[str, int]] = {}
    for rec in records:
        with target.fs.open(target.path(f"{MANIFEST}/{rec['build']}.parquet"), "rb") as f:
            t = pq.read_table(f, columns=["game_id", "head", "events"])
        for gid, head, n in zip(*(t.column(c).to_pylist() for c in t.column_names), strict=True):
            out[gid] = (head, n)
    return out


def new_build_id() -> str:
    """Sortable by time, unique, without dashes (file names split on them)."""
    return _dt.datetime.now(_dt.UTC).strftime("%Y%m%dT%H%M%SZ") + secrets.token_hex(3)


def build_archive(
    logs: Iterable[str],
    out: str,
    *,
    scheduler: str | None = None,
    workers: int | None = None,
    client: Any = None,
    strict: bool = True,
    piece_bytes: int = P.PIECE_BYTES,
    unit_events: int = P.UNIT_EVENTS,
    min_unit_events: int = P.MIN_UNIT_EVENTS,
    file_bytes: int = P.FILE_BYTES,
    progress: Callable[[str], None] | None = None,
    units_done: Callable[[int, int], None] | None = None,
) -> BuildReport:
    """Build (or extend) the archive at ``out`` from JSON Lines logs.

    ``client``: a ``distributed.Client`` to run on; else one is made for ``scheduler`` (an
    address such as ``tcp://host:8786``) or for a LocalCluster of ``workers`` processes.
    A unit of work holds up to ``unit_events`` events of one month; a month is cut finer,
    down to ``min_unit_events``, when that gives every worker two units. The units' files
    of a table and month are then merged into files of up to about ``file_bytes``.
    ``progress(text)`` says each stage; ``units_done(done, total)`` follows the units
    built, as each worker finishes one.
    """
    require_dask()
    say = progress or (lambda _text: None)
    target = Target(out)
    records = target.records()
    committed = {r["build"] for r in records}
    report = BuildReport(out)
    report.removed = target.clean(committed)
    if report.removed:
        say(f"removed {len(report.removed)} file(s) left by a build that did not finish")
    archived = _archived(target, records)
    files, problems = P.log_files(logs)
    report.rejected.extend(problems)
    with _Client(client, scheduler, workers) as c:
        pieces = [p for path, size in files for p in P.pieces(path, piece_bytes, size)]
        scans = _bag_map(c, P.scan_piece, pieces) if pieces else []
        # asked of the scheduler now: the client's cached view of it can still miss workers
        # that joined after it connected
        nworkers = max(1, len(c.nthreads()))
        planned = P.plan(
            scans,
            archived,
            unit_events=unit_events,
            min_units=2 * nworkers,
            min_unit_events=min_unit_events,
        )
        report.rejected.extend(planned.rejected)
        report.changed.extend(planned.changed)
        report.skipped, report.duplicates = planned.skipped, planned.duplicates
        say(
            f"scanned {len(files)} log(s): {planned.games} game(s) to build in "
            f"{len(planned.units)} unit(s) on {nworkers} worker(s)"
        )
        if not planned.units and report.ok:
            return report
        build = new_build_id()
        results: list[UnitResult] = (
            _bag_map(
                c,
                build_unit,
                planned.units,
                done=units_done,
                out=target.url,
                build=build,
                strict=strict,
            )
            if planned.units
            else []
        )
        jobs = merges(results, build, file_bytes)
        several = [j for j in jobs if len(j.sources) > 1]
        if several:
            say(f"merging small files into {len(several)} file(s)")
            _bag_map(c, merge_files, several, out=target.url, build=build)
    _commit(target, build, results, jobs, report)
    return report


def merges(results: list[UnitResult], build: str, file_bytes: int) -> list[Merge]:
    """The files of the layout, each of the units' files of one table and month in a row
    up to about ``file_bytes``: a unit's events are tens of MB, its games a few hundred KB,
    and gathered they are files of the size readers want."""
    by: dict[tuple[str, str], list[tuple[int, str, int]]] = {}
    for r in sorted(results, key=lambda r: r.number):
        for table, rel in r.files.items():
            by.setdefault((table, r.month), []).append((r.number, rel, r.sizes[table]))
    jobs: list[Merge] = []
    for (table, month), items in by.items():
        group: list[tuple[int, str, int]] = []
        held = 0
        for item in [*items, None]:
            if group and (item is None or held + item[2] > file_bytes):
                into = part_path(table, month, part_name(build, group[0][0]))
                jobs.append(Merge(table, month, tuple(rel for _, rel, _ in group), into))
                group, held = [], 0
            if item is not None:
                group.append(item)
                held += item[2]
    return jobs


class _Client:
    """The client to run on: the one given, or one made (and closed) here."""

    def __init__(self, given: Any, scheduler: str | None, workers: int | None) -> None:
        self.given, self.scheduler, self.workers = given, scheduler, workers
        self.made: list[Any] = []

    def __enter__(self) -> Any:
        if self.given is not None:
            return self.given
        from distributed import Client, LocalCluster

        if self.scheduler:
            try:
                c = Client(self.scheduler, timeout="20s")
            except OSError as exc:
                raise ArchiveError(
                    f"cannot reach the Dask scheduler at {self.scheduler}: {exc}"
                ) from None
            self.made.append(c)
            return c
        cluster = LocalCluster(
            n_workers=self.workers or _cores(),
            threads_per_worker=1,
            processes=True,
            dashboard_address=":0",
        )
        c = Client(cluster)
        self.made.extend([c, cluster])
        return c

    def __exit__(self, *exc: object) -> None:
        for thing in self.made:
            thing.close()


def _cores() -> int:
    import os

    return max(1, min(os.cpu_count() or 1, 8))


def _bag_map(
    client: Any,
    fn: Callable[..., Any],
    items: list[Any],
    *,
    done: Callable[[int, int], None] | None = None,
    **kwargs: Any,
) -> list[Any]:
    """``fn`` over the items as a dask bag, one partition per item, on the client;
    ``done(finished, total)`` as each partition finishes.

    Waits for every partition to finish, failed or not, before it returns or raises: no
    task of a failed build is still writing when the next build cleans up after it.
    """
    import dask.bag as db
    from distributed import as_completed, futures_of, wait

    bag = client.persist(db.from_sequence(items, npartitions=len(items)).map(fn, **kwargs))
    futures = futures_of(bag)
    if done is not None:
        for k, _ in enumerate(as_completed(futures), 1):
            done(k, len(futures))
    wait(futures)
    failed = [f for f in futures if f.status != "finished"]
    if failed:
        exc = failed[0].exception() if failed[0].status == "error" else None
        if isinstance(exc, GostopError):
            raise exc
        raise ArchiveError(
            f"the build failed on a worker ({type(exc).__name__}: {exc}); nothing of this "
            "build was committed: run it again to complete it"
        )
    return list(bag.compute())


def _commit(
    target: Target,
    build: str,
    results: list[UnitResult],
    jobs: list[Merge],
    report: BuildReport,
) -> None:
    """Publish the staged files, write the manifest, then the build's record."""
    files: dict[str, list[str]] = {}
    events_in: dict[str, str] = {}  # a unit's events file -> the file of the layout
    for j in jobs:
        staged = j.sources[0] if len(j.sources) == 1 else f"{MERGED}/{j.into}"
        target.move(f"{STAGING}/{build}/{staged}", j.into)
        files.setdefault(j.table, []).append(j.into)
        if j.table == "events":
            events_in.update((src, j.into) for src in j.sources)
    manifest: list[tuple[Any, ...]] = []
    for r in sorted(results, key=lambda r: r.number):
        for row in r.manifest:
            manifest.append((*row[:6], events_in.get(row[6], row[6]), *row[7:]))
        report.rejected.extend(r.rejected)
        report.events += r.events
        report.hands += r.hands
    report.games = len(manifest)
    report.units = len(results)
    import io

    import pyarrow.parquet as pq

    values = [list(c) for c in zip(*manifest, strict=True)] or [[] for _ in MANIFEST_COLUMNS]
    table = arrow_table(MANIFEST_COLUMNS, values)
    buf = io.BytesIO()
    pq.write_table(table, buf, compression="zstd")
    target.write_bytes(f"{MANIFEST}/{build}.parquet", buf.getvalue())
    record = build_record(
        build,
        files,
        finished=_dt.datetime.now(_dt.UTC).isoformat(timespec="seconds"),
        games=report.games,
        events=report.events,
        hands=report.hands,
        rejected=[p.to_dict() for p in report.rejected],
        changed=[p.to_dict() for p in report.changed],
    )
    target.write_bytes(f"{BUILDS}/{build}.json", record)
    report.build = build
    report.files = files
    if target.fs.exists(target.path(STAGING)):
        target.fs.rm(target.path(STAGING), recursive=True)
