"""`gostop db query` cannot write and reads only the store: DuckDB's own settings hold it."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from gostop_cli.app import app
from store_support import games
from typer.testing import CliRunner

from gostop_records.store import Store, open_for_queries
from gostop_records.store.errors import StoreError
from gostop_records.store.query import can_reach_files, lock_down, query
from stress.sql import sql_safety

runner = CliRunner()


@pytest.fixture(scope="module")
def store_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("q") / "club.duckdb"
    with Store(path) as st:
        assert st.import_envelopes([e for g in games(count=2, hands=1, seed=3) for e in g]).ok
    return path


def _run(db: Path, sql: str, *extra: str) -> tuple[int, str]:
    res = runner.invoke(app, ["db", "query", "--db", str(db), sql, *extra])
    return res.exit_code, res.output


def _no_new_files(folder: Path, before: set[str]) -> None:
    assert set(os.listdir(folder)) == before


@pytest.mark.parametrize("allow", [False, True])
def test_allow_files_reads_but_never_writes(store_file: Path, tmp_path: Path, allow: bool) -> None:
    data = tmp_path / "extra.csv"
    data.write_text("a,b\n4000,200\n40,2\n")
    extra = ["--allow-files"] if allow else []
    code, out = _run(store_file, f"SELECT sum(a + b) AS s FROM read_csv('{data}')", *extra)
    assert (code, "4242" in out) == ((0, True) if allow else (1, False)), out
    before = set(os.listdir(tmp_path))
    for sql in (
        f"EXPLAIN ANALYZE COPY (SELECT 1) TO '{tmp_path}/x.csv'",
        f"COPY (SELECT 1) TO '{tmp_path}/x.csv'",
        f"ATTACH '{tmp_path}/x.duckdb'",
        "SELECT * FROM read_csv('https://example.com/x.csv')",
        "INSTALL httpfs",
    ):
        code, out = _run(store_file, sql, *extra)
        assert code == 1 and "Traceback" not in out, (sql, out)
    _no_new_files(tmp_path, before)


def test_reading_the_store_still_works(store_file: Path) -> None:
    for sql in (
        "SELECT count(*) AS n FROM games",
        "DESCRIBE events",
        "SUMMARIZE games",
        "PRAGMA table_info('games')",
        "EXPLAIN SELECT * FROM events",
        "CALL pragma_version()",
        "SELECT 1 AS a; SELECT 2 AS b",
    ):
        code, out = _run(store_file, sql)
        assert code == 0, (sql, out)


def test_open_for_queries_is_locked(store_file: Path) -> None:
    with open_for_queries(store_file) as st:
        assert not can_reach_files(st.conn)
        with pytest.raises(Exception, match="locked"):
            st.conn.execute("SET enable_external_access = true")
        with pytest.raises(StoreError, match="store only"):
            query(st, "SELECT * FROM read_text('/etc/hostname')", allow_files=False)


def test_a_process_that_holds_the_store_for_writing_can_lock_it_down(tmp_path: Path) -> None:
    path = tmp_path / "live.duckdb"
    with Store(path) as st:
        assert st.import_envelopes([e for g in games(count=1, hands=1, seed=4) for e in g]).ok
        # a connection that can reach files is refused for strangers' SQL
        with pytest.raises(StoreError, match="can reach files"):
            query(st, "SELECT 1", allow_files=False)
        lock_down(st.conn)
        assert query(st, "SELECT count(*) FROM games", allow_files=False).rows == [(1,)]
        for sql in (
            "SELECT * FROM read_text('/etc/passwd')",
            f"EXPLAIN ANALYZE COPY (SELECT 1) TO '{tmp_path}/x.csv'",
            "SELECT * FROM glob('/etc/*')",
        ):
            with pytest.raises(StoreError):
                query(st, sql, allow_files=False)
        with pytest.raises(Exception, match="external access"):
            st.conn.execute("SET enable_external_access = true")
        # the query runs in a read-only transaction: a function that would write cannot
        with pytest.raises(StoreError):
            query(st, "SELECT * FROM events; DELETE FROM events", allow_files=False)
        assert query(st, "SELECT count(*) FROM games", allow_files=False).rows == [(1,)]
        # appends by the owner still work after the lock-down
        more = games(count=1, hands=1, seed=9)[0]
        assert st.import_envelopes(more).ok
        assert query(st, "SELECT count(*) FROM games", allow_files=False).rows == [(2,)]
    assert sorted(os.listdir(tmp_path)) == ["live.duckdb"]


def test_the_sql_probe_finds_nothing(store_file: Path, tmp_path: Path) -> None:
    fig = sql_safety(tmp_path, store_file)
    assert fig.ok and fig.trials >= 15, fig.failures


@pytest.mark.parametrize(
    "command", [["db", "query", "--db", "{db}"], ["archive", "query", "{dir}"]]
)
def test_the_sql_comes_from_one_place_and_a_bad_one_is_named(
    store_file: Path, tmp_path: Path, command: list[str]
) -> None:
    """Both query commands read their SQL the same way (an argument, '-' for stdin, or
    --file) and refuse the same mistakes with the same words, before touching any data."""
    base = [a.format(db=store_file, dir=tmp_path) for a in command]
    sql_file = tmp_path / "q.sql"
    sql_file.write_text("SELECT 1 AS one")
    cases = {
        "both": ([*base, "SELECT 1", "--file", str(sql_file)], "one of them"),
        "neither": (base, "one of them"),
        "format": ([*base, "SELECT 1", "--format", "xml"], "use table, csv or json"),
        "missing": ([*base, "--file", str(tmp_path / "absent.sql")], "absent.sql: cannot read"),
    }
    for name, (args, words) in cases.items():
        res = runner.invoke(app, args)
        assert res.exit_code != 0, name
        assert words in " ".join(res.output.split()), (name, res.output)
        assert "Traceback" not in res.output
    if command[0] == "db":
        res = runner.invoke(app, [*base, "-", "--format", "csv"], input="SELECT 2 AS two")
        assert res.exit_code == 0 and res.output.split() == ["two", "2"], res.output


def test_a_faulty_query_is_told_without_blank_lines_and_with_a_useful_hint(
    store_file: Path,
) -> None:
    code, out = _run(store_file, "SELECT * FROM nosuch")
    assert code == 1
    lines = out.splitlines()
    assert "gostop: error: SQL: Catalog Error: Table with name nosuch does not exist!" in lines
    # DuckDB's hint there names its own catalog (pg_...); the store's tables are listed so
    assert "gostop: error: SHOW TABLES lists the store's tables and views" in lines
    assert "pg_" not in out and all(line.strip() != "gostop: error:" for line in lines)
    # the query's line and the caret under its fault stay, aligned
    at = lines.index("gostop: error: LINE 1: SELECT * FROM nosuch")
    assert lines[at + 1].index("^") == lines[at].index("nosuch")
    # a near miss of a store table keeps DuckDB's own suggestion
    code, out = _run(store_file, "SELECT * FROM hand")
    assert code == 1 and 'Did you mean "hands"?' in out
    code, out = _run(store_file, "SELEC 1")
    assert code == 1 and "syntax error" in out
    assert all(line.strip() != "gostop: error:" for line in out.splitlines())
