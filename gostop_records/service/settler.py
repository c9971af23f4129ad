"""The settler: the thread that writes the journal's rows and the projection rows to DuckDB,
so that the writer thread, which every entry needs, never waits for DuckDB.

An entry is durable once its journal record is synced (:mod:`gostop_records.store.journal`);
its rows still have to reach DuckDB before anything reads them. The settler writes them on
its own DuckDB connection (a cursor of the store's database): one transaction holds the
journal's rows taken so far (:meth:`Journal.take` closes the journal's segment, so the
records appended meanwhile go to the next) and every game's pending projection rows. It
settles once the journal holds enough records or its oldest is old enough
(:class:`~.settings.ServiceSettings`), and at once when a read asks (:meth:`sync`): a read
waits for the batch that holds every entry acknowledged before it, then reads on its own
connection.

A write other than an entry (a new game, an import, a token) runs holding the journal's
turn (:meth:`hold`), which keeps the settler out: both extend the store's heads chain. A
batch that fails (a full disk) stays in the journal; the cause is logged once, kept in
:attr:`error` (the service refuses entries and reads with a 503 naming it while it lasts)
and the batch is tried again every ``retry_s`` until it goes through, which clears it.
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from collections.abc import Iterator
from typing import TYPE_CHECKING

from .priority import lower_priority
from .settings import ServiceSettings

if TYPE_CHECKING:
    from ..store import Store

__all__ = ["Settler", "write_cause"]

log = logging.getLogger("gostop.service")

#: How often a settler waiting for the journal's turn looks whether it is being stopped.
_POLL_S = 0.05


class Settler:
    """The thread writing a store's pending rows on a second connection (see the module
    docstring); ``poke`` after journaling, ``hold`` around anything else, ``stop`` before
    the store closes."""

    def __init__(self, store: Store, settings: ServiceSettings | None = None) -> None:
        journal = store.journal
        if journal is None:
            raise ValueError("a settler writes a journal's rows: open the store's journal")
        cfg = settings or ServiceSettings()
        self.store = store
        self.journal = journal
        self.records, self.seconds, self.retry_s = cfg.settle_records, cfg.settle_s, cfg.retry_s
        self.nice = cfg.settler_nice
        self.conn = store.conn.cursor()
        #: Why the last batch could not be written (None: the last one went through).
        self.error: str | None = None
        #: Reads waiting for a batch: the number asked for and the number answered (a batch
        #: answers every request made before it began).
        self._asked = 0
        self._answered = 0
        self._done = threading.Condition()
        self._wake = threading.Event()
        self._stopping = False
        self._last = time.monotonic()  # the last batch, or the start
        self._retry_at = 0.0
        #: Batches written and failed (for the tests and the bench).
        self.batches = 0
        self.failures = 0
        self.thread = threading.Thread(target=self._loop, name="gostop-settler", daemon=True)
        self.thread.start()

    def sync(self, timeout: float) -> str | None:
        """Wait until everything journaled or pending before this call is in DuckDB; at
        once when nothing is. Returns None, or why not (a batch failed, or the wait ran out).
        """
        if not self.journal.records and not self.store.rows_pending():
            return None
        with self._done:
            self._asked += 1
            want = self._asked
            self._wake.set()
            deadline = time.monotonic() + timeout
            while self._answered < want:
                if not self.journal.records and not self.store.rows_pending():
                    return None  # written meanwhile (by a write job holding the turn)
                if self.error is not None:
                    return self.error
                left = deadline - time.monotonic()
                if left <= 0 or self._stopping:
                    return "the store is busy: the entries before this read are not written yet"
                self._done.wait(min(left, 0.5))
        return None

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
        if self._asked > self._answered:
            due = now
        elif records:
            due = now if records >= self.records else j.since + self.seconds
        elif self.store.rows_pending():
            due = self._last + self.seconds
        else:
            return None
        return max(0.0, due - now, self._retry_at - now)

    def _loop(self) -> None:
        lower_priority(self.nice)
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
            serving = self._asked
            self.store.flush_rows(conn=self.conn)
        except Exception as exc:
            self.failures += 1
            self._retry_at = time.monotonic() + self.retry_s
            cause = write_cause(exc)
            if cause != self.error:  # once per cause, not once per try
                log.error("entries cannot be written into the store: %s (%s)", cause, exc)
            with self._done:
                self.error = cause
                self._done.notify_all()
        else:
            self.batches += 1
            if self.error is not None:
                log.warning("entries are written into the store again")
            with self._done:
                self.error = None
                self._answered = max(self._answered, serving)
                self._done.notify_all()
        finally:
            self._last = time.monotonic()
            turn.release()


def write_cause(exc: BaseException) -> str:
    """A failed batch's cause in words, without a path of this machine."""
    from ..store.errors import is_no_space

    if is_no_space(exc):
        return "the disk holding the store is full"
    return f"the store refused the write ({type(exc).__name__}); see the server's log"
