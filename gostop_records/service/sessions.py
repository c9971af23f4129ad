"""The service's state on the writer thread: the store, its settler, the games being
recorded in memory, and the one way they are written.

One :class:`TableService` owns the store file for the life of the server. Its writing
methods are called one at a time, on the writer thread (:mod:`.worker`); reads go to
:mod:`.reads`, on connections of their own.

The one write path. An entry is checked by the game's :class:`~gostop_records.recorder.
RecordingSession` (the same one ``gostop record`` drives), which runs the rules once and
seals the input and every consequence; the entries of a group (several tables recording at
once) are then made durable by one ``Store.append_group`` through the store's journal: one
synced record holds the events, the heads chain entries they ask for and the answer kept
for a retry (:mod:`gostop_records.store.journal`). Once the sync returns, the answer may be
sent. The settler (:mod:`.settler`) writes the journal's rows and the projection rows to
DuckDB on its own connection, chaining the heads entries after the tip DuckDB holds then.
Every other write (a new game, a token, a countersignature, an import, a ``/play`` hand)
runs on the same writer thread holding the journal's turn, so it and the settler never
extend the heads chain at once, and none of them keeps the chain's tip in memory.

A retry of an idempotency key finds that answer and gets it again, even from a server
restarted after dying between the sync and the answer; nothing is appended twice. While
the settler cannot write (a full disk) entries are refused with a 503 naming the cause;
they are accepted again as soon as a batch goes through.

The server signs what it records: its Ed25519 key lives in a key file beside the store
(``gostop.duckdb.key``, made on the first start, mode 0600); every game it starts holds the
key's public half (``key_added``) and a signed checkpoint of the head at the end of each
hand. Players countersign a hand's result from their phones with :meth:`countersign`.
"""

from __future__ import annotations

import contextlib
import logging
import os
import re
import tempfile
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import msgspec

from .. import events as E
from .. import log as L
from ..errors import (
    LogError,
    ProjectionError,
)
from ..integrity.signing import SigningKey, read_key_file, server_key_path, write_key_file
from ..recorder import Decision, RecordingSession, Waiting
from ..store import Store, staging
from ..store.append import Append
from ..store.connection import fetch_one
from ..store.people import person_key
from ..store.query import lock_down
from . import tokens_answers
from .errors import ServiceError
from .models import EntryIn
from .settings import ServiceSettings
from .settler import Settler, write_cause

log = logging.getLogger("gostop.service")


__all__ = [
    "Answer",
    "Decided",
    "EntryRequest",
    "Sessions",
    "StoredGame",
    "events_json",
    "reused_key",
    "server_key",
    "unavailable",
    "waiting_dict",
]


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
class Decided:
    """An entry its game's session decided, waiting to be stored."""

    decision: Decision
    body: bytes
    also: Callable[[Any, Sequence[E.Envelope]], None] | None = None
    key: str | None = None
    #: The answer to keep under the idempotency key: (scope, key, fingerprint, status,
    #: body, time).
    answer: tuple[str, str, str, int, str, str] | None = None
    #: The service's own rows written with the events, ``{table: [row, ...]}``.
    rows: dict[str, list[tuple[Any, ...]]] | None = None

    @property
    def game_id(self) -> str:
        return self.decision.game_id


class StoredGame:
    """What a recording session of the service reads of its game: the stored version and
    events. It writes nothing: the session decides (:meth:`RecordingSession.deciding`)
    and the service stores the decisions."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.location = "the store"

    def version(self, game_id: str) -> int:
        return self.store.version(game_id)

    def game_events(self, game_id: str) -> list[E.Envelope]:
        return self.store.events(game_id)

    def person_key(self, pid: str) -> bytes:
        """The key a game's names are sealed under (see ``gostop_records.names``)."""
        return person_key(self.store, pid)

    def append(
        self, envs: Sequence[E.Envelope], expected_version: int, checked: Any = None
    ) -> None:
        raise RuntimeError("the service stores what its sessions decide; they write nothing")

    def close(self) -> None:
        pass


def waiting_dict(w: Waiting) -> dict[str, Any]:
    return {"kind": w.kind, "seat": w.seat, "hand": w.hand, "options": list(w.options)}


def events_json(envs: Sequence[E.Envelope]) -> list[msgspec.Raw]:
    return [msgspec.Raw(L.encode_json(env)) for env in envs]


def server_key(store_path: Path) -> SigningKey:
    """The server's signing key: the key file beside the store, made on the first start."""
    path = server_key_path(store_path)
    if path.exists():
        return read_key_file(path)
    key = SigningKey.generate(f"gostop serve ({store_path.name})")
    write_key_file(path, key)
    return key


