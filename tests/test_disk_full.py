"""A full disk is "no space left on FILE", nothing more is appended, what is durable stays,
and the work continues once there is space (on a small tmpfs; skipped where none mounts)."""

from __future__ import annotations

from pathlib import Path

import pytest
from gostop_cli.app import app
from record_helpers import script_for, sim_payloads
from typer.testing import CliRunner

from gostop_records import log
from gostop_records.store import Store
from stress.damage import write_corpus
from stress.faults import _fill, disk_full_import, disk_full_recording, small_disk
from stress.figures import Figures
from stress.fuzz import base_games


def _check(fig: Figures) -> None:
    if fig.skipped:
        pytest.skip(fig.skipped)
    assert fig.ok and fig.trials, fig.failures


def test_a_jsonl_recording_stops_keeps_and_resumes(tmp_path: Path) -> None:
    _check(disk_full_recording(tmp_path, kind="jsonl", leaves=[700, 9000, 30000]))


def test_a_store_recording_stops_keeps_and_resumes(tmp_path: Path) -> None:
    _check(disk_full_recording(tmp_path, kind="duckdb", leaves=[30000], hands=1))


def test_an_import_stops_and_completes_when_run_again(tmp_path: Path) -> None:
    clean, _ = write_corpus(tmp_path / "logs", base_games(), 0, 30, 5)
    _check(disk_full_import(tmp_path, clean, leaves=[200000]))


@pytest.mark.parametrize("suffix", [".jsonl", ".duckdb"])
def test_the_command_line_says_no_space_and_refuses_nothing(tmp_path: Path, suffix: str) -> None:
    script = tmp_path / "game.txt"
    script.write_text("\n".join(script_for(sim_payloads("matgo", 2, 5, hands=3))) + "\n")
    with small_disk(tmp_path / "disk") as disk:
        if disk is None:
            pytest.skip("a tmpfs cannot be mounted here (needs root)")
        target = disk / f"rec{suffix}"
        if suffix == ".duckdb":
            Store(target).close()
        filler = _fill(disk, 20000 if suffix == ".jsonl" else 60000)
        where = ["--log" if suffix == ".jsonl" else "--db", str(target)]
        res = CliRunner().invoke(
            app,
            ["record", "--players", "A,B", "--ruleset", "matgo", *where, "--script", str(script)],
        )
        out = res.output
        assert res.exit_code == 1, out
        assert f"no space left on {target}" in out
        assert "another writer" not in out and "[rule:" not in out and "refused" not in out
        assert not isinstance(res.exception, Exception) or isinstance(res.exception, SystemExit)
        if suffix == ".jsonl":
            assert log.verify_file(target).ok  # no half-written record left behind
        filler.unlink()
        with Store(disk / "club.duckdb") as st:
            report = st.import_paths([target] if suffix == ".jsonl" else [], workers=0)
            assert report.ok
