"""The store thread's order of work: entries first, deferred projection rows in slices."""

from __future__ import annotations

import gc
import os
import re
import time
from pathlib import Path
from typing import Any

import msgspec
import pytest
from service_helpers import KEY, auth, hand_lines, new_game, service_client

from gostop_records.service import worker as W
from gostop_records.service.core import STORE_THREADS, EntryRequest, TableService
from gostop_records.service.errors import ServiceError
from gostop_records.service.models import EntryIn, NewGame
from gostop_records.service.serve import GC_ENV, settle_gc
from gostop_records.store.schema import TABLES


class _Store:
    def __init__(self, games: int) -> None:
        self.pending_rows: dict[str, object] = {f"g{k}": object() for k in range(games)}
        self.journal = None

    def rows_pending(self) -> bool:
        return bool(self.pending_rows)


class _Service:
    """Pending rows of a few games; records each write's size. ``then`` runs once none is
    left (a job arriving afterwards, so that the worker's wait returns)."""

    def __init__(self, games: int, then: Any = None) -> None:
        self.store = _Store(games)
        self.settler = None
        self.writes: list[int | None] = []
        self.then = then

    def flush_rows(self, limit: int | None = None, *, settle: bool = True) -> bool:
        ids = list(self.store.pending_rows)[:limit] if limit else list(self.store.pending_rows)
        for gid in ids:
            del self.store.pending_rows[gid]
        self.writes.append(limit)
        if not self.store.pending_rows and self.then is not None:
            self.then()
        return True


def _idle_worker(service: _Service, due_in: float) -> W.Worker:
    """A worker whose thread has stopped: its choices are driven from the test."""
    w = W.Worker()
    w.stop()
    w.service = service  # type: ignore[assignment]
    w._flush_at = time.monotonic() + due_in
    return w


def test_a_waiting_entry_goes_before_rows_that_are_due() -> None:
    svc = _Service(3)
    w = _idle_worker(svc, -0.01)
    job = W._Job(fn=lambda: None)
    w.jobs.put(job)
    assert w._next() is job
    assert svc.writes == [] and len(svc.store.pending_rows) == 3


def test_due_rows_are_written_one_game_per_transaction_while_nothing_waits() -> None:
    job = W._Job(fn=lambda: None)
    svc = _Service(3)
    w = _idle_worker(svc, -0.01)
    svc.then = lambda: w.jobs.put(job)
    assert w._next() is job
    assert svc.writes == [W.SLICE_GAMES] * 3
    assert w._flush_at is None


def test_late_rows_take_one_game_before_each_waiting_entry() -> None:
    svc = _Service(3)
    w = _idle_worker(svc, -(W.FLUSH_LATE_S + 1))
    first, second = W._Job(fn=lambda: None), W._Job(fn=lambda: None)
    w.jobs.put(first)
    w.jobs.put(second)
    assert w._next() is first
    assert svc.writes == [W.SLICE_GAMES]
    assert w._next() is second
    assert svc.writes == [W.SLICE_GAMES] * 2
    assert w._flush_at is not None  # one game's rows still to write


def test_rows_not_due_yet_wait() -> None:
    svc = _Service(2)
    w = _idle_worker(svc, 60)
    job = W._Job(fn=lambda: None)
    w.jobs.put(job)
    assert w._next() is job
    assert svc.writes == []


def test_the_whole_switch_writes_every_game_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(W.FLUSH_ENV, "whole")
    svc = _Service(3)
    w = _idle_worker(svc, -0.01)
    job = W._Job(fn=lambda: None)
    w.jobs.put(job)
    assert w._next() is job
    assert svc.writes == [None] and not svc.store.pending_rows


def _projection(svc: TableService) -> dict[str, list[tuple[Any, ...]]]:
    conn = svc.store.conn
    return {
        name: sorted(conn.execute(f"SELECT * FROM {name}").fetchall(), key=repr) for name in TABLES
    }


def test_rows_written_a_game_at_a_time_are_the_rows_written_inline(tmp_path: Path) -> None:
    """Three tables recording in turns; one store writes each entry's rows in its own
    transaction, the other defers them and writes one game's at a time (the oldest
    first), as the store thread does: the projection tables end up the same."""

    def clock() -> str:
        return "2026-12-02T05:00:00Z"

    inline = TableService(tmp_path / "inline.duckdb", defer_rows=False, sign=False, clock=clock)
    sliced = TableService(tmp_path / "sliced.duckdb", defer_rows=True, sign=False, clock=clock)
    try:
        scripts = [hand_lines("matgo", 2, seed)[1][:25] for seed in (3, 4, 5)]
        games = []
        for k in range(len(scripts)):
            req = NewGame(players=["Ann", "Ben"], game_id=f"g{k}")
            for svc in (inline, sliced):
                svc.create_game(req)
            games.append(f"g{k}")
        sliced.flush_rows()
        versions = dict.fromkeys(games, inline.store.version(games[0]))
        for step in range(max(len(s) for s in scripts)):
            for gid, lines in zip(games, scripts, strict=True):
                if step >= len(lines):
                    continue
                entry = EntryIn(expected_version=versions[gid], entry=lines[step])
                for svc in (inline, sliced):
                    ans = svc.enter_group([EntryRequest(gid, entry)])[0]
                    assert not isinstance(ans, Exception), ans
                versions[gid] = msgspec.json.decode(ans.body)["version"]
            if step % 2:  # every other round, one game's rows: they fall behind, then catch up
                before = list(sliced.store.pending_rows)
                assert sliced.flush_rows(1)
                assert list(sliced.store.pending_rows) == before[1:]
        assert sliced.store.pending_rows
        sliced.flush_rows()
        assert not sliced.store.pending_rows
        assert _projection(sliced) == _projection(inline)
    finally:
        inline.close()
        sliced.close()


