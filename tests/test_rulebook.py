"""The rulebook: stable ids, one owner per fact, and the places derived from it.

Scoring, settlement, the audit, the store's columns, ``db stats`` and ``gostop rules`` all
read the registry in ``engine/rulebook``; these tests hold every derived place to it (drift
tests), check that lines and factors carry the ids, and that no module outside the rulebook
writes a factor's label.
"""

from __future__ import annotations

import io
import re
import tokenize
import typing
from pathlib import Path

import pytest
from engine_helpers import facts, table, units_pile
from hypothesis import given, settings
from hypothesis import strategies as st

from gostop_records import events as E
from gostop_records.engine import rulebook as RB
from gostop_records.engine import score, settle
from gostop_records.rules import PRESETS, Ruleset
from gostop_records.store import stats
from gostop_records.store.columns import COLUMN_DOCS
from gostop_records.store.schema import TABLES

ROOT = Path(__file__).resolve().parents[1]
FIELDS = set(Ruleset.model_fields) - {"name", "description"}


# --- ids ---------------------------------------------------------------------------------


def test_every_rule_has_one_stable_snake_case_id() -> None:
    ids = [r.id for r in RB.RULES]
    assert len(ids) == len(set(ids))
    assert all(re.fullmatch(r"[a-z][a-z0-9_]*", i) for i in ids)
    assert {r.id: r for r in RB.RULES} == RB.BY_ID
    assert all(RB.rule(r.id) is r and r.name and r.text for r in RB.RULES)


def test_the_registry_holds_every_combination_factor_and_instant_payment() -> None:
    assert [c.id for c in RB.COMBINATIONS] == [
        "bright",
        "animal",
        "godori",
        "ribbon",
        "hongdan",
        "cheongdan",
        "chodan",
        "junk",
    ]
    assert [f.id for f in RB.FACTORS] == [
        "go_bonus",
        "shake",
        "bomb",
        "hand_four_kept",
        "gwang_bak",
        "pi_bak",
        "meong_tta",
        "go_bak",
        "nagari_carry",
        "jackpot",
        "dokbak",
        "instant_win_multipliers",
        "stake",
    ]
    assert set(RB.AUDITED) <= set(RB.RULES)
    assert len(RB.AUDITED) == len(set(RB.AUDITED))


def test_instant_ids_are_the_payment_reasons() -> None:
    # a gwang-pali sale is paid by the hand's players but is no instant of the hand
    reasons = set(typing.get_args(E.PaymentReason)) - {"stop", RB.GWANG_PALI.id}
    assert {i.id for i in RB.INSTANTS} == reasons
    assert all(RB.instant(r) is not None for r in reasons) and RB.instant("stop") is None


def test_every_setting_a_rule_reads_is_a_ruleset_field() -> None:
    for r in RB.RULES:
        assert set(r.settings) <= FIELDS, r.id


@pytest.mark.pure_python  # reads the source of the fast path, part of the compiled kernel
def test_the_flat_score_uses_the_rulebook_numbers() -> None:
    """``scoring._total`` writes the combinations' numbers as literals: pinned here."""
    import inspect

    from gostop_records.engine import scoring

    src = inspect.getsource(scoring._total)
    assert f"total = {RB.BRIGHTS.RAIN_THREE} if nb == 3" in src
    assert "else RB.BRIGHTS.POINTS[nb]" in src
    assert f"if a >= {RB.ANIMALS.FROM}:\n        total += a - {RB.ANIMALS.FROM - 1}" in src
    assert f"total += {RB.GODORI.POINTS}\n" in src
    assert f"if r >= {RB.RIBBONS.FROM}:\n        total += r - {RB.RIBBONS.FROM - 1}" in src
    assert src.count(f"total += {RB.HONGDAN.POINTS}\n") == 3
    assert RB.HONGDAN.POINTS == RB.CHEONGDAN.POINTS == RB.CHODAN.POINTS
    assert f"if u >= {RB.JUNK.FROM}:\n        total += u - {RB.JUNK.FROM - 1}" in src


