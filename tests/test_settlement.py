"""Payout proofs: Go payouts, every bak, the nagari carry, per-loser settlement, the derived
vectors of RULES.md 4.3, each under the presets it holds in.

Piles are chosen so that exactly the factor under test can apply: a winner without brights
cannot cause gwang-bak, a winner without a junk score cannot cause pi-bak, and so on. Each
test checks the proof's own arithmetic too (go points, multiplier, chips).
"""

from __future__ import annotations

import pytest
from engine_helpers import facts, proof, table, units_pile

from gostop_records.engine import go_points, settle
from gostop_records.engine.settlement import HandFacts, Proof
from gostop_records.engine.table import table_for
from gostop_records.rules import PRESETS

TWO_P = ["cardavia", "gamerules", "matgo"]

# Winner piles with an exact combination score and nothing that could trigger a bak by itself.
GODORI = ["02A", "04A", "08A"]
S7_WITH_JUNK_SCORE = [*GODORI, "11D", "12D", *units_pile(7)]  # godori 5 + 11 units 2 = 7
S8_RAIN_TRIPLE = ["01G", "03G", "12G", *GODORI, "05A", "06A"]  # rain triple 2 + godori 5 + 1
S8_SEVEN_ANIMALS = [*GODORI, "05A", "06A", "07A", "10A"]  # godori 5 + 7 animals 3
S7_SIX_ANIMALS = [*GODORI, "05A", "06A", "07A"]  # godori 5 + 6 animals 2
S9_BRIGHTS = ["01G", "03G", "08G", *GODORI, "05A", "06A"]  # 3 brights 3 + godori 5 + 1
S10_NO_BRIGHT_BAK = ["01G", "03G", "08G", "11G", *GODORI, "05A", "06A"]  # 4 + 5 + 1
LOSER_SAFE = ["12G", "10A", *units_pile(8, exclude=S7_WITH_JUNK_SCORE)]  # a bright, 8 units


def check(p: Proof, name: str, loser: int = 1) -> int:
    """The proof's own arithmetic: points = go points x applying factors; chips = x stake."""
    lp = next(lp for lp in p.losers if lp.loser == loser)
    mult = 1
    for f in lp.factors:
        if f.applies:
            mult *= f.factor
    assert lp.multiplier == mult
    assert lp.points == p.go_points * mult
    assert lp.chips == lp.points * p.stake
    assert p.go_setting == f"go_payout={PRESETS[name].go_payout.value}"
    return lp.pays_points


def applying(p: Proof, loser: int = 1) -> set[str]:
    lp = next(lp for lp in p.losers if lp.loser == loser)
    return {f.rule for f in lp.factors if f.applies}


def seven(name: str) -> list[str]:
    """A 7-point winner pile without brights or a junk score (godori 5 + 6 animals 2)."""
    pile = [*GODORI, "05A", "06A", "07A", "01R"]
    assert proof(name, facts(0, [pile, []])).score.total == 7
    return pile


# --- Go payouts (A16; [P2P] gostop.json) --------------------------------------------------


@pytest.mark.parametrize(
    ("preset", "expected"),
    [
        # standard: S+n, from 3 Gos (S+n) x 2^(n-2)
        ("matgo", {0: 7, 1: 8, 2: 9, 3: 20, 4: 44, 5: 96}),
        ("gostop3", {0: 7, 1: 8, 2: 9, 3: 20, 4: 44, 5: 96}),
        # CARDAVIA C6.2: S+1, S+2, then S x 2^(n-2) ("double only": 3 Go = 14)
        ("cardavia", {0: 7, 1: 8, 2: 9, 3: 14, 4: 28, 5: 56}),
        # general page G38: +1 per Go, doubled once from "more than 3" (4) Gos
        ("gamerules", {0: 7, 1: 8, 2: 9, 3: 10, 4: 22, 5: 24}),
    ],
)
def test_go_payout_on_a_score_of_7(preset: str, expected: dict[int, int]) -> None:
    t = table(preset)
    for n, want in expected.items():
        pts, formula = go_points(t, 7, n)
        assert pts == want, (preset, n, formula)
        assert str(7) in formula


