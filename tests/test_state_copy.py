"""HandState.copy is hand-written for speed: it must carry every slot and share no list."""

import pytest

from gostop_records.engine.game import apply_game, start_game
from gostop_records.engine.state import HandState, Turn
from gostop_records.rules import PRESETS
from gostop_records.sim.selfplay import GameSpec, play_payloads

# reads the class's __slots__, which a compiled class does not have
pytestmark = pytest.mark.pure_python


def _mid_hand_state() -> HandState:
    payloads = list(play_payloads(GameSpec(PRESETS["matgo"], 2, 1, seed=7)))
    g = start_game("g", payloads[0][1])
    from gostop_records import events as E

    for _hand, ev in payloads[1:12]:
        if E.is_input(ev):
            g, _ = apply_game(g, ev)
    assert g.hand is not None and g.hand.turn is not None
    return g.hand


def test_copy_carries_every_slot() -> None:
    s = _mid_hand_state()
    c = s.copy()
    for name in HandState.__slots__:
        a, b = getattr(s, name), getattr(c, name)
        if name == "turn":
            for t in Turn.__slots__:
                assert getattr(a, t) == getattr(b, t), t
        else:
            assert a == b, name


def test_copy_shares_no_mutable_list() -> None:
    s = _mid_hand_state()
    c = s.copy()
    for name in HandState.__slots__:
        v = getattr(s, name)
        if type(v) is list and name not in ("stock", "order"):
            assert v is not getattr(c, name), name
    assert s.turn is not c.turn and s.turn.steals is not c.turn.steals
