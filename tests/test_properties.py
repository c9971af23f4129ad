"""Properties of random legal play and of the projector under fuzzed logs (hypothesis).

Random play: a seeded choice among ``legal_actions`` (Go favoured over Stop, so that hands
also run to their last cards) for every preset and player count. After every input the deck
is whole (every card in exactly one place), each hand ends, the same seed gives the same
log, and projecting the log gives back the engine's state.

Fuzzing: real logs mutated (events dropped, duplicated, swapped; card codes, seats, numbers
and hand fields changed) and random sequences of valid payloads. Whatever the input, the
projector either folds it or raises :class:`ProjectionError`, never anything else and never
its "engine_error" (an internal defect).

Example counts are kept small: the file runs in seconds.
"""

from __future__ import annotations

import random
from functools import cache
from typing import Any

import msgspec
import msgspec.inspect as mi
from engine_helpers import AT, PRESET_SEATS, disjoint_places
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gostop_records import cards as C
from gostop_records import events as E
from gostop_records import log
from gostop_records.engine import GameState, Phase, apply_game, legal_actions, start_game
from gostop_records.errors import ProjectionError
from gostop_records.projector import project
from gostop_records.rules import PRESETS
from gostop_records.sim.dealer import SplitMix64, deal, shuffled_deck
from gostop_records.sim.selfplay import GameSpec, play_game

CODES = C.CODES
MAX_INPUTS_PER_HAND = 400  # a hand has at most ~60 inputs; this bounds a runaway loop
FAST = settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

Entries = list[tuple[int | None, Any]]


# --- random legal play --------------------------------------------------------------------


def random_game(preset: str, players: int, seed: int, hands: int = 2) -> tuple[GameState, Entries]:
    """Play ``hands`` hands by a seeded uniform choice among the legal inputs, checking card
    conservation after every input. Returns the final state and the log entries."""
    rules = PRESETS[preset]
    rng = random.Random(seed)
    seats = [E.Player(id=f"p{s}", name=f"P{s}") for s in range(players)]
    started = E.GameStarted(ruleset=rules.pinned(), players=seats, stake=10)
    g = start_game("prop", started)
    entries: Entries = [(None, started)]

    def step(ev: Any) -> None:
        nonlocal g
        g, out = apply_game(g, ev)
        # what the rules derive is never an input: the projector relies on it to take a
        # recorded event equal to the next derived one as that consequence
        assert not any(E.is_input(d) for d in out)
        entries.append((g.hand_no or None, ev))
        entries.extend((g.hand_no, d) for d in out)
        h = g.hand
        if h is not None and h.phase is not Phase.DEAL:
            assert h.card_total() == g.table.deck_size
            assert disjoint_places(h)
            assert sum(bin(p).count("1") for p in h.piles) + h.layout.bit_count() <= (
                g.table.deck_size
            )

    dealer = rng.randrange(players)
    for k in range(1, hands + 1):
        deck = shuffled_deck(g.table, SplitMix64(rng.getrandbits(64)))
        step(
            E.HandStarted(
                hand=k,
                dealer=dealer,
                order=[(dealer + i) % players for i in range(players)],
                deck=[CODES[i] for i in deck],
            )
        )
        d = deal(g.table, deck, dealer)
        step(
            E.CardsDealt(
                hands=[[CODES[i] for i in h] for h in d.hands],
                layout=[CODES[i] for i in d.layout],
                stock=[CODES[i] for i in d.stock],
                bonus_to_pile=[CODES[i] for i in d.bonus_to_pile],
            )
        )
        for _ in range(MAX_INPUTS_PER_HAND):
            if not g.in_hand:
                break
            assert g.hand is not None
            actions = legal_actions(g.hand)
            assert actions, f"no legal input in phase {g.hand.phase.name}"
            if type(actions[0]) is E.GoCalled and rng.random() < 0.75:
                step(actions[0])  # Go more often than not, to reach the ends of hands
            else:
                step(rng.choice(actions))
        assert not g.in_hand, "the hand did not end"
        for payer, payee, _pts, chips, _why in g.results[-1].dues:
            if chips:
                step(E.PaymentRecorded(payer=payer, payee=payee, chips=chips))
        if g.finished:
            break
        assert g.next_dealer is not None
        dealer = g.next_dealer
    return g, entries


