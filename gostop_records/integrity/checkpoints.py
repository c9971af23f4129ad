"""Signed checkpoints and countersignatures: making them, and checking every one in a record.

A recorder that signs puts its public key in the record (``key_added``) and, at the end of
each hand, signs the head of the record (``checkpoint_signed``): the hash of the hand's last
event, which the chain ties to every event before it. Players may countersign a checkpoint's
head with their own keys (``result_countersigned``): the service lets each phone do it, with
:func:`countersign` on the phone's side or :func:`countersignature` for a signature made
elsewhere. These events are metadata: the projector accepts them anywhere and the rules
ignore them.

:func:`check` checks every signature of a game and names who signed what. What it finds:

- a checkpoint whose head is not the record's head at that seq (the events before it were
  changed and re-hashed), a signature that does not verify (the checkpoint was changed or
  forged), a checkpoint signed by a key no ``key_added`` declares;
- a countersignature that does not verify with the key it carries, or whose head is not the
  record's, or by a seat that countersigned earlier with another key (a wrong key);
- a hand that ended without a checkpoint where the recorder signs: the record was cut
  after that hand's end, or its checkpoint removed;
- a last hand whose payments were all recorded with no checkpoint after the last of them
  (the recorder signs again once the payments are in): the record was cut after them.

A record cut right after a checkpoint is whole as far as the file can tell: a seal written
down at the table (:mod:`.seals`) or a signature seen elsewhere is what shows the loss.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from .. import events as E
from ..errors import Finding, GostopError
from ..names import is_sealed
from .signing import PublicKey, SigningKey, checkpoint_message, countersign_message

__all__ = [
    "Signature",
    "SignatureReport",
    "check",
    "checkpoint",
    "countersign",
    "countersignature",
    "key_added",
]


def key_added(key: SigningKey, holder: str | None = None) -> E.KeyAdded:
    """The ``key_added`` event that puts a recorder's public key into a record."""
    return E.KeyAdded(key=key.public.text, holder=holder if holder is not None else key.holder)


def checkpoint(game_id: str, head: E.Envelope, key: SigningKey) -> E.CheckpointSigned:
    """The recorder's signed checkpoint of the record's head (its latest event)."""
    message = checkpoint_message(game_id, head.seq, head.hash)
    return E.CheckpointSigned(
        head_seq=head.seq, head=head.hash, key=key.fingerprint, signature=key.sign(message)
    )


def countersign(
    game_id: str, seat: int, head_seq: int, head: str, key: SigningKey
) -> E.ResultCountersigned:
    """A player's countersignature of a checkpoint's head, made with the player's key."""
    message = countersign_message(game_id, seat, head_seq, head)
    return E.ResultCountersigned(
        seat=seat, head_seq=head_seq, head=head, key=key.public.text, signature=key.sign(message)
    )


def countersignature(
    game_id: str, seat: int, head_seq: int, head: str, public_key: str, signature: str
) -> E.ResultCountersigned:
    """A countersignature made elsewhere (a player's phone), checked before it is recorded.

    Raises :class:`~gostop_records.errors.GostopError` when the key cannot be read or the
    signature does not verify for this game, seat and head.
    """
    pub = PublicKey.from_text(public_key)
    if not pub.verify(signature, countersign_message(game_id, seat, head_seq, head)):
        raise GostopError(
            f"the countersignature of seat {seat} does not verify with key {pub.fingerprint} "
            f"for game {game_id!r}, head seq {head_seq}"
        )
    return E.ResultCountersigned(
        seat=seat, head_seq=head_seq, head=head, key=pub.text, signature=signature
    )


@dataclass(frozen=True, slots=True)
class Signature:
    """One signature in a record: who signed which head."""

    seq: int
    kind: str  # "checkpoint" or "countersignature"
    head_seq: int
    hand: int | None
    fingerprint: str
    signer: str  # the key's holder, or "seat 1 (Ben)"
    seat: int | None
    valid: bool

    def describe(self) -> str:
        what = f"hand {self.hand}" if self.hand is not None else "the game"
        verdict = "" if self.valid else " (INVALID)"
        if self.kind == "checkpoint":
            return (
                f"seq {self.seq}: checkpoint of {what} (head seq {self.head_seq}) signed by "
                f"recorder key {self.fingerprint} ({self.signer}){verdict}"
            )
        return (
            f"seq {self.seq}: {self.signer} countersigned {what} (head seq {self.head_seq}) "
            f"with key {self.fingerprint}{verdict}"
        )


