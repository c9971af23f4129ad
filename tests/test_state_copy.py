"""HandState.copy is hand-written for speed: it must carry every slot and share no list."""

import pytest
from engine_helpers import mid_hand

from gostop_records.engine.state import HandState, Turn

# reads the class's __slots__, which a compiled class does not have
pytestmark = pytest.mark.pure_python


def test_copy_carries_every_slot() -> None:
    s = mid_hand()
    c = s.copy()
    for name in HandState.__slots__:
        a, b = getattr(s, name), getattr(c, name)
        if name == "turn":
            for t in Turn.__slots__:
                assert getattr(a, t) == getattr(b, t), t
        else:
            assert a == b, name


def test_copy_shares_no_mutable_list() -> None:
    s = mid_hand()
    c = s.copy()
    for name in HandState.__slots__:
        v = getattr(s, name)
        if type(v) is list and name not in ("stock", "order"):
            assert v is not getattr(c, name), name
    assert s.turn is not c.turn and s.turn.steals is not c.turn.steals