def to_log(entries: Entries, game_id: str = "prop") -> list[E.Envelope]:
    return log.seal(
        log.envelope(game_id, seq, hand, ev, by="test", at=AT, recorded_at=AT)
        for seq, (hand, ev) in enumerate(entries, 1)
    )


def snapshot(g: GameState) -> Any:
    return (
        g.hand.to_dict() if g.hand is not None else None,
        [(r.hand, r.outcome, r.winner, r.carry, r.next_carry, r.dues) for r in g.results],
        g.ledger(),
        g.recorded_ledger(),
        g.carry,
        g.next_dealer,
        g.finished,
    )


@FAST
@given(case=st.sampled_from(PRESET_SEATS), seed=st.integers(0, 2**32 - 1))
def test_random_legal_play_conserves_cards_ends_and_projects(
    case: tuple[str, int], seed: int
) -> None:
    preset, players = case
    g, entries = random_game(preset, players, seed)
    assert g.results, "at least one hand was played to its end"
    p = project(to_log(entries))
    assert p.ok and p.game is not None
    assert snapshot(p.game) == snapshot(g)


@settings(max_examples=10, deadline=None)
@given(case=st.sampled_from(PRESET_SEATS), seed=st.integers(0, 2**32 - 1))
def test_random_play_is_deterministic_for_a_seed(case: tuple[str, int], seed: int) -> None:
    preset, players = case
    _, a = random_game(preset, players, seed, hands=1)
    _, b = random_game(preset, players, seed, hands=1)
    enc = msgspec.json.encode
    assert [enc(ev) for _, ev in a] == [enc(ev) for _, ev in b]


def test_every_preset_and_player_count_is_played() -> None:
    assert sorted(PRESET_SEATS) == [
        ("cardavia", 2),
        ("gamerules", 2),
        ("gamerules", 3),
        ("gostop3", 3),
        ("matgo", 2),
    ]


# --- fuzzing the projector ----------------------------------------------------------------


def value(t: Any) -> st.SearchStrategy[Any]:
    """Values a decoded log could hold for a payload field type (constraints respected)."""
    if isinstance(t, mi.Metadata):
        return value(t.type)
    if isinstance(t, mi.IntType):
        lo = t.ge if t.ge is not None else -2
        hi = t.le if t.le is not None else 60
        return st.integers(lo, hi)
    if isinstance(t, mi.BoolType):
        return st.booleans()
    if isinstance(t, mi.StrType):
        return st.text(max_size=6)
    if isinstance(t, mi.LiteralType):
        return st.sampled_from(t.values)
    if isinstance(t, mi.NoneType):
        return st.none()
    if isinstance(t, mi.UnionType):
        return st.one_of(*(value(x) for x in t.types))
    if isinstance(t, mi.ListType):
        return st.lists(value(t.item_type), max_size=12)
    if isinstance(t, mi.StructType):
        return st.fixed_dictionaries({f.name: value(f.type) for f in t.fields})
    if isinstance(t, mi.DictType):
        return st.dictionaries(st.text(max_size=4), st.integers(0, 3), max_size=3)
    return st.none()


@cache
def fields_of(cls: type) -> dict[str, Any]:
    info = mi.type_info(cls)
    assert isinstance(info, mi.StructType)
    return {f.name: f.type for f in info.fields}


def payload(cls: type) -> st.SearchStrategy[Any]:
    return st.fixed_dictionaries({k: value(t) for k, t in fields_of(cls).items()}).map(
        lambda d: _convert(cls, d)
    )


def _convert(cls: type, data: dict[str, Any]) -> Any:
    try:
        return msgspec.convert(data, cls)
    except msgspec.ValidationError:
        return None


@cache
def real_logs() -> tuple[tuple[E.Envelope, ...], ...]:
    """One short real log per preset and player count (small, so fuzzing stays quick)."""
    out = []
    for k, (name, n) in enumerate(PRESET_SEATS):
        envs = play_game(GameSpec(PRESETS[name], n, hands=2, seed=100 + k, bots=("random",)))
        out.append(tuple(envs))
    return tuple(out)