# --- lines and factors carry the ids -----------------------------------------------------


@settings(max_examples=150, deadline=None)
@given(
    preset=st.sampled_from(list(PRESETS)),
    bits=st.integers(0, (1 << 53) - 1),
    cup_role=st.sampled_from([None, "animal", "junk"]),
)
def test_score_lines_come_one_per_combination_in_registry_order(
    preset: str, bits: int, cup_role: str | None
) -> None:
    t = table(preset)
    sc = score(t, bits & t.deck, cup_role)
    order = [c.id for c in RB.COMBINATIONS]
    combos = [ln.combo for ln in sc.lines]
    assert combos == sorted(combos, key=order.index) and len(combos) == len(set(combos))
    assert sc.bright_points == sc.points_of("bright") and sc.junk_points == sc.points_of("junk")


@settings(max_examples=150, deadline=None)
@given(
    preset=st.sampled_from(list(PRESETS)),
    bits=st.lists(st.integers(0, (1 << 53) - 1), min_size=3, max_size=3),
    go=st.lists(st.integers(0, 4), min_size=3, max_size=3),
    shakes=st.integers(0, 2),
    bombs=st.integers(0, 2),
    carry=st.sampled_from([1, 2, 4]),
)
def test_factors_carry_their_rule_id_and_the_applied_ids_make_the_multiplier(
    preset: str, bits: list[int], go: list[int], shakes: int, bombs: int, carry: int
) -> None:
    n = 3 if 3 in PRESETS[preset].players else 2
    t = table(preset, n)
    piles, taken = [], 0
    for b in bits[:n]:
        piles.append(b & t.deck & ~taken)
        taken |= piles[-1]
    f = facts(0, [[] for _ in range(n)], go=go[:n], carry=carry)
    f = type(f)(
        0, tuple(piles), None, f.go_count, f.go_order, (shakes, 0, 0)[:n], (bombs, 0, 0)[:n], carry
    )
    p = settle(t, f)
    ids = {m.id for m in RB.MULTIPLIERS}
    for lp in p.losers:
        mult = 1
        for fa in lp.factors:
            assert fa.rule in ids and RB.rule(fa.rule).name == fa.name
            if lp.applies(fa.rule):
                mult *= fa.factor
        assert mult == lp.multiplier
        assert lp.applies(RB.DOKBAK.id) == bool(lp.note)


def test_pi_bak_factor_is_found_by_its_id() -> None:
    loser = ["11G", *units_pile(5)]  # a bright: no gwang-bak
    win = ["01G", "03G", "08G", *units_pile(10, exclude=loser)]
    p = settle(table("matgo"), facts(0, [win, loser]))
    (lp,) = p.losers
    pb = next(f for f in lp.factors if f.rule == RB.PI_BAK.id)
    assert pb.applies and lp.applies("pi_bak") and pb.name == RB.PI_BAK.name
    assert p.to_dict()["losers"][0]["applied"] == ["pi_bak"]
    assert {ln["combo"] for ln in p.to_dict()["score"]["lines"]} == {"bright", "junk"}


# --- words and alternatives live on the rules --------------------------------------------


@pytest.mark.parametrize("preset", list(PRESETS))
def test_every_setting_a_payout_rule_reads_has_words(preset: str) -> None:
    rs = PRESETS[preset]
    for r in RB.AUDITED:
        for s in r.settings:
            if s in ("shaking", "bombs"):
                continue  # played or not: no payment words of their own
            text = RB.words(s, getattr(rs, s), rs)
            assert " = " not in text, (r.id, s, text)
    assert RB.words("stake", 100, rs) == "a stake of 100 chips per point"


