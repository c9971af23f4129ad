"""``gostop db``: the store: import logs, query, stats, export, report, verify, rebuild, repair,
back up, restore.

The store file is ``--db FILE``, else ``$GOSTOP_DB``, else ``gostop.duckdb`` in the current
folder. One process owns the file at a time (DuckDB's rule), so a second command on the same
file while an import runs is refused with a message naming the file. duckdb and pyarrow are
imported inside the commands, which keeps ``gostop --help`` fast.
"""

from __future__ import annotations

import csv
import dataclasses
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from . import common
from .db_app import DEFAULT_DB, DbOption, JsonOption, app, db_error
from .progress import Progress

if TYPE_CHECKING:
    from gostop_records.store import ImportProgress
    from gostop_records.store.query import QueryResult


#: ``gostop db query --timeout``: long enough for any report on a club's store, short
#: enough that a runaway join gives the file back (DuckDB lets one process hold it).
QUERY_TIMEOUT = 120.0


class _Progress:
    """Import progress on stderr (:class:`~.progress.Progress`): a bar over the files on a
    terminal; elsewhere a line per committed batch, and at most twice a second else."""

    def __init__(self) -> None:
        self.last = 0.0
        self.bar = Progress("import", None, "file", plain=False)

    def __call__(self, p: ImportProgress) -> None:
        done = f"{p.games} game(s) and {p.events} event(s)"
        if self.bar.tty:
            self.bar.update(p.files_done, p.files_total, detail=f"{done} committed")
            return
        now = time.monotonic()
        if not p.committed and now - self.last < 0.5:
            return
        self.last = now
        read = f"{p.files_done}/{p.files_total} file(s) read"
        if p.committed:
            db_error(f"import: committed {done} ({read})")
        else:
            db_error(f"import: {read}, {done} committed so far")


@app.command("import", epilog="Example: gostop db import logs/ game.jsonl --db club.duckdb")
def import_(
    paths: Annotated[
        list[Path],
        typer.Argument(
            metavar="PATH...",
            help="Log files, or folders searched for *.jsonl, *.ndjson, *.msgpack, *.mpk.",
        ),
    ],
    db: DbOption = DEFAULT_DB,
    lenient: Annotated[
        bool,
        typer.Option(
            "--lenient",
            help="Store games that break the rules as recorded, "
            "with their violations, instead of rejecting them.",
        ),
    ] = False,
    batch_events: Annotated[
        int,
        typer.Option(
            "--batch-events",
            min=1,
            metavar="N",
            help="Events written per transaction (whole games only).",
        ),
    ] = 250_000,
    workers: Annotated[
        int | None,
        typer.Option(
            "--workers",
            min=0,
            metavar="N",
            help="Processes that check the JSON Lines logs of a large import "
            "(default: one per core; 0: all in this process).",
        ),
    ] = None,
    as_json: JsonOption = False,
) -> None:
    """Import game logs: validated per game, atomic per game, idempotent.

    A game already stored is skipped; a stored prefix is extended.
    A game that breaks the rules (strict mode) or conflicts with the stored one is reported
    and left out; the others go in.
    Exit code 1 when any game was rejected or in conflict.
    """
    from gostop_records.store import Store

    progress = _Progress()
    with Store(db) as store, progress.bar:
        report = store.import_paths(
            paths,
            strict=not lenient,
            batch_events=batch_events,
            progress=progress,
            workers=workers,
        )
    common.print_report(report, as_json, rejected=report.rejected, conflict=report.conflicts)