def test_go_formulas_are_written_out() -> None:
    assert go_points(table("matgo"), 7, 3) == (20, "(7 + 3 Go) x 2")
    assert go_points(table("matgo"), 7, 1) == (8, "7 + 1 Go")
    pts, text = go_points(table("cardavia"), 7, 3)
    assert pts == 14 and "no points added" in text


@pytest.mark.parametrize("preset", TWO_P)
def test_stop_with_one_go_pays_8_from_a_proof(preset: str) -> None:
    p = proof(preset, facts(0, [seven(preset), LOSER_SAFE], go=(1, 0)))
    assert check(p, preset) == 8
    assert p.score.total == 7 and p.go_count == 1 and p.go_points == 8
    assert applying(p) == set()


# --- go-bak (A22) -------------------------------------------------------------------------


def test_matgo_go_bak_loser_who_called_go_pays_double() -> None:
    p = proof("matgo", facts(0, [seven("matgo"), LOSER_SAFE], go=(0, 1)))
    assert check(p, "matgo") == 14
    gb = next(f for f in p.losers[0].factors if f.rule == "go_bak")
    assert gb.applies and gb.condition == "the loser called Go 1 time(s)"


def test_matgo_winner_own_go_is_no_go_bak() -> None:
    p = proof("matgo", facts(0, [seven("matgo"), LOSER_SAFE], go=(1, 0)))
    assert check(p, "matgo") == 8
    gb = next(f for f in p.losers[0].factors if f.rule == "go_bak")
    assert not gb.applies and gb.condition == "the loser did not call Go"


@pytest.mark.parametrize("preset", ["cardavia", "gamerules"])
def test_seed_rulesets_have_no_go_bak(preset: str) -> None:
    """Neither seed document has go-bak (C1.4: the opponent's Stop just means you lose)."""
    p = proof(preset, facts(0, [seven(preset), LOSER_SAFE], go=(0, 1)))
    assert check(p, preset) == 7
    assert all(f.rule != "go_bak" for f in p.losers[0].factors)


def test_matgo_three_go_on_7_is_20_and_40_with_go_bak() -> None:
    """[RL] settle tests: 3 Go on 7 -> 20, with go-bak -> 40."""
    assert check(proof("matgo", facts(0, [seven("matgo"), LOSER_SAFE], go=(3, 0))), "matgo") == 20
    assert check(proof("matgo", facts(0, [seven("matgo"), LOSER_SAFE], go=(3, 1))), "matgo") == 40


# --- pi-bak (A19) -------------------------------------------------------------------------

W_JUNK = S7_WITH_JUNK_SCORE
LOSER_7_UNITS = ["12G", *units_pile(7, exclude=W_JUNK)]
LOSER_8_UNITS_WITH_B2 = ["12G", "B2", *units_pile(6, exclude=W_JUNK)]
LOSER_NO_JUNK = ["12G"]
LOSER_ONE_DOUBLE = ["12G", "B2"]  # one card worth 2 units (11D and 12D are the winner's)
LOSER_4_CARDS_8_UNITS = ["12G", "B2", "B3", *units_pile(3, exclude=W_JUNK)]
LOSER_5_UNITS = ["12G", *units_pile(5, exclude=W_JUNK)]


@pytest.mark.parametrize(
    ("loser", "matgo", "gamerules"),
    [
        # matgo threshold 7 (<= 7 units), zero-junk exemption on [P2P pi.json]
        (LOSER_7_UNITS, 14, 7),  # gamerules: 7 > 5
        (LOSER_8_UNITS_WITH_B2, 7, 7),
        (LOSER_NO_JUNK, 7, 14),  # matgo exempt; gamerules has no exemption
        (LOSER_ONE_DOUBLE, 14, 14),  # a double junk counts 2 units
        (LOSER_4_CARDS_8_UNITS, 7, 7),  # four cards, 8 units: units count, not cards
        (LOSER_5_UNITS, 14, 14),  # gamerules G36: "5 or fewer"
    ],
)
def test_pi_bak_thresholds(loser: list[str], matgo: int, gamerules: int) -> None:
    for name, want in (("matgo", matgo), ("gamerules", gamerules)):
        p = proof(name, facts(0, [W_JUNK, loser]))
        assert p.score.total == 7 and p.score.junk_points == 2
        assert check(p, name) == want, name
        assert ("pi_bak" in applying(p)) == (want == 14)


