"""The store's own chain of game heads: what the store held, so that a loss cannot hide.

Each game's hash chain shows an event changed in place, but not a game deleted from the
store, replaced by another chain, or cut short: what is left is a valid chain. So writes add
entries to the ``heads`` table, in the transaction that writes the events:

| kind | when |
|---|---|
| ``game_appended`` | a game's first live append |
| ``hand_sealed`` | a live append that ends a hand or holds a signed checkpoint |
| ``appended`` | every other live append |
| ``game_imported`` | a game imported or extended by ``db import`` |
| ``migrated`` | a game the store held when the chain began (schema version 3) |
| ``loss_accepted`` | ``db rebuild --accept-loss``: the game's head as it is after a loss |
| ``rebuild`` | the projection tables derived again |
| ``repaired`` | ``db repair``: a game's events the chain missed; last, what it did |
| ``people`` | an append to the people record (no game: its events and head) |
| ``game_resealed`` | ``people upgrade``: a game re-chained with its names sealed (:mod:`.reseal`) |

An entry holds the game, its number of events and its head then, and is chained to the
entry before it like events are (``hash = sha256(prev + canonical bytes of the entry)``).
``gostop db verify`` checks the chain and, for every
game, that the store holds exactly the events its latest entry counts, with the same head:
a deleted game, a replaced one, a cut tail and events added behind the chain's back are each
named with what the chain recorded. Every live append adds an entry (in the service, one
statement for all the games of a group commit): with entries at hand ends only, the plays
of a hand in progress could be cut, and events added after the latest entry, with nothing
to show for it; the chain would cover only what the signed checkpoints already do.
``gostop db rebuild`` refuses to run over such a loss unless told to accept it, and records
the loss and the rebuild here. ``gostop db repair`` mends, and records, the damage a stale
tip did to this chain in earlier versions, and nothing else (:mod:`.repair`).

Whoever holds the file can recompute this chain too; its tip, sealed (``gostop seal --db``)
and written down elsewhere, is what they cannot change.
"""

from __future__ import annotations

import contextlib
import json
import os
import threading
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

import msgspec

from .. import log as L
from ..errors import Finding, GostopError
from ..integrity.chain import GENESIS, digest_after
from ..integrity.seals import SealCheck, SealQuery
from .bulk import insert_rows
from .connection import fetch_one
from .schema import HEADS_COLUMNS

if TYPE_CHECKING:
    import duckdb

__all__ = [
    "ENTRY_SELECT",
    "KINDS",
    "HeadsProblem",
    "Loss",
    "LossError",
    "adopt",
    "chain_pending",
    "chain_rows",
    "check",
    "check_seal",
    "entry_digest",
    "losses",
    "record",
    "record_rows",
    "tip",
    "writing",
]

KINDS = (
    "game_appended",
    "hand_sealed",
    "appended",
    "game_imported",
    "migrated",
    "loss_accepted",
    "rebuild",
    "repaired",
    "people",
    "game_resealed",
)
ENTRY_SELECT = "entry, kind, game_id, seq, head, recorded_at, detail, prev, hash"


_LOCKS: dict[str, threading.RLock] = {}
_LOCKS_GUARD = threading.Lock()


@contextlib.contextmanager
def writing(path: str | os.PathLike[str]) -> Iterator[None]:
    """Hold the file's write turn in this process: every write updates the chain's tip, so
    two stores of one file (threads of a service, an import beside live appends) would
    otherwise collide on it. Another process cannot open the file meanwhile."""
    key = os.path.realpath(path)
    with _LOCKS_GUARD:
        lock = _LOCKS.setdefault(key, threading.RLock())
    with lock:
        yield


def entry_digest(prev: str, row: Sequence[Any]) -> str:
    """The hash of an entry: its fields in column order (before ``prev``), after ``prev``."""
    body = msgspec.json.encode(list(row))
    return digest_after(prev, body)


