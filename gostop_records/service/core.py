"""The table service without HTTP: one store, the games being recorded, every request.

One :class:`TableService` owns the store file for the life of the server. Its methods are
called one at a time (the web layer runs them on one worker thread), so a game's live
recording session, the store's connection and the service's rows never see two writers.

An entry is recorded by the game's :class:`~gostop_records.recorder.RecordingSession`,
the same one ``gostop record`` drives, into a sink that keeps the entry's envelopes (its
input and every consequence) until they are written together by one ``Store.append``:
one journal record holds the events, the heads chain entry and the answer to the request
(when it carries an idempotency key), synced before the answer is sent (the store's
journal, :mod:`gostop_records.store.journal`: DuckDB charges per statement, so the rows go
to DuckDB later, many entries' in one transaction, before anything reads them). A retry of
the key finds that answer and gets it again, even from a server restarted after dying
between the sync and the answer; nothing is appended twice. The projection tables
(derived from the events) are written after the answer, a few groups at a time
(``Store.flush_rows``), and derived again at start for any game a crash left them behind
on.

The server signs what it records: its Ed25519 key lives in a key file beside the store
(``gostop.duckdb.key``, made on the first start, mode 0600); every game it starts holds the
key's public half (``key_added``) and a signed checkpoint of the head at the end of each
hand. Players countersign a hand's result from their phones with :meth:`countersign`.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import os
import signal
import tempfile
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import msgspec

from .. import checkpoints as CP
from .. import events as E
from .. import log as L
from ..audit import AuditArgumentError, ClaimError, audit_game, parse_claim
from ..errors import (
    CardCodeError,
    GostopError,
    IllegalAction,
    LogError,
    ProjectionError,
    RulesetError,
)
from ..projector import Projector
from ..recorder import Entry, RecordingSession, Waiting, new_game_id
from ..replay import timeline
from ..rules import PRESETS, Ruleset, apply_overrides, get_preset
from ..signing import SigningKey, countersign_message, read_key_file, write_key_file
from ..store import Store
from ..store.append import Append
from ..store.connection import fetch_one
from ..store.errors import (
    ConcurrencyError,
    QueryCancelledError,
    QueryTimeoutError,
    QueryTooLargeError,
    StoreError,
)
from ..store.query import lock_down, query
from ..store.sandbox import DEFAULT_LIMITS, QueryHandle, QueryLimits
from . import store_rows
from .errors import ServiceError
from .models import CountersignIn, EntryIn, NewGame
from .settler import Settler

__all__ = [
    "COMMIT_ENV",
    "FAULT_ENV",
    "ROWS_ENV",
    "SETTLER_ENV",
    "STORE_THREADS",
    "Answer",
    "EntryRequest",
    "TableService",
    "server_key",
]

log = logging.getLogger("gostop.service")

#: Set to ``kill-after-commit`` to make the server kill itself (SIGKILL) right after it
#: commits an entry and before it answers: how the tests show that a retry after such a
#: crash appends nothing twice. Never set it otherwise.
FAULT_ENV = "GOSTOP_SERVICE_FAULT"
#: Set to ``inline`` to write the projection rows in each entry's own transaction, as
#: before they were deferred (how ``bench.service`` compares the two in one run).
ROWS_ENV = "GOSTOP_SERVICE_ROWS"
#: Set to ``duckdb`` to commit each group of entries in its own DuckDB transaction, as
#: before the journal (how ``bench.service`` compares the two in one run).
COMMIT_ENV = "GOSTOP_SERVICE_COMMIT"
#: Set to ``off`` to have the server's store thread write the journal's rows and the
#: projection rows to DuckDB itself, as before the settler (:mod:`.settler`).
SETTLER_ENV = "GOSTOP_SERVICE_SETTLER"

#: Games whose recording sessions are kept in memory (the least recently used go first).
LIVE_GAMES = 256
#: DuckDB threads of the service's store. An entry's transaction is a few single-row
#: statements; with a thread pool, DuckDB hands each statement's pipeline to its workers
#: and waits for them, which on a busy two-core server costs more than the work: with one
#: thread, the transaction of an entry takes about a tenth less (``python -m
#: bench.commit_cost``). The service's reads are one game's rows or a page of games.
STORE_THREADS = 1


@dataclass(frozen=True, slots=True)
class Answer:
    """An answer as sent: the status and the JSON body; ``replayed`` for an idempotent
    retry answered from the store."""

    status: int
    body: bytes
    replayed: bool = False
    #: Milliseconds the store's thread spent on the group the answer was made in, the
    #: group's size, and the milliseconds the entry waited for the thread (sent as a
    #: ``Server-Timing`` header).
    store_ms: float | None = None
    group: int = 1
    queue_ms: float | None = None


@dataclass(frozen=True, slots=True)
class EntryRequest:
    """An entry as it came: the game, the body, the raw event (to refuse unknown fields),
    the idempotency key; ``check_token`` asks :meth:`TableService.enter_group` to check
    ``token`` first."""

    game_id: str
    req: EntryIn
    raw_event: dict[str, Any] | None = None
    idempotency_key: str | None = None
    token: str | None = None
    check_token: bool = False


@dataclass(slots=True)
class _Entry:
    """An entry its game's session accepted, waiting to be committed."""

    game_id: str
    sink: _EntrySink
    envs: list[E.Envelope]
    body: bytes
    also: Callable[[Any, Sequence[E.Envelope]], None] | None
    key: str | None = None
    checked: Projector | None = None
    #: The answer to keep under the idempotency key: (scope, key, fingerprint, status,
    #: body, time).
    answer: tuple[str, str, str, int, str, str] | None = None


