"""The ``gostop db`` command group and what its commands share: the ``--db`` and ``--json``
options and the default store file."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from . import common

app = typer.Typer(
    no_args_is_help=True,
    add_completion=False,
    help="The DuckDB store: import logs, query with SQL, stats, Parquet export, verify, repair, "
    "back up and restore.",
    epilog='Example: gostop db import logs/ && gostop db query "SELECT * FROM v_hand_summary"',
)

DbOption = Annotated[
    Path,
    typer.Option(
        "--db",
        metavar="FILE",
        envvar="GOSTOP_DB",
        help="The store file (default: gostop.duckdb in the current folder).",
        show_default=False,
    ),
]
JsonOption = Annotated[bool, typer.Option("--json", help="Machine output on stdout.")]
DEFAULT_DB = Path("gostop.duckdb")


def db_error(text: str) -> None:
    """An error of a db command, on stderr, named by the program."""
    typer.echo(f"{common.PROG}: {text}", err=True)