def _threads(svc: TableService) -> int:
    return int(svc.store.conn.execute("SELECT current_setting('threads')").fetchall()[0][0])


def test_the_store_runs_its_entries_on_duckdbs_own_thread(tmp_path: Path) -> None:
    """The service's store has STORE_THREADS DuckDB threads (bench.commit_cost says why),
    still after an import (which holds one thread and restores what it found), and the
    entries it records are the same as with DuckDB's default pool."""
    own = TableService(tmp_path / "one.duckdb", sign=False)
    pool = TableService(tmp_path / "pool.duckdb", sign=False, threads=None)
    try:
        assert _threads(own) == STORE_THREADS
        assert _threads(pool) > STORE_THREADS or os.cpu_count() == 1
        lines = hand_lines("matgo", 2, 7)[1][:10]
        for svc in (own, pool):
            svc.create_game(NewGame(players=["Ann", "Ben"], game_id="g"))
            for line in lines:
                entry = EntryIn(expected_version=svc.store.version("g"), entry=line)
                ans = svc.enter_group([EntryRequest("g", entry)])[0]
                assert not isinstance(ans, Exception), ans
        assert [e.event for e in own.events("g")] == [e.event for e in pool.events("g")]
        pool.create_game(NewGame(players=["Cy", "Di"], game_id="p"))
        own.import_jsonl(pool.event_lines("p"))
        assert own.store.version("p") == pool.store.version("p")
        assert _threads(own) == STORE_THREADS
    finally:
        own.close()
        pool.close()


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
        c.get("/api/health", headers=auth(KEY))


def test_settle_gc_freezes_the_start_up_objects(monkeypatch: pytest.MonkeyPatch) -> None:
    gc.unfreeze()
    try:
        monkeypatch.setenv(GC_ENV, "default")
        settle_gc()
        assert gc.get_freeze_count() == 0
        monkeypatch.delenv(GC_ENV)
        settle_gc()
        assert gc.get_freeze_count() > 0
    finally:
        gc.unfreeze()


def test_the_journal_is_settled_in_batches_and_before_any_read(tmp_path: Path) -> None:
    """Slices of projection rows leave the journal's rows for one larger batch, due after
    :data:`~W.SETTLE_S`; a read settles them at once, and the store holds every entry."""
    svc = TableService(tmp_path / "j.duckdb", sign=False)
    try:
        gid = msgspec.json.decode(svc.create_game(NewGame(players=["Ann", "Ben"])).body)["game_id"]
        _sim, lines = hand_lines("matgo", 2, 3)
        version = svc.store.version(gid)
        for k, line in enumerate(lines[:4]):
            ans = svc.enter(
                gid, EntryIn(expected_version=version, entry=line), idempotency_key=f"k{k}"
            )
            version = msgspec.json.decode(ans.body)["version"]
        j = svc.store.journal
        assert j is not None and j.records == 4
        w = _idle_worker(svc, -0.01)  # type: ignore[arg-type]
        w._slice()  # the game's rows; the journal is not due yet
        assert not svc.store.pending_rows and j.records == 4
        assert w._flush_at == j.since + W.SETTLE_S
        with pytest.MonkeyPatch.context() as m:  # now it is
            m.setattr(W, "SETTLE_S", 0.0)
            w._slice()
        assert j.records == 0 and w._flush_at is None
        ans = svc.enter(
            gid, EntryIn(expected_version=version, entry=lines[4]), idempotency_key="k4"
        )
        assert j.records == 1
        assert svc.search()["games"][0]["version"] == msgspec.json.decode(ans.body)["version"]
        assert j.records == 0
    finally:
        svc.close()


def test_a_read_the_journal_cannot_be_settled_for_is_a_503_and_keeps_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A full disk at the moment a read settles the journal: the read says why with a 503,
    the journal keeps the entry, and the next read (the disk freed) sees it."""
    svc = TableService(tmp_path / "j.duckdb", sign=False)
    try:
        gid = msgspec.json.decode(svc.create_game(NewGame(players=["Ann", "Ben"])).body)["game_id"]
        _sim, lines = hand_lines("matgo", 2, 3)
        version = svc.store.version(gid)
        ans = svc.enter(gid, EntryIn(expected_version=version, entry=lines[0]), idempotency_key="k")
        want = msgspec.json.decode(ans.body)["version"]
        j = svc.store.journal
        assert j is not None and j.records == 1

        def full(*_a: object, **_k: object) -> int:
            raise OSError(28, "No space left on device")

        with monkeypatch.context() as m:  # the journal's rows cannot go to DuckDB
            m.setattr(j, "insert", full)
            m.setattr(j, "apply", full)
            for read in (svc.search, svc.health):
                with pytest.raises(ServiceError) as err:
                    read()
                assert err.value.status == 503 and "No space left" in err.value.reason
        assert j.records == 1
        assert svc.search()["games"][0]["version"] == want
        assert j.records == 0
    finally:
        svc.close()