@pytest.mark.parametrize(
    ("loser", "want"),
    [
        (LOSER_5_UNITS, 7),  # C6.3 "fewer than five": 5 units is not pi-bak
        (["12G", *units_pile(4, exclude=W_JUNK)], 14),
        (LOSER_NO_JUNK, 14),  # no exemption in CARDAVIA
        (["12G", "09A", *units_pile(3, exclude=W_JUNK)], 7),  # C6.4: the loser's cup counts 2
    ],
)
def test_cardavia_pi_bak_fewer_than_five_units(loser: list[str], want: int) -> None:
    p = proof("cardavia", facts(0, [W_JUNK, loser]))
    assert check(p, "cardavia") == want


def test_cardavia_pi_bak_condition_mentions_the_protecting_cup() -> None:
    p = proof("cardavia", facts(0, [W_JUNK, ["12G", "09A", *units_pile(3, exclude=W_JUNK)]]))
    pb = next(f for f in p.losers[0].factors if f.rule == "pi_bak")
    assert not pb.applies
    assert pb.condition == (
        "winner scores junk (11 units), loser holds 5 unit(s) > 4 (the loser's cup counts 2)"
    )


@pytest.mark.parametrize("preset", TWO_P)
def test_no_pi_bak_when_the_winner_has_no_junk_score(preset: str) -> None:
    p = proof(preset, facts(0, [seven(preset), LOSER_NO_JUNK]))
    pb = next(f for f in p.losers[0].factors if f.rule == "pi_bak")
    assert not pb.applies and pb.condition.startswith("winner has no junk score")
    assert check(p, preset) == 7


def test_matgo_zero_junk_exemption_is_stated() -> None:
    p = proof("matgo", facts(0, [W_JUNK, LOSER_NO_JUNK]))
    pb = next(f for f in p.losers[0].factors if f.rule == "pi_bak")
    assert not pb.applies and pb.condition == "loser holds no junk at all: exempt"


# --- gwang-bak (A20), meong-tta (A21) -----------------------------------------------------


@pytest.mark.parametrize("preset", TWO_P)
def test_gwang_bak_with_the_rain_triple(preset: str) -> None:
    """Base 8 with the rain triple (2 points) -> 16 against a loser with no bright; a loser
    holding one bright pays 8 [P2P G7]."""
    bare = proof(preset, facts(0, [S8_RAIN_TRIPLE, ["10A", *units_pile(8)]]))
    assert bare.score.total == 8 and bare.score.bright_points == 2
    assert check(bare, preset) == 16
    gb = next(f for f in bare.losers[0].factors if f.rule == "gwang_bak")
    assert gb.applies and gb.condition == "winner scores brights (2), loser holds 0 bright(s)"
    covered = proof(preset, facts(0, [S8_RAIN_TRIPLE, ["08G", *units_pile(8)]]))
    assert check(covered, preset) == 8


@pytest.mark.parametrize("preset", TWO_P)
def test_meong_tta_seven_animals(preset: str) -> None:
    """7 animals (godori included) at base 8 -> 16; 6 animals at 7 -> 7 [P2P]."""
    p = proof(preset, facts(0, [S8_SEVEN_ANIMALS, LOSER_SAFE]))
    assert p.score.total == 8 and check(p, preset) == 16
    mt = next(f for f in p.losers[0].factors if f.rule == "meong_tta")
    assert mt.applies and mt.condition == "winner holds 7 animal(s), 7 needed"
    p6 = proof(preset, facts(0, [S7_SIX_ANIMALS, LOSER_SAFE]))
    assert p6.score.total == 7 and check(p6, preset) == 7


def test_meong_tta_ignores_the_cup_counted_as_junk_in_matgo() -> None:
    pile = [*S7_SIX_ANIMALS, "09A"]
    assert check(proof("matgo", facts(0, [pile, LOSER_SAFE], cup_role="animal")), "matgo") == 16
    as_junk = proof("matgo", facts(0, [pile, LOSER_SAFE], cup_role="junk"))
    assert "meong_tta" not in applying(as_junk)


