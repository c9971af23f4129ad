"""Projection rows of deferred appends (``append_group(defer_rows=True)``), held per game
until a writer takes them out and writes them in one transaction (:func:`flush_rows`).

The events and the heads chain are committed by the append itself; only the rows the
projection tables derive from them wait here, so a busy service pays DuckDB's cost per
statement once for many entries. A writer that fails puts what it took back, first in line
and merged with what was appended meanwhile: no game's rows are lost or written twice.
"""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING, Any

from .game_cache import PendingRows
from .heads import writing
from .writer import replace_changed_many, rows_of_hands, transaction

if TYPE_CHECKING:
    import duckdb

    from .handle import StoreHandle

__all__ = ["PendingRows", "flush_rows"]


def flush_rows(
    store: StoreHandle,
    limit: int | None = None,
    *,
    settle: bool = True,
    conn: duckdb.DuckDBPyConnection | None = None,
) -> int:
    """Write the projection rows deferred by ``append_group(defer_rows=True)``, of every
    game (or of the ``limit`` games waiting longest), in one transaction; returns the
    number of games. The journal's rows go first, in the same transaction (unless not
    ``settle``: projection rows ahead of the events in DuckDB are safe, since nothing reads
    the store before the journal is applied, a reopening included). On an error nothing
    is written and the rows stay pending.

    ``conn``: another connection of the store's database (``store.conn.cursor()``), for a
    second thread that writes while the store's own thread goes on appending through the
    journal (the service's settler): it holds the journal's turn, not the file's write
    turn, which the appends hold. A game's rows taken here and appended to meanwhile are
    pending again from the rows taken (see :class:`PendingRows`)."""
    j = store.journal
    mine = conn is None
    db = store.conn if conn is None else conn
    turn: contextlib.AbstractContextManager[Any] = (
        j.turn if j is not None else contextlib.nullcontext()
    )
    with writing(store.path) if mine else contextlib.nullcontext(), turn:
        taken = j.take() if settle and j is not None else None
        games = _take_pending(store, limit)
        if taken is None and not games:
            return 0
        try:
            with transaction(db):
                if taken is not None:
                    assert j is not None
                    j.insert(db, taken)
                if games:
                    replace_changed_many(
                        db,
                        [
                            (gid, p.hands, p.stored, rows_of_hands(p.rows, p.hands))
                            for gid, p in games
                        ],
                    )
        except BaseException:
            _put_back(store, games)
            raise
        _written(store, games)
        if taken is not None:
            assert j is not None
            j.committed(taken)
    return len(games)


def _take_pending(store: StoreHandle, limit: int | None) -> list[tuple[str, PendingRows]]:
    """The pending rows of the ``limit`` games waiting longest (or all), taken out."""
    with store.rows_lock:
        pending = store.pending_rows
        ids = list(pending)[:limit] if limit is not None else list(pending)
        store.rows_writing += len(ids)
        return [(gid, pending.pop(gid)) for gid in ids]


def _written(store: StoreHandle, games: list[tuple[str, PendingRows]]) -> None:
    with store.rows_lock:
        store.rows_writing -= len(games)


def _put_back(store: StoreHandle, games: list[tuple[str, PendingRows]]) -> None:
    """Rows taken but not written: pending again, first in line, merged with what was
    appended to the same games meanwhile (the rows as stored are the ones taken had)."""
    if not games:
        return
    with store.rows_lock:
        store.rows_writing -= len(games)
        pending = store.pending_rows
        back: dict[str, PendingRows] = {}
        for gid, p in games:
            now = pending.pop(gid, None)
            back[gid] = p if now is None else PendingRows(p.stored, p.hands | now.hands, now.rows)
        rest = dict(pending)
        pending.clear()
        pending.update(back)
        pending.update(rest)
