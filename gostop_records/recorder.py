"""A live recording session: table inputs in, validated events out, each durable on return.

A recorder at a real table enters what happens (the deal, each play and flip, choices, Go or
Stop, the payments). The session checks every entry against the rules engine *before*
anything is written: an impossible entry raises a typed error naming the rule and writes
nothing. A legal entry is written as its input event followed by the consequences the engine
derives (captures, ppuk, junk transfers, the end of the hand), hash-chained and durable
(flushed and synced, or committed) before the method returns, so a crash or a power loss
never loses an acknowledged entry.

The session's state is a strict :class:`~gostop_records.projector.Projector`. An entry runs
through the rules once: a fork of it is fed the input (the engine applies it and derives the
consequences) and then those consequences; only then is anything written, and the fork
becomes the session's state (the store takes it too, and does not run the rules again). So
what the recorder sees is exactly what a replay of the log shows, and
:meth:`RecordingSession.undo` is an ``entry_retracted`` event that the projector answers by
restoring the state before the latest input: compensating, never an edit.
:meth:`RecordingSession.resume` rebuilds the state from the stored log and, when a crash cut
an entry between its input and its consequences, writes the missing consequences (they are a
function of the log), so the game continues at the exact point it stopped.

Events go to a sink: any object with the :class:`EventSink` methods. The two the library
has live beside their storage: :class:`~gostop_records.log.JsonlSink` (a log file, locked
against a second writer) and :class:`~gostop_records.store.sink.StoreSink` (the DuckDB
store, one transaction per entry); :func:`open_sink` picks one.

No terminal I/O here: the ``gostop record`` command is the user interface.
"""

from __future__ import annotations

import contextlib
import os
import uuid
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

import msgspec

from . import cards as C
from . import events as E
from . import log as L
from . import notation, words
from .engine.actions import legal_actions
from .engine.game import GameState, HandResult, Waiting, start_game
from .engine.settlement import Proof
from .engine.state import HandState, Phase
from .errors import GostopError, IllegalAction, LogError, NoSpaceError, ProjectionError
from .integrity import checkpoints as CP
from .integrity.seals import Seal
from .integrity.signing import SigningKey
from .log import JsonlSink
from .names import seal_players
from .people import derived_person_id, mint_person_id, name_error, person_id_error, seat_ids
from .projector import Projector
from .rules import Ruleset, resolve
from .store.sink import StoreSink

__all__ = [
    "ChoiceRequired",
    "Entry",
    "EventSink",
    "JsonlSink",
    "PendingDue",
    "RecordingSession",
    "StoreSink",
    "Waiting",
    "card_code",
    "make_players",
    "new_game_id",
    "open_sink",
]

_MM = C.MONTH_MASKS
#: The hand field of an input's envelope taken from the hand the input belongs to.
_ITS_HAND = -1
Clock = Callable[[], str]


card_code = notation.card_code


def make_players(players: Sequence[str | E.Player]) -> list[E.Player]:
    """Players in seat order, each a person (see ``people``): ``Ann`` is a new person with
    a minted id, ``Ann=p_3fa2c1d04e5b`` the known person of that id, seated as ``Ann``. Two
    seats may not share an id, nor a name (a seat is named in entries by its name)."""
    out: list[E.Player] = []
    for p in players:
        if isinstance(p, E.Player):
            out.append(p)
            continue
        name, eq, pid = p.partition("=")
        name, pid = name.strip(), pid.strip()
        if not name:
            raise GostopError(f"player {p!r} has no name: give each seat a name")
        if eq:
            why = person_id_error(pid)
            if why:
                raise GostopError(f"player {p!r}: {why}")
        out.append(E.Player(id=pid if eq else mint_person_id(), name=name))
    for p in out:
        why = name_error(p.name) if p.name or not p.id else None
        if why:
            raise GostopError(f"player {p.name!r}: {why}")
    ids = seat_ids(out)
    names = [derived_person_id(p.name) for p in out if p.name]
    for key, what in ((ids, "id"), (names, "name")):
        twice = next((k for k in key if key.count(k) > 1), None)
        if twice is not None:
            raise GostopError(f"two players have the {what} {twice!r}: give each seat its own")
    return out


def new_game_id(clock: Clock = L.now) -> str:
    """A fresh game id: the date and six random hex digits (``2026-05-01-3fa2c1``)."""
    return f"{clock()[:10]}-{uuid.uuid4().hex[:6]}"


# --- sinks ---------------------------------------------------------------------------------


