"""A query cannot hurt the store or the process: it stops at its time limit, at its
answer's rows and bytes, when cancelled, and every statement that is not a read is refused
before it runs (store/sandbox.py, store/statements.py)."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from gostop_cli.app import app
from store_support import games
from typer.testing import CliRunner

from gostop_records.store import Store
from gostop_records.store.errors import (
    QueryCancelledError,
    QueryRefusedError,
    QueryTimeoutError,
    QueryTooLargeError,
    StoreError,
)
from gostop_records.store.query import lock_down
from gostop_records.store.sandbox import QueryHandle, QueryLimits, run_query

#: A cross join that would run for hours: only a limit ends it.
ENDLESS = "SELECT count(*) FROM range(1000000) a, range(1000000) b WHERE a.range + b.range = 7"


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Store]:
    """A store held for writing and locked down, as the server holds it."""
    path = tmp_path_factory.mktemp("limits") / "club.duckdb"
    with Store(path) as st:
        assert st.import_envelopes([e for g in games(count=2, hands=1, seed=5) for e in g]).ok
        lock_down(st.conn)
        yield st


def test_a_query_on_the_store_tables_works(store: Store) -> None:
    limits = QueryLimits(timeout=10)
    assert run_query(store.conn, "SELECT count(*) AS n FROM games", limits).rows == [(2,)]
    for sql in (
        "SELECT game_id, hands FROM games ORDER BY game_id",
        "WITH h AS (SELECT * FROM hands) SELECT count(*) FROM h",
        "FROM v_hand_summary",
        "VALUES (1, 'a')",
        "DESCRIBE events",
        "SHOW TABLES",
        "EXPLAIN SELECT * FROM events",
        "PRAGMA table_info('games')",
        "CALL pragma_version()",
        "SELECT * FROM range(3), unnest([1, 2])",
    ):
        answer = run_query(store.conn, sql, limits)
        assert answer.columns and not answer.truncated, sql


def test_a_long_cross_join_is_interrupted_at_its_time_limit(store: Store) -> None:
    start = time.monotonic()
    with pytest.raises(QueryTimeoutError, match=r"time limit of 0\.5 s") as err:
        run_query(store.conn, ENDLESS, QueryLimits(timeout=0.5))
    # the point is that it stops: a generous bound, not a measure of how fast
    assert time.monotonic() - start < 10 * 0.5
    assert err.value.seconds == 0.5
    # the connection and the store go on
    assert run_query(store.conn, "SELECT count(*) FROM games").rows == [(2,)]


def test_entries_are_written_while_a_query_runs_beside_them(tmp_path: Path) -> None:
    """The writer is not held by a query on another cursor of the same database: a game's
    events appended one at a time, as a recorder's entries are, while the query runs."""
    game = games(count=1, hands=1, seed=6)[0]
    gid = game[0].game_id
    with Store(tmp_path / "live.duckdb") as st:
        assert st.append(gid, game[:3], 0).version == 3
        lock_down(st.conn)
        errors: list[BaseException] = []
        handle = QueryHandle()

        def heavy() -> None:
            try:
                run_query(st.conn, ENDLESS, QueryLimits(timeout=60), handle=handle)
            except BaseException as exc:  # reported below
                errors.append(exc)

        query_thread = threading.Thread(target=heavy)
        query_thread.start()
        try:
            time.sleep(0.5)
            start = time.monotonic()
            for k in range(3, len(game)):
                st.append(gid, [game[k]], k)
            took = time.monotonic() - start
            assert query_thread.is_alive(), (took, errors)
        finally:
            handle.cancel()
            query_thread.join(30)
        assert isinstance(errors[0], QueryCancelledError)
        assert run_query(st.conn, "SELECT count(*) FROM events").rows == [(len(game),)]


def test_too_many_rows_is_an_error_naming_the_limit(store: Store) -> None:
    limits = QueryLimits(max_rows=100)
    with pytest.raises(QueryTooLargeError, match="more than 100 rows") as err:
        run_query(store.conn, "SELECT * FROM range(1000)", limits)
    assert (err.value.what, err.value.limit) == ("rows", 100)
    # within the limit, ``limit`` cuts the answer quietly
    answer = run_query(store.conn, "SELECT * FROM range(1000)", limits, limit=10)
    assert len(answer.rows) == 10 and answer.truncated
    assert not run_query(store.conn, "SELECT * FROM range(100)", limits).truncated


def test_a_wide_answer_stops_at_its_bytes_without_being_held_whole(store: Store) -> None:
    limits = QueryLimits(timeout=30, max_rows=None, max_bytes=1_000_000)
    with pytest.raises(QueryTooLargeError, match="more than 1000000 bytes") as err:
        run_query(store.conn, "SELECT repeat('x', 10000) FROM range(1000)", limits)
    assert err.value.what == "bytes"
    # 100 GB if it were fetched whole: it ends at the first batches past the limit
    start = time.monotonic()
    with pytest.raises(QueryTooLargeError):
        run_query(store.conn, "SELECT repeat('x', 1000) FROM range(100000000)", limits)
    assert time.monotonic() - start < 10