class _EntrySink:
    """A sink that keeps what a session writes until the service stores it in one append."""

    def __init__(self, store: Store, game_id: str) -> None:
        self.store = store
        self.location = str(store.path)
        self.game_id = game_id
        self.base = store.version(game_id)
        self.pending: list[E.Envelope] = []
        self.checked: Projector | None = None

    def version(self, game_id: str) -> int:
        if game_id != self.game_id:
            return self.store.version(game_id)
        return self.base + len(self.pending)

    def game_events(self, game_id: str) -> list[E.Envelope]:
        return self.store.events(game_id)

    def append(self, env: E.Envelope, expected_version: int) -> None:
        self.append_entry([env], expected_version, None)

    def append_entry(
        self, envelopes: list[E.Envelope], expected_version: int, projector: Projector | None
    ) -> None:
        """An entry and the session's projector after it (the store does not run the rules
        on it again)."""
        gid = envelopes[0].game_id
        if gid != self.game_id or expected_version != self.version(gid):
            raise ConcurrencyError(gid, expected_version, self.version(gid))
        self.pending.extend(envelopes)
        self.checked = projector

    def take(self) -> tuple[list[E.Envelope], Projector | None]:
        out, self.pending = self.pending, []
        checked, self.checked = self.checked, None
        return out, checked

    def close(self) -> None:
        pass


def _waiting(w: Waiting) -> dict[str, Any]:
    return {"kind": w.kind, "seat": w.seat, "hand": w.hand, "options": list(w.options)}


def _events_json(envs: Sequence[E.Envelope]) -> list[msgspec.Raw]:
    return [msgspec.Raw(L.encode_json(env)) for env in envs]


def fingerprint(obj: Any) -> str:
    """A digest of a request body, to tell a retry from another request with the same key."""
    return hashlib.sha256(msgspec.json.encode(msgspec.to_builtins(obj), order="sorted")).hexdigest()


def _ruleset(spec: str | dict[str, Any] | None, players: int) -> Ruleset:
    """A preset by name, or ``{"base": PRESET, field: value ...}``; never a file."""
    if spec is None:
        return PRESETS["gostop3" if players >= 3 else "matgo"]
    try:
        if isinstance(spec, str):
            return get_preset(spec)
        data = dict(spec)
        base = data.pop("base", None)
        if not isinstance(base, str):
            raise ServiceError(
                400,
                "bad_ruleset",
                f"ruleset.base: name the preset to start from ({', '.join(PRESETS)})",
            )
        rules = data.pop("rules", {})
        if not isinstance(rules, dict):
            raise ServiceError(400, "bad_ruleset", "ruleset.rules: must be an object of fields")
        overrides = {**data, **rules}
        preset = get_preset(base)
        overrides.setdefault("name", f"{preset.name}-custom")
        overrides.setdefault("description", f"{preset.name} with house overrides")
        return apply_overrides(preset, overrides, "ruleset")
    except RulesetError as exc:
        raise ServiceError(400, "bad_ruleset", str(exc)) from None


def server_key(store_path: Path) -> SigningKey:
    """The server's signing key: the key file beside the store, made on the first start."""
    path = store_path.with_name(store_path.name + ".key")
    if path.exists():
        return read_key_file(path)
    key = SigningKey.generate(f"gostop serve ({store_path.name})")
    write_key_file(path, key)
    return key


