"""The settler: the journal's rows and the projection rows written to DuckDB by a second
thread while the store thread goes on journaling entries. What it writes is what the store
thread would have written; a read right after an entry sees it; a kill with a batch in
flight loses nothing (the journal's segments are applied in order on the next open); a
failed batch is a 503 for reads and stays in the journal; a shutdown settles everything."""

from __future__ import annotations

import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from service_helpers import KEY, auth, hand_lines, new_game, service_client
from store_support import journal_records
from test_store_group import AT
from test_store_journal import ANSWERS, GAMES, _append_all, _expected, _tables

from gostop_records.service import reads as R
from gostop_records.service import settler as S
from gostop_records.service.core import EntryRequest, TableService
from gostop_records.service.models import EntryIn, NewGame
from gostop_records.service.settings import ServiceSettings
from gostop_records.store import Store
from gostop_records.store.append import Append
from gostop_records.store.journal import Journal, segments
from gostop_records.store.schema import TABLES

CLOCK = "2026-12-02T05:00:00Z"


def _clock() -> str:
    return CLOCK


def _projection(svc: TableService) -> dict[str, list[tuple[Any, ...]]]:
    conn = svc.store.conn
    return {
        name: sorted(conn.execute(f"SELECT * FROM {name}").fetchall(), key=repr) for name in TABLES
    }


def _wait(cond: Any, timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while not cond():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.01)


@settings(
    max_examples=6, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    batch=st.integers(min_value=1, max_value=6),
    reads=st.lists(st.integers(min_value=0, max_value=40), max_size=4),
)
def test_what_the_settler_writes_is_what_a_rebuild_derives(
    tmp_path_factory: pytest.TempPathFactory, batch: int, reads: list[int]
) -> None:
    """Three tables record in turns while the settler writes batches of ``batch`` records
    and reads (each on its own connection, after the settler's sync) come in between: every
    read sees every entry acknowledged before it, and the store ends up as a rebuild derives
    it, its heads chain whole."""
    tmp = tmp_path_factory.mktemp("settler")
    cfg = ServiceSettings(settle_records=batch, settle_s=0.002)
    svc = TableService(tmp / "apart.duckdb", sign=False, clock=_clock, settings=cfg)
    reader = svc.store.conn.cursor()
    try:
        assert svc.settler is not None
        scripts = [hand_lines("matgo", 2, seed)[1][:30] for seed in (3, 4, 5)]
        games = [f"g{k}" for k in range(len(scripts))]
        for gid in games:
            svc.create_game(NewGame(players=["Ann", "Ben"], game_id=gid))
        versions = dict.fromkeys(games, svc.store.version(games[0]))
        n = 0
        for step in range(max(len(s) for s in scripts)):
            for gid, lines in zip(games, scripts, strict=True):
                if step >= len(lines):
                    continue
                entry = EntryIn(expected_version=versions[gid], entry=lines[step])
                ans = svc.enter_group([EntryRequest(gid, entry)])[0]
                assert not isinstance(ans, Exception), ans
                svc.settler.poke()
                versions[gid] = msgspec.json.decode(ans.body)["version"]
                n += 1
                if n in reads:  # a read on a connection of its own
                    assert svc.settler.sync(10) is None
                    assert R.search(reader)["total"] == len(games)
                    assert R.version(reader, gid) == versions[gid]
        _wait(lambda: not svc.store.pending_rows and not svc.store.journal.records)  # type: ignore[union-attr]
        assert svc.settler.batches > 0
        with svc.hold():
            assert svc.store.verify().ok
    finally:
        reader.close()
        svc.close()
    assert not segments(tmp / "apart.duckdb")


