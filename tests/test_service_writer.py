"""The writer thread and the read threads: entries grouped, every other write in turn, reads
on connections of their own that never wait for the writer."""

from __future__ import annotations

import asyncio
import gc
import os
import re
import threading
import time
from concurrent.futures import Future
from pathlib import Path

import pytest
from service_helpers import KEY, auth, hand_lines, new_game, run_async, service_client

from gostop_records.service import reads as R
from gostop_records.service import worker as W
from gostop_records.service.core import EntryRequest, TableService
from gostop_records.service.models import EntryIn, NewGame
from gostop_records.service.reads import Reads
from gostop_records.service.serve import settle_gc
from gostop_records.service.settings import ServiceSettings


def _threads(svc: TableService) -> int:
    return int(svc.store.conn.execute("SELECT current_setting('threads')").fetchall()[0][0])


def test_the_store_runs_its_entries_on_the_threads_the_settings_give(tmp_path: Path) -> None:
    """The store's DuckDB threads come from the settings, still after an import (which
    holds one thread and restores what it found), and the entries recorded are the same
    whatever the number."""
    one = TableService(tmp_path / "one.duckdb", sign=False)
    two = TableService(
        tmp_path / "two.duckdb", sign=False, settings=ServiceSettings(store_threads=2)
    )
    try:
        assert _threads(one) == ServiceSettings().store_threads == 1
        assert _threads(two) == 2
        lines = hand_lines("matgo", 2, 7)[1][:10]
        for svc in (one, two):
            svc.create_game(NewGame(players=["Ann", "Ben"], game_id="g"))
            for line in lines:
                entry = EntryIn(expected_version=svc.store.version("g"), entry=line)
                ans = svc.enter_group([EntryRequest("g", entry)])[0]
                assert not isinstance(ans, Exception), ans
        # the same entries, the same events (each game mints its own person ids)
        assert [e.event for e in one.events("g")][1:] == [e.event for e in two.events("g")][1:]
        assert [p.name for p in one.events("g")[0].event.players] == ["Ann", "Ben"]
        assert [p.name for p in two.events("g")[0].event.players] == ["Ann", "Ben"]
        two.create_game(NewGame(players=["Cy", "Di"], game_id="p"))
        two.store.settle()  # the new game's events are in the journal until then
        one.import_jsonl(b"".join(e for e in [R.event_lines(two.store.conn, "p")]))
        assert one.store.version("p") == two.store.version("p")
        assert _threads(one) == 1
    finally:
        one.close()
        two.close()


def test_an_entry_answer_names_its_queue_store_and_app_time(tmp_path: Path) -> None:
    _sim, lines = hand_lines("matgo", 2, 1)
    with service_client(tmp_path / "t.duckdb") as c:
        game = new_game(c)
        r = c.post(
            f"/api/games/{game['game_id']}/entries",
            json={"entry": lines[0], "expected_version": game["version"]},
            headers={**auth(game["recorder_token"]), "Idempotency-Key": "k1"},
        )
        assert r.status_code == 201, r.text
        timing = r.headers["server-timing"]
        names = [m.split(";")[0].strip() for m in timing.split(",")]
        assert names == ["queue", "store", "app"]
        durs = {n: float(d) for n, d in re.findall(r"(\w+);dur=([\d.]+)", timing)}
        assert durs["app"] >= durs["store"] >= 0
        assert 'desc="group of 1"' in timing
        assert c.get("/api/health", headers=auth(KEY)).json()["queue"] == 0


def test_settle_gc_freezes_the_start_up_objects() -> None:
    gc.unfreeze()
    try:
        settle_gc()
        assert gc.get_freeze_count() > 0
    finally:
        gc.unfreeze()


def test_a_job_whose_caller_went_before_it_started_is_skipped() -> None:
    """A cancelled request's job is not run, and the thread goes on (a future cancelled
    under it once ended the thread with InvalidStateError)."""
    w = W.Worker()
    ran: list[str] = []
    gate = threading.Event()
    try:
        first = W._Job(fn=lambda: gate.wait(5))
        w.jobs.put(first)
        gone = W._Job(fn=lambda: ran.append("gone"))
        w.jobs.put(gone)
        assert gone.future.cancel()
        after = W._Job(fn=lambda: ran.append("after"))
        w.jobs.put(after)
        gate.set()
        assert after.future.result(timeout=5) is None
        assert ran == ["after"]
    finally:
        w.stop()


def test_a_read_runs_beside_a_write_that_holds_the_writer(tmp_path: Path) -> None:
    """A write job that keeps the writer thread busy delays no read: reads run on their own
    threads and connections, and still see every acknowledged entry."""
    svc = TableService(tmp_path / "r.duckdb", sign=False)
    reads = Reads(svc.store, svc.settler, threads=2)
    w = W.Worker()
    w.service = svc
    gate = threading.Event()
    try:
        svc.create_game(NewGame(players=["Ann", "Ben"], game_id="g"))
        line = hand_lines("matgo", 2, 3)[1][0]
        v0 = svc.store.version("g")
        ans = svc.enter_group([EntryRequest("g", EntryIn(expected_version=v0, entry=line))])[0]
        assert not isinstance(ans, Exception)
        busy: Future[object] = Future()
        w.jobs.put(W._Job(fn=lambda: gate.wait(10), future=busy))

        async def read() -> int:
            return await reads.run(lambda conn: R.version(conn, "g"))

        start = time.monotonic()
        assert run_async(read) == svc.store.version("g") > v0
        assert time.monotonic() - start < 5 and not busy.done()
    finally:
        gate.set()
        w.stop()
        reads.close()
        svc.close()


def test_closing_the_reads_interrupts_a_long_query_and_frees_the_store(tmp_path: Path) -> None:
    """Stopping never waits for a read: a query that would run for minutes is interrupted,
    its connection closed, and the store file can be opened by another process after."""
    db = tmp_path / "q.duckdb"
    svc = TableService(db, sign=False)
    reads = Reads(svc.store, svc.settler, threads=1)
    slow = "SELECT count(*) FROM range(100000000000) a"

    async def run() -> None:
        task = asyncio.ensure_future(reads.run(lambda conn: conn.execute(slow).fetchall()))
        await asyncio.sleep(0.5)
        start = time.monotonic()
        await asyncio.to_thread(reads.close)
        assert time.monotonic() - start < 10
        with pytest.raises(Exception):  # noqa: B017 - DuckDB's interrupt, whatever its type
            await task

    run_async(run)
    svc.close()
    import subprocess
    import sys

    done = subprocess.run(
        [sys.executable, "-c", f"import duckdb; duckdb.connect({str(db)!r}).close()"],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ},
    )
    assert done.returncode == 0, done.stderr