def tip(conn: duckdb.DuckDBPyConnection) -> tuple[int, str]:
    """(number, hash) of the chain's last entry; (0, genesis) for an empty chain."""
    row = fetch_one(
        conn, "SELECT entry, hash FROM heads WHERE entry = (SELECT max(entry) FROM heads)"
    )
    return (0, GENESIS) if row is None else (int(row[0]), str(row[1]))


def record(
    conn: duckdb.DuckDBPyConnection,
    kind: str,
    heads: Iterable[tuple[str | None, int, str | None]],
    detail: dict[str, Any] | None = None,
    *,
    at: str | None = None,
) -> tuple[int, str]:
    """Chain one entry per ``(game_id, events, head)``; call inside the writing transaction.

    The tip is read in that transaction: no writer keeps it in memory, so nothing another
    writer did (an import, a rebuild, a second store of the file) can leave it stale.
    Returns the new tip.
    """
    assert kind in KINDS, kind
    text = json.dumps(detail, sort_keys=True, ensure_ascii=False) if detail else None
    return record_rows(conn, [(kind, g, seq, head) for g, seq, head in heads], text, at=at)


def record_rows(
    conn: duckdb.DuckDBPyConnection,
    heads: Iterable[tuple[str, str | None, int, str | None]],
    detail: str | None = None,
    *,
    at: str | None = None,
) -> tuple[int, str]:
    """:func:`record` of ``(kind, game_id, events, head)`` rows of several kinds, in one
    statement (a group commit's appends)."""
    rows, new_tip = chain_rows(heads, tip(conn), detail, at=at)
    if rows:
        insert_rows(conn, "heads", HEADS_COLUMNS, rows)
    return new_tip


def chain_rows(
    heads: Iterable[tuple[str, str | None, int, str | None]],
    after: tuple[int, str],
    detail: str | None = None,
    *,
    at: str | None = None,
) -> tuple[list[tuple[Any, ...]], tuple[int, str]]:
    """The ``heads`` rows that chain ``(kind, game_id, events, head)`` after the tip
    ``after``, each with the time ``at`` (now) and ``detail``, and the new tip; nothing
    written."""
    stamp = at or L.now()
    return _linked(((k, g, seq, h, stamp, detail) for k, g, seq, h in heads), after)


def _linked(
    entries: Iterable[tuple[str, str | None, int, str | None, str, str | None]],
    after: tuple[int, str],
) -> tuple[list[tuple[Any, ...]], tuple[int, str]]:
    """``(kind, game_id, events, head, recorded_at, detail)`` numbered and hashed after the
    tip ``after``, each entry's hash the next one's ``prev``; and the new tip."""
    n, prev = after
    rows = []
    for kind, game_id, seq, head, at, detail in entries:
        assert kind in KINDS, kind
        n += 1
        fields = (n, kind, game_id, seq, head, at, detail)
        digest = entry_digest(prev, fields)
        rows.append((*fields, prev, digest))
        prev = digest
    return rows, (n, prev)


def chain_pending(
    conn: duckdb.DuckDBPyConnection, rows: Sequence[Sequence[Any]], *, skip_held: bool = False
) -> None:
    """Chain the heads entries a journal record asked for, after the tip read now, in the
    transaction that writes the record's events. A record keeps each entry's kind, game,
    count, head, time and detail; its number and hashes are made here, so the entries
    follow whatever another writer (an import, a rebuild) chained since the record was
    written. With ``skip_held``, an entry the store holds already (the same game, count and
    head: a journal applied again after a crash between the commit and the removal of its
    file) is skipped.
    """
    wanted = [tuple(r[1:7]) for r in rows]
    if not wanted:
        return
    games = sorted({str(w[1]) for w in wanted if w[1] is not None})
    held: set[tuple[Any, Any, Any]] = set()
    if games and skip_held:
        held = {
            (g, int(n), h)
            for g, n, h in conn.execute(
                "SELECT game_id, seq, head FROM heads WHERE list_contains(?, game_id)", [games]
            ).fetchall()
        }
    out, _tip = _linked(
        (
            (kind, game_id, int(seq), head, at, detail)
            for kind, game_id, seq, head, at, detail in wanted
            if (game_id, int(seq), head) not in held
        ),
        tip(conn),
    )
    if out:
        insert_rows(conn, "heads", HEADS_COLUMNS, out)


