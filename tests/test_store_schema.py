"""The file: schema versions and migrations, the lock, read-only queries, settings."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import duckdb
import pytest
from store_support import ROOT, as_version_7, games, gostop, v7_event_row, v7_events_ddl

from gostop_records.store import Store, StoreError, StoreLockedError, migrations, schema
from gostop_records.store.connection import default_path


def test_a_new_file_gets_the_current_schema(tmp_path: Path) -> None:
    with Store(tmp_path / "s.duckdb") as st:
        assert schema.file_version(st.conn) == schema.SCHEMA_VERSION
        names = {
            r[0]
            for r in st.conn.execute("SELECT table_name FROM information_schema.tables").fetchall()
        }
        assert {"events", "meta", *schema.TABLES, *schema.VIEWS} <= names
        assert st.conn.execute("SELECT current_setting('enable_progress_bar')").fetchall() == [
            (False,)
        ]


def test_migrations_run_in_order_from_the_registry(tmp_path: Path) -> None:
    conn = duckdb.connect(str(tmp_path / "old.duckdb"))
    conn.execute("CREATE TABLE meta (key VARCHAR PRIMARY KEY, value VARCHAR)")
    conn.execute("INSERT INTO meta VALUES ('schema_version', '0')")
    conn.execute("CREATE TABLE events (game_id VARCHAR, seq INTEGER)")
    ran: list[int] = []

    def v0_to_v1(c: duckdb.DuckDBPyConnection) -> None:
        ran.append(0)
        c.execute("ALTER TABLE events ADD COLUMN note VARCHAR")

    assert migrations.migrate(conn, registry={0: v0_to_v1}, target=1) == [0]
    assert ran == [0]
    assert schema.file_version(conn) == 1
    assert "note" in {r[0] for r in conn.execute("DESCRIBE events").fetchall()}
    assert migrations.migrate(conn, registry={0: v0_to_v1}, target=1) == []  # nothing left

    def failing(c: duckdb.DuckDBPyConnection) -> None:
        c.execute("ALTER TABLE events ADD COLUMN half_done VARCHAR")
        raise RuntimeError("step failed")

    with pytest.raises(RuntimeError):
        migrations.migrate(conn, registry={1: failing}, target=2)
    assert schema.file_version(conn) == 1  # the failed step left nothing behind
    assert "half_done" not in {r[0] for r in conn.execute("DESCRIBE events").fetchall()}
    with pytest.raises(StoreError, match="no migration from schema version 1"):
        migrations.migrate(conn, registry={}, target=2)
    conn.close()


def test_a_bare_events_file_is_upgraded_and_projected(tmp_path: Path) -> None:
    logs = games("matgo", 2, count=2, hands=1, seed=90)
    path = tmp_path / "v0.duckdb"
    conn = duckdb.connect(str(path))
    conn.execute(v7_events_ddl())  # version 0 stored prev, as every version up to 7 did
    for g in logs:
        for env in g:
            conn.execute(
                "INSERT INTO events VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", v7_event_row(env)
            )
    conn.close()
    with Store(path) as st:
        assert schema.file_version(st.conn) == schema.SCHEMA_VERSION
        assert st.conn.execute("SELECT count(*) FROM games").fetchall() == [(2,)]
        assert st.verify().ok


def _columns(conn: duckdb.DuckDBPyConnection) -> list[str]:
    return [r[0] for r in conn.execute("DESCRIBE events").fetchall()]


def test_a_version_7_store_stops_storing_prev(tmp_path: Path) -> None:
    """Version 8 drops ``events.prev``: every envelope reads back as it was (``prev`` from
    the hash before it), the chains verify, the projection rows are left as they were."""
    path = tmp_path / "v7.duckdb"
    with Store(path) as st:
        st.import_envelopes([e for g in games("gostop3", 3, count=3, hands=2, seed=8) for e in g])
        before = {g: st.events(g) for g in st.game_ids()}
        hands = st.conn.execute("SELECT * FROM hands ORDER BY ALL").fetchall()
        as_version_7(st.conn)
        assert "prev" in _columns(st.conn)
    with Store(path) as st:
        assert schema.file_version(st.conn) == schema.SCHEMA_VERSION >= 8
        assert _columns(st.conn) == [c for c, _ in schema.EVENT_COLUMNS]
        assert {g: st.events(g) for g in st.game_ids()} == before
        assert st.conn.execute("SELECT * FROM hands ORDER BY ALL").fetchall() == hands
        chained = st.conn.execute(
            "SELECT game_id, seq, prev FROM v_events ORDER BY game_id, seq"
        ).fetchall()
        assert chained == [(e.game_id, e.seq, e.prev) for es in before.values() for e in es]
        report = st.verify()
        assert report.ok, report.problems()


def test_a_stored_prev_that_breaks_the_chain_stops_the_upgrade(tmp_path: Path) -> None:
    """A version 7 store whose stored ``prev`` is not the hash before it is not upgraded
    (dropping the column would hide the break): the error names the game and seq, and the
    file is left at version 7 with its ``prev``."""
    path = tmp_path / "v7.duckdb"
    with Store(path) as st:
        st.import_envelopes([e for g in games("matgo", 2, count=2, hands=1, seed=4) for e in g])
        gid = st.game_ids()[1]
        as_version_7(st.conn)
        st.conn.execute("UPDATE events SET prev = ? WHERE game_id = ? AND seq = 6", ["f" * 64, gid])
    with pytest.raises(StoreError, match=f"game '{gid}' seq 6: the stored prev is not the hash"):
        Store(path)
    conn = duckdb.connect(str(path))
    assert schema.file_version(conn) == 7
    assert "prev" in _columns(conn)
    conn.close()


def test_a_newer_file_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "new.duckdb"
    with Store(path) as st:
        st.conn.execute("UPDATE meta SET value = '99' WHERE key = 'schema_version'")
    with pytest.raises(StoreError, match="schema version 99"):
        Store(path)


def test_a_foreign_duckdb_file_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "other.duckdb"
    conn = duckdb.connect(str(path))
    conn.execute("CREATE TABLE customers (id INTEGER)")
    conn.close()
    with pytest.raises(StoreError, match="not a gostop store"):
        Store(path)


def test_the_lock_error_names_the_file(tmp_path: Path) -> None:
    path = tmp_path / "busy.duckdb"
    Store(path).close()
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys\nfrom gostop_records.store import Store\n"
            "s = Store(sys.argv[1])\nprint('ready', flush=True)\nsys.stdin.read()\n",
            str(path),
        ],
        cwd=ROOT,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "ready"
        with pytest.raises(StoreLockedError) as exc:
            Store(path)
        assert str(path) in str(exc.value)
        assert f"PID {holder.pid}" in str(exc.value)
        with pytest.raises(StoreLockedError):
            Store(path, read_only=True)
        done = gostop("db", "stats", "--db", str(path))
        assert done.returncode == 1
        assert f"gostop: error: {path}: the store is in use by another process" in done.stderr
        assert "Traceback" not in done.stderr and "IO Error" not in done.stderr
    finally:
        assert holder.stdin is not None
        holder.stdin.close()
        holder.wait(timeout=30)
        if holder.stdout is not None:
            holder.stdout.close()
    with Store(path, read_only=True):
        pass  # handed over once the holder is gone


def test_query_is_read_only(tmp_path: Path) -> None:
    path = tmp_path / "s.duckdb"
    with Store(path) as st:
        st.import_envelopes([e for g in games("matgo", 2, count=2, hands=1, seed=91) for e in g])
    with Store(path, read_only=True) as st:
        result = st.query("SELECT count(*) AS n FROM games")
        assert (result.columns, result.rows) == (("n",), [(2,)])
        for sql, kind in (
            ("DELETE FROM events", "DELETE"),
            ("UPDATE events SET hand = 2", "UPDATE"),
            ("SELECT 1; DROP TABLE events", "DROP"),
            (f"COPY events TO '{tmp_path / 'x.csv'}'", "COPY"),
            (f"ATTACH '{tmp_path / 'other.duckdb'}'", "ATTACH"),
        ):
            with pytest.raises(StoreError, match=f"read-only: .*{kind}"):
                st.query(sql)
        assert not (tmp_path / "x.csv").exists() and not (tmp_path / "other.duckdb").exists()
        with pytest.raises(StoreError, match="SQL: "):
            st.query("SELEC nonsense")
        assert st.query("SELECT count(*) FROM events").rows[0][0] > 0
    done = gostop("db", "query", "INSERT INTO meta VALUES ('a', 'b')", "--db", str(path))
    assert done.returncode == 1 and "read-only" in done.stderr and "INSERT" in done.stderr
    done = gostop(
        "db",
        "query",
        "SELECT game_id, players FROM games ORDER BY 1",
        "--db",
        str(path),
        "--format",
        "csv",
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == "game_id,players" and len(lines) == 3
    done = gostop("db", "query", "SELECT 1", "--db", str(path), "--format", "xml")
    assert done.returncode == 2


def test_the_file_comes_from_db_then_env_then_default(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("GOSTOP_DB", raising=False)
    assert default_path() == Path("gostop.duckdb")
    monkeypatch.setenv("GOSTOP_DB", str(tmp_path / "env.duckdb"))
    assert default_path() == tmp_path / "env.duckdb"
    done = gostop("db", "stats", "--json", cwd=tmp_path, env={"GOSTOP_DB": ""})
    assert done.returncode == 1 and "gostop.duckdb: no store here" in done.stderr
    with Store(tmp_path / "gostop.duckdb"):
        pass
    done = gostop("db", "stats", "--json", cwd=tmp_path, env={"GOSTOP_DB": ""})
    assert done.returncode == 0, done.stderr
    assert '"games": 0' in done.stdout


def test_a_version_1_file_gains_capture_positions(tmp_path: Path) -> None:
    path = tmp_path / "v1.duckdb"
    with Store(path) as st:
        st.import_envelopes([e for g in games("matgo", 2, count=2, hands=1, seed=91) for e in g])
        want = st.conn.execute(
            "SELECT count(*) FILTER (WHERE position = 1), count(DISTINCT (game_id, seq)) "
            "FROM captures"
        ).fetchall()[0]
        # make it a version 1 file: no position column
        st.conn.execute("ALTER TABLE captures DROP COLUMN position")
        st.conn.execute("UPDATE meta SET value = '1' WHERE key = 'schema_version'")
    assert want[0] == want[1] > 0
    with Store(path) as st:
        assert schema.file_version(st.conn) == schema.SCHEMA_VERSION
        got = st.conn.execute(
            "SELECT count(*) FILTER (WHERE position = 1), count(DISTINCT (game_id, seq)) "
            "FROM captures"
        ).fetchall()[0]
        assert got == want
        assert st.verify().ok
