"""Go and Stop through the engine: when a player is asked (the target, the re-Go threshold,
after a steal), the automatic last-turn Stop, the payment each Stop makes due (Go points,
shakes, every bak, go-bak, dokbak, per-loser factors with three players), nagari and its
carry into the next hand.

Scores are set up with :meth:`Scenario.preload` (junk already captured), so that one capture
moves a player across a threshold: 15 junk units are 6 points, each more unit is a point.
The two-player layout holds one card of each of the months 1, 2, 3, 4, 6, 7, 8 and 10.
"""

from __future__ import annotations

import pytest
from engine_helpers import Scenario, captures, dues, ended, of_type, small_deal, transfers

from gostop_records import events as E
from gostop_records.engine import Phase, Proof, legal_actions
from gostop_records.errors import IllegalAction

TWO_P = ["cardavia", "gamerules", "matgo"]
LAYOUT = ["01G", "02A", "03R", "04A", "06A", "07R", "08G", "10A"]
LAYOUT_3P = ["01G", "02A", "03R", "04A", "06A", "07R"]
SMALL_LAYOUT = ["01G", "02A", "03R", "04A"]


def deciding(sc: Scenario, seat: int) -> bool:
    h = sc.hand
    return h.phase is Phase.DECIDE and h.decider == seat


def stop_proof(sc: Scenario) -> Proof:
    proof = sc.game.results[-1].proof()
    assert proof is not None
    return proof


# --- prompting (G26, C1.2, C1.3, C6.1, A13-A15; [P2P] gostop.json) -----------------------


@pytest.mark.parametrize("preset", TWO_P)
def test_prompt_at_7_not_at_6_then_only_above_the_score_at_the_go(preset: str) -> None:
    sc = Scenario(preset)
    sc.deal(
        [["12A", "01J1", "06R", "02J1"], ["05A", "05R", "09J1"]],
        LAYOUT,
        ["11G", "09R", "12R", "07J1", "10R", "11J1", "03G"],
    )
    sc.preload_units(0, 15)
    assert sc.score(0) == 6
    sc.turn(0, "12A")  # nothing taken: still 6
    assert sc.hand.phase is Phase.PLAY and sc.hand.turn_seat == 1
    sc.turn(1, "05A")
    sc.turn(0, "01J1")  # one junk unit more: 7
    assert sc.score(0) == 7 and deciding(sc, 0)
    assert legal_actions(sc.hand) == [
        E.GoCalled(seat=0, count=1, score=7),
        E.StopCalled(seat=0, score=7),
    ]
    sc.go(0)
    assert sc.hand.go_score[0] == 7 and sc.hand.turn_seat == 1
    sc.turn(1, "05R")
    sc.turn(0, "06R")  # a ribbon and an animal: still 7, no new decision
    assert sc.score(0) == 7 and sc.hand.phase is Phase.PLAY and sc.hand.turn_seat == 1
    sc.turn(1, "09J1")
    sc.turn(0, "02J1")  # 8 > 7: asked again
    assert sc.score(0) == 8 and deciding(sc, 0)
    out = sc.stop(0)
    # (8 + 1 Go) x 2: seat 1 holds 3 junk units (pi-bak under every 2-player preset)
    assert dues(out) == [(1, 0, 18, 18, "stop")]
    proof = stop_proof(sc)
    assert proof.go_points == 9
    assert ended(out) == E.HandEnded(outcome="stop", winner=0, reason="stop")


@pytest.mark.parametrize("preset", TWO_P)
def test_go_at_8_junk_stolen_then_recovered_needs_9(preset: str) -> None:
    """[P2P G2]: Go at 8, a steal drops it to 7, a capture brings it back to 8: no prompt;
    the threshold is the combination score at the Go, plus one (A14)."""
    sc = Scenario(preset)
    sc.deal(
        [["01J1", "02J1", "03J1"], ["05A", "12A"]], LAYOUT, ["11G", "05J1", "09R", "07J1", "10R"]
    )
    sc.preload_units(0, 16)
    sc.turn(0, "01J1")
    assert sc.score(0) == 8 and deciding(sc, 0)
    sc.go(0)
    out = sc.turn(1, "05A")  # jjok: one junk from seat 0
    assert transfers(out) == [(0, 1, "01J1", "jjok")]
    assert sc.score(0) == 7
    sc.turn(0, "02J1")
    assert sc.score(0) == 8 and sc.hand.phase is Phase.PLAY and sc.hand.turn_seat == 1
    sc.turn(1, "12A")
    sc.turn(0, "03J1")
    assert sc.score(0) == 9 and deciding(sc, 0)
    assert legal_actions(sc.hand)[0] == E.GoCalled(seat=0, count=2, score=9)


