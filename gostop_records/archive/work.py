"""A unit of a build, on a worker: its games read, checked by the projector, written.

Each game goes through the store's own per-run checks (:mod:`gostop_records.store.game_runs`:
the hash chain, then the rules, strict unless asked otherwise) and the store's own row
builders (:func:`gostop_records.store.projections.derive`, the event rows of
:mod:`gostop_records.store.codec`), so the archive's tables are the store's row for row.
The unit's rows become one Parquet file per table in the month's partition, staged under a
temporary name and renamed when complete; the client publishes them once every unit of
the build is done.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from typing import Any

from .. import log as L
from ..errors import Finding, LogError
from ..events import Envelope
from ..store.codec import event_columns
from ..store.game_runs import Run, check_links, replay
from ..store.layout import LAYOUT_TABLES, arrow_table, part_name, part_path
from ..store.projections import derive, empty_rows
from .plan import Game, Span, Unit
from .target import STAGING, Target, is_local, open_fs

__all__ = ["MERGED", "Merge", "UnitResult", "build_unit", "merge_files"]

#: The staging subfolder of merged files.
MERGED = "merged"


@dataclass(slots=True)
class UnitResult:
    number: int
    month: str
    files: dict[str, str] = field(default_factory=dict)  # table -> its path, relative
    sizes: dict[str, int] = field(default_factory=dict)  # table -> bytes of its file
    manifest: list[tuple[Any, ...]] = field(default_factory=list)
    rejected: list[Finding] = field(default_factory=list)
    events: int = 0
    hands: int = 0


@contextlib.contextmanager
def _readable(span: Span) -> Iterator[tuple[str, tuple[int, int] | None]]:
    """A local path and span to read a span's lines from (a remote span is copied)."""
    fs, path = open_fs(span.path)
    if is_local(fs):
        yield path, (span.start, span.end)
        return
    fd, tmp = tempfile.mkstemp(prefix="gostop-span-", suffix=".jsonl")
    try:
        with os.fdopen(fd, "wb") as out, fs.open(path, "rb") as f:
            f.seek(span.start)
            out.write(f.read(span.end - span.start))
        yield tmp, None
    finally:
        with contextlib.suppress(OSError):
            os.unlink(tmp)


def _read(game: Game) -> tuple[list[Envelope], int | None]:
    """The game's envelopes from all its spans; the index of the first with a wrong hash."""
    envs: list[Envelope] = []
    bad: int | None = None
    for span in game.spans:
        try:
            with _readable(span) as (path, where):
                for env, ok in L.read_checked(path, span=where):
                    if not ok and bad is None:
                        bad = len(envs)
                    envs.append(env)
        except LogError as exc:
            line = span.line + exc.line - 1 if exc.line is not None else None
            raise LogError(
                exc.reason, file=span.path, line=line, seq=exc.seq, field=exc.field
            ) from None
    return envs, bad


def _line_of(game: Game, seq: int | None) -> int | None:
    """The line of a seq of the game (its spans hold one event per line)."""
    if seq is None:
        return game.spans[0].line
    for span in reversed(game.spans):
        if seq >= span.first_seq:
            return span.line + seq - span.first_seq
    return game.spans[0].line


def build_unit(unit: Unit, out: str, build: str, strict: bool = True) -> UnitResult:
    """Check every game of the unit and stage its rows as Parquet (on a worker)."""
    result = UnitResult(unit.number, unit.month)
    rows = empty_rows()
    accepted: list[Envelope] = []
    name = part_name(build, unit.number)
    for game in unit.games:
        first = game.spans[0]
        try:
            envs, bad = _read(game)
        except LogError as exc:
            result.rejected.append(
                Finding(
                    file=exc.file,
                    line=exc.line,
                    game_id=game.game_id,
                    seq=exc.seq,
                    reason=exc.what,
                )
            )
            continue
        broken = check_links(envs, bad)
        if broken is not None:
            seq, reason = broken
            result.rejected.append(
                Finding(
                    file=first.path,
                    game_id=game.game_id,
                    seq=seq,
                    reason=reason,
                    rule="hash_chain",
                    line=_line_of(game, seq),
                )
            )
            continue
        checked = replay(Run(first.path, 0, envs, bad), envs, 0, strict)
        if isinstance(checked, Finding):
            result.rejected.append(replace(checked, line=_line_of(game, checked.seq)))
            continue
        derive(checked.full, checked.game, checked.issues, rows=rows)
        accepted.extend(envs)
        result.manifest.append(
            (
                game.game_id,
                first.path,
                first.line,
                envs[-1].hash,
                len(envs),
                unit.month,
                part_path("events", unit.month, name),
                build,
            )
        )
    result.events = len(accepted)
    result.hands = len(rows["hands"])
    if not accepted:
        return result
    target = Target(out)
    tables: dict[str, list[Any]] = {"events": event_columns(accepted)}
    for table, cols in LAYOUT_TABLES.items():
        values = tables.get(table)
        if values is None:
            got = rows[table]
            if not got:
                continue
            values = [list(c) for c in zip(*got, strict=True)]
        final = part_path(table, unit.month, name)
        size = target.write_parquet(f"{STAGING}/{build}/{final}", arrow_table(cols, values, table))
        result.files[table] = final
        result.sizes[table] = size
    return result


@dataclass(frozen=True, slots=True)
class Merge:
    """Files of units of one table and month that become one file of the layout."""

    table: str
    month: str
    sources: tuple[str, ...]  # their paths in the layout (staged under the build)
    into: str  # the path of the file they become


def merge_files(job: Merge, out: str, build: str) -> str:
    """Write the merged file of a job into the build's staging folder (on a worker)."""
    target = Target(out)
    target.merge_parquet(
        f"{STAGING}/{build}/{MERGED}/{job.into}",
        [f"{STAGING}/{build}/{s}" for s in job.sources],
    )
    return job.into
