"""The running service's state: its configuration, the writer and the read threads, the live
streams' hub, the metrics and the backups; how a route runs a write, a look or a read."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any, TypeVar

from litestar import Request

from ..store.backup import BackupError, finish_copy, prune, remove_partials, stamped_names
from .backups import default_folder, failed
from .core import TableService
from .errors import ServiceError
from .imports import Imports
from .metrics import Metrics, Snapshot
from .priority import idle_priority
from .reads import Reads
from .rebuilds import RebuildRunner
from .settings import ServiceSettings
from .streams import Hub
from .worker import Worker

__all__ = ["KEEPALIVE_S", "AppState", "ServiceConfig", "app_state"]

T = TypeVar("T")
log = logging.getLogger("gostop.service")
backup_log = logging.getLogger("gostop.backup")


#: A comment line sent to an idle stream this often, so proxies keep it open.
KEEPALIVE_S = 15.0


@dataclass(frozen=True, slots=True)
class ServiceConfig:
    """``key``: the server key, which administers (reissues recorder tokens, imports) and
    starts games; ``open``: anyone may start games (and play on ``/play``), never
    administer; ``private``: reads (and ``/play``) need the server key or the game's
    recorder token; ``allow_origins``: the web origins other than the server's own whose
    pages may call the API (CORS; none by default). Who may do what is
    :mod:`.access`'s table.

    Without a key nobody administers, and games start without one (as ``open``)."""

    db: str | None = None
    key: str | None = None
    private: bool = False
    open: bool = False
    allow_origins: tuple[str, ...] = ()
    settings: ServiceSettings = field(default_factory=ServiceSettings)
    #: One JSON line per request on the ``gostop.access`` logger (:mod:`.metrics`).
    access_log: bool = False
    #: Called after every commit, before the answer (the tests stop a server there).
    after_commit: Callable[[], None] | None = None
    #: The folder backups are written into (default: ``backups/`` beside the store); a
    #: backup every ``backup_every`` seconds (None: only when asked); after each, all but
    #: the ``backup_keep`` newest backups named by their time are removed (None: none).
    backup_dir: str | None = None
    backup_every: float | None = None
    backup_keep: int | None = None

    @property
    def opens_games(self) -> bool:
        """Whether anyone may start a game."""
        return self.open or self.key is None


class AppState:
    """What the routes of one app share, kept in ``app.state["gostop"]``."""

    def __init__(self, config: ServiceConfig) -> None:
        self.config = config
        self.hub = Hub()
        self.metrics = Metrics()
        self.rebuilds = RebuildRunner(self.metrics)
        self.worker: Worker | None = None
        self.reads: Reads | None = None
        self.beat: asyncio.Task[None] | None = None
        self.backups: asyncio.Task[None] | None = None
        #: The thread that reads and checks uploads (one at a time, after the reads in line
        #: for the cores: see :mod:`.priority`).
        self.checks: ThreadPoolExecutor | None = None

    async def start(self) -> None:
        """Opens the store on the writer thread, then the read threads, the live streams'
        beat and the timed backups."""
        cfg = self.config
        self.hub.loop = asyncio.get_running_loop()
        self.beat = asyncio.create_task(self.hub.beat(KEEPALIVE_S))
        worker = Worker(cfg.settings.group_max)

        def open_store() -> None:
            worker.service = TableService(
                cfg.db,
                on_commit=self.hub.publish_threadsafe,
                settings=cfg.settings,
                after_commit=cfg.after_commit,
            )

        try:
            await worker.call(open_store)
        except BaseException:
            worker.stop()
            raise
        svc = worker.service
        assert svc is not None
        self.reads = Reads(
            svc.store,
            svc.settler,
            threads=cfg.settings.read_threads,
            wait_s=cfg.settings.wait_s,
            nice=cfg.settings.read_nice,
        )
        self.worker = worker
        if cfg.backup_every is not None:
            self.backups = asyncio.create_task(self.backup_every(cfg.backup_every))

    async def stop(self) -> None:
        """Closes what :meth:`start` opened; a long read is interrupted, never waited for."""
        self.hub.close()
        await self.rebuilds.stop()  # cancelled before its swap: the live tables stay
        if self.beat is not None:
            self.beat.cancel()
        if self.backups is not None:
            self.backups.cancel()
        reads, self.reads = self.reads, None
        if reads is not None:  # a long read is interrupted: stopping never waits for it
            await asyncio.to_thread(reads.close)
        checks, self.checks = self.checks, None
        if checks is not None:
            checks.shutdown(wait=False, cancel_futures=True)
        worker, self.worker = self.worker, None
        if worker is not None:
            svc = worker.service
            if svc is not None:
                with contextlib.suppress(Exception):
                    await worker.call(svc.close)
            worker.service = None
            worker.stop()

    async def run(self, fn: Callable[..., T], *args: Any, **kw: Any) -> T:
        """``fn`` on the writer thread: a write."""
        if self.worker is None:
            raise ServiceError(503, "unavailable", "the service is starting or stopping")
        return await self.worker.call(partial(fn, *args, **kw))  # type: ignore[no-any-return]

    async def journaled(self, fn: Callable[..., T], *args: Any, **kw: Any) -> T:
        """``fn`` on the writer thread: a write through the journal, as an entry is (it
        neither waits for the settler nor writes what is pending first)."""
        if self.worker is None:
            raise ServiceError(503, "unavailable", "the service is starting or stopping")
        return await self.worker.call(  # type: ignore[no-any-return]
            partial(fn, *args, **kw), journaled=True
        )

    async def upload(self, data: bytes, *, lenient: bool = False) -> dict[str, Any]:
        """An upload read and checked by the rules on a thread of its own, then judged and
        appended through the journal by the writer (:mod:`.imports`)."""
        if self.worker is None:
            raise ServiceError(503, "unavailable", "the service is starting or stopping")
        if self.checks is None:
            self.checks = ThreadPoolExecutor(
                1,
                "gostop-upload",
                initializer=idle_priority,
                initargs=(self.config.settings.read_nice,),
            )
        loop = asyncio.get_running_loop()
        up = await loop.run_in_executor(
            self.checks, partial(Imports.read_upload, data, lenient=lenient)
        )
        try:
            return await self.journaled(self.svc.import_upload, up)
        finally:
            Imports.discard(up)

    async def look(self, fn: Callable[..., T], *args: Any, **kw: Any) -> T:
        """``fn`` on the writer thread, writing nothing: a look at a live game's session or
        a token, which are the writer's state."""
        if self.worker is None:
            raise ServiceError(503, "unavailable", "the service is starting or stopping")
        return await self.worker.call(  # type: ignore[no-any-return]
            partial(fn, *args, **kw), writes=False
        )

    async def read(self, fn: Callable[..., T], *args: Any, **kw: Any) -> T:
        """``fn(connection, ...)`` on a read thread (:mod:`.reads`)."""
        if self.reads is None:
            raise ServiceError(503, "unavailable", "the service is starting or stopping")
        return await self.reads.run(lambda conn: fn(conn, *args, **kw))

    async def read_now(self, fn: Callable[..., T]) -> T:
        """``fn(connection)`` on a read thread without waiting for the settler."""
        if self.reads is None:
            raise ServiceError(503, "unavailable", "the service is starting or stopping")
        return await self.reads.run(fn, settled=False)

    def snapshot(self) -> Snapshot:
        """The gauges of :mod:`.metrics`, read here without the store (they answer while
        the store is stuck, when they matter most)."""
        worker = self.worker
        svc = worker.service if worker is not None else None
        settler = svc.settler if svc is not None else None
        journal = svc.store.journal if svc is not None else None
        job = self.rebuilds.job
        rebuilding = job is not None and job.status.running
        return Snapshot(
            queue=worker.depth if worker is not None else 0,
            journal=journal.records if journal is not None else 0,
            batches=settler.batches if settler is not None else 0,
            failures=settler.failures if settler is not None else 0,
            failing=svc is not None and svc.write_error() is not None,
            viewers=self.hub.viewer_count(),
            live=len(svc.live) if svc is not None else 0,
            rebuilding=rebuilding,
            rebuild_done=job.status.games / job.status.total
            if rebuilding and job is not None and job.status.total
            else 0.0,
            rebuild_behind=job.status.behind_events if rebuilding and job is not None else 0,
        )

    def backup_folder(self) -> Path:
        if self.config.backup_dir is not None:
            return Path(self.config.backup_dir).absolute()
        return default_folder(self.svc.path)

    async def backup(self, name: str | None = None) -> dict[str, Any]:
        """A backup of the store, taken as a write job (:mod:`.backups`): copied on the
        writer thread, checked and named off it; then the old ones pruned (``--keep``)."""
        folder = self.backup_folder()
        copied = await self.run(self.svc.copy_for_backup, folder, name)
        try:
            info = await asyncio.to_thread(finish_copy, copied)
        except BackupError as exc:
            log.error("backup not kept: %s", exc)
            raise ServiceError(500, "backup_failed", self.svc.hide_paths(str(exc))) from None
        except OSError as exc:
            raise failed(exc) from None
        out = info.to_dict()
        self.metrics.backups.inc()
        backup_log.info(
            "backup %s: %s bytes, %s game(s), %s event(s), heads entry %s",
            info.path,
            info.size,
            info.games,
            info.events,
            info.entry,
        )
        keep = self.config.backup_keep
        if keep is not None:
            removed = await asyncio.to_thread(prune, folder, keep)
            for p in removed:
                backup_log.info("backup %s removed (--keep %s)", p, keep)
            out["removed"] = [p.name for p in removed]
        return out

    async def backup_every(self, seconds: float) -> None:
        """Take a backup every ``seconds``, logged; the first ``seconds`` after the newest
        backup in the folder named by its time (a server restarted more often than that
        still backs up), or after ``seconds`` when there is none. A failure is logged and
        the next one tried on time."""
        folder = self.backup_folder()
        first = seconds
        with contextlib.suppress(OSError):  # what a stop during a backup left behind
            await asyncio.to_thread(remove_partials, folder)
            taken = stamped_names(folder)
            if taken:
                age = time.time() - taken[-1].stat().st_mtime
                first = min(seconds, max(0.0, seconds - age))
        wait = first
        while True:
            await asyncio.sleep(wait)
            wait = seconds
            try:
                await self.backup()
            except asyncio.CancelledError:
                raise
            except ServiceError as exc:
                backup_log.error("backup failed: %s", exc.reason)
            except Exception:
                backup_log.exception("backup failed")

    @property
    def svc(self) -> TableService:
        service = self.worker.service if self.worker is not None else None
        if service is None:
            raise ServiceError(503, "unavailable", "the service is starting or stopping")
        return service


def app_state(request: Request[Any, Any, Any]) -> AppState:
    """The state of the app serving ``request``."""
    return request.app.state["gostop"]  # type: ignore[no-any-return]