@pytest.mark.parametrize("preset", ["gostop3", "gamerules"])
def test_three_players_prompt_at_3(preset: str) -> None:
    """The 3-player target is 3 (G25): 2 points, no prompt; 3, prompt; after a Go at 3,
    4 is asked again. The payout differs per loser (A18): seat 2 holds no junk, which
    gostop3 exempts from pi-bak and the general page does not."""
    sc = Scenario(preset, 3)
    sc.deal(
        [["12A", "01J1", "02J1"], ["05A", "05R"], ["08A", "08G"]],
        LAYOUT_3P,
        ["11G", "09R", "10R", "12R", "09J1", "10A", "03G"],
    )
    sc.preload_units(0, 11)
    sc.turn(0, "12A")
    assert sc.score(0) == 2 and sc.hand.turn_seat == 1
    sc.turn(1, "05A")
    sc.turn(2, "08A")
    sc.turn(0, "01J1")
    assert sc.score(0) == 3 and deciding(sc, 0)
    sc.go(0)
    sc.turn(1, "05R")
    sc.turn(2, "08G")
    sc.turn(0, "02J1")
    assert sc.score(0) == 4 and deciding(sc, 0)
    out = sc.stop(0)
    seat2 = 10 if preset == "gamerules" else 5
    assert dues(out) == [(1, 0, 10, 10, "stop"), (2, 0, seat2, seat2, "stop")]
    proof = stop_proof(sc)
    pb = [next(f for f in lp.factors if f.rule == "pi_bak") for lp in proof.losers]
    assert pb[0].applies
    assert pb[1].applies == (preset == "gamerules")


def test_go_and_stop_are_refused_when_not_asked_or_with_wrong_facts() -> None:
    sc = Scenario("matgo")
    sc.deal([["12A", "01J1"], ["05A"]], LAYOUT, ["11G", "09R", "12R"])
    sc.preload_units(0, 15)
    with pytest.raises(IllegalAction) as exc:
        sc.input(E.GoCalled(seat=0, count=1, score=6))
    assert exc.value.rule == "turn_order"
    sc.turn(0, "12A")
    sc.turn(1, "05A")
    sc.turn(0, "01J1")
    with pytest.raises(IllegalAction) as exc:
        sc.input(E.GoCalled(seat=0, count=1, score=8))
    assert exc.value.rule == "go_facts"
    with pytest.raises(IllegalAction) as exc:
        sc.input(E.StopCalled(seat=0, score=6))
    assert exc.value.rule == "stop_facts"
    with pytest.raises(IllegalAction) as exc:
        sc.input(E.StopCalled(seat=0, score=7, auto=True))
    assert exc.value.rule == "auto_stop"
    with pytest.raises(IllegalAction) as exc:
        sc.input(E.StopCalled(seat=1, score=0))
    assert exc.value.rule == "turn_order"


# --- the automatic last-turn Stop (C6.5, A13, A29) ----------------------------------------


@pytest.mark.parametrize("preset", TWO_P)
def test_reaching_the_target_on_the_last_card_is_an_automatic_stop(preset: str) -> None:
    sc = Scenario(small_deal(preset, hand=2, layout=4))
    sc.deal([["12A", "01J1"], ["05A"]], SMALL_LAYOUT, ["11G", "10R", "12R"])
    sc.preload_units(0, 15)
    sc.preload_units(1, 8)
    sc.turn(0, "12A")
    sc.turn(1, "05A")
    out = sc.turn(0, "01J1")
    assert out[-3:] == [
        E.StopCalled(seat=0, score=7, auto=True),
        E.HandEnded(outcome="stop", winner=0, reason="auto_stop"),
        E.PaymentDue(payer=1, payee=0, points=7, chips=7, reason="stop"),
    ]
    assert sc.hand.phase is Phase.ENDED


