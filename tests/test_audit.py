"""The audit library: payout proofs, the explanation search, claims, the record, JSON."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import msgspec
import pytest

from gostop_records import cards as C
from gostop_records import events as E
from gostop_records import log as L
from gostop_records.audit import (
    AGREED,
    DIFFERS,
    UNRECORDED,
    AuditArgumentError,
    ClaimError,
    HandContext,
    Seat,
    audit_game,
    carry_of,
    explain_amount,
    parse_claim,
    settle_under,
)
from gostop_records.audit.context import hand_context, nagari_streaks
from gostop_records.audit.render import render_audit
from gostop_records.engine import rulebook as RB
from gostop_records.engine.settlement import HandFacts
from gostop_records.projector import project
from gostop_records.rules import PRESETS, NagariCarry, Ruleset
from gostop_records.sim.selfplay import GameSpec, play_game

DISPUTES = Path(__file__).resolve().parent.parent / "samples" / "disputes"


def pile(*codes: str) -> int:
    return C.mask_of(codes)


def context(
    rules: Ruleset,
    piles: tuple[int, ...],
    *,
    winner: int = 0,
    go: tuple[int, ...] = (0, 0),
    shakes: tuple[int, ...] = (0, 0),
    bombs: tuple[int, ...] = (0, 0),
    stake: int = 1,
    streak: int = 0,
    cup_role: str | None = None,
) -> HandContext:
    """The audit's view of a hand won by a Stop, from its final facts."""
    n = len(piles)
    facts = HandFacts(
        winner=winner,
        piles=piles,
        cup_role=cup_role,
        go_count=go,
        go_order=tuple(range(1, n + 1)),
        shakes=shakes,
        bombs=bombs,
        carry=carry_of(rules, streak),
    )
    holder = next((s for s, p in enumerate(piles) if p & C.CUP), None)
    return HandContext(1, n, rules, stake, "stop", winner, facts, streak, (), holder)


# --- RULES.md 4.3 derived vectors under each ruleset ----------------------------------------

# S=9: three brights without rain (3) + godori (5) + five ribbons with no set (1)
S9_WINNER = pile("01G", "03G", "08G", "02A", "04A", "08A", "04R", "05R", "06R", "09R", "12R")
S9_LOSER = pile("05A", "06A", "07J1", "07J2", "10J1", "10J2", "11J1", "11J2", "12D")
# S=7 with a junk score: three brights (3) + chodan (3) + ten single junk (1)
S7_WINNER = pile(
    "01G",
    "03G",
    "08G",
    "04R",
    "05R",
    "07R",
    "01J1",
    "01J2",
    "02J1",
    "02J2",
    "03J1",
    "03J2",
    "04J1",
    "04J2",
    "05J1",
    "05J2",
)
S7_LOSER = pile("11G", "06J1", "06J2", "07J1", "07J2", "08J1")  # 5 junk units, one bright
# S=10: three brights (3) + godori (5) + six ribbons with no set (2); the loser has a bright
S10_WINNER = pile(
    "01G", "03G", "08G", "02A", "04A", "08A", "01R", "04R", "05R", "06R", "09R", "12R"
)
S10_LOSER = pile("11G", "05A", "07J1", "07J2", "10J1", "10J2", "11J1", "11J2", "12D", "09J1")


@pytest.mark.parametrize(
    ("preset", "expected", "formula"),
    [("matgo", 48, "(9 + 3 Go) x 2"), ("cardavia", 36, "9 x 2"), ("gamerules", 24, "9 + 3 Go")],
)
def test_derived_s9_three_go_gwang_bak(preset: str, expected: int, formula: str) -> None:
    ctx = context(PRESETS[preset], (S9_WINNER, S9_LOSER), go=(3, 0))
    proof = settle_under(ctx).proof
    assert proof is not None
    assert proof.score.total == 9
    assert proof.go_formula.startswith(formula)
    (lp,) = proof.losers
    applied = {f.rule for f in lp.factors if f.applies}
    assert applied == {"gwang_bak"}
    assert lp.pays_points == expected


