"""Parquet export: partitioned by date and type, every table, readable by DuckDB."""

from __future__ import annotations

import json
from pathlib import Path

import duckdb
import pytest
from store_support import every_preset, gostop

from gostop_records.store import Store, StoreError
from gostop_records.store.schema import TABLES


def test_export_writes_readable_partitioned_parquet(tmp_path: Path) -> None:
    logs = every_preset(count=2, hands=1, seed=95)
    db = tmp_path / "s.duckdb"
    with Store(db) as st:
        st.import_envelopes([e for g in logs for e in g])
        counts = {t: st.conn.execute(f"SELECT count(*) FROM {t}").fetchall()[0][0] for t in TABLES}
        by_part = dict(
            st.conn.execute(
                """SELECT left("at", 10) || '/' || type, count(*) FROM events GROUP BY ALL"""
            ).fetchall()
        )
    out = tmp_path / "export"
    done = gostop("db", "export", "--parquet", str(out), "--db", str(db), "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["events"] == sum(len(g) for g in logs)
    con = duckdb.connect()
    read = con.execute(
        f"SELECT CAST(date AS VARCHAR) || '/' || type, count(*) FROM read_parquet("
        f"'{out}/events/**/*.parquet', hive_partitioning = true) GROUP BY ALL"
    ).fetchall()
    assert dict(read) == by_part
    day, kind = next(iter(by_part)).split("/")
    assert (out / "events" / f"date={day}" / f"type={kind}").is_dir()
    payload = con.execute(
        f"SELECT payload ->> 'type', type FROM read_parquet('{out}/events/**/*.parquet', "
        "hive_partitioning = true) LIMIT 1"
    ).fetchall()
    assert payload[0][0] == payload[0][1]
    for table, n in counts.items():
        assert con.execute(f"SELECT count(*) FROM '{out}/{table}.parquet'").fetchall() == [(n,)], (
            table
        )
    with Store(db, read_only=True) as st, pytest.raises(StoreError, match="--overwrite"):
        st.export_parquet(out)
    with Store(db, read_only=True) as st:
        report = st.export_parquet(out, overwrite=True)
    assert report.tables == counts
