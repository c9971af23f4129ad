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
from .projections import Rows, derive, empty_rows
from .writer import insert_events, is_write_conflict, replace_changed, transaction

if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence

    from .store import Store

__all__ = ["AppendResult", "GameCache", "append"]

_PAYLOADS = (*E.EVENT_CLASSES, E.UnknownEvent)


@dataclass(slots=True)
class GameCache:
    """A game's stored events, the projector after them and the game's projection rows,
    as of (version, last hash)."""

    projector: Projector
    events: list[E.Envelope]
    version: int
    last_hash: str | None
    rows: Rows


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
    item: Any, game_id: str, seq: int, chain: L.Chain, proj: Projector, by: str, at: str | None
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
        if L.compute_hash(item.prev, item) != item.hash:
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


def _load(store: Store, game_id: str, version: int, last_hash: str | None) -> GameCache:
    stored = store.events(game_id)
    p = replay(game_id, stored)
    rows = (
        derive(stored, p.game, p.issues, retracted=p.retracted)
        if p.game is not None
        else empty_rows()
    )
    return GameCache(p, stored, version, last_hash, rows)


def append(
    store: Store,
    game_id: str,
    items: Iterable[Any],
    expected_version: int | None,
    *,
    strict: bool = True,
    by: str = "api",
    at: str | None = None,
    checked: Projector | None = None,
) -> AppendResult:
    """See :meth:`Store.append`."""
    batch = list(items)
    if not batch:
        raise StoreError("nothing to append")
    conn = store.conn
    cache = store.cache.get(game_id)
    # the caller and the cache agree on the version: the head is not read (see above)
    trusted = cache is not None and expected_version == cache.version
    version, last_hash = (cache.version, cache.last_hash) if cache is not None else (0, None)
    proj: Projector | None = None
    new: list[E.Envelope] = []
    try:
        with transaction(conn):
            if not trusted:
                version, last_hash = store.head(game_id)
                if expected_version is not None and version != expected_version:
                    raise ConcurrencyError(game_id, expected_version, version)
                if cache is None or cache.version != version or cache.last_hash != last_hash:
                    cache = _load(store, game_id, version, last_hash)
            assert cache is not None
            chain = L.Chain(last_hash or L.GENESIS)
            if checked is None:
                proj = cache.projector.fork(strict)
                for k, item in enumerate(batch):
                    env = _envelope(item, game_id, version + 1 + k, chain, proj, by, at)
                    proj.feed(env)
                    new.append(env)
            else:
                # the caller's projector has been fed these very envelopes: the rules are
                # not run again; seq order and the chain still are, against the store's head
                proj = checked
                for k, item in enumerate(batch):
                    if not isinstance(item, E.Envelope) or not item.hash:
                        raise StoreError("a checked append takes sealed envelopes only")
                    new.append(_envelope(item, game_id, version + 1 + k, chain, proj, by, at))
                if proj.game_id != game_id or proj.last_seq != new[-1].seq:
                    raise StoreError(
                        f"game {game_id!r}: the projector given is not the state after seq "
                        f"{new[-1].seq}"
                    )
            if proj.game is None:
                raise StoreError(f"game {game_id!r}: the first event must be game_started")
            rows_in = [event_row(env) for env in new]
            all_events = [*cache.events, *new]
            hands = _touched_hands(all_events, new)
            insert_events(conn, rows_in)
            fresh = derive(
                all_events, proj.game, proj.issues, hands=hands, retracted=proj.retracted
            )
            merged = replace_changed(conn, game_id, hands, cache.rows, fresh)
    except ConcurrencyError:
        store.cache.pop(game_id, None)
        raise
    except Exception as exc:
        full = no_space(exc, store.path)
        if full is not None:
            store.cache.pop(game_id, None)
            raise full from None
        conflict = is_write_conflict(exc)
        if conflict or trusted:
            head = store.head(game_id)
            # a write conflict, or an error against a cache another writer made stale: the
            # same answer as if the head had been read first
            if conflict or head != (version, last_hash):
                store.cache.pop(game_id, None)
                raise ConcurrencyError(game_id, expected_version, head[0]) from None
        if isinstance(exc, ProjectionError) and exc.game_id is None:
            exc.game_id = game_id
        raise
    assert cache is not None and proj is not None
    cache.projector = proj
    cache.rows = merged
    cache.events.extend(new)
    cache.version = new[-1].seq
    cache.last_hash = new[-1].hash
    store.cache[game_id] = cache
    found = tuple(i for i in proj.issues if i.seq is not None and i.seq > version)
    return AppendResult(game_id, tuple(new), cache.version, found)