def adopt(conn: duckdb.DuckDBPyConnection) -> tuple[int, str]:
    """``migrated`` entries for every game the store holds (the chain's beginning)."""
    found = conn.execute(
        "SELECT game_id, max(seq), arg_max(hash, seq) FROM events GROUP BY game_id ORDER BY game_id"
    ).fetchall()
    return record(conn, "migrated", [(g, int(n), h) for g, n, h in found])


def adopt_tails(conn: duckdb.DuckDBPyConnection) -> tuple[int, str]:
    """``migrated`` entries for the games whose events go on past their latest entry
    (schema version 3 chained hand ends only) and still hold the head it recorded."""
    found = conn.execute(
        """
        WITH last AS (SELECT game_id, arg_max(seq, entry) AS seq, arg_max(head, entry) AS head
                      FROM heads WHERE game_id IS NOT NULL GROUP BY game_id),
        held AS (SELECT game_id, max(seq) AS n, arg_max(hash, seq) AS h
                 FROM events GROUP BY game_id)
        SELECT h.game_id, h.n, h.h FROM held h JOIN last l USING (game_id)
        JOIN events e ON e.game_id = l.game_id AND e.seq = l.seq AND e.hash = l.head
        WHERE h.n > l.seq ORDER BY h.game_id
        """
    ).fetchall()
    return record(conn, "migrated", [(g, int(n), h) for g, n, h in found])


#: Something the heads chain recorded that the store no longer holds (or the chain itself
#: changed): a finding of a game, or of the chain itself (its ``file`` is then
#: :data:`HEADS_CHAIN`), with the entry that shows it. Its rule is one of heads_chain,
#: game_deleted, events_missing, game_replaced and not_in_chain.
HeadsProblem = Finding

#: The place of a finding in the heads chain itself rather than in a game.
HEADS_CHAIN = "heads chain"


def _problem(game_id: str | None, entry: int | None, rule: str, reason: str) -> Finding:
    file = HEADS_CHAIN if game_id is None else None
    return Finding(file=file, game_id=game_id, entry=entry, rule=rule, reason=reason)


@dataclass(frozen=True, slots=True)
class Loss:
    """Events the heads chain says a game had and the store no longer holds as recorded."""

    game_id: str
    entry: int
    had: int  # events the chain recorded
    head: str | None  # the head of those events
    now: int  # events the store holds
    kind: str  # game_deleted, events_missing or game_replaced
    reason: str

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


class LossError(GostopError):
    """``db rebuild`` refuses: events are missing; the projection tables are left alone."""

    def __init__(self, found: Sequence[Loss]) -> None:
        self.losses = list(found)
        lines = "; ".join(f"game {x.game_id}: {x.reason}" for x in self.losses[:5])
        more = f"; and {len(self.losses) - 5} more game(s)" if len(self.losses) > 5 else ""
        super().__init__(
            f"refusing to rebuild: events are missing from the store ({lines}{more}). Nothing "
            "was changed. A rebuild would derive the tables from what is left and the loss "
            "would no longer show; to rebuild anyway and record the loss in the store's heads "
            "chain: gostop db rebuild --accept-loss"
        )


def _short(h: str | None) -> str:
    return f"{h[:12]}..." if h else "none"