def test_bak_multipliers_are_cumulative() -> None:
    """Gwang-bak x pi-bak x meong-tta = x8 [KW/N 2x2x2]."""
    win = ["01G", "03G", "08G", *S8_SEVEN_ANIMALS, *units_pile(10)]
    p = proof("matgo", facts(0, [win, units_pile(3, exclude=win)]))
    assert applying(p) == {"gwang_bak", "pi_bak", "meong_tta"}
    assert check(p, "matgo") == p.score.total * 8


# --- shakes and bombs (G33, A11) ----------------------------------------------------------


def test_shakes_double_per_shake() -> None:
    p = proof("matgo", facts(0, [seven("matgo"), LOSER_SAFE], shakes=(2, 0)))
    assert check(p, "matgo") == 28
    sh = next(f for f in p.losers[0].factors if f.rule == "shake")
    assert sh.factor == 4 and sh.condition == "the winner shook 2 time(s)"


def test_gostop3_three_points_one_go_one_shake_is_8() -> None:
    """[TSCZ] (3 + 1 Go) x 2 for one shake = 8, at the 3-player target."""
    win = ["01R", "02R", "03R"]
    p = proof("gostop3", facts(0, [win, LOSER_SAFE, ["11G"]], go=(1, 0, 0), shakes=(1, 0, 0)))
    assert check(p, "gostop3", 1) == 8 and check(p, "gostop3", 2) == 8


def test_bomb_counts_as_a_shake_in_matgo_but_not_on_the_general_page() -> None:
    pm = proof("matgo", facts(0, [seven("matgo"), LOSER_SAFE], bombs=(1, 0)))
    assert check(pm, "matgo") == 14
    pg = proof("gamerules", facts(0, [seven("gamerules"), LOSER_SAFE], bombs=(1, 0)))
    assert check(pg, "gamerules") == 7
    bomb = next(f for f in pg.losers[0].factors if f.rule == "bomb")
    assert not bomb.applies  # G21: no multiplier attached


def test_cardavia_gives_no_factor_to_shakes_or_bombs_it_does_not_play() -> None:
    """C4.5: no shaking, no bombs. Facts that hold some (a hand re-settled under CARDAVIA
    in an audit) show the factor as not applying, with the reason."""
    p = proof("cardavia", facts(0, [seven("cardavia"), LOSER_SAFE], shakes=(1, 0), bombs=(1, 0)))
    assert check(p, "cardavia") == 7
    by_name = {f.rule: f for f in p.losers[0].factors}
    assert not by_name["shake"].applies and not by_name["bomb"].applies
    assert by_name["shake"].condition == "the winner shook 1 time(s); this ruleset has no shaking"
    assert by_name["bomb"].condition == "the winner bombed 1 time(s); this ruleset has no bombs"


# --- stake and carry ----------------------------------------------------------------------


def test_seven_points_at_100_per_point_is_700_chips() -> None:
    p = proof("matgo", facts(0, [seven("matgo"), LOSER_SAFE]), stake=100)
    assert p.losers[0].pays_chips == 700
    assert [(d.payer, d.payee, d.points, d.chips, d.reason) for d in p.dues] == [
        (1, 0, 7, 700, "stop")
    ]
    assert p.chips_from(1) == 700


@pytest.mark.parametrize("preset", ["matgo", "gamerules"])
def test_nagari_carry_multiplies_the_next_payout(preset: str) -> None:
    p = proof(preset, facts(0, [seven(preset), LOSER_SAFE], carry=4))
    assert check(p, preset) == 28
    c = next(f for f in p.losers[0].factors if f.rule == "nagari_carry")
    assert c.factor == 4 and c.applies


# --- the derived vectors of the 4.3 table -------------------------------------------------


