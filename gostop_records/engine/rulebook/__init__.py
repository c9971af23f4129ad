"""The rulebook: every rule a payout dispute can be about, one named object each.

- :data:`COMBINATIONS` score a pile (``combinations.py``), with :data:`CUP` for the
  September cup's role;
- :data:`FACTORS` turn the winner's score into what each loser pays: the Go bonus
  (``go.py``), the :data:`MULTIPLIERS`, dokbak, multiplied instant wins, the stake
  (``multipliers.py``);
- :data:`INSTANTS` are the payments made at once (``instants.py``).

Each rule has a stable id (``pi_bak``), the ruleset settings it reads, its logic, its words
and the alternative settings an audit tries. Scoring and settlement fold over these lists;
the audit's findings, the store's score and payout columns, ``db stats`` and ``gostop rules``
are derived from them. Adding a house rule is one object here and its tests.
"""

from __future__ import annotations

from typing import Any

from ...rules import Ruleset
from .base import KEEP, AuditContext, Candidate, Rule, value_text
from .combinations import (
    ANIMALS,
    BRIGHTS,
    CHEONGDAN,
    CHODAN,
    COMBINATIONS,
    CUP,
    GODORI,
    HONGDAN,
    JUNK,
    RIBBONS,
    Combination,
)
from .go import GO_BONUS, formula_of
from .groups import GROUP_TITLES, OTHER, PLAY_SETTINGS
from .instants import (
    FIRST_PPUK,
    FIRST_TTADAK,
    HAND_FOUR,
    HUDANG,
    INSTANTS,
    LAYOUT_FOUR,
    THREE_PPUK,
    Instant,
)
from .multipliers import (
    BOMB,
    DOKBAK,
    GO_BAK,
    GWANG_BAK,
    HAND_FOUR_KEPT,
    INSTANT_WIN_MULTIPLIERS,
    JACKPOT,
    MEONG_TTA,
    MULTIPLIERS,
    NAGARI_CARRY,
    PI_BAK,
    SHAKE,
    STAKE,
    Loser,
    Multiplier,
)
from .seats import FIRST_DEALER_DRAW, GWANG_PALI

__all__ = [
    "ANIMALS",
    "AUDITED",
    "BOMB",
    "BRIGHTS",
    "BY_ID",
    "CHEONGDAN",
    "CHODAN",
    "COMBINATIONS",
    "CUP",
    "DOKBAK",
    "FACTORS",
    "FIRST_DEALER_DRAW",
    "FIRST_PPUK",
    "FIRST_TTADAK",
    "GODORI",
    "GO_BAK",
    "GO_BONUS",
    "GROUP_TITLES",
    "GWANG_BAK",
    "GWANG_PALI",
    "HAND_FOUR",
    "HAND_FOUR_KEPT",
    "HONGDAN",
    "HUDANG",
    "INSTANTS",
    "INSTANT_WIN_MULTIPLIERS",
    "JACKPOT",
    "JUNK",
    "KEEP",
    "LAYOUT_FOUR",
    "MEONG_TTA",
    "MULTIPLIERS",
    "NAGARI_CARRY",
    "PAYOUT_FLAGS",
    "PI_BAK",
    "RIBBONS",
    "RULES",
    "SHAKE",
    "STAKE",
    "THREE_PPUK",
    "AuditContext",
    "Candidate",
    "Combination",
    "Instant",
    "Loser",
    "Multiplier",
    "Rule",
    "alternatives",
    "describe",
    "formula_of",
    "group_of",
    "grouped_settings",
    "instant",
    "owner",
    "rule",
    "value_text",
    "words",
]

#: Every payout factor, in the order settlement applies them.
FACTORS: tuple[Rule, ...] = (GO_BONUS, *MULTIPLIERS, DOKBAK, INSTANT_WIN_MULTIPLIERS, STAKE)

#: Every rule, each exactly once.
RULES: tuple[Rule, ...] = (
    *COMBINATIONS,
    CUP,
    *FACTORS,
    *INSTANTS,
    GWANG_PALI,
    FIRST_DEALER_DRAW,
)

BY_ID: dict[str, Rule] = {r.id: r for r in RULES}

#: The order the audit tries alternatives in: among explanations equally close to the
#: pinned ruleset, the earlier rule is named first.
AUDITED: tuple[Rule, ...] = (
    GO_BONUS,
    GWANG_BAK,
    PI_BAK,
    MEONG_TTA,
    GO_BAK,
    SHAKE,
    BOMB,
    HAND_FOUR_KEPT,
    CUP,
    NAGARI_CARRY,
    JACKPOT,
    *INSTANTS,
    INSTANT_WIN_MULTIPLIERS,
    GWANG_PALI,
    FIRST_DEALER_DRAW,
    STAKE,
)

#: The rules with a BOOLEAN flag column of their id in the ``payouts`` table, in its order.
PAYOUT_FLAGS: tuple[Rule, ...] = tuple(r for r in FACTORS if getattr(r, "column", False))

_INSTANTS = {i.id: i for i in INSTANTS}


def rule(rule_id: str) -> Rule:
    """The rule with this id (KeyError when there is none)."""
    return BY_ID[rule_id]


def instant(reason: str) -> Instant | None:
    """The instant payment of a ``payment_due.reason`` (None for ``stop``)."""
    return _INSTANTS.get(reason)


def owner(setting: str) -> Rule | None:
    """The first rule that reads this setting (None: a setting no payout rule reads)."""
    for r in RULES:
        if setting in r.settings:
            return r
    return None


def group_of(setting: str) -> str:
    """The ``rules show`` group of a ruleset setting: its rule's, else its rule of play's."""
    r = owner(setting)
    if r is not None:
        return r.group
    return PLAY_SETTINGS.get(setting, OTHER)


def grouped_settings(rules: Ruleset) -> list[tuple[str, list[str]]]:
    """The settings of ``rules`` by group, in :data:`GROUP_TITLES` order, each exactly once."""
    by_group: dict[str, list[str]] = {}
    for name in rules.content():
        by_group.setdefault(group_of(name), []).append(name)
    titles = [*GROUP_TITLES, *(t for t in by_group if t not in GROUP_TITLES)]
    return [(t, by_group[t]) for t in titles if t in by_group]


def words(setting: str, value: Any, rules: Ruleset, cup_holder: int | None = None) -> str:
    """A setting at a value, in words, by the rule that reads it; ``rules`` supplies the
    related values (thresholds). ``stake`` and ``cup_role`` are words too."""
    for r in AUDITED:
        text = r.words(setting, value, rules, cup_holder)
        if text is not None:
            return text
    return f"{setting} = {value}"


def alternatives(ctx: AuditContext) -> list[Candidate]:
    """Every single change worth trying for this hand, rule by rule (settings that cannot
    change any payment of the hand are left out)."""
    return [c for r in AUDITED for c in r.alternatives(ctx)]


def describe(rules: Ruleset | None = None) -> dict[str, Any]:
    """The rulebook as JSON: every combination, factor and instant payment by id, with its
    settings (and their values under ``rules``)."""
    return {
        "combinations": [c.describe(rules) for c in (*COMBINATIONS, CUP)],
        "factors": [f.describe(rules) for f in FACTORS],
        "instants": [i.describe(rules) for i in INSTANTS],
        "sales": [GWANG_PALI.describe(rules)],
        "table": [FIRST_DEALER_DRAW.describe(rules)],
    }
