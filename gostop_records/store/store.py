"""The :class:`Store`: one DuckDB file of game events and their projection tables.

One process owns the file. While a :class:`Store` is open for writing, DuckDB refuses the
file to every other process, readers included, and the store reports that as a
:class:`~gostop_records.store.errors.StoreLockedError` naming the file; close the store (or
end the program) to hand the file over. Inside one process several stores may be open on
the same file (they share DuckDB's instance); expected versions keep their appends apart.
Read-only stores cannot be mixed with writable ones in one process (a DuckDB rule).

A writer that journals its appends (:meth:`Store.open_journal`, the table service) leaves
their rows in a journal beside the file until it settles them (on its own thread, or on a
second thread with a second connection: :meth:`Store.flush_rows`); every open of the store
for writing applies a journal left behind, and a read-only open first has it applied (see
:mod:`.journal`), so no reader misses an acknowledged append.

The store knows SQL, not rules: validation is the projector's, hashing is the log's.
"""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .. import events as E
from ..closing import Closing
from .connection import connect, default_path
from .errors import StoreError
from .migrations import migrate
from .stored_events import game_events, game_head, games_events

if TYPE_CHECKING:
    import duckdb

    from ..integrity.seals import Seal
    from ..projector import Projector
    from .append import Append, AppendResult
    from .export import ExportReport
    from .game_cache import GameCache, PendingRows
    from .importer import ImportProgress, ImportReport
    from .journal import Journal
    from .query import QueryResult
    from .rebuild import RebuildReport
    from .repair import RepairReport
    from .sandbox import QueryLimits
    from .verify import VerifyReport

__all__ = ["Store", "open_for_queries"]