@pytest.mark.parametrize(
    ("sql", "words"),
    [
        ("CHECKPOINT", "CHECKPOINT"),
        ("FORCE CHECKPOINT", "CHECKPOINT"),
        ("CALL checkpoint()", "checkpoint()"),
        ("SELECT * FROM checkpoint()", "checkpoint()"),
        ("SELECT 1 FROM games, force_checkpoint()", "force_checkpoint()"),
        ("SELECT * FROM query('SELECT 1')", "query()"),
        ("CALL enable_logging()", "enable_logging()"),
        ("SET threads = 4", "SET"),
        ("RESET memory_limit", "SET"),
        ("PRAGMA threads = 4", "SET"),
        ("PRAGMA enable_profiling", "PRAGMA"),
        ("ATTACH 'other.duckdb'", "ATTACH"),
        ("DETACH other", "DETACH"),
        ("COPY events TO 'x.csv'", "COPY"),
        ("EXPLAIN ANALYZE COPY (SELECT 1) TO 'x.csv'", "COPY"),
        ("EXPORT DATABASE 'dump'", "EXPORT"),
        ("INSTALL httpfs", "extension"),
        ("LOAD httpfs", "extension"),
        ("INSERT INTO games SELECT * FROM games", "INSERT"),
        ("DELETE FROM events", "DELETE"),
        ("CREATE TABLE x (a INTEGER)", "CREATE"),
        ("CREATE TEMP TABLE x AS SELECT 1", "CREATE"),
        ("DROP VIEW v_events", "DROP"),
        ("VACUUM", "VACUUM"),
        ("BEGIN", "TRANSACTION"),
        ("PIVOT games ON ruleset", "PIVOT"),
        ("SUMMARIZE SELECT * FROM checkpoint()", "checkpoint()"),
        ("SELECT (FROM force_checkpoint())", "force_checkpoint()"),
        ("SELECT 1; SELECT 2", "2 statements"),
        ("SELECT 1; DELETE FROM events", "2 statements"),
    ],
)
def test_what_is_not_a_read_is_refused_with_its_reason(store: Store, sql: str, words: str) -> None:
    with pytest.raises(QueryRefusedError) as err:
        run_query(store.conn, sql)
    assert words in err.value.reason, err.value.reason
    assert run_query(store.conn, "SELECT count(*) FROM events").rows[0][0] > 0


def test_files_and_python_variables_stay_out_of_reach(store: Store) -> None:
    for sql in ("SELECT * FROM read_text('/etc/hostname')", "SELECT * FROM glob('/etc/*')"):
        with pytest.raises(StoreError, match="store only"):
            run_query(store.conn, sql)
    pa = pytest.importorskip("pyarrow")
    hidden = pa.table({"secret": [42]})  # DuckDB's Python client would read it as a table
    assert hidden.num_rows == 1
    with pytest.raises(StoreError, match="hidden"):
        run_query(store.conn, "SELECT * FROM hidden")


def test_the_database_memory_is_lowered_to_a_query_s_never_raised(tmp_path: Path) -> None:
    def memory(st: Store) -> str:
        return str(st.conn.execute("SELECT current_setting('memory_limit')").fetchall()[0][0])

    with Store(tmp_path / "m.duckdb") as st:
        lock_down(st.conn)
        run_query(st.conn, "SELECT 1", QueryLimits(memory="100MiB"))
        assert memory(st) == "100.0 MiB"
        run_query(st.conn, "SELECT 1", QueryLimits(memory="1GiB"))
        assert memory(st) == "100.0 MiB"
        # a sort of about that size still ends (DuckDB spills what does not fit)
        sql = (
            "SELECT max(n) FROM (SELECT row_number() OVER (ORDER BY hash(range)) AS n, "
            "range::VARCHAR AS s FROM range(4000000))"
        )
        assert len(run_query(st.conn, sql, QueryLimits(timeout=60, memory="100MiB")).rows) == 1
    with pytest.raises(ValueError, match="size"):
        QueryLimits(memory="lots")


def test_a_query_is_cancelled_from_another_thread(store: Store) -> None:
    handle = QueryHandle()
    timer = threading.Timer(0.3, handle.cancel)
    timer.start()
    start = time.monotonic()
    with pytest.raises(QueryCancelledError):
        run_query(store.conn, ENDLESS, QueryLimits(timeout=None), handle=handle)
    assert time.monotonic() - start < 10 and handle.cancelled
    # cancelled before it starts: it never runs
    early = QueryHandle()
    early.cancel()
    with pytest.raises(QueryCancelledError):
        run_query(store.conn, "SELECT 1", handle=early)


def test_db_query_has_a_time_limit_and_says_so(tmp_path: Path) -> None:
    db = tmp_path / "club.duckdb"
    with Store(db) as st:
        assert st.import_envelopes(games(count=1, hands=1, seed=7)[0]).ok
    runner = CliRunner()
    cases = {
        ENDLESS: (["--timeout", "0.5"], "time limit of 0.5 s"),
        "SELECT * FROM events": (["--max-rows", "3"], "more than 3 rows"),
        "CHECKPOINT": ([], "CHECKPOINT"),
        "SELECT * FROM checkpoint()": ([], "checkpoint()"),
    }
    for sql, (extra, words) in cases.items():
        res = runner.invoke(app, ["db", "query", "--db", str(db), sql, *extra])
        assert res.exit_code == 1 and "Traceback" not in res.output, (sql, res.output)
        assert words in " ".join(res.output.split()), (sql, res.output)
    # several statements and --limit work as before
    res = runner.invoke(app, ["db", "query", "--db", str(db), "SELECT 1 AS a; SELECT 2 AS b"])
    assert res.exit_code == 0 and "b" in res.output
