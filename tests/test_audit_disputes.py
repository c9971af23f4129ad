"""The dispute samples: each names the house rule the table paid by (samples/disputes)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from gostop_records import log as L
from gostop_records.audit import DIFFERS, audit_game

DISPUTES = Path(__file__).resolve().parent.parent / "samples" / "disputes"
MANIFEST: list[dict[str, Any]] = json.loads((DISPUTES / "manifest.json").read_text())
PAYMENT_DISPUTES = [m for m in MANIFEST if m["expect_settings"]]


def test_every_multiplier_has_a_sample() -> None:
    named = {s for m in PAYMENT_DISPUTES for s in m["expect_settings"]}
    for setting in (
        "gwang_bak",
        "pi_bak_max_units",
        "pi_bak_zero_exempt",
        "meong_tta_min_animals",
        "go_bak",
        "shake_multiplier",
        "bomb_multiplier",
        "go_payout",
        "nagari_carry",
        "cup_role",
        "stake",
    ):
        assert setting in named
    readme = (DISPUTES / "README.md").read_text()
    for m in MANIFEST:
        assert f"`{m['file']}`" in readme


@pytest.mark.parametrize("m", PAYMENT_DISPUTES, ids=[m["file"] for m in PAYMENT_DISPUTES])
def test_dispute_names_the_house_rule(m: dict[str, Any]) -> None:
    envs = list(L.read_log(DISPUTES / m["file"]))
    assert L.verify(envs).ok
    audit = audit_game(envs)
    assert audit.record.ok, "the record is sound: only the payment is disputed"
    assert not audit.ok
    bad = [p for p in audit.disagreements if (p.payer, p.payee) == (m["payer"], m["payee"])]
    assert len(bad) == 1
    p = bad[0]
    assert p.status == DIFFERS and p.source == "recorded"
    assert (p.chips, p.computed) == (m["recorded"], m["computed"])
    assert p.explanations, p.finding
    first = p.explanations[0]
    assert set(first.settings) & set(m["expect_settings"])
    assert first.chips == p.chips
    assert "the table appears to have used" in first.text
    assert "this game's ruleset uses" in first.text


def test_three_player_sample_has_different_multipliers_per_loser() -> None:
    audit = audit_game(L.read_log(DISPUTES / "dokbak_3p.jsonl"))
    (h,) = audit.hands
    assert h.proof is not None and len(h.proof.losers) == 2
    mults = []
    for lp in h.proof.losers:
        product = 1
        for f in lp.factors:
            if f.applies:
                product *= f.factor
        assert product == lp.multiplier
        assert lp.points == h.proof.go_points * lp.multiplier
        mults.append(lp.multiplier)
    assert len(set(mults)) == 2
    # dokbak: one loser pays every share
    pays = sorted(lp.pays_points for lp in h.proof.losers)
    assert pays[0] == 0 and pays[1] == sum(lp.points for lp in h.proof.losers)


def test_clean_sample_agrees() -> None:
    audit = audit_game(L.read_log(DISPUTES / "clean.jsonl"))
    assert audit.ok and len(audit.hands) == 2


def test_tampered_sample_breaks_the_chain() -> None:
    m = next(x for x in MANIFEST if x["file"] == "tampered_payment.jsonl")
    audit = audit_game(L.read_log(DISPUTES / m["file"]))
    assert not audit.record.chain.ok
    assert audit.record.chain.first_bad_seq == m["chain_breaks_at"]
    assert audit.disagreements


def test_generator_builds_a_dispute_the_audit_explains(monkeypatch: pytest.MonkeyPatch) -> None:
    """The generator plays a game, pays it by the house rule, and the audit names the rule.

    Seeds are tried from the stored one on: a change to the bots may move the fitting seed.
    """
    import importlib.util
    import sys

    spec = importlib.util.spec_from_file_location("make_disputes", DISPUTES / "make_disputes.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, "make_disputes", mod)
    spec.loader.exec_module(mod)
    d = next(x for x in mod.DISPUTES if x.name == "go_bak")
    made = next(
        (m for seed in range(d.seed, d.seed + 200) if (m := mod.build(d, seed)) is not None), None
    )
    assert made is not None
    envs, audit = made
    assert L.verify(envs).ok and audit.record.ok
    (bad,) = audit.disagreements
    assert bad.explanations[0].settings == ("go_bak",)
    assert bad.chips * 2 == bad.computed  # go-bak doubles; the table did not
