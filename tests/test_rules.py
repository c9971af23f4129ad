"""Rulesets: the presets against RULES.md, custom files, content hash, pinning."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from gostop_records import rules
from gostop_records.errors import RulesetError
from gostop_records.rules import (
    PRESETS,
    CupMode,
    GoBak,
    GoPayout,
    HandFourTie,
    LayoutFour,
    NagariCarry,
    Ruleset,
    Shaking,
    SseulRule,
    StealCount,
)


def test_every_preset_loads_by_name() -> None:
    assert set(PRESETS) == {"cardavia", "gamerules", "matgo", "gostop3"}
    for name, rs in PRESETS.items():
        assert rs.name == name
        assert rules.get_preset(name.upper()) is rs
        assert rules.resolve(name) is rs
        assert rs.description
        for n in rs.players:
            hand, layout = rs.deal_size(n)
            assert n * hand + layout <= 48


def test_cardavia_matches_rules_1b() -> None:
    rs = PRESETS["cardavia"]
    assert rs.players == (2,)
    assert rs.bonus_cards == ()  # C2.1: no jokers
    assert rs.target_2p == 7  # C0.4
    assert rs.pi_bak_max_units == 4  # C6.3: fewer than 5 units
    assert rs.loser_cup_protects  # C6.4
    assert rs.go_payout is GoPayout.DOUBLE_FROM_THIRD  # C6.2
    assert rs.cup_mode is CupMode.AUTO_BEST  # C5.9
    assert not rs.cup_transferable  # C4.3
    assert rs.shaking is Shaking.NONE and not rs.bombs  # C4.5
    assert rs.sseul_rule is SseulRule.TWO_CARDS
    assert rs.three_ppuk_points == 5  # C4.4
    assert rs.first_ppuk_points == ()
    assert rs.hand_four_points == 5  # C2.4
    assert rs.layout_four is LayoutFour.REDEAL
    assert rs.all_hand_fours is HandFourTie.REDEAL  # C2.5
    assert rs.single_hand and rs.nagari_carry is NagariCarry.NONE  # C0.5
    assert rs.go_bak is GoBak.NONE
    assert rs.steal_count is StealCount.UNITS
    assert rs.own_ppuk_steal == 2


def test_gamerules_matches_rules_1a() -> None:
    rs = PRESETS["gamerules"]
    assert rs.players == (2, 3)  # G1
    assert rs.bonus_cards == ("B2", "B3")  # G24
    assert (rs.target_2p, rs.target_3p) == (7, 3)  # G25
    assert rs.target(2) == 7 and rs.target(3) == 3
    assert rs.pi_bak_max_units == 5  # G36: 5 or fewer
    assert not rs.pi_bak_zero_exempt
    assert rs.go_payout is GoPayout.GENERAL_PAGE and rs.go_double_from == 4  # G38
    assert rs.cup_mode is CupMode.ANIMAL_ONLY
    assert rs.shaking is Shaking.BEFORE_TURN  # G10
    assert rs.bombs and rs.bomb_steal == 0 and rs.bomb_multiplier == 1  # G19, G21
    assert rs.sseul_rule is SseulRule.TWO_CARDS  # G17.1
    assert rs.steal_count is StealCount.CARDS
    assert rs.hand_four_points == 5  # G8
    assert rs.three_ppuk_points is None
    assert rs.nagari_carry is NagariCarry.CUMULATIVE  # G37
    assert rs.go_bak is GoBak.NONE


def test_matgo_matches_standard() -> None:
    rs = PRESETS["matgo"]
    assert rs.players == (2,)
    assert rs.bonus_cards == ("B2", "B3")
    assert rs.target_2p == 7
    assert rs.pi_bak_max_units == 7 and rs.pi_bak_zero_exempt  # loser <= 7, 0 exempt
    assert rs.go_payout is GoPayout.STANDARD
    assert rs.cup_mode is CupMode.PLAYER_CHOICE
    assert rs.shaking is Shaking.ON_PLAY
    assert rs.bombs and rs.bomb_steal == 1 and rs.bomb_multiplier == 2
    assert rs.sseul_rule is SseulRule.FLOOR_EMPTY
    assert rs.three_ppuk_points == 7
    assert rs.first_ppuk_points == (7, 14, 21)
    assert rs.hand_four_points == 10
    assert rs.go_bak is GoBak.DOUBLE
    assert rs.nagari_carry is NagariCarry.CUMULATIVE and rs.nagari_carry_cap == 8
    assert rs.last_turn_exceptions == frozenset(rules.LastTurnRule)


def test_gostop3_matches_standard() -> None:
    rs = PRESETS["gostop3"]
    assert rs.players == (3,)
    assert rs.target_3p == 3
    assert rs.pi_bak_max_units == 5 and rs.pi_bak_zero_exempt
    assert rs.go_bak is GoBak.PAYS_FOR_ALL  # dokbak
    assert rs.go_payout is GoPayout.STANDARD
    assert rs.three_ppuk_points == 7
    assert rs.deal_size(3) == (7, 6)


def _write(tmp_path: Path, name: str, text: str) -> Path:
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    return p


def test_custom_toml_with_top_level_and_rules_table(tmp_path: Path) -> None:
    p = _write(
        tmp_path,
        "house.toml",
        """
base = "matgo"
pi_bak_max_units = 6

