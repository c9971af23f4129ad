"""Long commands at a terminal show one progress bar on stderr (count, rate, time left);
in a pipe they write plain lines; tables for people are drawn by one renderer."""

from __future__ import annotations

import subprocess
from pathlib import Path

from pty_support import GOSTOP, Terminal

SAMPLES = Path(__file__).resolve().parent.parent / "samples"


def test_validate_a_folder_shows_a_bar_on_a_terminal_and_lines_in_a_pipe() -> None:
    files = len(list(SAMPLES.rglob("*.jsonl")))
    term = Terminal("validate", str(SAMPLES), cols=120)
    term.expect(rf"validate ━+ {files}/{files} files 100%")
    term.wait()
    assert "validate: " not in term.shown  # no plain lines on a terminal
    res = subprocess.run(
        [str(GOSTOP), "validate", str(SAMPLES)], capture_output=True, text=True, check=False
    )
    lines = [ln for ln in res.stderr.splitlines() if ln.startswith("validate: ")]
    assert lines[-1] == f"validate: {files}/{files} files (100%)" and len(lines) == 10
    assert "━" not in res.stderr and "validate: " not in res.stdout


def test_simulate_and_import_show_bars(tmp_path: Path) -> None:
    term = Terminal("simulate", "-r", "matgo", "--hands", "20", "-o", str(tmp_path / "s"))
    term.expect(r"simulate ━+ 20/20 hands 100%")
    term.expect(r"simulated 1 game\(s\), 20 hand\(s\)")
    assert term.wait() == 0
    term = Terminal("db", "import", str(tmp_path / "s"), "--db", str(tmp_path / "g.duckdb"))
    term.expect(r"import ━+ 1/1 files 100% .*1 game\(s\) and \d+ event\(s\) committed")
    assert term.wait() == 0
    assert "import: committed" not in term.shown


def test_query_results_are_a_table_on_a_terminal(tmp_path: Path) -> None:
    db = tmp_path / "g.duckdb"
    subprocess.run(
        [str(GOSTOP), "db", "import", str(SAMPLES / "go-1.jsonl"), "--db", str(db)],
        capture_output=True,
        check=True,
    )
    sql = "SELECT game_id, hands FROM games"
    term = Terminal("db", "query", "--db", str(db), sql, cols=100)
    term.expect(r"game_id\s+hands\s*\n\s*─+")
    term.expect(r"\(1 row\)")
    assert term.wait() == 0
    term = Terminal("db", "stats", "--db", str(db), cols=100)
    term.expect(r"special\s+count\s+per 100 hands\s*\n\s*─+")
    term.expect(r"\(\d+ specials\)")
    assert term.wait() == 0
    piped = subprocess.run(
        [str(GOSTOP), "db", "query", "--db", str(db), sql],
        capture_output=True,
        text=True,
        check=True,
    )
    assert piped.stdout.splitlines()[1].startswith("-------")  # plain text in a pipe