# --- go-bak (A22) and dokbak ---------------------------------------------------------------


@pytest.mark.parametrize(("preset", "points"), [("matgo", 14), ("cardavia", 7), ("gamerules", 7)])
@pytest.mark.parametrize("last_card", [False, True])
def test_go_bak_when_the_go_caller_loses(preset: str, points: int, last_card: bool) -> None:
    """matgo: the loser had called Go -> x2, also when the winner's Stop is the automatic
    one of the last card [P2P G4]; the seed rulesets have no go-bak.

    Seat 0: three brights (3) + 12 junk units (3); seat 1: godori (5) + 10 units (1) and a
    bright (no gwang-bak); each is one junk card short of 7."""
    sc = Scenario(small_deal(preset, hand=2 if last_card else 3, layout=4))
    sc.deal(
        [["12A", "07J1"], ["02J1"]],
        ["01G", "02R", "06A", "07R"],
        ["09R", "10R", "12R"],
        reserve=["03G", "08G", "11G", "02A", "04A", "08A", "12G"],
    )
    sc.preload(0, ["03G", "08G", "11G"])
    sc.preload_units(0, 12)
    sc.preload(1, ["02A", "04A", "08A", "12G"])
    sc.preload_units(1, 10)
    assert (sc.score(0), sc.score(1)) == (6, 6)
    sc.turn(0, "12A")
    sc.turn(1, "02J1")
    assert deciding(sc, 1)
    sc.go(1)
    out = sc.turn(0, "07J1")
    if last_card:
        assert of_type(out, E.StopCalled) == [E.StopCalled(seat=0, score=7, auto=True)]
    else:
        assert deciding(sc, 0)
        out = sc.stop(0)
    assert dues(out) == [(1, 0, points, points, "stop")]
    gb = [f for f in stop_proof(sc).losers[0].factors if f.rule == "go_bak"]
    assert [f.applies for f in gb] == ([True] if preset == "matgo" else [])


def test_gostop3_dokbak_the_go_caller_pays_for_both_losers() -> None:
    sc = Scenario(small_deal("gostop3", hand=2, layout=6, players=3), 3)
    sc.deal([["12A"], ["02J1"], ["01J1"]], LAYOUT_3P, ["11G", "09R", "12R"])
    sc.preload_units(1, 11)
    sc.preload_units(2, 11)
    sc.turn(0, "12A")
    sc.turn(1, "02J1")
    sc.go(1)
    sc.turn(2, "01J1")
    assert deciding(sc, 2)
    out = sc.stop(2)
    assert dues(out) == [(1, 2, 6, 6, "stop")]
    proof = stop_proof(sc)
    assert [(lp.loser, lp.points, lp.pays_points) for lp in proof.losers] == [(0, 3, 0), (1, 3, 6)]
    assert "dokbak" in proof.losers[1].note
    # seat 0 holds no junk: exempt from pi-bak in gostop3, so its own share is the base 3
    assert sc.game.ledger() == [0, -6, 6]


def test_gostop3_each_loser_has_their_own_baks() -> None:
    """A18: gwang-bak and pi-bak are judged per loser."""
    sc = Scenario("gostop3", 3)
    sc.deal([["05A"], [], []], LAYOUT_3P, ["09R"], reserve=["03G", "08G", "11G", "12G"])
    sc.preload(0, ["03G", "08G", "11G"])
    sc.preload_units(0, 10)
    sc.preload(1, ["12G"])
    sc.preload_units(1, 6)
    sc.preload_units(2, 2)
    sc.turn(0, "05A")
    assert sc.score(0) == 4 and deciding(sc, 0)
    out = sc.stop(0)
    assert dues(out) == [(1, 0, 4, 4, "stop"), (2, 0, 16, 16, "stop")]
    proof = stop_proof(sc)
    conds = {
        lp.loser: {f.rule: f.condition for f in lp.factors if f.applies} for lp in proof.losers
    }
    assert conds == {
        1: {},
        2: {
            "gwang_bak": "winner scores brights (3), loser holds 0 bright(s)",
            "pi_bak": "winner scores junk (10 units), loser holds 2 unit(s) <= 5",
        },
    }


