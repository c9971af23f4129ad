"""``gostop rules`` and ``gostop schema``: output, --json, --diff, errors and exit codes."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from gostop_cli import common
from gostop_cli.app import app
from typer.testing import CliRunner

from gostop_records.events import EVENT_TYPES
from gostop_records.rules import PRESETS

ROOT = Path(__file__).resolve().parent.parent
runner = CliRunner()


def run(*args: str) -> tuple[int, str, str]:
    result = runner.invoke(app, list(args))
    return result.exit_code, result.stdout, result.stderr


def test_rules_list() -> None:
    code, out, err = run("rules", "list")
    assert code == 0 and err == ""
    for name in PRESETS:
        assert name in out
    assert "S, S+1, S+2, then S*2^(n-2)" in out  # cardavia's Go payout
    assert "2p 7 / 3p 3" in out  # gamerules' targets


def test_rules_list_json() -> None:
    code, out, _ = run("rules", "list", "--json")
    assert code == 0
    data = json.loads(out)
    assert [d["name"] for d in data] == list(PRESETS)
    by_name = {d["name"]: d for d in data}
    assert by_name["gamerules"]["targets"] == {"2": 7, "3": 3}
    assert by_name["gostop3"]["players"] == [3]
    assert by_name["matgo"]["go_payout"] == "standard"
    assert by_name["matgo"]["hash"] == PRESETS["matgo"].content_hash


def test_rules_show_matgo() -> None:
    code, out, _ = run("rules", "show", "matgo")
    assert code == 0
    assert f"hash: {PRESETS['matgo'].content_hash}" in out
    for title in ("Players and deck", "Go / Stop", "Settlement"):
        assert title in out
    line = next(ln for ln in out.splitlines() if ln.strip().startswith("pi_bak_max_units"))
    assert " 7 " in line and "Pi-bak applies when the loser holds" in line
    for field in PRESETS["matgo"].content():
        assert field in out


def test_rules_show_json_is_the_pinned_form() -> None:
    code, out, _ = run("rules", "show", "MATGO", "--json")
    assert code == 0
    data = json.loads(out)
    book = data.pop("rulebook")
    assert data == json.loads(json.dumps(PRESETS["matgo"].pinned()))
    assert set(book) == {"combinations", "factors", "instants", "sales", "table"}


def test_rules_show_diff() -> None:
    code, out, _ = run("rules", "show", "matgo", "--diff", "gostop3")
    assert code == 0
    assert "matgo -> gostop3" in out
    assert "pi_bak_max_units" in out and "go_bak" in out
    assert "hand_size_2p" not in out and "target_2p" not in out
    code, out, _ = run("rules", "show", "matgo", "--diff", "gostop3", "--json")
    data = json.loads(out)
    fields = {d["field"]: d for d in data["differences"]}
    assert fields["pi_bak_max_units"]["a"] == 7 and fields["pi_bak_max_units"]["b"] == 5
    assert fields["go_bak"]["description"]
    assert data["a"]["name"] == "matgo" and data["b"]["hash"] == PRESETS["gostop3"].content_hash
    code, out, _ = run("rules", "show", "matgo", "--diff", "matgo")
    assert code == 0 and "the same rules" in out


def test_rules_show_custom_file(tmp_path: Path) -> None:
    p = tmp_path / "house.toml"
    p.write_text('base = "matgo"\n[rules]\npi_bak_max_units = 5\n', encoding="utf-8")
    code, out, _ = run("rules", "show", str(p))
    assert code == 0 and out.startswith("house: matgo with house overrides")
    code, out, _ = run("rules", "show", str(p), "--diff", "matgo", "--json")
    assert [d["field"] for d in json.loads(out)["differences"]] == ["pi_bak_max_units"]


def test_bad_ruleset_file_exits_1_with_the_reason(tmp_path: Path) -> None:
    p = tmp_path / "bad.toml"
    p.write_text('base = "matgo"\ncup_mode = "sometimes"\n', encoding="utf-8")
    code, out, err = run("rules", "show", str(p))
    assert code == 1 and out == ""
    assert err.startswith("gostop: error: ")
    assert "cup_mode" in err and "player_choice" in err
    assert "Traceback" not in err


def test_unknown_preset_and_usage_errors() -> None:
    code, _, err = run("rules", "show", "hwatu9")
    assert code == 1 and "gostop: error: unknown ruleset 'hwatu9'" in err
    code, _, _ = run("rules", "show")
    assert code == 2
    code, _, _ = run("rules", "list", "--bogus")
    assert code == 2


@pytest.mark.parametrize("args", [[], ["rules"], ["rules", "list"], ["rules", "show"], ["schema"]])
def test_help_has_an_example(args: list[str]) -> None:
    code, out, _ = run(*args, "--help")
    assert code == 0
    assert "Example" in out and "gostop" in out


def test_main_prints_one_line_and_no_traceback(tmp_path: Path) -> None:
    p = tmp_path / "bad.json"
    p.write_text('{"base": "matgo", "bombs": "often"}', encoding="utf-8")
    proc = subprocess.run(
        [sys.executable, "-m", "gostop_cli.app", "rules", "show", str(p)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 1
    assert proc.stdout == ""
    assert proc.stderr.startswith("gostop: error: ") and "field bombs" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_schema_check_and_write(tmp_path: Path) -> None:
    code, out, _ = run("schema", "--check", "--out", str(ROOT / "schemas"))
    assert code == 0 and "up to date" in out
    out_dir = tmp_path / "s"
    code, _, err = run("schema", "--out", str(out_dir))
    assert code == 0 and f"wrote {len(EVENT_TYPES) + 1} schema files" in err
    assert (out_dir / "envelope.schema.json").is_file()
    (out_dir / "events" / "shaken.schema.json").write_text("{}\n")
    code, _, err = run("schema", "--check", "--out", str(out_dir))
    assert code == 1
    assert "events/shaken.schema.json: differs" in err and "gostop schema" in err


def test_colour_only_on_a_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    class Tty:
        def isatty(self) -> bool:
            return True

    monkeypatch.delenv("NO_COLOR", raising=False)
    assert common.color_enabled(Tty())
    assert common.style("x", bold=True, stream=Tty()) != "x"
    monkeypatch.setenv("NO_COLOR", "1")
    assert not common.color_enabled(Tty())
    assert common.style("x", bold=True, stream=Tty()) == "x"
    assert not common.color_enabled(object())
