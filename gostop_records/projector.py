"""Fold a game's log into its state, checking every recorded fact against the rules.

The projector is the judge of a record. Each input (a play, a flip, a Go ...) is applied by
the rules engine, which derives its consequences (captures, ppuk, transfers, payments due,
the end of the hand); the consequences recorded in the log right after that input must be
exactly those. Strict mode stops at the first fact that breaks the rules and names its seq,
the rule and both versions. Lenient mode keeps going and returns every disagreement,
because a record of a real table must be storable even when the table played wrongly: after
an input the rules refuse, the rest of that hand is kept but not checked.

Pure and deterministic: no I/O. ``project(envelopes)`` is the whole fold; a
:class:`Projector` takes envelopes one at a time (the live recorder and the store use it to
validate an append before it is written).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Final, cast

import msgspec

from . import events as E
from .engine.game import GameState, HandResult, apply_game, start_game
from .engine.state import Phase
from .errors import CardCodeError, Finding, GostopError, IllegalAction, ProjectionError
from .events import (
    CardsCaptured,
    EntryRetracted,
    Envelope,
    GameStarted,
    HandStarted,
    NoteAdded,
    PaymentRecorded,
    PpukMade,
    UnknownEvent,
)

__all__ = ["Issue", "Projection", "Projector", "project"]

# Final: the compiled build (``make native``) keeps each in a C static, where an imported
# name is a dictionary lookup at every use; the fold reads these on every event
_CARD_LIST_TYPES: Final = (CardsCaptured, PpukMade)
_METADATA: Final = frozenset(E.EVENT_TYPES[t] for t in E.METADATA_TYPES)
_UNKNOWN: Final = UnknownEvent
_GAME_STARTED: Final = GameStarted
_HAND_STARTED: Final = HandStarted
_RETRACTED: Final = EntryRetracted
_is_input: Final = E.is_input
#: ``is_input``'s own set of input classes, tested here first: a set test in the compiled
#: build, where a call of ``is_input`` (interpreted) costs more than the rest of the check
_INPUT_CLASSES: Final = E._INPUT_CLASSES


#: One disagreement between the record and the rules (or an unreadable fact): a
#: :class:`~gostop_records.errors.Finding` of severity ``violation``, or ``warning`` for a fact
#: kept but not checked, with the hand it belongs to.
Issue = Finding


@dataclass(slots=True)
class Projection:
    """The result of a fold: the game state, the issues found, where it stopped."""

    game: GameState | None
    issues: list[Issue] = field(default_factory=list)
    last_seq: int = 0
    last: Envelope | None = None
    events: int = 0
    retracted: list[int] = field(default_factory=list)  # seqs undone by entry_retracted

    @property
    def ok(self) -> bool:
        return not any(i.severity == "violation" for i in self.issues)


def _same(expected: Any, recorded: Any) -> bool:
    if expected == recorded:
        return True
    if type(expected) is not type(recorded) or not isinstance(expected, _CARD_LIST_TYPES):
        return False
    # card lists are sets: a hand-written log may list them in any order
    return sorted(expected.cards) == sorted(recorded.cards) and _without_cards(
        expected
    ) == _without_cards(recorded)


def _without_cards(ev: Any) -> Any:
    import msgspec

    return msgspec.structs.replace(ev, cards=[])


def _show(ev: Any) -> str:
    if ev is None:
        return "nothing"
    d = E.payload_to_dict(ev)
    t = d.pop("type", "?")
    body = ", ".join(f"{k}={v}" for k, v in d.items() if v not in (None, [], ""))
    return f"{t}({body})"


#: what :meth:`Projector.fork` copies (a compiled class has no ``__slots__`` to read)
_FIELDS = (
    "checkpoint",
    "desync",
    "events",
    "expected",
    "game",
    "game_id",
    "inplace",
    "inputs",
    "issues",
    "last",
    "last_seq",
    "refused",
    "retracted",
    "strict",
    "undo",
)


class Projector:
    """Incremental fold of one game's envelopes; see the module docstring."""

    __slots__ = _FIELDS

    def __init__(self, strict: bool = True, inplace: bool = False) -> None:
        """``inplace``: the fast fold for a whole log. States are changed in place instead of
        copied, so ``game`` is one object that moves on; undo and a refused input rebuild
        the state from a copy taken at the start of the hand and the inputs since."""
        self.strict = strict
        self.inplace = inplace
        self.checkpoint: GameState | None = None
        self.inputs: list[tuple[int, Any]] = []
        self.game: GameState | None = None
        self.game_id: str | None = None
        self.expected: deque[Any] = deque()
        self.issues: list[Issue] = []
        self.last_seq = 0
        self.last: Envelope | None = None
        self.undo: list[tuple[int, GameState]] = []
        self.desync: int | None = None  # lenient: hand whose rest is kept unchecked
        # lenient: (seq, desync before it) of the latest input when the rules refused it, so
        # that retracting it (a typo corrected at the table) resumes the checks
        self.refused: tuple[int, int | None] | None = None
        self.events = 0
        # seqs undone by retractions: each retracted input, what followed it, the retraction
        self.retracted: list[int] = []

    def fork(self, strict: bool | None = None) -> Projector:
        """A copy that can be fed without changing this projector: what a live append tries
        an entry on before anything is written (states are never changed in place, so the
        copy shares them; the in-place fold keeps its own and cannot be forked)."""
        if self.inplace:
            raise GostopError("an in-place projector cannot be forked")
        new = Projector.__new__(Projector)
        for name in _FIELDS:
            value = getattr(self, name)
            if isinstance(value, list):
                value = list(value)
            elif isinstance(value, deque):
                value = deque(value)
            setattr(new, name, value)
        if strict is not None:
            new.strict = strict
        return new

    # --- reporting -----------------------------------------------------------------------

    def _violation(
        self,
        seq: int | None,
        rule: str,
        reason: str,
        expected: Any = None,
        recorded: Any = None,
        severity: str = "violation",
    ) -> None:
        hand = self.game.hand_no if self.game is not None else None
        if self.strict and severity == "violation":
            raise ProjectionError(
                seq, rule, reason, expected=expected, recorded=recorded, game_id=self.game_id
            )
        self.issues.append(
            Finding(
                rule=rule,
                reason=reason,
                seq=seq,
                hand=hand,
                severity=severity,
                expected=expected,
                recorded=recorded,
            )
        )

    # --- the fold ------------------------------------------------------------------------

    def feed(self, env: Envelope) -> None:
        """Apply one envelope; strict mode raises :class:`ProjectionError` on a violation."""
        try:
            self._feed(env)
        except (ProjectionError, GostopError):
            raise
        except Exception as exc:  # a defect, never a user's fault: still a typed error
            raise self._defect(env, exc) from exc

    def _defect(self, env: Any, exc: Exception) -> ProjectionError:
        return ProjectionError(
            env.seq if isinstance(env, Envelope) else None,
            "engine_error",
            f"internal error while applying this event: {type(exc).__name__}: {exc}",
            game_id=self.game_id,
        )

    # Long: one branch per event type, in the fold's hot path (compiled; no dispatch call).
    def _feed(self, env: Envelope) -> None:
        seq = env.seq
        self.events += 1
        if env.game_id != self.game_id:
            if self.game_id is not None:
                raise ProjectionError(
                    seq, "one_game", f"event of game {env.game_id!r} in the log of {self.game_id!r}"
                )
            self.game_id = env.game_id
        if seq != self.last_seq + 1:
            if seq <= self.last_seq:
                why = f"seq {seq} follows seq {self.last_seq}: out of order or repeated"
            else:
                missing = self.last_seq + 1
                why = f"seq {seq} follows seq {self.last_seq}: {missing} is missing"
            raise ProjectionError(seq, "seq_dense", why, game_id=self.game_id)
        self.last_seq = seq
        self.last = env
        ev = env.event
        t = type(ev)

        expected = self.expected
        # the usual case first: the consequence the rules derived, as recorded (what the
        # rules derive is never unknown, metadata or an input: a property test holds the
        # engine to it)
        if expected and expected[0] == ev:
            expected.popleft()
            game = self.game
            if game is None or env.hand != (game.hand_no or None):
                self._check_hand_field(env)
            return

        if t is _UNKNOWN:
            self._violation(
                seq,
                "unknown_event_type",
                f"event type {cast(UnknownEvent, ev).type!r} is not known to this version: kept, "
                "not checked",
                severity="warning",
            )
            return

        if t in _METADATA:  # a key or a signature: no part of the game's rules
            if self.game is not None:
                self._check_hand_field(env)
            return

        if expected:
            want = expected[0]
            if _same(want, ev) and not _is_input(ev):
                expected.popleft()
                game = self.game
                if game is None or env.hand != (game.hand_no or None):
                    self._check_hand_field(env)
                return
            if self.desync is None:
                if _is_input(ev):
                    self._violation(
                        seq,
                        "consequence_missing",
                        f"the rules derive {_show(want)} before the next input; the log has "
                        f"{_show(ev)}",
                        expected=want,
                        recorded=ev,
                    )
                    self.expected.clear()
                else:
                    self._violation(
                        seq,
                        _rule_of(want),
                        f"the log records {_show(ev)}; the rules derive {_show(want)}",
                        expected=want,
                        recorded=ev,
                    )
                    self.expected.popleft()
                    return
            else:
                self.expected.clear()

        game = self.game
        if t is _GAME_STARTED:
            if game is not None or seq != 1:
                raise ProjectionError(seq, "game_started", "game_started is the first event only")
            try:
                self.game = start_game(env.game_id, cast(GameStarted, ev))
            except GostopError as exc:
                raise ProjectionError(seq, "game_started", str(exc), game_id=self.game_id) from None
            if self.inplace:
                self.checkpoint = self.game.copy(deep=True)
            self._check_hand_field(env)
            return
        if game is None:
            raise ProjectionError(
                seq,
                "game_started",
                "the log does not start with game_started",
                game_id=self.game_id,
            )

        if t not in _INPUT_CLASSES and not _is_input(ev):
            if self.desync is None:
                self._violation(
                    seq,
                    "unexpected_consequence",
                    f"the log records {_show(ev)}, which no input before it derives",
                    recorded=ev,
                )
            return

        if t is _RETRACTED:
            self._retract(seq, ev)  # type: ignore[arg-type]
            return
        self.refused = None  # a later input makes an earlier refused one no longer the latest

        if self.desync is not None:
            if t is _HAND_STARTED:
                self._close_desynced_hand()
                game = self.game
                assert game is not None
            elif t not in (PaymentRecorded, NoteAdded, E.SettlementPaid):
                return

        inplace = self.inplace
        if inplace and t is _HAND_STARTED:
            self.checkpoint = game.copy(deep=True)
            self.inputs = []
        try:
            new, derived = apply_game(game, _unchecked_payment(ev, t, self.desync), inplace)
        except (IllegalAction, CardCodeError) as exc:
            if inplace:
                self._rebuild()
            # a payload built in code (not decoded from a log) may hold a non-card string
            if isinstance(exc, IllegalAction):
                rule, reason = exc.rule, exc.reason
            else:
                rule, reason = "card_code", str(exc)
            self._violation(seq, rule, reason, recorded=ev)
            self.refused = (seq, self.desync)
            if game.in_hand or t is HandStarted:
                self.desync = game.hand_no if t is not HandStarted else game.hand_no + 1
            return
        if inplace:
            self.inputs.append((seq, ev))
        else:
            if t is HandStarted:
                self.undo.clear()
            self.undo.append((seq, game))
        self.game = new
        if derived:
            self.expected.extend(derived)
        if env.hand != (new.hand_no or None):  # the check, inline: once per input
            self._check_hand_field(env)

    def _check_hand_field(self, env: Envelope) -> None:
        want = self.game.hand_no if self.game is not None and self.game.hand_no else None
        if env.hand != want:
            self._violation(
                env.seq,
                "hand_field",
                f"the envelope says hand {env.hand}; the event belongs to hand {want}",
            )

    def _retract(self, seq: int, ev: EntryRetracted) -> None:
        if self.refused is not None and ev.seq == self.refused[0]:
            # the latest input was refused and never applied: its retraction restores the
            # checks as they were before it
            self.desync = self.refused[1]
            self.refused = None
            self.retracted.extend(range(ev.seq, seq + 1))
            return
        stack = self.inputs if self.inplace else self.undo
        if not stack:
            self._violation(seq, "retract_latest", "there is no input entry to retract")
            return
        target = stack[-1][0]
        if ev.seq != target:
            self._violation(
                seq,
                "retract_latest",
                f"only the latest input entry (seq {target}) can be retracted, not seq {ev.seq}",
            )
            return
        if self.inplace:
            self.inputs.pop()
            self._rebuild()
            before = self.game
            assert before is not None
        else:
            before = self.undo.pop()[1]
            self.game = before
        self.expected.clear()
        self.retracted.extend(range(ev.seq, seq + 1))
        if self.desync is not None and (before.hand is None or before.hand_no < self.desync):
            self.desync = None

    def _rebuild(self) -> None:
        """In-place mode: the state from the hand's checkpoint and its inputs since."""
        assert self.checkpoint is not None
        g = self.checkpoint.copy(deep=True)
        for _seq, payload in self.inputs:
            g, _ = apply_game(g, payload, True)
        self.game = g

    def _close_desynced_hand(self) -> None:
        g = self.game
        assert g is not None
        if g.in_hand and g.hand is not None:
            h = g.hand
            out = g.copy()
            out.results = (
                *g.results,
                HandResult(
                    h.hand_no, h.dealer, "unchecked", None, "rule_violation", h.carry, h.carry, ()
                ),
            )
            out.next_dealer = None
            hand = h.copy()
            hand.phase = Phase.ENDED
            hand.outcome = "unchecked"
            out.hand = hand
            self.game = out
        self.desync = None

    def finish(self) -> Projection:
        """Close the fold: consequences the log stops before are reported."""
        if self.expected and self.desync is None:
            want = self.expected[0]
            self._violation(
                None,
                "consequence_missing",
                f"the log ends before {_show(want)}, which the rules derive from seq "
                f"{self.last_seq} or earlier",
                expected=want,
            )
        return Projection(
            self.game, self.issues, self.last_seq, self.last, self.events, self.retracted
        )


