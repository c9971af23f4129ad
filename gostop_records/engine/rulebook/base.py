"""The shape of a rule: a stable id, a name, the settings it reads, its words, its audit.

A rule is a small class with one instance in the registry (``rulebook/__init__.py``), the
way a mahjong scorer writes one class per yaku, but carrying what a dispute needs: the
:class:`~gostop_records.rules.Ruleset` fields it reads (``settings``), each setting's value
in plain words (:meth:`Rule.words`), and the other settings a table may have used instead
(:meth:`Rule.alternatives`), which the audit settles the hand under. The id is stable: it
names score lines (``ScoreLine.combo``), factors (``Factor.rule``), SQL columns and JSON
keys; the name is display text and may change.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Protocol

from ...rules import Ruleset

__all__ = [
    "KEEP",
    "AuditContext",
    "Candidate",
    "Rule",
    "bak",
    "flag",
    "ints",
    "near",
    "value_text",
]

#: A candidate leaves the cup's role as recorded.
KEEP: Any = object()


@dataclass(frozen=True, slots=True)
class Candidate:
    """One house rule to try: a change of one setting (with any field it needs to take
    effect), as the audit re-settles a hand under it."""

    key: str  # the setting, for grouping and for keeping pairs apart
    value: Any
    updates: dict[str, Any] = field(default_factory=dict)  # ruleset fields
    stake: int | None = None
    cup_role: Any = KEEP
    cost: float = 1.0
    solved: bool = False  # a value solved from the disputed amount (another stake)
    ranged: bool = False  # one value of a numeric setting: folded with its neighbours
    label: str = ""  # how the value is named among "the same amount also comes from ..."

    def fields(self) -> frozenset[str]:
        names = set(self.updates)
        if self.stake is not None:
            names.add("stake")
        if self.cup_role is not KEEP:
            names.add("cup_role")
        return frozenset(names)

    def value_label(self) -> str:
        return self.label or f"{self.key}={value_text(self.value)}"


class AuditContext(Protocol):
    """What a rule's alternatives look at: the hand as the audit sees it."""

    rules: Ruleset
    players: int
    stake: int
    outcome: str
    facts: Any  # HandFacts of a hand won by a Stop, else None
    nagari_streak: int
    instants: Sequence[Any]  # instant payments made, each with a ``reason``
    cup_holder: int | None


def value_text(value: Any) -> str:
    """A setting's value as a ruleset file would write it."""
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "true" if value else "false"
    if hasattr(value, "value"):
        return str(value.value)
    if isinstance(value, frozenset | set):
        return "[" + ", ".join(sorted(value_text(x) for x in value)) + "]"
    if isinstance(value, tuple | list):
        return "[" + ", ".join(str(x) for x in value) + "]"
    return str(value)


def near(value: int, pinned: int) -> float:
    """The cost of a numeric alternative: a threshold off by one before one off by five."""
    return 1.0 + 0.05 * abs(value - pinned)


def flag(r: Ruleset, name: str) -> Iterator[Candidate]:
    """A boolean setting the other way."""
    yield Candidate(name, not getattr(r, name), {name: not getattr(r, name)})


def ints(r: Ruleset, name: str, values: Iterable[int | None]) -> Iterator[Candidate]:
    """Every other value of a numeric setting."""
    pinned = getattr(r, name)
    for v in values:
        if v != pinned:
            cost = near(v, pinned) if v is not None and pinned is not None else 1.0
            yield Candidate(name, v, {name: v}, cost=cost, ranged=True)


def bak(r: Ruleset, name: str, threshold: str, values: Iterable[int]) -> Iterator[Candidate]:
    """A multiplier with a threshold: on, try it off and at other thresholds; off, try it on
    at each threshold."""
    if getattr(r, name):
        yield from flag(r, name)
        yield from ints(r, threshold, values)
        return
    pinned = getattr(r, threshold)
    for v in values:
        yield Candidate(
            name,
            True,
            {name: True, threshold: v},
            cost=near(v, pinned),
            ranged=True,
            label=f"{threshold}={v}",
        )


class Rule:
    """A rule a dispute can be about. Subclasses set the class attributes and override what
    they need; the registry holds one instance of each."""

    __slots__ = ()

    #: "combination", "factor" or "instant"
    kind: ClassVar[str] = ""
    id: ClassVar[str] = ""
    name: ClassVar[str] = ""
    #: Ruleset fields the rule reads, in the order ``gostop rules show`` lists them.
    settings: ClassVar[tuple[str, ...]] = ()
    #: The ``rules show`` group of those settings.
    group: ClassVar[str] = "Settlement"
    #: Reference into RULES.md.
    ref: ClassVar[str] = ""

    @property
    def text(self) -> str:
        """What the rule does, in one sentence (the class docstring's first paragraph)."""
        doc = type(self).__doc__ or ""
        return " ".join(doc.strip().split("\n\n")[0].split()).replace("``", "")

    def words(self, setting: str, value: Any, rules: Ruleset, cup_holder: int | None) -> str | None:
        """One of the rule's settings at a value, in words (None: not the rule's setting)."""
        return None

    def alternatives(self, ctx: AuditContext) -> Iterator[Candidate]:
        """The other settings of this rule worth trying for this hand."""
        return iter(())

    def absent(self, rules: Ruleset) -> str | None:
        """When a table may expect the rule and this ruleset does not play it: what it is,
        with the setting (for the audit's "not in this ruleset")."""
        return None

    def describe(self, rules: Ruleset | None = None) -> dict[str, Any]:
        """The rule as JSON: id, name, kind, what it does, its settings (with their values
        under ``rules``)."""
        out: dict[str, Any] = {"id": self.id, "name": self.name, "kind": self.kind}
        out["text"] = self.text
        if self.ref:
            out["ref"] = self.ref
        if rules is None:
            out["settings"] = list(self.settings)
        else:
            content = rules.content()
            out["settings"] = {s: content[s] for s in self.settings if s in content}
        return out

    def __repr__(self) -> str:
        return f"<{self.kind} {self.id}>"
