"""The live append: validate against the projector, seal, write one transaction.

A live recorder has already run the rules on its entry (its own projector, forked, was fed
the input and its consequences before anything was written): it passes that projector as
``checked`` and the rules are not run a second time; the seq order and the hash chain are
still checked against the store's head, and the projection rows are derived from it.

A recorder appends one entry (or one input with its consequences) at a time and must never
lose an acknowledged one, so every call is one transaction, committed before it returns.
Optimistic concurrency keeps writers apart: the caller says which version (the number of
stored events) it saw; if the store holds another, another writer got there first and the
call raises :class:`ConcurrencyError` having written nothing. Two writers that race past
the check collide on the primary key ``(game_id, seq)`` at commit, with the same result.

Replaying a whole game on every entry would make a long sitting slower with each hand, so
the projector's state is cached per game and forked for each append; the cache is trusted
only while its version and last hash match the store's, and is rebuilt from the stored
events otherwise (another writer, an import, or a first append in this process).

When the caller's expected version is the cached one, the store's head is not read at all:
events are only ever added, so if another writer (another store in this process: no other
process can open the file meanwhile) got there first, it stored the seq this append is
about to write, and the insert collides on the primary key, which is reported as the same
:class:`ConcurrencyError`. This spares a query on the path every recorded entry takes.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .. import events as E
from .. import log as L
from ..errors import LogError, ProjectionError
from ..projector import Issue, Projector
from .codec import event_row
from .errors import ConcurrencyError, StoreError, no_space
from .game_cache import GameCache, PendingRows
from .heads import record_rows, writing
from .journal import insert_tables
from .pending import flush_rows
from .people import revealed
from .projections import Rows, derive, empty_rows
from .writer import (
    insert_events,
    is_write_conflict,
    merge_rows,
    replace_changed_many,
    transaction,
)

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    import duckdb

    from .handle import StoreHandle

__all__ = [
    "Append",
    "AppendResult",
    "GameCache",
    "append_group",
]

_PAYLOADS = (*E.EVENT_CLASSES, E.UnknownEvent)


#: Appends that add an entry to the store's heads chain (beside a game's first).
_SEALING = (E.HandEnded, E.CheckpointSigned)


@dataclass(frozen=True, slots=True)
class AppendResult:
    """What an append wrote: the sealed envelopes, the new version, lenient findings."""

    game_id: str
    envelopes: tuple[E.Envelope, ...]
    version: int
    issues: tuple[Issue, ...] = field(default=())

    @property
    def first_seq(self) -> int:
        return self.envelopes[0].seq

    @property
    def last_hash(self) -> str:
        return self.envelopes[-1].hash


def replay(game_id: str, events: Sequence[E.Envelope]) -> Projector:
    """A lenient projector after the stored events (stored games may hold violations)."""
    p = Projector(strict=False)
    try:
        for env in events:
            p.feed(env)
    except ProjectionError as exc:
        raise StoreError(
            f"game {game_id!r}: the stored events do not replay at seq {exc.seq}: {exc.reason} "
            "(run gostop db verify)"
        ) from None
    return p


def _hand_for(game: Any, ev: Any) -> int | None:
    if type(ev) is E.HandStarted:
        return int(ev.hand)
    if game is None or type(ev) is E.GameStarted:
        return None
    return game.hand_no or None


def _envelope(
    item: Any,
    game_id: str,
    seq: int,
    chain: L.Chain,
    proj: Projector,
    by: str,
    at: str | None,
    hashed: bool = False,
) -> E.Envelope:
    if isinstance(item, E.Envelope):
        if item.game_id != game_id:
            raise LogError(
                f"an event of game {item.game_id!r} cannot be appended to game {game_id!r}",
                seq=item.seq,
                field="game_id",
            )
        if item.seq != seq:
            raise LogError(
                f"the next event of game {game_id!r} is seq {seq}, not {item.seq}",
                seq=item.seq,
                field="seq",
            )
        if not item.hash:
            return chain.seal(item)
        if item.prev != chain.prev:
            raise LogError(
                "prev is not the hash of the stored last event of the game",
                seq=seq,
                field="prev",
            )
        if not hashed and L.compute_hash(item.prev, item) != item.hash:
            raise LogError(L.HASH_MISMATCH, seq=seq, field="hash")
        chain.prev = item.hash
        chain.count += 1
        return item
    if not isinstance(item, _PAYLOADS):
        raise StoreError(f"cannot append {type(item).__name__}: give event payloads or envelopes")
    env = L.envelope(game_id, seq, _hand_for(proj.game, item), item, by=by, at=at)
    return chain.seal(env)


def _touched_hands(events: Sequence[E.Envelope], new: Sequence[E.Envelope]) -> set[int]:
    hands = {env.hand for env in new if env.hand is not None}
    for env in new:
        if type(env.event) is E.EntryRetracted:
            # the retraction undoes events back to its target: their hands change too
            lo = max(env.event.seq, 1)
            hands.update(e.hand for e in events[lo - 1 : env.seq] if e.hand is not None)
    return hands


def _load(store: StoreHandle, game_id: str, version: int, last_hash: str | None) -> GameCache:
    stored = store.events(game_id)
    p = replay(game_id, stored)
    rows = (
        derive(stored, p.game, p.issues, retracted=p.retracted)
        if p.game is not None
        else empty_rows()
    )
    return GameCache(p, stored, version, last_hash, rows)


@dataclass(slots=True)
class Append:
    """One game's part of :func:`append_group` (the arguments of :meth:`Store.append`)."""

    game_id: str
    items: Sequence[Any]
    expected_version: int | None
    strict: bool = True
    by: str = "api"
    at: str | None = None
    also: Callable[[duckdb.DuckDBPyConnection, Sequence[E.Envelope]], None] | None = None
    #: The caller's projector fed exactly these envelopes (see :meth:`Store.append`).
    checked: Projector | None = None
    #: The caller's own rows, ``{table: [row, ...]}`` (values in the table's column order),
    #: written with the events; unlike ``also``, they can go through the journal.
    rows: dict[str, list[tuple[Any, ...]]] | None = None
    #: the heads entry's kind (default: by what is appended, see :func:`_heads_of`)
    kind: str | None = None
    #: The envelopes' own hashes were checked as they were read (an upload): only their
    #: links to the stored chain are checked here.
    hashed: bool = False
    #: A new game's projection rows, derived by the caller from ``checked`` (an upload,
    #: off the writer's thread); used only when the store holds none of the game.
    derived: Rows | None = None


