"""Which house rule explains a disputed amount: re-settle the hand under modified rulesets.

Most payout disputes are a table applying another rule than the one agreed: pi-bak with
another threshold, a Go payout from another rulebook, a forgotten nagari carry or stake. So
the audit settles the hand again with one setting changed (then two), keeps every change
under which the rules make exactly the disputed amount due, and says it in words.

Ranking: one setting before two; among those, changes closest to the pinned ruleset first
(a threshold off by one before one off by five; another stake last, because any amount
divisible by the points is "explained" by some stake). Values of one setting that give the
same amount are folded into one explanation (``same_with``). When nothing explains the
amount, the closest amounts found are returned instead.
"""

from __future__ import annotations

import dataclasses
import itertools
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from ..engine import rulebook as RB
from ..engine.rulebook import KEEP, Candidate, value_text
from ..engine.scoring import score
from ..engine.table import table_for
from .context import HandContext, Settlement, settle_under
from .model import Change, Explanation

__all__ = ["Candidate", "breakdown", "candidates", "explain_amount", "note_score"]

#: Words a note about a house rule uses that name no setting ("we play no pi-bak").
_FILLER = frozenset(
    (
        *("a", "an", "and", "as", "at", "by", "for", "here", "house", "in", "is", "it", "of"),
        *("on", "or", "our", "play", "played", "plays", "rule", "rules", "so", "table", "than"),
        *("that", "the", "their", "them", "there", "this", "to", "use", "used", "uses", "we"),
        "with",
    )
)
#: A note names a change when it holds more than this share of the change's words.
NOTE_MATCH = 0.5


def _words(text: str) -> set[str]:
    return {w for w in re.findall(r"[a-z0-9]+", text.lower().replace("_", " ")) if w not in _FILLER}


def note_score(notes: Iterable[str], texts: Iterable[str]) -> float:
    """How well the table's notes name a change said by ``texts`` (its words, its setting
    names): the best share of one text's words found in the notes, 0 to 1."""
    said: set[str] = set()
    for n in notes:
        said |= _words(n)
    best = 0.0
    for t in texts:
        words = _words(t)
        if words:
            best = max(best, len(words & said) / len(words))
    return best


def candidates(ctx: HandContext) -> list[Candidate]:
    """Every single change worth trying for this hand: each rule's alternatives
    (settings that cannot change any payment of the hand are left out)."""
    return RB.alternatives(ctx)


def _solved_stake(base: Settlement, payer: int, payee: int, chips: int) -> Candidate | None:
    """The stake under which this payment's points make ``chips``, if a whole one does."""
    return RB.STAKE.solved(base.stake, base.points(payer, payee), chips)


def _settle(ctx: HandContext, cands: tuple[Candidate, ...]) -> Settlement:
    updates: dict[str, Any] = {}
    stake = None
    role: Any = KEEP
    for c in cands:
        updates.update(c.updates)
        if c.stake is not None:
            stake = c.stake
        if c.cup_role is not KEEP:
            role = c.cup_role
    rules = ctx.rules.model_copy(update=updates) if updates else ctx.rules
    if role is KEEP:
        return settle_under(ctx, rules, stake)
    return settle_under(ctx, rules, stake, role)


def _changes(ctx: HandContext, c: Candidate) -> tuple[Change, ...]:
    pinned_rules = ctx.rules
    new_rules = ctx.rules.model_copy(update=c.updates) if c.updates else ctx.rules
    out = []
    if c.key == "stake":
        out.append(
            Change(
                "stake",
                c.value,
                ctx.stake,
                RB.words("stake", c.value, new_rules),
                RB.words("stake", ctx.stake, pinned_rules),
            )
        )
        return tuple(out)
    if c.key == "cup_role":
        pinned_role = ctx.facts.cup_role if ctx.facts is not None else None
        if pinned_role is None and ctx.facts is not None and ctx.cup_holder is not None:
            t = table_for(pinned_rules, ctx.players, ctx.stake)
            pinned_role = score(t, ctx.facts.piles[ctx.cup_holder], None).cup_role
        out.append(
            Change(
                "cup_role",
                c.value,
                pinned_role,
                RB.words("cup_role", c.value, new_rules, ctx.cup_holder),
                RB.words("cup_role", pinned_role, pinned_rules, ctx.cup_holder)
                + f" ({value_text(pinned_rules.cup_mode)} cup mode)",
            )
        )
        return tuple(out)
    # the key field first, then the fields it needs
    names = sorted(c.updates, key=lambda n: (n != c.key, n))
    for name in names:
        value = c.updates[name]
        pinned = getattr(pinned_rules, name)
        if value == pinned:
            continue
        out.append(
            Change(
                name,
                _json_value(value),
                _json_value(pinned),
                RB.words(name, value, new_rules, ctx.cup_holder),
                RB.words(name, pinned, pinned_rules, ctx.cup_holder)
                + f" ({name} = {value_text(pinned)})",
            )
        )
    return tuple(out)


def _json_value(v: Any) -> Any:
    if hasattr(v, "value"):
        return v.value
    if isinstance(v, frozenset):
        return sorted(_json_value(x) for x in v)
    if isinstance(v, tuple):
        return list(v)
    return v


