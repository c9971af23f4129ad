"""``gostop archive``: logs into a Parquet archive on a Dask cluster, and SQL over it.

Dask and distributed come with the ``archive`` extra; without them ``build`` says so and
how to install it. ``query`` needs only DuckDB.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from . import common
from .db_cmd import show_result, sql_text
from .progress import Progress

app = typer.Typer(
    no_args_is_help=True,
    add_completion=False,
    help="The Parquet archive for corpora beyond one machine: build it on Dask, query it.",
    epilog="Example: gostop archive build logs/ --out archive/ && "
    'gostop archive query archive/ "SELECT count(*) FROM hands"',
)


@app.command(
    "build",
    epilog="Examples: gostop archive build logs/ --out archive/ --workers 2; "
    "gostop archive build s3://club/logs/ --out s3://club/archive/ "
    "--scheduler tcp://10.0.0.5:8786",
)
def build(
    logs: Annotated[
        list[str],
        typer.Argument(
            metavar="LOGS...",
            help="JSON Lines logs, or folders searched for *.jsonl and *.ndjson; "
            "local paths or fsspec URLs (s3://..., gs://...).",
        ),
    ],
    out: Annotated[
        str,
        typer.Option("--out", metavar="DIR", help="The archive folder (a path or fsspec URL)."),
    ],
    scheduler: Annotated[
        str | None,
        typer.Option(
            "--scheduler",
            metavar="ADDRESS",
            help="A Dask scheduler, e.g. tcp://host:8786 (default: a LocalCluster here).",
        ),
    ] = None,
    workers: Annotated[
        int | None,
        typer.Option(
            "--workers",
            min=1,
            metavar="N",
            help="Worker processes of the LocalCluster (default: one per core).",
        ),
    ] = None,
    lenient: Annotated[
        bool,
        typer.Option(
            "--lenient",
            help="Archive games that break the rules as recorded, with their violations.",
        ),
    ] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Machine output on stdout.")] = False,
) -> None:
    """Validate every game on the cluster's workers and write the archive's Parquet.

    Games already archived are skipped; a game archived with other events is reported.
    New games go into new files: no file of the archive is ever rewritten.
    Exit code 1 when any game was rejected or changed.
    """
    from gostop_records.archive import build_archive

    if scheduler and workers:
        raise typer.BadParameter("--workers sizes a LocalCluster: not with --scheduler")
    with Progress("archive", None, "unit") as bar:
        report = build_archive(
            logs,
            out,
            scheduler=scheduler,
            workers=workers,
            strict=not lenient,
            progress=lambda text: bar.note(f"{common.PROG}: archive: {text}"),
            units_done=bar.update,
        )
    common.print_report(report, as_json, rejected=report.rejected, changed=report.changed)


@app.command(
    "query",
    epilog="Example: gostop archive query archive/ --file samples/queries/nagari_rate.sql",
)
def query(
    directory: Annotated[
        str, typer.Argument(metavar="DIR", help="The archive (or db export) folder or URL.")
    ],
    sql: Annotated[
        str | None,
        typer.Argument(
            metavar="SQL",
            help="Read-only statements; the result of the last is shown. '-' reads stdin.",
        ),
    ] = None,
    file: Annotated[
        Path | None,
        typer.Option("--file", "-f", metavar="FILE", help="Read the SQL from a file."),
    ] = None,
    fmt: Annotated[
        str, typer.Option("--format", metavar="table|csv|json", help="Output format.")
    ] = "table",
    limit: Annotated[
        int | None, typer.Option("--limit", min=0, metavar="N", help="Show at most N rows.")
    ] = None,
) -> None:
    """Run SQL on the archive with the store's table and view names, read-only.

    Tables: events, games, hands, turns, captures, transfers, decisions, scores, payouts,
    issues, positions, and archive_manifest; the store's views over them.
    """
    text = sql_text(sql, file, fmt)
    from gostop_records.archive import query as run

    show_result(run(directory, text, limit=limit), fmt)
