"""Who gets the cores first: the reads' threads and the uploads' checks run in Linux's idle
class (they take a core only when nothing else wants it), the settler a few steps nicer
than the writer, and the thread that asks is never changed by another's setting."""

from __future__ import annotations

import asyncio
import os
import sys
import threading
from pathlib import Path

import pytest
from service_helpers import run_async

from gostop_records.service.priority import idle_priority, lower_priority
from gostop_records.service.reads import Reads
from gostop_records.store import Store

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="thread priorities are Linux's"
)


def _in_thread(setup: object) -> tuple[int, int]:
    """(scheduling policy, nice value) of a new thread after ``setup(10)``."""
    seen: list[tuple[int, int]] = []

    def body() -> None:
        setup(10)  # type: ignore[operator]
        tid = threading.get_native_id()
        seen.append((os.sched_getscheduler(tid), os.getpriority(os.PRIO_PROCESS, tid)))

    t = threading.Thread(target=body)
    t.start()
    t.join()
    return seen[0]


def test_idle_priority_puts_the_thread_in_the_idle_class_and_lower_priority_only_nicer() -> None:
    me = threading.get_native_id()
    before = (os.sched_getscheduler(me), os.getpriority(os.PRIO_PROCESS, me))
    policy, nice = _in_thread(idle_priority)
    assert policy == os.SCHED_IDLE and nice == min(19, before[1] + 10)
    policy, nice = _in_thread(lower_priority)
    assert policy == before[0] and nice == min(19, before[1] + 10)
    assert (os.sched_getscheduler(me), os.getpriority(os.PRIO_PROCESS, me)) == before


def test_every_read_runs_in_the_idle_class(tmp_path: Path) -> None:
    with Store(tmp_path / "s.duckdb") as store:
        reads = Reads(store, None, threads=2, nice=10)
        try:

            async def policies() -> list[int]:
                ask = [reads.run(lambda _c: os.sched_getscheduler(0)) for _ in range(6)]
                return list(await asyncio.gather(*ask))

            assert set(run_async(policies)) == {os.SCHED_IDLE}
        finally:
            reads.close()
