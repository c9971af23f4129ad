"""Any line gives a typed error with its file and line, never a traceback."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from gostop_cli.app import app
from store_support import games
from typer.testing import CliRunner

from gostop_records import log
from gostop_records.errors import LogError

runner = CliRunner()

DEEP = "[" * 1000 + "]" * 1000  # 2 KB that a recursive decoder cannot read


def _deep_logs(tmp_path: Path) -> list[tuple[Path, int, str]]:
    """(log, the line that is too deep, the game id): alone, inside an envelope, after events."""
    game = games(count=1, hands=1, seed=21)[0]
    gid = game[0].game_id
    alone = tmp_path / "alone.jsonl"
    alone.write_text(DEEP + "\n")
    inside = tmp_path / "inside.jsonl"
    log.write_log(inside, game[:3])
    envelope = json.loads(log.encode_json(game[3]))
    envelope["event"]["deep"] = "@"
    with inside.open("a") as f:
        f.write(json.dumps(envelope).replace('"@"', DEEP) + "\n")
    framed = tmp_path / "deep.msgpack"
    log.write_log(framed, game[:2])
    with framed.open("ab") as f:
        body = b"\x91" * 1000 + b"\x90"  # 1,000 nested one-element arrays
        f.write(b"\xce" + len(body).to_bytes(4, "big") + body)
    return [(alone, 1, "x"), (inside, 4, gid), (framed, 3, gid)]


def _names(out: str, path: Path, line: int) -> bool:
    """Whether a message names the file and the line (``FILE, line N`` or ``FILE:N``)."""
    return f"{path}, line {line}" in out or f"{path}:{line}:" in out


@pytest.mark.parametrize("command", ["validate", "replay", "audit", "db import"])
def test_a_line_nested_1000_deep_is_an_error_of_that_line(tmp_path: Path, command: str) -> None:
    for path, line, _ in _deep_logs(tmp_path):
        args = [*command.split(), str(path)]
        if command == "db import":
            args += ["--db", str(tmp_path / "s.duckdb")]
        res = runner.invoke(app, args)
        out = res.output
        assert res.exit_code == 1, (path, out)
        assert not isinstance(res.exception, RecursionError), out
        assert _names(out, path, line), out
        assert "nested too deeply" in out
        assert "Traceback" not in out


def test_reading_a_deep_line_raises_a_log_error(tmp_path: Path) -> None:
    for path, line, _ in _deep_logs(tmp_path):
        with pytest.raises(LogError) as info:
            list(log.read_log(path))
        assert (info.value.file, info.value.line) == (str(path), line)
        assert not log.verify_file(path)


def test_record_resuming_a_log_with_a_deep_line_says_where(tmp_path: Path) -> None:
    for path, line, gid in _deep_logs(tmp_path):
        if path.suffix != ".jsonl":
            continue
        res = runner.invoke(app, ["record", "--resume", gid, "--log", str(path)], input="quit\n")
        assert res.exit_code == 1, res.output
        assert not isinstance(res.exception, RecursionError)
        assert _names(res.output, path, line), res.output


@pytest.mark.parametrize("command", ["audit", "replay"])
def test_a_rejection_after_reading_names_the_file(tmp_path: Path, command: str) -> None:
    game = games(count=1, hands=1, seed=22)[0]
    path = tmp_path / "twice.jsonl"
    lines = [log.encode_json(e).decode() for e in game]
    lines.insert(12, lines[11])  # a repeated line: the rules stop at its seq
    path.write_text("\n".join(lines) + "\n")
    res = runner.invoke(app, [command, str(path)])
    assert res.exit_code == 1 if command == "audit" else res.exit_code in (0, 1)
    messages = [m for m in res.output.splitlines() if m.startswith("gostop:")]
    assert messages, res.output
    assert all(str(path) in m for m in messages), messages


def test_a_refused_script_line_names_the_script(tmp_path: Path) -> None:
    script = tmp_path / "hand.txt"
    script.write_text("play 13X\n")
    log_path = tmp_path / "g.jsonl"
    res = runner.invoke(
        app, ["record", "--players", "A,B", "--log", str(log_path), "--script", str(script)]
    )
    assert res.exit_code == 1
    assert f"{script}, line 1: play 13X: " in res.output


def test_a_line_without_a_field_names_that_field_in_every_reader(tmp_path: Path) -> None:
    """validate, db import and archive build say the same fault the same way."""
    game = games(count=1, hands=1, seed=22)[0]
    path = tmp_path / "cut.jsonl"
    log.write_log(path, game[:3])
    envelope = json.loads(log.encode_json(game[3]))
    del envelope["event"]
    with path.open("a") as f:
        f.write(json.dumps(envelope) + "\n")
    said = "field event: missing or not an object"
    res = runner.invoke(app, ["validate", str(path)])
    assert res.exit_code == 1 and _names(res.output, path, 4) and said in res.output
    res = runner.invoke(app, ["db", "import", str(path), "--db", str(tmp_path / "s.duckdb")])
    assert res.exit_code == 1 and _names(res.output, path, 4) and said in res.output
    res = runner.invoke(app, ["archive", "build", str(path), "--out", str(tmp_path / "arch")])
    assert _names(res.output, path, 4) and said in " ".join(res.output.split())
