"""What the store's jobs (append, import, rebuild, repair, verify, export ...) work on: the
open file, its connection and what it keeps per game, as a protocol.

:class:`~.store.Store` is one; the jobs name this instead of it, so that ``store.py``, which
calls them, is the only module that knows the whole class (no module of the store imports
back the module that imports it).
"""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    import threading

    import duckdb

    from .. import events as E
    from .game_cache import GameCache, PendingRows
    from .journal import Journal

__all__ = ["StoreHandle"]


class StoreHandle(Protocol):
    """An open store file as its jobs use it."""

    path: Path
    read_only: bool
    journal: Journal | None
    #: Per-game projector state for live appends (see :mod:`.append`).
    cache: dict[str, GameCache]
    #: Projection rows of deferred appends, not written yet (see :mod:`.pending`).
    pending_rows: dict[str, PendingRows]
    rows_lock: threading.Lock
    rows_writing: int

    @property
    def conn(self) -> duckdb.DuckDBPyConnection: ...

    def _writable(self) -> None: ...

    def settle(self) -> int: ...

    def settle_for(self, game_id: str) -> None: ...

    def journal_turn(self) -> contextlib.AbstractContextManager[Any]: ...

    def rows_pending(self) -> bool: ...

    def head(self, game_id: str) -> tuple[int, str | None]: ...

    def events(self, game_id: str, until_seq: int | None = None) -> list[E.Envelope]: ...

    def games_events(self, game_ids: Sequence[str]) -> dict[str, list[tuple[Any, ...]]]: ...