@runtime_checkable
class EventSink(Protocol):
    """Where a session writes: every ``append`` is durable when it returns.

    ``expected_version`` is the seq of the game's last stored event (0 for a new game); a
    sink refuses an append when its stored version differs, which keeps two writers of one
    game apart.
    """

    location: str

    def version(self, game_id: str) -> int:
        """The seq of the game's last stored event; 0 when the game is not stored."""
        ...

    def game_events(self, game_id: str) -> list[E.Envelope]:
        """Every stored envelope of a game, in seq order."""
        ...

    def append(
        self,
        envs: Sequence[E.Envelope],
        expected_version: int,
        checked: Projector | None = None,
    ) -> None:
        """Store sealed envelopes of one game, all or none, durably, or raise. They follow
        seq ``expected_version``; ``checked`` is the projector the session fed them to (a
        sink that runs the rules itself may skip them)."""
        ...

    def close(self) -> None: ...


def open_sink(
    *,
    db: str | os.PathLike[str] | None = None,
    log: str | os.PathLike[str] | None = None,
    create: bool = True,
) -> EventSink:
    """Where a session writes: the log file ``log`` (JSON Lines, or msgpack by suffix) when
    given, else the store ``db`` (``$GOSTOP_DB`` or ``gostop.duckdb`` by default).
    ``create=False`` refuses a file that does not exist yet (a game to resume)."""
    if log is not None and db is not None:
        raise GostopError("write to a log file or to the store, not both")
    if log is not None:
        return JsonlSink(log, create=create)
    return StoreSink(db, create=create)


# --- what a session returns ----------------------------------------------------------------


@dataclass(slots=True)
class Decision:
    """What the session decided while :meth:`RecordingSession.deciding`: the envelopes to
    store (every input with its consequences, and any checkpoint the session sealed after
    them), the game's version before them, and the projector after them (so the store need
    not run the rules again). The session has taken them as its state already; the caller
    stores them, or drops the session if it cannot."""

    game_id: str
    base: int
    envelopes: list[E.Envelope] = field(default_factory=list)
    checked: Projector | None = None


@dataclass(frozen=True, slots=True)
class Entry:
    """One accepted input as stored, with the consequences the rules derived from it."""

    input: E.Envelope
    consequences: tuple[E.Envelope, ...]
    before: GameState | None
    after: GameState
    #: For an undo: the envelope of the input entry it retracted.
    retracted: E.Envelope | None = None

    @property
    def envelopes(self) -> tuple[E.Envelope, ...]:
        return (self.input, *self.consequences)


@dataclass(frozen=True, slots=True)
class PendingDue:
    """A payment the rules made due in a hand that no ``payment_recorded`` answers yet."""

    hand: int
    payer: int
    payee: int
    points: int
    chips: int
    reason: str


class ChoiceRequired(IllegalAction):
    """A card matches two layout cards of its month: the recorder must say which it takes."""

    def __init__(self, card: str, candidates: Sequence[str], step: str, reason: str) -> None:
        self.card = card
        self.candidates = tuple(candidates)
        self.step = step
        super().__init__("choice_required", reason)


# --- the session ---------------------------------------------------------------------------


