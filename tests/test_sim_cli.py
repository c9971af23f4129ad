"""``gostop simulate``: files that validate, the summary, progress, and usage errors."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

import pytest
from gostop_cli.app import app
from gostop_cli.progress import Progress
from typer.testing import CliRunner

from gostop_records import events as E
from gostop_records import log as L
from gostop_records.projector import project

runner = CliRunner()
ANSI = re.compile(r"\x1b\[")


def _flat(text: str) -> str:
    """Error text without the box a terminal renderer may draw round it."""
    return " ".join(text.replace("\u2502", " ").split())


def run(*args: str) -> tuple[int, str, str]:
    result = runner.invoke(app, ["simulate", *args])
    return result.exit_code, result.stdout, result.stderr


def test_out_writes_one_log_per_game_that_validates(tmp_path: Path) -> None:
    out = tmp_path / "sims"
    code, stdout, _ = run(
        "--ruleset",
        "gamerules",
        "--players",
        "3",
        "--games",
        "3",
        "--hands",
        "2",
        "--seed",
        "4",
        "--bot",
        "greedy",
        "--bot",
        "random",
        "--out",
        str(out),
        "--no-progress",
    )
    assert code == 0
    files = sorted(out.iterdir())
    assert [f.name for f in files] == [
        f"sim-gamerules-3p-greedy-random-greedy-{k}.jsonl" for k in (4, 5, 6)
    ]
    hands = 0
    for f in files:
        assert L.verify_file(f).ok
        envs = list(L.read_log(f))
        p = project(envs)
        assert p.ok and p.game is not None
        hands += len(p.game.results)
    assert hands == 6
    assert "simulated 3 game(s), 6 hand(s)" in stdout
    assert f"wrote 3 log(s) to {out}" in stdout


@pytest.mark.parametrize("name", ["sims.jsonl", "sims.msgpack"])
def test_out_naming_a_log_writes_every_game_into_it(tmp_path: Path, name: str) -> None:
    out = tmp_path / name
    code, stdout, _ = run("--games", "3", "--hands", "2", "--out", str(out), "--no-progress")
    assert code == 0
    assert list(tmp_path.iterdir()) == [out] and out.is_file()
    assert L.verify_file(out).ok
    games = [g for _, g in L.iter_games(L.read_log(out))]
    assert [g[0].game_id for g in games] == [f"sim-matgo-2p-{k}" for k in (0, 1, 2)]
    assert all(project(g).ok for g in games)
    assert f"wrote 3 game(s) into one log, {out}" in stdout
    # an existing log is never written over: a simulation writes a new one
    before = out.read_bytes()
    code, _, stderr = run("--games", "1", "--out", str(out), "--no-progress")
    assert code == 2 and "exists: a simulation writes a new log" in _flat(stderr)
    assert out.read_bytes() == before


def test_json_summary_agrees_with_the_logs(tmp_path: Path) -> None:
    code, stdout, stderr = run(
        "-r",
        "matgo",
        "-g",
        "4",
        "--hands",
        "3",
        "-s",
        "1",
        "-b",
        "greedy",
        "-b",
        "random",
        "--stake",
        "10",
        "-o",
        str(tmp_path),
        "--json",
        "--no-progress",
    )
    assert code == 0 and stderr == ""
    s = json.loads(stdout)
    envs = [e for f in sorted(tmp_path.iterdir()) for e in L.read_log(f)]
    ended = [e.event for e in envs if type(e.event) is E.HandEnded]
    due = sum(e.event.chips for e in envs if type(e.event) is E.PaymentDue)
    assert (s["games"], s["hands"], s["events"]) == (4, len(ended), len(envs))
    assert s["outcomes"] == {
        k: sum(h.outcome == k for h in ended) for k in ("stop", "instant", "nagari", "void")
    }
    assert s["nagari_rate"] == round(s["outcomes"]["nagari"] / len(ended), 4)
    assert s["chips_due"] == due and s["avg_chips_per_hand"] == round(due / len(ended), 3)
    assert (s["ruleset"], s["players"], s["seed"], s["stake"]) == ("matgo", 2, 1, 10)
    assert s["seat_bots"] == ["greedy", "random"]
    assert sum(b["net_chips"] for b in s["bots"]) == 0
    assert sum(b["wins"] for b in s["bots"]) == sum(h.winner is not None for h in ended)
    assert len(s["files"]) == 4 and s["out"] == str(tmp_path)


def test_the_same_command_writes_the_same_bytes(tmp_path: Path) -> None:
    args = ("-r", "gostop3", "-g", "2", "--hands", "2", "-s", "9", "--no-progress")
    assert run(*args, "-o", str(tmp_path / "a"))[0] == 0
    assert run(*args, "-o", str(tmp_path / "b"))[0] == 0
    a = {f.name: f.read_bytes() for f in (tmp_path / "a").iterdir()}
    b = {f.name: f.read_bytes() for f in (tmp_path / "b").iterdir()}
    assert a == b and len(a) == 2
    assert (
        run(
            "-r",
            "gostop3",
            "-g",
            "2",
            "--hands",
            "2",
            "-s",
            "10",
            "--no-progress",
            "-o",
            str(tmp_path / "c"),
        )[0]
        == 0
    )
    c = {f.name: f.read_bytes() for f in (tmp_path / "c").iterdir()}
    assert set(c) != set(a)  # game ids carry the seed
    assert c["sim-gostop3-3p-10.jsonl"] == a["sim-gostop3-3p-10.jsonl"]  # seed 9 + 1


def test_progress_goes_to_stderr_without_colour_codes(tmp_path: Path) -> None:
    code, stdout, stderr = run("-r", "cardavia", "-g", "10", "-o", str(tmp_path))
    assert code == 0
    lines = stderr.splitlines()
    assert lines[-1] == "simulate: 10/10 hands (100%)"
    assert len(lines) == 10 and not ANSI.search(stderr)
    assert "simulate:" not in stdout
    code, _, stderr = run("-r", "cardavia", "-g", "2", "-o", str(tmp_path), "--no-progress")
    assert code == 0 and stderr == ""


def test_db_imports_the_games_once(tmp_path: Path) -> None:
    db = tmp_path / "sim.duckdb"
    args = ("-r", "matgo", "-g", "2", "--hands", "2", "--db", str(db), "--json", "--no-progress")
    code, stdout, _ = run(*args)
    assert code == 0
    s = json.loads(stdout)
    assert s["import"]["imported"] == 2 and s["import"]["events"] == s["events"]
    code, stdout, _ = run(*args)
    assert code == 0 and json.loads(stdout)["import"]["skipped"] == 2


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["-r", "matgo", "-p", "3"], "ruleset 'matgo' is played by 2 players, not 3"),
        (["-r", "gostop3", "-p", "2"], "ruleset 'gostop3' is played by 3 players, not 2"),
        (["-p", "4"], "Invalid value for '--players'"),
        (["-g", "0"], "Invalid value for '--games'"),
        (["--hands", "0"], "Invalid value for '--hands'"),
        (["--stake", "0"], "Invalid value for '--stake'"),
        (["-s", "-1"], "Invalid value for '--seed'"),
        (["-b", "smart"], "unknown bot 'smart': bots are random, greedy"),
        (["-b", "greedy", "-b", "random", "-b", "greedy"], "3 bots for 2 players"),
        (["-r", "hwatu"], "unknown ruleset 'hwatu'"),
        (["-r", "missing.toml"], "no ruleset file missing.toml"),
    ],
)
def test_bad_arguments_exit_2_with_a_message(tmp_path: Path, args: list[str], message: str) -> None:
    code, stdout, stderr = run(*args, "--out", str(tmp_path / "x"))
    assert code == 2
    assert message in _flat(stderr) and stdout == ""
    assert not (tmp_path / "x").exists()


def test_out_and_db_are_one_or_the_other(tmp_path: Path) -> None:
    code, _, stderr = run("-g", "1")
    assert code == 2 and "give exactly one of --out DIR or --db FILE" in _flat(stderr)
    code, _, stderr = run("-o", str(tmp_path), "--db", str(tmp_path / "x.duckdb"))
    assert code == 2 and "give exactly one" in _flat(stderr)
    f = tmp_path / "file"
    f.write_text("x")
    code, _, stderr = run("-o", str(f))
    assert code == 2 and "is not a folder" in _flat(stderr)


def test_a_bad_ruleset_file_is_rejected_input(tmp_path: Path) -> None:
    bad = tmp_path / "house.toml"
    bad.write_text('base = "matgo"\nbombs = "often"\n', encoding="utf-8")
    code, _, stderr = run("-r", str(bad), "-o", str(tmp_path / "out"))
    assert code == 1
    assert stderr.startswith("gostop: error: ") and "field bombs" in stderr
    good = tmp_path / "quick.toml"
    good.write_text('base = "matgo"\ntarget_2p = 3\n', encoding="utf-8")
    code, stdout, _ = run("-r", str(good), "-o", str(tmp_path / "out"), "--json", "--no-progress")
    assert code == 0 and json.loads(stdout)["ruleset"] == "quick"


def test_help_has_an_example() -> None:
    result = runner.invoke(app, ["simulate", "--help"])
    assert result.exit_code == 0
    assert "Example: gostop simulate" in result.stdout


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_on_a_terminal_the_bar_is_redrawn_in_place(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("NO_COLOR", raising=False)
    tty = _Terminal()
    with Progress("simulate", 4, "hand", stream=tty) as bar:
        for done in range(1, 5):
            bar.update(done)
    out = tty.getvalue()
    seen = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", out)
    assert "simulate" in seen and "4/4 hands" in seen and "100%" in seen and "left" in seen
    assert "\r" in out or "\x1b[" in out  # redrawn in place, not a line per update
    assert "simulate: 1/4" not in seen  # no plain lines on a terminal
    monkeypatch.setenv("NO_COLOR", "1")
    plain = _Terminal()
    with Progress("simulate", 2, "hand", stream=plain) as bar:
        bar.update(2)
    assert "2/2 hands" in plain.getvalue() and not re.search(r"\x1b\[[0-9;]*m", plain.getvalue())


def test_in_a_pipe_progress_is_a_line_per_tenth() -> None:
    pipe = io.StringIO()
    with Progress("validate", 20, "file", stream=pipe) as bar:
        for done in range(1, 21):
            bar.update(done)
        bar.note("a line of its own")
    lines = pipe.getvalue().splitlines()
    assert lines[0] == "validate: 2/20 files (10%)" and lines[9] == "validate: 20/20 files (100%)"
    assert lines[10:] == ["a line of its own"] and len(lines) == 11