def test_alternatives_change_ruleset_fields_only() -> None:
    class Ctx:
        rules = PRESETS["gostop3"]
        players = 3
        stake = 10
        outcome = "stop"
        facts = facts(0, [["01G"], [], []], go=[1, 1, 1], shakes=[1, 0, 0], bombs=[1, 0, 0])
        nagari_streak = 1
        instants = tuple(type("I", (), {"reason": r})() for r in ("hand_four", "first_ppuk"))
        cup_holder = 1

    cands = RB.alternatives(Ctx())
    assert {c.key for c in cands} >= {"pi_bak", "go_payout", "nagari_carry", "stake", "cup_role"}
    for c in cands:
        assert set(c.updates) <= FIELDS and c.value_label()


# --- the places derived from the registry (drift) ----------------------------------------


def test_every_payout_flag_column_is_a_rule_and_every_rule_with_a_column_has_one() -> None:
    flags = {n for n, t in TABLES["payouts"] if t == "BOOLEAN"} - {"hand_recorded"}
    assert flags == {r.id for r in RB.PAYOUT_FLAGS}
    with_column = {r.id for r in RB.RULES if getattr(r, "column", False) is True}
    assert with_column == flags
    assert set(stats.BAKS) == flags - {RB.DOKBAK.id}
    for rid in flags:
        assert RB.rule(rid).column_text in COLUMN_DOCS["payouts"][rid]


def test_every_score_column_is_a_combination() -> None:
    cols = {n for n, _ in TABLES["scores"] if n.endswith("_points")}
    assert cols == {c.column for c in RB.COMBINATIONS}
    for c in RB.COMBINATIONS:
        assert COLUMN_DOCS["scores"][c.column] == c.column_text


def test_rules_show_groups_every_field_once_and_places_rule_settings_by_their_rule() -> None:
    for rs in PRESETS.values():
        groups = RB.grouped_settings(rs)
        listed = [n for _, names in groups for n in names]
        assert sorted(listed) == sorted(rs.content())
        assert "Other" not in dict(groups)
        for title, names in groups:
            for n in names:
                owner = RB.owner(n)
                if owner is not None:
                    assert title == owner.group


def test_the_rules_of_play_table_names_real_settings_that_no_rule_reads() -> None:
    from gostop_records.engine.rulebook.groups import PLAY_SETTINGS

    fields = set(Ruleset.model_fields) - {"name", "description"}
    assert set(PLAY_SETTINGS) <= fields
    assert set(PLAY_SETTINGS) == {f for f in fields if RB.owner(f) is None}
    assert set(PLAY_SETTINGS.values()) <= set(RB.GROUP_TITLES)


def test_rules_show_json_lists_the_rulebook_by_id_with_settings() -> None:
    book = RB.describe(PRESETS["matgo"])
    ids = [r["id"] for part in book.values() for r in part]
    assert sorted(ids) == sorted(r.id for r in RB.RULES)
    pi = next(r for r in book["factors"] if r["id"] == "pi_bak")
    assert pi["settings"] == {
        "pi_bak": True,
        "pi_bak_max_units": PRESETS["matgo"].pi_bak_max_units,
        "pi_bak_zero_exempt": PRESETS["matgo"].pi_bak_zero_exempt,
        "loser_cup_protects": PRESETS["matgo"].loser_cup_protects,
    }


# --- no module outside the rulebook spells a factor's label ------------------------------

_LABELS = [m.name for m in RB.MULTIPLIERS if "-" in m.name or " " in m.name]


def _code_strings(path: Path) -> list[tuple[int, str]]:
    """String literals of a module that are not docstrings."""
    out = []
    prev = tokenize.NEWLINE
    for tok in tokenize.generate_tokens(io.StringIO(path.read_text(encoding="utf-8")).readline):
        if tok.type == tokenize.STRING and prev not in (
            tokenize.NEWLINE,
            tokenize.INDENT,
            tokenize.DEDENT,
            tokenize.NL,
        ):
            out.append((tok.start[0], tok.string))
        if tok.type not in (tokenize.COMMENT, tokenize.NL):
            prev = tok.type
    return out