@pytest.mark.parametrize(
    ("preset", "shakes", "expected", "applied"),
    [
        ("matgo", 1, 32, {"shake", "pi_bak"}),
        ("cardavia", 0, 8, set()),  # no shaking; 5 junk units is not fewer than 5
        ("gamerules", 1, 32, {"shake", "pi_bak"}),
    ],
)
def test_derived_s7_one_go_shake_five_units(
    preset: str, shakes: int, expected: int, applied: set[str]
) -> None:
    ctx = context(PRESETS[preset], (S7_WINNER, S7_LOSER), go=(1, 0), shakes=(shakes, 0))
    proof = settle_under(ctx).proof
    assert proof is not None
    assert proof.score.total == 7 and proof.score.junk_points == 1
    assert proof.go_points == 8
    (lp,) = proof.losers
    assert {f.rule for f in lp.factors if f.applies} == applied
    assert lp.pays_points == expected
    pb = next(f for f in lp.factors if f.rule == "pi_bak")
    assert "5 unit(s)" in pb.condition


@pytest.mark.parametrize(
    ("preset", "expected"), [("matgo", 56), ("cardavia", 40), ("gamerules", 28)]
)
def test_derived_s10_four_go(preset: str, expected: int) -> None:
    ctx = context(PRESETS[preset], (S10_WINNER, S10_LOSER), go=(4, 0))
    proof = settle_under(ctx).proof
    assert proof is not None
    assert proof.score.total == 10
    (lp,) = proof.losers
    assert not any(f.applies for f in lp.factors)
    assert lp.pays_points == expected == proof.go_points


@pytest.mark.parametrize(
    ("pinned", "recorded", "setting", "value"),
    [
        ("matgo", 36, "go_payout", "double_from_third"),
        ("matgo", 24, "go_payout", "general_page"),
        ("cardavia", 48, "go_payout", "standard"),
    ],
)
def test_derived_amounts_of_other_rulebooks_are_explained(
    pinned: str, recorded: int, setting: str, value: str
) -> None:
    """The other rulebooks' amounts for the S=9 case are named as their Go payout."""
    ctx = context(PRESETS[pinned], (S9_WINNER, S9_LOSER), go=(3, 0))
    found, _more, near = explain_amount(ctx, 1, 0, recorded)
    assert found and not near
    first = found[0]
    assert first.changes[0].setting == setting and first.changes[0].value == value
    assert first.chips == recorded
    assert "the table appears to have used" in first.text


def test_cardavia_amount_under_matgo_needs_two_settings() -> None:
    """S=7 case: CARDAVIA's 8 against matgo's 32 is no shake and no pi-bak at 5 units."""
    ctx = context(PRESETS["matgo"], (S7_WINNER, S7_LOSER), go=(1, 0), shakes=(1, 0))
    found, _, _ = explain_amount(ctx, 1, 0, 8)
    assert found
    assert all(len(e.changes) >= 2 for e in found)
    names = {frozenset(e.settings) for e in found}
    assert frozenset({"shake_multiplier", "pi_bak_max_units"}) in names


def test_pi_bak_threshold_explanation_in_words() -> None:
    loser = pile("05A", "06J1", "06J2", "07J1", "07J2", "08J1", "09J1")  # 6 units
    ctx = context(PRESETS["cardavia"], (S7_WINNER, loser | pile("11G")))
    base = settle_under(ctx).chips(1, 0)
    found, _, _ = explain_amount(ctx, 1, 0, base * 2)
    first = found[0]
    assert first.changes[0].setting == "pi_bak_max_units"
    assert first.changes[0].value == 6 and first.changes[0].pinned == 4
    assert "loser holds 6 unit(s)" in first.text
    assert "(pi_bak_max_units = 4)" in first.text
    assert first.same_with and first.same_with[-1] == "pi_bak_max_units=12"


def test_nothing_explains_gives_nearest() -> None:
    ctx = context(PRESETS["matgo"], (S9_WINNER, S9_LOSER), go=(3, 0))
    found, more, near = explain_amount(ctx, 1, 0, 47)
    assert not found and more == 0
    assert near and near[0].chips != 48
    assert abs(near[0].chips - 47) <= abs(near[-1].chips - 47)