def fold_never_crashes(envs: list[E.Envelope]) -> None:
    for strict in (True, False):
        try:
            project(envs, strict=strict)
        except ProjectionError as exc:
            assert exc.rule != "engine_error", str(exc)


def _renumbered(envs: list[E.Envelope]) -> list[E.Envelope]:
    return [msgspec.structs.replace(e, seq=i) for i, e in enumerate(envs, 1)]


@st.composite
def mutated_log(draw: st.DrawFn) -> list[E.Envelope]:
    envs = list(draw(st.sampled_from(real_logs())))
    for _ in range(draw(st.integers(1, 4))):
        n = len(envs)
        i = draw(st.integers(0, n - 1))
        op = draw(st.sampled_from(["drop", "dup", "swap", "field", "field", "hand", "code"]))
        if op == "drop" and n > 1:
            del envs[i]
        elif op == "dup":
            envs.insert(i, envs[i])
        elif op == "swap":
            j = draw(st.integers(0, n - 1))
            envs[i], envs[j] = envs[j], envs[i]
        elif op == "code" and hasattr(envs[i].event, "card"):
            # a payload built in code is not validated: any string may sit where a card goes
            bad = draw(st.sampled_from(["", "13G", "b9", "01g ", "XX"]))
            envs[i] = msgspec.structs.replace(
                envs[i], event=msgspec.structs.replace(envs[i].event, card=bad)
            )
        elif op == "hand":
            envs[i] = msgspec.structs.replace(envs[i], hand=draw(st.none() | st.integers(1, 4)))
        elif op == "field":
            ev = envs[i].event
            if type(ev) is E.UnknownEvent:
                continue
            fields = fields_of(type(ev))
            if not fields:
                continue
            name = draw(st.sampled_from(sorted(fields)))
            data = msgspec.to_builtins(ev)
            data.pop("type", None)
            data[name] = draw(value(fields[name]))
            new = _convert(type(ev), data)
            if new is not None:
                envs[i] = msgspec.structs.replace(envs[i], event=new)
    if draw(st.booleans()):
        envs = _renumbered(envs)
    return envs


@settings(
    max_examples=120,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(envs=mutated_log())
def test_projector_raises_only_projection_errors_on_mutated_logs(envs: list[E.Envelope]) -> None:
    fold_never_crashes(envs)


PAYLOAD_TYPES = [cls for cls in E.EVENT_TYPES.values() if cls is not E.GameStarted]


@st.composite
def random_log(draw: st.DrawFn) -> list[E.Envelope]:
    name, n = draw(st.sampled_from(PRESET_SEATS))
    seats = [E.Player(id=f"p{s}", name="x") for s in range(n)]
    first: Any = E.GameStarted(ruleset=PRESETS[name].pinned(), players=seats)
    if draw(st.integers(0, 9)) == 0:
        first = draw(payload(E.GameStarted)) or first
    events = [first]
    base = draw(st.sampled_from(real_logs()))
    prefix = draw(st.integers(0, 6))  # sometimes start from a real deal, to reach the turns
    if base[0].event.players == first.players:  # type: ignore[union-attr]
        events += [e.event for e in base[1:prefix]]
    for _ in range(draw(st.integers(0, 25))):
        cls = draw(st.sampled_from(PAYLOAD_TYPES))
        ev = draw(payload(cls))
        if ev is not None:
            events.append(ev)
    hands = draw(
        st.lists(st.none() | st.integers(1, 3), min_size=len(events), max_size=len(events))
    )
    return to_log(list(zip(hands, events, strict=True)), game_id="fuzz")


@settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(envs=random_log())
def test_projector_raises_only_projection_errors_on_random_payloads(
    envs: list[E.Envelope],
) -> None:
    fold_never_crashes(envs)


def test_unknown_payloads_in_a_real_log_never_crash() -> None:
    envs = list(real_logs()[0])
    envs.insert(
        3,
        msgspec.structs.replace(
            envs[3], event=E.UnknownEvent(type="dealer_coffee", payload={"cups": 2})
        ),
    )
    envs = _renumbered(envs)
    p = project(envs)
    assert p.ok and [i.rule for i in p.issues] == ["unknown_event_type"]