@dataclass(slots=True)
class SignatureReport:
    """Every key and signature of a game, and what is wrong with them."""

    game_id: str | None = None
    keys: list[tuple[int, str, str]] = field(default_factory=list)  # seq, fingerprint, holder
    signatures: list[Signature] = field(default_factory=list)
    problems: list[Finding] = field(default_factory=list)
    #: The latest seq whose head a valid signed checkpoint covers.
    vouched_until: int | None = None

    @property
    def ok(self) -> bool:
        return not self.problems

    @property
    def signed(self) -> bool:
        """Whether the recorder signs this game (a key was added)."""
        return bool(self.keys)

    def summary(self) -> str:
        if not self.keys and not self.signatures:
            return "not signed (no recorder key in the record)"
        good = sum(s.valid for s in self.signatures)
        bad = len(self.signatures) - good
        cps = sum(s.kind == "checkpoint" and s.valid for s in self.signatures)
        counter = good - cps
        text = (
            f"{len(self.keys)} recorder key(s), {cps} valid checkpoint(s), {counter} valid "
            f"countersignature(s)"
        )
        if bad:
            text += f", {bad} INVALID"
        if self.vouched_until is not None:
            text += f"; signed up to seq {self.vouched_until}"
        return text

    def who_signed(self) -> list[str]:
        """Who signed what, one line per key: the recorder's checkpoints, each player's
        countersignatures (valid ones only; the invalid are problems)."""
        by_key: dict[tuple[str, str], list[Signature]] = {}
        for sig in self.signatures:
            if sig.valid:
                by_key.setdefault((sig.kind, sig.fingerprint), []).append(sig)
        out = []
        for (kind, fp), sigs in by_key.items():
            hands = sorted({s.hand for s in sigs if s.hand is not None})
            what = (
                ("hand " if len(hands) == 1 else "hands ") + ", ".join(map(str, hands))
                if hands
                else "the game's start"
            )
            latest = max(s.head_seq for s in sigs)
            if kind == "checkpoint":
                out.append(
                    f"recorder key {fp} ({sigs[0].signer}) signed {what} (up to seq {latest})"
                )
            else:
                out.append(f"{sigs[0].signer} with key {fp} countersigned {what}")
        return out

    def to_dict(self) -> dict[str, Any]:
        return {
            "ok": self.ok,
            "summary": self.summary(),
            "who_signed": self.who_signed(),
            "keys": [{"seq": s, "fingerprint": f, "holder": h} for s, f, h in self.keys],
            "signatures": [asdict(s) for s in self.signatures],
            "problems": [p.to_dict() for p in self.problems],
            "vouched_until": self.vouched_until,
        }


def _ended_hands(envs: Sequence[E.Envelope]) -> dict[int, int]:
    """Hand -> seq of its ``hand_ended``, for the hands whose end stands (a Stop undone
    after the hand ended is left out)."""
    ended: dict[int, int] = {}
    for env in envs:
        ev = env.event
        t = type(ev)
        if t is E.HandEnded and env.hand is not None:
            ended[env.hand] = env.seq
        elif t is E.EntryRetracted and env.hand in ended and ev.seq < ended[env.hand]:
            del ended[env.hand]
    return ended


#: The events :func:`check` reads (with the hands and heads they name).
def check(envelopes: Sequence[E.Envelope]) -> SignatureReport:
    """Check every key, checkpoint and countersignature of one game's events (in seq order).

    See the module docstring for what is found; names come from ``game_started``.
    """
    envs = list(envelopes)
    report = SignatureReport(envs[0].game_id if envs else None)
    # the events this check reads; a game without any (most games) has nothing to check
    signing = [env for env in envs if isinstance(env.event, E.Metadata)]
    if not signing:
        return report
    checker = _Checker(envs, report)
    # one pass in seq order: keys, checkpoints and countersignatures depend on each other
    for env in signing:
        _CHECKS[type(env.event)](checker, env)
    if report.keys:
        report.problems.extend(_Unsealed(envs, report.keys[0][0], checker.checkpoints).findings())
    return report