def test_three_players_each_loser_has_own_multipliers() -> None:
    """A18: bak conditions per loser; gwang-bak on one, pi-bak on the other."""
    winner = S7_WINNER
    no_brights_many_junk = pile("06J1", "06J2", "07J1", "07J2", "08J1", "09J1", "10J1", "11D")
    one_bright_few_junk = pile("11G", "09J2", "10J2")
    ctx = context(
        PRESETS["gostop3"],
        (winner, no_brights_many_junk, one_bright_few_junk),
        go=(0, 0, 0),
        shakes=(0, 0, 0),
        bombs=(0, 0, 0),
    )
    proof = settle_under(ctx).proof
    assert proof is not None
    by = {lp.loser: lp for lp in proof.losers}
    assert {f.rule for f in by[1].factors if f.applies} == {"gwang_bak"}
    assert {f.rule for f in by[2].factors if f.applies} == {"pi_bak"}
    pb1 = next(f for f in by[1].factors if f.rule == "pi_bak")
    assert "9 unit(s) > 5" in pb1.condition
    assert by[1].pays_points == by[2].pays_points == 2 * proof.go_points


def test_three_players_dokbak_moves_shares() -> None:
    ctx = context(
        PRESETS["gostop3"],
        (S7_WINNER, S7_LOSER, pile("11D", "12D")),
        go=(0, 1, 0),
        shakes=(0, 0, 0),
        bombs=(0, 0, 0),
    )
    proof = settle_under(ctx).proof
    assert proof is not None
    by = {lp.loser: lp for lp in proof.losers}
    assert by[2].pays_points == 0
    assert by[1].pays_points == by[1].points + by[2].points
    assert "dokbak" in by[1].note


def test_carry_of_matches_the_rules() -> None:
    m = PRESETS["matgo"]  # cumulative, capped at x8
    assert [carry_of(m, k) for k in range(5)] == [1, 2, 4, 8, 8]
    once = m.model_copy(update={"nagari_carry": NagariCarry.ONCE})
    assert [carry_of(once, k) for k in range(3)] == [1, 2, 2]
    assert carry_of(PRESETS["cardavia"], 3) == 1


# --- the audit's recomputation agrees with the engine --------------------------------------


@pytest.mark.parametrize(
    ("preset", "players", "any_carry"),
    [("matgo", 2, True), ("gamerules", 3, False), ("cardavia", 2, False), ("gostop3", 3, True)],
)
def test_resettlement_matches_the_engine(preset: str, players: int, any_carry: bool) -> None:
    """Under the pinned rules the audit's re-settlement gives exactly the engine's dues."""
    carried = instant = 0
    for seed in range(40):
        envs = play_game(GameSpec(PRESETS[preset], players, 3, seed, ("random",), 10))
        game = project(envs).game
        assert game is not None
        streaks = nagari_streaks(game.results)
        for r in game.results:
            if r.state is None:
                continue
            inputs = [e for e in envs if e.hand == r.hand and E.is_input(e.event)]
            ctx = hand_context(game, r, r.state, streaks[r.hand], inputs)
            assert ctx is not None
            s = settle_under(ctx)
            assert s.carry == r.carry
            engine = sorted((p, q, pts, chips, why) for p, q, pts, chips, why in r.dues)
            mine = sorted((d.payer, d.payee, d.points, d.chips, d.reason) for d in s.dues)
            assert mine == engine, (seed, r.hand)
            carried += s.carry > 1
            instant += bool(ctx.instants)
    # the seeds cover instant payments, and a nagari carry where the ruleset has one
    assert instant > 0
    assert carried > 0 or not any_carry


# --- audit_game on real logs ------------------------------------------------------------------


def _sim(preset: str = "matgo", hands: int = 2, seed: int = 3, stake: int = 100) -> list[Any]:
    return play_game(GameSpec(PRESETS[preset], 2, hands, seed, ("greedy",), stake))


def test_clean_game_agrees() -> None:
    audit = audit_game(_sim())
    assert audit.ok and not audit.disagreements
    assert audit.record.chain.ok and audit.record.first_violation is None
    for h in audit.hands:
        assert h.conservation.checked and h.conservation.ok
        assert h.conservation.cards == h.conservation.deck
        if h.outcome == "stop":
            assert h.proof is not None
            assert all(p.status == AGREED for p in h.payments)
            total = sum(d.chips for d in h.dues)
            assert total == sum(p.chips or 0 for p in h.payments)


def _replace_payment(envs: list[E.Envelope], chips: int) -> list[E.Envelope]:
    k = max(i for i, e in enumerate(envs) if type(e.event) is E.PaymentRecorded)
    out = list(envs)
    out[k] = msgspec.structs.replace(
        out[k], event=msgspec.structs.replace(out[k].event, chips=chips)
    )
    return L.seal(out)


