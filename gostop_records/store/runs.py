"""A run of one game's events read from a log, checked on its own: chain, rules, rows.

What an import learns of a run without asking the store: whether its hash chain holds,
whether the rules accept it (replayed after the events the store already holds), and the
rows it adds. The importer decides against the store; the worker processes of
:mod:`.parallel` call the same functions for games that start in the file, so a game is
checked the same way wherever it is checked.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from itertools import chain
from typing import TYPE_CHECKING

from .. import log as L
from ..errors import Finding, GostopError, LogError, ProjectionError, reason_at
from ..events import Envelope
from ..projector import Issue, Projector
from .codec import event_columns, event_row
from .projections import derive, empty_rows
from .rows import Prepared
from .writer import prepare_events, prepare_projection

if TYPE_CHECKING:
    from ..engine.game import GameState

__all__ = [
    "Checked",
    "Problem",
    "Run",
    "RunReader",
    "check_links",
    "first_bad_hash",
    "replay",
    "rows_of",
]


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
        reason = reason_at(self.reason, self.seq)
        return f"{', '.join(parts)}: {reason}{rule}" if parts else reason + rule

    def to_finding(self) -> Finding:
        """The problem as the library's one report type (rule ``import`` when none)."""
        return Finding(
            self.file, self.line, self.game_id, self.seq, self.rule or "import", self.reason
        )


@dataclass(slots=True)
class Run:
    """A run of consecutive events of one game, as read."""

    file: str
    index: int  # the run's place in its file (0, 1, ...), to read it again after a conflict
    events: list[Envelope]
    bad_hash: int | None  # index of the first event whose own hash is wrong


@dataclass(slots=True)
class Checked:
    """A game the rules accepted, waiting for its transaction."""

    run: Run
    new: list[Envelope]  # the events to insert
    full: list[Envelope]  # every event of the game after the import
    game: GameState
    issues: list[Issue]
    stored: int  # events the store held before
    violations: int
    retracted: list[int]  # seqs the projector undid (entry_retracted)


class RunReader:
    """The runs of a log file (or of a span of a JSON Lines log, see
    :func:`gostop_records.log.read_checked`): consecutive events of one game, each with the
    index of its first event whose own hash is wrong.

    A read error ends the runs; :attr:`error` then says where, and names the game whose
    run it cut short, which is not imported.
    """

    def __init__(self, path: L.PathLike, span: tuple[int, int] | None = None) -> None:
        self.path = path
        self.span = span
        self.error: Problem | None = None

    def __iter__(self) -> Iterator[tuple[list[Envelope], int | None]]:
        run: list[Envelope] = []
        bad: int | None = None
        try:
            for env, hash_ok in L.read_checked(self.path, span=self.span):
                if run and env.game_id != run[0].game_id:
                    yield run, bad
                    run, bad = [], None
                if not hash_ok and bad is None:
                    bad = len(run)
                run.append(env)
        except LogError as exc:
            gid = run[0].game_id if run else None
            more = f"; game {gid} (read up to seq {run[-1].seq}) is not imported" if run else ""
            self.error = Problem(
                os.fspath(self.path),
                gid,
                exc.seq,
                f"{exc.reason}{more}; the rest of the file was not read",
                line=exc.line,
            )
            return
        if run:
            yield run, bad


def first_bad_hash(run: Sequence[Envelope]) -> int | None:
    """The index of the first envelope whose hash does not match its content."""
    for i, env in enumerate(run):
        if not env.hash or L.compute_hash(env.prev, env) != env.hash:
            return i
    return None


def check_links(run: Sequence[Envelope], bad_hash: int | None) -> tuple[int, str] | None:
    """The first break in a run's seq order or hash chain: (seq, reason), by the log's one
    chain check (:func:`gostop_records.log.chain_break`); ``bad_hash`` is the index of the
    first envelope whose own hash is wrong (checked as the file was read)."""
    return L.chain_break(run, continues=True, hashes_checked=True, bad_hash=bad_hash)


def replay(run: Run, full: list[Envelope], stored: int, strict: bool) -> Checked | Problem:
    """The game through the rules: its first ``stored`` events as stored (lenient), the
    run's new ones strict or lenient as asked."""
    gid = run.events[0].game_id
    try:
        p = Projector(strict=False, inplace=True)
        for env in full[:stored]:
            p.feed(env)
        p.strict = strict
        for env in full[stored:]:
            p.feed(env)
        if p.game is None:
            raise ProjectionError(1, "game_started", "the log does not start with game_started")
        new = [env for env in run.events if env.seq > stored]
        for env in new:
            if type(env) is not Envelope:
                event_row(env)  # a stored form a row cannot keep is refused here, for this game
    except ProjectionError as exc:
        return Problem(run.file, gid, exc.seq, exc.reason, exc.rule)
    except GostopError as exc:
        seq = getattr(exc, "seq", None)
        reason = getattr(exc, "reason", None) or str(exc)
        return Problem(run.file, gid, seq, reason)
    violations = sum(
        1 for i in p.issues if i.severity == "violation" and (i.seq is None or i.seq > stored)
    )
    return Checked(run, new, full, p.game, p.issues, stored, violations, p.retracted)


def rows_of(checked: Sequence[Checked]) -> tuple[Prepared, dict[str, Prepared]]:
    """The event rows and projection rows of checked games, ready to insert.

    A game checked twice (a run and its continuation) is derived from its last check only.
    """
    last: dict[str, Checked] = {}
    for c in checked:
        last[c.full[0].game_id] = c
    rows = empty_rows()
    for c in last.values():
        derive(c.full, c.game, c.issues, rows=rows, retracted=c.retracted)
    events = event_columns(list(chain.from_iterable(c.new for c in checked)))
    return prepare_events(events), prepare_projection(rows)