@dataclass(slots=True)
class _Staged:
    """An append on its way: what the cache said before, what is being written."""

    req: Append
    cache: GameCache | None
    trusted: bool
    version: int
    last_hash: str | None
    proj: Projector | None = None
    new: list[E.Envelope] = field(default_factory=list)
    hands: set[int] = field(default_factory=set)
    fresh: Rows | None = None
    merged: Rows | None = None


def holds_none(store: StoreHandle, game_id: str) -> None:
    """Tell the store it holds nothing of ``game_id``, as the caller has just read on the
    writer's thread (an upload's verdict): the game's first append then reads neither its
    head nor its events, two queries of a few milliseconds that every entry would wait
    behind."""
    store.cache.setdefault(game_id, GameCache(Projector(), [], 0, None, empty_rows()))


def _begin(store: StoreHandle, req: Append) -> _Staged:
    if not req.items:
        raise StoreError("nothing to append")
    cache = store.cache.get(req.game_id)
    # the caller and the cache agree on the version: the head is not read (see above)
    trusted = cache is not None and req.expected_version == cache.version
    version, last_hash = (cache.version, cache.last_hash) if cache is not None else (0, None)
    return _Staged(req, cache, trusted, version, last_hash)


def _write(store: StoreHandle, st: _Staged) -> None:
    """Inside the transaction: check the version and the chain, seal, feed, derive."""
    req, game_id = st.req, st.req.game_id
    if not st.trusted:
        st.version, st.last_hash = store.head(game_id)
        if req.expected_version is not None and st.version != req.expected_version:
            raise ConcurrencyError(game_id, req.expected_version, st.version)
        c = st.cache
        if c is None or c.version != st.version or c.last_hash != st.last_hash:
            st.cache = _load(store, game_id, st.version, st.last_hash)
    cache = st.cache
    assert cache is not None
    chain = L.Chain(st.last_hash or L.GENESIS)
    if req.checked is None:
        proj = st.proj = cache.projector.fork(req.strict)
        for k, item in enumerate(req.items):
            env = _envelope(item, game_id, st.version + 1 + k, chain, proj, req.by, req.at)
            proj.feed(env)
            st.new.append(env)
    else:
        # the caller's projector has been fed these very envelopes: the rules are not run
        # again; seq order and the chain still are, against the store's head
        proj = st.proj = req.checked
        for k, item in enumerate(req.items):
            if not isinstance(item, E.Envelope) or not item.hash:
                raise StoreError("a checked append takes sealed envelopes only")
            seq = st.version + 1 + k
            st.new.append(_envelope(item, game_id, seq, chain, proj, req.by, req.at, req.hashed))
        if proj.game_id != game_id or proj.last_seq != st.new[-1].seq:
            raise StoreError(
                f"game {game_id!r}: the projector given is not the state after seq {st.new[-1].seq}"
            )
    if proj.game is None:
        raise StoreError(f"game {game_id!r}: the first event must be game_started")
    all_events = [*cache.events, *st.new]
    st.hands = _touched_hands(all_events, st.new)
    if req.derived is not None and not st.version:
        st.fresh = req.derived  # a whole game, derived by the caller beforehand
    else:
        # a name sealed in an uploaded game shows as the store's keys open it
        shown = revealed(store.conn, all_events)
        st.fresh = derive(shown, proj.game, proj.issues, hands=st.hands, retracted=proj.retracted)