def _instant_label(reason: str, k: int = 1) -> str:
    inst = RB.instant(reason)
    return inst.label(k) if inst is not None else reason


def _instant_name(reason: str) -> str:
    inst = RB.instant(reason)
    return inst.name if inst is not None else reason


def _eff(f: Any) -> int:
    return f.factor if f is not None and f.applies else 1


def effects(base: Settlement, alt: Settlement, payer: int, payee: int) -> tuple[str, ...]:
    """What a change does to one payment, in words, factor by factor."""
    out: list[str] = []
    bp, ap = base.proof, alt.proof
    if bp is not None and ap is not None:
        if ap.score.total != bp.score.total:
            out.append(f"the winner's score is {ap.score.total}, not {bp.score.total}")
        if ap.go_count and (ap.go_points != bp.go_points or ap.go_formula != bp.go_formula):
            out.append(f"Go payout {ap.go_formula} = {ap.go_points}")
        bl = {lp.loser: lp for lp in bp.losers}
        al = {lp.loser: lp for lp in ap.losers}
        if payer in al and payer in bl:
            bf = {f.rule: f for f in bl[payer].factors}
            af = {f.rule: f for f in al[payer].factors}
            for rid in [*af, *(n for n in bf if n not in af)]:
                a, b = af.get(rid), bf.get(rid)
                if _eff(a) == _eff(b):
                    continue
                name = RB.rule(rid).name
                if a is not None and _eff(a) > 1:
                    out.append(f"{name} x{a.factor} applies: {a.condition}")
                elif a is not None:
                    out.append(f"no {name}: {a.condition}")
                elif b is not None:
                    out.append(f"no {name} x{b.factor} where it applied: {b.condition}")
            if al[payer].pays_chips != bl[payer].pays_chips and al[payer].note:
                out.append(al[payer].note)
    if alt.carry != base.carry and (bp is None or ap is None):
        out.append(f"{RB.NAGARI_CARRY.name} x{alt.carry}, not x{base.carry}")
    reasons = {d.reason for d in (*base.dues, *alt.dues) if d.reason != "stop"}
    for why in sorted(reasons):
        b_pts = sum(
            d.points for d in base.dues if d.reason == why and d.payer == payer and d.payee == payee
        )
        a_pts = sum(
            d.points for d in alt.dues if d.reason == why and d.payer == payer and d.payee == payee
        )
        if a_pts != b_pts:
            out.append(f"{_instant_name(why)}: {a_pts} points, not {b_pts}")
    return tuple(out)


def breakdown(s: Settlement, payer: int, payee: int) -> tuple[str, ...]:
    """How the amount due from ``payer`` to ``payee`` is made up, line by line."""
    out: list[str] = []
    p = s.proof
    if p is not None and p.winner == payee:
        for lp in p.losers:
            if lp.loser != payer:
                continue
            out.append(
                f"score {p.score.total}, Go payout {p.go_formula} = {p.go_points} ({p.go_setting})"
            )
            for f in lp.factors:
                if f.applies and f.factor > 1:
                    out.append(f"x{f.factor} {f.name}: {f.condition}")
            out.append(
                f"{p.go_points} x {lp.multiplier} = {lp.points} points x {p.stake} chip(s) "
                f"= {lp.chips} chips"
            )
            if lp.pays_chips != lp.chips:
                out.append(
                    f"{lp.note}: seat {payer} pays {lp.pays_points} points = {lp.pays_chips} chips"
                )
    k: dict[str, int] = {}
    for d in s.dues:
        if d.reason == "stop" or d.payer != payer or d.payee != payee:
            continue
        k[d.reason] = k.get(d.reason, 0) + 1
        inst = RB.instant(d.reason)
        multiplied = (
            inst is not None
            and inst.wins
            and RB.INSTANT_WIN_MULTIPLIERS.multiplied(s.rules, d.reason)
        )
        name = _instant_label(d.reason, 1 if multiplied else k[d.reason])
        out.append(
            f"{name}: {d.points} points x {s.stake} chip(s) = {d.chips} chips"
            if multiplied
            else f"{name}: {d.points} points x {s.stake} chip(s) "
            f"= {d.chips} chips (instant, never multiplied by the hand's factors)"
        )
    parts = [d for d in s.dues if d.payer == payer and d.payee == payee]
    if len(parts) > 1:
        out.append(f"total {s.chips(payer, payee)} chips")
    if not out:
        out.append(f"nothing is due from seat {payer} to seat {payee} in this hand")
    return tuple(out)


@dataclass(slots=True)
class _Hit:
    cands: tuple[Candidate, ...]
    settlement: Settlement
    chips: int

    @property
    def cost(self) -> float:
        return sum(c.cost for c in self.cands)


