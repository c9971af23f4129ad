"""Regenerate the dispute samples: real simulated hands paid by another house rule.

Each dispute is a game played by the seeded simulator (so every card, capture and decision
is real and the log validates strictly) whose last hand is then paid the way a table with
another house rule would have paid it: the correct ``payment_recorded`` events of that hand
are replaced by the amounts the rules make due under the house rule, and the log is sealed
again, so its hash chain is valid and only the payment is in dispute.

Run from the repository root::

    .venv/bin/python samples/disputes/make_disputes.py           # rewrite the samples
    .venv/bin/python samples/disputes/make_disputes.py --search  # find seeds again

Each dispute keeps the seed it was made from. A seed fits when the house rule changes the
payment and the audit's first explanation names the house rule's setting; ``--search``
looks for the first fitting seed again (after a change to the engine or the bots) and prints
the seeds to copy into ``DISPUTES``. The files, ``manifest.json`` (what the tests check) and
``README.md`` are written beside this script.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import msgspec

from gostop_records import events as E
from gostop_records import log as L
from gostop_records.audit import GameAudit, audit_game
from gostop_records.audit.context import HandContext, hand_context, nagari_streaks, settle_under
from gostop_records.engine.game import GameState
from gostop_records.projector import project
from gostop_records.rules import PRESETS, GoBak, GoPayout, NagariCarry, Ruleset
from gostop_records.sim.selfplay import GameSpec, play_payloads

HERE = Path(__file__).resolve().parent
EPOCH = datetime(2026, 3, 1, 20, 0, tzinfo=UTC)
FLIP = "flip"  # the cup counted the other way from the record


@dataclass(frozen=True)
class Dispute:
    """A game and the house rule the table paid its last hand by."""

    name: str
    ruleset: str
    title: str  # what the table did, in words
    house: dict[str, Any] = field(default_factory=dict)  # ruleset fields the table used
    expect: tuple[str, ...] = ()  # the settings the audit's first explanation must name
    seed: int = 0
    players: int = 2
    hands: int = 1
    stake: int = 100
    bots: tuple[str, ...] = ("greedy",)
    house_stake: int | None = None
    cup_role: str | None = None  # FLIP: the cup counted as the other role
    need: Callable[[HandContext, GameState], bool] | None = None


def _winner_animals(ctx: HandContext, g: GameState) -> int:
    from gostop_records.engine.scoring import score

    f = ctx.facts
    assert f is not None
    return score(g.table, f.piles[f.winner], f.cup_role).animals


def _loser_units(ctx: HandContext, g: GameState) -> list[int]:
    f = ctx.facts
    assert f is not None
    return [g.table.units(p, False) for s, p in enumerate(f.piles) if s != f.winner]


def _three_go(ctx: HandContext, g: GameState) -> bool:
    return ctx.facts is not None and ctx.facts.go_count[ctx.facts.winner] >= 3


def _multipliers_differ(ctx: HandContext, g: GameState) -> bool:
    s = settle_under(ctx)
    assert s.proof is not None
    return len({lp.multiplier for lp in s.proof.losers}) > 1


DISPUTES: tuple[Dispute, ...] = (
    Dispute(
        "gwang_bak",
        "matgo",
        "did not double for gwang-bak",
        house={"gwang_bak": False},
        expect=("gwang_bak",),
        seed=18,
    ),
    Dispute(
        "pi_bak_threshold",
        "cardavia",
        "applied pi-bak to a loser with 5 to 7 junk units (a matgo threshold of 7)",
        house={"pi_bak_max_units": 7},
        expect=("pi_bak_max_units",),
        seed=12,
        need=lambda ctx, g: 5 <= _loser_units(ctx, g)[0] <= 7,
    ),
    Dispute(
        "pi_bak_zero_exempt",
        "matgo",
        "applied pi-bak to a loser with no junk at all (no zero exemption)",
        house={"pi_bak_zero_exempt": False},
        expect=("pi_bak_zero_exempt",),
        seed=149,
        bots=("random",),
    ),
    Dispute(
        "meong_tta",
        "matgo",
        "applied meong-tta from fewer animals than 7",
        house={"meong_tta_min_animals": 5},
        expect=("meong_tta_min_animals",),
        seed=1,
        need=lambda ctx, g: _winner_animals(ctx, g) in (5, 6),
    ),
    Dispute(
        "go_bak",
        "matgo",
        "did not double against the loser who had called Go",
        house={"go_bak": GoBak.NONE},
        expect=("go_bak",),
        seed=2,
    ),
    Dispute(
        "shake",
        "matgo",
        "did not double for the winner's shake",
        house={"shake_multiplier": 1},
        expect=("shake_multiplier",),
        seed=12,
    ),
    Dispute(
        "bomb",
        "gamerules",
        "doubled for the winner's bomb (a bomb counted as a shake)",
        house={"bomb_multiplier": 2},
        expect=("bomb_multiplier",),
        seed=3,
    ),
    Dispute(
        "go_payout",
        "matgo",
        "paid 3 or more Gos by the CARDAVIA formula (S x 2^(n-2), no Go points)",
        house={"go_payout": GoPayout.DOUBLE_FROM_THIRD},
        expect=("go_payout",),
        seed=6,
        bots=("random",),
        need=_three_go,
    ),
    Dispute(
        "nagari_carry",
        "matgo",
        "forgot the nagari carry from the hand before",
        house={"nagari_carry": NagariCarry.NONE},
        expect=("nagari_carry",),
        seed=53,
        hands=2,
        need=lambda ctx, g: ctx.nagari_streak > 0,
    ),
    Dispute(
        "cup",
        "matgo",
        "counted the September cup the other way from its holder's choice",
        cup_role=FLIP,
        expect=("cup_role", "cup_mode"),
        seed=7,
    ),
    Dispute(
        "stake",
        "matgo",
        "paid points as chips (left out the stake of 100 per point)",
        house_stake=1,
        expect=("stake",),
        seed=0,
    ),
    Dispute(
        "dokbak_3p",
        "gostop3",
        "made each loser pay their own share instead of dokbak (3 players)",
        house={"go_bak": GoBak.NONE},
        expect=("go_bak",),
        seed=13,
        players=3,
        need=_multipliers_differ,
    ),
    Dispute(
        "first_ppuk",
        "gamerules",
        "paid 7 points for a first-turn ppuk (a Hangame rule)",
        house={"first_ppuk_points": (7, 14, 21)},
        expect=("first_ppuk_points",),
        seed=30,
    ),
)


def _stamp(seq: int) -> str:
    t = EPOCH + timedelta(seconds=7 * seq)
    return t.strftime("%Y-%m-%dT%H:%M:%S.") + f"{t.microsecond // 1000:03d}Z"


def seal(game_id: str, payloads: Sequence[tuple[int | None, Any]]) -> list[E.Envelope]:
    """Sealed envelopes of a game, timestamped like a sitting at a table."""
    chain = L.Chain()
    return [
        chain.seal(
            L.envelope(game_id, seq, hand, ev, by="sample", at=_stamp(seq), recorded_at=_stamp(seq))
        )
        for seq, (hand, ev) in enumerate(payloads, 1)
    ]


def _context(envs: list[E.Envelope]) -> tuple[HandContext, GameState] | None:
    game = project(envs).game
    if game is None or not game.results:
        return None
    res = game.results[-1]
    if res.state is None:
        return None
    streak = nagari_streaks(game.results)[res.hand]
    inputs = [e for e in envs if e.hand == res.hand and E.is_input(e.event)]
    ctx = hand_context(game, res, res.state, streak, inputs)
    return (ctx, game) if ctx is not None else None


def build(d: Dispute, seed: int) -> tuple[list[E.Envelope], GameAudit] | None:
    """The dispute's log from a seed, or None when the seed does not fit."""
    rules = PRESETS[d.ruleset]
    spec = GameSpec(rules, d.players, d.hands, seed, d.bots, d.stake, game_id=f"dispute-{d.name}")
    payloads = list(play_payloads(spec))
    envs = seal(spec.id(), payloads)
    found = _context(envs)
    if found is None:
        return None
    ctx, game = found
    if ctx.outcome != "stop" or (d.need is not None and not d.need(ctx, game)):
        return None
    house: Ruleset = rules.model_copy(update=d.house) if d.house else rules
    if d.cup_role == FLIP:
        if ctx.cup_holder is None or ctx.facts is None:
            return None
        now = settle_under(ctx).proof
        assert now is not None
        holder_score = now.score if ctx.cup_holder == ctx.winner else None
        current = ctx.facts.cup_role or (holder_score.cup_role if holder_score else "animal")
        other = "animal" if current == "junk" else "junk"
        from gostop_records.rules import CupMode

        house = house.model_copy(update={"cup_mode": CupMode.PLAYER_CHOICE})
        wrong = settle_under(ctx, house, d.house_stake, other)
    else:
        wrong = settle_under(ctx, house, d.house_stake)
    right = settle_under(ctx)
    pairs = list(dict.fromkeys((x.payer, x.payee) for x in (*right.dues, *wrong.dues)))
    if all(right.chips(*p) == wrong.chips(*p) for p in pairs):
        return None
    last = ctx.hand
    kept = [(h, ev) for h, ev in payloads if not (h == last and type(ev) is E.PaymentRecorded)]
    for payer, payee in pairs:
        chips = wrong.chips(payer, payee)
        if chips:
            kept.append(
                (
                    last,
                    E.PaymentRecorded(
                        payer=payer, payee=payee, chips=chips, note=f"the table {d.title}"
                    ),
                )
            )
    envs = seal(spec.id(), kept)
    audit = audit_game(envs)
    bad = audit.disagreements
    if not bad or not bad[0].explanations:
        return None
    if not set(d.expect) & set(bad[0].explanations[0].settings):
        return None
    return envs, audit