def test_wrong_payment_differs_with_lines_and_explanation() -> None:
    envs = _sim(hands=1)
    last = max((e for e in envs if type(e.event) is E.PaymentRecorded), key=lambda e: e.seq)
    right = last.event.chips
    audit = audit_game(_replace_payment(envs, right // 100))  # the stake left out
    assert not audit.ok and audit.record.ok
    (bad,) = audit.disagreements
    assert bad.status == DIFFERS and bad.source == "recorded"
    assert bad.computed == right and bad.difference == right // 100 - right
    assert bad.seqs == (last.seq,)
    assert any("chips" in ln for ln in bad.lines)
    assert bad.explanations[0].settings == ("stake",)
    assert bad.explanations[0].changes[0].value == 1


def test_hand_filter_and_unknown_hand() -> None:
    envs = _sim(hands=3)
    audit = audit_game(envs, hand=2)
    assert [h.hand for h in audit.hands] == [2]
    with pytest.raises(AuditArgumentError, match="no hand 9"):
        audit_game(envs, hand=9)


def test_claims_by_seat_id_and_name() -> None:
    envs = _sim(hands=1)
    due = audit_game(envs).hands[0].dues[0]
    names = {0: ("0", "p1", "Player 1"), 1: ("seat 1", "P2", "player 2")}
    claims = [f"{names[due.payer][k]}->{names[due.payee][k]}={due.chips}" for k in range(3)] + [
        f"{due.payer}->{due.payee}={due.chips + 1}"
    ]
    audit = audit_game(envs, claims=claims)
    checks = [p for p in audit.hands[0].payments if p.source == "claim"]
    assert [p.status for p in checks] == [AGREED, AGREED, AGREED, DIFFERS]
    assert all((p.payer, p.payee) == (due.payer, due.payee) for p in checks)
    assert checks[-1].claim == claims[-1]
    assert not audit.ok


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("1-0=5", "not of the form"),
        ("1->0", "not of the form"),
        ("->0=5", "not of the form"),
        ("1->0=five", "whole number"),
        ("1->0=-5", "whole number"),
    ],
)
def test_claim_syntax_errors(text: str, message: str) -> None:
    with pytest.raises(ClaimError, match=message):
        parse_claim(text)


def test_claim_resolution_errors() -> None:
    seats = (Seat(0, "p1", "Kim"), Seat(1, "p2", "Lee"))
    assert parse_claim(" Kim -> seat1 = 2400 ").resolve(seats) == (0, 1)
    with pytest.raises(ClaimError, match="no seat 5"):
        parse_claim("5->0=1").resolve(seats)
    with pytest.raises(ClaimError, match="no player is called 'Park'"):
        parse_claim("Park->0=1").resolve(seats)
    with pytest.raises(ClaimError, match="both seat 0"):
        parse_claim("Kim->p1=1").resolve(seats)
    with pytest.raises(ClaimError):
        audit_game(_sim(hands=1), claims=["bob->0=1"])


def test_unrecorded_due_is_listed_but_not_a_disagreement() -> None:
    envs = [e for e in _sim(hands=1) if type(e.event) is not E.PaymentRecorded]
    audit = audit_game(L.seal(envs))
    pays = audit.hands[0].payments
    assert pays and all(p.status == UNRECORDED and p.chips is None for p in pays)
    assert audit.ok


def test_nagari_hand_says_so_with_the_carry() -> None:
    audit = audit_game(L.read_log(DISPUTES / "nagari_carry.jsonl"))
    first, second = audit.hands
    assert first.outcome == "nagari" and first.proof is None and not first.dues
    assert first.next_carry == 2 and "x2" in first.summary
    assert second.carry == 2
    assert second.proof is not None and second.proof.carry == 2
    assert any(f.rule == "nagari_carry" and f.applies for f in second.proof.losers[0].factors)


def test_instant_payments_are_separate_lines() -> None:
    """First-turn ppuk, three ppuk, four of a month: own lines, never multiplied."""
    found = 0
    for seed in range(60):
        envs = play_game(GameSpec(PRESETS["gostop3"], 3, 2, seed, ("random",), 10))
        for h in audit_game(envs).hands:
            if not h.instants:
                continue
            found += 1
            base = {"first_ppuk": (3, 6, 12), "three_ppuk": (7,), "hand_four": (10,)}
            for ln in h.instants:
                assert ln.chips == ln.points * h.stake
                assert ln.points in base[ln.reason]
            if h.proof is not None:
                stop = sum(d.chips for d in h.dues if d.reason == "stop")
                assert stop == sum(lp.pays_chips for lp in h.proof.losers)
    assert found