class Store(Closing):
    """A store file: ``Store(path)`` opens (and creates or upgrades) it; use it as a context.

    ``path`` defaults to ``$GOSTOP_DB`` or ``gostop.duckdb`` in the current folder.
    ``read_only`` opens an existing file for queries, stats, verify and export only.
    """

    def __init__(
        self,
        path: str | os.PathLike[str] | None = None,
        *,
        read_only: bool = False,
        settings: Mapping[str, Any] | None = None,  # locked DuckDB settings, see .query
    ):
        self.path = Path(path) if path is not None else default_path()
        self.read_only = read_only
        #: The journal of this store's appends, when it keeps one (:meth:`open_journal`).
        self.journal: Journal | None = None
        if read_only:
            _apply_journal_first(self.path)
        self._conn: duckdb.DuckDBPyConnection | None = connect(
            self.path, read_only=read_only, settings=settings
        )
        #: Per-game projector state for live appends (see :mod:`.append`).
        self.cache: dict[str, GameCache] = {}
        #: Projection rows of deferred appends, not written yet (see :meth:`flush_rows`),
        #: taken and put back under ``rows_lock`` (a second thread may write them); the
        #: number of games whose rows are being written, taken out of ``pending_rows``.
        self.pending_rows: dict[str, PendingRows] = {}
        self.rows_lock = threading.Lock()
        self.rows_writing = 0
        try:
            self._check_schema()
            if not read_only:
                self._recover()
        except BaseException:
            self.close()
            raise

    def _recover(self) -> None:
        """Apply a journal left behind by a writer that died with rows not yet in DuckDB,
        then derive the projection rows of the games it held."""
        from .heads import writing
        from .journal import active, recover

        if active(self.path) is not None:  # this process keeps it: its rows, settled
            self.settle()
            return
        with writing(self.path):
            if recover(self.conn, self.path):
                self.catch_up_rows()

    def open_journal(self) -> None:
        """Journal this store's journaled appends (``append_group(journal=True)``) from now
        on: acknowledged at one sync of the journal, written to DuckDB by :meth:`settle`."""
        from .journal import Journal

        self._writable()
        if self.journal is None:
            self.journal = Journal(self.path)

    def journal_turn(self) -> contextlib.AbstractContextManager[Any]:
        """Keep whoever writes the journal's rows to DuckDB (a settler thread) out while
        this thread writes to DuckDB itself: both extend the heads chain."""
        return self.journal.turn if self.journal is not None else contextlib.nullcontext()

    def settle(self) -> int:
        """Write the rows the journal holds to DuckDB (one transaction) and empty it;
        returns the number of journal records. Every reading or writing method settles
        first."""
        from .heads import writing
        from .journal import active

        j = self.journal if self.journal is not None else active(self.path)
        if j is None or not j.records:
            return 0

        with writing(self.path):
            return j.apply(self.conn)

    def settle_for(self, game_id: str) -> None:
        """:meth:`settle`, when the journal holds events of ``game_id`` (only then does a
        read of that game need it: a record leaves the journal once DuckDB holds it, so a
        game the journal does not name is read whole from DuckDB, without waiting for the
        thread that writes the journal's rows)."""
        j = self.journal
        if j is None or game_id in j.games():
            self.settle()

    def _check_schema(self) -> None:
        from .schema import SCHEMA_VERSION, file_version

        if self.read_only:
            version = file_version(self.conn)
            if version is None:
                raise StoreError(f"{self.path}: an empty DuckDB file, not a gostop store")
            if version != SCHEMA_VERSION:
                raise StoreError(
                    f"{self.path}: schema version {version}, this version uses "
                    f"{SCHEMA_VERSION}: open it for writing once (gostop db rebuild) to "
                    "upgrade it"
                    if version < SCHEMA_VERSION
                    else f"{self.path}: schema version {version} is newer than this version of "
                    f"gostop reads ({SCHEMA_VERSION})"
                )
            return
        if any(step not in (3, 7) for step in migrate(self.conn)):
            # older files have events but no (or older) projection rows: derive them now
            # (the step from 3 only chains heads and the step from 7 drops events.prev:
            # they leave the projection rows as they are)
            self.rebuild()

    # --- plumbing --------------------------------------------------------------------

    @property
    def conn(self) -> duckdb.DuckDBPyConnection:
        if self._conn is None:
            raise StoreError(f"{self.path}: the store is closed")
        return self._conn

    def close(self) -> None:
        """Close the file (and hand it over to other processes), after writing the
        projection rows still pending."""
        if self._conn is not None:
            # a journal that cannot be settled stays on disk: the next open applies it
            with contextlib.suppress(Exception):  # derived rows: catch_up_rows mends them
                self.flush_rows()
            self._conn.close()
            self._conn = None
        if self.journal is not None:
            self.journal.close()
            self.journal = None
        self.cache.clear()

    def _writable(self) -> None:
        if self.read_only:
            raise StoreError(f"{self.path}: opened read-only")

    # --- reading ---------------------------------------------------------------------

    def head(self, game_id: str) -> tuple[int, str | None]:
        """(version, last hash) of a game: its number of events and the hash of the last."""
        self.settle_for(game_id)
        return game_head(self.conn, game_id)

    def version(self, game_id: str) -> int:
        """The number of stored events of a game (0 for an unknown game)."""
        return self.head(game_id)[0]

    def seals(self, game_ids: Sequence[str] | None = None) -> list[Seal]:
        """The seal of each game's head (every game, or these), by game id."""
        from ..integrity.seals import Seal

        self.settle()
        sql = (
            "SELECT game_id, max(seq), arg_max(hand, seq), arg_max(hash, seq) FROM events "
            + ("WHERE game_id IN (SELECT unnest(?::VARCHAR[])) " if game_ids is not None else "")
            + "GROUP BY game_id ORDER BY game_id"
        )
        params = [list(game_ids)] if game_ids is not None else []
        rows = self.conn.execute(sql, params).fetchall()
        return [Seal(g, int(n), h, d) for g, n, h, d in rows]

    def heads_tip(self) -> tuple[int, str]:
        """(entry, hash) of the last entry of the store's heads chain (see :mod:`.heads`)."""
        from .heads import tip

        self.settle()
        return tip(self.conn)

    def game_ids(self) -> list[str]:
        self.settle()
        return [
            r[0]
            for r in self.conn.execute(
                "SELECT DISTINCT game_id FROM events ORDER BY game_id"
            ).fetchall()
        ]

    def events(self, game_id: str, until_seq: int | None = None) -> list[E.Envelope]:
        """A game's envelopes in seq order, decoded as from a log file."""
        self.settle_for(game_id)
        return game_events(self.conn, game_id, until_seq, source=str(self.path))

    def games_events(self, game_ids: Sequence[str]) -> dict[str, list[tuple[Any, ...]]]:
        """The stored rows of several games, grouped by game in seq order (rows hold no
        ``prev``: :func:`.codec.rows_to_envelopes` gives it back)."""
        self.settle()
        return games_events(self.conn, game_ids)

    # --- writing ---------------------------------------------------------------------

    def append(
        self,
        game_id: str,
        envelopes_or_payloads: Iterable[Any],
        expected_version: int | None,
        *,
        strict: bool = True,
        by: str = "api",
        at: str | None = None,
        also: Callable[[duckdb.DuckDBPyConnection, Sequence[E.Envelope]], None] | None = None,
        checked: Projector | None = None,
    ) -> AppendResult:
        """Append events to a game in one durable transaction; returns what was written.

        Give payloads (seq, hand, time and hash are filled in, ``by`` and ``at`` as given)
        or envelopes (their seq must follow the stored ones; sealed ones must continue the
        stored hash chain, unsealed ones are sealed). ``expected_version`` is the number of
        events the caller saw (0 for a new game); ``None`` skips the check.

        Raises :class:`ConcurrencyError` when the game is at another version,
        :class:`~gostop_records.errors.ProjectionError` (strict) at the first event the
        rules refuse, :class:`~gostop_records.errors.LogError` for a bad seq or chain.
        Nothing is written when it raises. ``also(conn, envelopes)`` runs in the same
        transaction after the events are written: a caller's own rows (a web request's
        answer, say) then commit with the events or not at all.

        ``checked``: a projector (not in place) that has been fed exactly the stored events
        and then these sealed envelopes, strictly, as the live recorder's is; the rules are
        then not run again.
        """
        from .append import Append, append_group

        self._writable()
        req = Append(
            game_id, list(envelopes_or_payloads), expected_version, strict, by, at, also, checked
        )
        return append_group(self, [req])[0]

    def append_group(
        self, requests: Sequence[Append], *, defer_rows: bool = False, journal: bool = False
    ) -> list[AppendResult]:
        """Appends to several games in one transaction, all or none (see
        :func:`~.append.append_group`): one commit for many tables recording at once.

        ``defer_rows``: the transaction holds the events, the heads chain and the callers'
        rows; the projection rows are written by :meth:`flush_rows` (every reading or
        writing method of the store flushes first). ``journal``: through the journal when
        the store keeps one (:meth:`open_journal`)."""
        from .append import append_group

        self._writable()
        return append_group(self, requests, defer_rows=defer_rows, journal=journal)

    def flush_rows(
        self,
        limit: int | None = None,
        *,
        settle: bool = True,
        conn: duckdb.DuckDBPyConnection | None = None,
    ) -> int:
        """Write the projection rows that deferred appends left pending (of the ``limit``
        games waiting longest, or of all), in one transaction; returns the number of games
        written. The journal's rows go first, in the same transaction (unless not
        ``settle``). ``conn``: another connection of this store's database, used by a
        second thread while this store's own goes on appending through the journal (see
        :func:`~.pending.flush_rows`)."""
        if self.journal is None and settle:
            self.settle()  # another store's journal of this file, in this process
        if not self.rows_pending() and (
            not settle or self.journal is None or not self.journal.records
        ):
            return 0
        from .pending import flush_rows

        return flush_rows(self, limit, settle=settle, conn=conn)

    def rows_pending(self) -> bool:
        """Whether projection rows of deferred appends are not in DuckDB yet (pending, or
        being written by another thread)."""
        return bool(self.pending_rows) or self.rows_writing > 0

    def catch_up_rows(self) -> list[str]:
        """Derive again the projection rows of games whose rows are behind their events
        (a process that deferred them ended before writing them); returns those games."""
        from .rebuild import catch_up

        self._writable()
        self.flush_rows()
        return catch_up(self)

    def import_paths(
        self,
        paths: Iterable[str | os.PathLike[str]],
        *,
        strict: bool = True,
        batch_events: int | None = None,
        progress: Callable[[ImportProgress], None] | None = None,
        workers: int | None = None,
    ) -> ImportReport:
        """Import log files and folders (see :mod:`.importer`).

        ``workers``: processes that check JSON Lines logs when there are 24 MiB of them or
        more (default: one per core; 0 checks everything in this process, see
        :mod:`.parallel`).
        """
        from .importer import Importer

        self._writable()
        self.flush_rows()
        return Importer(
            self, strict=strict, batch_events=batch_events, progress=progress, workers=workers
        ).import_paths(paths)

    def import_envelopes(
        self,
        envelopes: Iterable[E.Envelope],
        *,
        source: str = "<memory>",
        strict: bool = True,
        batch_events: int | None = None,
    ) -> ImportReport:
        """Import envelopes already in memory (a simulation, a converted log) as from a file."""
        from .importer import Importer

        self._writable()
        self.flush_rows()
        return Importer(self, strict=strict, batch_events=batch_events).import_envelopes(
            envelopes, source
        )

    def rebuild(
        self,
        *,
        accept_loss: bool = False,
        progress: Callable[[int, int], None] | None = None,
    ) -> RebuildReport:
        """Derive every projection table again from the events into new tables, swapped
        in in one transaction (see :mod:`.rebuild`).

        Raises :class:`~.heads.LossError` when the heads chain says events are missing,
        unless ``accept_loss``, which records the loss in the chain and goes on.
        ``progress(done, total)`` follows the games derived.
        """
        from .rebuild import rebuild

        self._writable()
        self.flush_rows()
        self.cache.clear()
        return rebuild(self, accept_loss=accept_loss, progress=progress)

    def repair(self, *, dry_run: bool = False) -> RepairReport:
        """Mend the heads chain a stale tip damaged in earlier versions, and record the
        repair in it (see :mod:`.repair`); ``dry_run`` says what it would do.

        Raises :class:`~.repair.RepairError`, changing nothing, over any other damage.
        """
        from .repair import repair

        self._writable()
        self.flush_rows()
        return repair(self, dry_run=dry_run)

    # --- checking and reading out ----------------------------------------------------

    def verify(self) -> VerifyReport:
        """Every hash chain, and every projection table against a fresh derivation."""
        from .verify import verify

        self.flush_rows()
        return verify(self)

    def export_parquet(
        self,
        directory: str | os.PathLike[str],
        *,
        overwrite: bool = False,
        progress: Callable[[int, int], None] | None = None,
    ) -> ExportReport:
        """Every table as Parquet, partitioned by month (see :mod:`.layout`);
        ``progress(done, total)`` follows the tables written."""
        from .export import export_parquet

        self.flush_rows()
        return export_parquet(self, Path(directory), overwrite=overwrite, progress=progress)

    def stats(self) -> dict[str, Any]:
        """Games, hands, outcomes, average payouts and the frequency of each special."""
        from .stats import stats

        self.flush_rows()
        return stats(self)

    def query(
        self,
        sql: str,
        *,
        limit: int | None = None,
        allow_files: bool = True,
        limits: QueryLimits | None = None,
    ) -> QueryResult:
        """Run read-only SQL (statements that write are refused; see :mod:`.query` for
        what reads files and how to open a store that cannot), within ``limits``
        (:class:`~.sandbox.QueryLimits`; none by default)."""
        from .query import query
        from .sandbox import NO_LIMITS

        self.flush_rows()
        return query(self, sql, limit=limit, allow_files=allow_files, limits=limits or NO_LIMITS)


def _apply_journal_first(path: Path) -> None:
    """Before a read-only open: a journal left beside the file holds acknowledged appends
    DuckDB does not have yet; they are applied by opening the file for writing once."""
    from .errors import StoreLockedError
    from .journal import journal_path, pending

    if not pending(path):
        return
    try:
        Store(path).close()
    except StoreLockedError:
        raise  # the process holding the file holds its journal too
    except (StoreError, OSError) as exc:
        raise StoreError(
            f"{path}: its journal {journal_path(path).name} holds acknowledged entries not "
            f"yet in the file, and opening the store for writing to apply them failed "
            f"({exc}): run a command that writes it (gostop db rebuild) as a user who can"
        ) from None


def open_for_queries(
    path: str | os.PathLike[str], *, allow_files: bool = False, limits: QueryLimits | None = None
) -> Store:
    """The store file opened read-only on a locked connection of its own, for queries."""
    from .query import query_settings

    settings = query_settings(allow_files=allow_files, limits=limits)
    return Store(Path(path), read_only=True, settings=settings)
