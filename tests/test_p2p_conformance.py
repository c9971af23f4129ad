"""p2p-gostop's engine vectors as a conformance suite.

The vectors of kywoo26/p2p-gostop (``packages/engine/test/vectors/``, MIT licence, see
``tests/vectors/p2p-gostop/LICENSE``) are run through this engine under
``samples/rulesets/p2p.toml`` by the translator in ``p2p_vectors.py``. Every vector of the
score, pi, events, gostop, settle, bonus and deal files is a test, and all 198 pass. A
vector this engine could not say would be a strict xfail with its exact reason
(:data:`XFAIL`, empty now): one that starts to pass fails the suite until it leaves the
list. push.json and view.json stay out (docs/rules.md).
"""

from __future__ import annotations

from typing import Any

import pytest
from p2p_vectors import FILES, Unsupported, load, run_vector

#: Vectors this engine cannot yet express or does otherwise, with why (none now).
XFAIL: dict[str, str] = {}


def _params() -> list[Any]:
    out = []
    for f in FILES:
        for v in load(f):
            marks = []
            if v["id"] in XFAIL:
                marks.append(
                    pytest.mark.xfail(
                        reason=XFAIL[v["id"]], strict=True, raises=(AssertionError, Unsupported)
                    )
                )
            out.append(pytest.param(v, id=f"{f}:{v['id']}", marks=marks))
    return out


PARAMS = _params()


@pytest.mark.parametrize("vector", PARAMS)
def test_p2p_vector(vector: dict[str, Any]) -> None:
    run_vector(vector)


def test_the_suite_holds_every_vector_of_its_files_once() -> None:
    ids = [p.values[0]["id"] for p in PARAMS]
    assert len(ids) == len(set(ids)) == 198
    assert set(XFAIL) <= set(ids)
    # the counts docs/rules.md states
    assert len(ids) - len(XFAIL) == 198 and not XFAIL


def test_the_translator_names_cards_both_ways() -> None:
    from p2p_vectors import code, name

    from gostop_records import cards as C

    for c in (*C.CODES[:48], "B2", "B3", "B2B"):
        assert code(name(c)) == c
    assert code("9국진") == "09A" and code("12비광") == "12G" and code("11쌍피") == "11D"
    with pytest.raises(ValueError, match="unknown p2p card"):
        code("13광")


def test_a_patch_with_no_setting_is_refused_by_name() -> None:
    from p2p_vectors import rules_of

    with pytest.raises(Unsupported, match="push=true"):
        rules_of({"id": "x", "rulesPatch": {"push": True}})
    rs = rules_of({"id": "x", "rulesPatch": {"piBakThreshold": 6, "gukjin": "ask"}})
    assert rs.pi_bak_max_units == 6 and rs.cup_mode.value == "player_choice"


def test_the_p2p_ruleset_file_states_p2ps_settings() -> None:
    from p2p_vectors import RULESET

    from gostop_records.rules import PRESETS, Ruleset, diff, load_ruleset_file

    rs = load_ruleset_file(RULESET)
    changed = {k for k, _a, _b in diff(PRESETS["matgo"], rs)}
    assert changed == {
        "bonus_cards",
        "cup_mode",
        "loser_cup_protects",
        "cup_fixed_when_alone",
        "bonus_buried_in_ppuk",
        "bonus_steal_at_once",
        "first_ttadak_points",
        "hand_four_factors",
        "three_ppuk_factors",
        "hudang_factors",
        "draw_bonus_wins",
        "draw_ties_by_lot",
        "shake_asked",
        "hand_four_keep",
        "bonus_four",
    }
    pinned = rs.pinned()
    assert pinned["hand_four_keep"] is True and "two_card_bomb_steal" not in pinned
    assert Ruleset.from_pinned(pinned) == rs


def test_a_redeal_is_a_void_hand_then_a_deal_by_the_same_dealer() -> None:
    """R6 redeal: p2p redeals at once; here the void hand is recorded, the dealer stays and
    the carry is unchanged, and the next hand is dealt (the translator's Redealt)."""
    v = next(x for x in load("deal") if x["id"] == "R6-floor-chongtong-redeal")
    run = run_vector(v)
    g = run.sc.game
    assert [r.outcome for r in g.results] == ["void"]
    assert g.hand_no == 2 and run.h.dealer == 0 and g.carry == 1
    assert [e["type"] for e in run.events].count("Dealt") == 2


def test_a_bombs_steal_is_the_first_of_its_turn() -> None:
    """E9: p2p steals for a bomb before the flip; here as the turn resolves, first of the
    turn's steals, so the translator tells it after the bomb with nothing lost."""
    from gostop_records import events as E

    v = next(x for x in load("events") if x["id"] == "E9-bomb")
    run = run_vector(v)
    steals = [d for d in run.sc.derived if type(d) is E.JunkTransferred]
    assert [d.reason for d in steals] == ["bomb"] and steals[0].card == "07J1"
