"""Deriving the projection tables again from the events, and the fresh rows for a check.

The projection tables are caches of the events. A :class:`Rebuild` derives all of them
into new tables beside the live ones (:mod:`.staging`), a group of games at a time, then
swaps them in, in one transaction (a crash, a failure or a cancel before it leaves the live
tables as they were): ``gostop db rebuild`` runs it on a store no server holds
(:func:`rebuild`), and a running server runs it beside its entries, the bulk of the work on
a connection and a thread of its own, only the last events and the swap on its writer
thread (:mod:`gostop_records.service.rebuilds`). Events appended meanwhile are found
through the store's heads chain, which has an entry for every append: the games with
entries past the last one the rebuild looked at are derived again.

:func:`fresh_rows` gives the rows a rebuild would write, which :mod:`.verify` compares
with the stored ones. A rebuild never hides a loss: when the store's heads chain
(:mod:`.heads`) says a game had events the store no longer holds, it refuses
(:class:`~.heads.LossError`) unless the loss is accepted, and both the accepted loss and
the rebuild are entries of that chain. Stored games are replayed leniently: they were
validated when they were written, and a game accepted in lenient mode must still project.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .. import log as L
from ..events import Envelope
from ..plain import Record
from . import staging
from .connection import bounded_memory
from .errors import StoreError
from .heads import Loss, LossError, losses, tip, writing
from .heads import record as record_head
from .people import rebuild_people
from .projections import empty_rows
from .stored_events import (
    GROUP_EVENTS,
    Events,
    Failure,
    fresh_rows,
    game_groups,
    game_head,
)
from .writer import clear_games, insert_projection, transaction

if TYPE_CHECKING:
    import duckdb

    from .handle import StoreHandle

__all__ = [
    "GROUP_EVENTS",
    "Events",
    "Failure",
    "Rebuild",
    "RebuildCancelled",
    "RebuildProgress",
    "RebuildReport",
    "catch_up",
    "fresh_rows",
    "game_groups",
    "games_behind",
    "rebuild",
]


@dataclass(slots=True)
class RebuildReport:
    games: int = 0
    rows: dict[str, int] = field(default_factory=dict)
    #: Games whose events do not project (see ``gostop db verify``); they have no rows.
    failed: list[Failure] = field(default_factory=list)
    #: Losses accepted with ``accept_loss``, recorded in the heads chain.
    accepted: list[Loss] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "games": self.games,
            "rows": self.rows,
            "accepted_losses": [x.to_dict() for x in self.accepted],
            "failed": [
                {"game_id": f.game_id, "seq": f.seq, "reason": f.reason} for f in self.failed
            ],
        }


class RebuildCancelled(StoreError):
    """A rebuild stopped before its swap (asked to, or its server stopping)."""


@dataclass(slots=True)
class RebuildProgress(Record):
    """How far a rebuild is, for whoever watches it from another thread: ``state`` is
    ``deriving`` (the games the store held at the start), ``catching_up`` (the games
    recorded to since), ``swapping``, then ``done``, ``failed`` or ``cancelled``;
    ``behind_events`` counts the events recorded since their game's rows were derived,
    which the new tables do not hold yet (the lag)."""

    state: str = "deriving"
    games: int = 0
    total: int = 0
    behind_events: int = 0
    catch_up_rounds: int = 0
    started_at: str = field(default_factory=L.now)
    ended_at: str | None = None
    error: str | None = None

    DERIVED = ("running",)

    @property
    def running(self) -> bool:
        return self.ended_at is None


#: Catch-up rounds off the writer thread at most, and the events behind at which they
#: stop: the last ones are derived on the writer thread, in the swap's transaction.
ROUNDS = 3
FEW_EVENTS = 2_000


class Rebuild:
    """Every projection table derived into new tables, then swapped in (see the module
    docstring). :meth:`derive` does the bulk on ``conn`` (a cursor of the store's database
    when another thread writes the store meanwhile; the store's own by default), and
    :meth:`finish` derives what was recorded since and swaps, where the store's writes
    run, holding the journal's turn; :meth:`abandon` drops the new tables after a failure.
    ``progress(done, total)`` follows the games derived."""

    def __init__(
        self,
        store: StoreHandle,
        *,
        conn: duckdb.DuckDBPyConnection | None = None,
        accept_loss: bool = False,
        progress: Callable[[int, int], None] | None = None,
    ) -> None:
        self.store = store
        self.source = Events(conn if conn is not None else store.conn, store.path)
        self.accept_loss = accept_loss
        self.progress = progress
        self.status = RebuildProgress()
        #: The version of each game the new tables hold; the games that did not project.
        self.covered: dict[str, int] = {}
        self.failed: dict[str, Failure] = {}
        #: Every append up to this heads entry is in the new tables.
        self.mark = 0
        self.found: list[Loss] = []
        self._cancelled = threading.Event()

    def cancel(self) -> None:
        """Stop before the swap (the live tables stay as they are)."""
        self._cancelled.set()

    def _check(self) -> None:
        if self._cancelled.is_set():
            raise RebuildCancelled("the rebuild was cancelled before its swap")

    def derive(self) -> None:
        """Every game into the new tables, then a few rounds for those recorded to since."""
        conn = self.source.conn
        self.found = losses(conn)
        if self.found and not self.accept_loss:
            raise LossError(self.found)
        staging.create(conn)
        self.mark = tip(conn)[0]  # before the games are read: every later append is past it
        groups = list(game_groups(self.source))
        self.status.total = sum(len(g) for g in groups)
        for group in groups:
            self._check()
            self._derive(group, again=False)
            self.status.games += len(group)
            self.status.behind_events = sum(self._behind(self.mark).values())
            if self.progress is not None:
                self.progress(self.status.games, self.status.total)
        self.status.state = "catching_up"
        while self.status.catch_up_rounds < ROUNDS:
            self._check()
            mark = tip(conn)[0]
            behind = self._behind(self.mark)
            self.status.behind_events = sum(behind.values())
            if self.status.behind_events <= FEW_EVENTS:
                break
            self._derive(list(behind), again=True)
            self.mark = mark
            self.status.catch_up_rounds += 1

    def _behind(self, since: int, conn: duckdb.DuckDBPyConnection | None = None) -> dict[str, int]:
        """The games appended to after heads entry ``since`` whose new rows are behind
        their events: the events the rows lack, by game."""
        rows = (conn or self.source.conn).execute(
            "SELECT game_id, max(seq) FROM heads WHERE entry > ? AND game_id IS NOT NULL "
            "GROUP BY game_id",
            [since],
        )
        out = {}
        for gid, seq in rows.fetchall():
            lack = int(seq) - self.covered.get(gid, 0)
            if lack > 0:
                out[str(gid)] = lack
        return out

    def _derive(self, game_ids: list[str], *, again: bool) -> None:
        """These games' rows into the new tables (``again``: replacing those they hold)."""
        conn = self.source.conn
        failed: list[Failure] = []
        rows, decoded = fresh_rows(self.source, game_ids, failed)
        with transaction(conn):
            if again:
                staging.clear(conn, game_ids)
            staging.insert(conn, rows)
        self._covered(game_ids, decoded, failed, conn)

    def _covered(
        self,
        game_ids: Sequence[str],
        decoded: dict[str, list[Envelope]],
        failed: list[Failure],
        conn: duckdb.DuckDBPyConnection,
    ) -> None:
        for gid in game_ids:
            self.failed.pop(gid, None)
        for f in failed:
            self.failed[f.game_id] = f
        for gid, envs in decoded.items():
            self.covered[gid] = envs[-1].seq if envs else 0
        for gid in set(game_ids) - set(decoded):  # its events do not decode
            self.covered[gid] = game_head(conn, gid)[0]

    def finish(self) -> RebuildReport:
        """On the store's own connection, where its writes run, with the journal's rows and
        the pending projection rows written: the games recorded to since the last round
        (their rows as the live appends derived them, when the store holds them at their
        head; else derived from the events), the accepted losses, the swap and its heads
        entry, in one transaction."""
        self._check()
        self.status.state = "swapping"
        store, conn = self.store, self.store.conn
        with writing(store.path):
            behind = list(self._behind(self.mark, conn))
            rows = empty_rows()
            derive_ids = []
            for gid in behind:
                cached = store.cache.get(gid)
                if cached is not None and cached.version == game_head(conn, gid)[0]:
                    for table, part in cached.rows.items():
                        rows[table].extend(part)
                else:
                    derive_ids.append(gid)
            failed: list[Failure] = []
            decoded: dict[str, list[Envelope]] = {}
            if derive_ids:
                fresh, decoded = fresh_rows(Events(conn, store.path), derive_ids, failed)
                for table, part in fresh.items():
                    rows[table].extend(part)
            report = RebuildReport(accepted=self.found)
            with transaction(conn):
                staging.clear(conn, behind)
                staging.insert(conn, rows)
                for loss in self.found:
                    detail = {
                        "had_events": loss.had,
                        "had_head": loss.head,
                        "entry": loss.entry,
                        "loss": loss.kind,
                    }
                    now = game_head(conn, loss.game_id)
                    record_head(conn, "loss_accepted", [(loss.game_id, now[0], now[1])], detail)
                self._covered(derive_ids, decoded, failed, conn)
                for gid in behind:
                    if gid not in decoded and gid not in self.failed:
                        self.covered[gid] = store.cache[gid].version
                report.games = len(self.covered)
                report.failed = sorted(self.failed.values(), key=lambda f: f.game_id)
                report.rows = staging.counts(conn)
                staging.swap(conn)
                rebuild_people(conn)
                done = {"games": report.games, "failed": len(report.failed), "rows": report.rows}
                record_head(conn, "rebuild", [(None, 0, None)], done)
        self.status.behind_events = 0
        self._end("done")
        return report

    def abandon(self, exc: BaseException | None = None) -> None:
        """After a failure or a cancel: the new tables dropped, the live ones untouched."""
        with contextlib.suppress(Exception):  # the store may be closed by now
            staging.drop(self.source.conn)
        cancelled = isinstance(exc, RebuildCancelled) or self._cancelled.is_set()
        if exc is not None and not cancelled:
            self.status.error = str(exc) or type(exc).__name__
        self._end("cancelled" if cancelled else "failed")

    def _end(self, state: str) -> None:
        self.status.state = state
        self.status.ended_at = L.now()


def rebuild(
    store: StoreHandle,
    *,
    accept_loss: bool = False,
    progress: Callable[[int, int], None] | None = None,
) -> RebuildReport:
    """Replace every projection table of a store no other thread writes: the bulk and the
    swap on its own connection, holding the file's write turn, within the memory that
    passes over the whole store keep to (:func:`.connection.bounded_memory`)."""
    job = Rebuild(store, accept_loss=accept_loss, progress=progress)
    with bounded_memory(store.conn, store.path), writing(store.path):
        try:
            job.derive()
            return job.finish()
        except BaseException as exc:
            job.abandon(exc)
            raise


def games_behind(conn: Any) -> list[str]:
    """The games whose projection rows do not reach their latest event (``positions``)."""
    found = conn.execute(
        """
        SELECT e.game_id FROM (SELECT game_id, max(seq) AS n FROM events GROUP BY game_id) e
        LEFT JOIN positions p USING (game_id)
        WHERE p.seq IS DISTINCT FROM e.n ORDER BY e.game_id
        """
    ).fetchall()
    return [str(gid) for (gid,) in found]


def catch_up(store: StoreHandle) -> list[str]:
    """Derive again the rows of the games whose ``positions`` row is behind their last
    event (or missing): a server that defers its projection writes and died before one.
    Only those games' rows are replaced, in one transaction; the events are not touched."""
    conn = store.conn
    behind = games_behind(conn)
    if not behind:
        return []
    failed: list[Failure] = []
    rows, _decoded = fresh_rows(store, behind, failed)
    with writing(store.path), transaction(conn):
        clear_games(conn, behind)
        insert_projection(conn, rows)
    for gid in behind:
        store.cache.pop(gid, None)
    return behind
