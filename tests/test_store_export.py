"""Parquet export: every table partitioned by month, the event type a column, readable by DuckDB."""

from __future__ import annotations

import json
from pathlib import Path

import duckdb
import pytest
from store_support import every_preset, gostop

from gostop_records.store import Store, StoreError
from gostop_records.store import columns as COLUMN_TEXT
from gostop_records.store.layout import LAYOUT_TABLES


def test_export_writes_readable_month_partitioned_parquet(tmp_path: Path) -> None:
    logs = every_preset(count=2, hands=1, seed=95)
    db = tmp_path / "s.duckdb"
    with Store(db) as st:
        st.import_envelopes([e for g in logs for e in g])
        counts = {
            t: st.conn.execute(f"SELECT count(*) FROM {t}").fetchall()[0][0] for t in LAYOUT_TABLES
        }
        by_part = dict(
            st.conn.execute(
                """SELECT left(g.started_at, 7) || '/' || e.type, count(*)
                   FROM events e JOIN games g USING (game_id) GROUP BY ALL"""
            ).fetchall()
        )
    out = tmp_path / "export"
    done = gostop("db", "export", "--parquet", str(out), "--db", str(db), "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["events"] == sum(len(g) for g in logs)
    con = duckdb.connect()
    read = con.execute(
        f"SELECT month || '/' || type, count(*) FROM read_parquet("
        f"'{out}/events/**/*.parquet', hive_partitioning = true) GROUP BY ALL"
    ).fetchall()
    assert dict(read) == by_part
    # one folder per month, the event type a column: a few files per month and table
    months = {p.name for p in (out / "events").iterdir()}
    assert months == {f"month={k.split('/')[0]}" for k in by_part}
    assert all(len(list((out / "events" / m).iterdir())) == 1 for m in months)
    payload = con.execute(
        f"SELECT payload ->> 'type', type FROM read_parquet('{out}/events/**/*.parquet') LIMIT 1"
    ).fetchall()
    assert payload[0][0] == payload[0][1]
    for table, n in counts.items():
        if not n:
            assert not (out / table).exists(), table  # no rows: no files at all
            continue
        got = con.execute(f"SELECT count(*) FROM '{out}/{table}/**/*.parquet'").fetchall()
        assert got == [(n,)], table
    # each file says what its table and columns mean, in the row type's words
    meta = {
        bytes(k).decode(): bytes(v).decode()
        for k, v in con.execute(
            f"SELECT key, value FROM parquet_kv_metadata('{out}/payouts/**/*.parquet')"
        ).fetchall()
    }
    assert meta["description"] == COLUMN_TEXT.TABLE_DOCS["payouts"]
    assert json.loads(meta["columns"]) == COLUMN_TEXT.COLUMN_DOCS["payouts"]
    manifest = con.execute(f"SELECT count(*) FROM '{out}/_manifest/*.parquet'").fetchall()
    assert manifest == [(len(logs),)]
    with Store(db, read_only=True) as st, pytest.raises(StoreError, match="--overwrite"):
        st.export_parquet(out)
    with Store(db, read_only=True) as st:
        report = st.export_parquet(out, overwrite=True)
    assert report.tables == counts
