"""The process settings a bulk import runs with, and gives back when the last import
ends: a shorter switch interval and no cyclic garbage collection while it runs, one DuckDB
thread, no vacuum of the tables it writes to.
"""

from __future__ import annotations

import contextlib
import gc
import sys
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

from .connection import database_setting

if TYPE_CHECKING:
    from .handle import StoreHandle

__all__ = ["SWITCH_INTERVAL", "no_vacuum", "one_duckdb_thread", "tuned_interpreter"]


@dataclass(slots=True)
class _Tuning:
    """The interpreter's settings before the first import that runs, while any runs."""

    users: int = 0
    gc_enabled: bool = True
    interval: float = 0.005


_TUNING = _Tuning()


_TUNING_LOCK = threading.Lock()


#: How soon a thread waiting for the interpreter lock gets it during an import (seconds).
SWITCH_INTERVAL = 0.0002


@contextlib.contextmanager
def tuned_interpreter() -> Iterator[None]:
    """The interpreter tuned for imports, restored when the last one running ends.

    - The cyclic garbage collector is paused. A batch keeps tens of thousands of envelopes
      and game states alive until it is written, and each automatic collection walks all
      of them again to find next to no garbage: about a sixth of the import time.
    - A thread that waits for the interpreter lock gets it within :data:`SWITCH_INTERVAL`.
      The writer thread needs the lock only for moments (DuckDB takes it to start scanning
      each Arrow table), but by default Python hands the lock over every 5 ms only, and the
      writer spent most of a batch waiting for the main thread.
    """
    with _TUNING_LOCK:
        if _TUNING.users == 0:
            _TUNING.gc_enabled = gc.isenabled()
            _TUNING.interval = sys.getswitchinterval()
            gc.disable()
            sys.setswitchinterval(min(_TUNING.interval, SWITCH_INTERVAL))
        _TUNING.users += 1
    try:
        yield
    finally:
        with _TUNING_LOCK:
            _TUNING.users -= 1
            if _TUNING.users == 0:
                sys.setswitchinterval(_TUNING.interval)
                if _TUNING.gc_enabled:
                    gc.enable()


def one_duckdb_thread(store: StoreHandle) -> contextlib.AbstractContextManager[None]:
    """DuckDB works with one thread while imports run into a file, restored after the last.

    The import's workers (or its own thread) keep the cores busy; DuckDB's own extra
    threads would only take turns with them, which costs its writes about a sixth more
    time.
    """
    return database_setting(store.conn, store.path, "threads", "1")


def no_vacuum(store: StoreHandle) -> contextlib.AbstractContextManager[None]:
    """DuckDB does not merge row groups at its checkpoints while imports run into a file,
    restored after the last.

    Each transaction of an import leaves a partial last row group in every table (the
    projection tables' rows do not follow the events' cut, see :func:`ripe`); at the next
    checkpoint DuckDB merged them with the groups after them, rewriting rows it had just
    compressed: 1.2 to 2 s of the writer's 7 s of CPU on the bench corpus. The partial
    groups stay (on that corpus 11 groups of ``captures`` where 7 would do, the store 5%
    larger).
    """
    return database_setting(store.conn, store.path, "max_vacuum_tasks", "0")
