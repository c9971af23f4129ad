"""Entry point of the ``gostop`` command.

Each command lives in its own module and is named here with one line of :data:`COMMANDS`,
so commands can be added without touching each other. A command's module is imported only
when that command runs (``gostop --help`` imports them all, to list them), so that a
command does not pay for the imports of every other one; modules that need duckdb or
pyarrow import them inside the command, for the same reason.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Iterator, MutableMapping
from typing import Any

import typer

from . import common

#: Every command, in the order ``gostop --help`` lists them: its name and where it lives,
#: ``module:name`` in this package, either a function (one command) or a ``typer.Typer``
#: (a group of subcommands).
COMMANDS: dict[str, str] = {
    "schema": "schema_cmd:schema",
    "demo": "demo_cmd:demo",
    "record": "record_cmd:record",
    "games": "games_cmd:games",
    "replay": "replay_cmd:replay",
    "review": "review_cmd:review",
    "play": "play_cmd:play",
    "validate": "validate_cmd:validate",
    "audit": "audit_cmd:audit",
    "simulate": "simulate_cmd:simulate",
    "serve": "serve_cmd:serve",
    "seal": "seal_cmd:seal",
    "verify": "seal_cmd:verify",
    "countersign": "seal_cmd:countersign",
    "rules": "rules_cmd:app",
    "db": "db_cmd:app",
    "archive": "archive_cmd:app",
    "keys": "keys_cmd:app",
    "people": "people_cmd:app",
}


def load_command(name: str) -> typer.core.TyperCommand | typer.core.TyperGroup:
    """The command of one entry of :data:`COMMANDS`, its module imported now."""
    module, attr = COMMANDS[name].split(":")
    target = getattr(importlib.import_module(f"{__package__}.{module}"), attr)
    if not isinstance(target, typer.Typer):  # one function: a Typer of one command is it
        function, target = target, typer.Typer(add_completion=False)
        target.command(name)(function)
    command = typer.main.get_command(target)
    command.name = name
    return command  # type: ignore[return-value]


class _Commands(MutableMapping[str, Any]):
    """The root group's commands by name: every name of :data:`COMMANDS` is there from the
    start (for listing, and for "did you mean" on a typo), each command loaded when it is
    first looked up."""

    def __init__(self) -> None:
        self._loaded: dict[str, Any] = {}

    def __getitem__(self, name: str) -> Any:
        if name not in self._loaded:
            if name not in COMMANDS:
                raise KeyError(name)
            self._loaded[name] = load_command(name)
        return self._loaded[name]

    def __setitem__(self, name: str, command: Any) -> None:
        self._loaded[name] = command

    def __delitem__(self, name: str) -> None:
        del self._loaded[name]

    def __iter__(self) -> Iterator[str]:
        yield from COMMANDS
        yield from (n for n in self._loaded if n not in COMMANDS)

    def __len__(self) -> int:
        return len(set(COMMANDS) | set(self._loaded))


class CommandTable(common.GostopGroup):
    """The root group, whose commands are :data:`COMMANDS`, each loaded when needed."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        registered, self.commands = self.commands, _Commands()
        self.commands.update(registered)  # any command typer registered the usual way


app = typer.Typer(
    name=common.PROG,
    cls=CommandTable,
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    help="Go-Stop game records: record, replay, score, audit and analyse games.",
    epilog="Example: gostop rules show matgo",
)


@app.callback()
def _root() -> None:
    # no option of its own: a callback makes the program a group of commands while none is
    # registered with typer (they are in COMMANDS)
    pass


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