class TableService:
    """See the module docstring. ``on_commit(game_id, envelopes)`` is told of every
    append (the live streams listen there). ``sign``: sign the games started here with
    the server's key (:func:`server_key`); ``defer_rows``: write projection rows after
    the answer (default: unless ``$GOSTOP_SERVICE_ROWS`` is ``inline``)."""

    def __init__(
        self,
        db: str | os.PathLike[str] | None = None,
        *,
        clock: Callable[[], str] = L.now,
        on_commit: Callable[[str, Sequence[E.Envelope]], None] | None = None,
        sign: bool = True,
        defer_rows: bool | None = None,
        threads: int | None = STORE_THREADS,
        journal: bool | None = None,
        settler: bool = False,
    ) -> None:
        """``threads``: DuckDB's threads for the store (None: DuckDB's default);
        ``journal``: entries are durable at the journal's sync (default: unless
        ``$GOSTOP_SERVICE_COMMIT`` is ``duckdb``); ``settler``: a second thread writes the
        journal's rows and the projection rows to DuckDB (:mod:`.settler`; with the
        journal and deferred rows only), and the caller runs every call other than an
        entry inside :meth:`hold` (the server's worker does)."""
        self.store = Store(db)
        self.path = self.store.path
        self.defer_rows = (
            os.environ.get(ROWS_ENV, "") != "inline" if defer_rows is None else defer_rows
        )
        #: The thread writing rows to DuckDB beside the store thread, if any.
        self.settler: Settler | None = None
        try:
            if threads is not None:
                self.store.conn.execute(f"SET threads = {int(threads)}")
            self.signer = server_key(self.path) if sign else None
            store_rows.create_tables(self.store.conn)
            self.store.catch_up_rows()
            if os.environ.get(COMMIT_ENV, "") != "duckdb" if journal is None else journal:
                self.store.open_journal()
                if settler and self.defer_rows:
                    self.settler = Settler(self.store)
        except BaseException:
            self.store.close()
            raise
        #: SQL over HTTP runs only on a connection that reaches no file (lock_down); the
        #: store's own writes then go through Arrow, so it needs pyarrow.
        self.sql = _lock_down(self.store)
        self.clock = clock
        self.on_commit = on_commit
        self.live: OrderedDict[str, RecordingSession] = OrderedDict()
        #: The idempotency keys each live game has answered: a key reused at the game's
        #: current version is told apart here (a journaled entry has no primary key to
        #: collide on until its rows reach DuckDB).
        self.keys: dict[str, set[str]] = {}
        #: The hash of each game's recorder token as last read (None: the game has none),
        #: so that checking an entry's token reads nothing from the store.
        self.token_hashes: dict[str, str | None] = {}

    def close(self) -> None:
        """Stop the settler, write every pending row on the store's own connection, close."""
        if self.settler is not None:
            self.settler.stop()
            self.settler = None
        self.live.clear()
        self.flush_rows()
        self.store.close()

    def hold(self) -> contextlib.AbstractContextManager[None]:
        """Keep the settler (if any) out while a call other than an entry uses the store on
        its own connection (the worker writes every pending row first, so a read sees them)."""
        return self.settler.hold() if self.settler is not None else contextlib.nullcontext()

    def flush_rows(self, limit: int | None = None, *, settle: bool = True) -> bool:
        """Write the projection rows deferred so far (of the ``limit`` games waiting
        longest, or of all) and, with ``settle``, the journal's rows; a failure (a full
        disk) is logged and the rows stay pending: the events they derive from are
        durable. Whether it wrote."""
        try:
            self.store.flush_rows(limit, settle=settle)
        except Exception as exc:
            log.warning("projection rows not written yet: %s", exc)
            return False
        return True

    def _conn(self) -> Any:
        """The store's connection, with every acknowledged entry in it (the journal's
        rows settled). When they cannot be written (a full disk), the read is refused
        with a 503 saying so: the entries stay durable in the journal, and a read that
        left them out would answer with less than was acknowledged."""
        try:
            self.store.settle()
        except Exception as exc:
            raise ServiceError(
                503,
                "store_unavailable",
                f"the recorded entries cannot be written into the store now ({exc}); "
                "they are kept in its journal and nothing is lost: try again later",
            ) from exc
        return self.store.conn

    def _signs(self, game_id: str) -> bool:
        """Whether the game's record holds the server's key (the server signs it)."""
        if self.signer is None:
            return False
        row = fetch_one(
            self._conn(),
            "SELECT 1 FROM events WHERE game_id = ? AND type = 'key_added' "
            "AND payload ->> 'key' = ? LIMIT 1",
            [game_id, self.signer.public.text],
        )
        return row is not None

    # --- the games being recorded -----------------------------------------------------

    def _known(self, game_id: str) -> int:
        self._conn()  # every acknowledged entry in the store, or a 503 saying why not
        version = self.store.version(game_id)
        if not version:
            raise ServiceError(404, "not_found", f"there is no game {game_id!r}")
        return version

    def _session(self, game_id: str, adopt: bool = False) -> RecordingSession:
        """The game's recording session; ``adopt``: the server signs it from now on (a
        game started elsewhere gets the server's key)."""
        rec = self.live.get(game_id)
        if rec is not None and (not adopt or rec.signer is not None or self.signer is None):
            self.live.move_to_end(game_id)
            return rec
        self._known(game_id)
        sink = _EntrySink(self.store, game_id)
        first = self.store.events(game_id, until_seq=1)
        by = first[0].by if first else "recorder"
        signer = self.signer if adopt or self._signs(game_id) else None
        try:
            rec = RecordingSession.resume(sink, game_id, by=by, clock=self.clock, signer=signer)
        except (ProjectionError, LogError) as exc:
            raise ServiceError(
                409, "not_recordable", f"game {game_id!r} cannot be continued: {exc}"
            ) from None
        if sink.pending:  # an entry a crash of another recorder cut short: complete it
            self._commit(game_id, sink, None)
        self.keys[game_id] = store_rows.keys_of(self._conn(), game_id)
        self.live[game_id] = rec
        while len(self.live) > LIVE_GAMES:
            self.keys.pop(self.live.popitem(last=False)[0], None)
        return rec

    def _commit(
        self,
        game_id: str,
        sink: _EntrySink,
        also: Callable[[Any, Sequence[E.Envelope]], None] | None,
    ) -> list[E.Envelope]:
        envs, checked = sink.take()
        self._commit_group([_Entry(game_id, sink, envs, b"", also, checked=checked)])
        return envs

    def _commit_group(self, entries: Sequence[_Entry]) -> None:
        """Store the entries of several games in one transaction (all or none)."""
        appends = [
            Append(e.game_id, e.envs, e.sink.base, also=e.also, checked=e.checked) for e in entries
        ]
        answers = [e.answer for e in entries if e.answer is not None]
        if answers:  # every answer of the group in one statement, with the events
            appends[-1].rows = {store_rows.ANSWERS: answers}
        try:
            self.store.append_group(appends, defer_rows=self.defer_rows, journal=True)
        except BaseException:
            for e in entries:  # the sessions ran ahead of the store: rebuild them
                self.live.pop(e.game_id, None)
            raise
        for e in entries:
            e.sink.base += len(e.envs)
            if e.key:
                self.keys.setdefault(e.game_id, set()).add(e.key)
        if os.environ.get(FAULT_ENV) == "kill-after-commit":
            os.kill(os.getpid(), signal.SIGKILL)
        if self.on_commit is not None:
            for e in entries:
                self.on_commit(e.game_id, e.envs)

    def forget(self) -> None:
        """Drop the recording sessions and the store's caches (after an import)."""
        self.live.clear()
        self.flush_rows()
        self.store.cache.clear()

    # --- authorisation ----------------------------------------------------------------

    def check_token(self, game_id: str, token: str | None) -> None:
        """Refuse a write to a game without its recorder token (401) or with another (403)."""
        if game_id not in self.live:
            self._known(game_id)
        if not token:
            raise ServiceError(
                401, "unauthorized", "recording needs the game's recorder token (Bearer)"
            )
        ok = store_rows.matches(self._token_hash(game_id), token)
        if ok is None:
            raise ServiceError(
                403,
                "forbidden",
                f"game {game_id!r} has no recorder token on this server (it was recorded or "
                "imported elsewhere): issue one with POST /api/games/GAME_ID/token",
            )
        if not ok:
            raise ServiceError(403, "forbidden", f"this token does not record game {game_id!r}")

    def _token_hash(self, game_id: str) -> str | None:
        if game_id not in self.token_hashes:
            self.token_hashes[game_id] = store_rows.token_of(self.store.conn, game_id)
        return self.token_hashes[game_id]

    def _set_token(self, conn: Any, game_id: str, token: str, at: str) -> None:
        self.token_hashes.pop(game_id, None)  # read again once the write is committed
        store_rows.set_token(conn, game_id, token, at)

    def token_game(self, token: str | None) -> dict[str, Any]:
        """The game a recorder token opens, with its version."""
        gid = store_rows.game_of_token(self._conn(), token) if token else None
        if gid is None:
            raise ServiceError(
                401 if not token else 403,
                "unauthorized" if not token else "forbidden",
                "give a game's recorder token (Bearer)" if not token else "no game has this token",
            )
        return {"game_id": gid, "version": self.store.version(gid)}

    def token_opens(self, game_id: str, token: str | None) -> bool:
        return bool(token) and bool(store_rows.matches(self._token_hash(game_id), token or ""))

    # --- writing ----------------------------------------------------------------------

    def create_game(self, req: NewGame, idempotency_key: str | None = None) -> Answer:
        """Start a game: ``game_started`` stored with the hash of a fresh recorder token.

        A retry with the same idempotency key answers the same game with a new token (the
        old one no longer opens it): the token is never stored, so the first answer, lost
        on its way, cannot be sent again."""
        fp = fingerprint(req)
        if idempotency_key:
            done = store_rows.answered(self._conn(), "games", idempotency_key)
            if done is not None:
                if done[0] != fp:
                    raise _reused(idempotency_key)
                body = msgspec.json.decode(done[2])
                token = store_rows.new_secret()
                self._set_token(self.store.conn, body["game_id"], token, self.clock())
                body["recorder_token"] = token
                return Answer(done[1], msgspec.json.encode(body), replayed=True)
        rules = _ruleset(req.ruleset, len(req.players))
        gid = req.game_id or new_game_id(self.clock)
        if self.store.version(gid):
            raise ServiceError(409, "exists", f"game {gid!r} exists already")
        sink = _EntrySink(self.store, gid)
        try:
            rec = RecordingSession.start(
                sink,
                req.players,
                rules,
                stake=req.stake,
                game_id=gid,
                by=req.by,
                venue=req.venue,
                notes=req.notes,
                clock=self.clock,
                signer=self.signer,
            )
        except (IllegalAction, GostopError) as exc:
            raise ServiceError(400, "bad_game", str(exc)) from None
        token = store_rows.new_secret()
        body = {
            "game_id": rec.game_id,
            "version": rec.last_seq,
            "ruleset": rules.name,
            "players": [msgspec.to_builtins(p) for p in rec.players],
            "waiting": _waiting(rec.waiting()),
            "signed_by": self.signer.fingerprint if self.signer is not None else None,
        }
        stamp = self.clock()

        def also(conn: Any, _new: Sequence[E.Envelope]) -> None:
            self._set_token(conn, rec.game_id, token, stamp)
            if idempotency_key:
                store_rows.record_answer(
                    conn,
                    "games",
                    idempotency_key,
                    fp,
                    201,
                    msgspec.json.encode(body).decode(),
                    stamp,
                )

        self._commit(rec.game_id, sink, also)
        self.live[rec.game_id] = rec
        self.keys[rec.game_id] = set()
        # committed: the first entry need not read the hash back from the store
        self.token_hashes[rec.game_id] = store_rows.token_digest(token)
        return Answer(201, msgspec.json.encode({**body, "recorder_token": token}))

    def issue_token(self, game_id: str) -> dict[str, Any]:
        """A new recorder token for a stored game (the old one stops working). The server
        records the game from now on, so it signs it: a game started elsewhere gets the
        server's key (``key_added``) first."""
        self._known(game_id)
        if self.signer is not None and not self._signs(game_id):
            self._session(game_id, adopt=True)
        version = self._known(game_id)
        token = store_rows.new_secret()
        self._set_token(self.store.conn, game_id, token, self.clock())
        return {"game_id": game_id, "version": version, "recorder_token": token}

    def enter(
        self,
        game_id: str,
        req: EntryIn,
        *,
        raw_event: dict[str, Any] | None = None,
        idempotency_key: str | None = None,
    ) -> Answer:
        """Record one entry (a line of the grammar or a typed input) at ``expected_version``."""
        ready = self._prepare(EntryRequest(game_id, req, raw_event, idempotency_key))
        if isinstance(ready, Answer):
            return ready
        try:
            self._commit_group([ready])
        except (ConcurrencyError, ProjectionError) as exc:
            raise self._commit_refusal(ready, exc) from None
        return Answer(201, ready.body)

    def enter_group(self, requests: Sequence[EntryRequest]) -> list[Answer | Exception]:
        """Entries of several games (one each), committed in one transaction when every one
        is accepted; when the group cannot be committed, each is committed on its own."""
        out: list[Answer | Exception | None] = [None] * len(requests)
        ready: list[tuple[int, _Entry]] = []
        for i, r in enumerate(requests):
            try:
                if r.check_token:
                    self.check_token(r.game_id, r.token)
                got = self._prepare(r)
            except Exception as exc:  # each request gets its own refusal
                out[i] = exc
                continue
            if isinstance(got, Answer):
                out[i] = got
            else:
                ready.append((i, got))
        if ready:
            try:
                self._commit_group([e for _i, e in ready])
                for i, e in ready:
                    out[i] = Answer(201, e.body)
            except Exception:
                for i, _e in ready:  # one by one: each gets its own answer
                    r = requests[i]
                    try:
                        out[i] = self.enter(
                            r.game_id,
                            r.req,
                            raw_event=r.raw_event,
                            idempotency_key=r.idempotency_key,
                        )
                    except Exception as exc:
                        out[i] = exc
        return [a for a in out if a is not None]

    def _commit_refusal(self, e: _Entry, exc: Exception) -> ServiceError:
        if isinstance(exc, ConcurrencyError):
            key = e.key
            if key and store_rows.answered(self._conn(), e.game_id, key) is not None:
                return _reused(key)
            return ServiceError(409, "conflict", str(exc), version=exc.actual)
        assert isinstance(exc, ProjectionError)
        return ServiceError(422, "rules", exc.reason, rule=exc.rule, version=e.sink.base)

    def _prepare(self, r: EntryRequest) -> _Entry | Answer:
        """Check an entry with its game's session: the envelopes to store and the answer, or
        the stored answer to a retry of its idempotency key; ServiceError for a refusal."""
        game_id, req, key = r.game_id, r.req, r.idempotency_key
        if (req.entry is None) == (req.event is None):
            raise ServiceError(
                400, "bad_entry", "give either entry (a line such as 'play 03G 03R') or event"
            )
        if req.event is not None and r.raw_event is not None:
            _check_fields(r.raw_event)
        fp = fingerprint(req)
        rec = self._session(game_id)
        version = rec.last_seq
        # a key answered before moved the game past the version its request expected, so
        # only a request that is behind can be a retry; a key reused at the current version
        # is one of the game's answered keys
        if key and (req.expected_version != version or key in self.keys.get(game_id, ())):
            done = store_rows.answered(self._conn(), game_id, key)
            if done is not None:
                if done[0] != fp:
                    raise _reused(key)
                return Answer(done[1], done[2].encode(), replayed=True)
        if req.expected_version != version and not _only_countersigned(rec, req.expected_version):
            raise ServiceError(
                409,
                "conflict",
                f"game {game_id!r} is at version {version}, not {req.expected_version}: "
                "another device recorded first; read the game again and decide again",
                version=version,
            )
        sink = rec.sink
        assert isinstance(sink, _EntrySink)
        try:
            if req.entry is not None:
                rec.enter(req.entry)
            else:
                _record_event(rec, req.event)
        except IllegalAction as exc:
            self._abandon(game_id, sink)
            extra: dict[str, Any] = {"rule": exc.rule, "version": version}
            candidates = getattr(exc, "candidates", None)
            if candidates:
                extra["candidates"] = list(candidates)
            raise ServiceError(422, "rules", exc.reason, **extra) from None
        except (CardCodeError, GostopError) as exc:
            self._abandon(game_id, sink)
            raise ServiceError(400, "bad_entry", str(exc), version=version) from None
        except BaseException:
            self._abandon(game_id, sink)
            raise
        envs, checked = sink.take()
        if not envs:
            raise ServiceError(400, "bad_entry", "the entry records nothing", version=version)
        body = msgspec.json.encode(
            {
                "game_id": game_id,
                "version": version + len(envs),
                "events": _events_json(envs),
                "waiting": _waiting(rec.waiting()),
            }
        )
        answer = (game_id, key, fp, 201, body.decode(), self.clock()) if key else None
        return _Entry(game_id, sink, envs, body, None, key, checked, answer)

    # --- countersignatures ------------------------------------------------------------

    def checkpoint(self, game_id: str) -> dict[str, Any]:
        """The latest signed checkpoint of a game and what each seat signs to countersign
        it (the bytes of :func:`~gostop_records.signing.countersign_message`, base64)."""
        import base64

        rec = self._session(game_id)
        cp = _latest_checkpoint(rec.envelopes)
        if cp is None:
            raise ServiceError(
                404, "no_checkpoint", f"game {game_id!r} has no signed checkpoint yet"
            )
        ev = cp.event
        assert type(ev) is E.CheckpointSigned
        covered = next((e for e in rec.envelopes if e.seq == ev.head_seq), None)
        report = CP.check(rec.envelopes)
        return {
            "game_id": game_id,
            "seq": cp.seq,
            "head_seq": ev.head_seq,
            "head": ev.head,
            "hand": covered.hand if covered is not None else cp.hand,
            "recorder_key": ev.key,
            "countersigned": sorted(
                s.seat
                for s in report.signatures
                if s.kind == "countersignature" and s.valid and s.head_seq == ev.head_seq
            ),
            "messages": [
                base64.b64encode(countersign_message(game_id, seat, ev.head_seq, ev.head)).decode()
                for seat in range(len(rec.players))
            ],
        }

    def countersign(self, game_id: str, req: CountersignIn) -> Answer:
        """A player's countersignature of a signed checkpoint, checked, then appended
        (``result_countersigned``). One per seat and checkpoint; a seat keeps the key it
        first countersigned with. A retry of a countersignature already recorded gets the
        same answer and appends nothing."""
        rec = self._session(game_id)
        if not 0 <= req.seat < len(rec.players):
            raise ServiceError(
                400, "bad_seat", f"game {game_id!r} has seats 0..{len(rec.players) - 1}"
            )
        covered = [
            e
            for e in rec.envelopes
            if type(e.event) is E.CheckpointSigned
            and e.event.head_seq == req.head_seq
            and e.event.head == req.head
        ]
        if not covered:
            raise ServiceError(
                422,
                "no_checkpoint",
                f"no signed checkpoint of game {game_id!r} covers seq {req.head_seq} with head "
                f"{req.head[:12]}...: countersign a head the recorder signed",
                version=rec.last_seq,
            )
        try:
            payload = CP.countersignature(
                game_id, req.seat, req.head_seq, req.head, req.public_key, req.signature
            )
        except GostopError as exc:
            raise ServiceError(422, "bad_signature", str(exc), version=rec.last_seq) from None
        for e in rec.envelopes:
            ev = e.event
            if type(ev) is not E.ResultCountersigned or ev.seat != req.seat:
                continue
            if ev.key != payload.key:
                raise ServiceError(
                    422,
                    "wrong_key",
                    f"seat {req.seat} countersigned at seq {e.seq} with another key: a seat "
                    "countersigns with one key",
                    version=rec.last_seq,
                )
            if ev.head_seq == req.head_seq:
                body = {"game_id": game_id, "version": rec.last_seq, "events": [e]}
                return Answer(200, msgspec.json.encode(body), replayed=True)
        sink = rec.sink
        assert isinstance(sink, _EntrySink)
        try:
            rec.add_countersignature(payload)
        except BaseException:
            self._abandon(game_id, sink)
            raise
        envs = self._commit(game_id, sink, None)
        body = {"game_id": game_id, "version": rec.last_seq, "events": _events_json(envs)}
        return Answer(201, msgspec.json.encode(body))

    def _abandon(self, game_id: str, sink: _EntrySink) -> None:
        """A refused entry: nothing is stored; a session that wrote part of it is rebuilt."""
        if sink.take()[0]:
            self.live.pop(game_id, None)

    # --- reading ----------------------------------------------------------------------

    def events(self, game_id: str, after: int = 0) -> list[E.Envelope]:
        self._known(game_id)
        envs = self.store.events(game_id)
        return [e for e in envs if e.seq > after] if after else envs

    def now(self, game_id: str) -> dict[str, Any]:
        """The table and every entry the rules accept next (:func:`.now.now`)."""
        from .now import now

        return now(self._session(game_id))

    def event_lines(self, game_id: str, after: int = 0) -> bytes:
        """The log after ``after`` as JSON Lines, each line as stored."""
        return b"".join(L.encode_json(e) + b"\n" for e in self.events(game_id, after))

    def table(self, game_id: str, at: int | None = None) -> dict[str, Any]:
        envs = self.events(game_id)
        if at is not None and not 1 <= at <= envs[-1].seq:
            raise ServiceError(
                400, "bad_seq", f"game {game_id!r} has no seq {at} (seqs 1..{envs[-1].seq})"
            )
        tl = timeline(game_id, envs)
        if not tl.envelopes:
            raise ServiceError(422, "rules", f"game {game_id}: its first event does not replay")
        try:
            return tl.state_dict(tl.index_of_seq(at) if at is not None else len(tl.envelopes) - 1)
        except GostopError as exc:
            raise ServiceError(400, "bad_seq", str(exc)) from None

    def audit(
        self,
        game_id: str,
        *,
        hand: int | None = None,
        claims: Sequence[str] = (),
        lenient: bool = False,
    ) -> dict[str, Any]:
        envs = self.events(game_id)
        try:
            parsed = [parse_claim(c) for c in claims]
            result = audit_game(envs, hand=hand, claims=parsed, lenient=lenient)
        except (ClaimError, AuditArgumentError) as exc:
            raise ServiceError(400, "bad_audit", str(exc)) from None
        except ProjectionError as exc:
            raise ServiceError(
                422, "rules", f"{exc} (audit with lenient=true)", rule=exc.rule
            ) from None
        return result.to_dict()  # type: ignore[no-any-return]

    def search(
        self,
        *,
        player: str | None = None,
        date: str | None = None,
        date_from: str | None = None,
        date_to: str | None = None,
        ruleset: str | None = None,
        outcome: str | None = None,
        disputed: bool | None = None,
        limit: int = 50,
        offset: int = 0,
    ) -> dict[str, Any]:
        """Stored games, newest first, by player (id or name), date, ruleset, a hand's
        outcome, or whether a recorded payment differs from the computed one."""
        self.flush_rows()
        where: list[str] = []
        params: list[Any] = []
        if player:
            where.append(
                "(list_contains([lower(x) FOR x IN g.player_ids], lower(?)) OR "
                "list_contains([lower(x) FOR x IN g.player_names], lower(?)))"
            )
            params += [player, player]
        for value, op in ((date, "="), (date_from, ">="), (date_to, "<=")):
            if value:
                where.append(f"g.started_on {op} TRY_CAST(? AS DATE)")
                params.append(_date(value))
        if ruleset:
            where.append("g.ruleset = ?")
            params.append(ruleset)
        if outcome:
            where.append(
                "EXISTS (SELECT 1 FROM hands h WHERE h.game_id = g.game_id AND h.outcome = ?)"
            )
            params.append(outcome)
        if disputed is not None:
            where.append(
                ("" if disputed else "NOT ") + "EXISTS (SELECT 1 FROM v_payout_disputes d "
                "WHERE d.game_id = g.game_id)"
            )
        cond = ("WHERE " + " AND ".join(where)) if where else ""
        conn = self._conn()
        total = int(conn.execute(f"SELECT count(*) FROM games g {cond}", params).fetchall()[0][0])
        rows = conn.execute(
            "SELECT g.game_id, g.ruleset, g.player_names, g.stake, g.venue, g.started_at, "
            "g.last_at, g.events, g.hands, g.hands_ended, "
            "(SELECT count(*) FROM v_payout_disputes d WHERE d.game_id = g.game_id), "
            f"g.violations FROM games g {cond} "
            "ORDER BY g.started_at DESC NULLS LAST, g.game_id LIMIT ? OFFSET ?",
            [*params, limit, offset],
        ).fetchall()
        keys = [
            "game_id",
            "ruleset",
            "players",
            "stake",
            "venue",
            "started_at",
            "last_at",
            "version",
            "hands",
            "hands_ended",
            "disputes",
            "violations",
        ]
        games = [dict(zip(keys, r, strict=True)) for r in rows]
        return {"games": games, "total": total, "limit": limit, "offset": offset}

    def query(
        self,
        sql: str,
        limit: int,
        limits: QueryLimits = DEFAULT_LIMITS,
        handle: QueryHandle | None = None,
    ) -> dict[str, Any]:
        """Read-only SQL (the store's query path: no write, no file) within ``limits``;
        the last result. ``handle`` cancels it (the client went away)."""
        if not self.sql:
            raise ServiceError(
                501, "no_sql", "SQL over HTTP needs pyarrow on the server (pip install pyarrow)"
            )
        self.flush_rows()
        self._conn()  # every acknowledged entry in the store, or a 503 saying why not
        try:
            result = query(
                self.store, sql, limit=limit, allow_files=False, limits=limits, handle=handle
            )
        except QueryTimeoutError as exc:
            raise ServiceError(408, "query_timeout", str(exc), limits=limits.describe()) from None
        except QueryCancelledError as exc:  # the client has gone: nobody reads this answer
            raise ServiceError(408, "query_cancelled", str(exc)) from None
        except QueryTooLargeError as exc:
            raise ServiceError(413, "query_too_large", str(exc), limits=limits.describe()) from None
        except StoreError as exc:
            raise ServiceError(400, "bad_sql", str(exc)) from None
        rows = [[_cell(v) for v in r] for r in result.rows]
        return {
            "columns": list(result.columns),
            "rows": rows,
            "limit": limit,
            "truncated": result.truncated,
        }

    def health(self) -> dict[str, Any]:
        self.flush_rows()
        n = self._conn().execute("SELECT count(*) FROM games").fetchall()[0][0]
        return {"ok": True, "store": str(self.path), "games": int(n), "live": len(self.live)}

    # --- importing --------------------------------------------------------------------

    def import_jsonl(self, data: bytes, *, lenient: bool = False) -> dict[str, Any]:
        """A JSON Lines upload, validated and stored whole per game, as ``gostop db import``."""
        if not data.strip():
            raise ServiceError(400, "bad_import", "the upload is empty: send JSON Lines")
        fd, name = tempfile.mkstemp(prefix="gostop-upload-", suffix=".jsonl")
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(data if data.endswith(b"\n") else data + b"\n")
            before = {g: self.store.version(g) for g in self.live}
            report = self.store.import_paths([Path(name)], strict=not lenient, workers=0)
        except LogError as exc:
            raise ServiceError(400, "bad_import", str(exc).replace(name, "upload")) from None
        finally:
            self.forget()
            Path(name).unlink(missing_ok=True)
        out = report.to_dict()
        text = msgspec.json.encode(out).decode().replace(name, "upload")
        if self.on_commit is not None:
            for gid, v in before.items():
                new = [e for e in self.store.events(gid) if e.seq > v]
                if new:
                    self.on_commit(gid, new)
        return msgspec.json.decode(text)  # type: ignore[no-any-return]