@pytest.mark.parametrize(("preset", "want"), [("matgo", 48), ("cardavia", 36), ("gamerules", 24)])
def test_derived_s9_three_go_gwang_bak(preset: str, want: int) -> None:
    """S=9, winner 3 Go, gwang-bak: (9+3)x2x2 = 48; CARDAVIA 9x2x2 = 36; general page
    (9+3)x2 = 24 (3 Gos are not "more than 3")."""
    p = proof(preset, facts(0, [S9_BRIGHTS, LOSER_SAFE[1:]], go=(3, 0)))
    assert p.score.total == 9
    assert applying(p) == {"gwang_bak"}
    assert check(p, preset) == want


@pytest.mark.parametrize(("preset", "want"), [("matgo", 32), ("cardavia", 8), ("gamerules", 32)])
def test_derived_s7_one_go_one_shake_loser_5_units(preset: str, want: int) -> None:
    """S=7 including a junk score, 1 Go, 1 shake, loser 5 junk units: (7+1)x2x2 = 32;
    CARDAVIA has no shaking and 5 is not < 5 -> 8; general page (7+1)x2x2 = 32."""
    p = proof(preset, facts(0, [S7_WITH_JUNK_SCORE, LOSER_5_UNITS], go=(1, 0), shakes=(1, 0)))
    assert p.score.total == 7 and p.score.junk_points == 2
    assert check(p, preset) == want


@pytest.mark.parametrize(("preset", "want"), [("matgo", 56), ("cardavia", 40), ("gamerules", 28)])
def test_derived_s10_four_go_no_bak(preset: str, want: int) -> None:
    """S=10, 4 Go, no bak: (10+4)x4 = 56; CARDAVIA 10x4 = 40; general page (10+4)x2 = 28."""
    p = proof(preset, facts(0, [S10_NO_BRIGHT_BAK, LOSER_SAFE], go=(4, 0)))
    assert p.score.total == 10
    assert applying(p) == set()
    assert check(p, preset) == want


# --- three players: per-loser factors (A18) and dokbak (A22) ------------------------------


def test_three_players_each_loser_has_their_own_multipliers() -> None:
    win = ["01G", "03G", "08G", *units_pile(10)]  # 3 brights 3 + junk 1 = 4
    bright_and_junk = ["11G", *units_pile(6, exclude=win)]  # no gwang-bak, 6 > 5: no pi-bak
    bare = units_pile(3, exclude=win + bright_and_junk)  # gwang-bak and pi-bak
    for name in ("gostop3", "gamerules"):
        f3 = facts(0, [win, bright_and_junk, bare])
        p = settle_3(name, f3)
        assert p.score.total == 4
        assert applying(p, 1) == set()
        assert applying(p, 2) == {"gwang_bak", "pi_bak"}
        assert check(p, name, 1) == 4
        assert check(p, name, 2) == 16
        assert [(d.payer, d.points) for d in p.dues] == [(1, 4), (2, 16)]


def settle_3(name: str, f: HandFacts) -> Proof:
    return settle(table_for(PRESETS[name], 3), f)


def test_gostop3_dokbak_the_go_caller_pays_for_every_loser() -> None:
    win = ["01R", "02R", "03R", "04R"]  # hongdan 3
    f = facts(0, [win, ["11G", "12A"], ["08G"]], go=(0, 1, 0))
    p = settle_3("gostop3", f)
    assert [lp.points for lp in p.losers] == [3, 3]
    assert [lp.pays_points for lp in p.losers] == [6, 0]
    assert p.losers[0].note == "seat 1 called Go and lost: pays for every loser (dokbak)"
    assert [(d.payer, d.payee, d.points) for d in p.dues] == [(1, 0, 6)]


def test_gostop3_dokbak_falls_on_the_latest_go() -> None:
    win = ["01R", "02R", "03R", "04R"]
    f = facts(0, [win, ["11G"], ["08G"]], go=(2, 1, 1), go_order=(3, 1, 2))
    p = settle_3("gostop3", f)
    assert [lp.pays_points for lp in p.losers] == [0, 2 * (3 + 2)]


def test_gamerules_three_players_no_dokbak() -> None:
    win = ["01R", "02R", "03R", "04R"]
    p = settle_3("gamerules", facts(0, [win, ["11G"], ["08G"]], go=(0, 1, 0)))
    assert [lp.pays_points for lp in p.losers] == [3, 3]