_KILLED = textwrap.dedent(
    """
    import os, signal, sys
    sys.path.insert(0, {tests!r})
    from test_store_journal import ANSWERS, _append_all, GAMES
    from test_store_group import AT
    from gostop_records.store import Store
    from gostop_records.store.append import Append
    from gostop_records.store.writer import transaction
    store = Store({db!r})
    store.conn.execute(ANSWERS)
    store.open_journal()
    versions = _append_all(store, journal=True, upto=3)
    j = store.journal
    cur = store.conn.cursor()  # the settler's connection
    j.turn.acquire()
    taken = j.take()  # the first segment closed: what follows goes to the next
    assert taken.records == 3
    if {commit!r}:
        with transaction(cur):
            j.insert(cur, taken)  # committed, the segment not removed yet
    else:
        cur.execute("BEGIN TRANSACTION")
        j.insert(cur, taken)  # in flight
    for k in (3, 4):  # the store thread goes on journaling meanwhile
        group = [
            Append(gid, es[k], versions[gid], at=AT, rows={{"answers": [(gid, f"k{{k}}")]}})
            for gid, es in GAMES
        ]
        for r in store.append_group(group, defer_rows=True, journal=True):
            versions[r.game_id] = r.version
    os.kill(os.getpid(), signal.SIGKILL)
    """
)


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
@pytest.mark.parametrize("commit", [False, True], ids=["in-flight", "committed"])
def test_a_kill_with_a_batch_in_flight_loses_nothing(tmp_path: Path, commit: bool) -> None:
    """The settler has taken the first three records (their segment closed) and is writing
    them, or has committed them without removing the segment, while two more groups are
    journaled into the next segment; then the process is killed. The next open applies
    both segments, oldest first: every acknowledged entry is in the store, once."""
    db = tmp_path / "s.duckdb"
    code = _KILLED.format(tests=str(Path(__file__).parent), db=str(db), commit=commit)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, timeout=120)
    assert done.returncode == -signal.SIGKILL, done.stderr.decode()
    assert len(segments(db)) == 2
    records, torn = journal_records(db)
    assert len(records) == 5 and torn == 0
    with Store(db) as store:
        assert {gid: store.version(gid) for gid, _ in GAMES} == _expected(5)
        assert store.conn.execute("SELECT count(*) FROM answers").fetchall() == [(10,)]
        report = store.verify()  # the heads chain counts every event, rows caught up
        assert report.ok, report.problems()
        got = _tables(store)
    assert not segments(db)
    # the same entries journaled and settled in one process make the same store
    with Store(tmp_path / "ref.duckdb") as ref:
        ref.conn.execute(ANSWERS)
        ref.open_journal()
        _append_all(ref, journal=True, upto=5)
        ref.flush_rows()
        assert _tables(ref) == got


def test_taking_the_rows_starts_a_new_segment(tmp_path: Path) -> None:
    """Records appended after a take go to the next segment; a failed batch is taken
    again with the newer records, oldest first, and removed only once committed."""
    with Store(tmp_path / "s.duckdb") as store:
        store.conn.execute(ANSWERS)
        store.open_journal()
        j = store.journal
        assert j is not None
        _append_all(store, journal=True, upto=2)
        first = j.path
        with j.turn:
            taken = j.take()
        assert taken is not None and taken.records == 2 and j.path != first
        assert j.records == 2  # not committed: still pending
        gid, es = GAMES[0]
        store.append_group(
            [Append(gid, es[2], _expected(2)[gid], at=AT)], defer_rows=True, journal=True
        )
        assert segments(store.path) == [first, j.path]
        with j.turn:
            again = j.take()
        assert again is not None and again.records == 3
        assert again.rows["events"][: len(taken.rows["events"])] == taken.rows["events"]
        store.flush_rows()
        assert j.records == 0 and segments(store.path) == [j.path]
        assert store.version(gid) == _expected(3)[gid]
    assert not segments(tmp_path / "s.duckdb")


def _enter(c: Any, game: dict[str, Any], line: str, version: int, key: str) -> Any:
    return c.post(
        f"/api/games/{game['game_id']}/entries",
        json={"entry": line, "expected_version": version},
        headers={**auth(game["recorder_token"]), "Idempotency-Key": key},
    )


def test_a_read_right_after_an_entry_sees_it(tmp_path: Path) -> None:
    """Through the server (the settler on): after every acknowledged entry, the game's log,
    its table and the search hold it, whatever the settler has written by then."""
    db = tmp_path / "t.duckdb"
    _sim, lines = hand_lines("matgo", 2, 3)
    with service_client(db) as c:
        svc = c.app.state["gostop"].svc
        assert svc.settler is not None
        game = new_game(c)
        version = game["version"]
        for k, line in enumerate(lines[:24]):
            r = _enter(c, game, line, version, f"k{k}")
            assert r.status_code == 201, r.text
            version = r.json()["version"]
            log = c.get(f"/api/games/{game['game_id']}/events").text.splitlines()
            assert len(log) == version
            if k % 6 == 0:
                found = c.get("/api/games", headers=auth(KEY)).json()["games"]
                assert [g["version"] for g in found] == [version]
                assert c.get(f"/api/games/{game['game_id']}").status_code == 200