def losses(conn: duckdb.DuckDBPyConnection) -> list[Loss]:
    """Every game whose events fall short of, or differ from, its latest entry."""
    found = conn.execute(
        """
        WITH last AS (
            SELECT game_id, max(entry) AS entry, arg_max(seq, entry) AS seq,
                   arg_max(head, entry) AS head, arg_max(kind, entry) AS kind,
                   arg_max(recorded_at, entry) AS at
            FROM heads WHERE game_id IS NOT NULL GROUP BY game_id
        ), held AS (SELECT game_id, max(seq) AS n FROM events GROUP BY game_id)
        SELECT l.game_id, l.entry, l.seq, l.head, l.kind, l.at, coalesce(h.n, 0), e.hash
        FROM last l LEFT JOIN held h USING (game_id)
        LEFT JOIN events e ON e.game_id = l.game_id AND e.seq = l.seq
        WHERE l.seq > coalesce(h.n, 0) OR e.hash IS DISTINCT FROM l.head
        ORDER BY l.game_id
        """
    ).fetchall()
    out = []
    for gid, entry, seq, head, kind, at, n, digest in found:
        seq, n = int(seq), int(n)
        if seq == 0 and n == 0:
            continue  # a loss already accepted: the game is gone, and the chain says so
        said = (
            f"the heads chain recorded {seq} event(s) with head {_short(head)} (entry {entry}, "
            f"{kind}, {at})"
        )
        if n == 0:
            kind = "game_deleted"
            reason = f"deleted from the store: {said}; the store holds none of its events"
        elif n < seq:
            gap = f"seq {n + 1}" if n + 1 == seq else f"seq {n + 1}..{seq}"
            kind, reason = "events_missing", f"{gap} missing: {said}; the store holds {n}"
        else:
            kind = "game_replaced"
            reason = (
                f"replaced or changed: {said}; "
                f"the store's event at seq {seq} has hash {_short(digest)}" + _departs(conn, gid)
            )
        out.append(Loss(gid, entry, seq, head, n, kind, reason))
    return out


def _departs(conn: duckdb.DuckDBPyConnection, game_id: str) -> str:
    """Where a replaced game still agrees with the chain: its latest entry that holds."""
    row = fetch_one(
        conn,
        "SELECT max(h.seq) FROM heads h JOIN events e ON e.game_id = h.game_id "
        "AND e.seq = h.seq AND e.hash = h.head WHERE h.game_id = ?",
        [game_id],
    )
    if row is None or row[0] is None:
        return "; no head the chain recorded for it is still held: the whole game was replaced"
    return f"; the store still holds the head the chain recorded at seq {row[0]}: it departs after"


def check_seal(conn: duckdb.DuckDBPyConnection, query: SealQuery) -> SealCheck:
    """Whether the heads chain holds a store seal (the hash of one of its entries). A seal
    found only among the old hashes a ``db repair`` recorded is said to have been held
    before that repair, not to hold (see :mod:`.repair`)."""
    rows = conn.execute("SELECT entry, hash FROM heads ORDER BY entry").fetchall()
    last = int(rows[-1][0]) if rows else 0
    for entry, digest in rows:
        if (query.seq is None or query.seq == entry) and query.matches(digest):
            after = last - int(entry)
            more = f"{after} entr(ies) follow it" if after else "it is the latest entry"
            return SealCheck(
                True,
                f"the store's heads chain holds seal {query.text} at entry {entry}; {more}",
                int(entry),
                after,
            )
    earlier = _before_repair(conn, query)
    if earlier is not None:
        return earlier
    return SealCheck(
        False,
        f"the store's heads chain does not hold seal {query.text} (none of its {len(rows)} "
        "entries has this hash): the chain was rewritten, or cut, after the seal was taken",
        query.seq,
    )


def _before_repair(conn: duckdb.DuckDBPyConnection, query: SealQuery) -> SealCheck | None:
    """A seal among the old hashes a ``db repair`` recorded for the entries it re-linked.

    It does not hold: the chain no longer has that hash, and the old hashes are the repair's
    record, which whoever holds the file could write as well. Whether the entry is still the
    one sealed (its old hash follows from its fields now and its old link) is said.
    """
    found = conn.execute(
        "SELECT entry, recorded_at, detail FROM heads WHERE kind = 'repaired' "
        "AND game_id IS NULL ORDER BY entry"
    ).fetchall()
    for repair_entry, at, detail in found:
        try:
            relinked = json.loads(detail or "{}").get("relinked", [])
        except (ValueError, AttributeError):
            continue
        for old in relinked:
            try:
                entry, prev, digest = int(old["entry"]), str(old["prev"]), str(old["hash"])
                hit = (query.seq is None or query.seq == entry) and query.matches(digest)
            except (KeyError, TypeError, ValueError):
                continue
            if not hit:
                continue
            row = fetch_one(conn, f"SELECT {ENTRY_SELECT} FROM heads WHERE entry = ?", [entry])
            same = row is not None and entry_digest(prev, row[:7]) == digest
            state = (
                "the entry is the same but for its link to the entry before"
                if same
                else "the entry has changed since"
            )
            return SealCheck(
                False,
                f"the store's heads chain held seal {query.text} at entry {entry} before the "
                f"repair of {at} (entry {repair_entry}), which re-linked it; {state}. The "
                "chain no longer holds this hash: the repair's record of it is all that is "
                "left, and proves nothing about the chain",
                entry,
            )
    return None


