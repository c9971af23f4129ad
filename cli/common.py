"""What every command shares: output streams, JSON, colour, exit codes, error handling.

Results go to stdout (human text, or JSON with ``--json``); messages, warnings and progress go
to stderr, so that ``gostop ... --json | jq`` always reads clean JSON. Exit codes: 0 success,
1 the input was rejected (the reason on stderr), 2 a usage error (typer's own).
"""

from __future__ import annotations

import contextlib
import datetime as dt
import decimal
import json
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import IO, TYPE_CHECKING, Annotated, Any, NoReturn

import typer
from typer.core import TyperGroup

from gostop_records.errors import CardCodeError, GameChoiceError, GostopError

if TYPE_CHECKING:
    from gostop_records.events import Envelope

__all__ = [
    "EXIT_OK",
    "EXIT_REJECTED",
    "EXIT_USAGE",
    "PROG",
    "USER_ERRORS",
    "GostopGroup",
    "LineReader",
    "cell",
    "cell_text",
    "color_enabled",
    "console",
    "echo",
    "error_message",
    "fail",
    "load_game",
    "print_json",
    "print_table",
    "quiet_broken_pipe",
    "style",
    "to_jsonable",
    "warn",
]

PROG = "gostop"
EXIT_OK = 0
EXIT_REJECTED = 1
EXIT_USAGE = 2

#: Errors that mean "the input was rejected": one line per message line, exit 1.
USER_ERRORS: tuple[type[BaseException], ...] = (GostopError, CardCodeError)


class LineReader:
    """Lines from the keyboard (with line editing and the prompt) or from a pipe or file.

    ``echo``, when given, writes each prompt with the answer read for it from a pipe, so
    that the transcript of a piped session reads like a typed one (``gostop play``); the
    recorder reads a script silently. ``line_no`` counts the lines read.
    """

    def __init__(
        self,
        stream: IO[str] | None,
        interactive: bool,
        echo: Callable[[str], None] | None = None,
        lines: Callable[[], Sequence[str]] | None = None,
    ) -> None:
        self.stream = stream
        self.interactive = interactive
        self.echo = echo
        self.line_no = 0
        #: The lines that can be entered now (commands, legal entries): Tab completes them.
        self.lines = lines
        self._matches: list[str] = []
        self._completing = False

    def _install_completion(self) -> None:
        self._completing = True
        try:
            import readline
        except ImportError:  # no line editing here: no completion either
            return
        readline.set_completer_delims(" \t")
        readline.parse_and_bind("tab: complete")
        readline.set_completer(self._complete)

    def _complete(self, word: str, state: int) -> str | None:
        """readline's completer: the ``state``-th word that can be typed here."""
        if state == 0:
            import readline

            from gostop_records.notation import complete

            before = readline.get_line_buffer()[: readline.get_begidx()]
            try:
                self._matches = complete(self.lines() if self.lines else [], before, word)
            except Exception:  # a completer must never break the prompt
                self._matches = []
        if state < len(self._matches):
            return self._matches[state] + (" " if len(self._matches) == 1 else "")
        return None

    def read(self, prompt: str) -> str | None:
        """The next line without its line end; None at the end of the input (or Ctrl-D)."""
        self.line_no += 1
        if self.interactive and self.lines is not None and not self._completing:
            self._install_completion()
        if self.interactive:
            try:
                return input(prompt)
            except EOFError:
                typer.echo()
                return None
        assert self.stream is not None
        line = self.stream.readline()
        if not line:
            if self.echo is not None:
                self.echo(prompt)
            return None
        answer = line.rstrip("\r\n")
        if self.echo is not None:
            self.echo(prompt + answer)
        return answer


def color_enabled(stream: Any = None) -> bool:
    """Colour only for a terminal, and never when ``NO_COLOR`` is set (no-color.org)."""
    if os.environ.get("NO_COLOR"):
        return False
    s = stream if stream is not None else sys.stdout
    isatty = getattr(s, "isatty", None)
    return bool(isatty and isatty())


def style(text: str, *, fg: str | None = None, bold: bool = False, stream: Any = None) -> str:
    """``text`` in a colour when the stream takes colour, else unchanged."""
    if not color_enabled(stream):
        return text
    return typer.style(text, fg=fg, bold=bold)