def find(d: Dispute, start: int, tries: int = 4000) -> tuple[int, list[E.Envelope], GameAudit]:
    for seed in range(start, start + tries):
        made = build(d, seed)
        if made is not None:
            return seed, *made
    raise SystemExit(f"{d.name}: no fitting seed in {start}..{start + tries - 1}")


# --- the record samples: a clean game, an illegal play, a tampered payment ----------------


def clean() -> list[E.Envelope]:
    spec = GameSpec(PRESETS["matgo"], 2, 2, 7, ("greedy",), 100, game_id="clean-matgo")
    return seal(spec.id(), list(play_payloads(spec)))


def illegal_play() -> tuple[list[E.Envelope], int, str]:
    """A matgo game where seat 1 plays a card seat 0 holds (a typo at the table)."""
    spec = GameSpec(PRESETS["matgo"], 2, 1, 21, ("greedy",), 100, game_id="illegal-play")
    payloads = list(play_payloads(spec))
    game = project(seal(spec.id(), payloads)).game
    assert game is not None
    plays = [
        i
        for i, (_, ev) in enumerate(payloads)
        if type(ev) is E.CardPlayed and ev.seat == 1 and not ev.card.startswith("B")
    ]
    i = plays[2]
    ev = payloads[i][1]
    deal = next(ev2 for _, ev2 in payloads if type(ev2) is E.CardsDealt)
    later_by_0 = {e.card for _, e in payloads[i:] if type(e) is E.CardPlayed and e.seat == 0}
    other = next(c for c in deal.hands[0] if c in later_by_0 and not c.startswith("B"))
    payloads[i] = (payloads[i][0], msgspec.structs.replace(ev, card=other, chosen=None))
    return seal(spec.id(), payloads), i + 1, other


