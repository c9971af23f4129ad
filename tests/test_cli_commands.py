"""The ``gostop`` program's table of commands: every command is there, and running one
imports its own module, not every other command's."""

import json
import subprocess
import sys

import typer
from gostop_cli.app import COMMANDS, app, load_command
from typer.testing import CliRunner


def test_every_command_of_the_table_loads_under_its_name() -> None:
    for name in COMMANDS:
        command = load_command(name)
        assert command.name == name
        assert command.help, f"{name} has no help"
    group = typer.main.get_command(app)
    context = typer.Context(group)
    assert group.list_commands(context) == list(COMMANDS)  # type: ignore[attr-defined]
    assert group.get_command(context, "no-such-command") is None  # type: ignore[attr-defined]


def test_a_command_registered_with_typer_beside_the_table_is_kept() -> None:
    extra = typer.Typer(cls=type(typer.main.get_command(app)), add_completion=False)
    extra.command("hello")(lambda: print("hi"))
    extra.command("other")(lambda: None)
    group = typer.main.get_command(extra)
    context = typer.Context(group)
    assert group.list_commands(context) == [*COMMANDS, "hello", "other"]  # type: ignore[attr-defined]
    assert CliRunner().invoke(extra, ["hello"]).output == "hi\n"


def test_the_program_s_help_lists_every_command() -> None:
    done = CliRunner().invoke(app, ["--help"], env={"NO_COLOR": "1", "COLUMNS": "200"})
    assert done.exit_code == 0
    listed = [line.split()[1] for line in done.output.splitlines() if line.startswith("│ ")]
    assert [n for n in listed if n in COMMANDS] == list(COMMANDS)


def test_an_unknown_command_is_a_usage_error() -> None:
    done = CliRunner().invoke(app, ["valdate"], env={"NO_COLOR": "1"})
    assert done.exit_code == 2
    assert "No such command 'valdate'. Did you mean 'validate'?" in done.output


_LOADED = """
import json, sys
from gostop_cli.app import main
sys.argv = ["gostop", *sys.argv[1:]]
try:
    main()
except SystemExit:
    pass
print(json.dumps(sorted(m for m in sys.modules if m.startswith("gostop_cli."))), file=sys.stderr)
"""


def _commands_loaded(*args: str) -> set[str]:
    done = subprocess.run(
        [sys.executable, "-c", _LOADED, *args], capture_output=True, text=True, check=True
    )
    modules = json.loads(done.stderr.strip().splitlines()[-1])
    return {m.removeprefix("gostop_cli.") for m in modules if m.endswith("_cmd")}


def test_a_command_imports_its_own_module_only(tmp_path) -> None:
    assert _commands_loaded("validate", "samples/disputed-payment.jsonl") == {"validate_cmd"}
    assert _commands_loaded("rules", "list") == {"rules_cmd"}
    # db's commands are two modules, one group
    assert _commands_loaded("db", "stats", "--db", str(tmp_path / "x.duckdb")) <= {
        "db_cmd",
        "db_care_cmd",
    }