def console(stderr: bool = False) -> Any:
    """A rich console on stdout (or stderr) as wide as the terminal, coloured unless
    ``NO_COLOR`` says not; what prints tables and progress bars for people."""
    import shutil

    from rich.console import Console

    size = shutil.get_terminal_size()
    return Console(
        stderr=stderr,
        width=size.columns,
        height=size.lines,
        no_color=bool(os.environ.get("NO_COLOR")),
        highlight=False,
    )


def echo(text: str = "") -> None:
    """A line of results on stdout."""
    typer.echo(text)


def warn(message: str) -> None:
    """A warning on stderr; never mixed into results."""
    for line in message.splitlines() or [""]:
        typer.echo(f"{PROG}: warning: {line}", err=True)


def error_message(message: str) -> None:
    """An error on stderr, ``gostop: error: ...`` on every line of it."""
    for line in message.splitlines() or [""]:
        typer.echo(f"{PROG}: error: {line}", err=True)


def fail(message: str, code: int = EXIT_REJECTED) -> NoReturn:
    """Print an error and leave with ``code`` (1: the input was rejected)."""
    error_message(message)
    raise typer.Exit(code)


def not_both(first: str, first_value: object, second: str, second_value: object) -> None:
    """Refuse two options given together that exclude each other (a usage error, exit 2)."""
    if first_value not in (None, False) and second_value not in (None, False):
        raise typer.BadParameter(
            f"give {first} or {second}, not both", param_hint=f"{first}/{second}"
        )


