"""The store thread: every store call, one at a time, and the grouping of entries into one
commit.

DuckDB wants one writer, and a commit costs about as much as the rest of an entry, so the
service runs every store call on one thread, in the order the requests came, and entries
that wait together (several tables recording at once) are committed together: the thread
takes every entry queued behind the first, one per game, up to the first call of another
kind, and hands them to :meth:`~.core.TableService.enter_group`.

A group's commit makes durable what must be before the answer: the events, the heads chain
and the answer kept for a retry, as one synced journal record (the store's journal). With
the settler (:mod:`.settler`, the server's default), that is all an entry does: its version,
token hash and answered keys are in memory, and a second thread writes the journal's rows
and the projection rows to DuckDB on its own connection. Every other call runs holding the
journal's turn (:meth:`~.core.TableService.hold`), after everything journaled and pending
is written to DuckDB (here, on the store's connection), so a read sees every acknowledged
entry.

Without the settler (``GOSTOP_SERVICE_SETTLER=off``, or a store without the journal) this
thread writes those rows itself: the journal's in batches (:data:`SETTLE_RECORDS` records
or :data:`SETTLE_S`, with a slice of projection rows, while no entry waits), and before any
other call. The projection rows (derived from the events, several statements per entry)
are written after the answers have gone, from :data:`FLUSH_S` after the first of them, and
before any other call (so a read sees them). They are written one game at a time, each game
its own short transaction, and only while no entry waits: an entry that arrives meanwhile
waits for one game's rows at most, not for every game's (which took several commits' time
when twenty tables record, and was the longest wait an entry had). Rows due for
:data:`FLUSH_LATE_S` more are written between groups even while entries keep coming, one
game per group, so they never fall behind for good.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import os
import queue
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import Any

from .core import Answer, EntryRequest, TableService
from .settler import SETTLE_RECORDS, SETTLE_S

__all__ = ["GROUP_MAX", "SETTLE_RECORDS", "SETTLE_S", "Worker"]

#: The most entries committed in one transaction.
GROUP_MAX = 32
#: Deferred projection rows are written from this long after the entry that made them.
FLUSH_S = 0.25
#: Rows due this long are written even while entries wait (one game between groups).
FLUSH_LATE_S = 1.0
#: Games whose rows one transaction writes while entries may be waiting.
SLICE_GAMES = 1
#: Set to a number of games (or ``all``) to write that many games' pending rows per
#: transaction instead of :data:`SLICE_GAMES` (how ``bench.service`` compares them).
SLICE_ENV = "GOSTOP_SERVICE_SLICE"
#: Set to ``whole`` to write every game's pending rows in one transaction when due, even
#: while entries wait, as before the rows were written in slices (how ``bench.service``
#: compares the two in one run).
FLUSH_ENV = "GOSTOP_SERVICE_FLUSH"


@dataclass(slots=True)
class _Job:
    fn: Callable[[], Any] | None = None
    entry: EntryRequest | None = None
    future: Future[Any] = field(default_factory=Future)
    queued: float = field(default_factory=time.perf_counter)


class Worker:
    """A thread running store calls one at a time; ``service`` is made on it at start."""

    def __init__(self) -> None:
        self.jobs: queue.SimpleQueue[_Job | None] = queue.SimpleQueue()
        self.service: TableService | None = None
        self._flush_at: float | None = None  # when the pending projection rows are due
        self._whole = os.environ.get(FLUSH_ENV, "") == "whole"
        given = os.environ.get(SLICE_ENV, "")
        self._slice_games = None if given == "all" else int(given) if given else SLICE_GAMES
        self.thread = threading.Thread(target=self._loop, name="gostop-store", daemon=True)
        self.thread.start()

    async def call(self, fn: Callable[[], Any]) -> Any:
        job = _Job(fn=fn)
        self.jobs.put(job)
        return await asyncio.wrap_future(job.future)

    async def enter(self, request: EntryRequest) -> Answer:
        job = _Job(entry=request)
        self.jobs.put(job)
        return await asyncio.wrap_future(job.future)  # type: ignore[no-any-return]

    def stop(self) -> None:
        self.jobs.put(None)
        self.thread.join(timeout=30)

    def _next(self) -> _Job | None:
        """The next job; pending projection rows are written, a game at a time, once due
        and while no job waits (or, once late, one game before each job)."""
        while self._flush_at is not None:
            now = time.monotonic()
            if now < self._flush_at:
                try:
                    return self.jobs.get(timeout=self._flush_at - now)
                except queue.Empty:
                    continue
            if self._whole:  # due: every game's rows now, even while entries wait
                self._flush()
                break
            late = now >= self._flush_at + FLUSH_LATE_S
            if not late:
                try:
                    return self.jobs.get_nowait()
                except queue.Empty:
                    pass
            self._slice()
            if late:
                try:
                    return self.jobs.get_nowait()
                except queue.Empty:
                    pass
        return self.jobs.get()

    def _slice(self) -> None:
        """One transaction of pending rows (with the journal's, when they are due); when
        none are left, or the write failed (it is tried again after the next group),
        nothing is due; when only the journal's are left, they are due at their time."""
        svc = self.service
        j = svc.store.journal if svc is not None else None
        due = j is not None and (
            j.records >= SETTLE_RECORDS or time.monotonic() >= j.since + SETTLE_S
        )
        if svc is None or not svc.flush_rows(self._slice_games, settle=due) or not _pending(svc):
            self._flush_at = None
        elif not svc.store.rows_pending() and j is not None and j.records:
            self._flush_at = j.since + SETTLE_S

    def _flush(self) -> None:
        self._flush_at = None
        if self.service is not None:
            self.service.flush_rows()

    def _loop(self) -> None:
        held: list[_Job | None] = []  # taken off the queue but not of the group: next
        while True:
            job = held.pop() if held else self._next()
            if job is None:
                self._flush()
                return
            if job.entry is None:
                svc = self.service
                with svc.hold() if svc is not None else contextlib.nullcontext():
                    self._flush()  # a read sees every row; a close writes them anyway
                    _settle(job, job.fn)
                continue
            group = [job]
            games = {job.entry.game_id}
            while len(group) < GROUP_MAX:
                try:
                    nxt = self.jobs.get_nowait()
                except queue.Empty:
                    break
                if nxt is not None and nxt.entry is not None and nxt.entry.game_id not in games:
                    group.append(nxt)
                    games.add(nxt.entry.game_id)
                    continue
                held.append(nxt)
                break
            self._run_group(group)
            svc = self.service
            if svc is not None and svc.settler is not None:
                svc.settler.poke()
            elif self._flush_at is None and svc is not None and _pending(svc):
                self._flush_at = time.monotonic() + FLUSH_S

    def _run_group(self, group: list[_Job]) -> None:
        svc = self.service
        if svc is None:
            for job in group:
                job.future.set_exception(RuntimeError("the store is not open"))
            return
        start = time.perf_counter()
        try:
            answers = svc.enter_group([j.entry for j in group if j.entry is not None])
        except BaseException as exc:
            for job in group:
                job.future.set_exception(exc)
            return
        ms = (time.perf_counter() - start) * 1000
        for job, answer in zip(group, answers, strict=True):
            if isinstance(answer, BaseException):
                job.future.set_exception(answer)
            else:
                waited = (start - job.queued) * 1000
                job.future.set_result(
                    dataclasses.replace(answer, store_ms=ms, group=len(group), queue_ms=waited)
                )


def _pending(svc: TableService) -> bool:
    """Whether the store holds rows not in DuckDB yet: the journal's, or projection rows."""
    j = svc.store.journal
    return svc.store.rows_pending() or (j is not None and j.records > 0)


def _settle(job: _Job, fn: Callable[[], Any] | None) -> None:
    try:
        result = fn() if fn is not None else None
    except BaseException as exc:
        job.future.set_exception(exc)
    else:
        job.future.set_result(result)
