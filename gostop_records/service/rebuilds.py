"""A projection rebuild on a running server, beside its entries (blue-green).

``POST /api/rebuild`` (the server key) starts one and answers at once (202) with its
progress; ``DELETE /api/rebuild`` cancels it. The bulk runs on a thread and a DuckDB
connection of its own (:meth:`~gostop_records.store.rebuild.Rebuild.derive`): it reads the
events and writes new tables beside the live ones, which the reads and the settler go on
using. Only the end runs on the writer thread, as one write job holding the journal's turn
(:meth:`Rebuilds.finish_rebuild`): the journal's rows and the pending projection rows
written, the games recorded to since the last round, then the swap in one transaction. The
games recorded to meanwhile are few and their rows are in memory (the live appends derive
them), so an entry waits milliseconds for it, not the rebuild's length.

While it runs, ``/api/health`` and ``/metrics`` show its progress and lag to the key
holder, and every page says that the figures it shows are from before the rebuild
(:mod:`gostop_records.web.notice`). A failure or a cancel drops the new tables and leaves
the live ones as they were; so does a server stopping meanwhile.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import TYPE_CHECKING, Any

from litestar import Request, delete, post

from ..store.rebuild import Rebuild, RebuildReport
from .access import Action
from .errors import ServiceError
from .sessions import Sessions

if TYPE_CHECKING:
    import duckdb
    from litestar.handlers import HTTPRouteHandler

    from .metrics import Metrics

__all__ = ["RebuildRunner", "Rebuilds", "rebuild_routes"]

log = logging.getLogger("gostop.service")


class Rebuilds(Sessions):
    """The writer thread's part of a rebuild (see the module docstring)."""

    def finish_rebuild(self, job: Rebuild) -> RebuildReport:
        """The last events and the swap: a write job, so the journal's turn is held and
        no entry is decided meanwhile. Every pending row is written first (the live rows a
        swap replaces must hold them all), or the rebuild fails, leaving the live tables."""
        self.store.flush_rows()
        return job.finish()


class RebuildRunner:
    """The server's rebuild: at most one at a time, and the last one's progress."""

    def __init__(self, metrics: Metrics) -> None:
        self.metrics = metrics
        self.job: Rebuild | None = None
        self.task: asyncio.Task[None] | None = None
        self._conn: duckdb.DuckDBPyConnection | None = None

    @property
    def running(self) -> bool:
        return self.job is not None and self.job.status.running

    def status(self) -> dict[str, Any] | None:
        """The running rebuild's progress, or the last one's outcome (None: none ran)."""
        return self.job.status.to_dict() if self.job is not None else None

    def notice(self) -> str | None:
        """What the pages say while a rebuild runs."""
        job = self.job
        if job is None or not job.status.running:
            return None
        s = job.status
        done = f"{s.games} of {s.total} done" if s.total else "starting"
        return (
            f"The statistics are being rebuilt from the recorded games ({done}). Until the "
            "rebuild finishes, the game lists and the players' figures are computed as before "
            "it; each game's own record is up to date."
        )

    def start(self, st: Any) -> dict[str, Any]:
        """Start a rebuild on the service of ``st`` (the app's state); its progress."""
        if self.running:
            raise ServiceError(
                409, "rebuild_running", "a rebuild is running already (see GET /api/health)"
            )
        svc = st.svc
        conn = svc.store.conn.cursor()
        job = Rebuild(svc.store, conn=conn)
        self.job, self._conn = job, conn
        self.task = asyncio.create_task(self._run(st, job, conn))
        log.info("projection rebuild started")
        return job.status.to_dict()

    async def _run(self, st: Any, job: Rebuild, conn: duckdb.DuckDBPyConnection) -> None:
        try:
            settler = st.svc.settler
            if settler is not None:  # what was acknowledged before the start is counted in it
                await asyncio.to_thread(settler.sync, st.svc.settings.wait_s)
            await asyncio.to_thread(job.derive)
            report = await st.run(st.svc.finish_rebuild, job)
        except Exception as exc:
            await asyncio.to_thread(job.abandon, exc)
            if job.status.state == "cancelled":
                log.warning("projection rebuild cancelled; the live tables are as they were")
            else:
                log.error("projection rebuild failed: %s; the live tables are as they were", exc)
        else:
            log.info(
                "projection rebuild done: %s game(s), %s not projected, swapped in",
                report.games,
                len(report.failed),
            )
        finally:
            if not job.status.running:
                self.metrics.rebuilds.inc(job.status.state)
            with contextlib.suppress(Exception):
                conn.close()

    def cancel(self) -> dict[str, Any]:
        """Cancel the running rebuild (it stops before its swap)."""
        job = self.job
        if job is None or not job.status.running:
            raise ServiceError(404, "no_rebuild", "no rebuild is running")
        job.cancel()
        return job.status.to_dict()

    async def stop(self) -> None:
        """The server is stopping: a rebuild running is cancelled, its statement
        interrupted, and its end awaited (its connection closed before the store)."""
        if self.job is not None and self.task is not None and not self.task.done():
            self.job.cancel()
            if self._conn is not None:
                with contextlib.suppress(Exception):
                    self._conn.interrupt()
            with contextlib.suppress(BaseException):
                await self.task


def rebuild_routes() -> list[HTTPRouteHandler]:
    """``POST`` and ``DELETE /api/rebuild``, both the server key's alone."""
    opt = {"access": Action.REBUILD}

    @post(
        "/api/rebuild",
        summary="Rebuild every projection table beside the live ones, then swap them in "
        "(needs the server key); follow it in GET /api/health",
        request_max_body_size=1024,
        status_code=202,
        opt=opt,
    )
    async def start_rebuild(request: Request[Any, Any, Any]) -> dict[str, Any]:
        st = request.app.state["gostop"]
        return {"rebuild": st.rebuilds.start(st)}

    @delete(
        "/api/rebuild",
        summary="Cancel the running rebuild; the live tables stay as they are (needs the "
        "server key)",
        status_code=200,
        opt=opt,
    )
    async def cancel_rebuild(request: Request[Any, Any, Any]) -> dict[str, Any]:
        st = request.app.state["gostop"]
        return {"rebuild": st.rebuilds.cancel()}

    return [start_rebuild, cancel_rebuild]
