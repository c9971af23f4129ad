"""The transactions of an import: whole games gathered into a group
(:class:`TransactionGroup`, bounded by :data:`DEFAULT_BATCH_EVENTS`), written on the writer thread
(:class:`PendingWrite`) in one transaction each, and when the row groups they leave are ripe for a
checkpoint (:func:`ripe`).
"""

from __future__ import annotations

from collections.abc import Mapping
from concurrent.futures import Future
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .bulk import Prepared
from .game_runs import (
    Run,
)
from .heads import record as record_heads
from .heads import writing
from .writer import (
    clear_games,
    insert_events,
    insert_projection,
    transaction,
)

if TYPE_CHECKING:
    pass

__all__ = ["DEFAULT_BATCH_EVENTS", "ROW_GROUP_ROWS", "PendingWrite", "TransactionGroup", "ripe"]


#: Events per transaction at most. DuckDB writes an insert of more than a row group
#: straight to the database file; smaller ones go through its write-ahead log and are copied
#: again at the next checkpoint, which costs the writer about twice the time.
DEFAULT_BATCH_EVENTS = 250_000


#: DuckDB's rows per row group (see :func:`ripe`).
ROW_GROUP_ROWS = 122_880


@dataclass(slots=True)
class TransactionGroup:
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
class PendingWrite:
    """A transaction being written on the writer thread, through a connection of its own."""

    group: TransactionGroup
    conn: Any
    done: Future[None]

    def wait(self) -> BaseException | None:
        """The write's error, if it failed; its connection is closed either way."""
        try:
            return self.done.exception()
        finally:
            self.conn.close()
