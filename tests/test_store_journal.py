"""The store's journal: journaled appends leave the store as transactions do; a process
killed after the journal's sync, before DuckDB holds the rows, loses nothing acknowledged;
a torn last record is dropped; applying a journal twice changes nothing."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import duckdb
import pytest
from store_support import as_version_7, journal_records
from test_store_group import AT, entries

from gostop_records import log as L
from gostop_records.store import Store, open_for_queries, schema
from gostop_records.store.append import Append
from gostop_records.store.journal import _encode, journal_path, pending, read_records, segments

GAMES = [entries("matgo", 2, 1, 1), entries("gostop3", 3, 2, 1)]
ANSWERS = (
    "CREATE TABLE IF NOT EXISTS answers (scope VARCHAR, key VARCHAR, PRIMARY KEY (scope, key))"
)


def _append_all(store: Store, *, journal: bool, upto: int | None = None) -> dict[str, int]:
    """Every game's entries in groups (one entry per game each), an answer row with each."""
    version = {gid: 0 for gid, _ in GAMES}
    steps = max(len(e) for _, e in GAMES)
    for k in range(steps if upto is None else upto):
        group = [
            Append(gid, es[k], version[gid], at=AT, rows={"answers": [(gid, f"k{k}")]})
            for gid, es in GAMES
            if k < len(es)
        ]
        for r in store.append_group(group, defer_rows=True, journal=journal):
            version[r.game_id] = r.version
    return version


def _tables(store: Store) -> dict[str, list[tuple[object, ...]]]:
    """The rows journaled and derived (times and the hashes over them left out)."""
    conn = store.conn
    return {
        "events": conn.execute(
            "SELECT game_id, seq, type, hand, payload FROM events ORDER BY ALL"
        ).fetchall(),
        "heads": conn.execute(
            "SELECT entry, kind, game_id, seq FROM heads ORDER BY entry"
        ).fetchall(),
        "answers": conn.execute("SELECT * FROM answers ORDER BY ALL").fetchall(),
        "turns": conn.execute("SELECT * FROM turns ORDER BY ALL").fetchall(),
        "hands": conn.execute("SELECT * FROM hands ORDER BY ALL").fetchall(),
    }


def test_journaled_appends_leave_the_store_as_transactions_do(tmp_path: Path) -> None:
    got = {}
    for journal in (False, True):
        with Store(tmp_path / f"{journal}.duckdb") as store:
            store.conn.execute(ANSWERS)
            if journal:
                store.open_journal()
            versions = _append_all(store, journal=journal)
            if journal:  # rows wait in the journal, reads see them all the same
                assert store.journal is not None and store.journal.records
                assert pending(store.path)
            assert {gid: store.version(gid) for gid, _ in GAMES} == versions
            store.flush_rows()
            assert not pending(store.path)
            report = store.verify()
            assert report.ok, report.problems()
            got[journal] = _tables(store)
    assert got[True] == got[False]


_KILLED = textwrap.dedent(
    """
    import os, signal, sys
    sys.path.insert(0, {tests!r})
    from test_store_journal import ANSWERS, _append_all
    from gostop_records.store import Store
    store = Store({db!r})
    store.conn.execute(ANSWERS)
    store.open_journal()
    _append_all(store, journal=True, upto={upto})
    # acknowledged: the journal is synced; DuckDB holds none of these rows yet
    os.kill(os.getpid(), signal.SIGKILL)
    """
)


def _killed_after_sync(db: Path, upto: int = 6) -> None:
    code = _KILLED.format(tests=str(Path(__file__).parent), db=str(db), upto=upto)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, timeout=120)
    assert done.returncode == -signal.SIGKILL, done.stderr.decode()
    records, torn = journal_records(db)
    assert len(records) == upto and torn == 0