def test_a_failed_batch_stops_entries_names_the_cause_and_clears_by_itself(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The settler cannot write (a full disk): the entries acknowledged before are kept in
    the journal; a read says why with a 503, and so does the next entry (nothing more is
    taken while it lasts); the key holder's health names the cause; once the disk is freed
    the settler's next try goes through by itself, reads see every entry and entries are
    taken again; the store verifies."""
    db = tmp_path / "t.duckdb"
    _sim, lines = hand_lines("matgo", 2, 3)
    real = Journal.insert

    def full(self: Journal, conn: Any, taken: Any) -> None:
        raise OSError(28, "No space left on device")

    cfg = ServiceSettings(retry_s=0.05, wait_s=2.0)
    with service_client(db, settings=cfg) as c:
        svc = c.app.state["gostop"].svc
        game = new_game(c)
        version = game["version"]
        monkeypatch.setattr(Journal, "insert", full)
        for k, line in enumerate(lines[: cfg.settle_records + 2]):
            r = _enter(c, game, line, version, f"k{k}")
            if r.status_code == 503:
                break
            assert r.status_code == 201, r.text
            version = r.json()["version"]
        _wait(lambda: svc.settler.failures > 0)
        records, _torn = journal_records(db)
        (held,) = svc.store.conn.execute(
            "SELECT count(*) FROM events WHERE game_id = ?", [game["game_id"]]
        ).fetchone()
        # every acknowledged event is in DuckDB or in the journal, none in both
        assert held + sum(len(r["events"]) for r in records) == version
        r = c.get(f"/api/games/{game['game_id']}/events")
        assert r.status_code == 503, r.text
        assert "disk holding the store is full" in r.json()["reason"]
        r = _enter(c, game, lines[20], version, "refused")
        assert r.status_code == 503 and "full" in r.json()["reason"], r.text
        health = c.get("/api/health", headers=auth(KEY)).json()
        assert health["ok"] is False and "full" in health["writes"]
        monkeypatch.setattr(Journal, "insert", real)
        _wait(lambda: svc.write_error() is None)
        log = c.get(f"/api/games/{game['game_id']}/events").text.splitlines()
        assert len(log) == version
        r = _enter(c, game, lines[len(log) - game["version"]], version, "next")
        assert c.get("/api/health").json()["ok"] is True
    with Store(db) as store:
        assert store.version(game["game_id"]) >= version
        assert store.verify().ok


def test_a_shutdown_settles_everything(tmp_path: Path) -> None:
    """Entries journaled and not yet settled when the server stops are in DuckDB after it,
    projection rows included; no journal is left; a restarted server goes on."""
    db = tmp_path / "t.duckdb"
    _sim, lines = hand_lines("matgo", 2, 5)
    with service_client(db) as c:
        game = new_game(c)
        version = game["version"]
        for k, line in enumerate(lines[:5]):  # fewer than a batch, well within SETTLE_S
            r = _enter(c, game, line, version, f"k{k}")
            assert r.status_code == 201, r.text
            version = r.json()["version"]
        assert c.app.state["gostop"].svc.store.journal.records > 0
    assert not segments(db)
    gid = game["game_id"]
    with Store(db) as store:
        assert store.version(gid) == version
        assert store.conn.execute(
            "SELECT seq FROM positions WHERE game_id = ?", [gid]
        ).fetchall() == [(version,)]
    with service_client(db) as c:  # the first entry after a restart reads the game back
        r = _enter(c, game, lines[5], version, "k5")
        assert r.status_code == 201, r.text
        assert r.json()["version"] > version


def test_a_settler_needs_the_journal(tmp_path: Path) -> None:
    with Store(tmp_path / "s.duckdb") as store, pytest.raises(ValueError, match="journal"):
        S.Settler(store)


def test_the_settle_marks_come_from_the_settings(tmp_path: Path) -> None:
    with Store(tmp_path / "s.duckdb") as store:
        store.open_journal()
        settler = S.Settler(store, ServiceSettings(settle_records=64, settle_s=2.0))
        try:
            assert (settler.records, settler.seconds) == (64, 2.0)
        finally:
            settler.stop()