[rules]
go_bak = "none"
first_ppuk_points = []
""",
    )
    rs = rules.resolve(p)
    assert rs.name == "house"
    assert rs.pi_bak_max_units == 6
    assert rs.go_bak is GoBak.NONE
    assert rs.first_ppuk_points == ()
    assert rs.three_ppuk_points == PRESETS["matgo"].three_ppuk_points  # from the base
    assert {f for f, _, _ in rules.diff(PRESETS["matgo"], rs)} == {
        "pi_bak_max_units",
        "go_bak",
        "first_ppuk_points",
    }


def test_custom_json(tmp_path: Path) -> None:
    p = _write(
        tmp_path,
        "club.json",
        json.dumps(
            {
                "base": "gamerules",
                "name": "club",
                "rules": {"cup_mode": "player_choice"},
                "target_3p": 5,
            }
        ),
    )
    rs = rules.load_ruleset_file(p)
    assert rs.name == "club"
    assert rs.cup_mode is CupMode.PLAYER_CHOICE
    assert rs.target_3p == 5
    assert rs.players == (2, 3)


def test_unknown_field(tmp_path: Path) -> None:
    p = _write(tmp_path, "bad.toml", 'base = "matgo"\npibak = 3\n')
    with pytest.raises(RulesetError, match=r"field pibak: unknown field") as info:
        rules.resolve(p)
    assert "did you mean pi_bak" in str(info.value)  # the nearest valid names
    assert str(p) in str(info.value)
    far = _write(tmp_path, "far.toml", 'base = "matgo"\nstop_score = 7\n')
    with pytest.raises(RulesetError, match=r"field stop_score: unknown field") as info:
        rules.resolve(far)
    assert "gostop rules show PRESET lists every field" in str(info.value)


def test_bad_enum_value_names_field_and_allowed_values(tmp_path: Path) -> None:
    p = _write(tmp_path, "bad.toml", 'base = "matgo"\n[rules]\ncup_mode = "sometimes"\n')
    with pytest.raises(RulesetError) as info:
        rules.resolve(p)
    message = str(info.value)
    assert "field cup_mode" in message
    for allowed in ("animal_only", "auto_best", "player_choice"):
        assert allowed in message


def test_out_of_range_value(tmp_path: Path) -> None:
    p = _write(tmp_path, "bad.json", '{"base": "matgo", "bomb_steal": 9}')
    with pytest.raises(RulesetError, match="field bomb_steal"):
        rules.resolve(p)


def test_missing_base(tmp_path: Path) -> None:
    p = _write(tmp_path, "nobase.toml", "pi_bak_max_units = 6\n")
    with pytest.raises(RulesetError, match="field base: missing"):
        rules.resolve(p)


def test_unknown_base(tmp_path: Path) -> None:
    p = _write(tmp_path, "odd.toml", 'base = "hwatu9"\n')
    with pytest.raises(RulesetError, match=r"'hwatu9' is not a preset; presets are cardavia"):
        rules.resolve(p)


def test_bad_toml_syntax(tmp_path: Path) -> None:
    p = _write(tmp_path, "broken.toml", 'base = "matgo\n')
    with pytest.raises(RulesetError, match=r"broken.toml: not valid toml"):
        rules.resolve(p)


def test_missing_file_and_unknown_preset(tmp_path: Path) -> None:
    with pytest.raises(RulesetError, match="cannot read ruleset file"):
        rules.resolve(tmp_path / "absent.toml")
    with pytest.raises(RulesetError, match="unknown ruleset 'nope'"):
        rules.resolve("nope")


def test_content_hash_is_stable_and_ignores_name() -> None:
    rs = PRESETS["matgo"]
    blob = json.dumps(rs.hashed(), sort_keys=True, separators=(",", ":"))
    assert rs.content_hash == "sha256:" + hashlib.sha256(blob.encode()).hexdigest()
    assert rs.content_hash == Ruleset.model_validate(rs.model_dump()).content_hash
    renamed = rs.model_copy(update={"name": "other", "description": "same rules"})
    assert renamed.content_hash == rs.content_hash
    assert "name" not in rs.content() and "description" not in rs.content()
    hashes = {p.content_hash for p in PRESETS.values()}
    assert len(hashes) == len(PRESETS)


def test_content_hash_changes_with_a_rule() -> None:
    rs = PRESETS["matgo"]
    changed = rules.apply_overrides(rs, {"pi_bak_max_units": 6}, "test")
    assert changed.content_hash != rs.content_hash
    assert rules.diff(rs, changed) == [("pi_bak_max_units", 7, 6)]
    assert rules.diff(rs, rs) == []


def test_pinned_round_trip() -> None:
    for rs in PRESETS.values():
        pinned = json.loads(json.dumps(rs.pinned()))  # as stored in a log
        assert pinned["hash"] == rs.content_hash
        assert pinned["name"] == rs.name
        back = Ruleset.from_pinned(pinned)
        assert back == rs
        assert back.content_hash == rs.content_hash


def test_tampered_pinned_ruleset_is_rejected() -> None:
    pinned = PRESETS["matgo"].pinned()
    pinned["pi_bak_max_units"] = 5
    with pytest.raises(RulesetError, match="edited after it was pinned"):
        Ruleset.from_pinned(pinned)


def test_pinned_with_bad_value_is_rejected() -> None:
    pinned = PRESETS["matgo"].pinned()
    pinned["go_payout"] = "triple"
    with pytest.raises(RulesetError, match="field go_payout"):
        Ruleset.from_pinned(pinned)


def test_field_docs_cover_every_field() -> None:
    docs = Ruleset.field_docs()
    assert set(docs) == set(Ruleset.model_fields)
    assert all(docs.values())
