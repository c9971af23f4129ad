"""Rulesets: one frozen model with a field for every rule that differs between tables.

Go-Stop has no single rulebook. The two source documents (the general rules page and the
CARDAVIA page), the big Korean services and house rules disagree on dozens of points, and a
payout dispute is usually one of those points. So every difference and every ambiguity of
the rules reference (RULES.md sections 1C, 3 and 5) is a named, documented field here, and a
game pins its fully resolved ruleset (with a content hash) in its first event: a hand
recorded today is re-scored years later under the rules the table agreed.

Presets: ``cardavia`` (RULES.md 1B), ``gamerules`` (1A), ``matgo`` (standard 2-player),
``gostop3`` (standard 3-player). A custom ruleset is a preset plus overrides from a TOML or
JSON file (see :func:`load_ruleset_file`).

Rules that every preset shares and no source disputes are not fields: a dealt triple is one
stack; the first player is the dealer and takes bonus cards dealt to the layout; the re-Go
threshold compares the combination score (Go bonus excluded) with its value at the last Go
(A14); a bomb is optional (A31); Go points are added before multipliers (A17).
"""

from __future__ import annotations

# every rule's enum, name for name: the list is kept in one place, beside them
from . import choices
from .choices import *  # noqa: F403
from .loading import apply_overrides, diff, load_ruleset_file, resolve
from .presets import PRESETS, get_preset
from .ruleset import ADDED_FIELDS, Ruleset

__all__ = [
    *choices.__all__,
    "ADDED_FIELDS",
    "PRESETS",
    "Ruleset",
    "apply_overrides",
    "diff",
    "get_preset",
    "load_ruleset_file",
    "resolve",
]
