"""A four of a month in hand kept as its holder's own recorded decision (``four_kept``,
들고치기 under ``hand_four_keep``): p2p asks the holder before anyone plays, so a non-dealer
keeps before the dealer's first play. A play while the four waits keeps it as before."""

from __future__ import annotations

import pytest
from engine_helpers import Scenario, ruleset

from gostop_records import events as E
from gostop_records import notation, words
from gostop_records.engine import Phase, legal_actions
from gostop_records.errors import IllegalAction

LAYOUT = ["01G", "02A", "03R", "04J1", "06A", "07R", "08J1", "10A"]
FOUR_05 = ["05A", "05R", "05J1", "05J2"]
PLAYERS = (E.Player(id="ann", name="Ann"), E.Player(id="ben", name="Ben"))


def _dealt(keep: bool = True) -> Scenario:
    sc = Scenario(ruleset("matgo", hand_four_keep=keep), 2)
    sc.deal([["01J1"], FOUR_05], LAYOUT, ["11G", "12A"])
    return sc


def test_a_non_dealer_keeps_its_four_before_the_dealer_plays() -> None:
    sc = _dealt()
    assert E.FourKept(seat=1) in legal_actions(sc.hand)
    assert E.FourKept(seat=0) not in legal_actions(sc.hand)
    assert sc.input(E.FourKept(seat=1)) == []
    h = sc.hand
    assert h.kept_fours == [0, 1] and h.fours_pending == 0
    assert h.phase is Phase.PLAY and h.turn_seat == 0
    assert not [a for a in legal_actions(h) if type(a) in (E.FourKept, E.FourOfAMonthShown)]
    sc.turn(0, "01J1")  # the dealer plays on; the kept four is counted once
    assert sc.hand.kept_fours == [0, 1]


def test_a_kept_four_is_not_shown_afterwards() -> None:
    sc = _dealt()
    sc.input(E.FourKept(seat=1))
    with pytest.raises(IllegalAction) as exc:
        sc.fours((1, 5))
    assert exc.value.rule == "hand_four_keep" and "kept its four" in str(exc.value)


def test_keeping_is_refused_where_the_ruleset_shows_every_four() -> None:
    sc = _dealt(keep=False)
    with pytest.raises(IllegalAction) as exc:
        sc.input(E.FourKept(seat=1))
    assert exc.value.rule == "hand_four_keep" and "shown to win" in str(exc.value)


def test_keeping_is_refused_without_a_four_waiting() -> None:
    sc = _dealt()
    with pytest.raises(IllegalAction, match="seat 0 has no four waiting"):
        sc.input(E.FourKept(seat=0))
    with pytest.raises(IllegalAction, match="no seat 2"):
        sc.input(E.FourKept(seat=2))
    sc.input(E.FourKept(seat=1))
    with pytest.raises(IllegalAction, match="seat 1 has no four waiting"):
        sc.input(E.FourKept(seat=1))


def test_a_play_still_keeps_a_waiting_four() -> None:
    sc = _dealt()
    sc.turn(0, "01J1")
    assert sc.hand.kept_fours == [0, 1] and sc.hand.fours_pending == 0


def test_four_kept_in_words_and_notation() -> None:
    ev = E.FourKept(seat=1)
    assert (
        words.describe(ev, PLAYERS) == "Ben keeps a four of a month in hand and plays on (들고치기)"
    )
    assert words.describe(ev, PLAYERS, 1) == (
        "you keep your four of a month in hand and play on (들고치기)"
    )
    assert "four" not in words.describe(ev, PLAYERS, 0)  # the other seat is not told of a four
    assert words.recorded(ev) == "seat 1 kept a four of a month in hand and played on"
    sc = _dealt()
    assert notation.text(ev) == "keep 1"
    assert notation.parse("keep 1", sc.game) == [ev]
    assert notation.parse("keep", sc.game) == [ev]  # the one seat with a four waiting
    with pytest.raises(notation.NotationError, match="keep takes the seat"):
        notation.parse("keep Ann Ben", sc.game)


def test_keep_alone_names_the_one_seat_with_a_four_waiting() -> None:
    sc = _dealt()
    # the recorder speaks for the seat to act (the dealer); the four is the other seat's
    assert notation.parse("keep", sc.game, seat=0) == [E.FourKept(seat=1)]