@app.command(
    "query",
    epilog='Examples: gostop db query "SELECT ruleset, avg(chips) FROM v_hand_summary '
    'GROUP BY ruleset" --format csv; gostop db query --file samples/queries/nagari_rate.sql',
)
def query(
    sql: Annotated[
        str | None,
        typer.Argument(
            metavar="SQL",
            help="One or more read-only statements; the result "
            "of the last is shown. '-' reads them from stdin.",
        ),
    ] = None,
    file: Annotated[
        Path | None,
        typer.Option("--file", "-f", metavar="FILE", help="Read the SQL from a file."),
    ] = None,
    db: DbOption = DEFAULT_DB,
    fmt: Annotated[
        str,
        typer.Option("--format", metavar="table|csv|json", help="Output format."),
    ] = "table",
    limit: Annotated[
        int | None,
        typer.Option("--limit", min=0, metavar="N", help="Show at most N rows."),
    ] = None,
    allow_files: Annotated[
        bool,
        typer.Option(
            "--allow-files",
            help="Let the SQL read files (read_csv('x.csv'), read_json ...); without it a "
            "query reads the store only. Nothing is ever written.",
        ),
    ] = False,
    server: Annotated[
        str | None,
        typer.Option("--server", metavar="URL", help="Run it on the store a gostop serve holds."),
    ] = None,
    timeout: Annotated[
        float,
        typer.Option(
            "--timeout",
            min=0,
            metavar="SECONDS",
            help="Stop the query after this long (0: no limit). The store stays held, "
            "for every other command too, while a query runs.",
        ),
    ] = QUERY_TIMEOUT,
    max_rows: Annotated[
        int | None,
        typer.Option(
            "--max-rows",
            min=1,
            metavar="N",
            help="Refuse an answer of more than N rows (--limit shows the first N instead).",
        ),
    ] = None,
) -> None:
    """Run SQL on the store, read-only: statements that write (and CHECKPOINT) are refused,
    and nothing outside the store is read unless --allow-files is given. A query stops
    after --timeout seconds (docs/queries.md).

    Tables: events, games, hands, turns, captures, transfers, decisions, scores, payouts,
    issues.
    Views: v_hand_summary, v_payout_disputes, v_specials, v_specials_by_seat,
    v_player_ledger, v_player_hands, v_player_gos, v_player_stats, v_events.
    Write "at" and "by" in double quotes (reserved words in SQL).
    SQL that starts with a comment ('--') goes in --file, or after a lone '--'.
    """
    text = sql_text(sql, file, fmt)
    from gostop_records.store import open_for_queries
    from gostop_records.store.query import QueryResult
    from gostop_records.store.sandbox import NO_LIMITS

    if server is not None:  # the server's query path and limits: no write, no file
        from gostop_records.service.client import remote_query

        result = QueryResult(*remote_query(server, text, limit, common.server_token()))
    else:
        # a person at the command line: several statements, no memory or size limit but
        # the ones asked for, and a time limit so that a query cannot hold the file forever
        limits = dataclasses.replace(NO_LIMITS, timeout=timeout or None, max_rows=max_rows)
        with open_for_queries(db, allow_files=allow_files) as store:
            result = store.query(text, limit=limit, allow_files=allow_files, limits=limits)
    show_result(result, fmt)


def sql_text(sql: str | None, file: Path | None, fmt: str) -> str:
    """The SQL of a query command (an argument, '-' for stdin, or --file), once its output
    format is known to be one of table, csv and json."""
    if fmt not in ("table", "csv", "json"):
        raise typer.BadParameter("use table, csv or json", param_hint="--format")
    if (sql is None) == (file is None):
        raise typer.BadParameter("give the SQL as an argument or with --file (one of them)")
    if file is not None:
        try:
            text = file.read_text(encoding="utf-8")
        except OSError as exc:
            common.fail(f"{file}: cannot read: {exc.strerror}")
    else:
        text = sys.stdin.read() if sql == "-" else str(sql)
    return text


def show_result(result: QueryResult, fmt: str) -> None:
    """A query's result on stdout as a table, CSV or JSON (shared with gostop archive)."""
    if fmt == "json":
        common.print_json([common.cell(r) for r in result.records()])
    elif fmt == "csv":
        w = csv.writer(sys.stdout, lineterminator="\n")
        w.writerow(result.columns)
        for r in result.rows:
            w.writerow(["" if v is None else common.cell_text(v) for v in r])
    else:
        common.print_table(result.columns, result.rows)


@app.command("games", epilog="Example: gostop db games --unfinished")
def games(
    db: DbOption = DEFAULT_DB,
    unfinished: Annotated[
        bool, typer.Option("--unfinished", help="Only the games that can go on.")
    ] = False,
    as_json: JsonOption = False,
) -> None:
    """The store's games: players, ruleset, hands, events, where each stands (as gostop games)."""
    from .games_cmd import games as list_games

    list_games(None, db, unfinished, as_json)


@app.command("compact", epilog="Example: gostop db compact --db club.duckdb")
def compact(db: DbOption = DEFAULT_DB) -> None:
    """Rewrite the store into a fresh file, leaving no freed block behind (after a person
    was forgotten through the server's API; stop the server first)."""
    from gostop_records.store.compact import compact as rewrite

    common.echo(f"{db} rewritten ({rewrite(db)} bytes)")


