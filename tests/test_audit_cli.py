"""``gostop audit``: text and JSON output, claims, exit codes 0 / 1 / 2, the store."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from gostop_cli.app import app
from typer.testing import CliRunner

from gostop_records import log as L
from gostop_records.rules import PRESETS
from gostop_records.sim.selfplay import GameSpec, play_game

DISPUTES = Path(__file__).resolve().parent.parent / "samples" / "disputes"
CLEAN = DISPUTES / "clean.jsonl"
runner = CliRunner()


def run(*args: str) -> tuple[int, str, str]:
    result = runner.invoke(app, ["audit", *args])
    return result.exit_code, result.stdout, result.stderr


def _due(path: Path = CLEAN, hand: int = 2) -> tuple[int, int, int]:
    code, out, _ = run(str(path), "--json", "--hand", str(hand))
    assert code == 0
    (h,) = json.loads(out)["hands"]
    d = h["dues"][0]
    return d["payer"], d["payee"], d["chips"]


def test_clean_log_exit_0_with_proof_table() -> None:
    code, out, err = run(str(CLEAN))
    assert code == 0 and err == ""
    assert "Hand 1" in out and "Hand 2" in out
    assert "Go bonus" in out and "pays" in out
    assert "agreed" in out
    assert "Result: everything agrees" in out


def test_dispute_exit_1_names_the_setting() -> None:
    code, out, err = run(str(DISPUTES / "pi_bak_threshold.jsonl"))
    assert code == 1
    assert "differs by" in out
    assert "the table appears to have used pi-bak with a threshold of at most" in out
    assert "(pi_bak_max_units = 4)" in out
    assert "disagree" in err


def test_agreeing_claim_exit_0_and_disagreeing_claim_exit_1() -> None:
    payer, payee, chips = _due()
    code, out, _ = run(str(CLEAN), "--hand", "2", "--claim", f"{payer}->{payee}={chips}")
    assert code == 0
    assert f"claim '{payer}->{payee}={chips}'" in out
    code, out, _ = run(str(CLEAN), "--claim", f"p{payer + 1}->p{payee + 1}={chips // 100}")
    assert code == 1
    assert "a stake of 1 chip per point (the stake left out)" in out


@pytest.mark.parametrize("claim", ["1-0=5", "1->0=lots", "=5", "1->0"])
def test_bad_claim_syntax_is_a_usage_error(claim: str) -> None:
    code, out, err = run(str(CLEAN), "--claim", claim)
    assert code == 2 and out == ""
    assert "--claim" in err and ("PAYER->PAYEE=CHIPS" in err or "whole number" in err)


def test_claim_naming_no_player_is_a_usage_error() -> None:
    code, out, err = run(str(CLEAN), "--claim", "Nobody->0=100")
    assert code == 2 and out == ""
    assert "no player is called 'Nobody'" in err


def test_unknown_hand_is_a_usage_error() -> None:
    code, _, err = run(str(CLEAN), "--hand", "7")
    assert code == 2 and "no hand 7" in err


def test_usage_errors_for_sources() -> None:
    code, _, err = run()
    assert code == 2 and "LOG" in err
    code, _, err = run(str(CLEAN), "--db", "x.duckdb", "--game", "g")
    assert code == 2
    code, _, err = run("--db", "x.duckdb")
    assert code == 2 and "--game" in err


def test_missing_file_is_rejected(tmp_path: Path) -> None:
    code, out, err = run(str(tmp_path / "nope.jsonl"))
    assert code == 1 and out == ""
    assert "nope.jsonl" in err


def test_json_output_shape_and_exit() -> None:
    code, out, _ = run(str(DISPUTES / "go_payout.jsonl"), "--json")
    assert code == 1
    data = json.loads(out)
    assert data["ok"] is False and data["disagreements"] == 1
    (h,) = data["hands"]
    assert "x 2" in h["proof"]["go_formula"]
    assert h["proof"]["go_count"] >= 3
    (pay,) = [p for p in h["payments"] if p["status"] == "differs"]
    assert pay["explanations"][0]["settings"] == ["go_payout"]
    assert pay["explanations"][0]["changes"][0]["value"] == "double_from_third"


def test_lenient_log_first_violation() -> None:
    code, out, _ = run(str(DISPUTES / "illegal_play.jsonl"), "--lenient")
    assert code == 1
    assert "first violation" in out and "does not hold" in out
    assert "the rules allowed seat 1: play" in out
    code, out, _ = run(str(DISPUTES / "illegal_play.jsonl"), "--lenient", "--json")
    assert code == 1
    first = json.loads(out)["record"]["first_violation"]
    assert first["rule"] == "card_in_hand" and first["legal"]


def test_log_with_several_games_needs_game(tmp_path: Path) -> None:
    a = play_game(GameSpec(PRESETS["matgo"], 2, 1, 1, ("greedy",), 1, game_id="a"))
    b = play_game(GameSpec(PRESETS["matgo"], 2, 1, 2, ("greedy",), 1, game_id="b"))
    path = tmp_path / "two.jsonl"
    L.write_jsonl(path, [*a, *b])
    code, _, err = run(str(path))
    assert code == 2 and "--game" in err
    code, out, _ = run(str(path), "--game", "b", "--json")
    assert code == 0 and json.loads(out)["game_id"] == "b"


def test_audit_from_the_store(tmp_path: Path) -> None:
    from gostop_records.store import Store

    db = tmp_path / "games.duckdb"
    with Store(db) as store:
        store.import_paths([DISPUTES / "go_bak.jsonl"])
    code, out, _ = run("--db", str(db), "--game", "dispute-go_bak", "--json")
    assert code == 1
    data = json.loads(out)
    assert data["game_id"] == "dispute-go_bak"
    assert data["hands"][0]["payments"][0]["explanations"][0]["settings"] == ["go_bak"]
    code, _, err = run("--db", str(db), "--game", "missing")
    assert code == 1 and "no game 'missing'" in err
