"""The store as a recording session's sink (:class:`~gostop_records.recorder.EventSink`).

Beside the store it writes to, as :class:`~gostop_records.log.JsonlSink` is beside the log
writer: the session knows neither the SQL nor the files.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import GostopError

if TYPE_CHECKING:
    from collections.abc import Sequence

    from ..events import Envelope
    from ..projector import Projector

__all__ = ["StoreSink"]


class StoreSink:
    """The DuckDB store (:mod:`gostop_records.store`) as a sink: one committed transaction
    per append, with the expected version, so an append that races another writer is
    refused (:class:`~gostop_records.store.ConcurrencyError`) and writes nothing. An entry
    of a session is one transaction."""

    def __init__(self, path: str | os.PathLike[str] | None = None, *, create: bool = True):
        from .connection import default_path
        from .store import Store

        p = Path(path) if path is not None else default_path()
        if not create and not p.exists():
            raise GostopError(f"{p}: no store here (record a game into it first)")
        self.store = Store(p)
        self.location = str(p)

    def version(self, game_id: str) -> int:
        return self.store.version(game_id)

    def person_key(self, pid: str) -> bytes:
        """The key a game's names are sealed under (see ``gostop_records.names``)."""
        from .people import person_key

        return person_key(self.store, pid)

    def game_events(self, game_id: str) -> list[Envelope]:
        return self.store.events(game_id)

    def append(
        self,
        envs: Sequence[Envelope],
        expected_version: int,
        checked: Projector | None = None,
    ) -> None:
        """An entry (an input and its consequences) in one transaction, with the projector
        the session fed them to: the store checks the chain, not the rules again."""
        self.store.append(envs[0].game_id, list(envs), expected_version, checked=checked)

    def close(self) -> None:
        self.store.close()
