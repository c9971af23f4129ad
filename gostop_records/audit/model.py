"""What an audit returns: typed, frozen, JSON-ready records of every check and finding.

The audit is read by people (through :mod:`.render`) and by programs (the store, other
tools), so everything it finds is data first: each class has ``to_dict()`` giving plain JSON
values, and nothing here formats text for a terminal.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any

from ..engine.settlement import Due, Proof
from ..errors import Finding
from ..integrity.checkpoints import SignatureReport
from ..plain import Record, fields_dict

__all__ = [
    "AGREED",
    "DIFFERS",
    "UNCHECKED",
    "UNRECORDED",
    "ChainCheck",
    "Change",
    "Conservation",
    "Explanation",
    "GameAudit",
    "HandAudit",
    "InstantLine",
    "PaymentCheck",
    "RecordAudit",
    "Seat",
    "SettlementAudit",
    "SettlementItem",
    "SettlementSeat",
    "TransferCheck",
    "Violation",
]

#: Status of a payment check.
AGREED = "agreed"  # the amount is what the rules make due
DIFFERS = "differs"  # it is not: see the difference and the explanations
UNRECORDED = "unrecorded"  # the rules make a payment due that the record does not show
UNCHECKED = "unchecked"  # the hand could not be checked (the record breaks the rules in it)


@dataclass(frozen=True, slots=True)
class Seat(Record):
    """A seat and the player in it, as ``game_started`` names them."""

    seat: int
    id: str
    name: str

    def label(self) -> str:
        return f"seat {self.seat} ({self.name})" if self.name else f"seat {self.seat}"


@dataclass(frozen=True, slots=True)
class Change(Record):
    """One setting changed from the game's pinned ruleset (or the stake, or the cup's role).

    ``setting`` is a ruleset field name, ``stake``, or ``cup_role`` (the September cup
    counted as ``animal`` or ``junk`` whatever the ruleset's cup mode says).
    """

    setting: str
    value: Any
    pinned: Any
    text: str  # the changed rule in words: "a pi-bak threshold of at most 7 junk units"
    pinned_text: str  # the game's rule in words


@dataclass(frozen=True, slots=True)
class Explanation(Record):
    """A change of one or two settings under which the rules make exactly ``chips`` due."""

    changes: tuple[Change, ...]
    chips: int
    effects: tuple[str, ...]  # what the change does to this payment, factor by factor
    text: str  # the explanation in plain words
    same_with: tuple[str, ...] = ()  # other values giving the same amount: "pi_bak_max_units=9"
    matches_note: bool = False  # the table's note with the payment names this change

    DERIVED = ("settings",)

    @property
    def settings(self) -> tuple[str, ...]:
        return tuple(c.setting for c in self.changes)


@dataclass(frozen=True, slots=True)
class PaymentCheck(Record):
    """A recorded payment, a claim or a due payment, beside what the rules make due."""

    hand: int
    payer: int
    payee: int
    source: str  # "recorded", "claim", or "due" (due but not recorded)
    chips: int | None  # recorded or claimed chips; None when nothing is recorded
    computed: int  # chips the rules make due from payer to payee in this hand
    status: str  # AGREED, DIFFERS, UNRECORDED or UNCHECKED
    difference: int  # chips - computed (0 unless DIFFERS)
    difference_points: int | None  # the difference in points, when the stake divides it
    seqs: tuple[int, ...] = ()  # the payment_recorded events summed
    claim: str | None = None  # the claim as given
    notes: tuple[str, ...] = ()  # what the table noted with the payment (its note, notes on it)
    lines: tuple[str, ...] = ()  # how the computed amount is made up
    explanations: tuple[Explanation, ...] = ()
    more_explanations: int = 0  # explanations found beyond those listed
    nearest: tuple[Explanation, ...] = ()  # when nothing explains it: the closest amounts
    finding: str = ""

    DERIVED = ("agreed",)

    @property
    def agreed(self) -> bool:
        return self.status != DIFFERS


@dataclass(frozen=True, slots=True)
class InstantLine(Record):
    """An instant payment (four of a month, three ppuk, first-turn ppuk or ttadak)."""

    payer: int
    payee: int
    points: int
    chips: int
    reason: str
    text: str


@dataclass(frozen=True, slots=True)
class Conservation(Record):
    """Whether every card of the deck is in exactly one place at the end of a hand."""

    hand: int
    checked: bool
    problems: tuple[str, ...] = ()
    cards: int = 0  # cards accounted for (known places plus counted unknown ones)
    deck: int = 0

    DERIVED = ("ok",)

    @property
    def ok(self) -> bool:
        return not self.problems


@dataclass(frozen=True, slots=True)
class HandAudit(Record):
    """One hand: how it ended, its payout proof, instant payments, payments vs computed."""

    hand: int
    dealer: int | None
    outcome: str  # stop, instant, nagari, void, unchecked, in_progress, not_audited
    winner: int | None
    reason: str
    carry: int
    next_carry: int
    stake: int
    summary: str
    proof: Proof | None
    instants: tuple[InstantLine, ...]
    dues: tuple[Due, ...]
    payments: tuple[PaymentCheck, ...]
    conservation: Conservation
    #: multipliers this ruleset does not play, so the proof has no line for them
    not_in_ruleset: tuple[str, ...] = ()

    DERIVED = ("ok",)

    @property
    def ok(self) -> bool:
        return self.conservation.ok and all(p.agreed for p in self.payments)


@dataclass(frozen=True, slots=True)
class ChainCheck(Record):
    """The hash chain and seq order of the log (:func:`gostop_records.log.verify`)."""

    ok: bool
    reason: str
    first_bad_seq: int | None
    events: int


@dataclass(frozen=True, slots=True, kw_only=True)
class Violation(Finding):
    """A fact of the record that breaks the rules (a finding of severity ``violation`` or
    ``warning``), told with the action it records and what the rules would have done."""

    text: str  # the finding in one sentence, naming the recorded action
    expected: dict[str, Any] | None = None  # what the rules derive (a payload)
    recorded: dict[str, Any] | None = None  # what the log records (a payload)
    legal: tuple[dict[str, Any], ...] = ()  # the inputs the rules allowed at that point
    legal_text: str = ""

    @classmethod
    def of(cls, finding: Finding, **told: Any) -> Violation:
        """``finding`` as it was found (its place, rule, reason and severity), ``told`` in
        words: its ``text`` and what else this class adds or gives as JSON."""
        return cls(**{f.name: getattr(finding, f.name) for f in fields(Finding)} | told)

    def to_dict(self) -> dict[str, Any]:
        return fields_dict(self)


@dataclass(frozen=True, slots=True)
class RecordAudit(Record):
    """The record itself: chain, rule violations (lenient logs), card conservation."""

    chain: ChainCheck
    lenient: bool
    violations: tuple[Violation, ...]
    warnings: tuple[Violation, ...]
    first_violation: Violation | None
    stopped_at: int | None  # strict audit: hands from this seq on were not audited
    #: Every key, checkpoint and countersignature, and what is wrong with them.
    signatures: SignatureReport | None = None

    DERIVED = ("ok",)

    @property
    def ok(self) -> bool:
        signed = self.signatures is None or self.signatures.ok
        return self.chain.ok and not self.violations and signed


@dataclass(frozen=True, slots=True)
class SettlementItem(Record):
    """One hand's part in a seat's night total: a due of the hand (after caps), from the
    same proof the hand's audit shows, signed for the seat (positive: received)."""

    hand: int
    payer: int
    payee: int
    chips: int
    reason: str


@dataclass(frozen=True, slots=True)
class SettlementSeat(Record):
    """A seat's night: ``total`` over all hands (the sum of ``by_hand``), what was paid
    during the night, what the settlement said it was still owed, and the ``items``."""

    seat: int
    total: int
    paid_during_night: int
    owed: int
    by_hand: tuple[tuple[int, int], ...]  # (hand, net chips of the seat in it)
    items: tuple[SettlementItem, ...]


@dataclass(frozen=True, slots=True)
class TransferCheck(Record):
    """A transfer of the settlement: as proposed and as paid (``settlement_paid``).

    ``status``: AGREED (paid as proposed), DIFFERS (another amount, or a transfer the
    proposal does not name: the table's note says why) or UNRECORDED (proposed, not paid)."""

    payer: int
    payee: int
    proposed: int | None  # the proposed chips; None: the proposal names no such transfer
    chips: int | None  # the chips paid; None: not paid
    status: str
    seq: int | None = None  # the settlement_paid
    note: str | None = None
    difference: int = 0  # chips - proposed (a transfer not proposed: its chips)

    DERIVED = ("agreed",)

    @property
    def agreed(self) -> bool:
        return self.status != DIFFERS


@dataclass(frozen=True, slots=True)
class SettlementAudit(Record):
    """The night's settlement of a closed game: each seat's total itemised by hand, the
    proposed transfers, and every paid transfer beside its proposal."""

    closed_seq: int
    seats: tuple[SettlementSeat, ...]
    transfers: tuple[TransferCheck, ...]

    DERIVED = ("ok",)

    @property
    def disagreements(self) -> tuple[TransferCheck, ...]:
        return tuple(t for t in self.transfers if not t.agreed)

    @property
    def ok(self) -> bool:
        return not self.disagreements


@dataclass(frozen=True, slots=True)
class GameAudit(Record):
    """The audit of a game: the record, then each hand's proof and payments."""

    game_id: str
    ruleset: str
    ruleset_hash: str
    seats: tuple[Seat, ...]
    stake: int
    record: RecordAudit
    hands: tuple[HandAudit, ...]
    #: the night's settlement, when the game was closed (``game_closed``)
    settlement: SettlementAudit | None = None

    DERIVED = ("ok",)

    @property
    def disagreements(self) -> tuple[PaymentCheck, ...]:
        return tuple(p for h in self.hands for p in h.payments if not p.agreed)

    @property
    def conservation_problems(self) -> tuple[Conservation, ...]:
        return tuple(h.conservation for h in self.hands if not h.conservation.ok)

    @property
    def ok(self) -> bool:
        """True when the record is sound and every payment, claim and paid transfer of
        the night's settlement agrees."""
        settled = self.settlement is None or self.settlement.ok
        return self.record.ok and all(h.ok for h in self.hands) and settled

    def seat_label(self, seat: int) -> str:
        for s in self.seats:
            if s.seat == seat:
                return s.label()
        return f"seat {seat}"

    def to_dict(self) -> dict[str, Any]:
        return {**Record.to_dict(self), "disagreements": len(self.disagreements)}
