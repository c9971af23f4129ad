"""Without the archive extra, ``gostop archive build`` says what to install, not a traceback."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from gostop_records.archive import ArchiveError, require_dask

_WITHOUT_DASK = """
import sys
sys.modules["distributed"] = None  # as if the extra were not installed
from gostop_cli.app import main
sys.argv = ["gostop", *sys.argv[1:]]
main()
"""


def test_require_dask_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "dask.bag", None)
    with pytest.raises(ArchiveError, match=r"pip install 'gostop-records\[archive\]'"):
        require_dask()


def test_the_command_names_the_extra(tmp_path: Path) -> None:
    log = tmp_path / "g.jsonl"
    log.write_text("")
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            _WITHOUT_DASK,
            "archive",
            "build",
            str(log),
            "--out",
            str(tmp_path / "a"),
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 1
    assert "gostop-records[archive]" in done.stderr and "distributed" in done.stderr
    assert "Traceback" not in done.stderr
    assert not (tmp_path / "a").exists()