@app.command("stats", epilog="Example: gostop db stats --json")
def stats(db: DbOption = DEFAULT_DB, as_json: JsonOption = False) -> None:
    """Games, hands, outcomes, average payouts by ruleset and players, specials' frequency."""
    from gostop_records.store import Store

    with Store(db, read_only=True) as store:
        s = store.stats()
    if as_json:
        common.print_json(common.cell(s))
        return
    common.echo(
        f"{s['games']} game(s), {s['hands']} hand(s), {s['events']} event(s); "
        f"{s['violations']} rule violation(s) stored, "
        f"{s['disputed_payments']} disputed payment(s)"
    )
    common.echo("outcomes: " + ", ".join(f"{k} {v}" for k, v in s["outcomes"].items()))
    if s["by_ruleset"]:
        cols = tuple(s["by_ruleset"][0])
        common.print_table(cols, [tuple(r.values()) for r in s["by_ruleset"]])
    common.print_table(
        ("special", "count", "per 100 hands"),
        [(k, v["count"], v["per_100_hands"]) for k, v in s["specials"].items()],
        noun="special",
    )


@app.command(
    "export",
    epilog="Example: gostop db export --parquet out/ ; "
    "gostop db export --decisions --out decisions.parquet",
)
def export(
    parquet: Annotated[
        Path | None,
        typer.Option(
            "--parquet",
            metavar="DIR",
            help="Folder to write the Parquet files to: every table partitioned by month, "
            "in the layout of gostop archive (see docs/operations.md).",
        ),
    ] = None,
    decisions: Annotated[
        bool,
        typer.Option(
            "--decisions",
            help="Write the decisions instead, to --out FILE.parquet: a row per legal option "
            "of every decision, with the seat's view, the option chosen and a stored "
            "review's expected chips (see docs/review.md).",
        ),
    ] = False,
    out: Annotated[
        Path | None,
        typer.Option("--out", metavar="FILE", help="The Parquet file --decisions writes."),
    ] = None,
    db: DbOption = DEFAULT_DB,
    overwrite: Annotated[
        bool, typer.Option("--overwrite", help="Replace an earlier export in DIR (or FILE).")
    ] = False,
    as_json: JsonOption = False,
) -> None:
    """Export the store to Parquet, readable by DuckDB, Polars, Spark and Trino."""
    from gostop_records.store import Store

    if decisions:
        if out is None or parquet is not None:
            raise typer.BadParameter("--decisions writes one file: give --out FILE, not --parquet")
        if out.exists() and not overwrite:
            common.fail(f"{out} exists: choose another file or pass --overwrite")
        from gostop_records.review.export import export_decisions

        with Store(db, read_only=True) as store, Progress("export", None, "game") as bar:
            done = export_decisions(store, out, progress=bar.update)
        if as_json:
            common.print_json(done.to_dict())
            return
        common.echo(
            f"exported {done.decisions} decision(s) of {done.games} game(s) to {done.path}: "
            f"{done.rows} row(s), one per legal option; {done.reviewed} with a stored review"
        )
        return
    if parquet is None:
        raise typer.BadParameter("give --parquet DIR (or --decisions --out FILE)")
    with Store(db, read_only=True) as store, Progress("export", None, "table") as bar:
        report = store.export_parquet(parquet, overwrite=overwrite, progress=bar.update)
    if as_json:
        common.print_json(report.to_dict())
        return
    common.echo(
        f"exported {report.events} event(s) and {len(report.tables)} table(s) to "
        f"{report.directory} ({report.files} file(s))"
    )


@app.command(
    "report",
    epilog="Example: gostop db report --html club.html; while a server holds the store: "
    "gostop db report --server http://127.0.0.1:8765 --html club.html",
)
def report(
    html: Annotated[
        Path,
        typer.Option(
            "--html",
            metavar="FILE",
            help="Write the report to FILE: one self-contained HTML page (styles and charts "
            "inside, nothing fetched), to open from the disk or attach to a message.",
        ),
    ],
    db: DbOption = DEFAULT_DB,
    server: Annotated[
        str | None,
        typer.Option(
            "--server",
            metavar="URL",
            help="Read the report of the store a gostop serve holds (its /report page; a "
            "private server with $GOSTOP_SERVER_KEY).",
        ),
    ] = None,
) -> None:
    """The club's report: every player's hands, wins, chips, Gos and specials with charts,
    the hands by month and ruleset, and the disputed payments (from the player views)."""
    from gostop_records.web.pages import write_page

    if server is not None:
        from gostop_records.service.client import remote_report

        size = write_page(html, remote_report(server, common.server_token()))
        typer.echo(f"wrote {html} ({size:,} bytes): the club's report of {server}", err=True)
        return
    from gostop_records.store import Store
    from gostop_records.web.browse_pages import write_report_html

    with Store(db, read_only=True) as store:
        size = write_report_html(store, html)
    typer.echo(f"wrote {html} ({size:,} bytes): the club's report of {db}", err=True)


# the commands that keep the store sound, registered after the ones above (the order of
# ``gostop db --help``)
from . import db_care_cmd  # noqa: E402, F401
