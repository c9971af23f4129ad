"""``gostop db export --decisions``: a row per legal option of every decision, one chosen a
decision, the seat's view as columns, and a stored review's values joined where there is one.
The review is stored at a budget of 3 worlds: only its exact values are checked."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
from gostop_cli.app import app
from typer.testing import CliRunner

from gostop_records import games
from gostop_records.review import find_decisions
from gostop_records.review.export import DECISION_COLUMNS

SAMPLES = Path(__file__).resolve().parent.parent / "samples"
runner = CliRunner()


def test_the_decision_export_has_one_chosen_row_a_decision_and_the_review_joined(
    tmp_path: Path,
) -> None:
    pq = pytest.importorskip("pyarrow.parquet")
    from gostop_records.store import Store

    db = tmp_path / "club.duckdb"
    logs = [SAMPLES / "go-bak.jsonl", SAMPLES / "cup-junk.jsonl"]
    with Store(db) as store:
        assert store.import_paths(logs).ok
    review = ["review", "--db", str(db), "--game", "sample-go-bak", "--budget", "3"]
    res = runner.invoke(app, [*review, "--no-luck", "--store"])
    assert res.exit_code == 0, res.output
    out = tmp_path / "decisions.parquet"
    res = runner.invoke(app, ["db", "export", "--decisions", "--db", str(db), "--out", str(out)])
    assert res.exit_code == 0, res.output
    assert "one per legal option" in res.output and "2 with a stored review" in res.output

    table = pq.read_table(out)
    assert table.column_names == [c for c, _ in DECISION_COLUMNS]
    rows = table.to_pylist()
    # as many decisions as the reviewer finds, each with its options as rows, one chosen
    expected = 0
    for log in logs:
        _, envs = games.load_game(log, None, None, exact=False)
        expected += len(find_decisions(envs))
    key = lambda r: (r["game_id"], r["hand"], r["seq"], r["seat"], r["kind"])  # noqa: E731
    per = Counter(key(r) for r in rows)
    chosen = Counter(key(r) for r in rows if r["chosen"])
    assert len(per) == expected > 2
    assert chosen == Counter(dict.fromkeys(per, 1))
    assert all(per[key(r)] == r["options"] for r in rows)
    for r in rows:
        if r["kind"] == "sell":
            continue
        seat = r["seat"]
        assert r["hand_counts"][seat] == len(r["own_hand"]) + r["own_hand_unknown"]
        assert r["captured"] == [len(p) for p in r["piles"]] and r["own_pile"] == r["piles"][seat]
        assert r["own_score"] == r["scores"][seat] and r["stock"] >= 0

    # the Go of the go-bak hand: a Stop pays 16 chips in every world, so its value is exact
    go = [r for r in rows if r["game_id"] == "sample-go-bak" and r["seq"] == 22]
    by = {r["option"]: r for r in go}
    assert set(by) == {"go", "stop"} and by["go"]["chosen"] and not by["stop"]["chosen"]
    assert by["stop"]["own_score"] == 8 and by["stop"]["kind"] == "go_stop"
    assert by["stop"]["review_chips"] == by["stop"]["review_chips_low"] == 16.0
    assert by["stop"]["review_best"] and by["stop"]["review_loss"] == 0.0
    assert by["go"]["review_loss"] == pytest.approx(16.0 - by["go"]["review_chips"])
    assert by["go"]["review_budget"] == 3 and by["go"]["review_policy"] == "greedy"
    assert by["go"]["review_grade"] is not None
    # a game with no stored review: its review columns are null
    cup = [r for r in rows if r["game_id"] == "sample-cup-junk"]
    assert cup and all(r["review_chips"] is None and r["review_grade"] is None for r in cup)

    # the file is not replaced unless asked, and --decisions needs --out
    res = runner.invoke(app, ["db", "export", "--decisions", "--db", str(db), "--out", str(out)])
    assert res.exit_code == 1 and "--overwrite" in res.output
    res = runner.invoke(app, ["db", "export", "--decisions", "--db", str(db)])
    assert res.exit_code == 2