def _expected(upto: int) -> dict[str, int]:
    return {gid: sum(len(e) for e in es[:upto]) for gid, es in GAMES}


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
def test_a_kill_after_the_journals_sync_loses_nothing_acknowledged(tmp_path: Path) -> None:
    db = tmp_path / "s.duckdb"
    _killed_after_sync(db)
    # a torn record after the last whole one: its sync never returned, never acknowledged
    (last,) = segments(db)
    with open(last, "ab") as f:
        f.write(b'\x00\x00\x10\x00\x12\x34\x56\x78{"events": [[')
    kept = last.read_bytes()
    # a read-only open (gostop db query) applies the journal first: every entry is there
    with open_for_queries(db) as store:
        assert {gid: store.version(gid) for gid, _ in GAMES} == _expected(6)
        assert store.query("SELECT count(*) FROM answers").rows == [(12,)]
    assert not segments(db)
    with Store(db) as store:
        report = store.verify()  # the heads chain counts every event; rows caught up
        assert report.ok, report.problems()
        before = _tables(store)
    # applied twice (a crash between DuckDB's commit and the journal's removal): no change
    last.write_bytes(kept)
    with Store(db) as store:
        assert _tables(store) == before
        assert store.verify().ok
        # and the store goes on from there
        store.open_journal()
        gid, es = GAMES[0]
        store.append_group([Append(gid, es[6], _expected(6)[gid], at=AT)], defer_rows=True)
        store.flush_rows()
        assert store.version(gid) == _expected(7)[gid]
        assert store.verify().ok


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
def test_a_writable_open_applies_a_journal_left_behind(tmp_path: Path) -> None:
    db = tmp_path / "s.duckdb"
    _killed_after_sync(db, upto=3)
    with Store(db) as store:
        assert {gid: store.version(gid) for gid, _ in GAMES} == _expected(3)
        assert store.conn.execute("SELECT count(*) FROM answers").fetchall() == [(6,)]
        assert store.verify().ok
    assert not segments(db)


def test_a_failed_journal_write_leaves_no_torn_record(tmp_path: Path) -> None:
    with Store(tmp_path / "s.duckdb") as store:
        store.conn.execute(ANSWERS)
        store.open_journal()
        _append_all(store, journal=True, upto=1)
        j = store.journal
        assert j is not None
        size = j.size
        real = os.fdatasync

        def full(fd: int) -> None:
            raise OSError(28, "No space left on device")

        os.fdatasync = full  # type: ignore[assignment]
        try:
            with pytest.raises(Exception, match="space"):
                gid, es = GAMES[0]
                store.append_group(
                    [Append(gid, es[1], len(es[0]), at=AT)], defer_rows=True, journal=True
                )
        finally:
            os.fdatasync = real
        assert j.path.stat().st_size == size  # cut back to whole records
        _records, torn = read_records(j.path)
        assert torn == 0
        assert store.version(GAMES[0][0]) == len(GAMES[0][1][0])  # nothing appended


def test_a_journal_of_only_a_torn_record_is_dropped_by_a_read_only_open(tmp_path: Path) -> None:
    db = tmp_path / "s.duckdb"
    with Store(db):
        pass
    journal_path(db).write_bytes(b"\x00\x00\x00\x05\x00\x00\x00\x00junk!")  # bad checksum
    # an unreadable record is never acknowledged: the open drops it and goes on
    with open_for_queries(db) as store:
        assert store.game_ids() == []
    assert not journal_path(db).exists()


def test_another_store_of_the_file_in_the_process_sees_the_journal(tmp_path: Path) -> None:
    db = tmp_path / "s.duckdb"
    with Store(db) as store:
        store.conn.execute(ANSWERS)
        store.open_journal()
        _append_all(store, journal=True, upto=2)
        assert store.journal is not None and store.journal.records == 2
        with Store(db) as other:  # its open leaves the journal to its keeper, settled
            assert store.journal.records == 0
            assert {gid: other.version(gid) for gid, _ in GAMES} == _expected(2)
        gid, es = GAMES[0]
        store.append_group(
            [Append(gid, es[2], _expected(2)[gid], at=AT)], defer_rows=True, journal=True
        )
        assert store.journal.records == 1 and pending(db)
        with Store(db) as other:
            assert other.query(f"SELECT max(seq) FROM events WHERE game_id = '{gid}'").rows == [
                (_expected(3)[gid],)
            ]
        assert store.verify().ok


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
def test_a_journal_left_by_version_7_is_applied_after_the_upgrade(tmp_path: Path) -> None:
    """A store and its journal as version 7 left them (``events`` rows with ``prev``): the
    writable open upgrades the file, then applies the journal's rows without their ``prev``."""
    db = tmp_path / "s.duckdb"
    _killed_after_sync(db, upto=3)
    conn = duckdb.connect(str(db))
    hashes = dict(
        ((g, s), h) for g, s, h in conn.execute("SELECT game_id, seq, hash FROM events").fetchall()
    )
    as_version_7(conn)
    conn.close()
    (segment,) = segments(db)
    records, _torn = read_records(segment)
    for rec in records:
        for row in rec["events"]:
            hashes[(row[0], row[1])] = row[-1]
    widened = []
    for rec in records:
        rows = [[*r[:-1], hashes.get((r[0], r[1] - 1), L.GENESIS), r[-1]] for r in rec["events"]]
        widened.append(_encode({**rec, "events": rows}))
    segment.write_bytes(b"".join(widened))
    with Store(db) as store:
        assert schema.file_version(store.conn) == schema.SCHEMA_VERSION
        assert {gid: store.version(gid) for gid, _ in GAMES} == _expected(3)
        report = store.verify()
        assert report.ok, report.problems()
    assert not segments(db)