class RecordingSession:
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
        rules = ruleset if isinstance(ruleset, Ruleset) else resolve(ruleset)
        plist = make_players(players)
        if stake < 0:
            raise GostopError(f"the stake is chips per point, 0 or more, not {stake}")
        gid = game_id.strip() if game_id else new_game_id(clock)
        if not gid:
            raise GostopError("the game id is empty")
        if sink.version(gid):
            raise GostopError(
                f"game {gid!r} already exists in {sink.location}: continue it with "
                f"resume (gostop record --resume {gid})"
            )
        ev = E.GameStarted(
            ruleset=rules.pinned(), players=plist, stake=stake, venue=venue, notes=notes
        )
        start_game(gid, ev)  # refuses a player count the ruleset is not played with
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

    def __enter__(self) -> RecordingSession:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- the state ---------------------------------------------------------------------

    @property
    def game(self) -> GameState:
        g = self._proj.game
        assert g is not None
        return g

    @property
    def hand(self) -> HandState | None:
        return self.game.hand

    @property
    def rules(self) -> Ruleset:
        return self.game.rules

    @property
    def players(self) -> tuple[E.Player, ...]:
        return self.game.players

    @property
    def last_seq(self) -> int:
        return self._proj.last_seq

    def waiting(self) -> Waiting:
        """What the table waits for next (see :class:`~gostop_records.engine.game.Waiting`)."""
        return self.game.waiting()

    @property
    def actor(self) -> int | None:
        """The seat that acts next (None between hands)."""
        return notation.actor(self.hand)

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

    def pending_dues(self) -> list[PendingDue]:
        """Payments due in the latest hand that no recorded payment answers yet (see
        :meth:`~gostop_records.engine.game.GameState.pending_dues`)."""
        return [PendingDue(*d) for d in self.game.pending_dues()]

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
            cons = []
            while proj.expected:
                g = proj.game
                hand = g.hand_no or None if g is not None else None
                env = self._seal(chain, self._draft(proj, hand, proj.expected[0]))
                proj.feed(env)
                cons.append(env)
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
        out = []
        while proj.expected:
            g = proj.game
            hand = g.hand_no or None if g is not None else None
            env = self._seal(chain, self._draft(proj, hand, proj.expected[0]))
            proj.feed(env)
            out.append(env)
        return proj, chain, out

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
        if type(payload) is E.EntryRetracted:
            raise IllegalAction("retract_latest", "an entry is retracted with undo")
        if type(payload) is E.GameStarted:
            raise IllegalAction("game_started", "a game starts once, with its first event")

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
        self._seat(seat if 0 <= seat < len(self.players) else None, f"seat {seat}")
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
        (:func:`~gostop_records.checkpoints.countersignature`)."""
        return self._write(payload, self.game.hand_no or None)

    # --- the inputs of a table ---------------------------------------------------------

    def _seat(self, seat: int | None, who: str) -> int:
        if seat is None:
            raise IllegalAction("turn_order", f"no {who} is expected now")
        return seat

    def start_hand(self, dealer: int | None = None) -> Entry:
        """``hand_started``: the next hand; the dealer is the rules' (the winner deals),
        ``dealer`` for the first hand (default seat 0)."""
        return self.record(self._hand_started(dealer))

    def _hand_started(self, dealer: int | None) -> E.HandStarted:
        return notation.hand_started(self.game, dealer)

    def needs_hand_start(self) -> bool:
        g = self.game
        return g.hand is None or g.hand.phase is Phase.ENDED

    def deal(
        self,
        layout: Sequence[str],
        hands: Sequence[Sequence[str] | None] | None = None,
        stock: Sequence[str] | None = None,
        bonus_to_pile: Sequence[str] = (),
        *,
        dealer: int | None = None,
    ) -> list[Entry]:
        """``cards_dealt`` (starting the hand first when needed): the face-up layout is
        required; a hand or the stock left out (None) is unknown to the record."""
        g = self.game
        n = g.table.players
        hs = list(hands) if hands is not None else [None] * n
        if len(hs) != n:
            raise IllegalAction("deal_shape", f"{len(hs)} hands listed for {n} players")
        deal = E.CardsDealt(
            hands=[None if h is None else [card_code(c) for c in h] for h in hs],
            layout=[card_code(c) for c in layout],
            stock=None if stock is None else [card_code(c) for c in stock],
            bonus_to_pile=[card_code(c) for c in bonus_to_pile],
        )
        if self.needs_hand_start():
            return self.record_all([self._hand_started(dealer), deal])
        if dealer is not None and g.hand is not None and dealer != g.hand.dealer:
            raise IllegalAction(
                "dealer", f"hand {g.hand_no} was started with seat {g.hand.dealer} dealing"
            )
        return [self.record(deal)]

    def play(self, card: str, chosen: str | None = None) -> Entry:
        """``card_played`` by the seat to play; ``chosen`` when two layout cards match."""
        seat = self._seat(self.actor, "play")
        return self.record(
            E.CardPlayed(
                seat=seat,
                card=card_code(card),
                chosen=None if chosen is None else card_code(chosen),
            )
        )

    def flip(self, card: str, chosen: str | None = None) -> Entry:
        """``card_flipped``: the stock card the mover turned."""
        seat = self._seat(self.actor, "flip")
        return self.record(
            E.CardFlipped(
                seat=seat,
                card=card_code(card),
                chosen=None if chosen is None else card_code(chosen),
            )
        )

    def bomb(self, month: int, cards: Sequence[str] | None = None) -> Entry:
        """``bomb_played``: the mover's cards of ``month`` (the ones not on the layout)."""
        seat = self._seat(self.actor, "bomb")
        _month_ok(month)
        h = self.hand
        assert h is not None
        codes = [card_code(c) for c in cards] if cards else notation.bomb_cards(h, seat, month)
        return self.record(E.BombPlayed(seat=seat, month=month, cards=codes))

    def shake_cards(self, month: int) -> list[str] | None:
        """The three cards the mover can shake in ``month``, when the record knows them."""
        h = self.hand
        seat = self.actor
        if h is None or seat is None:
            return None
        return notation.shake_cards(h, seat, month)

    def shake(self, month: int, cards: Sequence[str] | None = None) -> Entry:
        """``shaken``: the mover shows three cards of ``month`` (named when unknown)."""
        seat = self._seat(self.actor, "shake")
        _month_ok(month)
        if cards:
            codes = [card_code(c) for c in cards]
        else:
            known = self.shake_cards(month)
            if known is None:
                raise IllegalAction(
                    "shaking",
                    f"name the three cards of month {month:02d} shown "
                    f"(e.g. shake {month:02d} {' '.join(C.codes(_MM[month])[:3])})",
                )
            codes = known
        return self.record(E.Shaken(seat=seat, month=month, cards=codes))

    def flip_only(self) -> Entry:
        """``flip_only_played``: a turn with no hand card (after a bomb)."""
        return self.record(E.FlipOnlyPlayed(seat=self._seat(self.actor, "flip-only turn")))

    def show_fours(self, shown: Sequence[tuple[int, int]]) -> Entry:
        """``four_of_a_month_shown``: (seat, month) of each four shown at the deal."""
        for _seat, month in shown:
            _month_ok(month)
        return self.record(
            E.FourOfAMonthShown(
                shown=[E.FourShown(seat=seat, month=m, cards=C.codes(_MM[m])) for seat, m in shown]
            )
        )

    def cup(self, role: str) -> Entry:
        """``cup_assigned``: the September cup counts as ``animal`` or ``junk``."""
        role = role.strip().lower()
        if role not in ("animal", "junk"):
            raise IllegalAction("cup", f"the cup counts as animal or junk, not {role!r}")
        h = self.hand
        seat = h.decider if h is not None and h.phase is Phase.CUP else self.actor
        return self.record(E.CupAssigned(seat=self._seat(seat, "cup decision"), role=role))

    def _decider(self) -> tuple[int, HandState]:
        h = self.hand
        if h is None or h.phase is not Phase.DECIDE:
            w = self.waiting()
            raise IllegalAction(
                "go_stop", f"nobody may say Go or Stop now (the table waits for {w.kind})"
            )
        return h.decider, h

    def go(self) -> Entry:
        """``go_called`` by the seat that may say Go or Stop."""
        seat, h = self._decider()
        return self.record(
            E.GoCalled(seat=seat, count=h.go_count[seat] + 1, score=h.score_of(seat))
        )

    def stop(self) -> Entry:
        """``stop_called`` (chosen): ends the hand; the consequences carry the payments due."""
        seat, h = self._decider()
        return self.record(E.StopCalled(seat=seat, score=h.score_of(seat)))

    def pay(self, payer: int, payee: int, chips: int, note: str | None = None) -> Entry:
        """``payment_recorded``: what the table actually paid (audited against the dues)."""
        if chips < 0:
            raise IllegalAction("payment", f"a payment is 0 chips or more, not {chips}")
        return self.record(E.PaymentRecorded(payer=payer, payee=payee, chips=chips, note=note))

    def pay_due(self) -> list[Entry]:
        """Record every pending due as paid at the computed amount."""
        dues = self.pending_dues()
        if not dues:
            raise IllegalAction("payment", "no payment is due")
        return [self.pay(d.payer, d.payee, d.chips) for d in dues]

    def settle(self, note: str | None = None) -> Entry:
        """``game_closed``: close the night; the consequence is the settlement the rules
        propose (``settlement_proposed``: each seat's total and the transfers). Sealed."""
        return self.record(E.GameClosed(note=note))

    def settle_pay(self, payer: int, payee: int, chips: int, note: str | None = None) -> Entry:
        """``settlement_paid``: a transfer of the night's settlement as paid; one that
        differs from the proposal needs a note (``settlement_note``)."""
        if chips < 0:
            raise IllegalAction("payment", f"a payment is 0 chips or more, not {chips}")
        return self.record(E.SettlementPaid(payer=payer, payee=payee, chips=chips, note=note))

    def note(self, text: str, about_seq: int | None = None) -> Entry:
        """``note_added``: free text, optionally about an earlier seq."""
        text = text.strip()
        if not text:
            raise IllegalAction("note", "a note needs some text")
        if about_seq is not None and not 1 <= about_seq <= self.last_seq:
            raise IllegalAction("note", f"there is no seq {about_seq} to comment on")
        return self.record(E.NoteAdded(text=text, about_seq=about_seq))

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


def _month_ok(month: int) -> None:
    if not 1 <= month <= 12:
        raise IllegalAction("month", f"a month is 1..12, not {month}")