def to_jsonable(value: Any) -> Any:
    """Plain JSON values for sets, tuples and enums, so ``--json`` output is stable."""
    if isinstance(value, dict):
        return {str(k): to_jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [to_jsonable(v) for v in value]
    if isinstance(value, set | frozenset):
        return sorted(to_jsonable(v) for v in value)
    if hasattr(value, "value") and isinstance(getattr(value, "value", None), str | int):
        return value.value
    return value


def print_json(data: Any) -> None:
    """Machine output on stdout: indented, UTF-8, keys in the order given."""
    typer.echo(json.dumps(to_jsonable(data), indent=2, ensure_ascii=False))


def print_report(report: Any, as_json: bool, **problems: Sequence[Any]) -> None:
    """The report of a bulk job (an import, an archive build): as JSON or its summary on
    stdout, each problem on stderr after its kind (the keyword), and exit 1 unless it is ok."""
    if as_json:
        print_json(report.to_dict())
    else:
        echo(report.summary())
    for kind, found in problems.items():
        for problem in found:
            error_message(f"{kind}: {problem}")
    if not report.ok:
        raise typer.Exit(EXIT_REJECTED)


#: The log, ``--db`` and ``--game`` of the commands that read one game (replay, review).
GameLogArgument = Annotated[
    Path | None, typer.Argument(metavar="LOG", help="A log file (.jsonl or .msgpack).")
]
GameDbOption = Annotated[
    Path | None, typer.Option("--db", metavar="FILE", help="Read the game from the store.")
]
GameOption = Annotated[
    str | None,
    typer.Option(
        "--game",
        metavar="ID",
        help="The game (needed with --db, or when the log holds several).",
    ),
]

#: ``--server URL`` of the commands that read one game: the game comes from a ``gostop serve``.
ServerOption = Annotated[
    str | None,
    typer.Option("--server", metavar="URL", help="Read the game from a gostop serve."),
]


def script_or_stdin(stack: contextlib.ExitStack, script: Path | None) -> tuple[IO[str], bool]:
    """The lines a recording command reads: the ``--script`` file (``-``: standard input)
    or standard input, and whether a person types them at a terminal."""
    if script is not None and str(script) != "-":
        try:
            return stack.enter_context(open(script, encoding="utf-8")), False
        except OSError as exc:
            fail(f"{script}: cannot read: {exc.strerror}")
    return sys.stdin, script is None and sys.stdin.isatty()


def _describe_os_error(exc: OSError) -> str:
    where = f"{exc.filename}: " if exc.filename else ""
    return f"{where}{exc.strerror or exc}"


class GostopGroup(TyperGroup):
    """The root command group: a library error in any command is a message, not a traceback.

    Usage errors are raised while parsing, as click exceptions, and keep their exit code 2.
    """

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        return super().parse_args(ctx, bare_options(args))

    def invoke(self, ctx: Any) -> Any:
        _SOURCE.clear()
        try:
            return super().invoke(ctx)
        except USER_ERRORS as exc:
            fail(with_source(str(exc)))
        except BrokenPipeError:
            quiet_broken_pipe()
        except OSError as exc:
            fail(_describe_os_error(exc))


#: Options whose value may be left out (click cannot say so through typer): a bare one means
#: "the obvious one", passed on as an empty value (``record --resume``: the unfinished game).
BARE_OPTIONS = ("--resume",)


def bare_options(args: list[str]) -> list[str]:
    """``args`` with an empty value after each of :data:`BARE_OPTIONS` given without one."""
    out: list[str] = []
    for k, a in enumerate(args):
        out.append(a)
        if a == "--":
            return out + args[k + 1 :]
        nxt = args[k + 1] if k + 1 < len(args) else None
        if a in BARE_OPTIONS and (nxt is None or nxt.startswith("-")):
            out.append("")
    return out


def quiet_broken_pipe() -> NoReturn:
    """The reader of stdout went away (``gostop ... | head``): stop quietly, as Unix tools do."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass
    raise typer.Exit(EXIT_OK)


def cell(value: Any) -> Any:
    """A SQL value as a JSON-ready value (dates as ISO text, decimals as floats)."""
    if isinstance(value, dt.date | dt.datetime | dt.time):
        return value.isoformat()
    if isinstance(value, decimal.Decimal):
        return float(value)
    if isinstance(value, list | tuple):
        return [cell(v) for v in value]
    if isinstance(value, dict):
        return {str(k): cell(v) for k, v in value.items()}
    return value


def cell_text(value: Any) -> str:
    """A SQL value as table text (NULL for none)."""
    if value is None:
        return "NULL"
    if isinstance(value, list | tuple):
        return "[" + ", ".join(cell_text(v) for v in value) + "]"
    if isinstance(value, float):
        return f"{value:.6g}"
    return str(cell(value))


def print_table(
    columns: Sequence[str], rows: Sequence[Sequence[Any]], *, noun: str = "row"
) -> None:
    """Rows under column heads, and their count: a boxed table (rich) on a terminal, plain
    aligned text in a pipe or file, so that scripts and tests read stable lines."""
    cells = [[cell_text(v) for v in r] for r in rows]
    count = f"({len(rows)} {noun}{'s' if len(rows) != 1 else ''})"
    if sys.stdout.isatty():
        from rich import box
        from rich.table import Column, Table

        table = Table(
            *(Column(c, overflow="fold") for c in columns),  # a narrow screen hides nothing
            box=box.SIMPLE_HEAD,
            header_style="bold",
            caption=count,
            caption_justify="left",
        )
        for r in cells:
            table.add_row(*r)
        console().print(table)
        return
    widths = [len(c) for c in columns]
    for r in cells:
        for i, c in enumerate(r):
            widths[i] = max(widths[i], len(c))
    head = "  ".join(c.ljust(w) for c, w in zip(columns, widths, strict=True)).rstrip()
    echo(style(head, bold=True))
    echo("  ".join("-" * w for w in widths))
    for r in cells:
        echo("  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip())
    echo(count)


#: The log (or store and game) the command read its game from: named by every error after.
_SOURCE: list[str] = []


def with_source(message: str) -> str:
    """``message`` with the file the command's game came from in front, unless it names it."""
    if not _SOURCE or _SOURCE[0] in message:
        return message
    return f"{_SOURCE[0]}: {message}"


def load_game(
    log: Path | None, db: Path | None, game: str | None, *, exact: bool = True
) -> tuple[str, list[Envelope]]:
    """:func:`gostop_records.games.load_game` for a command: exactly one of ``log`` and
    ``db``; ``game`` picks among several games of a log and is needed with the store; a
    missing choice is a usage error (exit 2) naming the option."""
    from gostop_records import games

    if (log is None) == (db is None):
        fail("give a LOG file or --db FILE --game ID (one of them)", EXIT_USAGE)
    _SOURCE[:] = [str(log) if log is not None else f"{db}, game {game}"]
    if db is not None and game is None:
        fail("--db needs --game ID: the game to read from the store", EXIT_USAGE)
    try:
        return games.load_game(log, db, game, exact=exact)
    except GameChoiceError as exc:
        fail(str(exc).replace(": pick one (", ": pick one with --game (", 1), EXIT_USAGE)


def server_token(*, game: bool = False) -> str | None:
    """What a command reading a private server sends: ``$GOSTOP_TOKEN`` (a game's recorder
    token, for a command that reads one game: ``game``), else ``$GOSTOP_SERVER_KEY``."""
    import os

    found = os.environ.get("GOSTOP_TOKEN") if game else None
    return found or os.environ.get("GOSTOP_SERVER_KEY") or None
