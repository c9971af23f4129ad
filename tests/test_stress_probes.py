"""The fast parts of ``make stress``: each probe on a few trials must find nothing."""

from __future__ import annotations

from pathlib import Path

import pytest

from stress import concurrency, crash, fuzz, tamper
from stress.damage import write_corpus
from stress.figures import Figures, render


def _ok(fig: Figures) -> None:
    assert fig.ok and fig.trials, fig.failures


def test_mutated_logs_through_the_readers_name_their_file(tmp_path: Path) -> None:
    _ok(fuzz.reader_fuzz(tmp_path, trials=10))


def test_tampered_logs_are_flagged_and_never_stored(tmp_path: Path) -> None:
    _ok(tamper.tampering(tmp_path, fuzz.base_games(), rounds=1))


def test_a_killed_recording_loses_nothing_and_resumes_exactly(tmp_path: Path) -> None:
    _ok(crash.crash_recording(tmp_path, trials=2))


def test_a_killed_import_leaves_whole_games_and_completes(tmp_path: Path) -> None:
    logs, _ = write_corpus(tmp_path / "logs", fuzz.base_games(4, 2), 0, 40, 3)
    _ok(crash.crash_import(tmp_path, logs, trials=1))


def test_racing_writers_keep_every_append_once(tmp_path: Path) -> None:
    _ok(concurrency.racing_appends(tmp_path, threads=3, appends=6))


def test_second_writers_are_refused_with_a_sentence(tmp_path: Path) -> None:
    _ok(concurrency.second_writers(tmp_path))


@pytest.mark.parametrize("failed", [False, True])
def test_the_figures_add_up(failed: bool) -> None:
    a = Figures("a", trials=3, survived=3 - failed, lost=int(failed))
    b = Figures("b", skipped="no tmpfs")
    table = render([a, b])
    assert "| **all** | 3 |" in table and "skipped: no tmpfs" in table
    assert a.ok is not failed and b.ok


def test_tampering_probes_plug_in(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tamper, "PROBES", [])
    tamper.load_plugins()  # the modules stress/tamper_*.py, if any

    @tamper.register
    def extra(work: Path) -> Figures:
        return Figures("extra", trials=1, survived=1)

    assert tamper.PROBES[-1] is extra and extra(tmp_path).ok