def _rule_of(expected: Any) -> str:
    return f"derive_{E.event_type(expected)}"


def project(
    envelopes: Iterable[Envelope], strict: bool = True, until_seq: int | None = None
) -> Projection:
    """Fold one game's envelopes; ``until_seq`` stops after that seq (the state at a point)."""
    p = Projector(strict, inplace=True)
    for env in envelopes:
        if until_seq is not None and env.seq > until_seq:
            break
        try:
            p._feed(env)  # what :meth:`Projector.feed` does, without its call per event
        except (ProjectionError, GostopError):
            raise
        except Exception as exc:  # a defect, never a user's fault: still a typed error
            raise p._defect(env, exc) from exc
    if until_seq is not None:
        return Projection(p.game, p.issues, p.last_seq, p.last, p.events, p.retracted)
    return p.finish()


def _unchecked_payment(ev: Any, t: type, desync: int | None) -> Any:
    """A payment in a hand the rules stopped following (lenient, after a violation): its
    dues are unknown, so it cannot be said to answer none (the rule ``payment_note``); it
    is applied as if it said why. Every other input is as recorded."""
    if desync is None or t is not PaymentRecorded or (ev.note or "").strip():
        return ev
    return msgspec.structs.replace(ev, note="in a hand the rules could not follow")
