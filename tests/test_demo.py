"""``gostop demo`` runs the main job end to end in a fresh folder, deterministically."""

from __future__ import annotations

from pathlib import Path

from gostop_cli.app import app
from typer.testing import CliRunner

from gostop_records.audit.model import DIFFERS
from gostop_records.demo import DEMO_MARKER, QUESTIONS, run_demo
from gostop_records.store import Store


def test_demo_builds_store_replay_dispute_and_answers(tmp_path: Path) -> None:
    r = run_demo(tmp_path / "demo")
    assert r.db.exists() and r.corpus.exists()
    with Store(r.db, read_only=True) as store:
        games = store.query("SELECT count(*) FROM games").rows[0][0]
        rulesets = {row[0] for row in store.query("SELECT DISTINCT ruleset FROM games").rows}
    assert games == r.games > 0
    assert rulesets == {"cardavia", "gamerules", "matgo", "gostop3"}
    # the dispute is found and explained by the pi-bak the table forgot
    checks = [c for h in r.dispute.audit.hands for c in h.payments]
    assert [c.status for c in checks] == [DIFFERS]
    first = checks[0].explanations[0]
    assert any(ch.setting.startswith("pi_bak") for ch in first.changes)
    assert [a.question for a in r.answers] == [q for q, _ in QUESTIONS]
    assert all(a.rows for a in r.answers)


def test_demo_is_deterministic_and_replaces_only_its_own_folder(tmp_path: Path) -> None:
    a = run_demo(tmp_path / "d")
    b = run_demo(tmp_path / "d")  # an earlier demo there is replaced
    assert a.folder == b.folder and (b.folder / DEMO_MARKER).exists()
    assert a.corpus.read_bytes() == b.corpus.read_bytes()
    assert [x.rows for x in a.answers] == [x.rows for x in b.answers]
    other = tmp_path / "mine"
    other.mkdir()
    (other / "keep.txt").write_text("not a demo")
    c = run_demo(other)
    assert c.folder != other and (other / "keep.txt").read_text() == "not a demo"


def test_demo_command_prints_every_step(tmp_path: Path) -> None:
    res = CliRunner().invoke(app, ["demo", "--dir", str(tmp_path / "demo")])
    assert res.exit_code == 0, res.output
    out = res.stdout
    for heading in (
        "1. a corpus",
        "2. replay",
        "3. a disputed payment",
        "4. questions",
        "what to try next",
    ):
        assert heading in out
    assert "payout proof:" in out and "explanations" in out
    # the next steps name the server, with the store the demo made
    assert f"gostop serve --db {tmp_path / 'demo'}" in out
    assert "\x1b[" not in out  # no colour codes when not a terminal
