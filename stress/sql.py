"""SQL-safety probe: statements that would write, read outside the store, install or load
extensions, or change settings, through ``gostop db query``: each must be refused with a
sentence, and no file may appear, no extension be installed, nothing of /etc be shown."""

from __future__ import annotations

import os
import time
from pathlib import Path

from gostop_cli.app import app
from typer.testing import CliRunner

from .figures import Figures

__all__ = ["REFUSED", "sql_safety"]

#: (statement, a word the refusal must contain); ``{dir}`` is a folder that must stay as it is
REFUSED = [
    ("EXPLAIN ANALYZE COPY (SELECT * FROM events) TO '{dir}/out.parquet'", "COPY"),
    ("EXPLAIN COPY events TO '{dir}/profile.sh'", "COPY"),
    ("COPY (SELECT 'echo owned') TO '{dir}/.bashrc'", "COPY"),
    ("COPY events FROM '{dir}/in.csv'", "COPY"),
    ("SELECT * FROM read_text('/etc/passwd')", "store only"),
    ("SELECT * FROM read_blob('/etc/passwd')", "store only"),
    ("SELECT * FROM glob('/etc/*')", "store only"),
    ("SELECT * FROM read_text('/proc/self/environ')", "store only"),
    ("SELECT * FROM read_csv('/etc/passwd')", "store only"),
    ("SELECT * FROM read_csv('https://example.com/x.csv')", "store only"),
    ("SELECT * FROM 'https://example.com/x.parquet'", "store only"),
    ("ATTACH '{dir}/other.duckdb' AS other", "ATTACH"),
    ("INSTALL httpfs", "extension"),
    ("LOAD httpfs", "extension"),
    ("SET threads = 1", "SET"),
    ("SET enable_external_access = true", "SET"),
    ("RESET threads", "SET"),
    ("PRAGMA threads = 1", "SET"),
    ("PRAGMA enable_profiling", "PRAGMA"),
    ("CREATE TABLE x (a INTEGER)", "CREATE"),
    ("CREATE TEMP TABLE x (a INTEGER)", "CREATE"),
    ("CREATE MACRO m(a) AS a", "CREATE"),
    ("INSERT INTO events SELECT * FROM events", "INSERT"),
    ("DELETE FROM events", "DELETE"),
    ("UPDATE games SET stake = 0", "UPDATE"),
    ("EXPORT DATABASE '{dir}/dump'", "EXPORT"),
    ("VACUUM", "VACUUM"),
    ("CHECKPOINT", "CHECKPOINT"),
    ("FORCE CHECKPOINT", "CHECKPOINT"),
    ("SELECT * FROM checkpoint()", "checkpoint()"),
    ("CALL force_checkpoint()", "force_checkpoint()"),
    ("SELECT * FROM query('SELECT 1')", "query()"),
    ("SELECT 1; COPY (SELECT 1) TO '{dir}/x.csv'", "statement 2"),
    ("SELECT extension_name FROM duckdb_extensions()", "store only"),
]


def sql_safety(work: Path, store_file: Path, *, allow_files: bool = False) -> Figures:
    """Every statement of :data:`REFUSED` through ``gostop db query`` (with
    ``--allow-files`` too: reading files may then work, writing never)."""
    fig = Figures(f"SQL safety{' (--allow-files)' if allow_files else ''}")
    start = time.perf_counter()
    folder = work / f"sql-{int(allow_files)}"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "in.csv").write_text("a\n1\n")
    home = Path.home() / ".duckdb"
    runner = CliRunner()
    for sql, word in REFUSED:
        if allow_files and word == "store only":
            continue  # reading is what --allow-files allows
        fig.trials += 1
        before = set(os.listdir(folder))
        had = home.exists()
        args = ["db", "query", "--db", str(store_file), sql.format(dir=folder)]
        res = runner.invoke(app, [*args, "--allow-files"] if allow_files else args)
        if res.exception is not None and not isinstance(res.exception, SystemExit):
            fig.tracebacks += 1
            fig.fail(f"{sql}: {res.exception!r}")
        elif res.exit_code != 1 or word not in res.output:
            fig.fail(f"{sql}: exit {res.exit_code}: {res.output.strip()[:200]}")
        elif set(os.listdir(folder)) != before or home.exists() != had:
            fig.lost += 1
            fig.fail(f"{sql}: a file was written")
        elif "root:" in res.output:
            fig.fail(f"{sql}: /etc/passwd was shown")
        else:
            fig.survived += 1
    fig.seconds = time.perf_counter() - start
    return fig