def _fold(hits: list[_Hit]) -> list[tuple[_Hit, list[_Hit]]]:
    """Group hits that differ only in the value of one ranged setting."""
    groups: dict[tuple[Any, ...], list[_Hit]] = {}
    for h in hits:
        key = tuple((c.key, "*" if c.ranged else repr(c.value)) for c in h.cands)
        groups.setdefault(key, []).append(h)
    out = []
    for members in groups.values():
        members.sort(key=lambda h: (len(h.cands), h.cost))
        out.append((members[0], members[1:]))
    # a solved stake explains any multiple of the points: the weakest explanation, last
    out.sort(key=lambda g: (any(c.solved for c in g[0].cands), len(g[0].cands), g[0].cost))
    return out


def _span(labels: tuple[str, ...]) -> str:
    """``a=6, a=7, a=8`` as ``a=6..8`` when they are one setting's consecutive values."""
    names = {lb.partition("=")[0] for lb in labels}
    values = [lb.partition("=")[2] for lb in labels]
    if len(names) == 1 and len(labels) > 2 and all(v.isdecimal() for v in values):
        nums = sorted(int(v) for v in values)
        if nums == list(range(nums[0], nums[-1] + 1)):
            return f"{names.pop()}={nums[0]}..{nums[-1]}"
    return ", ".join(labels)


def _explanation(
    ctx: HandContext,
    base: Settlement,
    hit: _Hit,
    others: list[_Hit],
    payer: int,
    payee: int,
    verb: Callable[[str], str],
) -> Explanation:
    changes: list[Change] = []
    heads: list[Change] = []  # the change that names each house rule
    for c in hit.cands:
        mine = _changes(ctx, c)
        changes.extend(mine)
        heads.extend(mine[:1])
    eff = effects(base, hit.settlement, payer, payee)
    used = " and ".join(ch.text for ch in heads)
    pinned = " and ".join(ch.pinned_text for ch in heads)
    detail = f" ({'; '.join(eff)})" if eff else ""
    text = f"{verb(used)}{detail}, which makes {hit.chips} chips; this game's ruleset uses {pinned}"
    same = tuple(" + ".join(c.value_label() for c in o.cands) for o in others)
    if same:
        text += f"; the same amount also comes from {_span(same)}"
    return Explanation(tuple(changes), hit.chips, eff, text, same)


def _said(ctx: HandContext, hit: _Hit) -> list[str]:
    """What names a hit's changes: their words and their settings."""
    out = []
    for c in hit.cands:
        for ch in _changes(ctx, c):
            out += [ch.text, ch.setting]
    return out


def explain_amount(
    ctx: HandContext,
    payer: int,
    payee: int,
    chips: int,
    *,
    limit: int = 8,
    nearest: int = 3,
    notes: Sequence[str] = (),
) -> tuple[tuple[Explanation, ...], int, tuple[Explanation, ...]]:
    """(explanations, how many more were found, nearest candidates when none explains).

    Explanations are changes of one setting (else two) under which the rules make exactly
    ``chips`` due from ``payer`` to ``payee`` in this hand. ``notes``, what the table wrote
    with the payment, put the explanations they name first (``matches_note``).
    """
    base = settle_under(ctx)
    base_chips = base.chips(payer, payee)
    singles = candidates(ctx)
    solved = _solved_stake(base, payer, payee, chips)
    if solved is not None:
        singles.append(solved)
    tried: list[_Hit] = []
    for c in singles:
        s = _settle(ctx, (c,))
        tried.append(_Hit((c,), s, s.chips(payer, payee)))
    hits = [h for h in tried if h.chips == chips]
    if not any(not h.cands[0].solved for h in hits):
        pairable = [c for c in singles if not c.solved]
        for a, b in itertools.combinations(pairable, 2):
            if a.key == b.key or a.fields() & b.fields():
                continue
            s = _settle(ctx, (a, b))
            h = _Hit((a, b), s, s.chips(payer, payee))
            tried.append(h)
            if h.chips == chips:
                hits.append(h)

    def seems(used: str) -> str:
        return f"the table appears to have used {used}"

    folded = _fold(hits)
    scores = [0.0] * len(folded)
    if notes:
        # an explanation the table's note names ranks first (stable among equals)
        scores = [note_score(notes, _said(ctx, h)) for h, _ in folded]
        order = sorted(range(len(folded)), key=lambda i: scores[i] <= NOTE_MATCH)
        folded, scores = [folded[i] for i in order], [scores[i] for i in order]
    found = tuple(
        dataclasses.replace(
            _explanation(ctx, base, h, o, payer, payee, seems), matches_note=sc > NOTE_MATCH
        )
        for (h, o), sc in zip(folded[:limit], scores, strict=False)
    )
    more = max(0, len(folded) - limit)
    near: tuple[Explanation, ...] = ()
    if not hits:
        pool = [h for h in tried if h.chips != base_chips]
        pool.sort(key=lambda h: (abs(h.chips - chips), len(h.cands), h.cost))
        seen: set[int] = set()
        picked = []
        for h in pool:
            if h.chips in seen:
                continue
            seen.add(h.chips)
            picked.append(h)
            if len(picked) == nearest:
                break

        def would(used: str) -> str:
            return f"with {used}"

        near = tuple(_explanation(ctx, base, h, [], payer, payee, would) for h in picked)
    return found, more, near
