"""The settler: a second thread that writes the journal's rows and the projection rows to
DuckDB, so that the store thread, which every entry needs, never waits for DuckDB.

An entry is durable once its journal record is synced (:mod:`gostop_records.store.journal`);
its rows still have to reach DuckDB before anything reads them. Written by the store thread,
each batch (a DuckDB transaction of several statements, tens of milliseconds on a busy
two-core server) was a wait for every entry that arrived meanwhile: most of the append's
p99. The settler writes them on its own DuckDB connection (a cursor of the store's
database): one transaction holds the journal's rows taken so far (:meth:`Journal.take`
closes the journal's segment, so the records appended meanwhile go to the next) and every
game's pending projection rows. It settles once the journal holds :data:`SETTLE_RECORDS`
records or its oldest is :data:`SETTLE_S` old (projection rows alone, e.g. of a game just
started, after :data:`SETTLE_S` too). DuckDB releases the GIL while it executes, so the
store thread and the event loop go on meanwhile.

Everything else the service does (reads, starting games, imports, shutdown) runs on the store
thread holding the journal's turn (:meth:`hold`): it waits for a batch in flight, settles
what is left itself on the store's own connection, and keeps the settler out until done, so
a read sees every acknowledged entry and a write never meets the settler's. A batch that
fails (a full disk) stays in the journal and is tried again after :data:`RETRY_S`; a read
meanwhile tries it too and answers 503 saying why (see ``TableService._conn``).
"""

from __future__ import annotations

import contextlib
import logging
import os
import threading
import time
from collections.abc import Iterator
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..store import Store

__all__ = ["RETRY_S", "SETTLE_ENV", "SETTLE_RECORDS", "SETTLE_S", "Settler"]

log = logging.getLogger("gostop.service")

#: The journal's rows go to DuckDB once it holds this many records or its oldest is this
#: old: DuckDB's cost is per statement, so the fewer and larger the batches, the less CPU
#: they take. A read settles at once.
#: Measured side by side on the store thread (20 tables at a recorder's pace, quiet
#: machine, two runs each): 64 records or 2 s gave append p99 76 ms, 16 or 0.5 s 51 ms, 4
#: or 0.1 s 65 ms (a large batch is one long wait for the entries behind it, a small one
#: pays DuckDB too often). On the settler no entry waits for a batch; 64 or 2 s took the
#: server's CPU to 0.71x and 0.75x of 16 or 0.5 s in two side-by-side runs (20 tables, 40
#: entries each, a machine loaded to 4 to 6), but its append p99 was 52 against 91 ms in
#: one and 102 against 78 ms in the other: not shown to pay, so kept.
SETTLE_RECORDS = 16
SETTLE_S = 0.5
#: Set to ``RECORDS/SECONDS`` (``64/2``) to settle at other marks than those above (how a
#: driver of ``bench.service`` compares batch sizes side by side).
SETTLE_ENV = "GOSTOP_SERVICE_SETTLE"
#: After a failed batch (a full disk), the settler tries again this much later.
RETRY_S = 1.0
#: How often a settler waiting for the journal's turn looks whether it is being stopped.
_POLL_S = 0.05


class Settler:
    """The thread writing a store's pending rows on a second connection (see the module
    docstring); ``poke`` after journaling, ``hold`` around anything else, ``stop`` before
    the store closes."""

    def __init__(self, store: Store) -> None:
        journal = store.journal
        if journal is None:
            raise ValueError("a settler writes a journal's rows: open the store's journal")
        self.store = store
        self.journal = journal
        self.records, self.seconds = _marks(os.environ.get(SETTLE_ENV, ""))
        self.conn = store.conn.cursor()
        self._wake = threading.Event()
        self._stopping = False
        self._last = time.monotonic()  # the last batch, or the start
        self._retry_at = 0.0
        #: Batches written and failed (for the tests and the bench).
        self.batches = 0
        self.failures = 0
        self.thread = threading.Thread(target=self._loop, name="gostop-settler", daemon=True)
        self.thread.start()

    def poke(self) -> None:
        """After journaling: wake the settler when the journal holds a batch's worth."""
        if self.journal.records >= self.records:
            self._wake.set()

    @contextlib.contextmanager
    def hold(self) -> Iterator[None]:
        """Keep the settler out (waiting for a batch in flight) while the caller uses the
        store on its own connection."""
        with self.journal.turn:
            yield

    def stop(self) -> None:
        """Stop the thread (after the batch in flight) and close its connection; what is
        pending stays for the store to settle on close."""
        self._stopping = True
        self._wake.set()
        if threading.current_thread() is not self.thread:
            self.thread.join(timeout=60)

    def _due_in(self) -> float | None:
        """Seconds until the next batch is due (0: now), or None when nothing is pending."""
        now = time.monotonic()
        j = self.journal
        records = j.records
        if records:
            due = now if records >= self.records else j.since + self.seconds
        elif self.store.rows_pending():
            due = self._last + self.seconds
        else:
            return None
        return max(0.0, due - now, self._retry_at - now)

    def _loop(self) -> None:
        try:
            while not self._stopping:
                wait = self._due_in()
                if wait is None or wait > 0:
                    self._wake.wait(self.seconds if wait is None else wait)
                    self._wake.clear()
                    continue
                self._settle()
        finally:
            with contextlib.suppress(Exception):
                self.conn.close()

    def _settle(self) -> None:
        turn = self.journal.turn
        while not turn.acquire(timeout=_POLL_S):
            if self._stopping:
                return
        try:
            if self._stopping:
                return
            self.store.flush_rows(conn=self.conn)
        except Exception as exc:
            self.failures += 1
            self._retry_at = time.monotonic() + RETRY_S
            log.warning("rows not written to the store yet (tried again shortly): %s", exc)
        else:
            self.batches += 1
        finally:
            self._last = time.monotonic()
            turn.release()


def _marks(given: str) -> tuple[int, float]:
    """(records, seconds) from ``$GOSTOP_SERVICE_SETTLE`` (``RECORDS/SECONDS``), or the
    defaults."""
    if not given:
        return SETTLE_RECORDS, SETTLE_S
    records, _, seconds = given.partition("/")
    try:
        out = int(records), float(seconds)
    except ValueError:
        out = (0, 0.0)
    if out[0] < 1 or not out[1] > 0:
        raise ValueError(f"${SETTLE_ENV}: give RECORDS/SECONDS, e.g. 64/2, not {given!r}")
    return out