def _lock_down(store: Store) -> bool:
    try:
        import pyarrow  # noqa: F401
    except ImportError:
        return False
    lock_down(store.conn)
    return True


def _cell(v: Any) -> Any:
    """A SQL value as JSON: numbers, text, lists and maps as they are, the rest as text."""
    if v is None or isinstance(v, bool | int | float | str):
        return v
    if isinstance(v, list | tuple):
        return [_cell(x) for x in v]
    if isinstance(v, dict):
        return {str(k): _cell(x) for k, x in v.items()}
    return str(v)


def _date(value: str) -> str:
    import datetime as dt

    try:
        return dt.date.fromisoformat(value).isoformat()
    except ValueError:
        raise ServiceError(400, "bad_query", f"date {value!r}: give YYYY-MM-DD") from None


def _latest_checkpoint(envs: Sequence[E.Envelope]) -> E.Envelope | None:
    return next((e for e in reversed(envs) if type(e.event) is E.CheckpointSigned), None)


def _only_countersigned(rec: RecordingSession, expected: int) -> bool:
    """Whether the game moved past ``expected`` by countersignatures alone: they change
    nothing a recorder decides on, so an entry made at ``expected`` still stands."""
    if not 0 < expected < rec.last_seq:
        return False
    return all(type(e.event) is E.ResultCountersigned for e in rec.envelopes[expected:])


def _reused(key: str) -> ServiceError:
    return ServiceError(
        422,
        "idempotency_key_reused",
        f"the idempotency key {key!r} was used for another request: use a fresh key for a "
        "new entry",
    )


def _check_fields(raw: dict[str, Any]) -> None:
    """Refuse fields a typed input does not have (the events accept and ignore them)."""
    tag = raw.get("type")
    cls = E.EVENT_TYPES.get(tag) if isinstance(tag, str) else None
    if cls is None:
        return
    known = {"type", *cls.__struct_fields__}
    extra = sorted(set(raw) - known)
    if extra:
        raise ServiceError(
            400,
            "bad_entry",
            f"event {tag}: unknown field(s) {', '.join(extra)}; its fields are "
            f"{', '.join(cls.__struct_fields__)}",
        )


def _record_event(rec: RecordingSession, payload: Any) -> list[Entry]:
    """A typed input, recorded as the recorder would (an undo names its target's seq)."""
    return rec.record_all([payload])
