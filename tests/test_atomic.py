"""Files written whole or not at all: logs, pages and exports."""

from __future__ import annotations

import errno
from pathlib import Path

import pytest

from gostop_records.atomic import written_whole
from gostop_records.web.pages import write_page


def test_a_file_appears_only_once_written_whole(tmp_path: Path) -> None:
    out = tmp_path / "page.html"
    with written_whole(out) as tmp:
        tmp.write_text("half")
        assert not out.exists()
        with open(tmp, "a") as f:
            f.write(" and the rest")
    assert out.read_text() == "half and the rest"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["page.html"]


def test_an_interrupted_write_leaves_the_old_file_and_nothing_else(tmp_path: Path) -> None:
    out = tmp_path / "log.jsonl"
    out.write_text("before\n")
    with pytest.raises(RuntimeError), written_whole(out) as tmp:
        tmp.write_text("new, cut short")
        raise RuntimeError("the producer failed")
    assert out.read_text() == "before\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["log.jsonl"]


def test_a_missing_folder_names_the_file_asked_for(tmp_path: Path) -> None:
    out = tmp_path / "no" / "such" / "report.html"
    with pytest.raises(OSError) as caught:
        write_page(out, "<p>hi</p>")
    assert caught.value.errno == errno.ENOENT
    assert caught.value.filename == str(out)
    assert f"no folder {out.parent}" in caught.value.strerror
    assert not (tmp_path / "no").exists()


def test_an_os_error_about_the_temporary_file_names_the_file_asked_for(tmp_path: Path) -> None:
    out = tmp_path / "export.parquet"
    with pytest.raises(OSError) as caught, written_whole(out) as tmp:
        raise OSError(errno.ENOSPC, "No space left on device", str(tmp))
    assert caught.value.filename == str(out) and caught.value.errno == errno.ENOSPC
    assert list(tmp_path.iterdir()) == []