def tampered() -> tuple[list[E.Envelope], int]:
    """A clean game whose recorded payment was edited after it was sealed."""
    spec = GameSpec(PRESETS["matgo"], 2, 1, 7, ("greedy",), 100, game_id="tampered-payment")
    envs = seal(spec.id(), list(play_payloads(spec)))
    k = max(i for i, e in enumerate(envs) if type(e.event) is E.PaymentRecorded)
    ev = envs[k].event
    envs[k] = msgspec.structs.replace(
        envs[k], event=msgspec.structs.replace(ev, chips=ev.chips // 2)
    )
    return envs, envs[k].seq


# --- writing ---------------------------------------------------------------------------------


def _first_explanation(audit: GameAudit) -> str:
    bad = audit.disagreements
    if not bad:
        return ""
    return bad[0].explanations[0].text if bad[0].explanations else bad[0].finding


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--search", action="store_true", help="look for fitting seeds again")
    ap.add_argument("--out", type=Path, default=HERE, help="where to write (default: here)")
    args = ap.parse_args(argv)
    out: Path = args.out
    out.mkdir(parents=True, exist_ok=True)
    manifest: list[dict[str, Any]] = []
    readme_rows: list[str] = []
    for d in DISPUTES:
        made = None if args.search else build(d, d.seed)
        if made is None:
            if not args.search:
                print(f"{d.name}: seed {d.seed} no longer fits; searching", file=sys.stderr)
            seed, envs, audit = find(d, 0)
            print(f"{d.name}: seed={seed}", file=sys.stderr)
        else:
            seed, (envs, audit) = d.seed, made
        path = out / f"{d.name}.jsonl"
        L.write_jsonl(path, envs)
        pay = audit.disagreements[0]
        manifest.append(
            {
                "file": path.name,
                "ruleset": d.ruleset,
                "players": d.players,
                "seed": seed,
                "hand": pay.hand,
                "payer": pay.payer,
                "payee": pay.payee,
                "recorded": pay.chips,
                "computed": pay.computed,
                "the_table": d.title,
                "expect_settings": list(d.expect),
                "exit_code": 1,
            }
        )
        readme_rows.append(
            f"| `{path.name}` | {d.ruleset} | the table {d.title} | seat {pay.payer} paid "
            f"seat {pay.payee} {pay.chips}; the rules make {pay.computed} due | "
            f"`{' or '.join(d.expect)}`: {_first_explanation(audit)} |"
        )

    envs = clean()
    L.write_jsonl(out / "clean.jsonl", envs)
    manifest.append(
        {
            "file": "clean.jsonl",
            "ruleset": "matgo",
            "players": 2,
            "expect_settings": [],
            "exit_code": 0,
        }
    )
    envs, seq, card = illegal_play()
    L.write_jsonl(out / "illegal_play.jsonl", envs)
    manifest.append(
        {
            "file": "illegal_play.jsonl",
            "ruleset": "matgo",
            "players": 2,
            "expect_settings": [],
            "exit_code": 1,
            "lenient": True,
            "first_violation": {"seq": seq, "rule": "card_in_hand", "card": card},
        }
    )
    envs, bad_seq = tampered()
    L.write_jsonl(out / "tampered_payment.jsonl", envs)
    manifest.append(
        {
            "file": "tampered_payment.jsonl",
            "ruleset": "matgo",
            "players": 2,
            "expect_settings": [],
            "exit_code": 1,
            "chain_breaks_at": bad_seq,
        }
    )

    (out / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
    (out / "README.md").write_text(_readme(readme_rows, seq, card, bad_seq), encoding="utf-8")
    print(f"wrote {len(manifest)} samples to {out}", file=sys.stderr)
    return 0


def _readme(rows: list[str], seq: int, card: str, bad_seq: int) -> str:
    illegal = (
        f"`gostop audit --lenient`: the first violation is seq {seq}, rule `card_in_hand` "
        f'("seat 1 does not hold {card}"), with seat 1\'s hand and the cards it could have '
        "played; the rest of the hand is unchecked (strict: the hand is not audited)"
    )
    tamper = (
        f"the hash chain breaks at seq {bad_seq}; the payment also differs, explained by a "
        "halved stake or a missing multiplier"
    )
    head = """# Dispute samples

Real simulated games (every card, capture and decision played by the seeded simulator, so
each log validates strictly and its hash chain is intact) whose last hand the table paid
by another house rule than the game's pinned ruleset. `gostop audit FILE` shows the payout
proof, the recorded payment beside the computed one, and names the house rule that
explains the recorded amount (exit code 1: the payment disagrees).

Try `gostop audit samples/disputes/go_bak.jsonl`, the same with `--json`, or check a claim
with `--claim "PAYER->PAYEE=CHIPS"` (payer and payee as seat numbers, player ids such as
`p1`, or names such as `"Player 2"`).

Regenerate with `.venv/bin/python samples/disputes/make_disputes.py` (see its docstring);
`manifest.json` lists what the tests expect of each file.

| file | ruleset | what the table did | the payment | expected audit finding (first explanation) |
|---|---|---|---|---|
"""
    tail = f"""
Record samples:

| file | what it shows | expected audit finding | exit |
|---|---|---|---|
| `clean.jsonl` | a 2-hand matgo game paid exactly as the rules make due | everything agrees | 0 |
| `illegal_play.jsonl` | seat 1 plays {card}, which seat 0 holds | {illegal} | 1 |
| `tampered_payment.jsonl` | the recorded payment halved after the log was sealed | {tamper} | 1 |
"""
    return head + "\n".join(rows) + "\n" + tail


if __name__ == "__main__":
    sys.exit(main())
