"""``gostop validate``: check logs line by line, chain by chain, rule by rule.

The checks and the report are the library's (:mod:`gostop_records.validate`); this command
prints each finding (file, line, game, seq, rule and reason) and a summary, or the report as
JSON. Exit code 0 when every file is valid, 1 otherwise.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from gostop_records.validate import validate_files

from . import common
from .progress import Progress

__all__ = ["validate"]


def validate(
    logs: Annotated[
        list[Path],
        typer.Argument(
            metavar="LOG...",
            help="Log files (.jsonl or .msgpack), or folders searched for them.",
        ),
    ],
    lenient: Annotated[
        bool,
        typer.Option(
            "--lenient",
            help="Report every disagreement with the rules, not only the first of each game.",
        ),
    ] = False,
    json_out: Annotated[bool, typer.Option("--json", help="The report as JSON on stdout.")] = False,
) -> None:
    """Check logs: every line readable, the hash chain intact, every fact within the rules.

    Each error names the file, line, game, seq, rule and reason; a summary line follows.

    Exit code 0 when every file is valid, 1 otherwise.

    Example: gostop validate friday.jsonl samples/ --lenient
    """
    with Progress("validate", None, "file") as bar:

        def progress(done: int, total: int) -> None:
            if total > 1:  # a folder or several files: long enough to follow
                bar.update(done, total)

        report = validate_files(logs, lenient, progress)
    if json_out:
        common.print_json(report.to_dict())
    else:
        for f in report.errors + report.warnings:
            common.echo(str(f))
        for f in report.signed:
            common.echo(f"{f.file or ''}: game {f.game_id}: signed: {f.reason}".lstrip(": "))
        common.echo(report.summary())
    if not report.valid:
        if not json_out:
            common.error_message(f"{len(report.errors)} error(s) found")
        raise typer.Exit(common.EXIT_REJECTED)
