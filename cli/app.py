"""Entry point of the ``gostop`` command."""

from __future__ import annotations

import typer

app = typer.Typer(no_args_is_help=True, add_completion=False, help="Go-Stop game records.")


def main() -> None:
    app()
