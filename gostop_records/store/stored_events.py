"""A store's games read back from its ``events`` table: a game's head, its events decoded
(its sealed names opened by the store's keys), and the projection rows derived from them
again (:func:`fresh_rows`, which a rebuild writes and a verify compares)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import Finding, GostopError, LogError, ProjectionError
from ..events import Envelope
from ..projector import Projector
from .codec import rows_to_envelopes
from .connection import fetch_one
from .person_keys import revealed
from .projections import Rows, derive, empty_rows
from .writer import EVENT_SELECT

if TYPE_CHECKING:
    import duckdb

    from .. import events as E
    from .handle import StoreHandle

__all__ = [
    "GROUP_EVENTS",
    "Events",
    "Failure",
    "decode_game",
    "fresh_rows",
    "game_events",
    "game_groups",
    "game_head",
    "games_events",
]


#: Events read per group of games: a group's rows, envelopes and projections are what a
#: verify or a rebuild holds at once (about 5 KiB per event): its memory stays flat.
GROUP_EVENTS = 20_000


#: A stored game that cannot be projected: an event does not decode (rule ``decode``: the
#: stored payload itself is unreadable, changed by hand?), or does not replay.
Failure = Finding


def game_head(conn: duckdb.DuckDBPyConnection, game_id: str) -> tuple[int, str | None]:
    """(version, last hash) of a game on ``conn``: its number of events and the hash of the
    last; (0, None) for a game the store does not hold."""
    row = fetch_one(
        conn, "SELECT seq, hash FROM events WHERE game_id = ? ORDER BY seq DESC LIMIT 1", [game_id]
    )
    return (0, None) if row is None else (int(row[0]), str(row[1]))


def game_events(
    conn: duckdb.DuckDBPyConnection,
    game_id: str,
    until_seq: int | None = None,
    *,
    source: str = "store",
) -> list[E.Envelope]:
    """A game's envelopes on ``conn`` in seq order (up to ``until_seq``), decoded as from a
    log file; ``source`` names where they come from in an error."""
    sql = f"SELECT {EVENT_SELECT} FROM events WHERE game_id = ?"
    params: list[Any] = [game_id]
    if until_seq is not None:
        sql += " AND seq <= ?"
        params.append(until_seq)
    rows = conn.execute(sql + " ORDER BY seq", params).fetchall()
    return revealed(conn, rows_to_envelopes(rows, source=source))


def games_events(
    conn: duckdb.DuckDBPyConnection, game_ids: Sequence[str]
) -> dict[str, list[tuple[Any, ...]]]:
    """The stored rows of several games on ``conn``, grouped by game in seq order."""
    out: dict[str, list[tuple[Any, ...]]] = {g: [] for g in game_ids}
    rows = conn.execute(
        f"SELECT {EVENT_SELECT} FROM events WHERE game_id IN "
        "(SELECT unnest(?::VARCHAR[])) ORDER BY game_id, seq",
        [list(game_ids)],
    ).fetchall()
    for r in rows:
        out[r[0]].append(r)
    return out


class Events:
    """A store's events on a connection of their own (a thread's cursor), read as
    :func:`fresh_rows` and :func:`game_groups` read a store, without settling its journal
    (which is the writer's to do)."""

    def __init__(self, conn: duckdb.DuckDBPyConnection, path: Path) -> None:
        self.conn = conn
        self.path = path

    def games_events(self, game_ids: Sequence[str]) -> dict[str, list[tuple[Any, ...]]]:
        return games_events(self.conn, game_ids)


def game_groups(store: StoreHandle | Events, limit: int = GROUP_EVENTS) -> Iterator[list[str]]:
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


def decode_game(store: StoreHandle | Events, rows: Sequence[tuple[Any, ...]]) -> list[Envelope]:
    """A game's rows as envelopes, its sealed names opened by the store's keys."""
    return revealed(store.conn, rows_to_envelopes(rows, source=str(store.path)))


def fresh_rows(
    store: StoreHandle | Events, game_ids: Sequence[str], failed: list[Failure]
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
            failed.append(Failure(game_id=gid, seq=exc.seq, rule="decode", reason=exc.reason))
            continue
        decoded[gid] = envs
        p = Projector(strict=False, inplace=True)
        try:
            for env in envs:
                p.feed(env)
        except (ProjectionError, GostopError) as exc:
            failed.append(
                Failure(
                    game_id=gid,
                    seq=getattr(exc, "seq", None),
                    rule=getattr(exc, "rule", "replay"),
                    reason=f"does not replay: {getattr(exc, 'reason', exc)}",
                )
            )
            continue
        if p.game is None:
            reason = "the events do not start with game_started"
            failed.append(Failure(game_id=gid, seq=1, rule="game_started", reason=reason))
            continue
        derive(envs, p.game, p.issues, rows=rows, retracted=p.retracted)
    return rows, decoded
