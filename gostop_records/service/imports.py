"""Imports through the service: an upload checked as ``gostop db import`` checks a file,
then appended through the journal as entries are (:mod:`..store.upload`).

The rules run on the upload before the writer sees it (:meth:`Imports.read_upload`, on a
thread of the request's own); the writer only judges each game against the store and writes
one journal record (:meth:`Imports.import_upload`), so a table's entry waits for an upload
no longer than for another table's entry.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Any

from ..errors import LogError
from ..store.upload import Upload, append_upload, read_upload
from .errors import ServiceError
from .sessions import Sessions, unavailable

__all__ = ["Imports"]


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