class _Checker:
    """What :func:`check` has read so far of one game's signing events, and the check of each."""

    def __init__(self, envs: list[E.Envelope], report: SignatureReport) -> None:
        self.gid = envs[0].game_id
        self.by_seq = {env.seq: env for env in envs}
        first = envs[0].event
        self.players = list(first.players) if type(first) is E.GameStarted else []
        self.report = report
        self.problems = report.problems
        self.keys: dict[str, tuple[PublicKey, str]] = {}  # fingerprint -> key, holder
        self.seat_keys: dict[int, tuple[str, int]] = {}  # seat -> fingerprint, seq first used
        self.checkpoints: list[tuple[int, int, bool]] = []  # seq, head seq, valid

    def seat_name(self, seat: int) -> str:
        players = self.players
        if seat < len(players) and players[seat].name and not is_sealed(players[seat].name):
            return f"seat {seat} ({players[seat].name})"
        return f"seat {seat}"

    def head_ok(self, seq: int, head_seq: int, head: str, what: str) -> bool:
        """Whether the head a checkpoint or countersignature signs is an earlier event of
        the record, as it stands; a finding of the ``<what>_head`` rule where it is not."""
        target = self.by_seq.get(head_seq)
        if head_seq >= seq:
            why = f"the {what} at seq {seq} covers seq {head_seq}, which is not before it"
        elif target is None:
            why = f"the {what} covers seq {head_seq}, which the record does not hold"
        elif target.hash != head:
            why = (
                f"the {what} signs head {head[:12]}... at seq {head_seq}; the record's "
                f"event there has hash {target.hash[:12]}...: events up to seq {head_seq} "
                "were changed and re-hashed after they were signed"
            )
        else:
            return True
        return self.fail(seq, f"{what}_head", why)

    def fail(self, seq: int, rule: str, reason: str) -> bool:
        """A finding of ``rule`` at ``seq``; False, for the check it fails."""
        self.problems.append(Finding(seq=seq, rule=rule, reason=reason))
        return False

    def key_added(self, env: E.Envelope) -> None:
        ev = env.event
        try:
            pub = PublicKey.from_text(ev.key)
        except GostopError as exc:
            self.problems.append(Finding(seq=env.seq, rule="key", reason=f"key_added: {exc}"))
            return
        self.keys[pub.fingerprint] = (pub, ev.holder)
        self.report.keys.append((env.seq, pub.fingerprint, ev.holder))

    def checkpoint(self, env: E.Envelope) -> None:
        ev = env.event
        known = self.keys.get(ev.key)
        holder = known[1] if known else "unknown key"
        valid = self.head_ok(env.seq, ev.head_seq, ev.head, "checkpoint")
        if known is None:
            valid = self.fail(
                env.seq,
                "checkpoint_key",
                f"the checkpoint is signed by key {ev.key}, which no "
                f"key_added before "
                "it puts into the record",
            )
        elif not known[0].verify(ev.signature, checkpoint_message(self.gid, ev.head_seq, ev.head)):
            valid = self.fail(
                env.seq,
                "checkpoint_signature",
                f"the checkpoint's signature does not verify with recorder key "
                f"{ev.key} ({holder}): the checkpoint was changed or forged",
            )
        self.checkpoints.append((env.seq, ev.head_seq, valid))
        if valid:
            self.report.vouched_until = max(self.report.vouched_until or 0, ev.head_seq)
        hand = self.by_seq[ev.head_seq].hand if ev.head_seq in self.by_seq else env.hand
        self.report.signatures.append(
            Signature(env.seq, "checkpoint", ev.head_seq, hand, ev.key, holder, None, valid)
        )

    def countersignature(self, env: E.Envelope) -> None:
        ev = env.event
        try:
            pub = PublicKey.from_text(ev.key)
        except GostopError as exc:
            self.problems.append(Finding(seq=env.seq, rule="countersignature_key", reason=str(exc)))
            return
        who = self.seat_name(ev.seat)
        valid = True
        if self.players and ev.seat >= len(self.players):
            valid = self.fail(
                env.seq,
                "countersignature_seat",
                f"there is no seat {ev.seat} in this game",
            )
        valid = self.head_ok(env.seq, ev.head_seq, ev.head, "countersignature") and valid
        message = countersign_message(self.gid, ev.seat, ev.head_seq, ev.head)
        if not pub.verify(ev.signature, message):
            valid = self.fail(
                env.seq,
                "countersignature_signature",
                f"the countersignature of {who} does not verify with the key it "
                f"carries ({pub.fingerprint}): it was changed or made with another key",
            )
        before = self.seat_keys.get(ev.seat)
        if before is not None and before[0] != pub.fingerprint:
            valid = self.fail(
                env.seq,
                "countersignature_key",
                f"{who} countersigns with key {pub.fingerprint}, but countersigned "
                f"at seq {before[1]} with key {before[0]}: a wrong key",
            )
        elif before is None and valid:
            self.seat_keys[ev.seat] = (pub.fingerprint, env.seq)
        hand = self.by_seq[ev.head_seq].hand if ev.head_seq in self.by_seq else env.hand
        self.report.signatures.append(
            Signature(
                env.seq,
                "countersignature",
                ev.head_seq,
                hand,
                pub.fingerprint,
                who,
                ev.seat,
                valid,
            )
        )


#: The check of each signing event (every :class:`~gostop_records.events.Metadata` class).
_CHECKS: dict[type, Callable[[_Checker, E.Envelope], None]] = {
    E.KeyAdded: _Checker.key_added,
    E.CheckpointSigned: _Checker.checkpoint,
    E.ResultCountersigned: _Checker.countersignature,
}


