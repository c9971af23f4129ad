"""The draw for the first dealer (밤일낮장) as p2p plays it (R4): a bonus card drawn beats
every month (``draw_bonus_wins``), and after a number of tied draws the lot chooses among
the tied seats, named by the record (``draw_ties_by_lot``, ``dealer_drawn.by_lot``)."""

from __future__ import annotations

from typing import Any

import pytest

from gostop_records import events as E
from gostop_records import notation, words
from gostop_records.engine import GameState, apply_game, start_game
from gostop_records.engine import rulebook as RB
from gostop_records.engine.rulebook import seats as SEATS
from gostop_records.errors import IllegalAction
from gostop_records.rules import PRESETS, Ruleset, apply_overrides
from gostop_records.sim.dealer import SplitMix64
from gostop_records.sim.selfplay import _draw_for_dealer

PLAYERS = [E.Player(id="a", name="Ann"), E.Player(id="b", name="Ben")]


def _rules(**fields: Any) -> Ruleset:
    base = {"bonus_cards": ["B2", "B3"], "first_dealer": "draw"}
    return apply_overrides(PRESETS["matgo"], {"name": "draw-test", **base, **fields}, "test")


def _start(rs: Ruleset) -> GameState:
    return start_game("g", E.GameStarted(ruleset=rs.pinned(), players=PLAYERS, stake=1))


def _draw(a: str, b: str, dealer: int | None, *, night: bool = False, lot: bool = False) -> Any:
    draws = [E.DealerDraw(seat=0, card=a), E.DealerDraw(seat=1, card=b)]
    return E.DealerDrawn(draws=draws, night=night, dealer=dealer, by_lot=lot)


def _refused(g: GameState, ev: Any) -> str:
    with pytest.raises(IllegalAction) as exc:
        apply_game(g, ev)
    assert exc.value.rule == "dealer_draw"
    return str(exc.value)


@pytest.mark.parametrize("night", [False, True])
def test_a_bonus_card_beats_every_month_by_night_and_by_day(night: bool) -> None:
    assert SEATS.dealer_by_draw([(0, "12G"), (1, "B2")], night, True) == (1, [])
    assert SEATS.dealer_by_draw([(0, "B3"), (1, "01G")], night, True) == (0, [])
    assert SEATS.dealer_by_draw([(0, "B3"), (1, "B2")], night, True) == (None, [0, 1])
    with pytest.raises(ValueError, match="from the 48 cards"):
        SEATS.dealer_by_draw([(0, "B3"), (1, "01G")], night)


def test_the_game_takes_a_bonus_card_only_where_the_ruleset_says() -> None:
    g, _ = apply_game(_start(_rules(draw_bonus_wins=True)), _draw("12G", "B2", 1))
    assert g.next_dealer == 1
    assert "48 cards" in _refused(_start(_rules()), _draw("12G", "B2", 1))


def test_after_the_last_tie_the_record_names_the_lots_choice() -> None:
    g = _start(_rules(draw_ties_by_lot=2))
    g, _ = apply_game(g, _draw("03G", "03R", None))
    assert g.draw_tied == (0, 1) and g.draw_ties == 1
    assert "chosen by lot" in _refused(g, _draw("04A", "04R", None))
    assert "not 2" in _refused(g, _draw("04A", "04R", 2, lot=True))
    assert "cards decide" in _refused(g, _draw("04A", "05R", 1, lot=True))
    g2, _ = apply_game(g, _draw("04A", "04R", 0, lot=True))
    assert g2.next_dealer == 0 and g2.draw_tied == () and g2.draw_ties == 0
    # a draw that decides before the limit is no lot
    g3, _ = apply_game(g, _draw("04A", "05R", 1))
    assert g3.next_dealer == 1


def test_without_a_limit_ties_draw_again() -> None:
    g = _start(_rules())
    for _ in range(4):
        g, _ = apply_game(g, _draw("03G", "03R", None))
    assert g.draw_ties == 4 and g.next_dealer is None
    assert "does not end by lot" in _refused(g, _draw("03G", "03R", 0, lot=True))


def test_the_draw_in_notation_and_words() -> None:
    g = _start(_rules(draw_ties_by_lot=1, draw_bonus_wins=True))
    ev = _draw("B2", "B3", 1, lot=True)
    assert notation.text(ev) == "draw day 0 B2 1 B3 lot 1"
    assert notation.parse("draw day 0 B2 1 B3 lot 1", g) == [ev]
    with pytest.raises(notation.NotationError, match="add lot SEAT"):
        notation.parse("draw day 0 B2 1 B3", g)
    with pytest.raises(notation.NotationError, match="last tie only"):
        notation.parse("draw day 0 B2 1 03G lot 1", g)
    assert words.describe(ev, PLAYERS).endswith("a tie; by lot, Ben deals")
    assert words.recorded(ev).endswith("(a tie: by lot, seat 1 deals)")
    rs = _rules(draw_ties_by_lot=3, draw_bonus_wins=True)
    assert (
        RB.words("draw_ties_by_lot", 3, rs) == "after 3 tied draws the lot chooses the first dealer"
    )
    assert RB.words("draw_bonus_wins", True, rs) == (
        "a bonus card drawn for the first deal beats every month"
    )


def test_a_simulated_table_ends_its_ties_by_lot() -> None:
    g = _start(_rules(draw_ties_by_lot=1))
    for seed in range(40):
        evs = list(_draw_for_dealer(g, SplitMix64(seed)))
        gg = g
        for ev in evs:
            gg, _ = apply_game(gg, ev)
        assert gg.next_dealer is not None
        assert len(evs) == 1  # a tie is the last draw: decided by lot
