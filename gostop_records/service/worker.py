"""The writer thread: every write to the store, one at a time, and entries grouped.

The store has one writer. Every write the service makes (an entry, a new game, a token, a
countersignature, an import, a finished ``/play`` hand) is a job on this thread's queue, run
in the order it came. Entries that wait together (several tables recording at once) are
checked one by one by their games' recording sessions and made durable together, in one
journal record (:meth:`~.core.TableService.enter_group`): the thread takes every entry
queued behind the first, one per game, up to the first job of another kind.

A new game, and an upload (an import, a finished ``/play`` hand: checked by the rules before
it comes here, see :mod:`.imports`), go through the journal as entries do. Every other write job
runs holding the journal's turn (:meth:`~.core.TableService.hold`), which keeps the settler
(the thread writing the journal's rows to DuckDB) out while the job writes to DuckDB itself;
what is pending is written first, so a read meanwhile waits for nothing. A look at a live
game's session (what the rules wait for, a checkpoint, a token) comes here too, being the
writer's state, but writes nothing and runs as it is. Reads of the store do not come here:
they run on connections of their own (:mod:`.reads`).

A job whose caller has gone (a request cancelled, a server stopping) before it starts is
skipped; one that started is finished and its answer dropped.
"""

from __future__ import annotations

import asyncio
import dataclasses
import queue
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import Any

from .core import Answer, EntryRequest, TableService

__all__ = ["Worker"]


@dataclass(slots=True)
class _Job:
    fn: Callable[[], Any] | None = None
    entry: EntryRequest | None = None
    writes: bool = True
    journaled: bool = False
    future: Future[Any] = field(default_factory=Future)
    queued: float = field(default_factory=time.perf_counter)


class Worker:
    """The writer thread; ``service`` is made on it at start (see the module docstring)."""

    def __init__(self, group_max: int = 32) -> None:
        self.jobs: queue.SimpleQueue[_Job | None] = queue.SimpleQueue()
        self.service: TableService | None = None
        self.group_max = group_max
        self.thread = threading.Thread(target=self._loop, name="gostop-writer", daemon=True)
        self.thread.start()

    async def call(
        self, fn: Callable[[], Any], *, writes: bool = True, journaled: bool = False
    ) -> Any:
        """``fn`` on the thread; ``writes=False`` for a look at the writer's state;
        ``journaled`` for a write that goes through the journal as entries do (an upload)."""
        job = _Job(fn=fn, writes=writes, journaled=journaled)
        self.jobs.put(job)
        return await asyncio.wrap_future(job.future)

    async def enter(self, request: EntryRequest) -> Answer:
        job = _Job(entry=request)
        self.jobs.put(job)
        return await asyncio.wrap_future(job.future)  # type: ignore[no-any-return]

    @property
    def depth(self) -> int:
        """Jobs waiting for the thread."""
        return self.jobs.qsize()

    def stop(self, timeout: float = 30.0) -> None:
        """Finish the jobs queued so far, then end the thread (waiting ``timeout`` at most)."""
        self.jobs.put(None)
        if threading.current_thread() is not self.thread:
            self.thread.join(timeout=timeout)

    def _loop(self) -> None:
        held: list[_Job | None] = []  # taken off the queue but not of the group: next
        while True:
            job = held.pop() if held else self.jobs.get()
            if job is None:
                return
            if not job.future.set_running_or_notify_cancel():
                continue  # its caller went before it started
            if job.entry is None:
                svc = self.service
                if svc is None or not job.writes:
                    _run(job, job.fn)
                    continue
                if job.journaled:
                    _run(job, job.fn)
                    if svc.settler is not None:
                        svc.settler.poke()
                    continue
                with svc.hold():
                    svc.flush_rows()  # what is pending first: reads meanwhile wait for none
                    _run(job, job.fn)
                continue
            group = [job]
            games = {job.entry.game_id}
            while len(group) < self.group_max:
                try:
                    nxt = self.jobs.get_nowait()
                except queue.Empty:
                    break
                if nxt is not None and nxt.entry is not None and nxt.entry.game_id not in games:
                    if nxt.future.set_running_or_notify_cancel():
                        group.append(nxt)
                        games.add(nxt.entry.game_id)
                    continue
                held.append(nxt)
                break
            self._run_group(group)
            svc = self.service
            if svc is not None and svc.settler is not None:
                svc.settler.poke()

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

    def __exit__(self, *exc: object) -> None:
        return None


def _run(job: _Job, fn: Callable[[], Any] | None) -> None:
    try:
        result = fn() if fn is not None else None
    except BaseException as exc:
        job.future.set_exception(exc)
    else:
        job.future.set_result(result)
