"""Bulk import: per-game validation and atomicity, idempotence, prefixes, conflicts, crashes."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from store_support import ROOT, break_a_rule, every_preset, games, gostop, one_game, write_games

from gostop_records import log
from gostop_records.store import Store, bulk


def _counts(st: Store) -> dict[str, int]:
    return dict(st.conn.execute("SELECT game_id, count(*) FROM events GROUP BY game_id").fetchall())


def test_import_folder_of_jsonl_and_msgpack_then_again(tmp_path: Path) -> None:
    logs = every_preset(count=2, hands=2)
    write_games(tmp_path / "logs" / "a", logs[:5], per_file=2)
    write_games(tmp_path / "logs" / "b", logs[5:], per_file=1, suffix=".msgpack")
    (tmp_path / "logs" / "notes.txt").write_text("not a log")
    db = tmp_path / "s.duckdb"
    with Store(db) as st:
        first = st.import_paths([tmp_path / "logs"])
        assert first.ok, first.rejected
        assert (first.imported, first.skipped, first.games) == (len(logs), 0, len(logs))
        assert first.events == sum(len(g) for g in logs)
        assert _counts(st) == {g[0].game_id: len(g) for g in logs}
        again = st.import_paths([tmp_path / "logs"])
        assert (again.imported, again.skipped, again.events) == (0, len(logs), 0)
        assert _counts(st) == {g[0].game_id: len(g) for g in logs}
        assert st.verify().ok
        gid = logs[0][0].game_id
        assert [e.hash for e in st.events(gid)] == [e.hash for e in logs[0]]


def test_a_stored_prefix_is_extended_and_a_delta_file_continues(tmp_path: Path) -> None:
    game = one_game(hands=3)
    gid = game[0].game_id
    third = len(game) // 3
    log.write_jsonl(tmp_path / "start.jsonl", game[:third])
    log.write_jsonl(tmp_path / "more.jsonl", game[: 2 * third])
    log.write_jsonl(tmp_path / "delta.jsonl", game[2 * third :])
    with Store(tmp_path / "s.duckdb") as st:
        assert st.import_paths([tmp_path / "start.jsonl"]).imported == 1
        report = st.import_paths([tmp_path / "more.jsonl"])
        assert (report.extended, report.events) == (1, third)
        report = st.import_paths([tmp_path / "delta.jsonl"])
        assert (report.extended, report.events) == (1, len(game) - 2 * third)
        assert [e.hash for e in st.events(gid)] == [e.hash for e in game]
        assert st.verify().ok
        # a shorter file of a stored game adds nothing
        report = st.import_paths([tmp_path / "start.jsonl"])
        assert (report.skipped, report.events) == (1, 0)


def test_a_delta_with_a_gap_is_rejected(tmp_path: Path) -> None:
    game = one_game()
    log.write_jsonl(tmp_path / "start.jsonl", game[:10])
    log.write_jsonl(tmp_path / "late.jsonl", game[20:])
    with Store(tmp_path / "s.duckdb") as st:
        st.import_paths([tmp_path / "start.jsonl"])
        report = st.import_paths([tmp_path / "late.jsonl"])
        assert [(p.seq, p.rule) for p in report.rejected] == [(21, "seq_dense")]
        assert "11..20 are missing" in report.rejected[0].reason
        assert st.version(game[0].game_id) == 10


def test_a_different_game_under_a_stored_id_is_a_conflict(tmp_path: Path) -> None:
    a = one_game(seed=1, game_id="table-7")
    b = one_game(seed=2, game_id="table-7")
    log.write_jsonl(tmp_path / "a.jsonl", a)
    log.write_jsonl(tmp_path / "b.jsonl", b)
    with Store(tmp_path / "s.duckdb") as st:
        st.import_paths([tmp_path / "a.jsonl"])
        report = st.import_paths([tmp_path / "b.jsonl"])
        assert report.imported == 0 and len(report.conflicts) == 1
        conflict = report.conflicts[0]
        assert (conflict.game_id, conflict.file) == ("table-7", str(tmp_path / "b.jsonl"))
        first_diff = next(x.seq for x, y in zip(a, b, strict=False) if x.hash != y.hash)
        assert conflict.seq == first_diff
        assert [e.hash for e in st.events("table-7")] == [e.hash for e in a]


def test_a_rules_violation_is_rejected_strict_and_kept_lenient(tmp_path: Path) -> None:
    good = games("matgo", 2, count=3, hands=1, seed=40)
    bad, bad_seq = break_a_rule(games("gostop3", 3, count=1, hands=2, seed=41)[0])
    assert log.verify(bad).ok  # only the rules are broken, not the chain
    write_games(tmp_path / "logs", [good[0], bad, *good[1:]], per_file=4)
    with Store(tmp_path / "strict.duckdb") as st:
        report = st.import_paths([tmp_path / "logs"])
        assert report.imported == 3
        [problem] = report.rejected
        assert (problem.game_id, problem.seq, problem.rule) == (
            bad[0].game_id,
            bad_seq,
            "card_in_hand",
        )
        assert problem.file == str(tmp_path / "logs" / "games-00000.jsonl")
        assert "does not hold" in problem.reason
        assert st.version(bad[0].game_id) == 0
        for table in ("games", "hands", "turns", "positions"):
            assert st.conn.execute(
                f"SELECT count(*) FROM {table} WHERE game_id = ?", [bad[0].game_id]
            ).fetchall() == [(0,)]
    with Store(tmp_path / "lenient.duckdb") as st:
        report = st.import_paths([tmp_path / "logs"], strict=False)
        assert report.ok and report.imported == 4 and report.violations >= 1
        issues = st.conn.execute(
            "SELECT seq, rule FROM issues WHERE game_id = ? AND severity = 'violation' "
            "ORDER BY seq",
            [bad[0].game_id],
        ).fetchall()
        assert issues[0] == (bad_seq, "card_in_hand")
        assert st.verify().ok


def test_broken_chain_and_bad_line_are_reported_with_file_and_place(tmp_path: Path) -> None:
    a, b, c = games("matgo", 2, count=3, hands=1, seed=50)
    lines = [json.loads(log.encode_json(e)) for e in b]
    lines[6]["event"]["seat"] = 1 - lines[6]["event"]["seat"]  # edited after sealing
    (tmp_path / "b.jsonl").write_text("".join(json.dumps(d) + "\n" for d in lines))
    log.write_jsonl(tmp_path / "a.jsonl", a)
    text = b"".join(log.encode_json(e) + b"\n" for e in c)
    (tmp_path / "c.jsonl").write_bytes(text + b'{"game_id": "x", "seq": \n')
    with Store(tmp_path / "s.duckdb") as st:
        report = st.import_paths([tmp_path])
        assert report.imported == 1
        by_file = {Path(p.file or "").name: p for p in report.rejected}
        assert by_file["b.jsonl"].seq == 7 and "hash does not match" in by_file["b.jsonl"].reason
        assert by_file["c.jsonl"].line == len(c) + 1
        assert st.game_ids() == [a[0].game_id]


def test_cli_import_reports_and_exits_1_on_rejections(tmp_path: Path) -> None:
    good = games("matgo", 2, count=2, hands=1, seed=62)
    bad, bad_seq = break_a_rule(games("matgo", 2, count=1, hands=1, seed=60)[0])
    write_games(tmp_path / "logs", [*good, bad])
    db = tmp_path / "s.duckdb"
    done = gostop("db", "import", str(tmp_path / "logs"), "--db", str(db), "--json")
    assert done.returncode == 1
    report = json.loads(done.stdout)
    assert (report["imported"], len(report["rejected"])) == (2, 1)
    assert f"seq {bad_seq}" in done.stderr and "card_in_hand" in done.stderr
    assert "Traceback" not in done.stderr
    done = gostop("db", "import", str(tmp_path / "logs"), "--lenient", env={"GOSTOP_DB": str(db)})
    assert done.returncode == 0, done.stderr
    assert "1 imported" in done.stdout and "2 already stored" in done.stdout


def test_json_lines_path_without_pyarrow_gives_the_same_tables(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    logs = every_preset(count=1, hands=2, seed=70)
    write_games(tmp_path / "logs", logs, per_file=3)
    with Store(tmp_path / "arrow.duckdb") as st:
        st.import_paths([tmp_path / "logs"], batch_events=400)
        expected = {
            t: sorted(st.conn.execute(f"SELECT * FROM {t}").fetchall(), key=repr)
            for t in ("events", "hands", "turns", "payouts", "games")
        }
    monkeypatch.setattr(bulk, "_FORCE_JSON", True)
    with Store(tmp_path / "json.duckdb") as st:
        report = st.import_paths([tmp_path / "logs"], batch_events=400)
        assert report.ok
        for table, want in expected.items():
            got = sorted(st.conn.execute(f"SELECT * FROM {table}").fetchall(), key=repr)
            assert got == want, table
        assert st.verify().ok


def test_killed_import_leaves_whole_games_and_a_second_run_completes(tmp_path: Path) -> None:
    logs = games("gamerules", 2, count=300, hands=1, seed=100)
    write_games(tmp_path / "logs", logs, per_file=10)
    want = {g[0].game_id: len(g) for g in logs}
    db = tmp_path / "s.duckdb"
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "gostop_cli.app",
            "db",
            "import",
            str(tmp_path / "logs"),
            "--db",
            str(db),
            "--batch-events",
            "1500",
        ],
        cwd=ROOT,
        stderr=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        text=True,
        env={**os.environ, "NO_COLOR": "1"},
    )
    try:
        assert proc.stderr is not None
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            line = proc.stderr.readline()
            if not line or line.startswith("gostop: import: committed"):
                break
        time.sleep(0.2)  # land somewhere in a later batch: reading, validating or writing
        proc.send_signal(signal.SIGKILL)
    finally:
        proc.wait(timeout=30)
        if proc.stderr is not None:
            proc.stderr.close()
    assert proc.returncode == -signal.SIGKILL
    with Store(db) as st:
        stored = _counts(st)
        assert 0 < len(stored) < len(want), "the import was not killed in the middle"
        assert all(want[g] == n for g, n in stored.items()), "a partial game was stored"
        assert st.verify().ok
    done = gostop("db", "import", str(tmp_path / "logs"), "--db", str(db), "--json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["skipped"] == len(stored)
    assert report["imported"] == len(want) - len(stored)
    with Store(db) as st:
        assert _counts(st) == want
        assert st.conn.execute(
            "SELECT count(*), count(DISTINCT (game_id, seq)) FROM events"
        ).fetchall() == [(sum(want.values()), sum(want.values()))]
        assert st.verify().ok
