"""An import is whole per game, whatever the damage: a game whose lines are not one clean
run is rejected whole, by file, line and seq, and nothing of it is stored."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from gostop_cli.app import app
from store_support import games
from typer.testing import CliRunner

from gostop_records import log
from gostop_records.store import Store
from stress.fuzz import base_games, import_fuzz, small_pieces, tables

runner = CliRunner()


def _import(files: list[Path], db: Path, workers: int) -> dict[str, Any]:
    with small_pieces(workers > 0):
        res = runner.invoke(
            app,
            [
                "db",
                "import",
                *map(str, files),
                "--db",
                str(db),
                "--json",
                "--workers",
                str(workers),
            ],
        )
    assert res.exception is None or isinstance(res.exception, SystemExit), res.output
    return json.loads(res.stdout)  # type: ignore[no-any-return]


def _lines(game: list[Any]) -> list[bytes]:
    return [log.encode_json(e) for e in game]


@pytest.mark.parametrize("workers", [0, 2])
def test_line_11_of_another_game_rejects_the_whole_game(tmp_path: Path, workers: int) -> None:
    game, other = games(count=2, hands=1, seed=31)
    lines = _lines(game)
    d = json.loads(lines[10])
    d["game_id"] = other[0].game_id  # line 11 carries another game's id
    lines[10] = json.dumps(d, separators=(",", ":")).encode()
    path = tmp_path / "game.jsonl"
    path.write_bytes(b"\n".join(lines) + b"\n")
    db = tmp_path / f"s{workers}.duckdb"
    report = _import([path], db, workers)
    [problem] = [p for p in report["rejected"] if p["game_id"] == game[0].game_id]
    assert (problem["file"], problem["line"], problem["seq"]) == (str(path), 11, 11)
    assert problem["rule"] == "one_run"
    with Store(db, read_only=True) as st:
        assert st.events(game[0].game_id) == []
        assert st.verify().ok  # clean: nothing of the broken game is there


@pytest.mark.parametrize("workers", [0, 2])
def test_a_last_line_under_another_id_that_continues_the_chain(
    tmp_path: Path, workers: int
) -> None:
    """The changed id is on the last line: the game's other lines are one run, but that
    line's prev is the hash of the game's line before it."""
    (game,) = games(count=1, hands=1, seed=32)
    lines = _lines(game)
    lines[-1] = lines[-1].replace(game[0].game_id.encode(), b"a-typo", 1)
    path = tmp_path / "tail.jsonl"
    path.write_bytes(b"\n".join(lines) + b"\n")
    db = tmp_path / f"t{workers}.duckdb"
    report = _import([path], db, workers)
    problems = {p["game_id"]: p for p in report["rejected"]}
    assert problems[game[0].game_id]["line"] == len(lines)
    assert "prev is the hash" in problems[game[0].game_id]["reason"]
    with Store(db, read_only=True) as st:
        assert st.events(game[0].game_id) == []


def test_both_paths_store_the_same_and_report_the_same(tmp_path: Path) -> None:
    a, b = games(count=2, hands=1, seed=33)
    la, lb = _lines(a), _lines(b)
    files = []
    for name, body in {
        "interleaved.jsonl": [x for pair in zip(la, lb, strict=False) for x in pair],
        "again.jsonl": [*_lines(games(count=1, hands=1, seed=34)[0])] * 2,
        "fine.jsonl": _lines(games(count=1, hands=1, seed=35)[0]),
    }.items():
        (tmp_path / name).write_bytes(b"\n".join(body) + b"\n")
        files.append(tmp_path / name)
    reports, stores = [], []
    for workers in (0, 2):
        db = tmp_path / f"w{workers}.duckdb"
        r = _import(files, db, workers)
        where = [(p["file"], p["game_id"], p["line"], p["seq"]) for p in r["rejected"]]
        reports.append(sorted(where))
        with Store(db, read_only=True) as st:
            stores.append(tables(st))
    assert reports[0] == reports[1] and len(reports[0]) == 3
    assert stores[0] == stores[1]
    assert {row[0] for row in stores[0]["games"]} == {
        games(count=1, hands=1, seed=35)[0][0].game_id
    }


@pytest.mark.parametrize(("workers", "trials"), [(0, 200), (2, 40)])
def test_fuzzed_damage_leaves_the_store_of_the_clean_logs(
    tmp_path: Path, workers: int, trials: int
) -> None:
    fig = import_fuzz(
        tmp_path, trials=trials, clean=15, seed=40 + workers, workers=workers, base=base_games()
    )
    assert fig.ok, fig.failures
    assert fig.trials == trials


def test_envelopes_in_memory_follow_the_whole_run_rules_of_a_file(tmp_path: Path) -> None:
    """``Store.import_envelopes`` (a program's import) rejects what a file import rejects:
    an interleaved game, a game that comes back, a line under another id; each at the
    position in the sequence where it breaks."""
    a, b = games(count=2, hands=1, seed=33)
    again = games(count=1, hands=1, seed=34)[0]
    fine = games(count=1, hands=1, seed=35)[0]
    typo = [*fine[:-1], fine[-1].__class__(**{**_fields(fine[-1]), "game_id": "a-typo"})]
    cases = {
        "interleaved": [x for pair in zip(a, b, strict=False) for x in pair],
        "again": [*again, *again],
        "typo": typo,
    }
    for name, envs in cases.items():
        file_db, mem_db = tmp_path / f"{name}-f.duckdb", tmp_path / f"{name}-m.duckdb"
        path = tmp_path / f"{name}.jsonl"
        path.write_bytes(b"\n".join(_lines(envs)) + b"\n")
        from_file = _import([path], file_db, 0)
        with Store(mem_db) as st:
            report = st.import_envelopes(envs, source=name).to_dict()
            assert st.game_ids() == [], (name, st.game_ids())
        assert report["imported"] == from_file["imported"] == 0
        where = sorted((p["game_id"], p["line"], p["seq"], p["rule"]) for p in report["rejected"])
        expected = sorted(
            (p["game_id"], p["line"], p["seq"], p["rule"]) for p in from_file["rejected"]
        )
        assert where == expected and where, name


def _fields(env: Any) -> dict[str, Any]:
    return {f: getattr(env, f) for f in env.__struct_fields__}
