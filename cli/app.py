"""Entry point of the ``gostop`` command.

Each command lives in its own module and is registered here with one line, so commands can
be added without touching each other. Modules that need duckdb or pyarrow import them inside
the command, which keeps ``gostop --help`` fast.
"""

from __future__ import annotations

import sys

import typer

from . import (
    archive_cmd,
    audit_cmd,
    common,
    db_cmd,
    demo_cmd,
    games_cmd,
    keys_cmd,
    people_cmd,
    play_cmd,
    record_cmd,
    replay_cmd,
    review_cmd,
    rules_cmd,
    schema_cmd,
    seal_cmd,
    serve_cmd,
    simulate_cmd,
    validate_cmd,
)

app = typer.Typer(
    name=common.PROG,
    cls=common.GostopGroup,
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    help="Go-Stop game records: record, replay, score, audit and analyse games.",
    epilog="Example: gostop rules show matgo",
)

app.add_typer(rules_cmd.app, name="rules")
app.add_typer(db_cmd.app, name="db")
app.add_typer(archive_cmd.app, name="archive")
app.command("schema")(schema_cmd.schema)
app.command("demo")(demo_cmd.demo)
app.command("record")(record_cmd.record)
app.command("games")(games_cmd.games)
app.command("replay")(replay_cmd.replay)
app.command("review")(review_cmd.review)
app.command("play")(play_cmd.play)
app.command("validate")(validate_cmd.validate)
app.command("audit")(audit_cmd.audit)
app.command("simulate")(simulate_cmd.simulate)
app.command("serve")(serve_cmd.serve)
app.command("seal")(seal_cmd.seal)
app.command("verify")(seal_cmd.verify)
app.command("countersign")(seal_cmd.countersign)
app.add_typer(keys_cmd.app, name="keys")
app.add_typer(people_cmd.app, name="people")


def main() -> None:
    """Run the app; a library error anywhere is one line on stderr and exit code 1."""
    try:
        app()
    except common.USER_ERRORS as exc:
        common.error_message(str(exc))
        sys.exit(common.EXIT_REJECTED)
    except KeyboardInterrupt:
        common.error_message("interrupted")
        sys.exit(130)


if __name__ == "__main__":
    main()
