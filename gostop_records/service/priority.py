"""Who gets the cores first when they are short: the writer thread and the event loop (an
entry, an answer), then the settler (the journal's rows into DuckDB), then the reads and the
checks of uploads (a page, a SQL query, an import's rules), which wait for nothing a table
does. A heavy query otherwise takes a core for seconds, and every entry behind it waits.

Linux keeps a priority per thread, and DuckDB runs a query on the thread that asks (the
store's connections have one DuckDB thread each), so a thread's own setting is enough. The
settler runs a few steps nicer than the writer; the reads and the uploads' checks run in
Linux's idle class (``SCHED_IDLE``): they get a core only when nothing else wants it and
give it up the moment something does. A nice value only weighs a thread's share: a waking
entry could still wait a scheduler tick behind a query, and on two cores those waits made
the busy tail twice the quiet one (docs/performance.md). The price: on a machine whose
cores other programs keep busy, a read waits until they rest, within the read's own time
limit.
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading

__all__ = ["idle_priority", "lower_priority"]


def lower_priority(nice: int) -> None:
    """This thread's CPU priority lowered by ``nice`` steps (Linux); elsewhere, or when the
    system refuses, nothing changes."""
    if nice <= 0 or not sys.platform.startswith("linux"):
        return
    tid = threading.get_native_id()
    with contextlib.suppress(OSError):
        os.setpriority(os.PRIO_PROCESS, tid, min(19, os.getpriority(os.PRIO_PROCESS, tid) + nice))


def idle_priority(nice: int) -> None:
    """This thread in Linux's idle class (see the module docstring), and ``nice`` steps
    lower too, which is what is left where the idle class is refused or unknown."""
    lower_priority(nice)
    if not sys.platform.startswith("linux"):
        return
    with contextlib.suppress(OSError, AttributeError):
        os.sched_setscheduler(threading.get_native_id(), os.SCHED_IDLE, os.sched_param(0))
