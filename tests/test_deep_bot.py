"""The ``deep`` bot (the ``master`` level): ``strong``'s search move for move, then a second
look that may overrule it only with a clear gain."""

from __future__ import annotations

from typing import Any

from test_strong_bot import _dealt, _hand_at_decision, _replay

from gostop_records import events as E
from gostop_records.engine import Phase, apply, legal_actions, table_for
from gostop_records.rules import PRESETS
from gostop_records.sim.dealer import SplitMix64
from gostop_records.sim.deep import DeepBot
from gostop_records.sim.roster import LEVELS, make_bot
from gostop_records.sim.strong import Search, StrongBot
from gostop_records.sim.view import seat_of, seat_view

SMALL = {"rollouts": 8, "deep_rollouts": 24, "call_worlds": 12}


def test_deep_is_strong_wherever_its_second_look_agrees() -> None:
    """Along whole hands, each decision the second look leaves alone is strong's (same seed),
    and the two generators stay in step: a match against strong differs only where the
    second look overruled."""
    changed = kept = 0
    for preset, seed in (("matgo", 3), ("cardavia", 4)):
        table = table_for(PRESETS[preset], 2)
        s = _replay(table, _dealt(table, seed, 0), 0, [])
        deep = DeepBot(SplitMix64(seed), **SMALL)
        strong = StrongBot(SplitMix64(seed), rollouts=SMALL["rollouts"])
        while s.phase is not Phase.ENDED:
            acts = legal_actions(s)
            mine = strong.choose(s, acts)
            a = deep.choose(s, acts)
            assert deep.strong.rng.state == strong.rng.state
            if deep.last_changed:
                changed += 1
                assert a != mine and a in acts
            else:
                kept += 1
                assert a == mine
            s, _ = apply(s, a)
    assert kept > 10 and changed > 0


def test_the_second_look_is_deterministic() -> None:
    h = _hand_at_decision()
    view = seat_view(h, seat_of(h), legal_actions(h))
    picks = {repr(DeepBot(SplitMix64(9), **SMALL).decide(view)) for _ in range(2)}
    assert len(picks) == 1


def test_deep_stops_when_go_can_only_lose() -> None:
    """The position of strong's own test: after a Go seat 0 never plays again."""
    pos = _hand_at_decision().copy()
    assert pos.stock is not None
    pos.stock = list(pos.stock) + [i for i in range(48) if pos.hands[0] >> i & 1]
    pos.hands[0] = 0
    view = seat_view(pos, 0, legal_actions(pos))
    bot = DeepBot(SplitMix64(1), **SMALL)
    assert type(bot.decide(view)) is E.StopCalled
    second = bot.second_look(view, list(view.actions), 0)
    assert second.worlds == SMALL["call_worlds"]  # a call between two inputs: its own count


def test_a_gain_must_clear_the_confidence_asked() -> None:
    """Candidate 1 gains 1 chip a world on average, at a spread that puts it about 1.4
    standard errors above zero: clear at strong's confidence, not at the second look's."""
    base = [0] * 8
    gain = [3, -1, 3, -1, 3, -1, 1, 1]  # mean 1, sd about 1.85, se about 0.65
    found: Search = Search(["a", "b"], 0, [base, gain])
    assert found.choice() == "b"
    assert found.choice(2.0) == "a"


def test_master_is_the_top_level() -> None:
    assert list(LEVELS)[-1] == "master"
    bot: Any = make_bot("master", SplitMix64(1))
    assert type(bot) is DeepBot and bot.strong.rollouts == StrongBot(SplitMix64(1)).rollouts
