"""The recording session: every entry run through the rules once, then written, durable on
return; its state, its refusals, its seals."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import msgspec

from .. import cards as C
from .. import events as E
from .. import log as L
from .. import notation, words
from ..closing import Closing
from ..engine.actions import legal_actions
from ..engine.game import GameState, HandResult, start_game
from ..engine.settlement import Proof
from ..engine.state import HandState, Phase
from ..errors import GostopError, IllegalAction, LogError, NoSpaceError, ProjectionError
from ..integrity import checkpoints as CP
from ..integrity.seals import Seal
from ..integrity.signing import SigningKey
from ..names import seal_players
from ..projector import Projector
from ..rules import Ruleset, resolve
from .answers import ChoiceRequired, Decision, Entry
from .inputs import TableInputs, seat_expected
from .players import Clock, make_players, new_game_id
from .sinks import EventSink

_MM = C.MONTH_MASKS
#: The hand field of an input's envelope taken from the hand the input belongs to.
_ITS_HAND = -1


card_code = notation.card_code


class RecordingSession(Closing, TableInputs):
    """A game being recorded; see the module docstring. Build with :meth:`start` or
    :meth:`resume`."""

    def __init__(
        self,
        sink: EventSink,
        game_id: str,
        projector: Projector,
        envelopes: list[E.Envelope],
        *,
        by: str = "recorder",
        clock: Clock = L.now,
        signer: SigningKey | None = None,
    ) -> None:
        self.sink = sink
        #: The recorder's key: a signed checkpoint at the end of every hand (None: unsigned).
        self.signer = signer
        #: The seal of each hand's end (and of each :meth:`seal`), in order.
        self.seals: list[Seal] = []
        self.game_id = game_id
        self.by = by
        self.clock = clock
        self._proj = projector
        self.envelopes = envelopes
        self._chain = L.Chain(envelopes[-1].hash if envelopes else L.GENESIS)
        #: Consequences written by :meth:`resume` to finish an entry a crash cut short.
        self.completed: list[E.Envelope] = []
        self.fault: NoSpaceError | None = None  # the sink's disk filled up: no more appends
        #: While :meth:`deciding`: what is decided, not written to the sink.
        self._decision: Decision | None = None
        #: What :meth:`start` or :meth:`resume` decided when told to decide (None: nothing).
        self.opened: Decision | None = None
        #: A sink that keeps persons' keys (the store) gives ``person_key(id)``: the names of
        #: ``game_started`` are then sealed under them before it is hashed (``names``).
        self._person_key: Callable[[str], bytes] | None = getattr(sink, "person_key", None)

    # --- opening -----------------------------------------------------------------------

    @staticmethod
    def opening(
        game_id: str,
        players: Sequence[str | E.Player],
        ruleset: str | Ruleset = "matgo",
        *,
        stake: int = 1,
        venue: str | None = None,
        notes: str | None = None,
    ) -> E.GameStarted:
        """The ``game_started`` a new game opens with, checked: a known ruleset, a player
        count it is played with, a stake of 0 or more, a game id. :meth:`start` writes it; a
        front end asks for it first, so that a game refused here leaves no key and no file
        behind."""
        rules = ruleset if isinstance(ruleset, Ruleset) else resolve(ruleset)
        plist = make_players(players)
        if stake < 0:
            raise GostopError(f"the stake is chips per point, 0 or more, not {stake}")
        if not game_id:
            raise GostopError("the game id is empty")
        ev = E.GameStarted(
            ruleset=rules.pinned(), players=plist, stake=stake, venue=venue, notes=notes
        )
        start_game(game_id, ev)  # refuses a player count the ruleset is not played with
        return ev

    @classmethod
    def start(
        cls,
        sink: EventSink,
        players: Sequence[str | E.Player],
        ruleset: str | Ruleset = "matgo",
        *,
        stake: int = 1,
        game_id: str | None = None,
        by: str = "recorder",
        venue: str | None = None,
        notes: str | None = None,
        clock: Clock = L.now,
        signer: SigningKey | None = None,
        deciding: bool = False,
    ) -> RecordingSession:
        """A new game: writes ``game_started`` with the pinned ruleset, seats and stake (and
        ``key_added`` with the signer's public key); ``deciding``: writes nothing, and
        :attr:`opened` holds them (see :meth:`deciding`)."""
        gid = game_id.strip() if game_id else new_game_id(clock)
        ev = cls.opening(gid, players, ruleset, stake=stake, venue=venue, notes=notes)
        if sink.version(gid):
            raise GostopError(
                f"game {gid!r} already exists in {sink.location}: continue it with "
                f"resume (gostop record --resume {gid})"
            )
        session = cls(sink, gid, Projector(strict=True), [], by=by, clock=clock, signer=signer)
        with session._opening(deciding):
            session._write(ev, None)
            session._add_key()
        return session

    @classmethod
    def resume(
        cls,
        sink: EventSink,
        game_id: str,
        *,
        by: str = "recorder",
        clock: Clock = L.now,
        signer: SigningKey | None = None,
        deciding: bool = False,
    ) -> RecordingSession:
        """The game as stored, at the exact point it stopped (chain and rules checked); a
        signer whose key the record does not hold yet is added, and a hand end left
        without its checkpoint by a crash gets it (``deciding``: kept in :attr:`opened`,
        not written)."""
        envs = sink.game_events(game_id)
        if not envs:
            raise GostopError(f"there is no game {game_id!r} in {sink.location}")
        check = L.verify(envs)
        if not check.ok:
            raise LogError(
                f"cannot resume: {check.reason}", file=sink.location, seq=check.first_bad_seq
            )
        proj = Projector(strict=True)
        try:
            for env in envs:
                proj.feed(env)
        except ProjectionError as exc:
            raise ProjectionError(
                exc.seq,
                exc.rule,
                f"cannot resume game {game_id!r} from {sink.location}: {exc.reason}",
                game_id=game_id,
            ) from None
        session = cls(sink, game_id, proj, list(envs), by=by, clock=clock, signer=signer)
        with session._opening(deciding):
            session._complete()
            session._add_key()
            if session._owes_seal(since_end=True):
                session.seal()
        return session

    @contextlib.contextmanager
    def _opening(self, deciding: bool) -> Iterator[None]:
        if not deciding:
            yield
            return
        with self.deciding() as d:
            yield
        self.opened = d

    def close(self) -> None:
        self.sink.close()

    # --- the state ---------------------------------------------------------------------

    @property
    def game(self) -> GameState:
        g = self._proj.game
        assert g is not None
        return g

    @property
    def last_seq(self) -> int:
        return self._proj.last_seq

    def legal_actions(self) -> list[Any]:
        """Every input the rules allow next in the hand (empty between hands)."""
        h = self.hand
        return legal_actions(h) if h is not None else []

    def candidates(self, card: str) -> list[str]:
        """The layout cards ``card`` may take when it is played or flipped now and two of its
        month lie on the layout; empty when there is no choice to make."""
        h = self.hand
        if h is None or h.phase not in (Phase.PLAY, Phase.FLIP, Phase.FLIP_AS_PLAY):
            return []
        code = card_code(card)
        want = E.CardPlayed if h.phase is Phase.PLAY else E.CardFlipped
        out = [
            a.chosen
            for a in legal_actions(h)
            if type(a) is want and a.card == code and a.chosen is not None
        ]
        return out if len(out) > 1 else []

    def result(self, hand: int | None = None) -> HandResult | None:
        """How a hand ended (the latest by default); None while it is in progress."""
        g = self.game
        n = g.hand_no if hand is None else hand
        for r in reversed(g.results):
            if r.hand == n:
                return r
        return None

    def proof(self, hand: int | None = None) -> Proof | None:
        """The payout proof of a hand won by a Stop (the latest hand by default)."""
        r = self.result(hand)
        return r.proof() if r is not None else None

    def event(self, seq: int) -> E.Envelope | None:
        """The stored envelope with this seq."""
        if 1 <= seq <= len(self.envelopes):
            env = self.envelopes[seq - 1]
            if env.seq == seq:
                return env
        return next((e for e in self.envelopes if e.seq == seq), None)

    def retractable(self) -> E.Envelope | None:
        """The input entry :meth:`undo` would retract now."""
        undo = self._proj.undo
        return self.event(undo[-1][0]) if undo else None

    def undo(self, reason: str | None = None) -> Entry:
        """``entry_retracted`` of the latest input entry still in force (within the hand)."""
        self._check_sink()
        target = self.retractable()
        if target is None:
            raise IllegalAction(
                "retract_latest",
                "there is no entry to undo (undo goes back to the start of the hand in progress)",
            )
        payload = E.EntryRetracted(seq=target.seq, reason=reason or None)
        proj, chain, groups = self._try([payload])
        env, _cons, before, after = groups[0]
        self._commit(proj, chain, [env])
        return Entry(env, (), before, after, retracted=target)

    # --- writing -----------------------------------------------------------------------
    #
    # One pass of the rules per entry: a fork of the session's projector is fed the input
    # (the engine applies it once and derives its consequences, ``expected``), then the
    # consequences it derived; only when all of it is accepted is anything written, and the
    # sink is handed the fork, so that the store need not run the rules again.

    def _draft(self, proj: Projector, hand: int | None, payload: Any) -> E.Envelope:
        """The next envelope after ``proj``, without its time and hash yet."""
        return L.envelope(
            self.game_id, proj.last_seq + 1, hand, payload, by=self.by, at="", recorded_at=""
        )

    def _seal(self, chain: L.Chain, env: E.Envelope) -> E.Envelope:
        stamp = self.clock()
        env = msgspec.structs.replace(env, at=stamp, recorded_at=stamp)
        if self._person_key is not None and type(env.event) is E.GameStarted:
            # shown with the names, hashed and written with them sealed (see ``names``)
            hidden = seal_players(env.event, self._person_key)
            env = L.with_stored(env, L.canonical_bytes(msgspec.structs.replace(env, event=hidden)))
        return chain.seal(env)

    def _try(
        self, payloads: Sequence[Any], hand: int | None = _ITS_HAND
    ) -> tuple[Projector, L.Chain, list[tuple[E.Envelope, tuple[E.Envelope, ...], Any, Any]]]:
        """Every payload and its consequences, sealed and fed to a fork of the projector:
        (the fork, its chain, (input, consequences, state before, state after) of each).
        ``hand`` is the inputs' hand field (by default the hand each payload belongs to).
        Raises, having written nothing, when the rules refuse a payload."""
        self._check_sink()
        proj = self._proj.fork()
        chain = L.Chain(self._chain.prev)
        chain.count = self._chain.count
        groups = []
        for payload in payloads:
            before = proj.game
            field = _hand_of(before, payload) if hand == _ITS_HAND else hand
            draft = self._draft(proj, field, payload)
            try:
                proj.feed(draft)  # the time is taken once the rules accept the entry
            except ProjectionError as exc:
                raise self._refusal(payload, exc, before) from None
            first = self._seal(chain, draft)
            proj.last = first
            cons = self._consequences(proj, chain)
            groups.append((first, tuple(cons), before, proj.game))
        return proj, chain, groups

    def _write(self, payload: Any, hand: int | None) -> E.Envelope:
        """Write one event the session makes itself (not a table's entry), through a fork
        like every entry; what the rules derive from it follows it."""
        proj, chain, groups = self._try([payload], hand)
        first, cons, _before, _after = groups[0]
        self._commit(proj, chain, [first, *cons])
        return first

    def _owed(self) -> tuple[Projector, L.Chain, list[E.Envelope]]:
        """The consequences the stored log owes (a crash between an input and them)."""
        proj = self._proj.fork()
        chain = L.Chain(self._chain.prev)
        chain.count = self._chain.count
        return proj, chain, self._consequences(proj, chain)

    def _consequences(self, proj: Projector, chain: L.Chain) -> list[E.Envelope]:
        """What the rules derive next (``proj.expected``), sealed on ``chain`` and fed to
        ``proj`` one by one, until they expect nothing more."""
        out = []
        while proj.expected:
            g = proj.game
            hand = g.hand_no or None if g is not None else None
            env = self._seal(chain, self._draft(proj, hand, proj.expected[0]))
            proj.feed(env)
            out.append(env)
        return out

    def _refusal(self, payload: Any, exc: ProjectionError, before: Any) -> IllegalAction:
        if exc.rule == "choice_required":
            card = getattr(payload, "card", "")
            step = "play" if type(payload) is E.CardPlayed else "flip"
            h = before.hand if before is not None else None
            return ChoiceRequired(card, _choice_cards(h, card), step, exc.reason)
        reason = words.named_seats(exc.reason, self.players)
        if exc.rule == "hand_four_shown":
            shown = _fours_due(before.hand if before is not None else None)
            if shown is not None:
                return IllegalAction(exc.rule, words.fours_form(reason, notation.text(shown)))
        return IllegalAction(exc.rule, reason)

    def fours_due(self) -> E.FourOfAMonthShown | None:
        """The fours of a month the known hands hold at the deal, to be shown before any
        play (``four`` alone records them); None when there are none."""
        return _fours_due(self.hand)

    @contextlib.contextmanager
    def deciding(self) -> Iterator[Decision]:
        """Decide without writing: what the block records is kept in the :class:`Decision`
        it yields (and taken as the session's state) instead of going to the sink. How a
        server that stores the entries of many games together records: it decides each
        entry here, then stores the decisions in one write."""
        if self._decision is not None:
            raise RuntimeError("a session decides one thing at a time")
        self._decision = Decision(self.game_id, self.last_seq)
        try:
            yield self._decision
        finally:
            self._decision = None

    def _commit(self, proj: Projector, chain: L.Chain, envs: Sequence[E.Envelope]) -> None:
        """Write the envelopes a fork accepted (or, while deciding, keep them in the
        decision) and make the fork the session's state."""
        if not envs:
            return
        self._check_sink()
        if self._decision is not None:
            self._decision.envelopes.extend(envs)
            self._decision.checked = proj
        else:
            try:
                self.sink.append(list(envs), envs[0].seq - 1, proj)
            except NoSpaceError as exc:
                self.fault = exc  # nothing more is appended in this session
                raise
        self.envelopes.extend(envs)
        self._proj = proj
        self._chain = chain

    def _check_sink(self) -> None:
        """A session whose sink failed (a full disk) appends nothing more: every entry after
        gets the same error instead of the rules' answer to a half-written state."""
        if self.fault is not None:
            raise self.fault

    def _complete(self) -> None:
        """Write the consequences the stored log owes (a crash after an input)."""
        proj, chain, envs = self._owed()
        self._commit(proj, chain, envs)
        self.completed.extend(envs)

    @staticmethod
    def _checked(payload: Any) -> Any:
        """The payload as a log reader would decode it (card codes, seats, bounds)."""
        try:
            return msgspec.convert(msgspec.to_builtins(payload), type(payload))
        except msgspec.ValidationError as exc:
            raise IllegalAction("payload", f"{E.event_type(payload)}: {exc}") from None

    @staticmethod
    def _enterable(payload: Any) -> None:
        if not E.is_input(payload):
            raise IllegalAction(
                "input_only", f"{E.event_type(payload)} is derived by the rules, not entered"
            )
        refused = _NOT_ENTERED.get(type(payload))
        if refused is not None:
            raise IllegalAction(*refused)

    def record(self, payload: Any) -> Entry:
        """Validate one input payload and write it with its consequences.

        Raises :class:`~gostop_records.errors.IllegalAction` (or :class:`ChoiceRequired`)
        with the rule and the reason, having written nothing, when the rules refuse it;
        :class:`~gostop_records.errors.NoSpaceError` when the sink's disk is full (then for
        every entry after it too: continue with ``resume`` once there is space).
        """
        return self.record_all([payload])[0]

    def record_all(self, payloads: Sequence[Any]) -> list[Entry]:
        """Record several inputs, all or none: every one is tried before anything is
        written, so a refused one writes nothing (an ``entry_retracted`` is an :meth:`undo`)."""
        self._check_sink()
        if any(type(p) is E.EntryRetracted for p in payloads):
            if len(payloads) != 1:
                raise IllegalAction("retract_latest", "an undo is an entry of its own")
            (p,) = payloads
            target = self.retractable()
            if target is not None and target.seq != p.seq:
                raise IllegalAction(
                    "retract_latest",
                    f"only the latest input entry can be undone (seq {target.seq})",
                )
            return [self.undo(p.reason)]
        for p in payloads:
            self._enterable(p)
        checked = [self._checked(p) for p in payloads]
        proj, chain, groups = self._try(checked)
        if any(type(p) is E.HandStarted for p in checked) and self._owes_seal():
            self.seal()  # what followed the last hand's seal (a payment, a note) first
            proj, chain, groups = self._try(checked)
        self._commit(proj, chain, [e for first, cons, _, _ in groups for e in (first, *cons)])
        ended = any(type(e.event) is E.HandEnded for _, cons, _, _ in groups for e in cons)
        paid = type(checked[-1]) is E.PaymentRecorded and not self.pending_dues()
        # the night's close (its settlement), then again once the settlement is paid
        closed = type(checked[-1]) is E.GameClosed or (
            type(checked[-1]) is E.SettlementPaid and self.game.waiting().kind == "closed"
        )
        if ended or paid or closed:
            self.seal()  # the hand's end, then again once its payments are recorded
        return [Entry(first, cons, before, after) for first, cons, before, after in groups]

    def enter(self, line: str) -> list[Entry]:
        """Record a line of the table notation (:mod:`gostop_records.notation`): what a
        recorder types, what the HTTP service receives. Nothing is written when the line is
        not of the grammar or the rules refuse it."""
        self._check_sink()
        target = self.retractable()
        payloads = notation.parse(
            line, self.game, undo_target=target.seq if target is not None else None
        )
        return self.record_all(payloads)

    # --- seals and signatures ------------------------------------------------------------

    def _add_key(self) -> None:
        """``key_added`` for the signer, unless the record holds its key already."""
        signer = self.signer
        if signer is None:
            return
        key = signer.public.text
        if not any(type(e.event) is E.KeyAdded and e.event.key == key for e in self.envelopes):
            self._write(CP.key_added(signer, signer.holder or self.by), self.game.hand_no or None)

    def owes_seal(self) -> bool:
        """Whether events follow the latest seal of a game with a hand ended (a payment,
        a note): a recorder closing the session seals them too."""
        return self._owes_seal()

    def _owes_seal(self, since_end: bool = False) -> bool:
        """Whether a hand has ended and the head is not sealed; ``since_end``: whether the
        latest hand has ended and no checkpoint follows its end (a crash between them)."""
        g = self.game
        if not g.results:
            return False
        if since_end:
            if g.in_hand or self.signer is None:
                return False
            for env in reversed(self.envelopes):
                t = type(env.event)
                if t is E.CheckpointSigned:
                    return False
                if t is E.HandEnded:
                    return True
            return False
        sealed = self.seals[-1].seq if self.seals else 0
        for env in reversed(self.envelopes):
            if type(env.event) is E.CheckpointSigned:
                sealed = max(sealed, env.seq)
                break
        return sealed < self.last_seq

    def seal(self) -> Seal:
        """The seal of the record's head. A signing session first writes a signed
        checkpoint of the head, so the seal is that of the checkpoint."""
        last = self.envelopes[-1]
        if self.signer is not None and type(last.event) is not E.CheckpointSigned:
            payload = CP.checkpoint(self.game_id, last, self.signer)
            last = self._write(payload, self.game.hand_no or None)
        sealed = Seal(self.game_id, last.seq, last.hand, last.hash)
        if not self.seals or self.seals[-1].seq != sealed.seq:
            self.seals.append(sealed)
        return sealed

    def countersign(self, seat: int, key: SigningKey) -> E.Envelope:
        """A player's countersignature of the latest checkpoint's head, with their key."""
        seat_expected(seat if 0 <= seat < len(self.players) else None, f"seat {seat}")
        cp = next(
            (e for e in reversed(self.envelopes) if type(e.event) is E.CheckpointSigned), None
        )
        if cp is None:
            raise IllegalAction("countersign", "there is no signed checkpoint to countersign")
        ev = cp.event
        assert type(ev) is E.CheckpointSigned
        payload = CP.countersign(self.game_id, seat, ev.head_seq, ev.head, key)
        return self.add_countersignature(payload)

    def add_countersignature(self, payload: E.ResultCountersigned) -> E.Envelope:
        """Record a countersignature made elsewhere (a player's phone), already checked
        (:func:`~gostop_records.integrity.checkpoints.countersignature`)."""
        return self._write(payload, self.game.hand_no or None)


#: Inputs that are not entered as such: the rule and the reason of the refusal.
_NOT_ENTERED: dict[type, tuple[str, str]] = {
    E.EntryRetracted: ("retract_latest", "an entry is retracted with undo"),
    E.GameStarted: ("game_started", "a game starts once, with its first event"),
}


def _hand_of(game: GameState | None, payload: Any) -> int | None:
    """The ``hand`` field of an input's envelope: the hand it starts or is part of."""
    if type(payload) is E.HandStarted:
        return int(payload.hand)
    if game is None or type(payload) is E.GameStarted:
        return None
    return game.hand_no or None


def _fours_due(h: HandState | None) -> E.FourOfAMonthShown | None:
    if h is None or not h.fours_pending:
        return None
    return next((a for a in legal_actions(h) if type(a) is E.FourOfAMonthShown), None)


def _choice_cards(h: HandState | None, card: str) -> list[str]:
    """The layout cards of ``card``'s month, among which a play or flip must choose."""
    if h is None or card not in C.CODE_TO_INDEX:
        return []
    i = C.CODE_TO_INDEX[card]
    return C.codes(h.layout & _MM[C.month_of(i)]) if i < 48 else []