# Long: the chain, then each game against it: one pass sharing the rows read once.
def check(conn: duckdb.DuckDBPyConnection) -> list[HeadsProblem]:
    """The chain itself, then every game against its latest entry (see the docstring)."""
    problems: list[HeadsProblem] = []
    expected, prev = 1, GENESIS
    for row in conn.execute(f"SELECT {ENTRY_SELECT} FROM heads ORDER BY entry").fetchall():
        entry = int(row[0])
        if entry != expected:
            gap = (
                f"entry {expected} is missing"
                if entry == expected + 1
                else f"entries {expected}..{entry - 1} are missing"
                if entry > expected
                else f"entry {entry} is there twice"
            )
            problems.append(
                _problem(game_id=None, entry=entry, rule="heads_chain", reason=f"{gap} (removed?)")
            )
        if row[7] != prev:
            problems.append(
                _problem(
                    game_id=row[2],
                    entry=entry,
                    rule="heads_chain",
                    reason=f"entry {entry} does not follow the entry before it (an entry "
                    f"before it was "
                    "changed, removed or inserted)",
                )
            )
        elif entry_digest(prev, row[:7]) != row[8]:
            problems.append(
                _problem(
                    game_id=row[2],
                    entry=entry,
                    rule="heads_chain",
                    reason=f"entry {entry} ({row[1]}) was changed after it was written",
                )
            )
        prev, expected = row[8], entry + 1
    lost = losses(conn)
    for loss in lost:
        problems.append(
            _problem(game_id=loss.game_id, entry=loss.entry, rule=loss.kind, reason=loss.reason)
        )
    named = {loss.game_id for loss in lost}
    extra = conn.execute(
        """
        WITH last AS (SELECT game_id, arg_max(seq, entry) AS seq FROM heads
                      WHERE game_id IS NOT NULL GROUP BY game_id),
        held AS (SELECT game_id, max(seq) AS n FROM events GROUP BY game_id)
        SELECT h.game_id, h.n, l.seq FROM held h LEFT JOIN last l USING (game_id)
        WHERE l.seq IS NULL ORDER BY h.game_id
        """
    ).fetchall()
    for gid, n, _seq in extra:
        if gid in named:
            continue
        why = (
            f"not in the heads chain: its {n} event(s) were written outside gostop (or "
            "replaced a game under another id)"
        )
        problems.append(_problem(game_id=gid, entry=None, rule="not_in_chain", reason=why))
    added = conn.execute(
        """
        WITH last AS (SELECT game_id, max(entry) AS entry, arg_max(seq, entry) AS seq
                      FROM heads WHERE game_id IS NOT NULL GROUP BY game_id),
        held AS (SELECT game_id, max(seq) AS n FROM events GROUP BY game_id)
        SELECT l.game_id, l.entry, l.seq, h.n FROM last l JOIN held h USING (game_id)
        WHERE h.n > l.seq ORDER BY l.game_id
        """
    ).fetchall()
    for gid, entry, seq, n in added:
        if gid in named:
            continue
        gap = f"seq {int(seq) + 1}" if int(seq) + 1 == int(n) else f"seq {int(seq) + 1}..{n}"
        problems.append(
            _problem(
                game_id=gid,
                entry=int(entry),
                rule="not_in_chain",
                reason=f"{gap} are not in the heads chain (its latest entry, {entry}, counts "
                f"{seq} event(s)): written outside gostop",
            )
        )
    return problems
