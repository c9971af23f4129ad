"""A seat's view is keyed by every attribute of the engine's hand state, read from the state
itself: a fact the engine adds is part of the information set without a list to update."""

from __future__ import annotations

from typing import Any

from engine_helpers import mid_hand

from gostop_records.engine import legal_actions
from gostop_records.engine.state import HandState, Phase, Turn
from gostop_records.sim.view import SeatView, seat_of, seat_view


def _other(value: Any) -> Any:
    """A different value of the same type."""
    if isinstance(value, bool):
        return not value
    if isinstance(value, Phase):
        return next(p for p in Phase if p is not value)
    if isinstance(value, int):
        return value + 1
    if isinstance(value, str):
        return value + "x"
    if isinstance(value, list):
        return [*value, value[0] if value else 1]
    if isinstance(value, Turn):
        return None
    return None


def _set_other(state: HandState, name: str) -> None:
    """Gives ``name`` another value its declared type allows: the compiled engine checks
    the type of what is set, and an attribute that is None may hold a list or a text."""
    value = getattr(state, name)
    if value is not None:
        setattr(state, name, _other(value))
        return
    for candidate in ([1], "x", 1):
        try:
            setattr(state, name, candidate)
            return
        except TypeError:
            continue
    raise AssertionError(f"no other value found for {name}")


def test_every_attribute_of_the_state_is_a_fact_of_the_view() -> None:
    h = mid_hand()
    view = seat_view(h, seat_of(h), legal_actions(h))
    facts = dict(view.key()[3])
    assert {"hands", "hand_unknown", "piles", "go_count", "shaken_months", "turn"} <= set(facts)
    assert facts["table"] == h.table.rules.name
    assert facts["stock"] is None  # the view holds the stock as a count
    for name in facts:
        if name in ("table", "players"):  # the ruleset's name; a count the table fixes
            continue
        changed = view.state.copy()
        _set_other(changed, name)
        other = SeatView(view.seat, changed, view.actions, view.flip)
        assert other.key() != view.key(), name


def test_the_turn_in_progress_is_keyed_by_its_own_attributes() -> None:
    h = mid_hand()
    assert h.turn is not None  # between the play and the flip
    view = seat_view(h, seat_of(h), legal_actions(h))
    changed = view.state.copy()
    assert changed.turn is not None
    changed.turn.took = not changed.turn.took
    assert SeatView(view.seat, changed, view.actions, view.flip).key() != view.key()
