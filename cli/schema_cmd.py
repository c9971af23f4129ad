"""``gostop schema``: write the JSON Schemas of the log format, or check the checked-in ones."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from gostop_records import json_schema

from . import common


def schema(
    out: Annotated[
        Path, typer.Option("--out", metavar="DIR", help="Directory of the schema files.")
    ] = Path("schemas"),
    check: Annotated[
        bool,
        typer.Option(
            "--check",
            help="Compare the files in DIR with the generated schemas; "
            "exit 1 listing the differences.",
        ),
    ] = False,
) -> None:
    """Write the JSON Schema (2020-12) of the envelope and of every event type.

    Example: gostop schema --out schemas; gostop schema --check
    """
    if check:
        problems = json_schema.check(out)
        if problems:
            common.fail(
                f"{out}: {len(problems)} schema file(s) out of date "
                "(run `gostop schema` to regenerate):\n" + "\n".join(problems)
            )
        common.echo(f"{out}: schemas up to date")
        return
    written = json_schema.write(out)
    typer.echo(f"wrote {len(written)} schema files under {out}", err=True)
