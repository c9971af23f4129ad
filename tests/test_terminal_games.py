"""``gostop games`` and a bare ``record --resume``: finding the game to continue without
knowing its id, at a terminal as a person does."""

from __future__ import annotations

import json
from pathlib import Path

from gostop_cli.app import app
from pty_support import Terminal
from record_helpers import script_for, sim_payloads
from typer.testing import CliRunner

from gostop_records import games as G
from gostop_records import log as L
from gostop_records.validate import validate_files

runner = CliRunner()


def _script(tmp_path: Path, lines: list[str]) -> Path:
    path = tmp_path / "s.txt"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _record(log: Path, gid: str, lines: list[str], *extra: str) -> None:
    script = _script(log.parent, lines)
    args = ["record", "--players", "Ann,Ben", "--ruleset", "matgo", "--game-id", gid]
    res = runner.invoke(
        app, [*args, *extra, "--log", str(log), "--script", str(script), "--no-sign"]
    )
    assert res.exit_code == 0, res.stderr


def _cut(lines: list[str]) -> int:
    """A place in the middle of the first hand: after a play, before its flip."""
    return next(i for i, t in enumerate(lines) if t.startswith("play ")) + 3


def test_games_lists_players_hands_and_state(tmp_path: Path) -> None:
    lines = script_for(sim_payloads("matgo", 2, 3))
    log = tmp_path / "g.jsonl"
    _record(log, "done", lines)
    _record(log, "cut", lines[: _cut(lines)])
    term = Terminal("games", str(log), cols=120)
    term.expect(r"game\s+players\s+ruleset\s+hands\s+events\s+state")
    term.expect(r"done\s+Ann, Ben\s+matgo\s+\d+\s+\d+\s+between hands: hand \d+ to deal")
    term.expect(r"cut\s+Ann, Ben\s+matgo\s+1\s+\d+\s+hand 1: (Ann|Ben) to (play|flip)")
    term.expect(r"2 games")
    assert term.wait() == 0
    res = runner.invoke(app, ["games", str(tmp_path), "--unfinished", "--json"])
    assert res.exit_code == 0, res.stderr
    listed = {g["game_id"]: g for g in json.loads(res.stdout)}
    assert set(listed) == {"done", "cut"}  # a matgo game can always have another hand
    assert listed["cut"]["waiting"] in ("play", "flip") and listed["cut"]["hands"] == 1
    assert listed["done"]["waiting"] == "deal" and listed["cut"]["players"] == ["Ann", "Ben"]


def test_a_bare_resume_continues_the_game_cut_off_mid_hand(tmp_path: Path) -> None:
    lines = script_for(sim_payloads("matgo", 2, 3))
    n = _cut(lines)
    log = tmp_path / "g.jsonl"
    _record(log, "done", lines)
    _record(log, "cut", lines[:n])
    ref = tmp_path / "ref.jsonl"
    _record(ref, "cut", lines)
    term = Terminal("record", "--log", str(log), "--resume", "--no-sign")
    term.expect(r"resuming the unfinished game cut \(hand 1: \w+ to \w+\)")
    term.expect(r"resumed game cut")
    for line in lines[n:]:
        term.expect(r"> $")
        term.send(line + "\r")
    term.expect(r"> $")
    term.send("quit\r")
    assert term.wait() == 0
    recorded = [e for e in L.read_log(log) if e.game_id == "cut"]
    assert [type(e.event) for e in recorded] == [type(e.event) for e in L.read_log(ref)]
    assert validate_files([log]).valid


def test_a_bare_resume_lists_the_games_when_several_are_cut_off(tmp_path: Path) -> None:
    lines = script_for(sim_payloads("matgo", 2, 3))
    log = tmp_path / "g.jsonl"
    _record(log, "a", lines[: _cut(lines)])
    _record(log, "b", lines[: _cut(lines) + 1])
    res = runner.invoke(app, ["record", "--log", str(log), "--resume", "--no-sign"])
    assert res.exit_code == 2
    assert "2 games could be resumed: a (hand 1:" in res.stderr
    assert f"name one: gostop record --resume GAME_ID --log {log}" in res.stderr
    before = log.read_bytes()
    assert runner.invoke(app, ["record", "--log", str(log), "--resume"]).exit_code == 2
    assert log.read_bytes() == before


def test_a_bare_resume_from_the_store(tmp_path: Path) -> None:
    lines = script_for(sim_payloads("matgo", 2, 3))
    db = tmp_path / "g.duckdb"
    script = _script(tmp_path, lines[: _cut(lines)])
    args = ["record", "--players", "Ann,Ben", "--game-id", "s1", "--db", str(db), "--no-sign"]
    assert runner.invoke(app, [*args, "--script", str(script)]).exit_code == 0
    res = runner.invoke(app, ["games", "--db", str(db)])
    assert res.exit_code == 0 and "s1" in res.stdout and "hand 1:" in res.stdout
    alone = runner.invoke(app, ["games"], env={"GOSTOP_DB": str(db)})  # the default store
    assert alone.exit_code == 0 and alone.stdout == res.stdout
    assert runner.invoke(app, ["db", "games", "--db", str(db)]).stdout == res.stdout
    missing = runner.invoke(app, ["games"], env={"GOSTOP_DB": str(tmp_path / "none.duckdb")})
    assert missing.exit_code == 1 and "no store here" in missing.stderr
    rest = _script(tmp_path, lines[_cut(lines) :])
    res = runner.invoke(
        app, ["record", "--resume", "--db", str(db), "--no-sign", "--script", str(rest)]
    )
    assert res.exit_code == 0, res.stderr
    assert "resuming the unfinished game s1" in res.stdout


def test_resumable_prefers_the_game_cut_off_mid_hand() -> None:
    def summary(gid: str, waiting: str) -> G.GameSummary:
        return G.GameSummary(gid, "x", "matgo", ("A", "B"), 1, 9, "", waiting, waiting)

    assert G.resumable([summary("a", "deal"), summary("b", "flip")]).game_id == "b"
    assert G.resumable([summary("a", "deal"), summary("b", "over")]).game_id == "a"
    try:
        G.resumable([summary("a", "over")])
    except Exception as exc:
        assert "every game is over" in str(exc)
    else:
        raise AssertionError("an over game was resumed")