def test_no_module_outside_the_rulebook_writes_a_factor_label() -> None:
    assert "pi-bak" in _LABELS and "nagari carry" in _LABELS
    book = ROOT / "gostop_records" / "engine" / "rulebook"
    rules = ROOT / "gostop_records" / "rules"
    found = []
    for path in [*(ROOT / "gostop_records").rglob("*.py"), *(ROOT / "cli").rglob("*.py")]:
        # the rules package describes each setting in prose: the settings are its own
        if book in path.parents or rules in path.parents:
            continue
        for line, text in _code_strings(path):
            if any(label in text for label in _LABELS):
                found.append(f"{path.relative_to(ROOT)}:{line}: {text[:60]}")
    assert not found, found


def test_no_store_module_imports_the_scoring_or_the_settlement() -> None:
    pattern = re.compile(r"^\s*from \.\.engine(\.scoring|\.settlement| import (score|settle))")
    for path in (ROOT / "gostop_records" / "store").glob("*.py"):
        for line in path.read_text(encoding="utf-8").splitlines():
            assert not pattern.match(line), f"{path.name}: {line}"


def test_store_turn_scores_are_the_rules_scores() -> None:
    """The store's ``turns.score_after`` comes from the hand state's ``turn_ends``: every
    Go and Stop decision records the same score as the turn it closes, and every turn of a
    checked hand has one."""
    from gostop_records.projector import project
    from gostop_records.sim.selfplay import GameSpec, play_game
    from gostop_records.store.projections import derive

    checked = 0
    for seed in range(6):
        spec = GameSpec(PRESETS["matgo"], 2, 4, seed, ("greedy", "random"), game_id=f"t-{seed}")
        envs = play_game(spec)
        p = project(envs)
        assert p.game is not None
        rows = derive(envs, p.game, p.issues, retracted=p.retracted)
        turns = {(r[1], r[2]): r[-1] for r in rows["turns"]}
        assert all(v is not None for v in turns.values())
        for r in rows["decisions"]:
            hand, turn, kind, score = r[1], r[3], r[5], r[7]
            if kind in ("go", "stop"):
                assert turns[(hand, turn)] == score
                checked += 1
    assert checked


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_store_sweeps_are_the_rules_layout(preset: str) -> None:
    """``turns.sseul`` comes from the rules' ``turn_ends``: a turn is a sweep exactly when
    the layout the rules hold after it is empty and the turn captured, or when it brought a
    ``sseul`` junk transfer; read here from the state at the end of each turn."""
    from gostop_records.projector import project
    from gostop_records.sim.selfplay import GameSpec, play_game
    from gostop_records.store.hand_rows import COLUMN_AT
    from gostop_records.store.projections import derive

    at, tr = COLUMN_AT["turns"], COLUMN_AT["transfers"]
    rules = PRESETS[preset]
    n = 3 if 3 in rules.players else 2
    sweeps = 0
    for seed in range(8):
        spec = GameSpec(rules, n, 4, seed, ("greedy", "random", "greedy")[:n], game_id=f"s{seed}")
        envs = play_game(spec)
        p = project(envs)
        assert p.game is not None
        rows = derive(envs, p.game, p.issues, retracted=p.retracted)
        hand_end = {env.hand: env.seq for env in envs if isinstance(env.event, E.HandEnded)}
        turns = sorted(rows["turns"], key=lambda r: (r[at["hand"]], r[at["turn"]]))
        stolen = {
            (r[tr["hand"]], r[tr["turn"]]) for r in rows["transfers"] if r[tr["reason"]] == "sseul"
        }
        for k, r in enumerate(turns):
            hand, number = r[at["hand"]], r[at["turn"]]
            nxt = turns[k + 1] if k + 1 < len(turns) else None
            if nxt is not None and nxt[at["hand"]] == hand:
                end = nxt[at["seq"]] - 1
            else:
                end = hand_end[hand] - 1
            state = project(envs, until_seq=end).game
            assert state is not None and state.hand is not None
            took = r[at["captured"]] > r[at["bonus_cards"]]
            want = (state.hand.layout == 0 and took) or (hand, number) in stolen
            assert r[at["sseul"]] == want, (seed, hand, number)
            sweeps += want
    assert sweeps  # the seeds reach at least one sweep
