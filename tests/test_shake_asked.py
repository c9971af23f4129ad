"""A shake asked once the card is chosen (``shake_asked``, p2p E11): the player who plays a
card of a month they hold three of, the month absent from the layout, answers before the
flip, and a decline is recorded (``shake_declined``). Hand-built deals; the layout holds one
card of each of the months 1, 2, 3, 4, 6, 7, 8 and 10 (5, 9, 11 and 12 are absent)."""

from __future__ import annotations

from pathlib import Path

import pytest
from engine_helpers import Scenario, ruleset

from gostop_records import events as E
from gostop_records import notation, words
from gostop_records.engine import Phase, legal_actions
from gostop_records.errors import IllegalAction
from gostop_records.rules import load_ruleset_file
from gostop_records.sim.selfplay import GameSpec, play_game

LAYOUT = ["01G", "02A", "03R", "04J1", "06A", "07R", "08J1", "10A"]
MAY = ["05A", "05R", "05J1"]
PLAYERS = (E.Player(id="ann", name="Ann"), E.Player(id="ben", name="Ben"))
P2P = Path(__file__).resolve().parents[1] / "samples" / "rulesets" / "p2p.toml"


def _played(asked: bool = True, hand: list[str] = MAY) -> Scenario:
    sc = Scenario(ruleset("matgo", shake_asked=asked), 2)
    sc.deal([[*hand, "12A"], ["09R"]], LAYOUT, ["11G", "11J1", "12G"])
    sc.play(0, "05A")
    return sc


def test_the_flip_waits_for_the_answer() -> None:
    sc = _played()
    h = sc.hand
    assert h.phase is Phase.FLIP and h.turn.shake_due == 5
    assert legal_actions(h) == [
        E.Shaken(seat=0, month=5, cards=["05A", "05R", "05J1"]),
        E.ShakeDeclined(seat=0, month=5),
    ]
    with pytest.raises(IllegalAction) as exc:
        sc.flip(0)
    assert exc.value.rule == "shake_asked" and "shake or decline" in str(exc.value)


def test_a_decline_is_recorded_and_the_turn_goes_on() -> None:
    sc = _played()
    assert sc.input(E.ShakeDeclined(seat=0, month=5)) == []
    assert sc.hand.shakes == [0, 0] and sc.hand.turn.shake_due == 0
    sc.flip(0)
    assert sc.hand.phase is Phase.PLAY and sc.hand.turn_seat == 1


def test_a_shake_after_the_card_shows_it_with_the_rest() -> None:
    sc = _played()
    with pytest.raises(IllegalAction, match="the card played, 05A"):
        sc.shake(0, 5, ["05R", "05J1"])
    with pytest.raises(IllegalAction, match="not month 12"):
        sc.input(E.ShakeDeclined(seat=0, month=12))
    sc.shake(0, 5, ["05A", "05R", "05J1"])
    h = sc.hand
    assert h.shakes == [1, 0] and h.shaken_months[0] == 1 << 5 and h.turn.shake_due == 0
    with pytest.raises(IllegalAction, match="no shake"):
        sc.input(E.ShakeDeclined(seat=0, month=5))  # answered once
    sc.flip(0)
    assert sc.hand.turn_seat == 1


def test_a_shake_before_the_card_is_not_asked_again() -> None:
    sc = Scenario(ruleset("matgo", shake_asked=True), 2)
    sc.deal([[*MAY, "12A"], ["09R"]], LAYOUT, ["11G", "11J1", "12G"])
    sc.shake(0, 5, MAY)
    sc.play(0, "05A")
    assert sc.hand.turn.shake_due == 0
    sc.flip(0)


@pytest.mark.parametrize(
    ("asked", "hand"),
    [(False, MAY), (True, ["05A", "05R", "09J1"]), (True, ["01J1", "01J2", "01R"])],
)
def test_no_question_without_the_setting_or_three_of_an_absent_month(
    asked: bool, hand: list[str]
) -> None:
    sc = Scenario(ruleset("matgo", shake_asked=asked), 2)
    sc.deal([[*hand, "12A"], ["09R"]], LAYOUT, ["11G", "11J1", "12G"])
    sc.play(0, hand[0])
    assert sc.hand.turn.shake_due == 0
    if not asked:
        with pytest.raises(IllegalAction) as exc:
            sc.input(E.ShakeDeclined(seat=0, month=5))
        assert exc.value.rule == "shake_asked" and "asks no shake" in str(exc.value)
    sc.flip(0)


def test_shake_declined_in_words_and_notation() -> None:
    ev = E.ShakeDeclined(seat=0, month=5)
    assert words.describe(ev, PLAYERS) == "Ann declines to shake month 05"
    assert words.describe(ev, PLAYERS, 0) == "you decline to shake month 05"
    assert words.recorded(ev) == "seat 0 declined to shake month 05"
    sc = _played()
    assert notation.text(ev) == "noshake 05"
    assert notation.parse("noshake", sc.game) == [ev]  # the month asked about
    assert notation.parse("noshake 05", sc.game) == [ev]


@pytest.mark.parametrize("bot", ["random", "greedy", "strong"])
def test_simulated_games_answer_the_question(bot: str) -> None:
    """Bots answer from the legal inputs: with the random bot some decline, recorded."""
    rs = load_ruleset_file(P2P)
    assert rs.shake_asked
    shaken = declined = 0
    for seed in range(6):
        log = play_game(GameSpec(rules=rs, seed=seed, hands=2, bots=(bot,)))
        kinds = [type(env.event) for env in log]
        shaken += kinds.count(E.Shaken)
        declined += kinds.count(E.ShakeDeclined)
        assert E.HandEnded in kinds
    assert shaken and (declined or bot != "random")
