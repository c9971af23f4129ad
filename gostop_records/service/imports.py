"""Imports through the service: an upload checked as ``gostop db import`` checks a file,
then appended through the journal as entries are (:mod:`..store.upload`).

The rules run on the upload before the writer sees it (:meth:`Imports.read_upload`, in a
process of its own on the server: :class:`UploadChecks`); the writer only judges each game
against the store and writes one journal record (:meth:`Imports.import_upload`), so a
table's entry waits for an upload no longer than for another table's entry.
"""

from __future__ import annotations

import asyncio
import logging
import multiprocessing as mp
import os
import tempfile
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from functools import partial
from pathlib import Path
from typing import Any

from ..errors import LogError
from ..store.upload import Upload, append_upload, read_upload
from .errors import ServiceError
from .priority import lower_priority
from .sessions import Sessions, unavailable

log = logging.getLogger("gostop.service")


__all__ = ["Imports", "UploadChecks"]


class Imports(Sessions):
    """Logs uploaded whole (an import, a finished ``/play`` hand), through the same writer."""

    def import_jsonl(self, data: bytes, *, lenient: bool = False) -> dict[str, Any]:
        """A JSON Lines upload read, checked and appended in one call, on this thread (the
        server splits it: :meth:`read_upload` before the writer, :meth:`import_upload` on it)."""
        up = self.read_upload(data, lenient=lenient)
        try:
            return self.import_upload(up)
        finally:
            self.discard(up)

    @staticmethod
    def read_upload(data: bytes, *, lenient: bool = False) -> Upload:
        """A JSON Lines upload read and checked by the rules, off the writer's thread; give
        it to :meth:`import_upload`, then to :meth:`discard`."""
        if not data.strip():
            raise ServiceError(400, "bad_import", "the upload is empty: send JSON Lines")
        fd, name = tempfile.mkstemp(prefix="gostop-upload-", suffix=".jsonl")
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(data if data.endswith(b"\n") else data + b"\n")
            return read_upload(name, strict=not lenient)
        except LogError as exc:
            Path(name).unlink(missing_ok=True)
            raise ServiceError(400, "bad_import", str(exc).replace(name, "upload")) from None
        except BaseException:
            Path(name).unlink(missing_ok=True)
            raise

    @staticmethod
    def discard(up: Upload) -> None:
        """The upload's file, removed (its problems have named their lines by now)."""
        Path(up.path).unlink(missing_ok=True)

    def import_upload(self, up: Upload) -> dict[str, Any]:
        """Each game of ``up`` judged against the store and its new events appended through
        the journal (on the writer's thread); the report as ``db import`` gives it, with the
        file named ``upload``."""
        cause = self.write_error()
        if cause is not None:
            raise unavailable(cause)
        report, results = append_upload(self.store, up)
        for r in results:  # a recording session of a game the upload extended is behind
            self.live.pop(r.game_id, None)
        if results and self.after_commit is not None:
            self.after_commit()
        if self.on_commit is not None:
            for r in results:
                self.on_commit(r.game_id, list(r.envelopes))
        return _without_path(report.to_dict(), up.path)


class UploadChecks:
    """The process in which the server reads and checks uploads, one at a time.

    Checking an upload by the rules is tens of milliseconds of pure Python a game. On a
    thread of the server it would hold the interpreter's lock against the writer and the
    event loop, and a lower CPU priority makes that worse: the checking thread, put off by
    the kernel while it holds the lock, keeps every entry waiting. In a process of its own
    (started at the first upload, at a lower priority) it takes only a core the server
    leaves free; the upload's checked runs come back pickled.
    """

    def __init__(self, nice: int) -> None:
        self.nice = nice
        self._pool: ProcessPoolExecutor | None = None

    async def read(self, data: bytes, *, lenient: bool = False) -> Upload:
        """:meth:`Imports.read_upload` of ``data``, in the checking process."""
        if self._pool is None:
            self._pool = ProcessPoolExecutor(
                1,
                mp_context=mp.get_context("spawn"),
                initializer=lower_priority,
                initargs=(self.nice,),
            )
        pool = self._pool
        loop = asyncio.get_running_loop()
        try:
            return await loop.run_in_executor(pool, partial(_checked, data, lenient))
        except BrokenProcessPool:
            if self._pool is pool:  # the next upload starts a new one
                self._pool = None
            pool.shutdown(wait=False, cancel_futures=True)
            log.error("the process checking uploads stopped; the next upload starts another")
            raise ServiceError(
                503, "unavailable", "the upload could not be checked: send it again"
            ) from None

    def close(self) -> None:
        pool, self._pool = self._pool, None
        if pool is not None:
            pool.shutdown(wait=False, cancel_futures=True)


def _checked(data: bytes, lenient: bool) -> Upload:
    """In the checking process: a refusal goes back as it is, anything else as its words
    (an exception of another type may not survive the trip back)."""
    try:
        return Imports.read_upload(data, lenient=lenient)
    except ServiceError:
        raise
    except Exception as exc:
        raise RuntimeError(f"{type(exc).__name__}: {exc}") from None


def _without_path(value: Any, path: str) -> Any:
    """``value`` with the upload's temporary file named ``upload`` (no server path in an
    answer)."""
    if isinstance(value, str):
        return value.replace(path, "upload")
    if isinstance(value, dict):
        return {k: _without_path(v, path) for k, v in value.items()}
    if isinstance(value, list):
        return [_without_path(v, path) for v in value]
    return value