def _write_rows(store: StoreHandle, staged: Sequence[_Staged], defer_rows: bool) -> None:
    """Inside the transaction, after every append is checked: the events of all games in
    one statement, then the projection rows that changed (unless deferred), then the
    store's heads chain, then the callers' own rows."""
    conn = store.conn
    insert_events(conn, [event_row(env) for st in staged for env in st.new])
    if defer_rows:
        for st in staged:
            st.merged = merge_rows(st.cache.rows, st.hands, st.fresh)  # type: ignore[union-attr,arg-type]
    else:
        merged = replace_changed_many(
            conn,
            [(st.req.game_id, st.hands, st.cache.rows, st.fresh) for st in staged],  # type: ignore[union-attr]
        )
        for st, rows in zip(staged, merged, strict=True):
            st.merged = rows
    # the store's heads chain: an entry per append, so that every event the store
    # acknowledged is counted by it (a cut tail, however short, is found); one statement
    record_rows(conn, _heads_of(staged))
    insert_tables(conn, _own_rows(staged))
    for st in staged:
        if st.req.also is not None:
            st.req.also(conn, st.new)


def _heads_of(staged: Sequence[_Staged]) -> list[tuple[str, str | None, int, str | None]]:
    return [
        (
            st.req.kind
            if st.req.kind is not None
            else "game_appended"
            if not st.version
            else "hand_sealed"
            if any(type(env.event) in _SEALING for env in st.new)
            else "appended",
            st.req.game_id,
            st.new[-1].seq,
            st.new[-1].hash,
        )
        for st in staged
    ]


def _own_rows(staged: Sequence[_Staged]) -> dict[str, list[tuple[Any, ...]]]:
    out: dict[str, list[tuple[Any, ...]]] = {}
    for st in staged:
        for table, rows in (st.req.rows or {}).items():
            out.setdefault(table, []).extend(rows)
    return out


def _refused(store: StoreHandle, st: _Staged, exc: Exception) -> Exception:
    """The error to raise for a failed append (a conflict reads as a ConcurrencyError)."""
    game_id = st.req.game_id
    if isinstance(exc, ConcurrencyError):
        store.cache.pop(game_id, None)
        return exc
    full = no_space(exc, store.path)
    if full is not None:
        store.cache.pop(game_id, None)
        return full
    conflict = is_write_conflict(exc)
    if conflict or st.trusted:
        head = store.head(game_id)
        # a write conflict, or an error against a cache another writer made stale: the
        # same answer as if the head had been read first
        if conflict or head != (st.version, st.last_hash):
            store.cache.pop(game_id, None)
            return ConcurrencyError(game_id, st.req.expected_version, head[0])
    if isinstance(exc, ProjectionError) and exc.game_id is None:
        exc.game_id = game_id
    return exc


def _finish(store: StoreHandle, st: _Staged, defer_rows: bool) -> AppendResult:
    cache, proj, new = st.cache, st.proj, st.new
    assert cache is not None and proj is not None and st.merged is not None
    if defer_rows:
        gid = st.req.game_id
        with store.rows_lock:  # another thread may be taking them (the service's settler)
            pend = store.pending_rows.get(gid)
            if pend is None:
                pend = store.pending_rows[gid] = PendingRows(cache.rows, set(), st.merged)
            pend.hands |= st.hands
            pend.rows = st.merged
    cache.projector = proj
    cache.rows = st.merged
    cache.events.extend(new)
    cache.version = new[-1].seq
    cache.last_hash = new[-1].hash
    store.cache[st.req.game_id] = cache
    found = tuple(i for i in proj.issues if i.seq is not None and i.seq > st.version)
    return AppendResult(st.req.game_id, tuple(new), cache.version, found)