def _no_checkpoint(seq: int, what: str, signs: str, it: str = "it", then: str = "") -> Finding:
    """A point the recorder signs at (``what``, by ``seq``) with no signed checkpoint after
    ``it``: by default, the record was cut after it or the checkpoint removed; ``then``
    says otherwise."""
    then = then or f"the record was cut after {it} (or that checkpoint removed)"
    return Finding(
        seq=seq,
        rule="checkpoint_missing",
        reason=f"{what} with no signed checkpoint after {it}; the recorder {signs}, so {then}",
    )


@dataclass(frozen=True, slots=True)
class _Unsealed:
    """The points of a record the recorder signs at with no signed checkpoint after them,
    from ``signing_from`` (the seq of the recorder's key) on; ``checkpoints`` are the
    record's (seq, head seq, valid)."""

    envs: Sequence[E.Envelope]
    signing_from: int
    checkpoints: list[tuple[int, int, bool]]

    def findings(self) -> Iterator[Finding]:
        yield from self.hand_ends()
        yield from self.payments()
        yield from self.settlement()

    def hand_ends(self) -> Iterator[Finding]:
        """Every hand that ended after the recorder's key was added needs a checkpoint after
        its end and before the next hand starts."""
        starts = {env.hand: env.seq for env in self.envs if type(env.event) is E.HandStarted}
        for hand, ended in sorted(_ended_hands(self.envs).items()):
            if ended < self.signing_from:
                continue
            until = starts.get(hand + 1, self.envs[-1].seq + 1)
            found = [(s, h, ok) for s, h, ok in self.checkpoints if h >= ended and s < until]
            if any(ok for _, _, ok in found) or found:
                continue  # a checkpoint there; an invalid one is reported on its own
            yield _no_checkpoint(
                ended,
                f"hand {hand} ended at seq {ended}",
                "signs the end of every hand",
                then="the record was cut after that hand's end (or its checkpoint removed)"
                if until > self.envs[-1].seq
                else "its checkpoint was removed",
            )

    def payments(self) -> Iterator[Finding]:
        """The recorder signs once a hand's payments are all recorded: a record whose last
        payments follow the last checkpoint, and answer every payment due, lost that
        checkpoint. Whether they answer every due is the engine's to say (``pending_dues``);
        the record is replayed only when payments follow the last checkpoint."""
        last_cp = max((h for _s, h, _ok in self.checkpoints), default=0)
        paid = [
            e.seq
            for e in self.envs
            if type(e.event) is E.PaymentRecorded and e.seq > max(last_cp, self.signing_from)
        ]
        if not paid or any(type(e.event) is E.HandStarted for e in self.envs if e.seq > paid[-1]):
            return
        from ..projector import Projector  # the rules, only for a record that needs them

        proj = Projector(strict=False)
        try:
            for env in self.envs:
                proj.feed(env)
        except GostopError:
            return  # a record that does not replay is reported as such elsewhere
        game = proj.game
        if game is None or not game.results or game.pending_dues():
            return
        yield _no_checkpoint(
            paid[-1],
            f"the payments of hand {game.hand_no} were all recorded by seq {paid[-1]}",
            "signs once the payments are in",
            "them",
        )

    def settlement(self) -> Iterator[Finding]:
        """The recorder signs the night's close (its ``settlement_proposed``) and again once
        every proposed transfer is paid (``settlement_paid``), as it signs a hand's end and
        its payments: a record without those checkpoints was cut after them (or they were
        removed). Entries an undo retracted are left out."""
        undone: set[int] = set()
        for e in self.envs:
            if type(e.event) is E.EntryRetracted:
                undone.update(range(e.event.seq, e.seq + 1))
        live = [e for e in self.envs if e.seq not in undone]
        proposed = [e for e in live if type(e.event) is E.SettlementProposed]
        if not proposed or proposed[-1].seq < self.signing_from:
            return
        close = proposed[-1]
        heads = [h for _s, h, _ok in self.checkpoints]
        if not any(h >= close.seq for h in heads):
            yield _no_checkpoint(
                close.seq,
                f"the night was closed at seq {close.seq} (its settlement)",
                "signs the close",
            )
            return
        open_ = [(t.payer, t.payee) for t in close.event.transfers]  # type: ignore[attr-defined]
        last_paid = 0
        for e in live:
            ev = e.event
            if type(ev) is E.SettlementPaid and e.seq > close.seq:
                last_paid = e.seq
                if (ev.payer, ev.payee) in open_:
                    open_.remove((ev.payer, ev.payee))
        if last_paid and not open_ and not any(h >= last_paid for h in heads):
            yield _no_checkpoint(
                last_paid,
                f"the night's settlement was all paid by seq {last_paid}",
                "signs once the settlement is paid",
            )