class Sessions:
    """See the module docstring. ``on_commit(game_id, envelopes)`` is told of every
    append (the live streams listen there). ``sign``: sign the games started here with
    the server's key (:func:`server_key`); ``after_commit``: called after every commit
    and before the answer (the tests' way to stop a server at that moment)."""

    def __init__(
        self,
        db: str | os.PathLike[str] | None = None,
        *,
        clock: Callable[[], str] = L.now,
        on_commit: Callable[[str, Sequence[E.Envelope]], None] | None = None,
        sign: bool = True,
        settings: ServiceSettings | None = None,
        after_commit: Callable[[], None] | None = None,
    ) -> None:
        self.settings = settings or ServiceSettings()
        self.store = Store(db)
        self.path = self.store.path
        #: Folders no answer names (:meth:`hide_paths`), as one pattern.
        self.hidden_folders = re.compile(
            "|".join(re.escape(f) for f in _hidden_folders(Path(self.path)))
        )
        #: The thread writing rows to DuckDB beside the writer thread.
        self.settler: Settler | None = None
        try:
            self.store.conn.execute(f"SET threads = {int(self.settings.store_threads)}")
            self.signer = server_key(self.path) if sign else None
            tokens_answers.create_tables(self.store.conn)
            self.store.catch_up_rows()
            staging.drop(self.store.conn)  # a rebuild's new tables a killed server left
            self.store.open_journal()
            self.settler = Settler(self.store, self.settings)
        except BaseException:
            if self.settler is not None:
                self.settler.stop()
            self.store.close()
            raise
        #: SQL over HTTP runs only on a database that reaches no file (lock_down); the
        #: store's own writes then go through Arrow, so it needs pyarrow.
        self.sql = _lock_down(self.store)
        self.clock = clock
        self.on_commit = on_commit
        self.after_commit = after_commit
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
        """Keep the settler out while a write other than an entry uses the store's own
        connection (both extend the heads chain)."""
        return self.settler.hold() if self.settler is not None else contextlib.nullcontext()

    def write_error(self) -> str | None:
        """Why entries cannot be written into the store now (None: they can)."""
        return self.settler.error if self.settler is not None else None

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

    def _conn(self, game_id: str | None = None) -> Any:
        """The store's connection, with every acknowledged entry in it (the journal's
        rows settled), for the writer thread's own reads; ``game_id``: every acknowledged
        entry of that game (settled only when the journal holds some, see
        :meth:`Store.settle_for`). When they cannot be written (a full disk), a 503 says
        so: the entries stay durable in the journal, and a write decided on less than was
        acknowledged could be wrong."""
        journal = self.store.journal
        if game_id is not None and journal is not None and game_id not in journal.games():
            return self.store.conn
        try:
            with self.hold():
                self.store.settle()
        except Exception as exc:
            log.error("the journal's rows cannot be written into the store: %s", exc)
            raise unavailable(write_cause(exc)) from None
        return self.store.conn

    def _signs(self, game_id: str) -> bool:
        """Whether the game's record holds the server's key (the server signs it)."""
        if self.signer is None:
            return False
        row = fetch_one(
            self._conn(game_id),
            "SELECT 1 FROM events WHERE game_id = ? AND type = 'key_added' "
            "AND payload ->> 'key' = ? LIMIT 1",
            [game_id, self.signer.public.text],
        )
        return row is not None

    # --- the games being recorded -----------------------------------------------------

    def _known(self, game_id: str) -> int:
        self._conn(game_id)  # the game's acknowledged entries in the store, or a 503
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
        sink = StoredGame(self.store)
        first = self.store.events(game_id, until_seq=1)
        by = first[0].by if first else "recorder"
        signer = self.signer if adopt or self._signs(game_id) else None
        try:
            rec = RecordingSession.resume(
                sink, game_id, by=by, clock=self.clock, signer=signer, deciding=True
            )
        except (ProjectionError, LogError) as exc:
            raise ServiceError(
                409, "not_recordable", f"game {game_id!r} cannot be continued: {exc}"
            ) from None
        if rec.opened is not None and rec.opened.envelopes:
            # an entry a crash of another recorder cut short: its consequences, its seal
            self._commit(rec.opened)
        self.keys[game_id] = tokens_answers.keys_of(self._conn(game_id), game_id)
        self.live[game_id] = rec
        while len(self.live) > self.settings.live_games:
            self.keys.pop(self.live.popitem(last=False)[0], None)
        return rec

    def _commit(
        self, decision: Decision, rows: dict[str, list[tuple[Any, ...]]] | None = None
    ) -> list[E.Envelope]:
        self._commit_group([Decided(decision, b"", rows=rows)])
        return decision.envelopes

    def _commit_group(self, entries: Sequence[Decided]) -> None:
        """Store the entries of several games in one journal record (all or none)."""
        appends = [
            Append(
                e.game_id,
                e.decision.envelopes,
                e.decision.base,
                checked=e.decision.checked,
                rows=e.rows,
            )
            for e in entries
        ]
        answers = [e.answer for e in entries if e.answer is not None]
        if answers:  # every answer of the group in one statement, with the events
            last = appends[-1].rows = dict(appends[-1].rows or {})
            last[tokens_answers.ANSWERS] = [*last.get(tokens_answers.ANSWERS, []), *answers]
        try:
            self.store.append_group(appends, defer_rows=True, journal=True)
        except BaseException:
            for e in entries:  # the sessions ran ahead of the store: rebuild them
                self.live.pop(e.game_id, None)
            raise
        for e in entries:
            if e.key:
                self.keys.setdefault(e.game_id, set()).add(e.key)
        if self.after_commit is not None:
            self.after_commit()
        if self.on_commit is not None:
            for e in entries:
                self.on_commit(e.game_id, e.decision.envelopes)

    # --- authorisation ----------------------------------------------------------------

    def check_token(self, game_id: str, token: str | None) -> None:
        """Refuse a write to a game without its recorder token (401) or with another (403)."""
        if game_id not in self.live:
            self._known(game_id)
        if not token:
            raise ServiceError(
                401, "unauthorized", "recording needs the game's recorder token (Bearer)"
            )
        ok = tokens_answers.matches(self._token_hash(game_id), token)
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
            self.token_hashes[game_id] = tokens_answers.token_of(self.store.conn, game_id)
        return self.token_hashes[game_id]

    def _set_token(self, conn: Any, game_id: str, token: str, at: str) -> None:
        self.token_hashes.pop(game_id, None)  # read again once the write is committed
        tokens_answers.set_token(conn, game_id, token, at)

    def token_game(self, token: str | None) -> dict[str, Any]:
        """The game a recorder token opens, with its version."""
        gid = tokens_answers.game_of_token(self._conn(), token) if token else None
        if gid is None:
            raise ServiceError(
                401 if not token else 403,
                "unauthorized" if not token else "forbidden",
                "give a game's recorder token (Bearer)" if not token else "no game has this token",
            )
        return {"game_id": gid, "version": self.store.version(gid)}

    def token_opens(self, game_id: str, token: str | None) -> bool:
        return bool(token) and bool(tokens_answers.matches(self._token_hash(game_id), token or ""))

    def issue_token(self, game_id: str) -> dict[str, Any]:
        """A new recorder token for a stored game (the old one stops working). The server
        records the game from now on, so it signs it: a game started elsewhere gets the
        server's key (``key_added``) first."""
        self._known(game_id)
        if self.signer is not None and not self._signs(game_id):
            self._session(game_id, adopt=True)
        version = self._known(game_id)
        token = tokens_answers.new_secret()
        self._set_token(self.store.conn, game_id, token, self.clock())
        return {"game_id": game_id, "version": version, "recorder_token": token}

    def _abandon(self, game_id: str, rec: RecordingSession, version: int) -> None:
        """A refused entry: nothing is stored; a session that decided part of it before the
        refusal (it took that as its state) is read again from the store when next needed."""
        if rec.last_seq != version:
            self.live.pop(game_id, None)

    def events(self, game_id: str, after: int = 0) -> list[E.Envelope]:
        """A game's events after ``after``, read on the writer thread (for what it
        publishes after a write; readers use :mod:`.reads`)."""
        self._known(game_id)
        envs = self.store.events(game_id)
        return [e for e in envs if e.seq > after] if after else envs

    def now(self, game_id: str) -> dict[str, Any]:
        """The table and every entry the rules accept next (:func:`.now.now`), from the
        game's recording session (kept in memory: no store read on a live game)."""
        from .now import now

        return now(self._session(game_id))

    def hide_paths(self, value: Any) -> Any:
        """``value`` (text, or lists and maps of it) with the folders of the server's files
        taken out: a store ``/srv/club/gostop.duckdb`` reads ``gostop.duckdb``. SQL can name
        them (``duckdb_databases()``, ``PRAGMA database_list``, the settings); an answer
        never does."""
        if isinstance(value, str):
            return self.hidden_folders.sub("", value) if os.sep in value else value
        if isinstance(value, list):
            return [self.hide_paths(x) for x in value]
        if isinstance(value, dict):
            return {k: self.hide_paths(x) for k, x in value.items()}
        return value


def _hidden_folders(path: Path) -> list[str]:
    """The folders :meth:`TableService.hide_paths` takes out, longest first: the store's,
    the home, the temporary and the working folder, each with its separator, then bare."""
    found = {str(path.resolve().parent), str(path.absolute().parent)}
    found |= {tempfile.gettempdir(), os.getcwd(), os.path.expanduser("~")}
    found = {f.rstrip(os.sep) for f in found if len(f.rstrip(os.sep)) > 1}
    longest = sorted(found, key=len, reverse=True)
    return [f + os.sep for f in longest] + longest


def _lock_down(store: Store) -> bool:
    try:
        import pyarrow  # noqa: F401
    except ImportError:
        return False
    lock_down(store.conn)
    return True


def unavailable(cause: str) -> ServiceError:
    return ServiceError(
        503,
        "store_unavailable",
        f"the store cannot take entries now: {cause}; what was acknowledged is kept in its "
        "journal and nothing is lost: try again later",
    )


def reused_key(key: str) -> ServiceError:
    return ServiceError(
        422,
        "idempotency_key_reused",
        f"the idempotency key {key!r} was used for another request: use a fresh key for a "
        "new entry",
    )