def append_group(
    store: StoreHandle,
    requests: Sequence[Append],
    *,
    defer_rows: bool = False,
    journal: bool = False,
) -> list[AppendResult]:
    """Appends to several games in one transaction: every one is committed, or none.

    A server where many tables record at once commits what they sent meanwhile together,
    one commit for all. Each game appears once. When one append is refused, nothing is
    written and its error is raised (the others may then be sent again one by one).

    ``defer_rows``: the transaction holds the events, the heads chain and the callers' own
    rows only; the projection rows wait in ``store.pending_rows`` until :func:`flush_rows`
    (they are derived data: a crash before the flush leaves them behind the events, and
    :meth:`Store.catch_up_rows` derives them again).

    ``journal``: the rows go to the store's journal (see :mod:`.journal`), durable when this
    returns, and to DuckDB at :meth:`Store.settle`; with ``defer_rows`` only (the projection
    rows follow the events), and only appends without ``also`` (the others are written to
    DuckDB, after whatever the journal holds).
    """
    if len({r.game_id for r in requests}) != len(requests):
        raise StoreError("a group appends to each game once")
    if (
        journal
        and defer_rows
        and store.journal is not None
        and all(r.also is None for r in requests)
    ):
        with writing(store.path):
            return _journal_group(store, requests)
    # every write extends the heads chain's tip: writes to one file take turns here, the
    # journal's writer included, and each reads the tip inside its own transaction
    with writing(store.path), store.journal_turn():
        store.settle()
        if not defer_rows and store.rows_pending():
            flush_rows(store)
        return _append_group(store, requests, defer_rows)


def _append_group(
    store: StoreHandle, requests: Sequence[Append], defer_rows: bool
) -> list[AppendResult]:
    staged = [_begin(store, r) for r in requests]
    done = 0
    try:
        with transaction(store.conn):
            for st in staged:
                _write(store, st)
                done += 1
            _write_rows(store, staged, defer_rows)
    except Exception as exc:
        if done < len(staged):
            err = _refused(store, staged[done], exc)
            if err is exc:
                raise
            raise err from None
        # the commit failed: a full disk, or an append whose game moved meanwhile
        full = no_space(exc, store.path)
        if full is not None:
            for st in staged:
                store.cache.pop(st.req.game_id, None)
            raise full from None
        for st in staged:
            err = _refused(store, st, exc)
            if isinstance(err, ConcurrencyError):
                raise err from None
        raise
    return [_finish(store, st, defer_rows) for st in staged]


def _journal_group(store: StoreHandle, requests: Sequence[Append]) -> list[AppendResult]:
    """:func:`append_group` through the journal: checked and sealed as in a transaction,
    then one journal record of the rows it would write. Its heads entries are chained when
    the record is applied (:func:`.heads.chain_pending`), after whatever tip DuckDB holds
    then: nothing here depends on a tip remembered in memory."""
    assert store.journal is not None
    staged = [_begin(store, r) for r in requests]
    for st in staged:
        if not st.trusted:  # its head is read: every acknowledged event of it first
            store.settle_for(st.req.game_id)
    done = 0
    try:
        for st in staged:
            _write(store, st)
            done += 1
    except Exception as exc:
        err = _refused(store, staged[done], exc)
        if err is exc:
            raise
        raise err from None
    at = L.now()
    rows: dict[str, list[tuple[Any, ...]]] = {
        "events": [event_row(env) for st in staged for env in st.new],
        # chained when applied: (entry, kind, game, seq, head, at, detail, prev, hash)
        "heads": [(None, k, g, n, h, at, None, None, None) for k, g, n, h in _heads_of(staged)],
        **_own_rows(staged),
    }
    try:
        store.journal.write(rows)
    except Exception as exc:
        for st in staged:
            store.cache.pop(st.req.game_id, None)
        full = no_space(exc, store.path)
        if full is not None:
            raise full from None
        raise
    for st in staged:
        st.merged = merge_rows(st.cache.rows, st.hands, st.fresh)  # type: ignore[union-attr,arg-type]
    return [_finish(store, st, True) for st in staged]
