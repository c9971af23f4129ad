"""Who gets the cores first when they are short: the writer thread and the event loop (an
entry, an answer), then the settler (the journal's rows into DuckDB), then the reads and the
checks of uploads (a page, a SQL query, an import's rules), which wait for nothing a table
does. A heavy query otherwise takes a core for seconds, and every entry behind it waits.
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading

__all__ = ["lower_priority"]


def lower_priority(nice: int) -> None:
    """This thread's CPU priority lowered by ``nice`` steps. Linux keeps a priority per
    thread, and DuckDB runs a query on the thread that asks (the store's connections have
    one DuckDB thread): a heavy query then takes only what the writer leaves of the cores.
    Elsewhere, or when the system refuses, nothing changes."""
    if nice <= 0 or not sys.platform.startswith("linux"):
        return
    tid = threading.get_native_id()
    with contextlib.suppress(OSError):
        os.setpriority(os.PRIO_PROCESS, tid, min(19, os.getpriority(os.PRIO_PROCESS, tid) + nice))
