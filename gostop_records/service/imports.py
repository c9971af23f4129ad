"""Imports through the service: an upload validated and stored whole per game, as ``gostop
db import`` does, on the writer thread holding the journal's turn; only the games it
extended are read again.
"""

from __future__ import annotations

import logging
import os
import tempfile
from pathlib import Path
from typing import Any

import msgspec

from ..errors import (
    LogError,
)
from .errors import ServiceError
from .sessions import (
    Sessions,
)

log = logging.getLogger("gostop.service")


__all__ = ["Imports"]


class Imports(Sessions):
    """Logs uploaded whole (an import, a finished ``/play`` hand), through the same writer."""

    def import_jsonl(self, data: bytes, *, lenient: bool = False) -> dict[str, Any]:
        """A JSON Lines upload, validated and stored whole per game, as ``gostop db import``."""
        if not data.strip():
            raise ServiceError(400, "bad_import", "the upload is empty: send JSON Lines")
        fd, name = tempfile.mkstemp(prefix="gostop-upload-", suffix=".jsonl")
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(data if data.endswith(b"\n") else data + b"\n")
            # the games this server holds in memory: only those the import extends are read
            # again (every table's session rebuilt after each import would stall them all)
            held = set(self.live) | set(self.store.cache)
            before = self._versions(held)
            with self.hold():  # the import extends the heads chain: the settler waits
                report = self.store.import_paths([Path(name)], strict=not lenient, workers=0)
        except LogError as exc:
            self.forget()
            raise ServiceError(400, "bad_import", str(exc).replace(name, "upload")) from None
        except BaseException:
            self.forget()
            raise
        finally:
            Path(name).unlink(missing_ok=True)
        after = self._versions(held)
        moved = {g for g in held if after[g] != before[g]}
        self.forget(moved)
        out = report.to_dict()
        text = msgspec.json.encode(out).decode().replace(name, "upload")
        if self.on_commit is not None:
            for gid in sorted(moved):
                new = [e for e in self.store.events(gid) if e.seq > before[gid]]
                if new:
                    self.on_commit(gid, new)
        return msgspec.json.decode(text)  # type: ignore[no-any-return]