# --- shakes through the engine (G33) ------------------------------------------------------


@pytest.mark.parametrize("preset", ["matgo", "gamerules"])
def test_a_shake_doubles_the_stop_payment(preset: str) -> None:
    """Seat 0 (godori 5 + 10 junk units) shakes month 5 and makes a jjok: 9 points, x2."""
    sc = Scenario(small_deal(preset, hand=3, layout=4))
    sc.deal(
        [["05A", "05R", "05J1"], []],
        ["01G", "03R", "06A", "07R"],
        ["05J2"],
        reserve=["02A", "04A", "08A"],
    )
    sc.preload(0, ["02A", "04A", "08A"])
    sc.preload_units(0, 10)
    sc.preload_units(1, 9)
    sc.shake(0, 5, ["05A", "05R", "05J1"])
    out = sc.turn(0, "05J1")
    assert captures(out) == [("jjok", ["05J1", "05J2"])]
    assert len(transfers(out)) == 1
    assert sc.score(0) == 9 and deciding(sc, 0)
    out = sc.stop(0)
    assert dues(out) == [(1, 0, 18, 18, "stop")]


# --- nagari and its carry (G32, G37, C1.5, A23, A29) --------------------------------------


def _nagari_hand(sc: Scenario) -> E.HandEnded:
    sc.deal([["05A"], ["12A"]], ["01G", "02A"], ["09R", "11G"])
    sc.turn(0, "05A")
    end = ended(sc.turn(1, "12A"))
    assert end is not None
    return end


def test_matgo_nagari_carry_doubles_up_to_the_cap_and_the_dealer_stays() -> None:
    sc = Scenario(small_deal("matgo", hand=1, layout=2))
    carries = []
    for _ in range(4):
        end = _nagari_hand(sc)
        assert end.outcome == "nagari" and end.reason == "cards_exhausted"
        assert end.winner is None
        carries.append((end.carry, end.next_carry))
        assert sc.game.next_dealer == 0
    assert carries == [(1, 2), (2, 4), (4, 8), (8, 8)]  # capped at 8 (Pmang)
    sc.deal([["01J1"], ["12A"]], ["01G", "02A"], ["09R"])
    assert sc.hand.carry == 8
    sc.preload_units(0, 15)
    out = sc.turn(0, "01J1")  # the first card is also the last: automatic Stop at 7
    end = ended(out)
    assert end == E.HandEnded(outcome="stop", winner=0, reason="auto_stop", carry=8)
    assert dues(out) == [(1, 0, 56, 56, "stop")]
    assert sc.game.carry == 1


def test_gamerules_nagari_carry_is_cumulative_without_a_cap() -> None:
    sc = Scenario(small_deal("gamerules", hand=1, layout=2))
    assert [_nagari_hand(sc).next_carry for _ in range(4)] == [2, 4, 8, 16]


def test_cardavia_exhaustion_is_a_draw_without_carry() -> None:
    """C0.5, C1.5: a single hand; running out of cards is a draw."""
    sc = Scenario(small_deal("cardavia", hand=1, layout=2))
    end = _nagari_hand(sc)
    assert (end.outcome, end.next_carry) == ("nagari", 1)
    assert sc.game.finished


def test_a_go_caller_who_never_raised_the_score_gets_nagari() -> None:
    sc = Scenario(small_deal("matgo", hand=2, layout=4))
    sc.deal([["01J1", "12A"], ["05A", "09R"]], SMALL_LAYOUT, ["11G", "10R", "08G", "07R"])
    sc.preload_units(0, 15)
    sc.turn(0, "01J1")
    sc.go(0)
    sc.turn(1, "05A")
    sc.turn(0, "12A")  # the last card adds nothing: no decision, no automatic Stop
    assert sc.hand.phase is Phase.PLAY
    out = sc.turn(1, "09R")
    assert ended(out) == E.HandEnded(
        outcome="nagari", winner=None, reason="cards_exhausted", next_carry=2
    )
    assert dues(out) == []
