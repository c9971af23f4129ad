"""Deriving the projection tables again from the events, and the fresh rows for a check.

The projection tables are caches of the events; :func:`rebuild` replaces all of them in
one transaction (a crash leaves the old ones), from rows staged a group of games at a
time, and :func:`fresh_rows` gives the rows a rebuild would write, which :mod:`.verify`
compares with the stored ones. A rebuild never
hides a loss: when the store's heads chain (:mod:`.heads`) says a game had events the store
no longer holds, it refuses (:class:`~.heads.LossError`) unless the loss is accepted, and
both the accepted loss and the rebuild are entries of that chain. Stored games are
replayed leniently: they were validated when they were written, and a game accepted in
lenient mode must still project.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..errors import GostopError, LogError, ProjectionError
from ..events import Envelope
from ..projector import Projector
from .codec import rows_to_envelopes
from .connection import bounded_memory
from .heads import Loss, LossError, losses, writing
from .heads import record as record_head
from .people import rebuild_people, revealed
from .projections import Rows, derive, empty_rows
from .rows import insert_rows
from .schema import TABLES
from .writer import clear_games, insert_projection, transaction

if TYPE_CHECKING:
    from .store import Store

__all__ = [
    "GROUP_EVENTS",
    "Failure",
    "RebuildReport",
    "catch_up",
    "fresh_rows",
    "game_groups",
    "rebuild",
]

#: Events read per group of games: a group's rows, envelopes and projections are what a
#: verify or a rebuild holds at once (about 5 KiB per event, see bench/RESULTS.md).
GROUP_EVENTS = 20_000


@dataclass(frozen=True, slots=True)
class Failure:
    """A stored game that cannot be projected: an event does not decode, or does not replay."""

    game_id: str
    seq: int | None
    reason: str
    decode: bool  # the stored payload itself is unreadable (changed by hand?)

    def describe(self) -> str:
        where = f"game {self.game_id}" + (f", seq {self.seq}" if self.seq is not None else "")
        return f"{where}: {self.reason}"


@dataclass(slots=True)
class RebuildReport:
    games: int = 0
    rows: dict[str, int] = field(default_factory=dict)
    #: Games whose events do not project (see ``gostop db verify``); they have no rows.
    failed: list[Failure] = field(default_factory=list)
    #: Losses accepted with ``accept_loss``, recorded in the heads chain.
    accepted: list[Loss] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "games": self.games,
            "rows": self.rows,
            "accepted_losses": [x.to_dict() for x in self.accepted],
            "failed": [
                {"game_id": f.game_id, "seq": f.seq, "reason": f.reason} for f in self.failed
            ],
        }


def game_groups(store: Store, limit: int = GROUP_EVENTS) -> Iterator[list[str]]:
    """Game ids in groups of about ``limit`` events."""
    counts = store.conn.execute(
        "SELECT game_id, count(*) FROM events GROUP BY game_id ORDER BY game_id"
    ).fetchall()
    group: list[str] = []
    size = 0
    for gid, n in counts:
        group.append(gid)
        size += n
        if size >= limit:
            yield group
            group, size = [], 0
    if group:
        yield group


def decode_game(store: Store, rows: Sequence[tuple[Any, ...]]) -> list[Envelope]:
    """A game's rows as envelopes, its sealed names opened by the store's keys."""
    return revealed(store.conn, rows_to_envelopes(rows, source=str(store.path)))


def fresh_rows(
    store: Store, game_ids: Sequence[str], failed: list[Failure]
) -> tuple[Rows, dict[str, list[Envelope]]]:
    """The projection rows of these games derived from their stored events now.

    Also returns the decoded events of every game that decodes, for the chain check.
    """
    rows = empty_rows()
    decoded: dict[str, list[Envelope]] = {}
    for gid, stored in store.games_events(game_ids).items():
        try:
            envs = decode_game(store, stored)
        except LogError as exc:
            failed.append(Failure(gid, exc.seq, exc.reason, True))
            continue
        decoded[gid] = envs
        p = Projector(strict=False, inplace=True)
        try:
            for env in envs:
                p.feed(env)
        except (ProjectionError, GostopError) as exc:
            failed.append(
                Failure(
                    gid,
                    getattr(exc, "seq", None),
                    f"does not replay: {getattr(exc, 'reason', exc)}",
                    False,
                )
            )
            continue
        if p.game is None:
            failed.append(Failure(gid, 1, "the events do not start with game_started", False))
            continue
        derive(envs, p.game, p.issues, rows=rows, retracted=p.retracted)
    return rows, decoded


def rebuild(
    store: Store,
    *,
    accept_loss: bool = False,
    progress: Callable[[int, int], None] | None = None,
) -> RebuildReport:
    """Replace every projection table, in one transaction; see the module docstring.
    ``progress(done, total)`` is called with the games derived so far after each group."""
    with bounded_memory(store.conn, store.path):
        return _rebuild(store, accept_loss, progress)


def _rebuild(
    store: Store, accept_loss: bool, progress: Callable[[int, int], None] | None
) -> RebuildReport:
    """The fresh rows are staged in temporary tables one group of games at a time, each
    insert committed on its own (DuckDB holds a transaction's appended rows in memory until
    it commits, so one transaction over every group would grow with the store); the
    projection tables are then replaced from them in one transaction, inside DuckDB. The
    file's write turn is held throughout, so no write of this process comes in between;
    a crash before the last commit leaves the old tables (temporary tables vanish with the
    connection)."""
    report = RebuildReport(rows=dict.fromkeys(TABLES, 0))
    conn = store.conn
    staged = {name: f"temp.rebuild_{name}" for name in TABLES}  # never a stored table
    total = int(conn.execute("SELECT count(DISTINCT game_id) FROM events").fetchall()[0][0])
    with writing(store.path):
        found = losses(conn)
        if found and not accept_loss:
            raise LossError(found)
        try:
            for name, temp in staged.items():
                conn.execute(f"CREATE OR REPLACE TEMP TABLE {temp} AS FROM {name} LIMIT 0")
            for group in game_groups(store):
                rows, _ = fresh_rows(store, group, report.failed)
                for name, cols in TABLES.items():
                    report.rows[name] += insert_rows(conn, staged[name], cols, rows[name])
                report.games += len(group)
                if progress is not None:
                    progress(report.games, total)
            with transaction(conn):
                for loss in found:
                    detail = {
                        "had_events": loss.had,
                        "had_head": loss.head,
                        "entry": loss.entry,
                        "loss": loss.kind,
                    }
                    now = store.head(loss.game_id)
                    record_head(conn, "loss_accepted", [(loss.game_id, now[0], now[1])], detail)
                report.accepted = found
                for name, temp in staged.items():
                    conn.execute(f"DELETE FROM {name}")
                    conn.execute(f"INSERT INTO {name} FROM {temp}")
                rebuild_people(conn)
                detail = {"games": report.games, "failed": len(report.failed), "rows": report.rows}
                record_head(conn, "rebuild", [(None, 0, None)], detail)
        finally:
            for temp in staged.values():
                with contextlib.suppress(Exception):  # the store may be closed by now
                    conn.execute(f"DROP TABLE IF EXISTS {temp}")
    return report


def catch_up(store: Store) -> list[str]:
    """Derive again the rows of the games whose ``positions`` row is behind their last
    event (or missing): a server that defers its projection writes and died before one.
    Only those games' rows are replaced, in one transaction; the events are not touched."""
    conn = store.conn
    behind = [
        str(gid)
        for (gid,) in conn.execute(
            """
            SELECT e.game_id FROM (SELECT game_id, max(seq) AS n FROM events GROUP BY game_id) e
            LEFT JOIN positions p USING (game_id)
            WHERE p.seq IS DISTINCT FROM e.n ORDER BY e.game_id
            """
        ).fetchall()
    ]
    if not behind:
        return []
    failed: list[Failure] = []
    rows, _decoded = fresh_rows(store, behind, failed)
    with writing(store.path), transaction(conn):
        clear_games(conn, behind)
        insert_projection(conn, rows)
    for gid in behind:
        store.cache.pop(gid, None)
    return behind
