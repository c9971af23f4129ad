"""The strong bot: it reads only its seat's view, its inputs are legal, it is deterministic,
and its search values positions as the rules pay them.

The searches here are tiny (a few rollouts a decision) to keep the suite fast; the bot's
strength is measured in ``python -m bench --bots``, not here.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from gostop_records import cards as C
from gostop_records import events as E
from gostop_records import log as L
from gostop_records.engine import HandState, Phase, apply, legal_actions, new_hand, table_for
from gostop_records.engine.table import Table
from gostop_records.projector import project
from gostop_records.rules import PRESETS
from gostop_records.sim.bots import GreedyBot, RandomBot
from gostop_records.sim.dealer import SplitMix64, deal, shuffled_deck
from gostop_records.sim.roster import make_bot
from gostop_records.sim.selfplay import GameSpec, play_game
from gostop_records.sim.strong import StrongBot, candidates
from gostop_records.sim.view import determinize, seat_of, seat_view

COMBOS = [("cardavia", 2), ("matgo", 2), ("gamerules", 2), ("gamerules", 3), ("gostop3", 3)]
CODES = tuple(c.code for c in C.ALL_CARDS)
TINY = 4  # rollouts a decision in these tests
FAST = settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _dealt(table: Table, seed: int, dealer: int) -> E.CardsDealt:
    d = deal(table, shuffled_deck(table, SplitMix64(f"strong-test/{seed}")), dealer)
    return E.CardsDealt(
        hands=[[CODES[i] for i in h] for h in d.hands],
        layout=[CODES[i] for i in d.layout],
        stock=[CODES[i] for i in d.stock],
        bonus_to_pile=[CODES[i] for i in d.bonus_to_pile],
    )


def _replay(table: Table, dealt: E.CardsDealt, dealer: int, inputs: list[Any]) -> HandState:
    n = table.players
    s = new_hand(table, 1, dealer, [(dealer + k) % n for k in range(n)])
    s, _ = apply(s, dealt)
    for a in inputs:
        s, _ = apply(s, a)
    return s


def _prefix(table: Table, dealt: E.CardsDealt, dealer: int, steps: int, seed: int):
    """Inputs of a seeded greedy game from the deal to the first decision with a choice
    after ``steps`` inputs (None if the hand ends first)."""
    s = _replay(table, dealt, dealer, [])
    bots = [GreedyBot(SplitMix64(seed + p)) for p in range(table.players)]
    inputs: list[Any] = []
    while s.phase is not Phase.ENDED:
        acts = legal_actions(s)
        if len(inputs) >= steps and len(acts) > 1:
            return s, inputs
        a = bots[seat_of(s)].choose(s, acts)
        s, _ = apply(s, a)
        inputs.append(a)
    return None


def _other_deal(
    dealt: E.CardsDealt, hidden: int, rng: SplitMix64
) -> tuple[E.CardsDealt, bool] | None:
    """The deal with the ``hidden`` cards shuffled among their own places (other hands and
    the stock); whether the shuffle moved any. None when it gives a hand a four of a month
    (a four in hand is shown at the deal: that deal is not one the seat could face)."""
    places: list[tuple[int, int]] = []  # (hand or -1 for the stock, position)
    for h, hand in enumerate(dealt.hands):
        assert hand is not None
        places += [(h, k) for k, code in enumerate(hand) if (1 << C.index(code)) & hidden]
    assert dealt.stock is not None
    places += [(-1, k) for k, code in enumerate(dealt.stock) if (1 << C.index(code)) & hidden]
    cards = [dealt.hands[h][k] if h >= 0 else dealt.stock[k] for h, k in places]  # type: ignore[index]
    moved = cards[:]
    for i in range(len(moved) - 1, 0, -1):
        j = rng.below(i + 1)
        moved[i], moved[j] = moved[j], moved[i]
    hands = [list(h or []) for h in dealt.hands]
    stock = list(dealt.stock)
    for (h, k), code in zip(places, moved, strict=True):
        if h >= 0:
            hands[h][k] = code
        else:
            stock[k] = code
    for hand in hands:
        m = C.mask_of(hand)
        if any(m & C.MONTH_MASKS[mo] == C.MONTH_MASKS[mo] for mo in range(1, 13)):
            return None
    out = E.CardsDealt(
        hands=hands, layout=dealt.layout, stock=stock, bonus_to_pile=dealt.bonus_to_pile
    )
    return out, moved != cards


def _hidden_from(s: HandState, seat: int) -> int:
    """What ``seat`` cannot see, by the table's own rules rather than the bot's view: the
    other hands less the cards a shake showed, and the stock less a card being placed."""
    hidden = 0
    for other in range(s.players):
        if other != seat:
            shown = 0
            for m in range(1, 13):
                if s.shaken_months[other] & (1 << m):
                    shown |= C.MONTH_MASKS[m]
            hidden |= s.hands[other] & ~shown
    assert s.stock is not None
    stock = s.stock[s.stock_pos :]
    if s.phase in (Phase.FLIP, Phase.FLIP_AS_PLAY):
        stock = stock[1:]  # turned over before the seat places it
    for i in stock:
        hidden |= 1 << i
    return hidden


# --- it never cheats -----------------------------------------------------------------------


@FAST
@given(
    combo=st.sampled_from(COMBOS),
    seed=st.integers(0, 10_000),
    steps=st.integers(0, 40),
    shuffle=st.integers(0, 2**32),
    bot_seed=st.integers(0, 2**32),
)
def test_same_information_same_decision_whatever_the_hidden_cards(
    combo: tuple[str, int], seed: int, steps: int, shuffle: int, bot_seed: int
) -> None:
    """Two deals that agree on everything a seat has seen, and differ in the cards it has
    not (the other hands and the stock), give the same view and the same decision."""
    name, n = combo
    table = table_for(PRESETS[name], n)
    dealer = seed % n
    dealt = _dealt(table, seed, dealer)
    found = _prefix(table, dealt, dealer, steps, seed)
    assume(found is not None)
    assert found is not None
    a_state, inputs = found
    seat = seat_of(a_state)
    view_a = seat_view(a_state, seat, legal_actions(a_state))
    hidden = _hidden_from(a_state, seat)
    assume(hidden.bit_count() >= 2)
    other = None
    rng = SplitMix64(shuffle)
    for _ in range(20):
        other = _other_deal(dealt, hidden, rng)
        if other is not None and other[1]:
            break
    assume(other is not None and other[1])
    assert other is not None
    b_state = _replay(table, other[0], dealer, inputs)
    # the hidden cards really differ ...
    assert (
        (b_state.hands, b_state.stock[b_state.stock_pos :])
        != (  # type: ignore[index]
            a_state.hands,
            a_state.stock[a_state.stock_pos :],  # type: ignore[index]
        )
    )
    # ... and the seat's information is the same
    view_b = seat_view(b_state, seat, legal_actions(b_state))
    assert view_a.key() == view_b.key()
    pick_a = StrongBot(SplitMix64(bot_seed), rollouts=TINY).choose(a_state, legal_actions(a_state))
    pick_b = StrongBot(SplitMix64(bot_seed), rollouts=TINY).choose(b_state, legal_actions(b_state))
    assert pick_a == pick_b


@FAST
@given(combo=st.sampled_from(COMBOS), seed=st.integers(0, 10_000), steps=st.integers(0, 40))
def test_a_view_holds_no_hidden_card_and_its_worlds_agree_with_it(
    combo: tuple[str, int], seed: int, steps: int
) -> None:
    name, n = combo
    table = table_for(PRESETS[name], n)
    found = _prefix(table, _dealt(table, seed, seed % n), seed % n, steps, seed)
    assume(found is not None)
    assert found is not None
    state, _ = found
    seat = seat_of(state)
    view = seat_view(state, seat, legal_actions(state))
    v = view.state
    assert v.stock is None and v.stock_count == state.stock_remaining()
    assert v.hands[seat] == state.hands[seat] and v.hand_unknown[seat] == 0
    hidden = state.table.deck & ~v.seen
    for other in range(n):
        if other != seat:
            assert v.hands[other] & ~state.hands[other] == 0  # only shown cards are known
            assert v.hand_count(other) == state.hand_count(other)
            assert state.hands[other] & ~v.hands[other] & ~hidden == 0
    assert v.card_total() == table.deck_size
    rng = SplitMix64(seed)
    for _ in range(3):
        world = determinize(view, rng)
        assert world.card_total() == table.deck_size
        assert world.hands[seat] == state.hands[seat]
        assert seat_view(world, seat, view.actions).key() == view.key()


# --- legal, deterministic -------------------------------------------------------------------


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(combo=st.sampled_from(COMBOS), seed=st.integers(0, 10_000))
def test_every_decision_of_a_hand_is_legal(combo: tuple[str, int], seed: int) -> None:
    name, n = combo
    table = table_for(PRESETS[name], n)
    dealer = seed % n
    s = _replay(table, _dealt(table, seed, dealer), dealer, [])
    me = seed % n
    bots: list[Any] = [
        StrongBot(SplitMix64(seed), rollouts=TINY)
        if p == me
        else (GreedyBot if p % 2 else RandomBot)(SplitMix64(seed + p))
        for p in range(n)
    ]
    while s.phase is not Phase.ENDED:
        acts = legal_actions(s)
        a = bots[seat_of(s)].choose(s, acts)
        assert a in acts
        s, _ = apply(s, a)


def test_strong_decides_every_kind_of_input() -> None:
    """Plays, two-card choices of a play and of a flip, Go and Stop, shakes, bombs,
    flip-only turns and the cup: the search chooses each in a few seeded matgo hands."""
    table = table_for(PRESETS["matgo"], 2)
    chosen: set[str] = set()
    for seed in range(40):
        s = _replay(table, _dealt(table, seed, 0), 0, [])
        bots = [StrongBot(SplitMix64(seed), rollouts=2), GreedyBot(SplitMix64(seed))]
        while s.phase is not Phase.ENDED:
            acts = legal_actions(s)
            a = bots[seat_of(s)].choose(s, acts)
            if seat_of(s) == 0 and len(acts) > 1:
                kind = E.event_type(a)
                if getattr(a, "chosen", None) is not None:
                    kind += " choosing"
                chosen.add(kind)
            s, _ = apply(s, a)
        if len(chosen) >= 9:
            break
    assert chosen >= {
        "card_played",
        "card_played choosing",
        "card_flipped choosing",
        "go_called",
        "stop_called",
        "shaken",
        "bomb_played",
        "cup_assigned",
    }


def test_a_strong_game_is_deterministic_and_validates_strictly() -> None:
    spec = GameSpec(PRESETS["matgo"], 2, hands=1, seed=7, bots=("strong", "greedy"))
    a, b = play_game(spec), play_game(spec)
    assert [L.encode_json(e) for e in a] == [L.encode_json(e) for e in b]
    assert L.verify(a).ok
    p = project(a)
    assert p.ok and not p.issues


def test_make_bot_offers_strong_with_its_default_search() -> None:
    bot = make_bot("strong", SplitMix64(0))
    assert isinstance(bot, StrongBot) and bot.rollouts and bot.budget_ms is None
    timed = StrongBot(SplitMix64(0), budget_ms=20)
    table = table_for(PRESETS["cardavia"], 2)
    s = _replay(table, _dealt(table, 3, 0), 0, [])
    view = seat_view(s, 0, legal_actions(s))
    assert timed.search(view).worlds >= 2
    with pytest.raises(ValueError, match="rollouts"):
        StrongBot(SplitMix64(0), rollouts=0)


# --- what the search finds -----------------------------------------------------------------


def test_search_stops_when_go_can_only_lose() -> None:
    h = _hand_at_decision()
    assert h.phase is Phase.DECIDE and h.decider == 0
    # hand-built: seat 0's remaining cards go to the bottom of the stock, so that after a Go
    # it never plays again (the hand ends in a nagari or in seat 1's Stop)
    pos = h.copy()
    assert pos.stock is not None
    pos.stock = list(pos.stock) + list(C.indices(pos.hands[0]))
    pos.hands[0] = 0
    assert pos.turns_left(0) == 0 and pos.turns_left(1) > 0
    acts = legal_actions(pos)
    view = seat_view(pos, 0, acts)
    bot = StrongBot(SplitMix64(1), rollouts=16)
    found = bot.search(view)
    kinds = [type(a) for a in found.candidates]
    stop, go = kinds.index(E.StopCalled), kinds.index(E.GoCalled)
    pays = pos.score_of(0) * table_for(PRESETS["matgo"], 2).stake
    assert found.values[stop] == [pays] * found.worlds  # a Stop pays the score, every world
    assert max(found.values[go]) <= 0  # a Go never brings anything
    assert type(bot.decide(view)) is E.StopCalled


def _hand_at_decision() -> HandState:
    """A seeded matgo hand played by greedy until seat 0 first decides Go or Stop."""
    table = table_for(PRESETS["matgo"], 2)
    for seed in range(200):
        s = _replay(table, _dealt(table, seed, 0), 0, [])
        bots = [GreedyBot(SplitMix64(seed)), GreedyBot(SplitMix64(seed + 1))]
        while s.phase is not Phase.ENDED:
            deciding = s.phase is Phase.DECIDE and s.decider == 0 and not s.go_count[0]
            if deciding and s.turns_left(0) > 2:
                return s
            acts = legal_actions(s)
            s, _ = apply(s, bots[seat_of(s)].choose(s, acts))
    raise AssertionError("no seeded hand reaches a decision")


def test_equivalent_plays_are_searched_once() -> None:
    table = table_for(PRESETS["matgo"], 2)
    s = _replay(table, _dealt(table, 0, 0), 0, [])
    s.hands[0] = C.mask_of(["09J1", "09J2", "01G"])
    s.layout = C.mask_of(["01J1", "03J1"])
    acts = [E.CardPlayed(seat=0, card=c) for c in ("09J1", "09J2", "01G")]
    assert [a.card for a in candidates(s, acts)] == ["09J1", "01G"]


# --- the commands -------------------------------------------------------------------------


def test_play_against_strong_names_the_bot_and_records_a_valid_game(tmp_path: Path) -> None:
    from test_play import Scripted, check_log, invoke_play, payloads, play_in_process

    reader = Scripted()
    ps, how, _, _ = play_in_process(tmp_path / "lib.jsonl", "cardavia", 3, reader, bot="strong")
    assert how == "over"
    log = tmp_path / "cli.jsonl"
    res = invoke_play("--bot", "strong", "--seed", "3", "--log", str(log), stdin=reader.stdin())
    assert res.exit_code == 0, res.output
    assert "(strong bot)" in res.stdout
    envs = list(L.read_log(log))
    check_log(envs)
    assert payloads(envs) == payloads(ps.envelopes)  # the same seed, the same computer


def test_simulate_takes_the_strong_bot(tmp_path: Path) -> None:
    from gostop_cli.app import app
    from typer.testing import CliRunner

    res = CliRunner().invoke(
        app,
        ["simulate", "-r", "cardavia", "-g", "1", "--bot", "strong", "--out", str(tmp_path)],
    )
    assert res.exit_code == 0, res.output
    assert "bot strong" in res.stdout
    (path,) = tmp_path.glob("*.jsonl")
    assert "strong" in path.name and L.verify(list(L.read_log(path))).ok