def test_first_ppuk_found_when_the_ruleset_pays_nothing() -> None:
    """The probe replay finds a first-turn ppuk the game's ruleset does not pay for."""
    envs = list(L.read_log(DISPUTES / "first_ppuk.jsonl"))
    game = project(envs).game
    assert game is not None and game.rules.first_ppuk_points == ()
    r = game.results[-1]
    ctx = hand_context(game, r, r.state, 0, [e for e in envs if E.is_input(e.event)])
    assert ctx is not None
    assert any(ev.reason == "first_ppuk" and ev.k == 1 for ev in ctx.instants)
    assert not any(d.reason == "first_ppuk" for d in settle_under(ctx).dues)


def test_lenient_first_violation_named_with_legal_inputs() -> None:
    manifest = json.loads((DISPUTES / "manifest.json").read_text())
    want = next(m for m in manifest if m["file"] == "illegal_play.jsonl")["first_violation"]
    envs = list(L.read_log(DISPUTES / "illegal_play.jsonl"))
    audit = audit_game(envs, lenient=True)
    v = audit.record.first_violation
    assert v is not None and v.seq == want["seq"] and v.rule == want["rule"]
    assert v.recorded is not None and v.recorded["card"] == want["card"]
    assert f"seat 1 played {want['card']}" in v.text and "held" in v.text
    before = project(envs, strict=False, until_seq=v.seq - 1).game
    assert before is not None and before.hand is not None
    held = set(C.codes(before.hand.hands[1]))
    assert v.legal
    assert all(a["type"] == "card_played" and a["card"] in held for a in v.legal)
    assert want["card"] not in {a["card"] for a in v.legal}
    assert "the rules allowed seat 1" in v.legal_text
    assert audit.hands[0].outcome == "unchecked"
    assert not audit.ok
    strict = audit_game(envs)
    assert strict.record.stopped_at == v.seq
    assert strict.hands[0].outcome == "not_audited"


def test_consequence_violation_shows_expected_and_recorded() -> None:
    envs = list(_sim(hands=1))
    k = next(i for i, e in enumerate(envs) if type(e.event) is E.CardsCaptured)
    ev = envs[k].event
    other = next(c for c in ("01G", "02A", "03R") if c not in ev.cards)
    envs[k] = msgspec.structs.replace(
        envs[k], event=msgspec.structs.replace(ev, cards=[*ev.cards[:-1], other])
    )
    audit = audit_game(L.seal(envs), lenient=True)
    v = audit.record.first_violation
    assert v is not None and v.seq == envs[k].seq
    assert v.expected is not None and v.recorded is not None
    assert v.recorded["cards"] != v.expected["cards"]
    assert other in v.recorded["cards"]


def test_broken_chain_is_reported() -> None:
    envs = _sim(hands=1)
    k = len(envs) // 2
    envs[k] = msgspec.structs.replace(envs[k], at="2030-01-01T00:00:00.000Z")
    audit = audit_game(envs)
    assert not audit.record.chain.ok and audit.record.chain.first_bad_seq == envs[k].seq
    assert not audit.ok


def test_conservation_names_a_card_in_two_places() -> None:
    from gostop_records.audit.record import conservation

    game = project(_sim(hands=1)).game
    assert game is not None
    state = game.results[0].state
    assert state is not None and conservation(1, state).ok
    broken = state.copy()
    card = next(iter(C.indices(broken.piles[0])))
    broken.piles[1] |= 1 << card
    report = conservation(1, broken)
    assert not report.ok
    assert any(C.ALL_CARDS[card].code in p and "both" in p for p in report.problems)


def test_several_games_are_refused() -> None:
    a = _sim(hands=1)
    b = play_game(GameSpec(PRESETS["matgo"], 2, 1, 4, ("greedy",), 1, game_id="other"))
    with pytest.raises(AuditArgumentError, match="2 games"):
        audit_game([*a, *b])


# --- JSON and text ------------------------------------------------------------------------------


