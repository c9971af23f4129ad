"""Reviews computed on the server, in the background, one at a time, with their progress.

A review plays out every option of every decision in hundreds of deals: seconds of pure
Python a hand. Run on a thread of the server it would hold the interpreter's lock against
the writer thread and the event loop, so entries would wait on it; so each review runs in a
process of its own (started fresh, at a lower priority), and the server only reads its
progress and its result from a pipe. One review runs at a time and at most :data:`LIMIT`
wait; a page that asks for one more is told the reviewer is busy.

A job is known by a key (``game/{id}`` for a stored game, ``play/{hand}/{n}`` for a hand of
``/play``); asking again for a key that is queued or running returns the same job, so a page
that looks every two seconds starts one review, not one a look. What to do with the result
(store it, keep its page) is the caller's ``then``; a job that failed is kept until its
page has said so, and asked again it starts anew.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import multiprocessing as mp
import os
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import msgspec

from .. import events as E
from ..errors import GostopError
from ..review.model import GameReview

__all__ = ["LIMIT", "ReviewBusy", "ReviewJob", "ReviewJobs"]

log = logging.getLogger("gostop.service")

#: Reviews that may wait (or run) at once; finished jobs kept for their pages.
LIMIT = 8
KEEP = 64
#: Progress is sent at most this often (a decision can take a few ms).
_EVERY_S = 0.2

Then = Callable[[GameReview], Awaitable[None]]


class ReviewBusy(GostopError):
    """The reviewer has :data:`LIMIT` reviews to do already."""


@dataclass(eq=False)
class ReviewJob:
    """One review: ``state`` is queued, running, done or failed; ``done`` of ``total``
    decisions judged so far."""

    key: str
    game_id: str
    envelopes: Sequence[E.Envelope]
    options: dict[str, Any]
    then: Then | None = None
    state: str = "queued"
    done: int = 0
    total: int = 0
    result: GameReview | None = None
    error: str | None = None
    process: Any = field(default=None, repr=False)


def _child(
    conn: Any, game_id: str, envelopes: Sequence[E.Envelope], options: dict[str, Any]
) -> None:
    """The review, in its own process: progress and the result (or the reason) sent back."""
    from ..review import review_game

    with contextlib.suppress(OSError):
        os.nice(10)  # the server's own work comes first
    last = 0.0

    def progress(done: int, total: int) -> None:
        nonlocal last
        now = time.monotonic()
        if done == total or now - last >= _EVERY_S:
            last = now
            conn.send(("progress", done, total))

    try:
        review = review_game(game_id, envelopes, progress=progress, **options)
        conn.send(("done", msgspec.json.encode(review)))
    except GostopError as exc:
        conn.send(("failed", str(exc)))
    except Exception as exc:  # a fault: its details go to the server's log, not the page
        conn.send(("crashed", f"{type(exc).__name__}: {exc}"))
    finally:
        conn.close()


def _run(job: ReviewJob) -> GameReview:
    """Start the job's process and follow it to its end (on a thread of the server)."""
    ctx = mp.get_context("spawn")
    recv, send = ctx.Pipe(duplex=False)
    proc = ctx.Process(
        target=_child, args=(send, job.game_id, list(job.envelopes), job.options), daemon=True
    )
    proc.start()
    send.close()
    job.process = proc
    try:
        while True:
            try:
                msg = recv.recv()
            except EOFError:
                raise GostopError("the reviewing process stopped before the end") from None
            if msg[0] == "progress":
                job.done, job.total = msg[1], msg[2]
            elif msg[0] == "done":
                return msgspec.json.decode(msg[1], type=GameReview)
            elif msg[0] == "failed":
                raise GostopError(str(msg[1]))
            else:
                raise RuntimeError(f"the reviewing process failed: {msg[1]}")
    finally:
        recv.close()
        proc.join(timeout=5)
        if proc.is_alive():
            proc.kill()
        job.process = None


class ReviewJobs:
    """The reviews of one server (see the module docstring)."""

    def __init__(self, limit: int = LIMIT) -> None:
        self.limit = limit
        self.jobs: OrderedDict[str, ReviewJob] = OrderedDict()
        self._queue: asyncio.Queue[ReviewJob] | None = None
        self._task: asyncio.Task[None] | None = None

    def get(self, key: str) -> ReviewJob | None:
        return self.jobs.get(key)

    def forget(self, key: str) -> None:
        job = self.jobs.get(key)
        if job is not None and job.state in ("done", "failed"):
            del self.jobs[key]

    def submit(
        self,
        key: str,
        game_id: str,
        envelopes: Sequence[E.Envelope],
        options: dict[str, Any],
        then: Then | None = None,
    ) -> ReviewJob:
        """The job of ``key``: the one queued or running, else a new one (:class:`ReviewBusy`
        when :data:`LIMIT` wait already)."""
        job = self.jobs.get(key)
        if job is not None and job.state != "failed":
            return job
        waiting = sum(1 for j in self.jobs.values() if j.state in ("queued", "running"))
        if waiting >= self.limit:
            raise ReviewBusy(
                f"the reviewer has {waiting} reviews to compute already: try again in a minute"
            )
        job = ReviewJob(key, game_id, envelopes, options, then)
        self.jobs[key] = job
        self.jobs.move_to_end(key)
        finished = [k for k, j in self.jobs.items() if j.state in ("done", "failed")]
        for k in finished[: max(0, len(finished) - KEEP)]:
            del self.jobs[k]
        if self._queue is None:
            self._queue = asyncio.Queue()
        if self._task is None or self._task.done():
            self._task = asyncio.create_task(self._loop())
        self._queue.put_nowait(job)
        return job

    async def _loop(self) -> None:
        assert self._queue is not None
        while True:
            job = await self._queue.get()
            job.state = "running"
            try:
                job.result = await asyncio.to_thread(_run, job)
                if job.then is not None:
                    await job.then(job.result)
                job.state = "done"
            except asyncio.CancelledError:
                self._kill(job)
                raise
            except GostopError as exc:  # the review's own reason, for the page
                job.state = "failed"
                job.error = str(exc)
                log.warning("the review of %s failed: %s", job.key, exc)
            except Exception as exc:
                job.state = "failed"
                job.error = "the review failed (the server's log has the details)"
                log.error("the review of %s failed", job.key, exc_info=exc)

    @staticmethod
    def _kill(job: ReviewJob) -> None:
        proc = job.process
        if proc is not None and proc.is_alive():
            proc.kill()

    async def close(self) -> None:
        """Stop: the review running is killed, the ones waiting dropped."""
        for job in self.jobs.values():
            self._kill(job)
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._task
            self._task = None
