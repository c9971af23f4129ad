"""Instant payments against the chips on the table: a first-turn ppuk or a first
ttadak is paid when it is made, so a player who runs out mid-hand pays what they hold and the
shortfall is recorded at that point, not at the end of the hand."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from gostop_records import events as E
from gostop_records.engine import GameState, apply_game, start_game
from gostop_records.rules import PRESETS, Ruleset, apply_overrides
from gostop_records.sim.selfplay import GameSpec, play_payloads


def rules(base: str, **fields: Any) -> Ruleset:
    return apply_overrides(PRESETS[base], {"name": f"{base}-chips", **fields}, "test")


# instants on many hands: every first-turn ppuk and first ttadak pays, at a high price
INSTANT = {"chip_limit": "holdings", "first_ppuk_points": [20, 40, 60], "first_ttadak_points": 30}


def fold(spec: GameSpec) -> list[tuple[GameState, Any, list[Any]]]:
    """Every input of a simulated game applied again: (state after, input, consequences)."""
    out: list[tuple[GameState, Any, list[Any]]] = []
    g: GameState | None = None
    for _hand, p in play_payloads(spec):
        if type(p) is E.GameStarted:
            g = start_game("g", p)
            continue
        if not E.is_input(p):
            continue
        assert g is not None
        g, derived = apply_game(g, p)
        out.append((g, p, derived))
    return out


def _mid_hand_cap(spec: GameSpec) -> tuple[int, list[Any]] | None:
    """The first input whose consequences cap an instant due while the hand goes on."""
    for k, (_g, _p, derived) in enumerate(fold(spec)):
        kinds = [type(e) for e in derived]
        if E.PaymentCapped in kinds and E.HandEnded not in kinds:
            return k, derived
    return None


def test_an_instant_payment_is_capped_when_it_is_paid() -> None:
    rs = rules("gostop3", **INSTANT)
    found = None
    for seed in range(60):
        spec = GameSpec(rs, 3, hands=6, seed=seed, stake=1, chips=25)
        hit = _mid_hand_cap(spec)
        if hit is not None:
            found = spec, hit
            break
    assert found is not None, "no simulated hand ran a player out mid-hand"
    spec, (k, derived) = found
    dues = [e for e in derived if type(e) is E.PaymentDue]
    caps = [e for e in derived if type(e) is E.PaymentCapped]
    assert dues and dues[0].reason in ("first_ppuk", "first_ttadak")
    # the capped due is one of the dues just made, paid up to the payer's chips
    for cap in caps:
        assert any((d.payer, d.payee, d.chips) == (cap.payer, cap.payee, cap.due) for d in dues)
        assert cap.cap == "loser_holdings" and cap.paid < cap.due
    states = fold(spec)
    before = states[k - 1][0] if k else None
    after = states[k][0]
    held = after.holdings()
    assert held is not None and min(held) >= 0
    if before is not None:  # each payer gave all it held, once
        was = before.holdings() or []
        for cap in caps:
            assert cap.paid == was[cap.payer] and held[cap.payer] == 0
    # the shortfall is on the books at once, with the hand still in play
    assert after.in_hand and after.shortfalls[-1][1:] == (
        caps[-1].payer,
        caps[-1].payee,
        caps[-1].due,
        caps[-1].paid,
        "loser_holdings",
    )


def test_without_chips_an_instant_payment_is_due_in_full() -> None:
    """The same game without chips counted pays every instant due as the rules make it."""
    rs = rules("gostop3", first_ppuk_points=[20, 40, 60], first_ttadak_points=30)
    for seed in range(10):
        spec = GameSpec(rs, 3, hands=4, seed=seed)
        for g, _p, derived in fold(spec):
            assert not any(type(e) is E.PaymentCapped for e in derived)
            assert g.holdings() is None
            assert sum(g.ledger()) == 0
        final = fold(spec)[-1][0]
        due = sum(
            e.chips
            for _hand, e in play_payloads(spec)
            if type(e) is E.PaymentDue  # every due, instant or at the end, is a result's
        )
        assert (
            sum(d[3] for r in final.results for d in r.dues) + sum(d[3] for d in final.hand_dues)
            == due
        )


@settings(max_examples=25, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    chips=st.integers(0, 60),
    base=st.sampled_from(["gostop3", "matgo"]),
    limit=st.sampled_from(["holdings", "limited_liability"]),
)
def test_no_holdings_go_below_zero_at_any_point(
    seed: int, chips: int, base: str, limit: str
) -> None:
    """After every input, every seat's chips are 0 or more; what the payers gave is what the
    payees received, and every due is paid or on the books as a shortfall."""
    n = 3 if base == "gostop3" else 2
    rs = rules(base, **{**INSTANT, "chip_limit": limit})
    spec = GameSpec(rs, n, hands=4, seed=seed, stake=2, chips=chips)
    due = paid = short = 0
    for g, _p, derived in fold(spec):
        held = g.holdings()
        assert held is not None and min(held) >= 0, (held, derived)
        assert sum(held) == n * chips  # chips change hands, none appear or vanish
        due += sum(e.chips for e in derived if type(e) is E.PaymentDue)
        short += sum(e.due - e.paid for e in derived if type(e) is E.PaymentCapped)
        paid = sum(d[3] for r in g.results for d in r.dues) + sum(d[3] for d in g.hand_dues)
        assert due == paid + short
        assert sum(s[3] - s[4] for s in g.shortfalls) == short