def test_json_shape() -> None:
    audit = audit_game(L.read_log(DISPUTES / "pi_bak_threshold.jsonl"))
    data = json.loads(json.dumps(audit.to_dict()))
    assert set(data) >= {
        "game_id",
        "ruleset",
        "ruleset_hash",
        "seats",
        "stake",
        "record",
        "hands",
        "ok",
        "disagreements",
    }
    assert data["ok"] is False and data["disagreements"] == 1
    assert set(data["record"]) >= {"chain", "lenient", "violations", "first_violation", "ok"}
    (h,) = data["hands"]
    assert set(h) >= {
        "hand",
        "outcome",
        "winner",
        "carry",
        "stake",
        "proof",
        "instants",
        "dues",
        "payments",
        "conservation",
        "summary",
        "ok",
    }
    assert "go-bak (go_bak = none)" in h["not_in_ruleset"]  # CARDAVIA has no go-bak
    proof = h["proof"]
    assert set(proof) >= {
        "winner",
        "score",
        "go_count",
        "go_points",
        "go_formula",
        "go_setting",
        "stake",
        "carry",
        "losers",
    }
    lines = proof["score"]["lines"]
    assert all(set(ln) == {"combo", "name", "cards", "points", "detail"} for ln in lines)
    assert {ln["combo"] for ln in lines} <= {c.id for c in RB.COMBINATIONS}
    for lp in proof["losers"]:
        assert set(lp["applied"]) <= {f["rule"] for f in lp["factors"]} | {RB.DOKBAK.id}
        for f in lp["factors"]:
            assert set(f) == {"rule", "name", "factor", "applies", "condition", "setting"}
            assert RB.rule(f["rule"]).name == f["name"]
            assert isinstance(f["applies"], bool)
    (pay,) = [p for p in h["payments"] if p["status"] == "differs"]
    assert set(pay) >= {
        "payer",
        "payee",
        "source",
        "chips",
        "computed",
        "difference",
        "difference_points",
        "seqs",
        "lines",
        "explanations",
        "nearest",
        "finding",
        "agreed",
    }
    e = pay["explanations"][0]
    assert set(e) >= {"changes", "chips", "effects", "text", "settings", "same_with"}
    assert e["settings"][0] == "pi_bak_max_units"
    assert set(e["changes"][0]) == {"setting", "value", "pinned", "text", "pinned_text"}


def test_render_shows_marks_conditions_and_explanations() -> None:
    audit = audit_game(L.read_log(DISPUTES / "gwang_bak.jsonl"))
    text = render_audit(audit)
    assert "✓" in text and "✗" in text
    assert "gwang-bak" in text and "[gwang_bak]" in text
    assert "explanations (most likely first)" in text
    plain = render_audit(audit, unicode=False)
    assert "✓" not in plain and " yes " in plain


def test_claim_in_a_game_with_replaced_proof_values() -> None:
    """A claim on a hand other than the last is checked against that hand."""
    envs = _sim(hands=3)
    audit = audit_game(envs)
    h1 = audit.hands[0]
    due = next(d for d in h1.dues)
    checked = audit_game(envs, hand=1, claims=[f"{due.payer}->{due.payee}={due.chips}"])
    claim = next(p for p in checked.hands[0].payments if p.source == "claim")
    assert claim.status == AGREED and claim.hand == 1
    assert replace(claim, status=DIFFERS).agreed is False


def test_refused_and_retracted_typo_keeps_the_hand_checkable() -> None:
    """A typo the rules refused and the table retracted does not stop the proof."""
    from gostop_records.sim.selfplay import play_payloads

    spec = GameSpec(PRESETS["matgo"], 2, 1, 3, ("greedy",), 100, game_id="typo")
    payloads = list(play_payloads(spec))
    k = next(i for i, (_, ev) in enumerate(payloads) if type(ev) is E.CardPlayed)
    seat = payloads[k][1].seat
    deal = next(ev for _, ev in payloads if type(ev) is E.CardsDealt)
    other = next(c for c in deal.hands[1 - seat] if not c.startswith("B"))
    typo = E.CardPlayed(seat=seat, card=other)
    payloads[k:k] = [(1, typo), (1, E.EntryRetracted(seq=k + 1, reason="typo"))]
    envs = L.seal(
        L.envelope(
            "typo",
            i,
            h,
            ev,
            by="t",
            at="2026-01-01T00:00:00.000Z",
            recorded_at="2026-01-01T00:00:00.000Z",
        )
        for i, (h, ev) in enumerate(payloads, 1)
    )
    audit = audit_game(envs, lenient=True)
    (h,) = audit.hands
    assert h.outcome == "stop" and h.proof is not None
    assert h.payments and all(p.status == AGREED for p in h.payments)
